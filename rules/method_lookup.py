"""What a method call `receiver.name(...)` on an object runs, as Python looks it up.

The rules of `method` (`rules/calls.py` and its higher-order forms) differentiate such a
call as a call of the function the class holds. Python calls that function with the
receiver first where the class's attribute is a plain function; a `staticmethod`'s
function without it, and a `classmethod`'s with the receiver's class first. Anything else
(an attribute of the instance that hides the class's, a property or other descriptor, a
class with its own `__getattribute__`) runs code the class's function is not, and is left
to the caller to refuse."""

from __future__ import annotations

import types
from typing import Any

_HIDDEN = object()  # the class's attribute is not what Python's lookup finds


def _class_member(receiver: Any, name: str) -> Any:
    """The attribute of `type(receiver)` that `receiver.name` finds, `_HIDDEN` where
    Python's lookup finds something else (an own `__getattribute__`, an instance attribute
    of that name), None where the class has none."""
    owner = type(receiver)
    if isinstance(owner.__getattribute__, types.FunctionType):
        return _HIDDEN
    if name in getattr(receiver, "__dict__", ()):
        return _HIDDEN
    for klass in owner.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def runs_class_function(receiver: Any, name: str) -> bool:
    """Whether `receiver.name(...)` calls the attribute its class holds, bound to the
    receiver: the class's attribute a plain function or a builtin's method (not a
    staticmethod, classmethod, property or other descriptor, which call something else,
    or pass something else first)."""
    stored = _class_member(receiver, name)
    if stored is _HIDDEN:
        return False
    return stored is None or (
        not isinstance(stored, staticmethod | classmethod | property)
        and (isinstance(stored, types.FunctionType) or not hasattr(stored, "__set__"))
    )


def static_member(receiver: Any, name: str) -> tuple[Any, tuple[Any, ...]] | None:
    """For `receiver.name(...)` reaching a `staticmethod` or `classmethod` of the class,
    the function it calls and the arguments Python puts before the call's own (none for a
    staticmethod, the receiver's class for a classmethod); None otherwise."""
    stored = _class_member(receiver, name)
    if isinstance(stored, staticmethod):
        return stored.__func__, ()
    if isinstance(stored, classmethod):
        return stored.__func__, (type(receiver),)
    return None

"""srcad's own machinery: the objects whose methods run srcad itself (the rule registry,
the rule configuration through which rules call back into the compiler, rule sets, the
compiler). srcad never differentiates them: a derivative of them would be a derivative
of srcad's compiler, not of the user's code. The rules of calls of values known only at
run time (`rules/calls.py`) read them to find and run the rule of what they call; a
function that reads them is refused where it does (`passes/checks/callees.py`), so that
srcad takes that function's derivatives from its rules or not at all, and a call that
reaches one of their methods when the code runs is refused with the reason
(`Compiler.compiled_rule`, `Compiler.compiled`)."""

from __future__ import annotations

import sys
import types
from typing import Any

REASON = (
    "it is srcad's own machinery (its rule registry, rule configuration or compiler), which "
    "srcad does not differentiate"
)


class Machinery:
    """A class of srcad's machinery (see the module): its instances, methods and the
    functions defined in its body are never differentiated."""

    __slots__ = ()


def is_machinery(value: Any) -> bool:
    """Whether `value` is srcad's machinery: an instance or subclass of `Machinery`, a
    method bound to one, or a function defined in such a class's body (read off the class,
    `Registry.is_non_differentiable`, as a method's rule finds it)."""
    if isinstance(value, types.MethodType):
        value = value.__self__
    if isinstance(value, Machinery) or (isinstance(value, type) and issubclass(value, Machinery)):
        return True
    if not isinstance(value, types.FunctionType):
        return False
    owner = sys.modules.get(value.__module__ or "")
    head, _, rest = value.__qualname__.partition(".")
    if owner is None or not rest:
        return False
    found = getattr(owner, head, None)
    return isinstance(found, type) and issubclass(found, Machinery)

"""Classes that srcad builds through their own `__init__`: `Point(x, 2.0 * y)` for a class
whose `__init__` is Python code storing attributes on `self`.

Python makes such an instance with `object.__new__` and hands it, empty and held by
nothing else, to `__init__`, which changes it in place. srcad differentiates the call as
a function that returns the instance: the class's *initialiser* (`initialiser`), a copy of
its `__init__` function marked with the class, which the compiler compiles with the
instance made in its first line (`primitives.new_instance`) in place of the `self`
parameter, each `self.name = v` as a new instance with the attribute set
(`primitives.with_attribute`), and `self` returned (`passes/transforms/to_anf.py`). That
rewrite gives what Python computes only while nothing else holds the instance, which the
mutation check proves (`passes/checks/mutations.py`: until its last write, `self` is read
only for attributes `__init__` stored before), and only for classes whose instances are
made and changed by `object`'s own machinery, which `initialiser` checks and the compiled
code guards (`initialiser_facts`). A dataclass whose generated `__init__` calls a
`__post_init__` (`post_init_class`) has an initialiser too, the generated `__init__`'s copy,
whose source `srcad/dataclass_init.py` writes (a frozen one's `__setattr__` raises, and
is never run: each store builds a new instance)."""

from __future__ import annotations

import dataclasses
import types
import weakref
from typing import Any

from srcad.guards import Fact

_HEAP_TYPE = 1 << 9  # `Py_TPFLAGS_HEAPTYPE`: a class defined by a `class` statement

# The initialiser made for each class, with the `__init__` it copies: made again when the
# class's `__init__` is another function.
_INITIALISERS: weakref.WeakKeyDictionary[type, tuple[Any, types.FunctionType]] = (
    weakref.WeakKeyDictionary()
)
_CONSTRUCTS = "__srcad_constructs__"  # the marker an initialiser carries: its class


def plain_class(kind: Any) -> bool:
    """Whether calling `kind` makes an instance with `object.__new__`, then runs a Python
    `__init__` (through the class's MRO) on it, and whose attributes `object.__setattr__`
    stores in the instance's `__dict__`: a class of `class` statements alone, no
    `__slots__`, no metaclass `__call__`, no `__new__` or `__setattr__` of its own, and not
    a dataclass or NamedTuple whose `__init__` is generated (`primitives.make_struct`)."""
    if not isinstance(kind, type) or type(kind).__call__ is not type.__call__:
        return False
    if kind.__new__ is not object.__new__ or kind.__setattr__ is not object.__setattr__:
        return post_init_class(kind)
    if any(
        k is not object and (not k.__flags__ & _HEAP_TYPE or "__slots__" in vars(k))
        for k in kind.__mro__
    ):
        return False
    init = getattr(kind, "__init__", None)  # (through the MRO)
    return (
        isinstance(init, types.FunctionType)
        and init.__code__.co_filename != "<string>"
        and init.__code__.co_argcount >= 1  # a `self` to make (not `def __init__(*args)`)
    ) or post_init_class(kind)


def post_init_class(kind: type) -> bool:
    """Whether `kind` is a dataclass whose generated `__init__` stores its fields and then
    calls a Python `__post_init__` (`srcad.dataclass_init` writes that as the source),
    made and changed by `object`'s machinery, but for the `__setattr__` and `__delattr__`
    a frozen one generates (which raise; the initialiser builds new instances instead)."""
    init = vars(kind).get("__init__")
    # (as the class holds it: a plain function, not a static or class method)
    post_init = next(
        (vars(k)["__post_init__"] for k in kind.__mro__ if "__post_init__" in vars(k)), None
    )
    if not (
        dataclasses.is_dataclass(kind)
        and isinstance(init, types.FunctionType)
        and init.__code__.co_filename == "<string>"
        and isinstance(post_init, types.FunctionType)
        and type(kind).__call__ is type.__call__
        and kind.__new__ is object.__new__
    ):
        return False
    if any(
        k is not object and (not k.__flags__ & _HEAP_TYPE or "__slots__" in vars(k))
        for k in kind.__mro__
    ):
        return False
    frozen = getattr(kind, "__dataclass_params__").frozen  # noqa: B009
    hooks = [getattr(kind, "__setattr__"), getattr(kind, "__delattr__")]  # noqa: B009
    if frozen:
        return all(getattr(h, "__code__", None) is not None and h.__code__.co_filename == "<string>"
                   for h in hooks)  # fmt: skip
    return hooks == [object.__setattr__, object.__delattr__]


def initialiser(kind: Any) -> types.FunctionType | None:
    """The function srcad differentiates for a call of the class `kind` (`plain_class`):
    its `__init__`, copied and marked with `kind`, so that compiling it is compiling the
    construction (the same `__init__` may build several classes, subclasses that inherit
    it); None for any other class or value."""
    if not plain_class(kind):
        return None
    init = getattr(kind, "__init__")  # noqa: B009 (a class's, which mypy reads as unsound)
    found = _INITIALISERS.get(kind)
    if found is not None and found[0] is init:
        return found[1]
    copy = types.FunctionType(
        init.__code__, init.__globals__, init.__name__, init.__defaults__, init.__closure__
    )
    copy.__kwdefaults__ = init.__kwdefaults__
    copy.__qualname__ = init.__qualname__
    copy.__module__ = init.__module__
    setattr(copy, _CONSTRUCTS, weakref.ref(kind))  # (the class keeps its copy alive)
    _INITIALISERS[kind] = (init, copy)
    return copy


def constructed_class(func: Any) -> type | None:
    """The class an initialiser (`initialiser`) builds; None for any other function."""
    found = getattr(func, _CONSTRUCTS, None) if isinstance(func, types.FunctionType) else None
    return found() if found is not None else None


def initialiser_facts(kind: type) -> list[Fact]:
    """What code compiled from `kind`'s initialiser relies on, guarded: the class still
    runs that `__init__`, and makes and changes instances with `object`'s machinery."""
    return [
        Fact("attribute", kind, name, getattr(kind, name))
        for name in ("__init__", "__new__", "__setattr__")
    ]


def attribute_descriptor(kind: type, name: str) -> Any:
    """The descriptor of `kind` (or a base) that an assignment `instance.name = v` would
    run instead of storing `v` in the instance (a property, a slot), else None."""
    for klass in kind.__mro__:
        found = vars(klass).get(name)
        if found is not None:
            return found if hasattr(type(found), "__set__") else None
    return None

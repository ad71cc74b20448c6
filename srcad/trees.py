"""Values shaped like the user's arguments: the structures srcad knows, `tree_map` over
them, and the conversion of a structural cotangent into the argument's own structure.

Inside srcad, and for rule authors, the derivative of a structure is ChainRules' `Tangent`
(`srcad.tangents`), with `ZeroTangent()` for a part that has none: cheap to add, and the
same for every structure. A user who asks `grad` for the gradient with respect to a list
of parameters wants a list back, to write `[p - lr * g for p, g in zip(params, grads)]`.
So `grad`, `value_and_grad`, `vjp` and `jacobian` hand back `structured(cotangent,
argument)`: the argument's own structure, with a dense zero for every part without a
derivative. This is done once per call, on the way out: `grad`'s entry function returns
the plain float or array of a float argument before ever reaching it (`srcad.entry`).

The structures (`children`): a tuple or NamedTuple, a list, a dict (the same keys, in the
same order), a dataclass (rebuilt with `dataclasses.replace`), and an object with a
`__dict__` (a copy, with its attributes replaced). Everything else is a leaf. A leaf that
cannot be perturbed (an int, a bool, a string, an integer array) has no derivative: its
place holds `NoTangent()`, which arithmetic leaves alone (`p - lr * NoTangent()` is `p`).
A function's cotangent (a closure's `Tangent` of what it captured) is kept as it is.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.callables import floating, perturbable
from srcad.errors import SrcadError
from srcad.foreign import foreign_class
from srcad.kinds import FLOAT, Structure
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    field_names,
    materialize,
    unthunk,
)

# Objects with a `__dict__` that are not data, or are numbers and arrays (a subclass of
# `np.ndarray` or `float` has a `__dict__`, whose attributes are not its value): never
# taken apart.
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.MethodType,
           types.BuiltinFunctionType, functools.partial, np.ufunc,
           np.ndarray, np.generic, float, int, complex)  # fmt: skip


def children(value: Any) -> tuple[list[Any], Callable[[list[Any]], Any]] | None:
    """The keys of a structure's parts and the function that rebuilds it from new parts
    (given in the keys' order); None for a leaf."""
    if isinstance(value, tuple):
        keys = list(getattr(type(value), "_fields", range(len(value))))
        if hasattr(value, "_make"):  # a NamedTuple
            return keys, type(value)._make
        return keys, tuple
    if isinstance(value, list):
        return list(range(len(value))), list
    if isinstance(value, dict):
        keys = list(value)
        return keys, functools.partial(_rebuilt_mapping, value, keys)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [f.name for f in dataclasses.fields(value)]
        return names, functools.partial(_rebuilt_dataclass, value, names)
    if hasattr(value, "__dict__") and not isinstance(value, _OPAQUE):
        keys = list(vars(value))
        return keys, functools.partial(_rebuilt_object, value, keys)
    return None


def part(value: Any, key: Any) -> Any:
    """The part `key` of a structure, or of its (co)tangent: a symbolic zero has zero parts,
    a `Tangent` the parts it was given (zero for the others)."""
    value = unthunk(value)
    if isinstance(value, AbstractZero):
        return value
    if isinstance(value, Tangent):
        if value.elements:
            if isinstance(key, str):  # a NamedTuple's, by position
                key = field_names(value.primal_type).index(key)
            return value.elements[key]
        return value.fields.get(key, ZeroTangent())
    if isinstance(value, dict | list):
        return value[key]
    if isinstance(value, np.ndarray) and isinstance(key, int):  # a list's or tuple's, stacked
        return value[key]
    if isinstance(value, tuple):
        return value[key] if isinstance(key, int) else getattr(value, key)
    return getattr(value, key)


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """`f` applied to each leaf of `tree` (with the parts of `rest` at the same place), in
    `tree`'s structure: `srcad.tree_map(lambda p, g: p - 0.1 * g, params, grads)`.

    The structures are those srcad differentiates through and gives gradients shaped
    like: tuples and NamedTuples, lists, dicts, dataclasses and objects with attributes;
    anything else (a float, an array, an int) is a leaf. The trees in `rest` have `tree`'s
    structure, or are its (co)tangents: a `srcad.Tangent`, or a symbolic zero whose every
    part is zero.
    """
    found = children(tree)
    if found is None:
        return f(tree, *rest)
    keys, rebuild = found
    for other in rest:
        _check_fits(other, tree, keys)
    return rebuild([tree_map(f, part(tree, k), *(part(r, k) for r in rest)) for k in keys])


def _check_fits(tangent: Any, tree: Any, keys: list[Any]) -> None:
    """Refuse a `Tangent` with a part `tree` has no place for: dropping it would hide a
    derivative (a tangent for a property, read as a field, was such a bug)."""
    if isinstance(tangent, np.ndarray) and isinstance(tree, list | tuple):
        if tangent.ndim == 0 or len(tangent) != len(keys):
            raise SrcadError(f"a tangent of shape {tangent.shape} for a {type(tree).__name__} "
                             f"of {len(keys)} elements")  # fmt: skip
        return
    if isinstance(tangent, np.ndarray | np.generic | float | complex):
        # (NumPy's conversion of the object, `__array__`, or Python's, `__float__`, made a
        # number of it, whose derivative srcad's rules gave: it says nothing of its parts)
        raise SrcadError(
            f"a derivative reached a {type(tree).__name__} as a number or array: a "
            "conversion (__array__, __float__) made one of it, which srcad does not "
            "differentiate through; pass the number or array itself"
        )
    if not isinstance(tangent, Tangent):
        return
    extra = [k for k in tangent.fields if k not in keys]
    if tangent.elements and len(tangent.elements) != len(keys):
        extra = [f"{len(tangent.elements)} elements for {len(keys)}"]
    if extra:
        raise SrcadError(f"a tangent of {type(tree).__name__} has parts it has not: {extra!r:.80}")


def structured(cotangent: Any, primal: Any) -> Any:
    """A (co)tangent of `primal` in `primal`'s own structure: zeros materialised, each leaf
    a float or array of its leaf's float type, `NoTangent()` where a leaf cannot be
    perturbed."""
    return tree_map(_leaf, primal, cotangent)


def _leaf(primal: Any, tangent: Any) -> Any:
    if not perturbable(primal):
        return NoTangent()
    tangent = materialize(tangent, primal)
    if isinstance(primal, np.ndarray) and np.shape(tangent) != primal.shape:
        tangent = np.broadcast_to(tangent, primal.shape).copy()  # a uniform tangent, expanded
    return floating(tangent, primal)


def shaped(cotangent: Any, primal: Any, kind: Structure) -> Any:
    """`structured(cotangent, primal)` for a container of a known structure (`srcad.kinds.
    Structure`, tested by `grad`'s entry) whose every leaf's cotangent is already its plain
    type (a float, a float64 array of its leaf's shape): the container rebuilt around them,
    at a tenth of the cost. None for anything else (a zero, a thunk, an int item, a part
    too many), which `structured` handles.

    A structure of tuples, lists and dicts alone has code of its own for this, compiled
    once (`_rebuilder`): no loop over its items, no test of their kinds at run time.
    """
    return shaper(kind)(cotangent, primal)


@functools.lru_cache(maxsize=256)
def shaper(kind: Structure) -> Callable[[Any, Any], Any]:
    """`shaped` for one structure, made once: `grad`'s entry binds it for each container
    argument, so that a call pays no lookup."""
    if _plain(kind):
        return _rebuilder(kind)
    return functools.partial(_shaped_by_parts, kind=kind)


def _shaped_by_parts(cotangent: Any, primal: Any, kind: Structure) -> Any:
    """`shaped` for any structure, a loop over its items."""
    if type(cotangent) is not Tangent:
        return None
    container, items = kind.container, kind.items
    if container is dict:  # in the argument's order (the entry proved its keys the same)
        keys: tuple[Any, ...] = tuple(primal)
        item_of = dict(zip(kind.keys, items, strict=True))
        items = tuple(item_of[key] for key in keys)
        values = [primal[key] for key in keys]
    elif kind.fields:
        keys = kind.keys
        values = [getattr(primal, key) for key in keys]
    else:
        keys = ()
        values = list(primal)
    count = len(items)
    if keys and not cotangent.elements:
        fields = cotangent.fields
        if len(fields) != count:
            return None
        try:
            parts = [fields[key] for key in keys]
        except KeyError:
            return None
    elif len(cotangent.elements) == count and not cotangent.fields:
        parts = list(cotangent.elements)  # (a NamedTuple's may be by position)
    else:
        return None
    for index, (item, value) in enumerate(zip(items, values, strict=True)):
        found = parts[index]
        if isinstance(item, Structure):
            found = parts[index] = _shaped_by_parts(found, value, item)
            if found is None:
                return None
        elif item == FLOAT:
            if type(found) is not float:
                return None
        elif (
            item is None
            or item[0] != "f"
            or type(found) is not np.ndarray
            or found.dtype != _FLOAT64
            or found.shape != value.shape
        ):
            return None
    if container is tuple or container is list:
        return container(parts)
    if container is dict:
        return dict(zip(keys, parts, strict=True))
    if issubclass(container, tuple):  # a NamedTuple
        return container._make(parts)  # type: ignore[attr-defined]
    return _rebuilt_dataclass(primal, list(keys), parts)


_FLOAT64 = np.dtype(np.float64)


def _plain(kind: Structure) -> bool:
    """Whether a structure is made of tuples, lists and dicts alone, all the way down."""
    if kind.container not in (tuple, list, dict):
        return False
    return all(_plain(item) for item in kind.items if isinstance(item, Structure))


@functools.lru_cache(maxsize=256)
def _rebuilder(kind: Structure) -> Callable[[Any, Any], Any]:
    """`shaped` for one structure of tuples, lists and dicts, as straight-line code: each
    level's `Tangent` holds as many parts as the level has items (a dict's by key), each
    leaf's is a float for a float and a float64 array of the argument's shape for an array
    (anything else: None, for `structured`). A dict is rebuilt in the argument's order.

    >>> rebuild = _rebuilder(Structure(dict, ("b", "w"), (FLOAT, ("f", 1))))
    >>> rebuild(Tangent.of_mapping(dict, {"w": np.ones(2), "b": 2.0}), {"w": np.ones(2), "b": 0.5})
    {'w': array([1., 1.]), 'b': 2.0}
    """
    lines: list[str] = []
    namespace: dict[str, Any] = {"Tangent": Tangent, "ndarray": np.ndarray, "float64": _FLOAT64}
    result = _rebuilt_level(kind, "t", "p", lines, namespace)
    body = "".join(f"    {line}\n" for line in [*lines, f"return {result}"])
    exec(compile(f"def rebuild(t, p):\n{body}", "<srcad shaped>", "exec"), namespace)
    rebuild: Callable[[Any, Any], Any] = namespace["rebuild"]
    return rebuild


def _rebuilt_level(kind: Structure, tangent: str, primal: str, lines: list[str],
                   namespace: dict[str, Any]) -> str:  # fmt: skip
    """Lines that test one level's tangent `tangent` (of the argument's part `primal`),
    returning None where `shaped` would; the expression of the level rebuilt."""
    lines.append(f"if type({tangent}) is not Tangent: return None")
    count = len(kind.items)
    if kind.container is dict:
        lines.append(f"if {tangent}.elements or len({tangent}.fields) != {count}: return None")
        reads = [(f"{tangent}.fields.get({key!r})", f"{primal}[{key!r}]") for key in kind.keys]
    else:
        lines.append(f"if {tangent}.fields or len({tangent}.elements) != {count}: return None")
        reads = [(f"{tangent}.elements[{i}]", f"{primal}[{i}]") for i in range(count)]
    parts = []
    for item, (part, value) in zip(kind.items, reads, strict=True):
        name = f"v{len(namespace)}"
        namespace[name] = None  # (only to number the names)
        lines.append(f"{name} = {part}")
        if isinstance(item, Structure):
            parts.append(_rebuilt_level(item, name, value, lines, namespace))
        elif item == FLOAT:
            lines.append(f"if type({name}) is not float: return None")
            parts.append(name)
        elif item is not None and item[0] == "f":
            lines.append(
                f"if type({name}) is not ndarray or {name}.dtype != float64"
                f" or {name}.shape != {value}.shape: return None"
            )
            parts.append(name)
        else:
            lines.append("return None")
            parts.append(name)
    if kind.container is tuple:
        return f"({''.join(part + ', ' for part in parts)})"
    if kind.container is list:
        return f"[{', '.join(parts)}]"
    rebuilt = f"r{len(namespace)}"
    namespace[rebuilt] = None
    keys = tuple(kind.keys)
    pairs = ", ".join(f"{key!r}: {part}" for key, part in zip(keys, parts, strict=True))
    lines.append(f"{rebuilt} = {{{pairs}}}")
    # The entry proved the argument's keys these; in another order, rebuilt in its own.
    lines.append(
        f"if tuple({primal}) != {keys!r}: {rebuilt} = {{k: {rebuilt}[k] for k in {primal}}}"
    )
    return rebuilt


_PLAIN_LEAVES = frozenset({float, int, bool, complex, str, np.ndarray, np.float64, type(None)})


def refuse_foreign_values(
    func: Any, args: tuple[Any, ...], kwargs: Any = None, what: str = "an argument"
) -> None:
    """Refuse an argument (or, as `what` says, a tangent or cotangent) holding a value that
    `foreign_class` finds computing otherwise than srcad's rules take it to (they are
    NumPy's, for arrays, and Python's, for lists, tuples and dicts)."""
    foreign = foreign_in((args, kwargs or {}))
    if foreign is not None:
        raise SrcadError(
            f"cannot differentiate {getattr(func, '__qualname__', func)!s:.80}: "
            f"{what} holds a {foreign}, which may compute otherwise than srcad's rules "
            "take it to (NumPy's, for arrays; Python's, for lists, tuples and dicts); pass "
            "the plain value (np.asarray(x), list(x), dict(x); for a masked array, the "
            "values it means, such as x.filled(0.0))"
        )


def foreign_in(tree: Any) -> str | None:
    """The first class `foreign_class` names among the values `tree` holds, or None."""
    pending: list[Any] = [tree]
    while pending:
        value = pending.pop()
        cls = value.__class__
        if cls in _PLAIN_LEAVES:
            continue
        if cls is list or cls is tuple:  # (the common case, without `children`)
            pending.extend(value)
            continue
        if cls is dict:
            pending.extend(value.values())
            continue
        foreign = foreign_class(value)
        if foreign is not None:
            return foreign
        found = children(value)
        if found is not None:
            pending.extend(part(value, key) for key in found[0])
    return None


def leaves(tree: Any) -> list[Any]:
    """The leaves of `tree`, in order."""
    found: list[Any] = []
    tree_map(found.append, tree)
    return found


def _rebuilt_mapping(mapping: dict[Any, Any], keys: list[Any], parts: list[Any]) -> Any:
    if type(mapping) is dict:
        return dict(zip(keys, parts, strict=True))
    new = copy.copy(mapping)  # an OrderedDict, a defaultdict (its factory kept)
    new.update(zip(keys, parts, strict=True))
    return new


def _rebuilt_dataclass(value: Any, names: list[str], parts: list[Any]) -> Any:
    fields = {f.name: f.init for f in dataclasses.fields(value)}
    given = dict(zip(names, parts, strict=True))
    try:
        new = dataclasses.replace(value, **{n: v for n, v in given.items() if fields[n]})
    except Exception as error:  # its `__init__` cannot store the parts: refused, named
        cls = type(value)
        why = f"{type(error).__name__}: {error}"
        for name in names:  # a property of the class, which `__init__` cannot store through
            if hasattr(getattr(cls, name, None), "__set__"):
                kind = type(getattr(cls, name)).__name__
                why = f"its field {name} is shadowed by the class's {kind}"
                break
        raise SrcadError(
            f"cannot take the derivative of a {cls.__module__}.{cls.__qualname__} field by "
            f"field, as a dataclass's: {why}; read the field through a method, or pass "
            "its fields"
        ) from error
    for name, v in given.items():
        if not fields[name]:  # set by `__post_init__`: replaced as the others are
            object.__setattr__(new, name, v)
    return new


def _rebuilt_object(value: Any, keys: list[str], parts: list[Any]) -> Any:
    """A new instance of `value`'s class with `value`'s attributes, `parts` replacing
    those named `keys`: made without calling `__init__` or reading attributes (which a
    `__getattr__` hook would answer), as `copy.copy` does where it can."""
    cls: Any = type(value)
    try:
        new = cls.__new__(cls)
    except TypeError:  # a `__new__` that needs arguments
        new = copy.copy(value)
    vars(new).update(vars(value))
    vars(new).update(zip(keys, parts, strict=True))
    return new

"""The float leaves of a value, as one vector: what an ODE solver integrates for the
cotangent of a right-hand side's parameters (`rules/scipy_integrate.py`), which may be
floats, arrays, tuples, lists, dicts, objects, a `functools.partial`'s bound arguments or a
bound method's object.

`flat_cotangent(value, cotangent)` reads a cotangent as srcad's rules give it (a `Tangent`,
a symbolic zero, an array) into the vector of its leaves, in the order of `value`'s leaves
that can be perturbed; `cotangent_of(value, vector)` makes the cotangent back. A leaf that
cannot be perturbed (an int, a string, None, a function) has none. A function's cotangent
(what a closure captured) has no place in the vector: a nonzero one is refused, as srcad
cannot give it back to what the closure read.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterator
from typing import Any

import numpy as np

from srcad.callables import perturbable
from srcad.errors import MissingRuleError
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk
from srcad.trees import children, part

_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, np.ufunc, type, types.ModuleType)


def _parts(value: Any) -> tuple[list[Any], list[Any], Any] | None:
    """The parts of `value` that a cotangent of it has, their keys in that cotangent, and
    the type of the `Tangent` that holds them; None for a leaf. A partial's cotangent holds
    its function's and its bound arguments' (`rules/calls.py`); a bound method's is its
    object's (handled by the callers)."""
    if isinstance(value, functools.partial):
        parts = [value.func, *value.args]
        return parts, list(range(len(parts))), functools.partial
    found = children(value)
    if found is None:
        return None
    keys, _ = found
    return [part(value, k) for k in keys], keys, type(value)


def _is_zero(cotangent: Any) -> bool:
    cotangent = unthunk(cotangent)
    if isinstance(cotangent, AbstractZero) or cotangent is None:
        return True
    if isinstance(cotangent, Tangent):
        values = cotangent.elements or tuple(cotangent.fields.values())
        return all(_is_zero(v) for v in values)
    return isinstance(cotangent, np.ndarray | float | int | complex) and not np.any(cotangent)


def _flatten(value: Any, cotangent: Any, out: list[np.ndarray]) -> None:
    cotangent = unthunk(cotangent)
    if isinstance(value, types.MethodType):
        _flatten(value.__self__, cotangent, out)
        return
    if isinstance(value, _FUNCTIONS) or not perturbable(value):
        if isinstance(value, _FUNCTIONS) and not _is_zero(cotangent):
            raise MissingRuleError(
                f"the function `{getattr(value, '__name__', value)}` reads differentiated "
                "values it captured, whose derivative srcad cannot give back here; pass "
                "them to it as arguments (`args=`)"
            )
        return
    found = _parts(value)
    if found is None:
        shape = np.shape(value)
        if isinstance(cotangent, AbstractZero):
            out.append(np.zeros(int(np.prod(shape))))
        else:
            if np.iscomplexobj(cotangent) or np.iscomplexobj(value):
                raise MissingRuleError("srcad differentiates real ODEs only")
            out.append(np.broadcast_to(np.asarray(cotangent, float), shape).ravel())
        return
    parts, keys, _ = found
    if isinstance(cotangent, AbstractZero):
        bars: list[Any] = [ZeroTangent()] * len(parts)
    elif isinstance(value, tuple | list | functools.partial) and not hasattr(value, "_fields"):
        bars = list(elements_of(cotangent, len(parts)))
    else:
        bars = [part(cotangent, k) for k in keys]
    for p, bar in zip(parts, bars, strict=True):
        _flatten(p, bar, out)


def flat_cotangent(value: Any, cotangent: Any) -> np.ndarray:
    """The leaves of `cotangent`, a cotangent of `value`, as one float vector."""
    out: list[np.ndarray] = []
    _flatten(value, cotangent, out)
    return np.concatenate(out) if out else np.zeros(0)


def _rebuilt(value: Any, leaves: Iterator[np.ndarray]) -> Any:
    if isinstance(value, types.MethodType):
        return _rebuilt(value.__self__, leaves)
    if isinstance(value, _FUNCTIONS) or not perturbable(value):
        return NoTangent()
    found = _parts(value)
    if found is None:
        leaf = next(leaves)
        return leaf.reshape(np.shape(value)) if isinstance(value, np.ndarray) else float(leaf[0])
    parts, keys, kind = found
    bars = [_rebuilt(p, leaves) for p in parts]
    if isinstance(value, tuple | list | functools.partial) and not hasattr(value, "_fields"):
        return Tangent(kind, *bars)
    if isinstance(value, dict) or not all(isinstance(k, str) for k in keys):
        return Tangent.of_mapping(kind, dict(zip(keys, bars, strict=True)))
    return Tangent(kind, **dict(zip(keys, bars, strict=True)))


def cotangent_of(value: Any, vector: np.ndarray) -> Any:
    """The cotangent of `value` whose leaves are `vector` (`flat_cotangent`'s inverse)."""
    sizes = [v.size for v in _leaf_shapes(value)]
    pieces = np.split(np.asarray(vector, float), np.cumsum(sizes)[:-1]) if sizes else []
    return _rebuilt(value, iter(pieces))


def _leaf_shapes(value: Any) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    _flatten(value, ZeroTangent(), out)
    return out


def size(value: Any) -> int:
    """How many floats the cotangent of `value` has."""
    return sum(v.size for v in _leaf_shapes(value))

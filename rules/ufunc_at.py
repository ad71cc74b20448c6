"""Rules for `ufunc_at`, the normal form of `ufunc.at(a, indices, values)` on an array the
function made and shares with nothing (`passes/checks/fresh_values.py` proves it, as for an
item written; `passes/transforms/anf_rewrites.py` rewrites the call as `a = ufunc_at(ufunc,
a, indices, values)`).

`np.add.at` and `np.subtract.at` add (subtract) each value at its index, once for each time
the index is named: linear in the array and the values. The array's cotangent is the
result's; each value's is the result's at its index (summed over the axes broadcasting
stretched it along), negated for `subtract`. Other ufuncs' `at` (`np.multiply.at`,
`np.maximum.at`, ...) are refused when the code runs: write the product or the maximum as a
new value (`np.where`, `np.bincount`) instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.primitives import ufunc_at
from srcad.projection import ProjectTo, operand_tangent
from srcad.registry import Linearity, RuleSet
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("ufunc_at")

Pullback = Any

_SIGNS = {np.add: 1.0, np.subtract: -1.0}


def _sign(ufunc: Any, values: tuple[Any, ...]) -> float:
    """+1 for `np.add.at`, -1 for `np.subtract.at`; a refusal for any other `at`."""
    if ufunc not in _SIGNS or len(values) != 1:
        name = getattr(ufunc, "__name__", "the ufunc")
        raise UnsupportedCallError(
            f"srcad differentiates np.add.at and np.subtract.at into an array the function "
            f"made, not np.{name}.at: compute the new array (np.where, np.bincount) instead"
        )
    return _SIGNS[ufunc]


@rules.rrule(ufunc_at)
def ufunc_at_rrule(ufunc: Any, items: Any, indices: Any, *values: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `ufunc_at(np.add, a, indices, v)` (and `np.subtract`): `a_bar` is
    `y_bar`, `v_bar` is `y_bar[indices]` (negated for subtract), an index named twice
    gathering its cotangent twice."""
    sign = _sign(ufunc, values)
    y = ufunc_at(ufunc, items, indices, *values)
    project_items, project_values = ProjectTo(items), ProjectTo(values[0])

    def ufunc_at_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), NoTangent(), y_bar, NoTangent(), y_bar
        gathered = np.asarray(y_bar)[indices]
        values_bar = project_values(gathered if sign > 0 else -gathered)
        return NoTangent(), NoTangent(), project_items(y_bar), NoTangent(), values_bar

    return y, ufunc_at_pullback


@rules.frule(ufunc_at)
def ufunc_at_frule(
    dargs: tuple[Any, ...], ufunc: Any, items: Any, indices: Any, *values: Any
) -> tuple[Any, Any]:
    """Forward rule for `ufunc_at`: the array's tangent with the values' tangents added
    (subtracted) at the indices, by the same ufunc."""
    _sign(ufunc, values)
    y = ufunc_at(ufunc, items, indices, *values)
    items_dot = operand_tangent(dargs[2], items)
    values_dot = operand_tangent(dargs[4], values[0])
    if isinstance(items_dot, AbstractZero) and isinstance(values_dot, AbstractZero):
        return y, ZeroTangent()
    dtype = y.dtype if np.issubdtype(y.dtype, np.inexact) else np.float64
    if isinstance(items_dot, AbstractZero):
        y_dot = np.zeros(y.shape, dtype)
    else:
        y_dot = np.array(np.broadcast_to(items_dot, y.shape), dtype)
    if not isinstance(values_dot, AbstractZero):
        ufunc.at(y_dot, indices, values_dot)
    return y, y_dot


# Linear in the array and the values, whichever indices: for second derivatives too.
rules.primitive(ufunc_at, linearity=Linearity.PIECEWISE_LINEAR)

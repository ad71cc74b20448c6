"""Rules for `ufunc_at`, the normal form of `ufunc.at(a, indices, values)` on an array the
function made and shares with nothing (`passes/checks/fresh_values.py` proves it, as for an
item written; `passes/transforms/anf_rewrites.py` rewrites the call as `a = ufunc_at(ufunc,
a, indices, values)`).

`np.add.at` and `np.subtract.at` add (subtract) each value at its index, once for each time
the index is named: linear in the array and the values. The array's cotangent is the
result's; each value's is the result's at its index (summed over the axes broadcasting
stretched it along), negated for `subtract`.

`np.multiply.at`, `np.divide.at`, `np.power.at`, `np.maximum.at`, `np.minimum.at`,
`np.fmax.at` and `np.fmin.at` (`ufunc_at_in_turn`, `primitives.IN_TURN_AT`) apply the ufunc
once for each time an index is named, each time to the value the element holds then: an
element named twice is multiplied twice, `a[i] * v1 * v2`. Their rules are those of that
definition (`in_turn`), which applies the ufunc in rounds, the first time each element is
named, then the second, in the order the indices name it (as NumPy's unbuffered loop does),
each round on distinct elements; their second and third derivatives are the
definition's too. Where the maximum (minimum) ties, each step splits its cotangent evenly
between its two sides as `np.maximum` does: an element equal to the value written into it
and to a later one (`a[i] == v1 == v2`) gives `v2` half and `a[i]` and `v1` a quarter each.
The shares add up to 1, a derivative along any direction that keeps the ties.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.primitives import IN_TURN_AT, ufunc_at, ufunc_at_in_turn
from srcad.projection import ProjectTo, operand_tangent
from srcad.registry import Linearity, RuleSet
from srcad.rules._support import by_definition
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("ufunc_at")

Pullback = Any

_SIGNS = {np.add: 1.0, np.subtract: -1.0}


def _sign(ufunc: Any, values: tuple[Any, ...]) -> float:
    """+1 for `np.add.at`, -1 for `np.subtract.at`; a refusal for any other `at`."""
    if ufunc not in _SIGNS or len(values) != 1:
        name = getattr(ufunc, "__name__", "the ufunc")
        raise UnsupportedCallError(
            f"srcad differentiates np.add.at and np.subtract.at as linear maps, not "
            f"np.{name}.at with {len(values)} values"
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


# -- the other ufuncs, applied in turn -----------------------------------------------------------


def rounds(shape: tuple[int, ...], indices: Any) -> tuple[Any, list[tuple[Any, Any, Any]]]:
    """The elements `indices` name in an array of `shape`, as flat positions in the shape of
    `a[indices]`, and the rounds of `in_turn`: for each `r`, the places in that (raveled)
    where an element is named for the `r`-th time, those elements' flat positions, and a
    mask of them over the flat array."""
    size = math.prod(shape)
    positions = np.arange(size).reshape(shape)[indices]
    flat = np.ravel(positions)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    places = np.arange(flat.size)
    starts = np.concatenate([[True], ordered[1:] != ordered[:-1]]) if flat.size else places > 0
    turn = np.empty(flat.size, np.intp)
    turn[order] = places - np.maximum.accumulate(np.where(starts, places, 0))
    found = []
    for r in range(int(turn.max()) + 1 if flat.size else 0):
        elements = flat[turn == r]
        mask = np.zeros(size, bool)
        mask[elements] = True
        found.append((np.flatnonzero(turn == r), elements, mask))
    return positions, found


def in_turn(ufunc: Any, items: Any, indices: Any, *values: Any) -> Any:
    """`ufunc.at(items, indices, value)` as a new array, from functions srcad
    differentiates to any order: the ufunc applied to the elements named in each round of
    `rounds` (an element named `k` times takes `k` rounds), the results put in place by
    `np.where` (from zeros they are added to at distinct positions)."""
    if len(values) != 1 or ufunc not in IN_TURN_AT:
        name = getattr(ufunc, "__name__", "the ufunc")
        raise UnsupportedCallError(f"srcad has no rule for np.{name}.at with {len(values)} values")
    positions, turns = rounds(np.shape(items), indices)
    written = np.reshape(np.broadcast_to(values[0], np.shape(positions)), -1)
    flat = np.reshape(items, -1)
    for places, elements, mask in turns:
        changed = ufunc(flat[elements], written[places])
        placed = ufunc_at(np.add, np.zeros(np.shape(flat), changed.dtype), elements, changed)
        flat = np.where(mask, placed, flat)
    return np.reshape(flat, np.shape(items))


rules.non_differentiable(rounds)
by_definition(rules, ufunc_at_in_turn, in_turn, "ufunc_at_in_turn")

"""Rules for NumPy's counting and grouping: `np.bincount` with weights and `np.unique`.

Both are piecewise linear: the integers that place each element (the bins, the groups of
equal values) carry no derivative, and the values move with the elements placed.

- `np.bincount(x, weights, minlength)` sums the weights into the bins `x` names: linear in
  `weights` (the bins' cotangents gathered back, `y_bar[x]`); `x`, integers, has none.
  `weights=` passed by keyword is passed by position (`keywords_by_position`).
- `np.unique(ar, ...)`: each distinct value is the value of the elements equal to it. Where
  differentiated elements tie, the result's length holds only while they stay equal: there
  the distinct value has the derivative of the elements' common value along the directions
  that keep them tied, and none across them (the result jumps, as `np.floor` does at an
  integer). srcad gives that one: the distinct value's tangent is the mean of its elements'
  tangents, and its cotangent is split evenly among them (as `np.max`'s at a tie), the
  gradient of the value restricted to where the ties hold. Without ties this is the sorting
  permutation's, as `np.sort`'s. The indices, inverse and counts it returns with
  `return_index=`, `return_inverse=`, `return_counts=` are integers, with no derivative; an
  `axis` groups equal slices, each distinct slice the mean of its slices likewise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.projection import ProjectTo, operand_tangent
from srcad.registry import Linearity, RuleSet
from srcad.rules._support import element_cotangents
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("numpy_counting")

Pullback = Any


# -- np.bincount ---------------------------------------------------------------------------------

# `np.bincount(x, /, weights=None, minlength=0)` (`x` named for NumPy 2.2, whose signature
# Python cannot read).
rules.keywords_by_position(np.bincount, "weights", leading=("x",))


@rules.rrule(np.bincount)
def bincount_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.bincount(x, weights, minlength)`: each weight's cotangent is its
    bin's, `y_bar[x]`. Without weights the counts are integers (no cotangent for anything)."""
    y = np.bincount(x, *options, **keywords)
    weighted = bool(options) and options[0] is not None  # (by keyword: an option)
    project_weights = ProjectTo(options[0]) if weighted else None
    option_bars = (NoTangent(),) * (len(options) - 1 if options else 0)

    def bincount_pullback(y_bar: Any) -> tuple[Any, ...]:
        if project_weights is None:
            return (NoTangent(), NoTangent(), *(NoTangent() for _ in options))
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), NoTangent(), y_bar, *option_bars)
        gathered = np.asarray(y_bar)[np.asarray(x, dtype=np.intp)]
        return (NoTangent(), NoTangent(), project_weights(gathered), *option_bars)

    return y, bincount_pullback


@rules.frule(np.bincount)
def bincount_frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any
                   ) -> tuple[Any, Any]:  # fmt: skip
    """Forward rule for `np.bincount`: the weights' tangents summed into the bins."""
    y = np.bincount(x, *options, **keywords)
    if not options or options[0] is None:
        return y, ZeroTangent()
    weights_dot = operand_tangent(dargs[2], options[0])
    if isinstance(weights_dot, AbstractZero):
        return y, ZeroTangent()
    return y, np.bincount(x, weights_dot, *options[1:], **keywords)


# -- np.unique -----------------------------------------------------------------------------------


def _groups(ar: Any, options: tuple[Any, ...], keywords: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The groups `np.unique(ar, *options, **keywords)` makes: the axis it groups along (None:
    the flattened array), each element's (slice's) group, and each group's size."""
    names = ("return_index", "return_inverse", "return_counts", "axis")
    given = dict(zip(names, options, strict=False))
    given.update(keywords)
    given.update(return_index=False, return_inverse=True, return_counts=True)
    _, inverse, counts = np.unique(ar, **given)
    return given.get("axis"), np.reshape(inverse, -1), counts


def _along_first(values: Any, axis: Any) -> np.ndarray:
    """`values` as a matrix whose rows are the elements (slices) `np.unique` groups."""
    values = np.asarray(values)
    if axis is None:
        return values.reshape(-1, 1)
    moved = np.moveaxis(values, axis, 0)
    return moved.reshape(moved.shape[0], -1)


def _from_first(rows: np.ndarray, like: Any, axis: Any) -> np.ndarray:
    """`_along_first`'s inverse: `rows` in the shape of `like` (its axis first, then moved)."""
    if axis is None:
        return rows.reshape(np.shape(like))
    shape = np.moveaxis(np.asarray(like), axis, 0).shape
    return np.moveaxis(rows.reshape((rows.shape[0], *shape[1:])), 0, axis)


def _first(y: Any) -> Any:
    """The distinct values of `np.unique`'s result (alone, or first of its tuple)."""
    return y[0] if isinstance(y, tuple) else y


@rules.rrule(np.unique)
def unique_rrule(ar: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.unique`: each distinct value's cotangent split evenly among the
    elements equal to it (see the module's docstring)."""
    y = np.unique(ar, *options, **keywords)
    axis, inverse, counts = _groups(ar, options, keywords)
    project_ar = ProjectTo(ar)
    option_bars = (NoTangent(),) * len(options)

    def unique_pullback(y_bar: Any) -> tuple[Any, ...]:
        values_bar = element_cotangents(y_bar, len(y))[0] if isinstance(y, tuple) else y_bar
        values_bar = unthunk(values_bar)
        if isinstance(values_bar, AbstractZero):
            return (NoTangent(), project_ar(ZeroTangent()), *option_bars)
        rows = _along_first(values_bar, axis)
        spread = rows[inverse] / counts[inverse][:, np.newaxis]
        return (NoTangent(), project_ar(_from_first(spread, ar, axis)), *option_bars)

    return y, unique_pullback


@rules.frule(np.unique)
def unique_frule(dargs: tuple[Any, ...], ar: Any, *options: Any, **keywords: Any
                 ) -> tuple[Any, Any]:  # fmt: skip
    """Forward rule for `np.unique`: each distinct value's tangent is the mean of the
    tangents of the elements equal to it."""
    y = np.unique(ar, *options, **keywords)
    ar_dot = operand_tangent(dargs[1], ar)
    values_dot: Any = ZeroTangent()
    if not isinstance(ar_dot, AbstractZero):
        axis, inverse, counts = _groups(ar, options, keywords)
        rows = _along_first(ar_dot, axis)
        sums = np.zeros((len(counts), rows.shape[1]), dtype=np.result_type(rows, 1.0))
        np.add.at(sums, inverse, rows)
        values = _first(y)
        values_dot = _from_first(sums / counts[:, np.newaxis], values, axis)
        values_dot = values_dot.astype(np.result_type(values, values_dot), copy=False)
    if isinstance(y, tuple) and not isinstance(values_dot, AbstractZero):
        return y, (values_dot, *(ZeroTangent() for _ in y[1:]))
    return y, values_dot


for _grouping in (np.bincount, np.unique):
    rules.primitive(_grouping, linearity=Linearity.PIECEWISE_LINEAR)

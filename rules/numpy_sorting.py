"""Rules for NumPy's sorting: `np.sort`, whose cotangent goes back through the permutation.

The indices that sorting produces (`np.argsort`, `np.argmax`, `np.argmin`) are integers and
are marked non-differentiable in `nondiff.py`. That is what makes a function pairing a value
with its position differentiable: in `np.max(x) * x[np.argmax(x)]` the index is a constant,
and the gradient flows through `np.max` and the indexing alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.projection import ProjectTo, operand_tangent
from srcad.registry import RuleSet
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("numpy_sorting")

Pullback = Any

_SORT_PARAMETERS = ("axis", "kind", "order")


def _sorting_permutation(
    a: Any, options: tuple[Any, ...], keywords: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, Any]:
    """`a` as an array, the permutation `np.sort(a, *options, **keywords)` sorts it by
    (`np.argsort` takes the same options), and the axis (None: the flattened array)."""
    given = dict(zip(_SORT_PARAMETERS, options, strict=False))
    given.update(keywords)
    x = np.asarray(a)
    return x, np.argsort(x, *options, **keywords), given.get("axis", -1)


@rules.rrule(np.sort)
def sort_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.sort(a, axis=-1, kind=None, order=None, stable=None)`.

    The forward pass finds the sorting permutation once (`np.argsort` takes the same
    options) and gathers with it; the pullback scatters the cotangent back through it.
    Tied values are kept apart by the permutation: each gets the cotangent of the place it
    was sorted to. Options passed by position each get a `NoTangent()`.
    """
    x, order, axis = _sorting_permutation(a, options, keywords)
    y = np.take_along_axis(x, order, axis)
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)

    def sort_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        y_bar = np.asarray(y_bar)
        a_bar = np.zeros(x.shape, dtype=np.result_type(y_bar, 1.0))
        if axis is None:  # sorted flat: scatter into the flat view
            a_bar.reshape(-1)[order] = y_bar
        else:
            np.put_along_axis(a_bar, order, y_bar, axis)
        return (NoTangent(), project_a(a_bar), *option_bars)

    return y, sort_pullback


@rules.frule(np.sort)
def sort_frule(dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.sort`: the tangent, permuted as the values are."""
    x, order, axis = _sorting_permutation(a, options, keywords)
    y = np.take_along_axis(x, order, axis)
    a_dot = operand_tangent(dargs[1], a)
    if isinstance(a_dot, AbstractZero):
        return y, ZeroTangent()
    return y, np.take_along_axis(np.asarray(a_dot), order, axis)

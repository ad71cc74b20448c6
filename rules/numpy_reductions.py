"""Rules for NumPy's reductions over axes: `np.sum` and `np.mean`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.projection import ProjectTo
from srcad.registry import RuleSet
from srcad.tangents import AbstractZero, NoTangent

rules = RuleSet("numpy_reductions")

Pullback = Any

# The parameters of np.sum and np.mean after the array, in positional order.
_SUM_PARAMETERS = ("axis", "dtype", "out", "keepdims", "initial", "where")
_MEAN_PARAMETERS = ("axis", "dtype", "out", "keepdims")


def reduced_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The non-negative axes a reduction over `axis` (None, an int or a tuple) removes.

    >>> reduced_axes(None, 3), reduced_axes(-1, 3), reduced_axes((0, -1), 3)
    ((0, 1, 2), (2,), (0, 2))
    """
    if axis is None or ndim == 0:  # NumPy lets axis 0 or -1 "reduce" a 0-d array
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(int(a) % ndim for a in axes))


def expand_reduced(y_bar: Any, shape: tuple[int, ...], axis: Any, keepdims: bool) -> np.ndarray:
    """Spread the cotangent of a reduction over `axis` back to the reduced array's `shape`.

    The reduced axes are put back (unless `keepdims` kept them) and the cotangent is
    repeated along them; the result is a fresh, writable array.

    >>> expand_reduced(np.array([1.0, 2.0]), (2, 3), 1, False)
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    y_bar = np.asarray(y_bar)
    if not keepdims:
        y_bar = np.expand_dims(y_bar, reduced_axes(axis, len(shape)))
    return np.array(np.broadcast_to(y_bar, shape))


def _reduction_options(
    parameters: tuple[str, ...], options: tuple[Any, ...], keywords: dict[str, Any]
) -> tuple[Any, bool]:
    """The `axis` and `keepdims` of a call `np.sum(x, *options, **keywords)`, whose
    positional `options` fill `parameters` in order.

    `dtype` and `initial` change the result's type or add a constant, so they pass through;
    `where` (a mask) is not supported, and `out` is a mutation.
    """
    given = dict(zip(parameters, options, strict=False))
    given.update(keywords)
    if given.get("out") is not None:
        raise TypeError("srcad cannot differentiate a reduction that writes into `out=`")
    if given.get("where", True) is not True:
        raise TypeError("srcad has no rule for a reduction with a `where=` mask")
    return given.get("axis"), bool(given.get("keepdims", False))


def _reduced_count(shape: tuple[int, ...], axis: Any) -> int:
    """How many elements of an array of `shape` each result of a reduction over `axis` sees."""
    return math.prod(shape[a] for a in reduced_axes(axis, len(shape)))


@rules.rrule(np.sum)
def sum_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.sum`; `axis`, `keepdims` and `dtype` are not differentiated.

    Options passed by position each get a `NoTangent()` after `x`'s cotangent.
    """
    y = np.sum(x, *options, **keywords)
    axis, keepdims = _reduction_options(_SUM_PARAMETERS, options, keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def sum_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        x_bar = expand_reduced(y_bar, shape, axis, keepdims)
        return (NoTangent(), project_x(x_bar), *option_bars)

    return y, sum_pullback


@rules.rrule(np.mean)
def mean_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.mean`; `axis`, `keepdims` and `dtype` are not differentiated.

    Options passed by position each get a `NoTangent()` after `x`'s cotangent.
    """
    y = np.mean(x, *options, **keywords)
    axis, keepdims = _reduction_options(_MEAN_PARAMETERS, options, keywords)
    shape = np.shape(x)
    count = _reduced_count(shape, axis)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def mean_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        x_bar = expand_reduced(np.asarray(y_bar) / count, shape, axis, keepdims)
        return (NoTangent(), project_x(x_bar), *option_bars)

    return y, mean_pullback

"""Pieces of the reductions' rules (`rules/numpy_reductions.py`): each slice a reduction
reduces gathered into a row and back, and what a reduction's `initial` adds to its
derivative (a sum's, a product's or an extremum's `initial=`, which the normal form passes
by position, `ByPosition`, gets a cotangent and a tangent of its own)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.projection import ProjectTo
from srcad.rules._support import extremum_share, reduced_axes, with_reduced_axes

# Stands for an option the call did not pass (NumPy's own `np._NoValue` is private).
ABSENT = object()


def initial_at(parameters: tuple[str, ...], options: tuple[Any, ...]) -> int | None:
    """Where among a call's positional `options` its `initial` is, if passed so (the
    normal form passes `initial=` so: `ByPosition`), for a derivative of its own."""
    at = parameters.index("initial")
    return at if at < len(options) else None


def initial_bar(y_bar: Any, initial: Any, share: Any = 1.0) -> Any:
    """The cotangent of a reduction's `initial`, a number added into every element of the
    result (with `share`, its part of each extremum it ties or wins)."""
    return ProjectTo(initial)(np.sum(np.asarray(y_bar) * share))


def items_product(x: Any, given: dict[str, Any]) -> Any:
    """The product of the elements of each slice of a call of `np.prod`, without its
    `initial`: what the result is the `initial` times."""
    kept = {k: given[k] for k in ("axis", "dtype", "keepdims") if k in given}
    return np.prod(np.asarray(x), **kept)


def extremum_shares(x: Any, y: Any, axis: Any, keepdims: bool, initial: Any) -> tuple[Any, Any]:
    """The share of each element of `x` in an extremum `y` (`extremum_share`), and that of
    an `initial` passed by position, in the shape of `y` with its reduced axes kept: where
    it ties with elements, the tied ones and it share the result equally; where it wins,
    it takes it all (None without one)."""
    share = extremum_share(x, y, axis, keepdims)
    if initial is ABSENT:
        return share, None
    values = np.asarray(x)
    y_kept = with_reduced_axes(y, values.shape, axis, keepdims)
    won = np.asarray(np.asarray(initial) == y_kept, dtype=float)
    axes = reduced_axes(axis, values.ndim)
    tied = np.add.reduce(np.asarray(values == y_kept), axis=axes, keepdims=True)
    total = np.maximum(tied + won, 1)
    return np.where(tied > 0, share * tied / total, share), won / total


def initial_tangent(primal: Any, x: Any, y: Any, given: dict[str, Any], initial_dot: Any) -> Any:
    """The part of a reduction's tangent that its `initial` gives, passed by position: for
    a sum, its tangent in every element; for a product, times the product of the
    elements; for an extremum, times its share of each (`extremum_shares`)."""
    if primal is np.prod:
        return items_product(x, given) * initial_dot
    if primal in (np.max, np.amax, np.min, np.amin):
        axis, keepdims = given.get("axis"), bool(given.get("keepdims"))
        _, won = extremum_shares(x, y, axis, keepdims, given["initial"])
        return np.reshape(won, np.shape(y)) * initial_dot
    return initial_dot


def gather_reduced(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """`x` with the reduced `axes` moved to the end and flattened into one: each row of the
    result is one slice that a reduction over `axes` reduces.

    >>> gather_reduced(np.arange(6).reshape(2, 3), (0,))
    array([[0, 3],
           [1, 4],
           [2, 5]])
    """
    kept = tuple(a for a in range(x.ndim) if a not in axes)
    count = math.prod(x.shape[a] for a in axes)
    return np.transpose(x, (*kept, *axes)).reshape((*(x.shape[a] for a in kept), count))


def scatter_reduced(rows: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...]) -> Any:
    """The inverse of `gather_reduced`: back to `shape`, reduced axes in their places."""
    kept = tuple(a for a in range(len(shape)) if a not in axes)
    moved = rows.reshape(tuple(shape[a] for a in (*kept, *axes)))
    return np.transpose(moved, np.argsort((*kept, *axes)))


def kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of a reduction's result without `keepdims`."""
    return tuple(n for a, n in enumerate(shape) if a not in axes)


def products_of_others(x: Any, axes: tuple[int, ...], initial: Any) -> np.ndarray:
    """For each element, the product of the others in its slice (times a constant `initial`),
    as rows (see `gather_reduced`): products of the elements before and after it."""
    rows = gather_reduced(np.asarray(x), axes)
    ones = np.ones_like(rows[..., :1])
    before = np.concatenate([ones, np.cumprod(rows[..., :-1], axis=-1)], axis=-1)
    after = np.concatenate([np.cumprod(rows[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    return before * after if initial is ABSENT else before * after * initial


def reduced_count(shape: tuple[int, ...], axis: Any) -> int:
    """How many elements of an array of `shape` each result of a reduction over `axis` sees."""
    return math.prod(shape[a] for a in reduced_axes(axis, len(shape)))


def reverse_cumsum(a: np.ndarray, axis: int) -> np.ndarray:
    """Sums from each position to the end along `axis`: the adjoint of `np.cumsum`."""
    return np.flip(np.cumsum(np.flip(a, axis), axis), axis)


def cumulative_layout(x: Any, axis: Any) -> tuple[np.ndarray, int]:
    """The array a cumulative function runs along, and the axis: `axis=None` flattens."""
    values = np.asarray(x)
    if axis is None:
        return values.reshape(-1), 0
    return values, int(axis) % max(values.ndim, 1)

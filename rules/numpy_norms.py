"""Rules for `np.linalg.norm`: vector and matrix norms, over axes as the reductions take them."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import SrcadError
from srcad.projection import ProjectTo, operand_tangent
from srcad.registry import RuleSet
from srcad.rules._support import (
    as_result,
    divide_or_zero,
    reduced_axes,
    tied_share,
    with_reduced_axes,
)
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("numpy_norms")

Pullback = Any

# The parameters of `np.linalg.norm` after the array, in positional order.
_NORM_PARAMETERS = ("ord", "axis", "keepdims")


def _unit(x: Any) -> Any:
    """x / |x| (the sign, for real x), and 0 where x is 0: the gradient of |x|."""
    x = np.asarray(x)
    if np.iscomplexobj(x):
        magnitude = np.abs(x)
        return np.divide(x, magnitude, out=np.zeros_like(x), where=magnitude != 0)
    return np.sign(x)


def _vector_norm_gradient(x: np.ndarray, y: np.ndarray, order: Any, axes: Any) -> Any:
    """The gradient of the vector `order`-norm `y` (kept dimensions) of `x` along `axes`."""
    if order is None or order == 2:
        return divide_or_zero(x, y)
    if order == 1:
        return _unit(x)
    if order == 0:  # counts non-zeros: piecewise constant
        return np.zeros(x.shape)
    magnitude = np.abs(x)
    if order in (np.inf, -np.inf):
        return _unit(x) * tied_share(magnitude == y, axes)
    ratio = divide_or_zero(magnitude, y)
    scale = np.power(ratio, order - 1, out=np.zeros_like(ratio), where=ratio != 0)
    return _unit(x) * scale


def _matrix_norm_gradient(x: np.ndarray, y: np.ndarray, order: Any) -> Any:
    """The gradient of the matrix `order`-norm `y` of a stack `x` of matrices in the last two
    axes (`y` keeps them, with length 1)."""
    if order is None or order == "fro":
        return divide_or_zero(x, y)
    if order in ("nuc", 2, -2):
        u, s, vh = np.linalg.svd(x, full_matrices=False)
        if order == "nuc":
            # Directions of zero singular values are arbitrary: give them no share.
            return (u * (s > 0)[..., np.newaxis, :]) @ vh
        k = 0 if order == 2 else s.shape[-1] - 1
        top = u[..., :, k : k + 1] @ vh[..., k : k + 1, :]
        return top * (s[..., k] > 0)[..., np.newaxis, np.newaxis]
    # 1 and -1: the largest/smallest column sum of |x|; inf and -inf: row sums.
    along = -2 if order in (1, -1) else -1
    sums = np.sum(np.abs(x), axis=along, keepdims=True)
    return _unit(x) * tied_share(sums == y, -1 if along == -2 else -2)


def _norm_call(x: Any, options: tuple[Any, ...], keywords: dict[str, Any]) -> tuple[Any, ...]:
    """`ord`, `axis` (None only for a vector), `keepdims`, and the (row, column) axes of a
    matrix norm (None for a vector norm) of a call `np.linalg.norm(x, *options, **keywords)`."""
    given = dict(zip(_NORM_PARAMETERS, options, strict=False)) | keywords
    order, axis, keepdims = given.get("ord"), given.get("axis"), bool(given.get("keepdims"))
    ndim = np.ndim(x)
    if axis is None:
        axis = None if order is None or ndim == 1 else tuple(range(ndim))
    matrix_axes = None
    if isinstance(axis, tuple) and len(axis) == 2:
        matrix_axes = (int(axis[0]) % ndim, int(axis[1]) % ndim)
    return order, axis, keepdims, matrix_axes


def _norm_gradient(x: Any, y: Any, order: Any, axis: Any, keepdims: bool, matrix_axes: Any) -> Any:
    """The gradient of the norm `y` of `x` (the rrule's chosen subgradient at kinks), shaped
    like `x`: `dy = Re <gradient, dx>` over each reduced slice."""
    values = np.asarray(x)
    y_kept = with_reduced_axes(y, values.shape, axis, keepdims)
    if matrix_axes is None:
        return _vector_norm_gradient(values, y_kept, order, reduced_axes(axis, values.ndim))
    stacked = np.moveaxis(values, matrix_axes, (-2, -1))
    y_stacked = np.moveaxis(y_kept, matrix_axes, (-2, -1))
    stacked_gradient = _matrix_norm_gradient(stacked, y_stacked, order)
    return np.moveaxis(stacked_gradient, (-2, -1), matrix_axes)


@rules.rrule(np.linalg.norm)
def norm_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.norm`: vector norms of any order, and the matrix norms
    `'fro'`, `'nuc'`, 1, -1, 2, -2, inf and -inf (over stacks too, with a pair of axes).

    At a zero vector or matrix the cotangent is zero, the subgradient central differences
    see. Ties (for the inf-norms, the 1-norms of matrices) share the cotangent equally, as
    for `np.max`.
    """
    y = np.linalg.norm(x, *options, **keywords)
    order, axis, keepdims, matrix_axes = _norm_call(x, options, keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def norm_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        gradient = _norm_gradient(x, y, order, axis, keepdims, matrix_axes)
        y_bar = with_reduced_axes(y_bar, shape, axis, keepdims)
        return (NoTangent(), project_x(y_bar * gradient), *option_bars)

    return y, norm_pullback


@rules.frule(np.linalg.norm)
def norm_frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> Any:
    """Forward rule for `np.linalg.norm`, the norms and subgradients of `norm_rrule`: the
    tangent is `Re <gradient, x_dot>` over each reduced slice (real, for complex `x` too)."""
    y = np.linalg.norm(x, *options, **keywords)
    x_dot = operand_tangent(dargs[1], x)
    if isinstance(x_dot, AbstractZero):
        return y, ZeroTangent()
    order, axis, keepdims, matrix_axes = _norm_call(x, options, keywords)
    gradient = _norm_gradient(x, y, order, axis, keepdims, matrix_axes)
    axes = matrix_axes or reduced_axes(axis, np.ndim(x))
    inner = np.sum(np.real(np.conj(gradient) * x_dot), axis=axes, keepdims=keepdims)
    return y, as_result(inner, y)


# -- a definition, for second derivatives (`Primitive.definition`) ----------------------------


def _refuse_other_orders(ndim: int, order: Any, axis: Any) -> None:
    """Raise unless `np.linalg.norm(x, order, axis)` of an `ndim`-array is the square root
    of a sum of squares (what `sum_of_squares_norm` computes)."""
    vector = (axis is None and ndim == 1) or isinstance(axis, int)
    if order is None or order == "fro" or (order == 2 and vector):
        return
    raise SrcadError(
        f"srcad takes second derivatives of np.linalg.norm for the 2-norm of vectors and the "
        f"Frobenius norm only, not ord={order!r}; write the norm out with np.sum and np.abs"
    )


def sum_of_squares_norm(x: Any, ord: Any = None, axis: Any = None, keepdims: Any = False) -> Any:
    """`np.linalg.norm` for its norms that are square roots of sums of squares: the 2-norm
    of vectors, the Frobenius norm of matrices (the other orders are refused). Options by
    position, as `numpy_reductions.variance` passes them."""
    _refuse_other_orders(np.ndim(x), ord, axis)
    return np.sqrt(np.sum(np.real(x * np.conj(x)), axis, None, None, keepdims))


rules.non_differentiable(_refuse_other_orders)
rules.primitive(np.linalg.norm, definition=sum_of_squares_norm)

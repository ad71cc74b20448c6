"""Plain-NumPy definitions (`Primitive.definition`) of the products, the weighted average
and the determinant, for second derivatives.

The first-order rules of these functions call helpers srcad does not differentiate (exact
products around zeros, in-place writes, a `try` around a singular matrix). Their second
derivatives are instead those of these definitions, which compute the same values from
functions srcad differentiates to any order (`rules/second_order.py`): running products
of slices, sums, `np.linalg.slogdet`. The layouts (which axes, which shapes) come from
helpers marked non-differentiable: they read shapes and options only.

Options are passed by position where the definition calls a reduction (as
`numpy_reductions.variance` does): reverse mode over a definition's forward rule
differentiates every parameter, and a rule's positional options get no cotangent."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.errors import SrcadError
from srcad.registry import RuleSet
from srcad.rules._support import reduced_axes

rules = RuleSet("numpy_definitions")


# -- np.prod and np.cumprod: running products, exact with zeros ------------------------------


def _refuse_options(name: str, **options: Any) -> None:
    """Raise unless every option named is None (or absent): the definitions compute in the
    argument's own precision and write into no array."""
    given = sorted(k for k, v in options.items() if v is not None)
    if given:
        raise SrcadError(
            f"srcad takes second derivatives of {name} without {', '.join(given)}= only"
        )


def _product_layout(
    a: Any, axis: Any, dtype: Any, out: Any, keepdims: Any, where: Any
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], Any]:
    """How `product` lays out `a`: the permutation that puts the reduced axes last, the
    shape of the rows (kept axes, then one axis of the reduced elements), the result's
    shape, and the dtype its running product starts in."""
    _refuse_options("np.prod", dtype=dtype, out=out, where=where)
    shape = np.shape(a)
    axes = reduced_axes(axis, len(shape))
    kept = tuple(k for k in range(len(shape)) if k not in axes)
    kept_shape = tuple(shape[k] for k in kept)
    count = math.prod(shape[k] for k in axes)
    result_shape = (
        tuple(1 if k in axes else n for k, n in enumerate(shape)) if keepdims else kept_shape
    )
    return kept + axes, (*kept_shape, count), result_shape, np.asarray(a).dtype


def product(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = False,
            initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """`np.prod` as a running product over each slice, one element at a time: exact where
    elements are zero, so its derivatives are too (every product of the others, never a
    division by the element). `initial`, a constant, scales the result."""
    permutation, rows_shape, result_shape, start = _product_layout(
        a, axis, dtype, out, keepdims, where
    )
    rows = np.reshape(np.transpose(a, permutation), rows_shape)
    running = np.ones(rows_shape[:-1], start)
    for k in range(rows_shape[-1]):
        running = running * rows[..., k]
    if initial is not None:
        running = running * initial
    return np.reshape(running, result_shape)


def _cumulative_layout(a: Any, axis: Any, dtype: Any, out: Any) -> tuple[int, Any]:
    """How `cumulative_product` runs: the axis (of `a` flattened where `axis` is None), and
    the dtype of its products."""
    _refuse_options("np.cumprod", dtype=dtype, out=out)
    along = 0 if axis is None else int(axis) % max(np.ndim(a), 1)
    return along, np.asarray(a).dtype


def cumulative_product(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """`np.cumprod`: the running product along the axis, one element at a time, the
    products stacked along it: exact where elements are zero (see `product`), for complex
    arrays too. (Appended and stacked, not written into an array: srcad differentiates
    its forward rule in turn, third derivatives.)"""
    along, start = _cumulative_layout(a, axis, dtype, out)
    values = np.reshape(a, (-1,)) if axis is None else np.moveaxis(a, along, -1)
    shape = np.shape(values)
    running = np.ones(shape[:-1], start)
    columns = []
    for k in range(shape[-1]):
        running = running * values[..., k]
        columns.append(running)
    products = np.stack(columns, -1) if shape[-1] else np.zeros(shape, start)
    return products if axis is None else np.moveaxis(products, -1, along)


rules.non_differentiable(_refuse_options, _product_layout, _cumulative_layout)
rules.primitive(np.prod, definition=product)
rules.primitive(np.cumprod, definition=cumulative_product)


# -- np.average: sums of the weighted array ----------------------------------------------------


def _average_layout(
    a: Any, axis: Any, weights: Any, keepdims: Any
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """How `weighted_average` lays out its weights and result: the axes averaged over, the
    permutation and shape that make the weights broadcast against `a` (NumPy's own layout:
    either `a`'s shape, or the averaged axes in the order `axis` names them), and the
    result's shape."""
    shape = np.shape(a)
    axes = reduced_axes(axis, len(shape))
    result_shape = tuple(1 if k in axes else n for k, n in enumerate(shape))
    if not keepdims:
        result_shape = tuple(n for k, n in enumerate(shape) if k not in axes)
    if weights is None or np.shape(weights) == shape:
        return axes, tuple(range(np.ndim(weights))), np.shape(weights), result_shape
    named = tuple(int(k) % len(shape) for k in (axis if isinstance(axis, tuple) else (axis,)))
    order = tuple(int(k) for k in np.argsort(named))
    laid_out = tuple(n if k in named else 1 for k, n in enumerate(shape))
    return axes, order, laid_out, result_shape


def _count_of_average(a: Any, axis: Any, keepdims: Any) -> Any:
    """The second result of `np.average(a, axis, returned=True)` without weights: how many
    elements each average took, a constant."""
    keep: Any = bool(keepdims)  # NumPy's stubs type `keepdims` by its literal value
    return np.average(np.asarray(a), axis, None, returned=True, keepdims=keep)[1]


def weighted_average(a: Any, axis: Any = None, weights: Any = None, returned: Any = False,
                     keepdims: Any = False) -> Any:  # fmt: skip
    """`np.average`: `sum(w a) / sum(w)` over the axes, `w` the weights laid out to broadcast
    against `a` (without weights, the mean); with `returned`, also the sum of the weights."""
    axes, order, laid_out, result_shape = _average_layout(a, axis, weights, keepdims)
    if weights is None:
        average = np.mean(a, axis, None, None, bool(keepdims))
        return (average, _count_of_average(a, axis, keepdims)) if returned else average
    w = np.broadcast_to(np.reshape(np.transpose(weights, order), laid_out), np.shape(a))
    total = np.sum(w, axes, None, None, True)
    average = np.reshape(np.sum(w * a, axes, None, None, True) / total, result_shape)
    return (average, np.reshape(total, result_shape)) if returned else average


rules.non_differentiable(_average_layout, _count_of_average)
rules.primitive(np.average, definition=weighted_average)


# -- np.linalg.det: through slogdet, away from singular matrices ------------------------------


def _refuse_singular(a: Any) -> None:
    """Raise where a matrix is singular (`slogdet`'s sign 0): there the determinant's second
    derivative needs the adjugate's derivative, which `determinant` does not give."""
    if np.any(np.linalg.slogdet(a)[0] == 0):
        raise SrcadError(
            "srcad takes second derivatives of np.linalg.det at invertible matrices only; "
            "it was given a singular one"
        )


def determinant(a: Any) -> Any:
    """`np.linalg.det` as `sign * exp(logabsdet)` from `np.linalg.slogdet` (also of a stack,
    and of complex matrices, whose sign turns): its derivatives, `det(a) tr(a^-1 da)` and
    on, hold where `a` is invertible; a singular `a` is refused. (The pair is read by
    index: unpacking a pair with a complex sign is refused at second order.)"""
    _refuse_singular(a)
    signed = np.linalg.slogdet(a)
    return signed[0] * np.exp(signed[1])


rules.non_differentiable(_refuse_singular)
rules.primitive(np.linalg.det, definition=determinant)

"""Rules for the methods of NumPy's ufuncs that users call for reductions and tables:
`reduce` and `accumulate` of `np.add`, `np.multiply`, `np.maximum`, `np.minimum` and
`np.logaddexp`, `reduceat` of the first four, `outer` of `np.add`, `np.subtract`,
`np.multiply` and `np.divide`, and NumPy 2.1's `np.cumulative_sum` and
`np.cumulative_prod` (`np.cumsum` and `np.cumprod`, after a 0 or 1 with
`include_initial`).

Each is srcad's own rule of a plain-NumPy definition (`rules/_support.by_definition`): a
reduction is the function of the same name over the axis (`np.sum`, `np.prod`, `np.max`,
`np.min`, a log-sum-exp), a running one the running form (`np.cumsum`, `np.cumprod`, a loop
of the ufunc along the axis), an outer one the ufunc of the first argument given an axis of
length one for each of the second's; a reduction at indices the reduction of each slice
`a[i[k]:i[k + 1]]` along the axis (the last to the end), or where `i[k] >= i[k + 1]` the
element `a[i[k]]` alone, as NumPy defines it. Ties of the maximum and minimum split as
`np.max`'s do. Options they do not compute (`out=`, `dtype=`, a `where=` mask) are refused
by name."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("numpy_ufunc_methods")


def _refuse(name: str, dtype: Any, out: Any, where: Any) -> None:
    """Raise where a call passes `dtype`, `out` or a `where` mask (not `True`). (By
    position: srcad reads a keyword `out=` as a write into an array.)"""
    given = [
        k
        for k, v in (("dtype", dtype), ("out", out), ("where", where))
        if v is not None and not (k == "where" and v is True)
    ]
    if given:
        raise UnsupportedCallError(f"srcad has no rule for {name} with {', '.join(given)}=")


# -- reduce ------------------------------------------------------------------------------------


def add_reduce(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
               keepdims: Any = False, initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """`np.add.reduce`: `np.sum` over the axis (by default the first), plus `initial`."""
    _refuse("np.add.reduce", dtype, out, where)
    total = np.sum(array, axis, None, None, bool(keepdims))
    return total if initial is None else total + initial


def multiply_reduce(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
                    keepdims: Any = False, initial: Any = None,
                    where: Any = None) -> Any:  # fmt: skip
    """`np.multiply.reduce`: `np.prod` over the axis, times `initial`."""
    _refuse("np.multiply.reduce", dtype, out, where)
    product = np.prod(array, axis, None, None, bool(keepdims))
    return product if initial is None else product * initial


def maximum_reduce(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
                   keepdims: Any = False, initial: Any = None,
                   where: Any = None) -> Any:  # fmt: skip
    """`np.maximum.reduce`: `np.max` over the axis (and `initial`)."""
    _refuse("np.maximum.reduce", dtype, out, where)
    largest = np.max(array, axis, None, bool(keepdims))
    return largest if initial is None else np.maximum(largest, initial)


def minimum_reduce(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
                   keepdims: Any = False, initial: Any = None,
                   where: Any = None) -> Any:  # fmt: skip
    """`np.minimum.reduce`: `np.min` over the axis (and `initial`)."""
    _refuse("np.minimum.reduce", dtype, out, where)
    smallest = np.min(array, axis, None, bool(keepdims))
    return smallest if initial is None else np.minimum(smallest, initial)


def logaddexp_reduce(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
                     keepdims: Any = False, initial: Any = None,
                     where: Any = None) -> Any:  # fmt: skip
    """`np.logaddexp.reduce`: `log(sum(exp(a - m))) + m` over the axis, `m` the maximum
    (whose own derivative cancels: the derivative is the softmax), and `initial`."""
    _refuse("np.logaddexp.reduce", dtype, out, where)
    largest = np.max(array, axis, None, True)
    shifted = np.log(np.sum(np.exp(array - largest), axis, None, None, bool(keepdims)))
    total = shifted + np.max(array, axis, None, bool(keepdims))
    return total if initial is None else np.logaddexp(total, initial)


# -- accumulate --------------------------------------------------------------------------------


def add_accumulate(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None) -> Any:
    """`np.add.accumulate`: `np.cumsum` along the axis."""
    _refuse("np.add.accumulate", dtype, out, None)
    return np.cumsum(array, axis)


def multiply_accumulate(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None) -> Any:
    """`np.multiply.accumulate`: `np.cumprod` along the axis."""
    _refuse("np.multiply.accumulate", dtype, out, None)
    return np.cumprod(array, axis)


def _running(array: Any, axis: Any, step: Any) -> Any:
    """`step` applied along `axis` from the first element on, each running value kept."""
    values = np.moveaxis(array, axis, 0)
    running = values[0]
    kept = [running]
    for k in range(1, np.shape(values)[0]):
        running = step(running, values[k])
        kept.append(running)
    return np.moveaxis(np.stack(kept), 0, axis)


def maximum_accumulate(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None) -> Any:
    """`np.maximum.accumulate`: the running maximum along the axis."""
    _refuse("np.maximum.accumulate", dtype, out, None)
    return _running(array, axis, np.maximum)


def minimum_accumulate(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None) -> Any:
    """`np.minimum.accumulate`: the running minimum along the axis."""
    _refuse("np.minimum.accumulate", dtype, out, None)
    return _running(array, axis, np.minimum)


def logaddexp_accumulate(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None) -> Any:
    """`np.logaddexp.accumulate`: the running `np.logaddexp` along the axis."""
    _refuse("np.logaddexp.accumulate", dtype, out, None)
    return _running(array, axis, np.logaddexp)


def _initial_shape(array: Any, axis: Any) -> tuple[int, ...]:
    """The shape of one slice of `array` along `axis` (the first where None)."""
    shape = list(np.shape(array))
    shape[0 if axis is None else axis] = 1
    return tuple(shape)


def cumulative_sum(x: Any, *, axis: Any = None, dtype: Any = None, out: Any = None,
                   include_initial: Any = False) -> Any:  # fmt: skip
    """`np.cumulative_sum`: `np.cumsum` along the axis, after a 0 with `include_initial`."""
    _refuse("np.cumulative_sum", dtype, out, None)
    running = np.cumsum(x, axis)
    if not include_initial:
        return running
    zeros = np.zeros(_initial_shape(x, axis))
    return np.concatenate([zeros, running], 0 if axis is None else axis)


def cumulative_prod(x: Any, *, axis: Any = None, dtype: Any = None, out: Any = None,
                    include_initial: Any = False) -> Any:  # fmt: skip
    """`np.cumulative_prod`: `np.cumprod` along the axis, after a 1 with
    `include_initial`."""
    _refuse("np.cumulative_prod", dtype, out, None)
    running = np.cumprod(x, axis)
    if not include_initial:
        return running
    ones = np.ones(_initial_shape(x, axis))
    return np.concatenate([ones, running], 0 if axis is None else axis)


# -- reduceat ---------------------------------------------------------------------------------


def _segments(indices: Any, length: int) -> list[tuple[int, int]]:
    """The slices `reduceat` reduces along an axis of `length`: `indices[k]` up to the
    next index, or to the end for the last; the one element at `indices[k]` where the next
    index is not beyond it. An index out of range raises NumPy's error."""
    starts = [int(i) for i in np.ravel(indices)]
    for i in starts:
        if not 0 <= i < length:
            raise IndexError(f"index {i} out-of-bounds in reduceat [0, {length})")
    ends = [*starts[1:], length][: len(starts)]
    return [(a, b if b > a else a + 1) for a, b in zip(starts, ends, strict=True)]


def _reduced_at(array: Any, indices: Any, axis: Any, reduce: Any) -> Any:
    """`reduce(piece, 0)` of each slice `_segments` gives along `axis`, stacked there."""
    values = np.moveaxis(array, axis, 0)
    pieces = [reduce(values[a:b], 0) for a, b in _segments(indices, np.shape(values)[0])]
    if not pieces:
        return np.moveaxis(values[:0], 0, axis)
    return np.moveaxis(np.stack(pieces), 0, axis)


def add_reduceat(array: Any, indices: Any, axis: Any = 0, dtype: Any = None,
                 out: Any = None) -> Any:  # fmt: skip
    """`np.add.reduceat`: the sum of each slice."""
    _refuse("np.add.reduceat", dtype, out, None)
    return _reduced_at(array, indices, axis, np.sum)


def multiply_reduceat(array: Any, indices: Any, axis: Any = 0, dtype: Any = None,
                      out: Any = None) -> Any:  # fmt: skip
    """`np.multiply.reduceat`: the product of each slice."""
    _refuse("np.multiply.reduceat", dtype, out, None)
    return _reduced_at(array, indices, axis, np.prod)


def maximum_reduceat(array: Any, indices: Any, axis: Any = 0, dtype: Any = None,
                     out: Any = None) -> Any:  # fmt: skip
    """`np.maximum.reduceat`: the largest element of each slice."""
    _refuse("np.maximum.reduceat", dtype, out, None)
    return _reduced_at(array, indices, axis, np.max)


def minimum_reduceat(array: Any, indices: Any, axis: Any = 0, dtype: Any = None,
                     out: Any = None) -> Any:  # fmt: skip
    """`np.minimum.reduceat`: the smallest element of each slice."""
    _refuse("np.minimum.reduceat", dtype, out, None)
    return _reduced_at(array, indices, axis, np.min)


# -- outer -------------------------------------------------------------------------------------


def _outer_shape(a: Any, b: Any) -> tuple[int, ...]:
    """`a`'s shape with an axis of length one for each of `b`'s."""
    return (*np.shape(a), *(1,) * np.ndim(b))


def add_outer(a: Any, b: Any) -> Any:
    """`np.add.outer`."""
    return np.add(np.reshape(a, _outer_shape(a, b)), b)


def subtract_outer(a: Any, b: Any) -> Any:
    """`np.subtract.outer`."""
    return np.subtract(np.reshape(a, _outer_shape(a, b)), b)


def multiply_outer(a: Any, b: Any) -> Any:
    """`np.multiply.outer`."""
    return np.multiply(np.reshape(a, _outer_shape(a, b)), b)


def divide_outer(a: Any, b: Any) -> Any:
    """`np.divide.outer`."""
    return np.divide(np.reshape(a, _outer_shape(a, b)), b)


rules.non_differentiable(_refuse, _outer_shape, _segments, _initial_shape)
_METHODS: tuple[tuple[Any, Any, str], ...] = (
    (np.add.reduce, add_reduce, "add_reduce"),
    (np.multiply.reduce, multiply_reduce, "multiply_reduce"),
    (np.maximum.reduce, maximum_reduce, "maximum_reduce"),
    (np.minimum.reduce, minimum_reduce, "minimum_reduce"),
    (np.logaddexp.reduce, logaddexp_reduce, "logaddexp_reduce"),
    (np.add.accumulate, add_accumulate, "add_accumulate"),
    (np.multiply.accumulate, multiply_accumulate, "multiply_accumulate"),
    (np.maximum.accumulate, maximum_accumulate, "maximum_accumulate"),
    (np.minimum.accumulate, minimum_accumulate, "minimum_accumulate"),
    (np.logaddexp.accumulate, logaddexp_accumulate, "logaddexp_accumulate"),
    (np.add.reduceat, add_reduceat, "add_reduceat"),
    (np.multiply.reduceat, multiply_reduceat, "multiply_reduceat"),
    (np.maximum.reduceat, maximum_reduceat, "maximum_reduceat"),
    (np.minimum.reduceat, minimum_reduceat, "minimum_reduceat"),
    (np.add.outer, add_outer, "add_outer"),
    (np.subtract.outer, subtract_outer, "subtract_outer"),
    (np.multiply.outer, multiply_outer, "multiply_outer"),
    (np.divide.outer, divide_outer, "divide_outer"),
)
for _method, _definition, _name in _METHODS:
    by_definition(rules, _method, _definition, _name)
# NumPy 2.1 on (CI runs NumPy 2.2 on Python 3.10, where they are there too).
for _name, _definition in (
    ("cumulative_sum", cumulative_sum),
    ("cumulative_prod", cumulative_prod),
):
    if hasattr(np, _name):
        by_definition(rules, getattr(np, _name), _definition, _name)

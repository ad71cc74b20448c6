"""Rules for the methods of NumPy's ufuncs that users call for reductions and tables:
`reduce` and `accumulate` of `np.add`, `np.multiply`, `np.maximum`, `np.minimum` and
`np.logaddexp`, and `outer` of `np.add`, `np.subtract`, `np.multiply` and `np.divide`.

Each is srcad's own rule of a plain-NumPy definition (`rules/_support.by_definition`): a
reduction is the function of the same name over the axis (`np.sum`, `np.prod`, `np.max`,
`np.min`, a log-sum-exp), a running one the running form (`np.cumsum`, `np.cumprod`, a loop
of the ufunc along the axis), an outer one the ufunc of the first argument given an axis of
length one for each of the second's. Ties of the maximum and minimum split as `np.max`'s
do. Options they do not compute (`out=`, `dtype=`, a `where=` mask) are refused by name."""

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


rules.non_differentiable(_refuse, _outer_shape)
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
    (np.add.outer, add_outer, "add_outer"),
    (np.subtract.outer, subtract_outer, "subtract_outer"),
    (np.multiply.outer, multiply_outer, "multiply_outer"),
    (np.divide.outer, divide_outer, "divide_outer"),
)
for _method, _definition, _name in _METHODS:
    by_definition(rules, _method, _definition, _name)

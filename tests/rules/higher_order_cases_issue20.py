"""Objectives for the second-order walk of `test_higher_order.py` that reach the rules
issue 20 added (`rules/numpy_statistics.py`, `numpy_signals.py`, `numpy_ufunc_methods.py`,
`numpy_functionals.py`, `float_parts.py`): each a real scalar of one vector, nonlinear around
the function (the vector's elements lie in 0.2 to 0.8)."""

from __future__ import annotations

import bisect
import heapq
import math
import operator
from typing import Any

import numpy as np

from srcad import primitives
from srcad.primitives import ufunc_at


def holed(x: Any) -> Any:
    """`x` with its largest element NaN."""
    return np.where(x == np.max(x), np.nan, x)


def of_reduction(f: Any, *options: Any) -> Any:
    def objective(x: Any) -> Any:
        return np.sum(f(np.outer(x, x[:3]) ** 2, *options) ** 2)

    objective.__name__ = f"{getattr(f, '__name__', 'reduction')}_objective"
    return objective


def of_holes(f: Any) -> Any:
    def objective(x: Any) -> Any:
        return np.sum(f(holed(x * x)) ** 2) + np.sum(f(np.sin(x)) * x)

    objective.__name__ = f"{f.__name__}_objective"
    return objective


def cov(x: Any) -> Any:
    return np.sum(np.cov(np.reshape(x * x, (2, 3))) ** 2) + np.sum(np.cov(x, np.sin(x)))


def corrcoef(x: Any) -> Any:
    return np.sum(np.corrcoef(np.reshape(np.exp(x), (2, 3)), np.cos(x[:3])) ** 3)


def quantile(x: Any) -> Any:
    return np.sum(np.quantile(x * x, [0.17, 0.61]) ** 2) + np.quantile(x, x[0] / 2) ** 2


def percentile(x: Any) -> Any:
    return np.percentile(np.sin(x), 37.0) ** 3


def nanquantile(x: Any) -> Any:
    return np.nanquantile(holed(x * x), 0.43) ** 2


def nanpercentile(x: Any) -> Any:
    return np.nanpercentile(holed(np.exp(x)), 77.0) ** 3


def nanmedian(x: Any) -> Any:
    return np.nanmedian(holed(x * x)) ** 3


def convolve(x: Any) -> Any:
    return np.sum(np.convolve(x, x[:3] ** 2, "same") ** 2)


def correlate(x: Any) -> Any:
    return np.sum(np.correlate(np.sin(x), x[:2], "full") ** 3)


def ediff1d(x: Any) -> Any:
    return np.sum(np.ediff1d(x * x, to_begin=x[0]) ** 3)


def meshgrid(x: Any) -> Any:
    grid_x, grid_y = np.meshgrid(x * x, np.sin(x[:2]))
    return np.sum(grid_x**2 * grid_y)


def histogram(x: Any) -> Any:
    hist, edges = np.histogram(x, bins=2, weights=x * x)
    return np.sum(hist**2) + np.sum(edges**3)


def changed_in_place(x: Any) -> Any:
    xs = [x[0] * x[1], np.sin(x[2]), x[1] ** 2]
    xs.sort()
    xs.insert(1, x[0] ** 3)
    d = {"a": x[1] * 2.0}
    d.update({"b": x[2] ** 2})
    return xs[0] * xs[2] + xs[1] ** 2 + d["a"] * d["b"]


def popped_in_place(x: Any) -> Any:
    xs = [x[0] * x[1], np.sin(x[2]), x[1] ** 2]
    last = xs.pop()
    return last**2 * xs[0]


def changed_by_function(x: Any) -> Any:
    h = [x[0] * x[1], np.sin(x[2])]
    heapq.heappush(h, x[1] ** 2)
    bisect.insort(h, x[0] ** 3)
    return h[0] * h[2] + h[1] ** 2 + h[3]


def returned_by_function(x: Any) -> Any:
    h = [x[0] * x[1], np.sin(x[2]), x[1] ** 2]
    heapq.heapify(h)
    low = heapq.heappop(h)
    return low**2 * h[0]


def logaddexp_reduce(x: Any) -> Any:
    return np.logaddexp.reduce(x * x) ** 2


def running(f: Any) -> Any:
    def objective(x: Any) -> Any:
        return np.sum(f(np.sin(3.0 * x)) ** 2)

    return objective


def table(f: Any) -> Any:
    def objective(x: Any) -> Any:
        return np.sum(f(x, x[:3] ** 2 + 1.0) ** 2)

    return objective


def wave(v: Any) -> Any:
    return v * np.sin(v)


def vectorized(x: Any) -> Any:
    return np.sum(np.vectorize(wave)(x) ** 2)


def piecewise(x: Any) -> Any:
    return np.sum(np.piecewise(x, [x < 0.5], [np.sin, np.exp]) ** 2)


def along_axis(x: Any) -> Any:
    return np.sum(np.apply_along_axis(wave, 1, np.outer(x, x[:3])) ** 2)


def polyfit(x: Any) -> Any:
    return np.sum(np.polyfit(x, np.sin(x), 2) ** 2)


def copysign(x: Any) -> Any:
    return np.sum(np.copysign(x * x, 0.5 - x) * np.sin(x))


def fmod(x: Any) -> Any:
    return np.sum(np.fmod(3.0 * x, x[::-1] + 0.05) ** 2 * x)


def modf(x: Any) -> Any:
    fraction, whole = np.modf(4.0 * x * x)
    return np.sum(fraction**2 * (whole + x))


def frexp(x: Any) -> Any:
    mantissa, exponent = np.frexp(x * x)
    return np.sum(mantissa**3 * exponent) + np.sum(mantissa * x)


def ldexp(x: Any) -> Any:
    return np.sum(np.ldexp(x * x, np.arange(6) - 2) * x)


def numpy_divmod(x: Any) -> Any:
    quotient, rest = np.divmod(5.0 * x, x[::-1] + 0.1)
    return np.sum(rest**2 * (quotient + x))


def of_two(f: Any) -> Any:
    def objective(x: Any) -> Any:
        return math.sin(f(5.0 * x[0] * x[1], x[2] + 0.05)) * x[3] + f(x[0] * x[0], -x[4]) ** 3

    objective.__name__ = f"{getattr(f, '__name__', 'function')}_objective"
    return objective


def math_modf(x: Any) -> Any:
    fraction, whole = math.modf(7.0 * x[0] * x[1])
    return fraction**2 * (whole + x[2])


def math_frexp(x: Any) -> Any:
    mantissa, exponent = math.frexp(x[0] * x[1])
    return mantissa**3 * exponent + mantissa * x[2]


def math_ldexp(x: Any) -> Any:
    return math.ldexp(x[0] * x[1], 3) ** 2 + math.ldexp(x[2], -2) * x[0]


def builtin_divmod(x: Any) -> Any:
    quotient, rest = divmod(5.0 * x[0], x[1] + 0.1)
    return rest**2 * (quotient + x[2])


def bincount(x: Any) -> Any:
    bins = np.array([2, 0, 2, 1, 4, 0])
    return np.sum(np.bincount(bins, np.sin(x) * x, minlength=6) ** 3)


def unique(x: Any) -> Any:
    values, inverse = np.unique(np.concatenate([x * x, x[:2] + 3.0]), return_inverse=True)
    return np.sum(np.exp(values) * np.arange(values.size)) + np.sum(values[inverse] ** 3)


def ndenumerate(x: Any) -> Any:
    total = 0.0
    for index, v in np.ndenumerate(np.reshape(x * x, (3, 2))):
        total = total + (index[0] + index[1] + 1.0) * np.sin(v) * total + v**3
    return total


def add_at(x: Any) -> Any:
    counts = np.zeros(3)
    np.add.at(counts, np.array([2, 0, 2, 1, 2, 0]), np.sin(x) * x)
    np.subtract.at(counts, np.array([1, 1]), x[:2] ** 2)
    return np.sum(counts**3) + counts[2] * x[0]


def merged_dicts(x: Any) -> Any:
    """`|` of dicts, and `**` in a display (a merge): the later value wins."""
    params = {"a": x[0] * x[1], "b": x[2] ** 2}
    merged = params | {"b": np.sin(x[3]), "c": x[4] * x[0]}
    shown = {**merged, "a": merged["a"] ** 2}
    return shown["a"] * shown["b"] + np.cos(shown["c"]) + np.sum(x)


def from_keys(x: Any) -> Any:
    d = dict.fromkeys(["a", "b"], x[0] * x[1])
    d["b"] = d["b"] * np.sin(x[2])
    return np.exp(d["a"]) * d["b"] + np.sum(x)


BY_PRIMITIVE: dict[Any, tuple[Any, tuple[Any, ...]]] = {
    ufunc_at: (add_at, ()),
    np.ndenumerate: (ndenumerate, ()),
    np.bincount: (bincount, ()),
    np.unique: (unique, ()),
    np.copysign: (copysign, ()),
    np.fmod: (fmod, ()),
    np.modf: (modf, ()),
    np.frexp: (frexp, ()),
    np.ldexp: (ldexp, ()),
    np.divmod: (numpy_divmod, ()),
    math.copysign: (of_two(math.copysign), ()),
    math.fmod: (of_two(math.fmod), ()),
    math.remainder: (of_two(math.remainder), ()),
    math.modf: (math_modf, ()),
    math.frexp: (math_frexp, ()),
    math.ldexp: (math_ldexp, ()),
    divmod: (builtin_divmod, ()),
    operator.or_: (merged_dicts, ()),
    dict.fromkeys: (from_keys, ()),
    np.ptp: (of_reduction(np.ptp, 1), ()),
    np.cov: (cov, ()),
    np.corrcoef: (corrcoef, ()),
    np.quantile: (quantile, ()),
    np.percentile: (percentile, ()),
    np.nanquantile: (nanquantile, ()),
    np.nanpercentile: (nanpercentile, ()),
    np.nanmedian: (nanmedian, ()),
    **{
        f: (of_holes(f), ())
        for f in (
            np.nanmean,
            np.nanvar,
            np.nanstd,
            np.nanmax,
            np.nanmin,
            np.nanprod,
            np.nancumsum,
            np.nancumprod,
        )
    },
    np.convolve: (convolve, ()),
    np.correlate: (correlate, ()),
    np.ediff1d: (ediff1d, ()),
    np.meshgrid: (meshgrid, ()),
    np.histogram: (histogram, ()),
    primitives.changed: (changed_in_place, ()),
    primitives.popped: (popped_in_place, ()),
    primitives.changed_by: (changed_by_function, ()),
    primitives.returned_by: (returned_by_function, ()),
    **{
        f: (of_reduction(f, 1), ())
        for f in (np.add.reduce, np.multiply.reduce, np.maximum.reduce, np.minimum.reduce)
    },
    np.logaddexp.reduce: (logaddexp_reduce, ()),
    **{
        f: (running(f), ())
        for f in (
            np.add.accumulate,
            np.multiply.accumulate,
            np.maximum.accumulate,
            np.minimum.accumulate,
            np.logaddexp.accumulate,
        )
    },
    **{
        f: (table(f), ())
        for f in (np.add.outer, np.subtract.outer, np.multiply.outer, np.divide.outer)
    },
    np.vectorize.__call__: (vectorized, ()),
    np.piecewise: (piecewise, ()),
    np.apply_along_axis: (along_axis, ()),
    np.polyfit: (polyfit, ()),
}

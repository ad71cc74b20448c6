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
from srcad.primitives import ufunc_at, ufunc_at_in_turn


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


def nextafter(x: Any) -> Any:
    return np.sum(np.nextafter(x * x, 0.5 - x) * np.sin(x))


def unwrap(x: Any) -> Any:
    return np.sum(np.unwrap(np.cumsum(7.0 * x)) ** 2 * x)


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


def nditer(x: Any) -> Any:
    total = 0.0
    for a, b in np.nditer([np.reshape(x * x, (3, 2)).T, x[:3]]):
        total = total + np.sin(a) * total + a * b**2
    return total


def compressed(x: Any) -> Any:
    table = np.compress([True, False, True], np.outer(x, x[:3]), 0)
    return np.sum(np.sin(table) ** 2) + np.sum(np.compress(x > -10.0, x**3))


def deleted(x: Any) -> Any:
    table = np.delete(np.outer(x, x[:3]), [0, -1], 1)
    return np.sum(np.sin(table) ** 2) + np.sum(np.delete(x**3, slice(1, 3)))


def choose(x: Any) -> Any:
    picked = np.choose(np.array([1, 0, 2, 1, 0, 2])[: np.size(x)], [x**2, np.sin(x), 0.5])
    return np.sum(picked**3) + np.sum(np.choose([0, 1], [x[:2], x[2:4] * x[0]]) ** 2)


def inserted(x: Any) -> Any:
    return np.sum(np.insert(x * x, [1, 1], np.cos(x[:2])) ** 3)


def framed(x: Any) -> Any:
    windows = np.lib.stride_tricks.sliding_window_view(x * x, 3)
    frame = np.block([[np.diagflat(x[:2]), np.sin(x[2:4]).reshape(2, 1)], [x[3:6]]])
    return np.sum(np.prod(windows, axis=1) ** 2) + np.sum(frame**3 * x[0])


def logspace(x: Any) -> Any:
    return np.sum(np.sqrt(np.logspace(x[0], x[1] ** 2, 4, True, x[2] + 1.5)) * x[3])


def cumulative(x: Any) -> Any:
    sums = np.cumulative_sum(x * x, include_initial=True)
    return np.sum(sums**2 * np.cumulative_prod(np.sin(x), include_initial=True))


def array_api(x: Any) -> Any:
    m = np.reshape(x, (2, 3))
    lengths = np.vecdot(m, np.sin(m)) ** 2 + np.linalg.vecdot(m, m**2, axis=0)[:2]
    table = np.linalg.outer(x[:3], x[3:] ** 2) @ np.matrix_transpose(m)
    return np.sum(lengths**2) + np.sum(np.linalg.matrix_transpose(table) ** 3)


def polynomials(x: Any) -> Any:
    p = np.polymul(np.polyadd(x[:3] ** 2, x[3:]), np.polysub(np.sin(x[:2]), x[4:]))
    return np.sum(np.polyint(np.polyder(p), 2, x[:2] ** 3) ** 2)


def vander(x: Any) -> Any:
    return np.sum(np.vander(x * x, 4) ** 2 * np.sin(x).reshape(-1, 1))


def add_at(x: Any) -> Any:
    counts = np.zeros(3)
    np.add.at(counts, np.array([2, 0, 2, 1, 2, 0]), np.sin(x) * x)
    np.subtract.at(counts, np.array([1, 1]), x[:2] ** 2)
    return np.sum(counts**3) + counts[2] * x[0]


def in_turn_at(x: Any) -> Any:
    a = np.full(3, 0.5) + x[:3] * 0.1
    np.multiply.at(a, np.array([2, 0, 2, 1, 2, 0]), np.cos(x) + 1.5)
    np.maximum.at(a, np.array([1, 1]), x[:2] ** 2)
    np.power.at(a, np.array([0, 0]), np.array([1.5, 0.5]) + x[1] ** 2)
    return np.sum(a**2) + a[2] * x[0]


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


def drawn(kind: Any, name: str) -> Any:
    """An objective of a random draw's parameters, from a seed it makes (both points of a
    difference draw the same numbers: `rules/numpy_random.py`)."""

    def objective(x: Any) -> Any:
        generator = np.random.default_rng(4) if kind is np.random.Generator else kind(4)
        first, second = (x[:3], 0.5 + x[3]) if name != "uniform" else (x[:3], 1.0 + x[:3] + x[3])
        parameters = (second,) if name == "exponential" else (first, second)
        y = getattr(generator, name)(*parameters)
        return np.sum(np.sin(y * x[:3]) + y**2 * x[3])

    objective.__name__ = f"{kind.__name__}_{name}_objective"
    return objective


def square_of(x: Any) -> Any:
    """A well-conditioned 3 by 3 matrix of the vector's six elements."""
    return np.reshape(np.concatenate([x, x[:3] ** 2]), (3, 3)) + 2.0 * np.eye(3)


def spelled(name: str, *, linalg: bool = False) -> Any:
    """An objective of `np.linalg.name` (`linalg`) or `np.name` (`rules/numpy_spellings.py`)."""
    function = getattr(np.linalg if linalg else np, name)

    def objective(x: Any) -> Any:
        m = square_of(x)
        if name in ("cross", "outer"):
            y = function(x[:3], x[3:])
        elif name in ("vecdot", "matvec"):
            y = function(m, x[:3])
        elif name == "vecmat":
            y = function(x[:3], m)
        elif name == "multi_dot":
            y = function([x[:3], m, m.T, x[3:]])
        elif name == "tensorsolve":
            y = function(m, np.sin(x[:3]))
        elif name in ("cumulative_sum", "cumulative_prod"):
            y = function(m, axis=1, include_initial=True)
        elif name == "eigvalsh":
            y = function(m + m.T)
        elif name == "trim_zeros":
            y = function(np.concatenate([[0.0], x, [0.0]]))
        elif name == "broadcast_arrays":
            y = function(x[:3, None], x[None, 3:])[1]
        elif name in ("diagflat", "vander"):
            y = function(x[:3])
        else:
            y = function(m)
        return np.sum(np.sin(y) * y)

    objective.__name__ = f"{name}_objective"
    return objective


BY_PRIMITIVE: dict[Any, tuple[Any, tuple[Any, ...]]] = {
    ufunc_at: (add_at, ()),
    ufunc_at_in_turn: (in_turn_at, ()),
    np.ndenumerate: (ndenumerate, ()),
    np.nditer: (nditer, ()),
    np.compress: (compressed, ()),
    np.delete: (deleted, ()),
    np.insert: (inserted, ()),
    np.choose: (choose, ()),
    **{f: (polynomials, ()) for f in (np.polyadd, np.polysub, np.polymul, np.polyder, np.polyint)},
    np.vander: (vander, ()),
    np.logspace: (logspace, ()),
    **{
        f: (array_api, ())
        for f in (
            getattr(np, "vecdot", None),
            getattr(np, "matrix_transpose", None),
            getattr(np.linalg, "vecdot", None),
            getattr(np.linalg, "matrix_transpose", None),
            getattr(np.linalg, "outer", None),
        )
        if f is not None
    },
    **(
        {np.cumulative_sum: (cumulative, ()), np.cumulative_prod: (cumulative, ())}
        if hasattr(np, "cumulative_sum")
        else {}
    ),
    **{f: (framed, ()) for f in (np.diagflat, np.block, np.lib.stride_tricks.sliding_window_view)},
    np.bincount: (bincount, ()),
    np.unique: (unique, ()),
    np.copysign: (copysign, ()),
    np.fmod: (fmod, ()),
    np.modf: (modf, ()),
    np.frexp: (frexp, ()),
    np.ldexp: (ldexp, ()),
    np.divmod: (numpy_divmod, ()),
    math.copysign: (of_two(math.copysign), ()),
    math.nextafter: (of_two(math.nextafter), ()),
    np.nextafter: (nextafter, ()),
    np.unwrap: (unwrap, ()),
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
        f: (of_reduction(f, np.array([0, 2, 1])), ())
        for f in (np.add.reduceat, np.multiply.reduceat, np.maximum.reduceat, np.minimum.reduceat)
    },
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
    **{
        getattr(kind, name): (drawn(kind, name), ())
        for kind in (np.random.Generator, np.random.RandomState)
        for name in ("normal", "lognormal", "uniform", "exponential")
    },
    **{
        getattr(np.linalg, name): (spelled(name, linalg=True), ())
        for name in (
            "eigvalsh",
            "cond",
            "cross",
            "outer",
            "vecdot",
            "matrix_transpose",
            "matrix_norm",
            "vector_norm",
            "multi_dot",
            "tensorsolve",
        )
    },
    **{
        getattr(np, name): (spelled(name), ())
        for name in (
            "vecdot",
            "matrix_transpose",
            "matvec",
            "vecmat",
            "cumulative_sum",
            "cumulative_prod",
        )
        if hasattr(np, name)
    },
    **{
        getattr(np, name): (spelled(name), ())
        for name in (
            "copy",
            "asanyarray",
            "ascontiguousarray",
            "asfortranarray",
            "require",
            "asarray_chkfinite",
            "trim_zeros",
            "broadcast_arrays",
            "diagflat",
            "vander",
        )
    },
}

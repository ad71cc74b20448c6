"""Objectives for the second-order walk of `test_higher_order.py` that reach the rules
issue 20 added (`rules/numpy_statistics.py`, `numpy_signals.py`, `numpy_ufunc_methods.py`,
`numpy_functionals.py`): each a real scalar of one vector, nonlinear around the function."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np


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

"""Rules for NumPy's statistics that srcad differentiates through a plain-NumPy definition:
`np.ptp`, `np.cov`, `np.corrcoef`, `np.quantile` and `np.percentile` (linear
interpolation), and the NaN-skipping reductions (`np.nanmean`, `np.nanmax`, ...).

Each definition computes the function's value from functions srcad differentiates to any
order (sums, extrema, sorts, `np.where`); srcad compiles it, so both modes and the second
derivatives (`Primitive.definition`, `rules/second_order.py`) are the definition's. The rule
returns NumPy's own value, the definition's tangent in its dtype. Options the definitions do
not compute (`out=`, weights of `np.cov`, a `dtype=`, interpolation methods other than
linear) are refused by name, where the call runs. Layouts (which axes, which positions of a
sorted slice) come from helpers marked non-differentiable: they read shapes and options."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition, reduced_axes

rules = RuleSet("numpy_statistics")


def _refuse(name: str, names: str, *values: Any) -> None:
    """Raise unless every option (`names`, split on spaces, and their `values`) is None.
    (Passed by position: srcad reads a keyword `out=` as a write into an array.)"""
    given = [k for k, v in zip(names.split(), values, strict=True) if v is not None]
    if given:
        raise UnsupportedCallError(f"srcad has no rule for {name} with {', '.join(given)}=")


# -- np.ptp: the maximum less the minimum ------------------------------------------------------


def peak_to_peak(a: Any, axis: Any = None, out: Any = None, keepdims: Any = False) -> Any:
    """`np.ptp`: `max - min` over the axes (ties split as `np.max`'s and `np.min`'s)."""
    _refuse("np.ptp", "out", out)
    return np.max(a, axis, None, keepdims) - np.min(a, axis, None, keepdims)


rules.non_differentiable(_refuse)
by_definition(rules, np.ptp, peak_to_peak)


# -- np.cov and np.corrcoef: products of the mean-centred variables -----------------------------


def _cov_layout(m: Any, y: Any, rowvar: Any, bias: Any, ddof: Any) -> tuple[bool, bool, int]:
    """How `covariance` lays out its variables as NumPy does: whether `m` and `y` (made 2-D)
    are transposed to put each variable in a row, and the divisor (observations less
    `ddof`, which defaults to 1, or 0 with `bias`)."""
    rows = np.atleast_2d(np.asarray(m)).shape
    flip_m = not rowvar and rows[0] != 1
    flip_y = y is not None and not rowvar and np.atleast_2d(np.asarray(y)).shape[0] != 1
    count = rows[0] if flip_m else rows[1]
    if ddof is None:
        ddof = 0 if bias else 1
    return flip_m, flip_y, count - int(ddof)


def covariance(m: Any, y: Any = None, rowvar: Any = True, bias: Any = False, ddof: Any = None,
               fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Any:  # fmt: skip
    """`np.cov` without weights: `c @ conj(c).T / (N - ddof)`, `c` the variables (rows of `m`,
    then of `y`) less their means over the `N` observations."""
    _refuse("np.cov", "fweights aweights dtype", fweights, aweights, dtype)
    flip_m, flip_y, divisor = _cov_layout(m, y, rowvar, bias, ddof)
    variables = np.atleast_2d(m)
    if flip_m:
        variables = np.transpose(variables)
    if y is not None:
        others = np.atleast_2d(y)
        if flip_y:
            others = np.transpose(others)
        variables = np.concatenate((variables, others), 0)
    centred = variables - np.mean(variables, 1, None, None, True)
    return np.squeeze(centred @ np.conj(np.transpose(centred))) / divisor


def correlation(x: Any, y: Any = None, rowvar: Any = True, bias: Any = None, ddof: Any = None,
                dtype: Any = None) -> Any:  # fmt: skip
    """`np.corrcoef`: the covariance over the outer product of the standard deviations (of
    one variable alone, `c / c`: 1). `bias` and `ddof` have no effect, as in NumPy."""
    _refuse("np.corrcoef", "dtype", dtype)
    c = covariance(x, y, rowvar)
    if np.ndim(c) == 0:
        return c / c
    deviations = np.sqrt(np.real(np.diagonal(c)))
    return c / np.outer(deviations, deviations)


rules.non_differentiable(_cov_layout)
rules.keywords_by_position(np.cov, "y")
rules.keywords_by_position(np.corrcoef, "y")
by_definition(rules, np.cov, covariance)
by_definition(rules, np.corrcoef, correlation)


# -- np.quantile, np.percentile and their NaN-skipping forms: linear interpolation -------------


def _quantile_layout(a: Any, q: Any, axis: Any, keepdims: Any, skip_nan: bool) -> tuple[Any, ...]:
    """How `interpolated_quantile` lays out `a` and `q`: the permutation putting the reduced
    axes last, the shape of the rows (kept axes, then one of the reduced elements), the
    last position of each row, the positions below and above each quantile in each sorted
    row (`(*kept, q.size)`, counting each row's numbers that are not NaN where `skip_nan`),
    the permutation putting the quantiles' axis first, and the result's shape (`q`'s, then
    the kept axes)."""
    shape = np.shape(a)
    axes = reduced_axes(axis, len(shape))
    kept = tuple(k for k in range(len(shape)) if k not in axes)
    rows_shape = (*(shape[k] for k in kept), math.prod(shape[k] for k in axes))
    if skip_nan:
        rows = np.reshape(np.transpose(np.asarray(a), kept + axes), rows_shape)
        counts = np.sum(~np.isnan(rows), -1, keepdims=True)
    else:
        counts = np.full((*rows_shape[:-1], 1), rows_shape[-1])
    last = np.maximum(counts - 1, 0)
    positions = np.reshape(np.asarray(q, float), -1) * last
    below = np.minimum(np.floor(positions).astype(np.intp), last)
    above = np.minimum(below + 1, last)
    result_kept = tuple(1 if k in axes else n for k, n in enumerate(shape))
    if not keepdims:
        result_kept = rows_shape[:-1]
    to_front = (len(kept), *range(len(kept)))
    return kept + axes, rows_shape, last, below, above, to_front, (*np.shape(q), *result_kept)


def interpolated_quantile(a: Any, q: Any, axis: Any, out: Any, overwrite_input: Any,
                          method: Any, keepdims: Any, weights: Any, interpolation: Any,
                          skip_nan: bool) -> Any:  # fmt: skip
    """A quantile by linear interpolation between the two numbers of each sorted slice
    around `q (n - 1)`: `low + t (high - low)`, `t` its fractional part. The derivative in
    `a` goes to those two numbers (`1 - t` and `t`), in `q` it is `(n - 1) (high - low)`.
    At ties the numbers a stable sort puts in those places take it."""
    if method != "linear" or interpolation is not None:
        raise UnsupportedCallError("srcad has a rule for quantiles with method='linear' only")
    _refuse("np.quantile", "out weights", out, weights)
    if overwrite_input:
        raise UnsupportedCallError("srcad cannot differentiate a quantile that sorts in place")
    permutation, rows_shape, last, below, above, to_front, result_shape = _quantile_layout(
        a, q, axis, keepdims, skip_nan
    )
    rows = np.sort(np.reshape(np.transpose(a, permutation), rows_shape), -1)
    low = np.take_along_axis(rows, below, -1)
    high = np.take_along_axis(rows, above, -1)
    fraction = np.reshape(q, -1) * last - below
    value = low + fraction * (high - low)
    return np.reshape(np.transpose(value, to_front), result_shape)


def quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: Any = False,
             method: Any = "linear", keepdims: Any = False, weights: Any = None,
             interpolation: Any = None) -> Any:  # fmt: skip
    """`np.quantile` by linear interpolation (`interpolated_quantile`)."""
    return interpolated_quantile(
        a, q, axis, out, overwrite_input, method, keepdims, weights, interpolation, False
    )


def percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: Any = False,
               method: Any = "linear", keepdims: Any = False, weights: Any = None,
               interpolation: Any = None) -> Any:  # fmt: skip
    """`np.percentile`: the quantile at `q / 100`."""
    fraction = np.true_divide(q, 100)
    return interpolated_quantile(
        a, fraction, axis, out, overwrite_input, method, keepdims, weights, interpolation, False
    )


def nan_quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: Any = False,
                 method: Any = "linear", keepdims: Any = False, weights: Any = None,
                 interpolation: Any = None) -> Any:  # fmt: skip
    """`np.nanquantile`: each slice's quantile among its numbers that are not NaN (sorted
    first: NaNs sort last)."""
    return interpolated_quantile(
        a, q, axis, out, overwrite_input, method, keepdims, weights, interpolation, True
    )


def nan_percentile(a: Any, q: Any, axis: Any = None, out: Any = None,
                   overwrite_input: Any = False, method: Any = "linear", keepdims: Any = False,
                   weights: Any = None, interpolation: Any = None) -> Any:  # fmt: skip
    """`np.nanpercentile`: `nan_quantile` at `q / 100`."""
    fraction = np.true_divide(q, 100)
    return interpolated_quantile(
        a, fraction, axis, out, overwrite_input, method, keepdims, weights, interpolation, True
    )


def nan_median(a: Any, axis: Any = None, out: Any = None, overwrite_input: Any = False,
               keepdims: Any = False) -> Any:  # fmt: skip
    """`np.nanmedian`: `nan_quantile` at 1/2 (the mean of the two middle numbers of an even
    count)."""
    return interpolated_quantile(
        a, 0.5, axis, out, overwrite_input, "linear", keepdims, None, None, True
    )


rules.non_differentiable(_quantile_layout)
_QUANTILES: tuple[tuple[Any, Any], ...] = (
    (np.quantile, quantile),
    (np.percentile, percentile),
    (np.nanquantile, nan_quantile),
    (np.nanpercentile, nan_percentile),
)
for _primal, _definition in _QUANTILES:
    rules.keywords_by_position(_primal, "q")
    by_definition(rules, _primal, _definition)
by_definition(rules, np.nanmedian, nan_median)


# -- the NaN-skipping reductions: the plain ones of the array with NaNs replaced ---------------


def nan_mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = False,
             where: Any = None) -> Any:  # fmt: skip
    """`np.nanmean`: the sum of the numbers that are not NaN over their count (NaN gets no
    derivative)."""
    _refuse("np.nanmean", "dtype out where", dtype, out, where)
    numbers = np.logical_not(np.isnan(a))
    total = np.sum(np.where(numbers, a, 0), axis, None, None, bool(keepdims))
    return total / np.sum(numbers, axis, None, None, bool(keepdims))


def nan_variance(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
                 keepdims: Any = False, where: Any = None, mean: Any = None,
                 correction: Any = None) -> Any:  # fmt: skip
    """`np.nanvar`: the mean squared distance of the numbers that are not NaN from their
    mean, over their count less `ddof` (or `correction`)."""
    _refuse("np.nanvar", "dtype out where mean", dtype, out, where, mean)
    numbers = np.logical_not(np.isnan(a))
    centred = np.where(numbers, a - nan_mean(a, axis, None, None, True), 0)
    squares = np.real(centred * np.conj(centred))
    count = np.sum(numbers, axis, None, None, bool(keepdims))
    fewer = ddof if correction is None else correction
    return np.sum(squares, axis, None, None, bool(keepdims)) / (count - fewer)


def nan_standard_deviation(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                           ddof: Any = 0, keepdims: Any = False, where: Any = None,
                           mean: Any = None, correction: Any = None) -> Any:  # fmt: skip
    """`np.nanstd`: the square root of `nan_variance`."""
    return np.sqrt(nan_variance(a, axis, dtype, out, ddof, keepdims, where, mean, correction))


def nan_maximum(a: Any, axis: Any = None, out: Any = None, keepdims: Any = False,
                initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """`np.nanmax`: the maximum with NaNs as -inf (ties split as `np.max`'s)."""
    _refuse("np.nanmax", "out initial where", out, initial, where)
    return np.max(np.where(np.isnan(a), -np.inf, a), axis, None, bool(keepdims))


def nan_minimum(a: Any, axis: Any = None, out: Any = None, keepdims: Any = False,
                initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """`np.nanmin`: the minimum with NaNs as inf (ties split as `np.min`'s)."""
    _refuse("np.nanmin", "out initial where", out, initial, where)
    return np.min(np.where(np.isnan(a), np.inf, a), axis, None, bool(keepdims))


def nan_product(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                keepdims: Any = False, initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """`np.nanprod`: the product with NaNs as ones."""
    _refuse("np.nanprod", "dtype out initial where", dtype, out, initial, where)
    return np.prod(np.where(np.isnan(a), 1, a), axis, None, None, bool(keepdims))


def nan_cumulative_sum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """`np.nancumsum`: the running sum with NaNs as zeros."""
    _refuse("np.nancumsum", "dtype out", dtype, out)
    return np.cumsum(np.where(np.isnan(a), 0, a), axis)


def nan_cumulative_product(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """`np.nancumprod`: the running product with NaNs as ones."""
    _refuse("np.nancumprod", "dtype out", dtype, out)
    return np.cumprod(np.where(np.isnan(a), 1, a), axis)


_NAN_REDUCTIONS: tuple[tuple[Any, Any], ...] = (
    (np.nanmean, nan_mean),
    (np.nanvar, nan_variance),
    (np.nanstd, nan_standard_deviation),
    (np.nanmax, nan_maximum),
    (np.nanmin, nan_minimum),
    (np.nanprod, nan_product),
    (np.nancumsum, nan_cumulative_sum),
    (np.nancumprod, nan_cumulative_product),
)
for _primal, _definition in _NAN_REDUCTIONS:
    by_definition(rules, _primal, _definition)


# -- np.polyfit: least squares on the Vandermonde matrix ---------------------------------------


def _refuse_fit(x: Any, deg: Any, rcond: Any, full: Any, w: Any, cov: Any) -> tuple[int, ...]:
    """Raise where `polynomial_fit` does not compute the call (the extra results of
    `full=True` or `cov=True`), or where NumPy's fit is rank-deficient (its derivative is
    not the least-squares one); else the shape that spreads the weights over `y`'s
    columns."""
    if full or cov:
        raise UnsupportedCallError("srcad has no rule for np.polyfit with full= or cov=")
    columns = np.vander(np.asarray(x, float), int(deg) + 1)
    if w is not None:
        columns = columns * np.reshape(np.asarray(w, float), (-1, 1))
    scale = np.sqrt(np.sum(columns * columns, axis=0))
    scaled = columns / np.where(scale == 0, 1, scale)
    cutoff = len(x) * np.finfo(float).eps if rcond is None else rcond
    if np.linalg.matrix_rank(scaled, cutoff * np.linalg.norm(scaled, 2)) < int(deg) + 1:
        raise UnsupportedCallError("srcad has no rule for a rank-deficient np.polyfit")
    return (-1, 1)


def polynomial_fit(x: Any, y: Any, deg: Any, rcond: Any = None, full: Any = False,
                   w: Any = None, cov: Any = False) -> Any:  # fmt: skip
    """`np.polyfit`: the least-squares coefficients (highest power first) of the
    Vandermonde matrix of `x` against `y`, each row weighted by `w`; built by running
    products (exact at zeros) and solved by `np.linalg.lstsq`."""
    spread = _refuse_fit(x, deg, rcond, full, w, cov)
    powers = [np.ones_like(x)]
    for _ in range(int(deg)):
        powers.append(powers[-1] * x)
    columns = np.stack(powers[::-1], 1)
    target = y
    if w is not None:
        columns = columns * np.reshape(w, spread)
        target = y * np.reshape(w, spread) if np.ndim(y) == 2 else y * w
    return np.linalg.lstsq(columns, target, None)[0]


rules.non_differentiable(_refuse_fit)
rules.keywords_by_position(np.polyfit, "w")
by_definition(rules, np.polyfit, polynomial_fit)


# -- np.histogram: counts flat in the data, weights summed per bin, edges from its range -------


def _refuse_histogram(bins: Any) -> None:
    """Raise for bins given by an estimator's name (`"auto"`, `"fd"`): its edges follow
    the data's spread by a rule srcad does not differentiate."""
    if isinstance(bins, str):
        raise UnsupportedCallError(
            f"srcad differentiates np.histogram with a count of bins or their edges, not "
            f"bins={bins!r}; compute the edges first (np.histogram_bin_edges) and pass them"
        )


def _bins_of(values: Any, edges: Any) -> Any:
    """The bin `np.histogram` counts each value in (`edges[k] <= v < edges[k + 1]`, the
    last bin closed), -1 for a value outside every bin."""
    values, edges = np.asarray(values), np.asarray(edges)
    count = len(edges) - 1
    index = np.searchsorted(edges, values, side="right") - 1
    index = np.where(values == edges[-1], count - 1, index)
    return np.where((values < edges[0]) | (values > edges[-1]), -1, index)


def _one_hot(index: Any, count: int) -> Any:
    """`(len(index), count)` floats, 1 where a value's bin is the column."""
    return (np.reshape(index, (-1, 1)) == np.arange(count)) * 1.0


def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
              weights: Any = None) -> Any:  # fmt: skip
    """`np.histogram`: the edges a count of bins spreads evenly over `range` (the data's
    smallest and largest value where none is given, half a unit each way where they are
    equal), or the edges given; the weights (ones without them: flat counts) summed per
    bin, divided by the total and the bins' widths for a density."""
    _refuse_histogram(bins)
    values = np.ravel(a)
    if np.ndim(bins) == 0:
        if range is None:
            first, last = (np.min(values), np.max(values)) if np.size(values) else (0.0, 1.0)
        else:
            first, last = range[0], range[1]
        if first == last:
            first, last = first - 0.5, last + 0.5
        edges = np.linspace(first, last, int(bins) + 1)
    else:
        edges = np.asarray(bins)
    count = np.size(edges) - 1
    weighting = np.ones_like(values) if weights is None else np.ravel(weights)
    hist = weighting @ _one_hot(_bins_of(values, edges), count)
    if density:
        hist = hist / np.diff(edges) / np.sum(hist)
    return hist, edges


rules.non_differentiable(_refuse_histogram, _bins_of, _one_hot)
rules.keywords_by_position(np.histogram, "bins", "range", "density", "weights")
by_definition(rules, np.histogram, histogram)

"""Rules for NumPy's reductions over axes: sums, products, extrema, moments, medians.

Every rule takes `axis` (None, an int, a negative int or a tuple) and `keepdims` as NumPy
does, by position or keyword; neither is differentiated. Where a reduction is not
differentiable (a tie for the maximum, a constant slice for `np.std`), the rule picks the
subgradient its docstring names; tests check each choice against finite differences.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.foreign import refuse_foreign
from srcad.kinds import EXTREMUM_OF_ARRAY, REDUCED_TO_FLOAT
from srcad.projection import ProjectTo, conj, fill_like, operand_tangent
from srcad.registry import Inline, Linearity, RuleFn, RuleSet, named, primal_name
from srcad.rules._reduction_parts import (
    ABSENT,
    cumulative_layout,
    extremum_shares,
    gather_reduced,
    initial_at,
    initial_bar,
    initial_tangent,
    items_product,
    kept_shape,
    products_of_others,
    reduced_count,
    reverse_cumsum,
    scatter_reduced,
)
from srcad.rules._support import (
    as_result,
    divide_or_zero,
    expand_reduced,
    extremum_cotangent,
    extremum_templates,
    reduced_axes,
    reduced_by_options,
    spread_mean,
    spread_sum,
    with_reduced_axes,
)
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_reductions")

Pullback = Any

# The parameters of each reduction after the array, in positional order.
_SUM_PARAMETERS = ("axis", "dtype", "out", "keepdims", "initial", "where")
_MEAN_PARAMETERS = ("axis", "dtype", "out", "keepdims")
_MAX_PARAMETERS = ("axis", "out", "keepdims", "initial", "where")
_VAR_PARAMETERS = ("axis", "dtype", "out", "ddof", "keepdims")
_CUMULATIVE_PARAMETERS = ("axis", "dtype", "out")
_AVERAGE_PARAMETERS = ("axis", "weights", "returned")
_MEDIAN_PARAMETERS = ("axis", "out", "overwrite_input", "keepdims")

_ABSENT = ABSENT


def _call_options(
    parameters: tuple[str, ...], options: tuple[Any, ...], keywords: dict[str, Any]
) -> dict[str, Any]:
    """The options of a call `np.foo(x, *options, **keywords)`, by name, whose positional
    `options` fill `parameters` in order.

    `dtype` and `initial` change the result's type or add a constant, so they pass through;
    `where` (a mask) is not supported, and `out` and `overwrite_input` are mutations.
    """
    given = dict(zip(parameters, options, strict=False)) | keywords
    if given.get("out") is not None:
        raise UnsupportedCallError("srcad cannot differentiate a reduction that writes into `out=`")
    if given.get("overwrite_input"):
        raise UnsupportedCallError("srcad cannot differentiate a median that sorts in place")
    if given.get("where", True) is not True:
        raise UnsupportedCallError("srcad has no rule for a reduction with a `where=` mask")
    return given


def _reduction_options(
    parameters: tuple[str, ...], options: tuple[Any, ...], keywords: dict[str, Any]
) -> tuple[Any, bool]:
    """The `axis` and `keepdims` of a call `np.sum(x, *options, **keywords)`; see
    `_call_options`."""
    given = _call_options(parameters, options, keywords)
    return given.get("axis"), bool(given.get("keepdims", False))


@rules.rrule(np.sum)
def sum_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.sum`; `axis`, `keepdims` and `dtype` are not differentiated.

    Options passed by position each get a `NoTangent()` after `x`'s cotangent, but
    `initial`, added into every element, gets the sum of the result's cotangent.
    """
    y = np.sum(x, *options, **keywords)
    axis, keepdims = _reduction_options(_SUM_PARAMETERS, options, keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars: list[Any] = [NoTangent()] * len(options)
    at = initial_at(_SUM_PARAMETERS, options)

    def sum_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        x_bar = expand_reduced(y_bar, shape, axis, keepdims)
        bars = list(option_bars)
        if at is not None:
            bars[at] = initial_bar(y_bar, options[at])
        return (NoTangent(), project_x(x_bar), *bars)

    return y, sum_pullback


@rules.rrule(np.nansum)
def nansum_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.nansum`, which counts NaNs as zeros: they get a zero cotangent."""
    y = np.nansum(x, *options, **keywords)
    axis, keepdims = _reduction_options(_SUM_PARAMETERS, options, keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars: list[Any] = [NoTangent()] * len(options)
    at = initial_at(_SUM_PARAMETERS, options)

    def nansum_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        x_bar = expand_reduced(y_bar, shape, axis, keepdims)
        x_bar[np.isnan(x)] = 0
        bars = list(option_bars)
        if at is not None:
            bars[at] = initial_bar(y_bar, options[at])
        return (NoTangent(), project_x(x_bar), *bars)

    return y, nansum_pullback


@rules.rrule(np.mean)
def mean_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.mean`; `axis`, `keepdims` and `dtype` are not differentiated.

    Options passed by position each get a `NoTangent()` after `x`'s cotangent.
    """
    y = np.mean(x, *options, **keywords)
    axis, keepdims = _reduction_options(_MEAN_PARAMETERS, options, keywords)
    shape = np.shape(x)
    count = reduced_count(shape, axis)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def mean_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        x_bar = expand_reduced(np.asarray(y_bar) / count, shape, axis, keepdims)
        return (NoTangent(), project_x(x_bar), *option_bars)

    return y, mean_pullback


@rules.rrule(np.prod)
def prod_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.prod`, exact with zeros in the input and for complex arrays.

    The partial for each element is the product of the others in its slice, formed from
    products of the elements before it and after it, never by dividing `y` by the element
    (which fails at zeros). `initial` scales every partial; its own is the product of
    the elements.
    """
    y = np.prod(x, *options, **keywords)
    given = _call_options(_SUM_PARAMETERS, options, keywords)
    initial = given.get("initial", _ABSENT)
    shape = np.shape(x)
    axes = reduced_axes(given.get("axis"), len(shape))
    project_x = ProjectTo(x)
    option_bars: list[Any] = [NoTangent()] * len(options)
    at = initial_at(_SUM_PARAMETERS, options)

    def prod_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        others = products_of_others(x, axes, initial)
        # y_bar has the kept axes in order, with or without `keepdims`' length-1 axes.
        y_bar_rows = np.reshape(y_bar, kept_shape(shape, axes))[..., np.newaxis]
        x_bar = scatter_reduced(y_bar_rows * conj(others), shape, axes)
        bars = list(option_bars)
        if at is not None:  # `initial` times the product of the elements
            bars[at] = initial_bar(y_bar, options[at], conj(items_product(x, given)))
        return (NoTangent(), project_x(x_bar), *bars)

    return y, prod_pullback


def _extremum_rrule(primal: Any, name: str) -> RuleFn:
    """The reverse rule of `np.max` or `np.min`: tied extrema share the cotangent equally."""

    def extremum_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
        y = primal(x, *options, **keywords)
        given = _call_options(_MAX_PARAMETERS, options, keywords)
        axis, keepdims = given.get("axis"), bool(given.get("keepdims", False))
        initial = given.get("initial", _ABSENT)
        project_x = ProjectTo(x)
        option_bars: list[Any] = [NoTangent()] * len(options)
        at = initial_at(_MAX_PARAMETERS, options)

        def extremum_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), y_bar, *option_bars)
            share, won = extremum_shares(x, y, axis, keepdims, initial)
            x_bar = share * with_reduced_axes(y_bar, np.shape(x), axis, keepdims)
            bars = list(option_bars)
            if at is not None:
                bars[at] = initial_bar(y_bar, initial, np.reshape(won, np.shape(y_bar)))
            return (NoTangent(), project_x(x_bar), *bars)

        return y, extremum_pullback

    return named(extremum_rrule, f"{name}_rrule", extremum_pullback=f"{name}_pullback")


# In NumPy 1.x `np.amax is np.max`; in 2.x they are two functions. Register each once.
max_rrule = rules.rrule(*dict.fromkeys((np.max, np.amax)))(_extremum_rrule(np.max, "max"))
min_rrule = rules.rrule(*dict.fromkeys((np.min, np.amin)))(_extremum_rrule(np.min, "min"))


def _moment_options(
    x: Any, options: tuple[Any, ...], keywords: dict[str, Any]
) -> tuple[Any, bool, Any, Any]:
    """`axis`, `keepdims`, the divisor `N - ddof`, and the `mean=` keyword (or `_ABSENT`)
    of a call to `np.var` or `np.std`."""
    given = _call_options(_VAR_PARAMETERS, options, keywords)
    axis, keepdims = given.get("axis"), bool(given.get("keepdims", False))
    ddof = given.get("correction", given.get("ddof", 0))
    divisor = reduced_count(np.shape(x), axis) - ddof
    return axis, keepdims, divisor, given.get("mean", _ABSENT)


def _centred(x: Any, axis: Any, mean: Any) -> np.ndarray:
    """`x` minus its mean over `axis`, or minus the `mean=` a call passed (NumPy 2).

    That keyword is a constant, like every keyword; the derivative of the variance with
    respect to the mean is zero at the true mean anyway.
    """
    values = np.asarray(x)
    if mean is _ABSENT:
        mean = np.mean(values, axis=reduced_axes(axis, values.ndim), keepdims=True)
    return values - mean


@rules.rrule(np.var)
def var_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.var`, real or complex; `ddof` (or `correction`) is a constant.

    The variance is real, so the cotangent is `y_bar` times its gradient `2 (x - mean) / (N
    - ddof)` for complex `x` too.
    """
    y = np.var(x, *options, **keywords)
    axis, keepdims, divisor, mean = _moment_options(x, options, keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def var_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        y_bar = with_reduced_axes(y_bar, shape, axis, keepdims)
        x_bar = y_bar * (2.0 / divisor) * _centred(x, axis, mean)
        return (NoTangent(), project_x(x_bar), *option_bars)

    return y, var_pullback


@rules.rrule(np.std)
def std_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.std`, real or complex; `ddof` (or `correction`) is a constant.

    Where the deviation is zero (a constant slice) the cotangent is zero: the derivative does
    not exist there, and zero is the subgradient central differences see.
    """
    y = np.std(x, *options, **keywords)
    axis, keepdims, divisor, mean = _moment_options(x, options, keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def std_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        y_bar = with_reduced_axes(y_bar, shape, axis, keepdims)
        y_kept = with_reduced_axes(y, shape, axis, keepdims)
        x_bar = divide_or_zero(y_bar, divisor * y_kept) * _centred(x, axis, mean)
        return (NoTangent(), project_x(x_bar), *option_bars)

    return y, std_pullback


@rules.rrule(np.cumsum)
def cumsum_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.cumsum`: the cotangent is summed from each position to the end."""
    y = np.cumsum(x, *options, **keywords)
    axis = _call_options(_CUMULATIVE_PARAMETERS, options, keywords).get("axis")
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def cumsum_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        _, along = cumulative_layout(x, axis)
        x_bar = reverse_cumsum(np.asarray(y_bar), along).reshape(shape)
        return (NoTangent(), project_x(x_bar), *option_bars)

    return y, cumsum_pullback


@rules.rrule(np.cumprod)
def cumprod_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.cumprod`, exact with zeros in the input and for complex arrays.

    Before the first zero of a slice, the partial `d y_i / d x_j` is `y_i / x_j`. At the
    first zero, it is the running product with that zero replaced by 1; after it, every
    product that involves `x_j` also involves that zero, so the cotangent is 0.
    """
    y = np.cumprod(x, *options, **keywords)
    axis = _call_options(_CUMULATIVE_PARAMETERS, options, keywords).get("axis")
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def cumprod_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        values, along = cumulative_layout(x, axis)
        y_bar = np.asarray(y_bar)
        zero = values == 0
        zeros_so_far = np.cumsum(zero, axis=along)
        before_zero = zeros_so_far == 0
        first_zero = zero & (zeros_so_far == 1)
        safe_values = np.where(before_zero, values, 1)
        x_bar = np.where(before_zero, reverse_cumsum(y_bar * conj(y), along), 0) / conj(safe_values)
        if first_zero.any():
            y_without_zero = np.cumprod(np.where(first_zero, 1, values), axis=along)
            at_zero = reverse_cumsum(y_bar * conj(y_without_zero), along)
            x_bar = np.where(first_zero, at_zero, x_bar)
        return (NoTangent(), project_x(x_bar.reshape(shape)), *option_bars)

    return y, cumprod_pullback


def _broadcast_weights(weights: np.ndarray, shape: tuple[int, ...], axis: Any) -> np.ndarray:
    """The weights of `np.average` laid out to broadcast against the averaged array, as
    NumPy lays them out: either the array's own shape, or the shape of the averaged axes in
    the order `axis` names them."""
    if weights.shape == shape:
        return weights
    axes = tuple(int(a) % len(shape) for a in (axis if isinstance(axis, tuple) else (axis,)))
    sorted_weights = np.transpose(weights, np.argsort(axes))
    return sorted_weights.reshape(tuple(n if a in axes else 1 for a, n in enumerate(shape)))


def _weights_cotangent(
    w_bar: np.ndarray, weights_shape: tuple[int, ...], shape: tuple[int, ...], axis: Any
) -> np.ndarray:
    """The inverse of `_broadcast_weights` for cotangents: `w_bar` has the averaged array's
    shape, and goes back to the weights' own shape and axis order."""
    if weights_shape == shape:
        return w_bar
    axes = tuple(int(a) % len(shape) for a in (axis if isinstance(axis, tuple) else (axis,)))
    kept = tuple(a for a in range(len(shape)) if a not in axes)
    summed = np.sum(w_bar, axis=kept)  # in sorted axis order
    return np.transpose(summed, np.argsort(np.argsort(axes)))


rules.keywords_by_position(np.average, "weights")


@rules.rrule(np.average)
def average_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.average`, with or without weights, and with `returned=True`.

    Weights are differentiated like `a` (`weights=` too: the normal form passes it by
    position, `np.average(a, axis, weights)`). With `returned=True`
    the result is a pair whose second element, the sum of the weights, also has a cotangent.
    """
    result = np.average(a, *options, **keywords)
    given = dict(zip(_AVERAGE_PARAMETERS, options, strict=False))
    given.update(keywords)
    axis, keepdims = given.get("axis"), bool(given.get("keepdims", False))
    weights, returned = given.get("weights"), bool(given.get("returned", False))
    shape = np.shape(a)
    project_a = ProjectTo(a)
    weights_positional = len(options) >= 2
    project_weights = ProjectTo(weights) if weights_positional and weights is not None else None
    average = result[0] if returned else result

    def average_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        average_bar, sum_bar = elements_of(y_bar, 2) if returned else (y_bar, ZeroTangent())
        average_bar, sum_bar = unthunk(average_bar), unthunk(sum_bar)
        option_bars: list[Any] = [NoTangent()] * len(options)
        if isinstance(average_bar, AbstractZero) and isinstance(sum_bar, AbstractZero):
            if weights_positional and weights is not None:
                option_bars[1] = ZeroTangent()
            return (NoTangent(), ZeroTangent(), *option_bars)
        if weights is None:  # the sum of the weights is the count, a constant
            if isinstance(average_bar, AbstractZero):
                return (NoTangent(), ZeroTangent(), *option_bars)
            average_bar = np.asarray(average_bar) / reduced_count(shape, axis)
            a_bar = project_a(expand_reduced(average_bar, shape, axis, keepdims))
            return (NoTangent(), a_bar, *option_bars)
        values, w = np.asarray(a), np.asarray(weights)
        w_broadcast = _broadcast_weights(w, shape, axis)
        total = np.sum(w_broadcast, axis=reduced_axes(axis, len(shape)), keepdims=True)
        a_bar = ZeroTangent()
        w_bar = np.zeros(shape, dtype=np.result_type(values, w, 1.0))
        if not isinstance(average_bar, AbstractZero):
            average_bar = with_reduced_axes(average_bar, shape, axis, keepdims)
            # d average / d a = w / total; d average / d w = (a - average) / total. Each
            # axis is either averaged over (w has it) or kept (average_bar has it), so the
            # product has the shape of `a`.
            a_bar = project_a(average_bar * conj(w_broadcast / total))
            centred = values - with_reduced_axes(average, shape, axis, keepdims)
            w_bar = w_bar + average_bar * conj(centred / total)
        if not isinstance(sum_bar, AbstractZero):  # d (sum of weights) / d w = 1
            w_bar = w_bar + with_reduced_axes(sum_bar, shape, axis, keepdims)
        if weights_positional:
            assert project_weights is not None
            option_bars[1] = project_weights(_weights_cotangent(w_bar, w.shape, shape, axis))
        return (NoTangent(), a_bar, *option_bars)

    return result, average_pullback


@rules.rrule(np.median)
def median_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.median`: the cotangent goes to the middle element of each slice,
    or half to each of the two middle elements for an even count.

    The middle elements are those a stable sort puts there; at a tie another choice is as
    valid. `overwrite_input=True` (which reorders `x`) is a mutation, rejected like `out=`.
    """
    given = _call_options(_MEDIAN_PARAMETERS, options, keywords)
    shape = np.shape(x)
    axes = reduced_axes(given.get("axis"), len(shape))
    y = np.median(x, *options, **keywords)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def median_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        order = np.argsort(gather_reduced(np.asarray(x), axes), axis=-1, kind="stable")
        # y_bar has the kept axes in order, with or without `keepdims`' length-1 axes.
        y_bar_rows = np.reshape(y_bar, kept_shape(shape, axes))[..., np.newaxis]
        rows_bar = np.zeros(order.shape, dtype=np.result_type(y_bar_rows, 1.0))
        count = order.shape[-1]
        low, high = (count - 1) // 2, count // 2
        if low == high:
            np.put_along_axis(rows_bar, order[..., low : low + 1], y_bar_rows, axis=-1)
        else:  # two distinct positions in every row
            np.put_along_axis(rows_bar, order[..., low : low + 1], y_bar_rows / 2, axis=-1)
            np.put_along_axis(rows_bar, order[..., high : high + 1], y_bar_rows / 2, axis=-1)
        return (NoTangent(), project_x(scatter_reduced(rows_bar, shape, axes)), *option_bars)

    return y, median_pullback


# -- forward rules: `frule((f_dot, x_dot, *option_dots), x, *options) -> (y, y_dot)` -------


def _frule(primal: Any, parameters: tuple[str, ...], tangent: Any) -> RuleFn:
    """The forward rule of a reduction whose tangent, linear in `x_dot`, is
    `tangent(x, y, x_dot, options by name)`, plus, where the call passes `initial` by
    position, `initial_tangent` of its tangent; zero tangents give `ZeroTangent()`."""

    def frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> Any:
        given = _call_options(parameters, options, keywords)
        y, x_dot = primal(x, *options, **keywords), operand_tangent(dargs[1], x)
        at = initial_at(parameters, options) if "initial" in parameters else None
        initial_dot = ZeroTangent() if at is None else unthunk(dargs[2 + at])
        if initial_dot is None or isinstance(initial_dot, NoTangent):
            initial_dot = ZeroTangent()
        if isinstance(x_dot, AbstractZero) and isinstance(initial_dot, AbstractZero):
            return y, ZeroTangent()
        if x.__class__ is not np.ndarray and isinstance(x, np.ndarray):
            refuse_foreign(x)  # a masked array's reduction skips its masked elements
        if isinstance(x_dot, AbstractZero):
            y_dot: Any = np.zeros(np.shape(y), dtype=np.result_type(y, 1.0))
        else:
            y_dot = tangent(x, y, np.asarray(x_dot), given)
        if not isinstance(initial_dot, AbstractZero):
            y_dot = y_dot + initial_tangent(primal, x, y, given, initial_dot)
        return y, as_result(y_dot, y)

    return named(frule, f"{primal_name(primal)}_frule")


def _summed(x_dot: Any, g: dict[str, Any], reduce: Any = np.sum) -> Any:
    """`reduce(x_dot)` with the call's options `g`, less `initial` (an added constant)."""
    return reduce(x_dot, **{k: g[k] for k in ("axis", "dtype", "keepdims") if k in g})


def _prod_tangent(x: Any, y: Any, x_dot: np.ndarray, g: dict[str, Any]) -> Any:
    axes = reduced_axes(g.get("axis"), x_dot.ndim)
    others = products_of_others(x, axes, g.get("initial", _ABSENT))
    return np.sum(others * gather_reduced(x_dot, axes), axis=-1).reshape(np.shape(y))


def _extremum_tangent(x: Any, y: Any, x_dot: np.ndarray, g: dict[str, Any]) -> Any:
    """The mean of the tied extrema's tangents: the adjoint of the rrule's equal split."""
    axis, keepdims = g.get("axis"), bool(g.get("keepdims"))
    share, _ = extremum_shares(x, y, axis, keepdims, g.get("initial", _ABSENT))
    return np.sum(share * x_dot, axis=reduced_axes(axis, x_dot.ndim), keepdims=keepdims)


def _half_var_tangent(x: Any, x_dot: np.ndarray, g: dict[str, Any]) -> Any:
    """`Re <x - mean, x_dot> / (N - ddof)` over each slice of a call to `np.var` or `np.std`,
    shaped like its result: half the variance's tangent."""
    axis, keepdims, divisor, mean = _moment_options(x, (), g)
    inner = np.real(conj(_centred(x, axis, mean)) * x_dot)
    return np.sum(inner, axis=reduced_axes(axis, x_dot.ndim), keepdims=keepdims) / divisor


def _cumprod_tangent(x: Any, y: Any, x_dot: np.ndarray, g: dict[str, Any]) -> Any:
    """Before a slice's first zero `y * cumsum(x_dot / x)`; from it to the next zero, that
    zero's tangent times the product of the others; then 0. Exact, with zeros too."""
    values, along = cumulative_layout(x, g.get("axis"))
    x_dot, _ = cumulative_layout(x_dot, g.get("axis"))
    zero = values == 0
    first = zero & (np.cumsum(zero, axis=along) == 1)
    ratios = np.where(zero, 0, x_dot / np.where(zero, 1, values))  # y is 0 from a zero on
    at_zero = np.cumsum(np.where(first, x_dot, 0), axis=along)
    return y * np.cumsum(ratios, along) + np.cumprod(np.where(first, 1, values), along) * at_zero


def _median_tangent(x: Any, y: Any, x_dot: np.ndarray, g: dict[str, Any]) -> Any:
    """The tangent of the middle element of each slice, or the mean of the two middle ones."""
    axes = reduced_axes(g.get("axis"), x_dot.ndim)
    order = np.argsort(gather_reduced(np.asarray(x), axes), axis=-1, kind="stable")
    middle = order[..., [(order.shape[-1] - 1) // 2, order.shape[-1] // 2]]
    chosen = np.take_along_axis(gather_reduced(x_dot, axes), middle, axis=-1)
    return np.mean(chosen, axis=-1).reshape(np.shape(y))


# Each reduction's parameters and tangent `(x, y, x_dot, options by name) -> y_dot`.
_TANGENTS: dict[Any, tuple[tuple[str, ...], Any]] = {
    np.sum: (_SUM_PARAMETERS, lambda x, y, d, g: _summed(d, g)),
    np.nansum: (_SUM_PARAMETERS, lambda x, y, d, g: _summed(np.where(np.isnan(x), 0, d), g)),
    np.mean: (_MEAN_PARAMETERS, lambda x, y, d, g: _summed(d, g, np.mean)),
    np.prod: (_SUM_PARAMETERS, _prod_tangent),
    **{f: (_MAX_PARAMETERS, _extremum_tangent) for f in (np.max, np.amax, np.min, np.amin)},
    np.var: (_VAR_PARAMETERS, lambda x, y, d, g: 2.0 * _half_var_tangent(x, d, g)),
    # 0 at a constant slice, as in the rrule.
    np.std: (_VAR_PARAMETERS, lambda x, y, d, g: divide_or_zero(_half_var_tangent(x, d, g), y)),
    np.cumsum: (_CUMULATIVE_PARAMETERS, lambda x, y, d, g: _summed(d, g, np.cumsum)),
    np.cumprod: (_CUMULATIVE_PARAMETERS, _cumprod_tangent),
    np.median: (_MEDIAN_PARAMETERS, _median_tangent),
}
for _primal, (_parameters, _tangent) in _TANGENTS.items():
    rules.frule(_primal)(_frule(_primal, _parameters, _tangent))


@rules.frule(np.average)
def average_frule(dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any) -> Any:
    """Forward rule for `np.average`: weights passed by position have a tangent (`weights=`
    is a constant), which also reaches the sum of the weights when `returned=True`."""
    result = np.average(a, *options, **keywords)
    given = dict(zip(_AVERAGE_PARAMETERS, options, strict=False)) | keywords
    axis, keepdims, weights = given.get("axis"), bool(given.get("keepdims")), given.get("weights")
    a_dot = operand_tangent(dargs[1], a)
    w_dot = unthunk(dargs[3]) if len(options) >= 2 and weights is not None else ZeroTangent()
    if isinstance(a_dot, AbstractZero) and isinstance(w_dot, AbstractZero):
        return result, ZeroTangent()
    returned = bool(given.get("returned"))
    shape, axes = np.shape(a), reduced_axes(axis, np.ndim(a))
    w = 1.0 if weights is None else _broadcast_weights(np.asarray(weights), shape, axis)
    total = np.sum(np.broadcast_to(w, shape), axis=axes, keepdims=True)
    # d average = (sum(w da) + sum(dw (a - average))) / total; d total = sum(dw).
    dots: list[Any] = [ZeroTangent(), ZeroTangent()]
    if not isinstance(a_dot, AbstractZero):
        dots[0] = np.sum(w * np.asarray(a_dot), axis=axes, keepdims=True) / total
    if not isinstance(w_dot, AbstractZero):
        w_dot = np.broadcast_to(_broadcast_weights(np.asarray(w_dot), shape, axis), shape)
        average = with_reduced_axes(result[0] if returned else result, shape, axis, keepdims)
        centred = np.asarray(a) - average
        dots[0] = dots[0] + np.sum(w_dot * centred, axis=axes, keepdims=True) / total
        dots[1] = np.sum(w_dot, axis=axes, keepdims=True)
    for k, y in enumerate(result if returned else (result,)):
        if not isinstance(dots[k], AbstractZero):
            dots[k] = as_result(dots[k] if keepdims else np.squeeze(dots[k], axes), y)
    return result, Tangent(tuple, *dots) if returned else dots[0]


# -- the facts of the reductions above: result kind, inline derivative, linearity -----------


def whole_reduction(text: str, uniform: str, over_axes: str) -> Inline:
    """The inline derivative of a reduction of a whole array to a float: the cotangent
    `text` of the array, or `uniform`, a float standing for an array filled with it, where
    the pullback keeps it uniform (see `passes/inlining.py`). Of a float: the identity.
    Over axes (the constant options `axis` and `keepdims`): the helper `over_axes` spreads
    the cotangent back over the reduced axes. Linear: of a complex array, the same."""

    def cotangents(kinds: Any, constants: Any) -> list[str | None] | None:
        if len(kinds) != 1:
            return None
        return [text if kinds[0][1] > 0 else "y_bar"]

    def with_options(kinds: Any, constants: Any, options: Any) -> list[str | None] | None:
        found = reduced_by_options(kinds, options)
        if found is None:
            return None
        return [f"{over_axes}(y_bar, a, {found[0]!r}, {found[1]!r})"]

    helpers = {"fill_like": fill_like, over_axes: _OVER_AXES[over_axes]}
    return Inline(cotangents, uniform=uniform, options=with_options, complex=cotangents, **helpers)


_OVER_AXES = {"spread_sum": spread_sum, "spread_mean": spread_mean}


# `initial=` passed by position, where the rules differentiate it (`initial_at`): a sum's,
# a product's, an extremum's. (NumPy's `keepdims` default is its private `_NoValue`.)
for _reduction in dict.fromkeys((np.sum, np.nansum, np.prod, np.max, np.amax, np.min, np.amin)):
    rules.keywords_by_position(_reduction, "initial", defaults={"keepdims": False})
# Linear in `x` and in `initial` together (affine in `x` alone): its forward rule's reverse
# rule pulls the tangent back through its own pullback, `initial`'s tangent too.
rules.primitive(
    np.sum,
    result=REDUCED_TO_FLOAT,
    inline=whole_reduction("fill_like(a, y_bar)", uniform="y_bar", over_axes="spread_sum"),
    linearity=Linearity.LINEAR_IN_ALL,
)
rules.primitive(
    np.mean,
    result=REDUCED_TO_FLOAT,
    inline=whole_reduction(
        "fill_like(a, y_bar / a.size)", uniform="y_bar / a.size", over_axes="spread_mean"
    ),
    linearity=Linearity.LINEAR,
)
rules.primitive(np.cumsum, linearity=Linearity.LINEAR)
# The tangent of the extrema (or of the middle elements) chosen, or of the numbers that are
# not NaN: piecewise linear, for second derivatives (`rules/second_order.py`).
_EXTREMUM_INLINE = Inline(
    extremum_templates, options=extremum_templates, extremum_cotangent=extremum_cotangent
)
for _choosing in (np.max, np.amax, np.min, np.amin):
    rules.primitive(
        _choosing,
        result=EXTREMUM_OF_ARRAY,
        inline=_EXTREMUM_INLINE,
        linearity=Linearity.PIECEWISE_LINEAR,
    )
for _choosing_any in (np.median, np.nansum):
    rules.primitive(_choosing_any, linearity=Linearity.PIECEWISE_LINEAR)


# -- definitions, for second derivatives (`Primitive.definition`) -----------------------------


def variance(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
             keepdims: Any = False) -> Any:  # fmt: skip
    """`np.var` from sums: the mean squared distance from the mean, over `N - ddof`. (The
    options are passed by position: reverse mode over its forward rule differentiates
    every parameter, and a rule's positional options get no cotangent.)"""
    centred = a - np.mean(a, axis, None, None, True)
    squares = np.real(centred * np.conj(centred))
    count = np.size(a) // np.size(np.sum(squares, axis))
    return np.sum(squares, axis, None, None, keepdims) / (count - ddof)


def standard_deviation(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                       ddof: Any = 0, keepdims: Any = False) -> Any:  # fmt: skip
    """`np.std`: the square root of `variance`."""
    return np.sqrt(variance(a, axis, dtype, out, ddof, keepdims))


rules.primitive(np.var, definition=variance)
rules.primitive(np.std, definition=standard_deviation)

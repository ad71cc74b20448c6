"""Rules for NumPy's sampling, differencing and integrating functions: `linspace`,
`logspace`, `arange`, `gradient`, `trapezoid` and `interp`.

`linspace` is linear in its end points (`logspace` is `base ** linspace`, by definition),
`gradient` in its samples (at fixed spacing), and `trapezoid` bilinear in the samples and
the spacings; `interp` is piecewise linear in the point and linear in the sampled values.
At a sample point `interp`'s slope is the one of the segment NumPy reads there (the
segment to its right, the last one at the end).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.projection import ProjectTo, conj, operand_tangent, unbroadcast
from srcad.registry import RuleSet
from srcad.rules._support import by_definition, integer_valued
from srcad.rules.containers import dense_tangent
from srcad.rules.numpy_arrangement import first_difference_adjoint, linear_frule_rrule
from srcad.rules.numpy_shape import bind_options
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_calculus")

Pullback = Any

_LINSPACE_PARAMETERS = ("num", "endpoint", "retstep", "dtype", "axis")


def _linspace_weights(y: np.ndarray, given: dict[str, Any]) -> Any:
    """The weight `t` of `stop` in each sample (`y = (1 - t) start + t stop`), shaped to
    broadcast against `y`, and `1 / div`, the weight of `stop - start` in the step."""
    num = int(given.get("num", 50))
    endpoint = bool(given.get("endpoint", True))
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    axis = int(given.get("axis", 0)) % y.ndim
    div = num - 1 if endpoint else num
    return np.reshape(t, [-1 if a == axis else 1 for a in range(y.ndim)]), axis, div


rules.keywords_by_position(np.linspace, "start", "stop")


def numpy_logspace(start: Any, stop: Any, num: Any = 50, endpoint: Any = True,
                   base: Any = 10.0, dtype: Any = None, axis: Any = 0) -> Any:  # fmt: skip
    """`np.logspace`: `base` to the powers `np.linspace(start, stop, num, endpoint)` (a
    number `base`, no `dtype`: those are refused)."""
    if dtype is not None or np.ndim(base) != 0:
        raise UnsupportedCallError("srcad has no rule for np.logspace with dtype= or an array base")
    return np.power(base, np.linspace(start, stop, num, endpoint, False, None, axis))


by_definition(rules, np.logspace, numpy_logspace)
rules.keywords_by_position(np.logspace, "start", "stop", "base")


@rules.rrule(np.linspace)
def linspace_rrule(start: Any, stop: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linspace(start, stop, num, endpoint, retstep, dtype, axis)`:
    `start_bar` and `stop_bar` sum the output cotangent weighted by `1 - t` and `t` (and
    the step's, by `-1/div` and `1/div`, with `retstep`). Array end points included."""
    result = np.linspace(start, stop, *options, **keywords)
    given = bind_options(_LINSPACE_PARAMETERS, options, keywords)
    retstep = bool(given.get("retstep", False))
    y = result[0] if retstep else result
    t, axis, div = _linspace_weights(y, given)
    project_start, project_stop = ProjectTo(start), ProjectTo(stop)
    option_bars = (NoTangent(),) * len(options)

    def linspace_pullback(result_bar: Any) -> tuple[Any, ...]:
        result_bar = unthunk(result_bar)
        y_bar, step_bar = (
            (unthunk(result_bar[0]), unthunk(result_bar[1])) if retstep else (result_bar, None)
        )
        if isinstance(result_bar, AbstractZero):
            return (NoTangent(), result_bar, result_bar, *option_bars)
        start_bar: Any = 0.0
        stop_bar: Any = 0.0
        if not isinstance(y_bar, AbstractZero):
            y_bar = np.asarray(y_bar)
            start_bar = np.sum((1.0 - t) * y_bar, axis=axis)
            stop_bar = np.sum(t * y_bar, axis=axis)
        if step_bar is not None and not isinstance(step_bar, AbstractZero) and div > 0:
            start_bar = start_bar - np.asarray(step_bar) / div
            stop_bar = stop_bar + np.asarray(step_bar) / div
        return (NoTangent(), project_start(unbroadcast(np.asarray(start_bar), np.shape(start))),
                project_stop(unbroadcast(np.asarray(stop_bar), np.shape(stop))),
                *option_bars)  # fmt: skip

    return result, linspace_pullback


@rules.frule(np.linspace)
def linspace_frule(
    dargs: tuple[Any, ...], start: Any, stop: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.linspace`: linear in the end points, so the tangents' own
    `linspace` (and its step, with `retstep`)."""
    result = np.linspace(start, stop, *options, **keywords)
    start_dot, stop_dot = unthunk(dargs[1]), unthunk(dargs[2])
    if isinstance(start_dot, AbstractZero) and isinstance(stop_dot, AbstractZero):
        return result, ZeroTangent()
    dots = dense_tangent(start_dot, start), dense_tangent(stop_dot, stop)
    tangent = np.linspace(*dots, *options, **keywords)
    if integer_valued(result[0] if isinstance(result, tuple) else result):  # `dtype=int`
        return result, (ZeroTangent(), tangent[1]) if isinstance(result, tuple) else ZeroTangent()
    return result, tangent


rules.rrule(linspace_frule)(linear_frule_rrule(linspace_rrule, linspace_frule, "linspace"))


# --- gradient: linear in the samples -----------------------------------------------------------

_STENCIL_PERIOD = 5  # each result reads at most 3 neighbouring samples, within i - 2 .. i + 2


def _gradient_adjoint_along(g: np.ndarray, spacing: Any, edge_order: Any, axis: int) -> Any:
    """The adjoint, along `axis`, of `np.gradient(., spacing, edge_order=edge_order)` (one
    axis, its spacing a scalar or the coordinates), applied to the cotangent `g`.

    Each result reads samples among its neighbours `i - 2 .. i + 2`, so the coefficient it
    gives sample `j` is the gradient of the comb of ones at the positions `= j (mod 5)`:
    five gradients give the whole banded matrix, whose transpose is applied by scattering.
    """
    n = g.shape[axis]
    moved = np.moveaxis(g, axis, 0)
    result = np.zeros(moved.shape, dtype=np.result_type(g, 1.0))
    positions = np.arange(n)
    for residue in range(_STENCIL_PERIOD):
        comb = (positions % _STENCIL_PERIOD == residue).astype(float)
        coefficients = np.gradient(comb, spacing, edge_order=edge_order)
        read = positions - 2 + (residue - (positions - 2)) % _STENCIL_PERIOD
        inside = (read >= 0) & (read < n)
        weights = coefficients[inside].reshape((-1,) + (1,) * (moved.ndim - 1))
        np.add.at(result, read[inside], weights * moved[inside])
    return np.moveaxis(result, 0, axis)


def _gradient_axes(f: Any, given: dict[str, Any]) -> list[int]:
    axis = given.get("axis")
    ndim = np.ndim(f)
    if axis is None:
        return list(range(ndim))
    return [int(a) % ndim for a in (axis if isinstance(axis, tuple | list) else (axis,))]


_COMPLEX_STEP = 1e-20


def _along_coordinates(
    f: Any, coordinates: Any, direction: np.ndarray, edge_order: Any, axis: int
) -> Any:
    """The derivative of `np.gradient(f, coordinates, axis=axis)` as the coordinates move
    along `direction`, by a complex step: the result is a rational function of the
    coordinates, so the imaginary part of its value at `coordinates + i h direction`,
    over `h`, is that derivative to rounding, whatever `h` this small. The gradient is
    linear in `f`, so a complex `f` is stepped one part at a time."""
    moved = np.asarray(coordinates, dtype=float) + 1j * _COMPLEX_STEP * direction
    f = np.asarray(f)
    parts = [(np.real(f), 1.0), (np.imag(f), 1j)] if np.iscomplexobj(f) else [(f, 1.0)]
    total: Any = 0.0
    for part, unit in parts:
        stepped = np.gradient(part.astype(complex), moved, axis=axis, edge_order=edge_order)
        total = total + unit * np.imag(stepped) / _COMPLEX_STEP
    return total


def _coordinates_cotangent(
    g: np.ndarray, f: Any, coordinates: Any, edge_order: Any, axis: int
) -> np.ndarray:
    """The cotangent of the coordinates of `np.gradient(f, coordinates, axis=axis)` for
    the result's cotangent `g`. A result reads coordinates among `i - 2 .. i + 2` (as
    `_gradient_adjoint_along` explains), so moving the comb of coordinates `= r (mod 5)`
    moves each result by the derivative in one coordinate: five complex steps give them
    all, summed into the coordinates they belong to."""
    n = np.shape(f)[axis]
    positions = np.arange(n)
    coordinates_bar = np.zeros(n)
    for residue in range(_STENCIL_PERIOD):
        comb = (positions % _STENCIL_PERIOD == residue).astype(float)
        moved = _along_coordinates(f, coordinates, comb, edge_order, axis)
        per_result = np.real(np.conj(g) * moved)
        per_result = np.sum(np.moveaxis(per_result, axis, 0).reshape(n, -1), axis=1)
        read = positions - 2 + (residue - (positions - 2)) % _STENCIL_PERIOD
        inside = (read >= 0) & (read < n)
        np.add.at(coordinates_bar, read[inside], per_result[inside])
    return coordinates_bar


def _spacings(varargs: tuple[Any, ...], count: int) -> list[Any]:
    """One spacing per differentiated axis, as `np.gradient` reads `varargs`."""
    if not varargs:
        return [1.0] * count
    return list(varargs) * count if len(varargs) == 1 else list(varargs)


@rules.rrule(np.gradient)
def gradient_rrule(f: Any, *varargs: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.gradient(f, *varargs, axis=None, edge_order=1)`: the samples get
    the adjoint of each axis's difference stencil; a scalar spacing `h` (a result is
    proportional to `1 / h`) gets `-<result_bar, result> / h`, coordinates the cotangent
    `_coordinates_cotangent` finds."""
    result = np.gradient(f, *varargs, **keywords)
    axes = _gradient_axes(f, keywords)
    spacings = _spacings(varargs, len(axes))
    edge_order = int(keywords.get("edge_order", 1))
    results = [result] if len(axes) == 1 else list(result)
    project_f = ProjectTo(f)
    projections = [ProjectTo(v) for v in varargs]

    def gradient_pullback(result_bar: Any) -> tuple[Any, ...]:
        result_bar = unthunk(result_bar)
        if isinstance(result_bar, AbstractZero):
            return (NoTangent(), result_bar, *(result_bar for _ in varargs))
        bars = [result_bar] if len(axes) == 1 else [unthunk(b) for b in result_bar]
        f_bar = np.zeros(np.shape(f), dtype=np.result_type(f, 1.0))
        spacing_bars: list[Any] = [0.0] * len(axes)
        for k, (bar, axis, h, value) in enumerate(zip(bars, axes, spacings, results, strict=True)):
            if isinstance(bar, AbstractZero):
                continue
            bar = np.asarray(bar)
            f_bar = f_bar + _gradient_adjoint_along(bar, h, edge_order, axis)
            if np.ndim(h) == 0:
                spacing_bars[k] = -np.real(np.sum(conj(bar) * value)) / h
            else:
                spacing_bars[k] = _coordinates_cotangent(bar, f, h, edge_order, axis)
        if not varargs:
            varargs_bars = []
        elif len(varargs) == 1:
            varargs_bars = [projections[0](sum(spacing_bars))]
        else:
            varargs_bars = [p(b) for p, b in zip(projections, spacing_bars, strict=True)]
        return (NoTangent(), project_f(f_bar), *varargs_bars)

    return result, gradient_pullback


@rules.frule(np.gradient)
def gradient_frule(dargs: tuple[Any, ...], f: Any, *varargs: Any, **keywords: Any) -> Any:
    """Forward rule for `np.gradient`: the gradient of the samples' tangent, less each
    result times its spacing's relative tangent (for coordinates, plus the derivative
    along their tangent, `_along_coordinates`)."""
    result = np.gradient(f, *varargs, **keywords)
    f_dot = operand_tangent(dargs[1], f)
    spacing_dots = [unthunk(d) for d in dargs[2 : 2 + len(varargs)]]
    if isinstance(f_dot, AbstractZero) and all(isinstance(d, AbstractZero) for d in spacing_dots):
        return result, ZeroTangent()
    axes = _gradient_axes(f, keywords)
    spacings = _spacings(varargs, len(axes))
    dots = _spacings(tuple(spacing_dots), len(axes)) if varargs else [ZeroTangent()] * len(axes)
    derivative = np.gradient(dense_tangent(f_dot, f), *varargs, **keywords)
    values = [result] if len(axes) == 1 else list(result)
    derivatives = [derivative] if len(axes) == 1 else list(derivative)
    edge_order = keywords.get("edge_order", 1)
    tangents = [
        d if isinstance(h_dot, AbstractZero)
        else d - v * (h_dot / h) if np.ndim(h) == 0
        else d + _along_coordinates(f, h, np.asarray(h_dot), edge_order, axis)
        for d, v, h, h_dot, axis in zip(derivatives, values, spacings, dots, axes, strict=True)
    ]  # fmt: skip
    return result, tangents[0] if len(axes) == 1 else tuple(tangents)


def _real_inner(a: Any, b: Any) -> Any:
    return np.real(np.sum(np.conj(a) * b))


@rules.rrule(gradient_frule)
def gradient_frule_rrule(
    dargs: tuple[Any, ...], f: Any, *varargs: Any, **keywords: Any
) -> tuple[Any, Pullback]:
    """Reverse rule of `gradient_frule` (second derivatives). Along axis `k`, with `G_k` the
    gradient at unit spacing and `h_k` the spacing: `y_k = G_k f / h_k` and
    `y_dot_k = G_k f_dot / h_k - y_k h_dot_k / h_k`, differentiated in `f`, `f_dot`, `h_k`
    and `h_dot_k`; `G_k`'s adjoint is `_gradient_adjoint_along` at unit spacing. Spacings
    given as coordinates are refused here: second derivatives in them are not implemented."""
    if any(np.ndim(v) > 0 for v in varargs):
        raise UnsupportedCallError(
            "srcad has first derivatives of np.gradient with coordinate arrays, but not "
            "second derivatives"
        )
    result, result_dot = gradient_frule(dargs, f, *varargs, **keywords)
    axes = _gradient_axes(f, keywords)
    spacings = _spacings(varargs, len(axes))
    edge_order = keywords.get("edge_order", 1)
    f_dot = dense_tangent(unthunk(dargs[1]), f)
    h_dots = [unthunk(d) for d in dargs[2 : 2 + len(varargs)]]
    h_dots = [0.0 if isinstance(d, AbstractZero) else d for d in h_dots]
    h_dots_per_axis = _spacings(tuple(h_dots), len(axes)) if varargs else [0.0] * len(axes)
    units = [np.gradient(f, axis=k, edge_order=edge_order) for k in axes]
    unit_dots = [np.gradient(f_dot, axis=k, edge_order=edge_order) for k in axes]
    project_f = ProjectTo(f)
    projections = [ProjectTo(v) for v in varargs]

    def gradient_frule_pullback(bars: Any) -> tuple[Any, ...]:
        y_bar, y_dot_bar = elements_of(unthunk(bars), 2)
        per_axis = []
        for bar in (y_bar, y_dot_bar):
            bar = unthunk(bar)
            parts = [bar] if len(axes) == 1 else [unthunk(b) for b in elements_of(bar, len(axes))]
            per_axis.append([
                np.zeros(np.shape(f)) if isinstance(b, AbstractZero) else np.asarray(b)
                for b in parts
            ])  # fmt: skip
        f_bar = np.zeros(np.shape(f), dtype=np.result_type(f, 1.0))
        f_dot_bar = np.zeros_like(f_bar)
        h_bars, h_dot_bars = [], []
        for k, axis in enumerate(axes):
            g, g_dot = per_axis[0][k], per_axis[1][k]
            h, h_dot, unit, unit_dot = spacings[k], h_dots_per_axis[k], units[k], unit_dots[k]
            adjoint = _gradient_adjoint_along(g, 1.0, edge_order, axis)
            adjoint_dot = _gradient_adjoint_along(g_dot, 1.0, edge_order, axis)
            f_bar = f_bar + adjoint / h - adjoint_dot * h_dot / h**2
            f_dot_bar = f_dot_bar + adjoint_dot / h
            h_bars.append(
                -_real_inner(g, unit) / h**2 - _real_inner(g_dot, unit_dot) / h**2
                + 2.0 * _real_inner(g_dot, unit) * h_dot / h**3
            )  # fmt: skip
            h_dot_bars.append(-_real_inner(g_dot, unit) / h**2)
        if len(varargs) == 1:
            h_bars, h_dot_bars = [sum(h_bars)], [sum(h_dot_bars)]
        varargs_bars = [p(b) for p, b in zip(projections, h_bars, strict=False)]
        varargs_dot_bars = [p(b) for p, b in zip(projections, h_dot_bars, strict=False)]
        dargs_bar = Tangent(tuple, NoTangent(), project_f(f_dot_bar), *varargs_dot_bars)
        return (NoTangent(), dargs_bar, project_f(f_bar), *varargs_bars)

    return (result, result_dot), gradient_frule_pullback


# --- trapezoid: bilinear in the samples and the spacings ---------------------------------------


def _trapezoid_parts(y: Any, x: Any, dx: Any, axis: int) -> tuple[np.ndarray, Any]:
    """The spacings `d` (shaped to broadcast along `axis`, as NumPy shapes them) and the
    mean of each pair of neighbouring samples."""
    y = np.asarray(y)
    n = y.shape[axis]
    mean = (np.take(y, np.arange(1, n), axis) + np.take(y, np.arange(n - 1), axis)) / 2.0
    if x is None:
        return mean, dx
    x = np.asarray(x)
    if x.ndim == 1:
        d = np.diff(x)
        return mean, np.reshape(d, [-1 if a == axis % y.ndim else 1 for a in range(y.ndim)])
    return mean, np.diff(x, axis=axis)


def _trapezoid_arguments(options: tuple[Any, ...], keywords: dict[str, Any]) -> tuple[Any, ...]:
    given = bind_options(("x", "dx", "axis"), options, keywords)
    return given.get("x"), given.get("dx", 1.0), int(given.get("axis", -1))


rules.keywords_by_position(np.trapezoid, "y", "x", "dx")


@rules.rrule(np.trapezoid)
def trapezoid_rrule(y: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.trapezoid(y, x=None, dx=1.0, axis=-1)`, `sum(d * mean)` along
    `axis`: `y`, and `x` or `dx` when passed by position, are differentiated."""
    result = np.trapezoid(y, *options, **keywords)
    x, dx, axis = _trapezoid_arguments(options, keywords)
    mean, d = _trapezoid_parts(y, x, dx, axis)
    axis = axis % mean.ndim
    n = np.shape(y)[axis]
    project_y = ProjectTo(y)
    projections = [ProjectTo(o) for o in options]

    def trapezoid_pullback(result_bar: Any) -> tuple[Any, ...]:
        result_bar = unthunk(result_bar)
        if isinstance(result_bar, AbstractZero):
            return (NoTangent(), result_bar, *(result_bar for _ in options))
        g = np.expand_dims(np.asarray(result_bar), axis)
        pair_bar = g * conj(d) / 2.0  # the cotangent of each sum of neighbours
        width = [(0, 0)] * pair_bar.ndim
        width[axis] = (1, 1)
        padded = np.pad(np.broadcast_to(pair_bar, mean.shape), width)
        y_bar = np.take(padded, np.arange(1, n + 1), axis) + np.take(padded, np.arange(n), axis)
        d_bar = g * conj(mean)
        option_bars: list[Any] = [NoTangent()] * len(options)
        if options and x is not None:  # x by position: d = diff(x), or diff(x, axis=axis)
            if np.ndim(x) == 1:
                others = tuple(a for a in range(d_bar.ndim) if a != axis)
                x_bar = first_difference_adjoint(np.sum(d_bar, axis=others), 0)
            else:
                x_bar = first_difference_adjoint(unbroadcast(d_bar, np.shape(d)), axis)
            option_bars[0] = projections[0](x_bar)
        elif len(options) > 1 and x is None:  # dx by position
            option_bars[1] = projections[1](unbroadcast(d_bar, np.shape(dx)))
        return (NoTangent(), project_y(y_bar), *option_bars)

    return result, trapezoid_pullback


@rules.frule(np.trapezoid)
def trapezoid_frule(dargs: tuple[Any, ...], y: Any, *options: Any, **keywords: Any) -> Any:
    """Forward rule for `np.trapezoid`: the rule of the samples' tangent, plus the sum of
    the spacings' tangents times the mean samples."""
    result = np.trapezoid(y, *options, **keywords)
    x, dx, axis = _trapezoid_arguments(options, keywords)
    y_dot = operand_tangent(dargs[1], y)
    option_dots = [unthunk(d) for d in dargs[2 : 2 + len(options)]]
    result_dot: Any = ZeroTangent()
    if not isinstance(y_dot, AbstractZero):
        result_dot = np.trapezoid(y_dot, *options, **keywords)
    mean, _ = _trapezoid_parts(y, x, dx, axis)
    if options and x is not None and not isinstance(option_dots[0], AbstractZero):
        _, d_dot = _trapezoid_parts(y, option_dots[0], dx, axis)
        result_dot = result_dot + np.sum(d_dot * mean, axis=axis)
    elif len(options) > 1 and x is None and not isinstance(option_dots[1], AbstractZero):
        result_dot = result_dot + np.sum(option_dots[1] * mean, axis=axis)
    return result, result_dot


@rules.rrule(trapezoid_frule)
def trapezoid_frule_rrule(
    dargs: tuple[Any, ...], y: Any, *options: Any, **keywords: Any
) -> tuple[Any, Pullback]:
    """Reverse rule of `trapezoid_frule` (second derivatives). `np.trapezoid` is linear in
    each of its differentiated arguments apart (`y`, and `x` or `dx` by position: the
    result is bilinear in the samples and the spacings), so its tangent is the sum over
    the arguments of the rule with that argument replaced by its tangent; each term pulls
    back through `trapezoid_rrule`, its cotangent for the replaced argument going to that
    argument's tangent."""
    args = (y, *options)
    result, pullback = trapezoid_rrule(*args, **keywords)
    dots = [unthunk(d) for d in dargs[1 : 1 + len(args)]]
    moving = [i for i, d in enumerate(dots) if not isinstance(d, AbstractZero | NoTangent)]
    result_dot: Any = ZeroTangent()
    terms = []
    for i in moving:
        replaced = (*args[:i], dots[i], *args[i + 1 :])
        term, term_pullback = trapezoid_rrule(*replaced, **keywords)
        result_dot = result_dot + term
        terms.append((i, term_pullback))

    def trapezoid_frule_pullback(bars: Any) -> tuple[Any, ...]:
        result_bar, result_dot_bar = elements_of(unthunk(bars), 2)
        args_bars = list(pullback(result_bar)[1:])
        dots_bars: list[Any] = [ZeroTangent()] * len(args)
        for i, term_pullback in terms:
            term_bars = term_pullback(result_dot_bar)[1:]
            for j, bar in enumerate(term_bars):
                if j == i:
                    dots_bars[j] = bar
                elif not isinstance(bar, AbstractZero | NoTangent):
                    args_bars[j] = bar if isinstance(args_bars[j], AbstractZero) else (
                        args_bars[j] + bar)  # fmt: skip
        dargs_bar = Tangent(tuple, NoTangent(), *dots_bars)
        return (NoTangent(), dargs_bar, *args_bars)

    return (result, result_dot), trapezoid_frule_pullback


# --- interp: piecewise linear --------------------------------------------------------------------

_INTERP_PARAMETERS = ("xp", "fp", "left", "right", "period")


def _interp_segments(x: Any, xp: Any, fp: Any) -> tuple[Any, ...]:
    """For each point: the segment `j` NumPy reads (`xp[j] <= x < xp[j + 1]`, the last one
    at the end), the position `t` in it, its slope, where the point lies below or above
    the samples (where `left` and `right` are returned), and the segment's width.

    A segment of no width (a repeated sample, `xp = [0, 0, 1]`) is read only by a point
    outside the samples (whose derivatives are the ends'), or by `x == xp[-1]` at a repeated
    last sample (`fp[-1]`): it gets the slope 0, `t = 1` and the width 1, never `0 / 0`,
    which the pullbacks' zeros outside would have multiplied into NaN."""
    x, xp, fp = np.asarray(x, dtype=float), np.asarray(xp, dtype=float), np.asarray(fp)
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    flat = xp[j + 1] == xp[j]
    width = np.where(flat, 1.0, xp[j + 1] - xp[j])
    t = np.where(flat, 1.0, (x - xp[j]) / width)
    slope = np.where(flat, 0.0, (fp[j + 1] - fp[j]) / width)
    below, above = x < xp[0], x > xp[-1]
    return j, t, slope, below, above, width


rules.keywords_by_position(np.interp, "x", "xp", "fp", "left", "right")


@rules.rrule(np.interp)
def interp_rrule(x: Any, xp: Any, fp: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.interp(x, xp, fp, left=None, right=None, period=None)` with at
    least two samples: `x`, `xp`, `fp`, and `left`/`right` passed by position, are
    differentiated. Inside the samples `y = fp[j] + t (fp[j+1] - fp[j])`, so `x` gets the
    slope, `fp[j]` and `fp[j+1]` the weights `1 - t` and `t`, `xp[j]` and `xp[j+1]` the
    slope times `t - 1` and `-t`; outside, `y` is `left` (or `fp[0]`) or `right` (or
    `fp[-1]`). `period` is refused."""
    given = bind_options(_INTERP_PARAMETERS[2:], options, keywords)
    if given.get("period") is not None:
        raise UnsupportedCallError("srcad has no rule for np.interp with `period`")
    y = np.interp(x, xp, fp, *options, **keywords)
    j, t, slope, below, above, _ = _interp_segments(x, xp, fp)
    inside = ~(below | above)
    n = len(np.asarray(xp))
    projections = [ProjectTo(a) for a in (x, xp, fp, *options)]

    def interp_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, y_bar, y_bar, *(y_bar for _ in options))
        g = np.asarray(y_bar, dtype=np.result_type(y_bar, 1.0))
        g_in = np.where(inside, g, 0.0)
        x_bar = np.real(conj(slope) * g_in)
        fp_bar = np.zeros(n, dtype=np.result_type(g, np.asarray(fp), 1.0))
        np.add.at(fp_bar, j, (1.0 - t) * g_in)
        np.add.at(fp_bar, j + 1, t * g_in)
        xp_bar = np.zeros(n)
        np.add.at(xp_bar, j, np.real(conj(slope) * g_in) * (t - 1.0))
        np.add.at(xp_bar, j + 1, -np.real(conj(slope) * g_in) * t)
        ends = [np.sum(np.where(below, g, 0.0)), np.sum(np.where(above, g, 0.0))]
        end_bars: list[Any] = [NoTangent()] * len(options)
        for k, (end, index) in enumerate(zip(ends, (0, n - 1), strict=True)):
            if k < len(options) and options[k] is not None:
                end_bars[k] = projections[3 + k](end)
            else:
                fp_bar[index] += end
        bars = [p(b) for p, b in zip(projections, (x_bar, xp_bar, fp_bar), strict=False)]
        return (NoTangent(), *bars, *end_bars)

    return y, interp_pullback


@rules.frule(np.interp)
def interp_frule(
    dargs: tuple[Any, ...], x: Any, xp: Any, fp: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.interp` (see `interp_rrule`)."""
    given = bind_options(_INTERP_PARAMETERS[2:], options, keywords)
    if given.get("period") is not None:
        raise UnsupportedCallError("srcad has no rule for np.interp with `period`")
    y = np.interp(x, xp, fp, *options, **keywords)
    dots = [unthunk(d) for d in dargs[1 : 4 + len(options)]]
    if all(isinstance(d, AbstractZero) for d in dots):
        return y, ZeroTangent()
    x_dot, xp_dot, fp_dot = (dense_tangent(d, a) for d, a in zip(dots, (x, xp, fp), strict=False))
    j, t, slope, below, above, _ = _interp_segments(x, xp, fp)
    fp_dot = np.asarray(fp_dot)
    xp_dot = np.asarray(xp_dot, dtype=float)
    moved = fp_dot[j] + t * (fp_dot[j + 1] - fp_dot[j])
    moved = moved + slope * (x_dot - xp_dot[j] - t * (xp_dot[j + 1] - xp_dot[j]))
    ends = []
    for k, index in enumerate((0, -1)):
        given_end = k < len(options) and options[k] is not None
        ends.append(dense_tangent(dots[3 + k], options[k]) if given_end else fp_dot[index])
    y_dot = np.where(below, ends[0], np.where(above, ends[1], moved))
    return y, y_dot if isinstance(y, np.ndarray) else y_dot[()]


@rules.rrule(interp_frule)
def interp_frule_rrule(
    dargs: tuple[Any, ...], x: Any, xp: Any, fp: Any, *options: Any, **keywords: Any
) -> tuple[Any, Pullback]:
    """Reverse rule of `interp_frule` (second derivatives). The tangent is linear in the
    argument tangents, so they pull back through `interp_rrule`; inside the samples it
    also moves with the arguments, `y_dot = fp_dot[j] + t D_f + slope q` with
    `D_f = fp_dot[j+1] - fp_dot[j]`, `q = x_dot - xp_dot[j] - t (xp_dot[j+1] - xp_dot[j])`:
    its derivatives through `t` and `slope` give the arguments' cotangents from its own.
    Outside the samples it does not move."""
    y, pullback = interp_rrule(x, xp, fp, *options, **keywords)
    _, y_dot = interp_frule(dargs, x, xp, fp, *options, **keywords)
    j, t, slope, below, above, width = _interp_segments(x, xp, fp)
    inside = ~(below | above)
    dots = [unthunk(d) for d in dargs[1:4]]
    x_dot, xp_dot, fp_dot = (
        np.asarray(dense_tangent(d, a)) for d, a in zip(dots, (x, xp, fp), strict=True)
    )
    xp_array = np.asarray(xp, dtype=float)
    moved_xp = xp_dot[j + 1] - xp_dot[j]
    q = x_dot - xp_dot[j] - t * moved_xp
    turn = (fp_dot[j + 1] - fp_dot[j]) - slope * moved_xp  # D_f - slope (xp_dot[j+1] - xp_dot[j])
    n = len(xp_array)
    project_x, project_xp, project_fp = ProjectTo(x), ProjectTo(xp), ProjectTo(fp)

    def interp_frule_pullback(bars: Any) -> tuple[Any, ...]:
        y_bar, y_dot_bar = elements_of(unthunk(bars), 2)
        _, *argument_bars = pullback(y_bar)
        _, *tangent_bars = pullback(y_dot_bar)
        y_dot_bar = unthunk(y_dot_bar)
        if not isinstance(y_dot_bar, AbstractZero):
            c = np.where(inside, np.asarray(y_dot_bar), 0.0)
            x_part = np.real(np.conj(turn / width) * c)
            xp_j = np.real(np.conj((turn * (t - 1.0) + q * slope) / width) * c)
            xp_next = np.real(np.conj((-turn * t - q * slope) / width) * c)
            fp_next = np.conj(q / width) * c
            xp_bar, fp_bar = np.zeros(n), np.zeros(n, dtype=np.result_type(fp_next, 1.0))
            np.add.at(xp_bar, j, xp_j)
            np.add.at(xp_bar, j + 1, xp_next)
            np.add.at(fp_bar, j + 1, fp_next)
            np.add.at(fp_bar, j, -fp_next)
            parts = (project_x(x_part), project_xp(xp_bar), project_fp(fp_bar))
            argument_bars[:3] = [
                part if isinstance(bar, AbstractZero) else bar + part
                for bar, part in zip(argument_bars[:3], parts, strict=True)
            ]
        dargs_bar = Tangent(tuple, NoTangent(), *tangent_bars)
        return (NoTangent(), dargs_bar, *argument_bars)

    return (y, y_dot), interp_frule_pullback


# --- arange: affine in its start and step ------------------------------------------------------


def _arange_positions(args: tuple[Any, ...]) -> tuple[Any, Any]:
    """`np.arange`'s start and step among its positional arguments (None where absent:
    `np.arange(stop)` starts at 0 by steps of 1; the count is flat in every argument)."""
    start = args[0] if len(args) >= 2 else None
    step = args[2] if len(args) >= 3 else None
    return start, step


def _arange_bar(arg: Any, bar: Any) -> Any:
    if arg is None or isinstance(arg, int | np.integer):  # an int cannot be perturbed
        return NoTangent()
    return ProjectTo(arg)(bar)


@rules.rrule(np.arange)
def arange_rrule(*args: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """`np.arange([start,] stop[, step])` is `start + k * step` for `k = 0 .. n - 1`, its
    count `n` flat in every argument: `start_bar` sums the cotangent, `step_bar` weighs it
    by `k`. (NumPy had been taken to have no derivative here: `grad` of
    `np.sum(np.arange(x, x + 2.5, 0.5) ** 2)` was 0.)"""
    y = np.arange(*args, **keywords)
    start, step = _arange_positions(args)

    def arange_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars: list[Any] = [NoTangent()] * len(args)
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero) or integer_valued(y) or len(args) < 2:
            return (NoTangent(), *bars)
        g = np.asarray(y_bar)
        bars[0] = _arange_bar(start, np.sum(g))
        if step is not None:
            bars[2] = _arange_bar(step, np.sum(g * np.arange(y.size)))
        return (NoTangent(), *bars)

    return y, arange_pullback


@rules.frule(np.arange)
def arange_frule(dargs: tuple[Any, ...], *args: Any, **keywords: Any) -> tuple[Any, Any]:
    """`start_dot + k * step_dot` (`arange_rrule`)."""
    y = np.arange(*args, **keywords)
    start, step = _arange_positions(args)
    dots = [unthunk(d) for d in dargs[1:]]
    start_dot = dots[0] if start is not None else ZeroTangent()
    step_dot = dots[2] if step is not None else ZeroTangent()
    if integer_valued(y) or all(isinstance(d, AbstractZero) for d in (start_dot, step_dot)):
        return y, ZeroTangent()
    tangent = np.zeros(y.shape, np.result_type(y, float))
    if not isinstance(start_dot, AbstractZero):
        tangent = tangent + start_dot
    if not isinstance(step_dot, AbstractZero):
        tangent = tangent + np.arange(y.size) * step_dot
    return y, tangent.astype(y.dtype, copy=False)

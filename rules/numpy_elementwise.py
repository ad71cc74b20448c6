"""Rules for NumPy's elementwise functions: the ufuncs (not `np.power` or `np.matmul`: see
operators.py), `np.where`, `np.clip`, `np.real`, `np.imag`, `np.angle` and `np.nan_to_num`.

Most rules come from the ufunc's partial derivatives, in one entry per ufunc
(`rules.primitive`) that also gives its result's kind and, where srcad inlines it, its
derivative as arithmetic (`Inline`). The rules conjugate the partials (ChainRules'
convention `x_bar = y_bar * conj(df/dx)`, right for holomorphic functions of complex
arrays) and project each cotangent onto its argument, undoing broadcasting. The functions
that are not holomorphic (`absolute`, `conjugate`, `real`, `imag`, `angle`), that choose
between their arguments (`maximum`, `fmax`, `clip`, `where`, ...) or that need care at
special points (`float_power`, `sinc`, `heaviside`) say below how they treat complex
numbers, ties and NaNs; NumPy's real-only ufuncs (`fabs`, `cbrt`, `arctan2`, `hypot`, ...)
reject complex inputs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.kinds import (
    FLOAT_ELEMENTWISE,
    FLOAT_UFUNC_OF_TWO_NUMBERS,
    MAGNITUDE,
    PROMOTED_UFUNC,
    SAME_KIND,
)
from srcad.partials import logistic, power_slope, quotient, reciprocal, strong_product
from srcad.projection import ProjectTo, array_operand, conj, operand_tangent
from srcad.registry import Inline, Linearity, RuleSet, scalar_rrule
from srcad.rules._support import as_result, divide_or_zero
from srcad.rules.complex_parts import MAGNITUDE_INLINE
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("numpy_elementwise")

Pullback = Any

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_DEGREES_PER_RADIAN, _RADIANS_PER_DEGREE = 180.0 / math.pi, math.pi / 180.0


def _absolute_partial(x: Any, y: Any) -> Any:
    """The derivative of |x|: sign(x) for reals, 0 at the kink x == 0.

    For complex x this returns conj(x) / |x|, so that the cotangent `scalar` forms,
    `y_bar * x / |x|`, is ChainRules' (the direction in which |x| grows fastest).
    """
    if np.iscomplexobj(x):
        x = np.asarray(x)
        return np.divide(x.conj(), y, out=np.zeros_like(x), where=np.asarray(y) != 0)
    return np.sign(x)


def _hypot_partial(a: Any, y: Any) -> Any:
    """d hypot(a, b) / da = a / hypot(a, b), taken as 0 at the origin (a subgradient).
    Written with `np.where`, writing into no array, so that srcad differentiates it for
    second derivatives (0 at the origin, where hypot has none)."""
    origin = np.asarray(y) == 0
    return np.where(origin, 0.0, a / np.where(origin, 1.0, y))


def _maximum_share(a: Any, b: Any) -> Any:
    """The share of `np.maximum`'s cotangent that goes to `a`: 1 where a > b, 0 where
    a < b, and half at a tie, so that the two arguments split it evenly (as autograd
    does; a tie is a kink, and the half-half split is the symmetric subgradient). In the
    arguments' precision, so that the forward rule keeps float32 tangents float32."""
    a, b = np.asarray(a), np.asarray(b) if isinstance(b, list | tuple) else b  # (no dtype)
    return ((a > b) + 0.5 * (a == b)).astype(np.result_type(a, b, 1.0), copy=False)


def _minimum_share(a: Any, b: Any) -> Any:
    """The share of `np.minimum`'s cotangent that goes to `a`; ties split as for maximum."""
    return _maximum_share(b, a)


def _logaddexp_slopes(kinds: Any, constants: Any) -> list[str] | None:
    """The inline cotangents of `np.logaddexp(a, b)`'s operands, from the operands alone,
    so that a gradient that needs the slopes only skips the result, which costs ten times as
    much (`srcad.partials.logistic`); without the difference where an operand is a literal
    0 (`np.logaddexp(0.0, z)`, softplus)."""
    if len(constants) != 2:
        return None
    if constants[0] == 0:
        return ["y_bar * logistic(-b)", "y_bar * logistic(b)"]
    if constants[1] == 0:
        return ["y_bar * logistic(a)", "y_bar * logistic(-a)"]
    return ["y_bar * logistic(a - b)", "y_bar * logistic(b - a)"]


# Unary ufuncs: each partial takes the argument, then the result.
rules.primitive(
    np.sin,
    lambda x, y: np.cos(x),
    result=FLOAT_ELEMENTWISE,
    inline=Inline("y_bar * cos(a)", cos=np.cos),
)
rules.primitive(
    np.cos,
    lambda x, y: -np.sin(x),
    result=FLOAT_ELEMENTWISE,
    inline=Inline("-y_bar * sin(a)", sin=np.sin),
)
rules.primitive(
    np.tan,
    lambda x, y: 1.0 + y * y,
    result=FLOAT_ELEMENTWISE,
    inline=Inline("y_bar * (1.0 + y * y)"),
)
rules.primitive(np.arcsin, lambda x, y: 1.0 / np.sqrt(1.0 - x * x), result=FLOAT_ELEMENTWISE)
rules.primitive(np.arccos, lambda x, y: -1.0 / np.sqrt(1.0 - x * x), result=FLOAT_ELEMENTWISE)
rules.primitive(
    np.arctan,
    lambda x, y: 1.0 / (1.0 + x * x),
    result=FLOAT_ELEMENTWISE,
    inline=Inline("y_bar / (1.0 + a * a)"),
)
rules.primitive(
    np.sinh,
    lambda x, y: np.cosh(x),
    result=FLOAT_ELEMENTWISE,
    inline=Inline("y_bar * cosh(a)", cosh=np.cosh),
)
rules.primitive(
    np.cosh,
    lambda x, y: np.sinh(x),
    result=FLOAT_ELEMENTWISE,
    inline=Inline("y_bar * sinh(a)", sinh=np.sinh),
)
rules.primitive(
    np.tanh,
    lambda x, y: 1.0 - y * y,
    result=FLOAT_ELEMENTWISE,
    inline=Inline("y_bar * (1.0 - y * y)"),
)
rules.primitive(np.arcsinh, lambda x, y: 1.0 / np.sqrt(x * x + 1.0), result=FLOAT_ELEMENTWISE)
# sqrt(x - 1) * sqrt(x + 1), not sqrt(x * x - 1): the two differ for complex x with Re x < 0.
rules.primitive(
    np.arccosh, lambda x, y: 1.0 / (np.sqrt(x - 1.0) * np.sqrt(x + 1.0)), result=FLOAT_ELEMENTWISE
)
# A partial dividing by a Python number divides by `quotient` (NumPy's inf or NaN at 0).
rules.primitive(np.arctanh, lambda x, y: quotient(1.0, 1.0 - x * x), result=FLOAT_ELEMENTWISE)
rules.primitive(np.exp, lambda x, y: y, result=FLOAT_ELEMENTWISE, inline=Inline("y_bar * y"))
rules.primitive(np.exp2, lambda x, y: y * _LN2, result=FLOAT_ELEMENTWISE)
rules.primitive(
    np.expm1, lambda x, y: y + 1.0, result=FLOAT_ELEMENTWISE, inline=Inline("y_bar * (y + 1.0)")
)
rules.primitive(
    np.log, lambda x, y: quotient(1.0, x), result=FLOAT_ELEMENTWISE, inline=Inline("y_bar / a")
)
rules.primitive(np.log2, lambda x, y: quotient(1.0, x * _LN2), result=FLOAT_ELEMENTWISE)
rules.primitive(np.log10, lambda x, y: quotient(1.0, x * _LN10), result=FLOAT_ELEMENTWISE)
rules.primitive(
    np.log1p,
    lambda x, y: quotient(1.0, 1.0 + x),
    result=FLOAT_ELEMENTWISE,
    inline=Inline("y_bar / (1.0 + a)"),
)
# An infinite slope at 0: see `srcad.partials`.
rules.primitive(
    np.sqrt,
    lambda x, y: 0.5 * reciprocal(y),
    result=FLOAT_ELEMENTWISE,
    inline=Inline(
        "strong_product(0.5 * reciprocal(y), y_bar)",
        strong_product=strong_product,
        reciprocal=reciprocal,
    ),
)
rules.primitive(np.cbrt, lambda x, y: 1.0 / (3.0 * y * y), result=FLOAT_ELEMENTWISE)
rules.primitive(np.square, lambda x, y: 2.0 * x, result=SAME_KIND, inline=Inline("y_bar * 2.0 * a"))
rules.holomorphic(np.sin, np.cos, np.tan, np.arctan, np.sinh, np.cosh)  # complex operands: by
rules.holomorphic(np.tanh, np.exp, np.expm1, np.log, np.square)  # the templates conjugated
rules.scalar(np.reciprocal, lambda x, y: -y * y)
rules.primitive(np.negative, lambda x, y: -1.0, result=SAME_KIND)
rules.primitive(np.positive, lambda x, y: 1.0, result=SAME_KIND)
# np.abs is np.absolute: see its entry below its forward rule, which is not holomorphic.
rules.primitive(np.deg2rad, lambda x, y: _RADIANS_PER_DEGREE, result=FLOAT_ELEMENTWISE)
rules.primitive(np.radians, lambda x, y: _RADIANS_PER_DEGREE, result=FLOAT_ELEMENTWISE)
rules.primitive(np.rad2deg, lambda x, y: _DEGREES_PER_RADIAN, result=FLOAT_ELEMENTWISE)
rules.primitive(np.degrees, lambda x, y: _DEGREES_PER_RADIAN, result=FLOAT_ELEMENTWISE)

# Binary ufuncs: each partial takes both arguments, then the result.
rules.primitive(np.add, lambda a, b, y: 1.0, lambda a, b, y: 1.0, result=PROMOTED_UFUNC)
rules.primitive(np.subtract, lambda a, b, y: 1.0, lambda a, b, y: -1.0, result=PROMOTED_UFUNC)
rules.primitive(np.multiply, lambda a, b, y: b, lambda a, b, y: a, result=PROMOTED_UFUNC)
_DIVIDE_PARTIALS = (lambda a, b, y: quotient(1.0, b), lambda a, b, y: -quotient(y, b))
rules.primitive(np.divide, *_DIVIDE_PARTIALS, result=FLOAT_UFUNC_OF_TWO_NUMBERS)  # also true_divide
rules.primitive(
    np.arctan2,
    lambda a, b, y: quotient(b, a * a + b * b),
    lambda a, b, y: -quotient(a, a * a + b * b),
    result=FLOAT_UFUNC_OF_TWO_NUMBERS,
)
rules.primitive(
    np.hypot,
    lambda a, b, y: _hypot_partial(a, y),
    lambda a, b, y: _hypot_partial(b, y),
    result=FLOAT_UFUNC_OF_TWO_NUMBERS,
)
rules.primitive(
    np.logaddexp,
    lambda a, b, y: np.exp(a - y),
    lambda a, b, y: np.exp(b - y),
    result=FLOAT_UFUNC_OF_TWO_NUMBERS,
    inline=Inline(_logaddexp_slopes, logistic=logistic),
)
rules.primitive(
    np.logaddexp2,
    lambda a, b, y: np.exp2(a - y),
    lambda a, b, y: np.exp2(b - y),
    result=FLOAT_UFUNC_OF_TWO_NUMBERS,
)
rules.scalar(
    np.maximum,
    lambda a, b, y: _maximum_share(a, b),
    lambda a, b, y: _maximum_share(b, a),
)
rules.scalar(
    np.minimum,
    lambda a, b, y: _minimum_share(a, b),
    lambda a, b, y: _minimum_share(b, a),
)


@rules.rrule(np.conjugate)
def conjugate_rrule(x: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.conjugate` (also `np.conj`); the identity on real arrays.

    Conjugation is not holomorphic, so no partial describes it: the cotangent is
    `conj(y_bar)`, since `Re <y_bar, conj(dx)> = Re <conj(y_bar), dx>`.
    """
    y = np.conjugate(x)
    project_x = ProjectTo(x)

    def conjugate_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.conjugate(y_bar))

    return y, conjugate_pullback


def _sinc_partial(x: Any, y: Any) -> Any:
    """d sinc(x) / dx = (cos(pi x) - sinc(x)) / x away from 0. Near 0, where that
    difference cancels, its Taylor series `-pi^2 x / 3 + pi^4 x^3 / 30` (0 at 0, where sinc
    is even; its error below 1e-15 for |x| < 1e-3), whose own derivative is sinc's second
    derivative there, `-pi^2 / 3`: written with `np.where`, which srcad differentiates."""
    x = np.asarray(x)
    small = np.abs(x) < _SINC_SERIES_BELOW
    series = x * (_SINC_LINEAR + _SINC_CUBIC * (x * x))
    return np.where(small, series, (np.cos(np.pi * x) - y) / np.where(small, 1.0, x))


_SINC_SERIES_BELOW = 1e-3
_SINC_LINEAR = -(np.pi**2) / 3.0
_SINC_CUBIC = np.pi**4 / 30.0


def _fmax_share(a: Any, b: Any) -> Any:
    """The share of `np.fmax`'s cotangent that goes to `a`: as for `np.maximum`, except that
    a NaN loses: where exactly one argument is NaN, the other gets it all (and where both
    are, neither does)."""
    return _maximum_share(a, b) + (np.isnan(b) & ~np.isnan(a))


def _fmin_share(a: Any, b: Any) -> Any:
    """The share of `np.fmin`'s cotangent that goes to `a`; NaNs lose as for `np.fmax`."""
    return _minimum_share(a, b) + (np.isnan(b) & ~np.isnan(a))


rules.primitive(np.sinc, _sinc_partial, result=FLOAT_ELEMENTWISE)
rules.scalar(
    np.fmax,
    lambda a, b, y: _fmax_share(a, b),
    lambda a, b, y: _fmax_share(b, a),
)
rules.scalar(
    np.fmin,
    lambda a, b, y: _fmin_share(a, b),
    lambda a, b, y: _fmin_share(b, a),
)
# heaviside(x, h0) is 0 for x < 0, 1 for x > 0 and h0 at x == 0: piecewise constant in x
# (zero partial; at x == 0 it has none), and the identity in h0 exactly where x == 0.
# A rule rather than a non-differentiable mark, so that a varying h0 gets its cotangent.
rules.scalar(
    np.heaviside,
    lambda x, h0, y: np.zeros(np.shape(y)),
    lambda x, h0, y: np.asarray(x) == 0,
)


def _log_where_positive(x: Any) -> Any:
    """The partial of `float_power(x, p)` in `p` over `y`: log(x), taken as 0 at x == 0 (its
    limit for a positive power); NaN for real x < 0, where no real derivative exists."""
    x = np.asarray(x)
    if np.iscomplexobj(x):
        zero = x == 0
        return np.where(zero, 0.0, np.log(np.where(zero, 1.0, x)))
    positive = x > 0
    logarithm = np.log(np.where(positive, x, 1.0))
    return np.where(positive, logarithm, np.where(x == 0, 0.0, np.nan))


def _float_power_slope(x: Any, p: Any) -> Any:
    """The partial of `float_power(x, p)` in `x`, in double precision: `power_slope`'s
    (an infinite slope at 0 below power 1, and none for `p == 0`; see `srcad.partials`)."""
    return power_slope(np.asarray(x, np.result_type(np.asarray(x), np.float64)), array_operand(p))


@rules.rrule(np.float_power)
def float_power_rrule(x: Any, p: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.float_power`, which computes in double precision (the cotangents
    are projected back onto each argument's precision).

    An integer exponent is a constant, as for `x ** p` (see operators.py): at negative `x`
    the power exists only at integer `p`, where its derivative in `p` would be NaN.
    """
    y = np.float_power(x, p)
    project_x, project_p = ProjectTo(x), ProjectTo(p)
    integer_exponent = np.asarray(p).dtype.kind in "biu"

    def float_power_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, NoTangent() if integer_exponent else y_bar
        x_bar = strong_product(conj(_float_power_slope(x, p)), y_bar)
        if integer_exponent:
            return NoTangent(), project_x(x_bar), NoTangent()
        p_bar = strong_product(conj(y * _log_where_positive(x)), y_bar)
        return NoTangent(), project_x(x_bar), project_p(p_bar)

    return y, float_power_pullback


def _clip_bounds(bounds: tuple[Any, ...], keywords: dict[str, Any]) -> tuple[Any, Any]:
    """The lower and upper bounds of a call `np.clip(a, *bounds, **keywords)` (None: none)."""
    if len(bounds) > 2 or keywords.get("out") is not None:
        raise UnsupportedCallError("srcad cannot differentiate a clip that writes into `out=`")
    lower = bounds[0] if bounds else keywords.get("a_min", keywords.get("min"))
    upper = bounds[1] if len(bounds) > 1 else keywords.get("a_max", keywords.get("max"))
    return lower, upper


# NumPy's default bounds are its `_NoValue`, and it takes both bounds by position or
# neither: a bound left out is passed as `None`, no bound, as `np.clip(a, lo, None)`.
rules.keywords_by_position(np.clip, "a", "a_min", "a_max", defaults={"a_min": None, "a_max": None},
                           aliases={"min": "a_min", "max": "a_max"}, complete=True)  # fmt: skip


@rules.rrule(np.clip)
def clip_rrule(a: Any, *bounds: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.clip(a, a_min, a_max)`, which NumPy computes as
    `minimum(maximum(a, a_min), a_max)`; the cotangents follow that composition.

    So `a` gets the cotangent where `a_min < a < a_max`, a bound gets it where it clips
    (`a_max` wins where `a_min > a_max`, as in NumPy), and at a tie the two share it half
    and half, as `np.maximum` and `np.minimum` do. Bounds passed by position are
    differentiated like `a`, with broadcasting, and so are bounds a call passes by keyword
    (`a_min=`, `min=`, ...), which the normal form passes by position
    (`keywords_by_position`). `None` means no bound.
    """
    lower, upper = _clip_bounds(bounds, keywords)
    y = np.clip(a, *bounds, **keywords)
    project_a = ProjectTo(a)
    project_bounds = [None if bound is None else ProjectTo(bound) for bound in bounds]

    def clip_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *(NoTangent() if b is None else y_bar for b in bounds))
        raised = a if lower is None else np.maximum(a, lower)
        raised_bar = y_bar if upper is None else y_bar * _minimum_share(raised, upper)
        a_bar = raised_bar if lower is None else raised_bar * _maximum_share(a, lower)
        bound_bars: list[Any] = [
            None if lower is None else raised_bar * _maximum_share(lower, a),
            None if upper is None else y_bar * _minimum_share(upper, raised),
        ]
        projected = (
            NoTangent() if project is None else project(bound_bar)
            for project, bound_bar in zip(project_bounds, bound_bars, strict=False)
        )
        return (NoTangent(), project_a(a_bar), *projected)

    return y, clip_pullback


@rules.rrule(np.where)
def where_rrule(condition: Any, *branches: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.where(condition, a, b)`: `a` gets the cotangent where the
    condition holds, `b` where it does not, each summed over the axes it was broadcast
    along. The condition is not differentiated. `np.where(condition)` alone gives indices,
    which carry no derivative.
    """
    y = np.where(condition, *branches)
    chosen = np.asarray(condition, dtype=bool)
    projects = [ProjectTo(branch) for branch in branches]

    def where_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if not branches:
            return NoTangent(), NoTangent()
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), NoTangent(), y_bar, y_bar
        project_a, project_b = projects
        a_bar = project_a(np.where(chosen, y_bar, 0))
        b_bar = project_b(np.where(chosen, 0, y_bar))
        return NoTangent(), NoTangent(), a_bar, b_bar

    return y, where_pullback


@rules.rrule(np.real)
def real_rrule(x: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.real`: the real cotangent goes to the real part of `x`."""
    y = np.real(x)
    project_x = ProjectTo(x)

    def real_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.real(y_bar))

    return y, real_pullback


@rules.rrule(np.imag)
def imag_rrule(x: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.imag`: the cotangent of `x` is `1j * y_bar`, since
    `y_bar * Im(dx) = Re(conj(1j * y_bar) * dx)`. For real `x` the result is a constant 0.
    """
    y = np.imag(x)
    project_x = ProjectTo(x)
    complex_x = np.iscomplexobj(x)

    def imag_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero) or not complex_x:
            return NoTangent(), project_x(ZeroTangent())
        return NoTangent(), project_x(1j * np.real(y_bar))

    return y, imag_pullback


# -- forward rules: `frule((f_dot, *arg_dots), *args) -> (y, y_dot)` -----------------------


def _zero(dot: Any) -> bool:
    return isinstance(dot, AbstractZero)


def _result(y_dot: Any, y: Any) -> Any:
    """A zero tangent as `ZeroTangent()`, any other broadcast to `y`'s shape and dtype."""
    return ZeroTangent() if _zero(y_dot) else as_result(y_dot, y)


def absolute_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    """Forward rule for `np.absolute`: `sign(x) x_dot` for real `x`; for complex `x`, which
    |x| does not depend on holomorphically, `Re(conj(x) x_dot) / |x|` (0 at x == 0)."""
    y = np.absolute(x)
    x_dot = operand_tangent(dargs[1], x)
    if _zero(x_dot):
        return y, ZeroTangent()
    y_dot = _absolute_partial(x, y) * x_dot
    return y, as_result(np.real(y_dot) if np.iscomplexobj(x) else y_dot, y)


def absolute_definition(x: Any) -> Any:
    """`|x|` as `np.hypot` of its real and imaginary parts, smooth but at 0: what a
    complex `x`'s second derivatives come from (`second_order._piecewise_linear`)."""
    return np.hypot(np.real(x), np.imag(x))


# np.abs is np.absolute. Not holomorphic: its forward rule takes the real part.
rules.primitive(
    np.absolute,
    rrule=scalar_rrule(np.absolute, _absolute_partial),
    frule=absolute_frule,
    result=MAGNITUDE,
    inline=MAGNITUDE_INLINE,  # of a complex argument only (a real one calls its rule)
    linearity=Linearity.PIECEWISE_LINEAR,  # over the reals: sign(x) x_dot
    definition=absolute_definition,  # over the complex numbers
)

# |x| of a real x (NumPy refuses complex numbers): its slope is sign(x), taken as 0 at the kink.
rules.primitive(
    np.fabs,
    lambda x, y: np.sign(x),
    result=FLOAT_ELEMENTWISE,
    inline=Inline("y_bar * sign(a)", sign=np.sign),
)


@rules.frule(np.conjugate)
def conjugate_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    """Forward rule for `np.conjugate`: not holomorphic, its tangent is `conj(x_dot)`."""
    x_dot, y = operand_tangent(dargs[1], x), np.conjugate(x)
    return y, _result(x_dot if _zero(x_dot) else np.conjugate(x_dot), y)


@rules.frule(np.float_power)
def float_power_frule(dargs: tuple[Any, ...], x: Any, p: Any) -> tuple[Any, Any]:
    """Forward rule for `np.float_power`, with `float_power_rrule`'s partials."""
    y = np.float_power(x, p)
    x_dot, p_dot = operand_tangent(dargs[1], x), operand_tangent(dargs[2], p)
    y_dot: Any = ZeroTangent()
    if not _zero(x_dot):
        y_dot = strong_product(_float_power_slope(x, p), x_dot)
    if not _zero(p_dot) and np.asarray(p).dtype.kind not in "biu":
        y_dot = y_dot + strong_product(y * _log_where_positive(x), p_dot)
    return y, _result(y_dot, y)


@rules.frule(np.clip)
def clip_frule(dargs: tuple[Any, ...], a: Any, *bounds: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.clip`, through `minimum(maximum(a, a_min), a_max)` as its rrule:
    at a tie the tangent is the mean of the two tied tangents. (A call's bounds passed by
    keyword come here by position.)"""
    lower, upper = _clip_bounds(bounds, keywords)
    y = np.clip(a, *bounds, **keywords)
    dots = [operand_tangent(d, x) for d, x in zip(dargs[1:], (a, *bounds), strict=False)]
    a_dot, lower_dot, upper_dot = (*dots, NoTangent(), NoTangent())[:3]
    raised, raised_dot = a, a_dot
    if lower is not None:
        raised = np.maximum(a, lower)
        raised_dot = a_dot * _maximum_share(a, lower) + lower_dot * _maximum_share(lower, a)
    y_dot = raised_dot
    if upper is not None:
        upper_part = upper_dot * _minimum_share(upper, raised)
        y_dot = raised_dot * _minimum_share(raised, upper) + upper_part
    return y, _result(y_dot, y)


@rules.frule(np.where)
def where_frule(dargs: tuple[Any, ...], condition: Any, *branches: Any) -> tuple[Any, Any]:
    """Forward rule for `np.where(condition, a, b)`: `a`'s tangent where the condition holds,
    `b`'s where it does not. The indices `np.where(condition)` gives have none."""
    y = np.where(condition, *branches)
    if not branches:
        return y, NoTangent()
    a_dot, b_dot = (operand_tangent(d, b) for d, b in zip(dargs[2:], branches, strict=True))
    if _zero(a_dot) and _zero(b_dot):
        return y, ZeroTangent()
    chosen = np.asarray(condition, dtype=bool)
    y_dot = np.where(chosen, 0 if _zero(a_dot) else a_dot, 0 if _zero(b_dot) else b_dot)
    return y, as_result(y_dot, y)


@rules.frule(np.real)
def real_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    """Forward rule for `np.real`: the real part of the tangent."""
    x_dot = operand_tangent(dargs[1], x)
    y = np.real(x)
    return y, _result(x_dot if _zero(x_dot) else np.real(x_dot), y)


@rules.frule(np.imag)
def imag_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    """Forward rule for `np.imag`: the imaginary part of the tangent; for real `x` the
    result is a constant 0, as in `imag_rrule`."""
    x_dot = operand_tangent(dargs[1], x)
    y = np.imag(x)
    if _zero(x_dot) or not np.iscomplexobj(x):
        return y, ZeroTangent()
    return y, as_result(np.imag(x_dot), y)


# Piecewise linear (their rules are above): each tangent is the argument tangents chosen
# (or split at a tie) where the values choose; for second derivatives too.
for _choosing in (np.where, np.clip, np.heaviside):
    rules.primitive(_choosing, linearity=Linearity.PIECEWISE_LINEAR)
for _larger_or_smaller in (np.maximum, np.minimum, np.fmax, np.fmin):  # one of two, promoted
    rules.primitive(_larger_or_smaller, result=PROMOTED_UFUNC, linearity=Linearity.PIECEWISE_LINEAR)


# -- np.angle and np.nan_to_num ------------------------------------------------------------


def _angle_scale(options: tuple[Any, ...], keywords: dict[str, Any]) -> float:
    """Degrees per radian for `np.angle(z, deg=True)`, else 1."""
    deg = options[0] if options else keywords.get("deg", False)
    return _DEGREES_PER_RADIAN if deg else 1.0


@rules.rrule(np.angle)
def angle_rrule(z: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.angle(z, deg)`, the argument `arctan2(imag z, real z)`.

    Not holomorphic: `d angle = Im(conj(z) dz) / |z|^2`, so the cotangent is
    `1j z y_bar / |z|^2` (0 at z == 0, where the angle has no derivative). The angle of a
    real number is 0 or pi, piecewise constant: its cotangent is zero."""
    y = np.angle(z, *options, **keywords)
    project_z = ProjectTo(z)
    scale = _angle_scale(options, keywords)
    option_bars = (NoTangent(),) * len(options)

    def angle_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero) or not np.iscomplexobj(z):
            return (NoTangent(), project_z(ZeroTangent()), *option_bars)
        z_bar = divide_or_zero(1j * scale * np.asarray(z) * np.real(y_bar), np.abs(z) ** 2)
        return (NoTangent(), project_z(z_bar), *option_bars)

    return y, angle_pullback


def _parts(x: Any) -> tuple[Any, ...]:
    """The real parts NumPy's `nan_to_num` treats separately: `x`, or its real and imaginary
    parts."""
    return (np.real(x), np.imag(x)) if np.iscomplexobj(x) else (x,)


def _replaced(part: Any) -> tuple[Any, Any, Any]:
    """Where `nan_to_num` puts each of its replacement values (`nan`, `posinf`, `neginf`)."""
    infinite = np.isinf(part)
    return np.isnan(part), infinite & (part > 0), infinite & (part < 0)


def _finite_parts(x: Any, x_bar: Any) -> Any:
    """`x_bar` where `x` is finite and 0 elsewhere; for complex `x`, part by part (NumPy's
    `nan_to_num` replaces the real and imaginary parts separately)."""
    if np.iscomplexobj(x):
        real = np.where(np.isfinite(np.real(x)), np.real(x_bar), 0.0)
        return real + 1j * np.where(np.isfinite(np.imag(x)), np.imag(x_bar), 0.0)
    return np.where(np.isfinite(x), x_bar, 0.0)


def _copies(options: tuple[Any, ...], keywords: dict[str, Any]) -> None:
    """Refuse `nan_to_num(x, copy=False)`, which writes into `x`."""
    if not (options[0] if options else keywords.get("copy", True)):
        raise UnsupportedCallError("srcad cannot differentiate nan_to_num(copy=False)")


rules.keywords_by_position(np.nan_to_num, "x", "nan", "posinf", "neginf")


@rules.rrule(np.nan_to_num)
def nan_to_num_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.nan_to_num(x, copy, nan, posinf, neginf)`: the identity on the
    finite elements; each element that is not finite is the replacement value passed for
    it, which gets the sum of their cotangents (for complex `x`, of the real and imaginary
    parts replaced). `None` (the largest float) and `copy` get none, nor does any option
    passed by keyword, as for every function."""
    _copies(options, keywords)
    y = np.nan_to_num(x, *options, **keywords)
    project_x = ProjectTo(x)
    replacements = options[1:]
    projects = [None if value is None else ProjectTo(value) for value in replacements]

    def nan_to_num_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *(NoTangent() for _ in options))
        value_bars = [NoTangent() if p is None else 0.0 for p in projects]
        for part, part_bar in zip(_parts(x), _parts(y_bar), strict=True):
            for k, (project, where) in enumerate(zip(projects, _replaced(part), strict=False)):
                if project is not None:
                    value_bars[k] = value_bars[k] + np.sum(np.where(where, part_bar, 0.0))
        projected = (b if p is None else p(b) for p, b in zip(projects, value_bars, strict=True))
        copy_bar = (NoTangent(),) if options else ()
        return (NoTangent(), project_x(_finite_parts(x, y_bar)), *copy_bar, *projected)

    return y, nan_to_num_pullback


@rules.frule(np.angle)
def angle_frule(dargs: tuple[Any, ...], z: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.angle`: `Im(conj(z) z_dot) / |z|^2` (0 at z == 0), zero for real
    `z`. Written with functions that have rules, so that it is differentiated in turn."""
    y = np.angle(z, *options, **keywords)
    z_dot = operand_tangent(dargs[1], z)
    if _zero(z_dot) or not np.iscomplexobj(z):
        return y, ZeroTangent()
    squared = np.real(z * np.conjugate(z))
    at_zero = squared == 0.0
    rate = np.imag(np.conjugate(z) * z_dot) / np.where(at_zero, 1.0, squared)
    return y, _angle_scale(options, keywords) * np.where(at_zero, 0.0, rate)


@rules.frule(np.nan_to_num)
def nan_to_num_frule(
    dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.nan_to_num`: the tangent on the finite elements, and each
    replacement value's (passed by position) where it replaces an element."""
    _copies(options, keywords)
    y = np.nan_to_num(x, *options, **keywords)
    x_dot = operand_tangent(dargs[1], x)
    y_dot = ZeroTangent() if _zero(x_dot) else _finite_parts(x, x_dot)
    parts = _parts(x)
    for k in range(len(options) - 1):
        value_dot = unthunk(dargs[3 + k])
        if options[1 + k] is not None and not _zero(value_dot):
            moved = [np.where(_replaced(part)[k], value_dot, 0.0) for part in parts]
            y_dot = y_dot + (moved[0] + 1j * moved[1] if len(moved) == 2 else moved[0])
    return y, y_dot

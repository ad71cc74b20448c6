"""Rules for `scipy.special`: the logistic functions, the log-sum-exp family, the gamma
and error functions and the `x log y` products.

Installed once the user imports `scipy.special` (`rules/__init__.py: SCIPY_RULE_SETS`).
The ufuncs' rules come from their partials (`rules.primitive`, as NumPy's ufuncs), written
with functions that have rules, so that their forward rules are differentiated in turn
(`digamma`'s partial is `polygamma(1, x)`, `polygamma(n, x)`'s is `polygamma(n + 1, x)`).
`logsumexp`, `softmax` and `log_softmax` reduce along an axis; their forward rules are
written with `logsumexp`, `softmax`, `np.exp` and `np.sum`, which have rules, for the same
reason.

`xlogy(x, y)` is `x log y`, taken as 0 where `x == 0` whatever `y` (`xlog1py` likewise with
`log1p`). Its partial in `y`, `x / y`, is therefore 0 at `x == 0` even at `y == 0`, and its
partial in `x` is `log y` everywhere (`-inf` at `y == 0`, its one-sided limit there).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special as special

from srcad.errors import UnsupportedCallError
from srcad.kinds import FLOAT_ELEMENTWISE, FLOAT_UFUNC_OF_TWO
from srcad.projection import ProjectTo, conj, unbroadcast
from srcad.registry import RuleSet
from srcad.rules._support import options_by_name, with_reduced_axes
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("scipy_special")

Pullback = Any

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _divisor(x: Any, d: Any) -> Any:
    """`d`, with 1 where both `x` and `d` are 0: the divisor of the partial `x / d` of
    `xlogy` (`d = y`) or `xlog1py` (`d = 1 + y`) in `y`, which is 0 where `x == 0`. Only
    the point where both vanish is changed, so that the partial's own derivative in `x`
    (`1 / d`) stays right at `x == 0` elsewhere."""
    return np.where((np.asarray(x) == 0) & (np.asarray(d) == 0), 1.0, d)


rules.primitive(special.expit, lambda x, y: y * (1.0 - y), result=FLOAT_ELEMENTWISE)
rules.primitive(special.logit, lambda x, y: 1.0 / (x * (1.0 - x)), result=FLOAT_ELEMENTWISE)
rules.primitive(special.gammaln, lambda x, y: special.digamma(x), result=FLOAT_ELEMENTWISE)
rules.primitive(special.digamma, lambda x, y: special.polygamma(1, x), result=FLOAT_ELEMENTWISE)
rules.primitive(
    special.erf, lambda x, y: _TWO_OVER_SQRT_PI * np.exp(-x * x), result=FLOAT_ELEMENTWISE
)
rules.primitive(
    special.erfc, lambda x, y: -_TWO_OVER_SQRT_PI * np.exp(-x * x), result=FLOAT_ELEMENTWISE
)
# The normal distribution's cdf and its logarithm (which `norm.logcdf` uses).
rules.primitive(
    special.ndtr, lambda x, y: np.exp(-0.5 * x * x - _HALF_LOG_2PI), result=FLOAT_ELEMENTWISE
)
rules.primitive(
    special.log_ndtr,
    lambda x, y: np.exp(-0.5 * x * x - _HALF_LOG_2PI - y),
    result=FLOAT_ELEMENTWISE,
)
rules.primitive(
    special.xlogy,
    lambda x, y, z: np.log(y),
    lambda x, y, z: x / _divisor(x, y),
    result=FLOAT_UFUNC_OF_TWO,
)
rules.primitive(
    special.xlog1py,
    lambda x, y, z: np.log1p(y),
    lambda x, y, z: x / _divisor(x, 1.0 + y),
    result=FLOAT_UFUNC_OF_TWO,
)
# polygamma(n, x): the order `n` is an integer, which gets no cotangent (`ProjectTo`); it
# may be a list of orders, so the next one is `np.add(n, 1)` (`n + 1` would concatenate).
rules.primitive(
    special.polygamma,
    lambda n, x, y: np.zeros(np.shape(y)),
    lambda n, x, y: special.polygamma(np.add(n, 1), x),
)


# --- logsumexp, softmax, log_softmax -----------------------------------------------------------

_LOGSUMEXP_PARAMETERS = ("axis", "b", "keepdims", "return_sign")


def _refuse_complex_sign(a: Any, return_sign: bool) -> None:
    """The sign `logsumexp(..., return_sign=True)` gives complex `a` is a phase that moves
    with `a`: srcad gives it no derivative, so it refuses the call."""
    if return_sign and np.iscomplexobj(a):
        raise UnsupportedCallError(
            "srcad cannot differentiate logsumexp(..., return_sign=True) of complex a"
        )


# `logsumexp(a, b=w)` is called as `logsumexp(a, None, w)`: the rules differentiate `b` there.
rules.keywords_by_position(special.logsumexp, "a", "b")


@rules.rrule(special.logsumexp)
def logsumexp_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `logsumexp(a, axis, b, keepdims, return_sign)`, `log |sum(b e^a)|`:
    with `w = sign e^(a - y)` (the weights softmax gives, times the sign of the sum),
    `a_bar = conj(b w) y_bar` and `b_bar = conj(w) y_bar`, broadcast back along the reduced
    axes and onto each argument's shape. The sign `return_sign` adds is piecewise constant:
    its cotangent is dropped. `b` is differentiated where it is passed by position."""
    given = options_by_name(_LOGSUMEXP_PARAMETERS, options, keywords)
    axis, b = given.get("axis"), given.get("b")
    keepdims, return_sign = bool(given.get("keepdims", False)), bool(given.get("return_sign"))
    _refuse_complex_sign(a, return_sign)
    result = special.logsumexp(a, *options, **keywords)
    y, sign = result if return_sign else (result, 1.0)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b)) if b is not None else np.shape(a)
    kept_y = with_reduced_axes(y, shape, axis, keepdims)
    kept_sign = with_reduced_axes(sign, shape, axis, keepdims) if return_sign else 1.0
    weights = kept_sign * np.exp(np.asarray(a) - kept_y)
    project_a = ProjectTo(a)
    project_b = ProjectTo(b) if b is not None and len(options) >= 2 else None

    def logsumexp_pullback(result_bar: Any) -> tuple[Any, ...]:
        result_bar = unthunk(result_bar)
        y_bar = unthunk(result_bar[0]) if return_sign else result_bar
        bars: list[Any] = [NoTangent()] * (2 + len(options))
        if isinstance(result_bar, AbstractZero) or isinstance(y_bar, AbstractZero):
            bars[1] = ZeroTangent()
            return tuple(bars)
        spread = with_reduced_axes(y_bar, shape, axis, keepdims)
        scaled = weights if b is None else weights * b
        bars[1] = project_a(unbroadcast(conj(scaled) * spread, np.shape(a)))
        if project_b is not None:
            bars[3] = project_b(unbroadcast(conj(weights) * spread, np.shape(b)))
        return tuple(bars)

    return result, logsumexp_pullback


@rules.frule(special.logsumexp)
def logsumexp_frule(
    dargs: tuple[Any, ...],
    a: Any,
    axis: Any = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
) -> tuple[Any, Any]:
    """Forward rule for `logsumexp`: `sum(b w a_dot + w b_dot)` over the reduced axes, with
    the weights `w` of the reverse rule, from `logsumexp` itself (kept dimensions), so that
    this rule is differentiated in turn (to third order too: `np.sum` takes `keepdims` by
    position, as a keyword with no kind srcad knows would be a differentiated one)."""
    _refuse_complex_sign(a, return_sign)
    result = special.logsumexp(a, axis, b, keepdims, return_sign)
    a_dot = unthunk(dargs[1])
    b_dot = unthunk(dargs[3]) if len(dargs) > 3 else ZeroTangent()
    kept = special.logsumexp(a, axis, b, True, return_sign)
    weights = kept[1] * np.exp(a - kept[0]) if return_sign else np.exp(a - kept)
    y_dot: Any = ZeroTangent()
    if not isinstance(a_dot, AbstractZero):
        scaled = weights if b is None else weights * b
        y_dot = np.sum(scaled * a_dot, axis, None, None, bool(keepdims))
    if b is not None and not isinstance(b_dot, AbstractZero):
        y_dot = y_dot + np.sum(weights * b_dot, axis, None, None, bool(keepdims))
    if return_sign and not isinstance(y_dot, AbstractZero):
        return result, (y_dot, ZeroTangent())
    return result, y_dot


def _axis(options: tuple[Any, ...], keywords: dict[str, Any]) -> Any:
    return options_by_name(("axis",), options, keywords).get("axis")


@rules.rrule(special.softmax)
def softmax_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `softmax(x, axis)`, `s = e^x / sum(e^x)` along `axis` (all of `x`
    for None): `x_bar = conj(s) (y_bar - sum(conj(s) y_bar))`, the sum along `axis`."""
    axis = _axis(options, keywords)
    s = special.softmax(x, *options, **keywords)
    project_x = ProjectTo(x)

    def softmax_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *(NoTangent() for _ in options))
        shared = np.sum(conj(s) * y_bar, axis=axis, keepdims=True)
        return (NoTangent(), project_x(conj(s) * (y_bar - shared)), *(NoTangent() for _ in options))

    return s, softmax_pullback


@rules.frule(special.softmax)
def softmax_frule(dargs: tuple[Any, ...], x: Any, axis: Any = None) -> tuple[Any, Any]:
    """Forward rule for `softmax`: `s (x_dot - sum(s x_dot))` along `axis`."""
    s = special.softmax(x, axis)
    x_dot = unthunk(dargs[1])
    if isinstance(x_dot, AbstractZero):
        return s, ZeroTangent()
    return s, s * (x_dot - np.sum(s * x_dot, axis=axis, keepdims=True))


@rules.rrule(special.log_softmax)
def log_softmax_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `log_softmax(x, axis)`, `x - logsumexp(x)` along `axis`:
    `x_bar = y_bar - conj(s) sum(y_bar)`, with `s` the softmax."""
    axis = _axis(options, keywords)
    y = special.log_softmax(x, *options, **keywords)
    s = np.exp(y)
    project_x = ProjectTo(x)

    def log_softmax_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *(NoTangent() for _ in options))
        total = np.sum(y_bar, axis=axis, keepdims=True)
        return (NoTangent(), project_x(y_bar - conj(s) * total), *(NoTangent() for _ in options))

    return y, log_softmax_pullback


@rules.frule(special.log_softmax)
def log_softmax_frule(dargs: tuple[Any, ...], x: Any, axis: Any = None) -> tuple[Any, Any]:
    """Forward rule for `log_softmax`: `x_dot - sum(s x_dot)` along `axis`."""
    y = special.log_softmax(x, axis)
    x_dot = unthunk(dargs[1])
    if isinstance(x_dot, AbstractZero):
        return y, ZeroTangent()
    s = special.softmax(x, axis)
    return y, x_dot - np.sum(s * x_dot, axis=axis, keepdims=True)

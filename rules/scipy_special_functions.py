"""More rules for `scipy.special`: inverses of the error and normal functions, the gamma
and beta functions and their incomplete forms (in the point), Bessel functions (in the
point), the entropies and losses (`entr`, `rel_entr`, `kl_div`, `huber`, `pseudo_huber`),
`boxcox` and the accurate `log1p`/`expm1` family.

Installed once the user imports `scipy.special` (`rules/__init__.py: SCIPY_RULE_SETS`).
Each is a ufunc whose rules come from its partials (`rules.primitive`), written with
functions that have rules, so that the forward rules are differentiated in turn (second
and third derivatives). Where a partial is not written (in the order `v` of a Bessel
function, the parameters `a`, `b` of an incomplete gamma or beta function, which have no
closed form), the rules (`_in_point_only`) give a not-implemented cotangent, read only
where that argument is differentiated, and the forward rule refuses a tangent there: an
error naming the argument, never a number (a **gap**).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special as special

from srcad.errors import MissingRuleError
from srcad.kinds import FLOAT_ELEMENTWISE, FLOAT_UFUNC_OF_TWO
from srcad.partials import strong_product
from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import RuleSet, named
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, not_implemented, unthunk

rules = RuleSet("scipy_special_functions")

Pullback = Any

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _safe(divisor: Any) -> Any:
    """`divisor` with 1 where it is 0 (where a `np.where` takes the other branch)."""
    return np.where(np.asarray(divisor) == 0, 1.0, divisor)


# --- inverses of the error and normal functions -------------------------------------------------
# Each partial is 1 / (the function's derivative at the result): infinite at the ends of the
# domain (q at 0 or 1), NaN outside it, as the result is.
rules.primitive(
    special.ndtri, lambda q, y: np.exp(0.5 * y * y + _HALF_LOG_2PI), result=FLOAT_ELEMENTWISE
)
rules.primitive(
    special.erfinv, lambda x, y: _HALF_SQRT_PI * np.exp(y * y), result=FLOAT_ELEMENTWISE
)
rules.primitive(
    special.erfcinv, lambda x, y: -_HALF_SQRT_PI * np.exp(y * y), result=FLOAT_ELEMENTWISE
)
# erfcx(x) = exp(x^2) erfc(x)
rules.primitive(
    special.erfcx, lambda x, y: 2.0 * x * y - _TWO_OVER_SQRT_PI, result=FLOAT_ELEMENTWISE
)

# --- log1p, expm1 and their kin ---------------------------------------------------------------
rules.primitive(special.log1p, lambda x, y: 1.0 / (1.0 + x), result=FLOAT_ELEMENTWISE)
rules.primitive(special.expm1, lambda x, y: y + 1.0, result=FLOAT_ELEMENTWISE)
rules.primitive(special.cosm1, lambda x, y: -np.sin(x), result=FLOAT_ELEMENTWISE)
rules.primitive(special.exp2, lambda x, y: math.log(2.0) * y, result=FLOAT_ELEMENTWISE)
rules.primitive(special.exp10, lambda x, y: math.log(10.0) * y, result=FLOAT_ELEMENTWISE)
rules.primitive(special.log_expit, lambda x, y: special.expit(-x), result=FLOAT_ELEMENTWISE)

# --- the gamma and beta functions ----------------------------------------------------------------
rules.primitive(special.gamma, lambda x, y: y * special.digamma(x), result=FLOAT_ELEMENTWISE)
# rgamma = 1 / gamma: 0 at the poles of gamma, where this partial is NaN (-0 * inf).
rules.primitive(special.rgamma, lambda x, y: -y * special.digamma(x), result=FLOAT_ELEMENTWISE)
# The sign of gamma: piecewise constant.
rules.non_differentiable(special.gammasgn)
rules.primitive(
    special.betaln,
    lambda a, b, y: special.digamma(a) - special.digamma(a + b),
    lambda a, b, y: special.digamma(b) - special.digamma(a + b),
    result=FLOAT_UFUNC_OF_TWO,
)
rules.primitive(
    special.beta,
    lambda a, b, y: y * (special.digamma(a) - special.digamma(a + b)),
    lambda a, b, y: y * (special.digamma(b) - special.digamma(a + b)),
    result=FLOAT_UFUNC_OF_TWO,
)


# --- partials in the point only ---------------------------------------------------------------


def _unwritten(function: Any, name: str) -> str:
    return (
        f"srcad has no derivative of scipy.special.{function.__name__} in its parameter "
        f"`{name}` (it has no closed form); it differentiates it in its last argument only"
    )


# The functions differentiated in their last argument only.
IN_POINT_ONLY: set[Any] = set()


def _in_point_only(function: Any, names: tuple[str, ...], partial: Callable[..., Any]) -> None:
    """Rules of `function(*parameters, x)` in `x` only, its partial `partial(*arguments, y)`:
    a differentiated parameter (`names`) gets a not-implemented cotangent (an error where
    it is read) and refuses its tangent."""
    count = len(names)

    def in_point_rrule(*args: Any) -> tuple[Any, Pullback]:
        y = function(*args)
        x = args[count]
        project_x = ProjectTo(x)

        def in_point_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), *(y_bar for _ in args))
            found = strong_product(partial(*args, y), y_bar)
            x_bar = project_x(unbroadcast(np.asarray(found), np.shape(x)))
            refused = (
                NoTangent() if isinstance(ProjectTo(p)(1.0), NoTangent)  # an integer's
                else not_implemented(_unwritten(function, n))
                for p, n in zip(args, names, strict=False)
            )  # fmt: skip
            return (NoTangent(), *refused, x_bar)

        return y, named(in_point_pullback, f"{function.__name__}_pullback")

    def in_point_frule(dargs: tuple[Any, ...], *args: Any) -> tuple[Any, Any]:
        y = function(*args)
        for k in range(count):
            if not isinstance(unthunk(dargs[1 + k]), AbstractZero):
                raise MissingRuleError(_unwritten(function, names[k]))
        x_dot = unthunk(dargs[1 + count])
        if isinstance(x_dot, AbstractZero):
            return y, ZeroTangent()
        return y, partial(*args, y) * x_dot

    IN_POINT_ONLY.add(function)
    rules.rrule(function)(named(in_point_rrule, f"{function.__name__}_rrule"))
    rules.frule(function)(named(in_point_frule, f"{function.__name__}_frule"))
    rules.primitive(function)


def _gammainc_slope(a: Any, x: Any, y: Any) -> Any:
    """The regularised lower incomplete gamma function's partial in `x`, the gamma density
    `x^(a - 1) e^-x / Gamma(a)` (1 at `x == 0` where `a == 1`: `xlogy`)."""
    return np.exp(special.xlogy(a - 1.0, x) - x - special.gammaln(a))


def _betainc_slope(a: Any, b: Any, x: Any, y: Any) -> Any:
    """The regularised incomplete beta function's partial in `x`, the beta density."""
    return np.exp(special.xlogy(a - 1.0, x) + special.xlog1py(b - 1.0, -x) - special.betaln(a, b))


_in_point_only(special.gammainc, ("a",), _gammainc_slope)
_in_point_only(special.gammaincc, ("a",), lambda a, x, y: -_gammainc_slope(a, x, y))
_in_point_only(special.betainc, ("a", "b"), _betainc_slope)

# Bessel functions, in the point: the recurrences of their derivatives.
_in_point_only(
    special.iv, ("v",), lambda v, x, y: 0.5 * (special.iv(v - 1, x) + special.iv(v + 1, x))
)
_in_point_only(
    special.ive,
    ("v",),
    lambda v, x, y: 0.5 * (special.ive(v - 1, x) + special.ive(v + 1, x)) - np.sign(x) * y,
)
_in_point_only(
    special.kv, ("v",), lambda v, x, y: -0.5 * (special.kv(v - 1, x) + special.kv(v + 1, x))
)
_in_point_only(
    special.kve, ("v",), lambda v, x, y: y - 0.5 * (special.kve(v - 1, x) + special.kve(v + 1, x))
)
_in_point_only(
    special.jv, ("v",), lambda v, x, y: 0.5 * (special.jv(v - 1, x) - special.jv(v + 1, x))
)
_in_point_only(
    special.yv, ("v",), lambda v, x, y: 0.5 * (special.yv(v - 1, x) - special.yv(v + 1, x))
)
_in_point_only(
    special.yn, ("n",), lambda n, x, y: 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x))
)
rules.primitive(special.i0, lambda x, y: special.i1(x), result=FLOAT_ELEMENTWISE)
rules.primitive(
    special.i1, lambda x, y: 0.5 * (special.i0(x) + special.iv(2, x)), result=FLOAT_ELEMENTWISE
)
rules.primitive(special.i0e, lambda x, y: special.i1e(x) - np.sign(x) * y, result=FLOAT_ELEMENTWISE)
rules.primitive(
    special.i1e,
    lambda x, y: 0.5 * (special.i0e(x) + special.ive(2, x)) - np.sign(x) * y,
    result=FLOAT_ELEMENTWISE,
)
rules.primitive(special.j0, lambda x, y: -special.j1(x), result=FLOAT_ELEMENTWISE)
rules.primitive(
    special.j1, lambda x, y: 0.5 * (special.j0(x) - special.jv(2, x)), result=FLOAT_ELEMENTWISE
)
rules.primitive(special.y0, lambda x, y: -special.y1(x), result=FLOAT_ELEMENTWISE)
rules.primitive(
    special.y1, lambda x, y: 0.5 * (special.y0(x) - special.yv(2, x)), result=FLOAT_ELEMENTWISE
)

# --- entropies and losses ---------------------------------------------------------------------
# (No result kind: SciPy's loops give small integers a float32.)
# entr(x) = -x log x (0 at 0; -inf for x < 0, where the partial is NaN): -log x - 1, +inf at 0.
rules.primitive(special.entr, lambda x, y: -np.log(x) - 1.0, result=FLOAT_ELEMENTWISE)
# rel_entr(x, y) = x log(x / y) (0 at x == 0 <= y): log(x / y) + 1 and -x / y, 0 at x == 0
# (the partial in y is 0 there for every y, as the value is).
rules.primitive(
    special.rel_entr,
    lambda x, y, z: np.log(x / y) + 1.0,
    lambda x, y, z: np.where(np.asarray(x) == 0, 0.0, -x / _safe(y)),
)
# kl_div(x, y) = x log(x / y) - x + y: log(x / y) and 1 - x / y.
rules.primitive(
    special.kl_div,
    lambda x, y, z: np.log(x / y),
    lambda x, y, z: 1.0 - np.where(np.asarray(x) == 0, 0.0, x / _safe(y)),
)
# huber(delta, r): r^2 / 2 where |r| <= delta, else delta (|r| - delta / 2).
rules.primitive(
    special.huber,
    lambda d, r, y: np.where(np.abs(r) <= d, 0.0, np.abs(r) - d),
    lambda d, r, y: np.where(np.abs(r) <= d, r, d * np.sign(r)),
)


def _pseudo_huber_root(d: Any, r: Any) -> Any:
    """`sqrt(d^2 + r^2)`: `pseudo_huber(d, r) = d (sqrt(d^2 + r^2) - d)`."""
    return np.sqrt(d * d + r * r)


# pseudo_huber(d, r) = d^2 (sqrt(1 + (r / d)^2) - 1) = d (s - d), s = sqrt(d^2 + r^2):
# in d, s - d + d^2 / s - d = s - 2 d + d^2 / s; in r, d r / s.
rules.primitive(
    special.pseudo_huber,
    lambda d, r, y: _pseudo_huber_root(d, r) - 2.0 * d + d * d / _pseudo_huber_root(d, r),
    lambda d, r, y: d * r / _pseudo_huber_root(d, r),
)


def _boxcox_in_lambda(log_x: Any, lmbda: Any, y: Any) -> Any:
    """`boxcox`'s partial in `lmbda`, `(x^l log x - y) / l`; where `|l log x| < 1e-2`, its
    series `L^2 / 2 + l L^3 / 3 + l^2 L^4 / 8 + l^3 L^5 / 30` (`L = log x`), which has the
    limit `L^2 / 2` at `l == 0` (where the result is `log x`) and the right derivatives
    there, and no difference of nearly equal terms near it."""
    near = np.abs(lmbda * log_x) < 1e-2
    general = (np.exp(lmbda * log_x) * log_x - y) / np.where(near, 1.0, lmbda)
    squared = log_x * log_x
    series = squared * (
        0.5 + lmbda * log_x * (1.0 / 3.0 + lmbda * log_x * (0.125 + lmbda * log_x / 30.0))
    )
    return np.where(near, series, general)


# boxcox(x, l) = (x^l - 1) / l (log x at l == 0): in x, x^(l - 1); boxcox1p of 1 + x.
rules.primitive(
    special.boxcox,
    lambda x, lmbda, y: np.exp((lmbda - 1.0) * np.log(x)),
    lambda x, lmbda, y: _boxcox_in_lambda(np.log(x), lmbda, y),
)
rules.primitive(
    special.boxcox1p,
    lambda x, lmbda, y: np.exp((lmbda - 1.0) * np.log1p(x)),
    lambda x, lmbda, y: _boxcox_in_lambda(np.log1p(x), lmbda, y),
)

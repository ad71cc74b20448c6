"""The partials of the log cdfs of `scipy.stats` `t`, `gamma` and `beta` in their shape
parameters (`df`, `a`, `b`), by quadrature of an exact formula (`rules/scipy_stats.py`
calls them at first order).

The cdf is `F(z) = ∫ f(s) ds` over the support below `z`, so its derivative in a shape `θ`
is `∫ f(s) ∂θ log f(s) ds` there (the incomplete gamma's and beta's derivatives in their
parameters, `∫ t^(a-1) e^(-t) ln t dt / Γ(a) - P ψ(a)` and the like, and for `t` the
incomplete beta's in its parameter and its argument together), and the log cdf's is that
over `F`: the mean of the score `∂θ log f` below `z`. The score's mean over the whole
support is 0, so it is also `-(1 - F) / F` times its mean above `z`, which is the form
taken where `F >= 1/2` (the lower one would be a small difference of large terms there).
Each mean is a ratio of two integrals of `f / F` (or `f / (1 - F)`), written in log space
so that neither overflows: the score times the density, and the density alone.
`scipy.integrate.quad` evaluates them, its adaptive rule taking the integrable
singularities at the support's ends (`t^(a-1) ln t` for `a < 1`); where its error
estimate does not meet `_TOLERANCE`, the rule refuses (a `MissingRuleError`) rather than
give a poor number.
"""

from __future__ import annotations

import linecache
import math
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special as special
from scipy import integrate

import srcad
from srcad.errors import MissingRuleError
from srcad.tracebacks import origin

# The error `quad` may report, relative to the integral (and, for the score's, absolute
# beside a density's integral of about 1).
_TOLERANCE = 1e-8
_HALF = math.log(0.5)

# A family's log density and its score in one shape, as plain functions of one float.
Density = Callable[[float], float]


def _t_parts(df: float, index: int) -> tuple[Density, Density, tuple[float, float]]:
    del index
    half = 0.5 * (df + 1.0)
    constant = special.gammaln(half) - special.gammaln(0.5 * df) - 0.5 * math.log(df * math.pi)
    both = 0.5 * (special.digamma(half) - special.digamma(0.5 * df) - 1.0 / df)

    def log_density(s: float) -> float:
        return constant - half * math.log1p(s * s / df)

    def score(s: float) -> float:
        q = s * s / df
        return both - 0.5 * math.log1p(q) + half * q / (df * (1.0 + q))

    return log_density, score, (-math.inf, math.inf)


def _gamma_parts(a: float, index: int) -> tuple[Density, Density, tuple[float, float]]:
    del index
    constant, psi = special.gammaln(a), special.digamma(a)

    def log_density(s: float) -> float:
        return (a - 1.0) * math.log(s) - s - constant

    def score(s: float) -> float:
        return math.log(s) - psi

    return log_density, score, (0.0, math.inf)


def _beta_parts(a: float, b: float, index: int) -> tuple[Density, Density, tuple[float, float]]:
    constant = special.betaln(a, b)
    psi = special.digamma((a, b)[index]) - special.digamma(a + b)

    def log_density(s: float) -> float:
        return (a - 1.0) * math.log(s) + (b - 1.0) * math.log1p(-s) - constant

    def score(s: float) -> float:
        return (math.log(s) if index == 0 else math.log1p(-s)) - psi

    return log_density, score, (0.0, 1.0)


_PARTS: dict[str, Callable[..., tuple[Density, Density, tuple[float, float]]]] = {
    "t": _t_parts,
    "gamma": _gamma_parts,
    "beta": _beta_parts,
}


# srcad's own folders (the package's, the rules'): its compiled helpers came from there.
_OWN = tuple(
    os.path.dirname(os.path.abspath(module)) + os.sep for module in (srcad.__file__, __file__)
)


def call_site() -> str:
    """` (at file:line  text)`, the user's line that the innermost generated code on the
    stack came from (past srcad's own compiled helpers), or "" where none is found."""
    frame = sys._getframe(1)
    while frame is not None:
        found = origin(frame.f_code.co_filename, frame.f_lineno)
        while found is not None:
            file, line = found
            if os.path.isfile(file) and not os.path.abspath(file).startswith(_OWN):
                return f" (at {file}:{line}  {linecache.getline(file, line).strip()})"
            found = origin(file, line)
        frame = frame.f_back  # type: ignore[assignment]
    return ""


def _integral(integrand: Density, lower: float, upper: float, peak: float | None,
              name: str) -> float:  # fmt: skip
    """`quad`'s integral, or a refusal where its error estimate is not within tolerance."""
    points = None
    if peak is not None and math.isfinite(lower) and math.isfinite(upper) and lower < peak < upper:
        points = [peak]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (judged by the error estimate below)
        value, error = integrate.quad(
            integrand, lower, upper, points=points, epsabs=1e-13, epsrel=1e-12, limit=200
        )
    if not (math.isfinite(value) and math.isfinite(error)) or error > _TOLERANCE * max(
        abs(value), 1.0
    ):
        raise MissingRuleError(
            f"srcad cannot differentiate: the derivative of `{name}` in its shape parameter "
            f"is an integral that scipy.integrate.quad evaluated only to within {error:.1e} "
            f"(of {value:.6g}) here, short of the {_TOLERANCE:.0e} srcad needs; "
            f"differentiate elsewhere or with respect to the other parameters{call_site()}"
        )
    return float(value)


def _one(family: str, z: float, shapes: tuple[float, ...], index: int, log_cdf: float,
         log_sf: float) -> float:  # fmt: skip
    """The log cdf's partial in shape `index` at one standardised point `z`."""
    if not math.isfinite(log_cdf) or log_sf == -math.inf:
        return 0.0  # below or above the support (or invalid parameters: masked by the caller)
    lower_form = log_cdf < _HALF
    log_mass = log_cdf if lower_form else log_sf
    if family == "beta" and not lower_form:
        # Above `z` as `Beta(b, a)` below `1 - z` (exact in floating point where `z` is
        # near 1), its parameters and scores swapped: `quad` then sees the interval from 0.
        shapes, index, z = shapes[::-1], 1 - index, 1.0 - z
        lower_form = True
    log_density, score, (low, high) = _PARTS[family](*shapes, index)
    lower, upper = (low, z) if lower_form else (z, high)
    name = f"{family}.logcdf"
    peak = {"gamma": shapes[0] - 1.0, "t": 0.0}.get(family)
    if family == "beta" and min(shapes) > 1.0:
        peak = (shapes[0] - 1.0) / (shapes[0] + shapes[1] - 2.0)  # the mode

    def point(v: float) -> float:  # the point at the integration variable
        return v

    def log_jacobian(v: float) -> float:
        return 0.0

    if family == "t" and abs(z) >= 1.0:
        # The tail beyond `z` as `s = z / v`, `v` in (0, 1), `ds = |z| / v^2 dv`: `quad`'s
        # own map of an infinite interval keeps the scale 1, which a tail beyond 1e20
        # (small `df`) never reaches from `z`.
        lower, upper, peak = 0.0, 1.0, None

        def point(v: float) -> float:
            return z / v if v > 0.0 else math.copysign(math.inf, z)

        def log_jacobian(v: float) -> float:
            return math.log(abs(z)) - 2.0 * math.log(v)

    def weight(v: float) -> float:
        s = point(v)
        if not low < s < high:
            return 0.0  # a node rounded onto the support's end, where the density's limit
            # is 0 or an integrable singularity (of no weight at a point)
        return math.exp(log_density(s) - log_mass + log_jacobian(v))

    def weighted_score(v: float) -> float:
        w = weight(v)
        return w * score(point(v)) if w else 0.0

    mass = _integral(weight, lower, upper, peak, name)
    mean = _integral(weighted_score, lower, upper, peak, name) / mass
    return mean if log_cdf < _HALF else -math.exp(log_sf - log_cdf) * mean


def shape_partial(family: Any, index: int, z: Any, shapes: tuple[Any, ...], log_cdf: Any) -> Any:
    """The partial of `family.logcdf` (standardised: `z = (x - loc) / scale`) in its shape
    parameter `index`, elementwise, given the log cdf's value."""
    z_b, log_b, *shapes_b = np.broadcast_arrays(
        np.asarray(z, dtype=float), np.asarray(log_cdf, dtype=float),
        *(np.asarray(s, dtype=float) for s in shapes),
    )  # fmt: skip
    with np.errstate(all="ignore"):
        log_sf = np.asarray(family.logsf(z_b, *shapes_b), dtype=float)
    out = np.zeros(z_b.shape)
    for at in np.ndindex(z_b.shape):
        params = tuple(float(s[at]) for s in shapes_b)
        out[at] = _one(family.name, float(z_b[at]), params, index, float(log_b[at]),
                       float(log_sf[at]))  # fmt: skip
    return out

"""The partials of the log cdfs of `scipy.stats` `t`, `gamma` and `beta` in their shape
parameters (`df`, `a`, `b`), first and second, by quadrature of an exact formula
(`rules/scipy_stats.py` calls the first at first order, `scipy_stats_shape_rules.py` the
second, and the first's partial in the point, in closed form).

The cdf is `F(z) = ∫ f(s) ds` over the support below `z`, so its derivative in a shape `θ`
is `∫ f(s) ∂θ log f(s) ds` there (the incomplete gamma's and beta's derivatives in their
parameters, `∫ t^(a-1) e^(-t) ln t dt / Γ(a) - P ψ(a)` and the like, and for `t` the
incomplete beta's in its parameter and its argument together), and the log cdf's is that
over `F`: the mean of the score `∂θ log f` below `z`. The score's mean over the whole
support is 0, so it is also `-(1 - F) / F` times its mean above `z`, which is the form
taken where `F >= 1/2` (the lower one would be a small difference of large terms there).
The second derivatives are means of the scores' centred products (`_two`). Each mean is a
ratio of two integrals of `f / F` (or `f / (1 - F)`), written in log space so that
neither overflows. `scipy.integrate.quad` evaluates them, its adaptive rule taking the
integrable singularities at the support's ends (`t^(a-1) ln t` for `a < 1`, which a change
of variable flattens below the point); where its error estimate does not meet
`_TOLERANCE`, the rule refuses (a `MissingRuleError`) rather than give a poor number.
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

# A family's log density, and its scores in the shapes and their partials in the shapes
# (`curvature(s)[i][j]`, `∂θj ∂θi log f`), as plain functions of one float.
Density = Callable[[float], float]
Scores = list[Density]  # one per shape
Curvature = Callable[[float], list[list[float]]]
Parts = tuple[Density, Scores, Curvature, tuple[float, float]]


def _t_parts(df: float) -> Parts:
    half = 0.5 * (df + 1.0)
    constant = special.gammaln(half) - special.gammaln(0.5 * df) - 0.5 * math.log(df * math.pi)
    both = 0.5 * (special.digamma(half) - special.digamma(0.5 * df) - 1.0 / df)
    both_dot = 0.25 * (special.polygamma(1, half) - special.polygamma(1, 0.5 * df)) + 0.5 / df**2

    def log_density(s: float) -> float:
        return constant - half * math.log1p(s * s / df)

    def score(s: float) -> float:
        q = s * s / df
        return both - 0.5 * math.log1p(q) + half * q / (df * (1.0 + q))

    def curvature(s: float) -> list[list[float]]:
        q = s * s / df
        held = q / (1.0 + q)  # (bounded: `s` may be 1e150 in a heavy tail)
        return [[both_dot + held / df - half * held * (2.0 + q) / ((1.0 + q) * df * df)]]

    return log_density, [score], curvature, (-math.inf, math.inf)


def _gamma_parts(a: float) -> Parts:
    constant, psi, psi_dot = special.gammaln(a), special.digamma(a), special.polygamma(1, a)

    def log_density(s: float) -> float:
        return (a - 1.0) * math.log(s) - s - constant

    def score(s: float) -> float:
        return math.log(s) - psi

    def curvature(s: float) -> list[list[float]]:
        return [[-psi_dot]]

    return log_density, [score], curvature, (0.0, math.inf)


def _beta_parts(a: float, b: float) -> Parts:
    constant = special.betaln(a, b)
    both, both_dot = special.digamma(a + b), special.polygamma(1, a + b)
    psi_a, psi_b = special.digamma(a) - both, special.digamma(b) - both
    hessian = [
        [both_dot - special.polygamma(1, a), both_dot],
        [both_dot, both_dot - special.polygamma(1, b)],
    ]

    def log_density(s: float) -> float:
        return (a - 1.0) * math.log(s) + (b - 1.0) * math.log1p(-s) - constant

    def score_a(s: float) -> float:
        return math.log(s) - psi_a

    def score_b(s: float) -> float:
        return math.log1p(-s) - psi_b

    def curvature(s: float) -> list[list[float]]:
        return hessian

    return log_density, [score_a, score_b], curvature, (0.0, 1.0)


_PARTS: dict[str, Callable[..., Parts]] = {
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
              name: str, order: str) -> float:  # fmt: skip
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
            f"srcad cannot differentiate: the {order}derivative of `{name}` in its shape "
            f"parameter is an integral that scipy.integrate.quad evaluated only to within "
            f"{error:.1e} (of {value:.6g}) here, short of the {_TOLERANCE:.0e} srcad needs; "
            f"differentiate elsewhere or with respect to the other parameters{call_site()}"
        )
    return float(value)


class _Region:
    """The part of the support below `z` (where `F < 1/2`) or above it, and means over it
    under the density there (`f / F`, `f / (1 - F)`) of functions of the point, each by
    `quad` in log space. Above `z`, a beta's is `Beta(b, a)`'s below `1 - z` (exact in
    floating point where `z` is near 1), its scores swapped back: `quad` then sees the
    interval from 0."""

    def __init__(self, family: str, z: float, shapes: tuple[float, ...], log_cdf: float,
                 log_sf: float, order: str = "") -> None:  # fmt: skip
        self.lower = log_cdf < _HALF
        self.ratio = 0.0 if self.lower else math.exp(log_sf - log_cdf)  # (1 - F) / F
        self.name, self.order = f"{family}.logcdf", order
        log_mass = log_cdf if self.lower else log_sf
        lower_form, swapped = self.lower, family == "beta" and not self.lower
        if swapped:
            shapes, z, lower_form = shapes[::-1], 1.0 - z, True
        log_density, scores, curvature, (low, high) = _PARTS[family](*shapes)
        if swapped:
            self.scores: Scores = scores[::-1]
            self.curvature: Curvature = lambda s: [row[::-1] for row in curvature(s)[::-1]]
        else:
            self.scores, self.curvature = scores, curvature
        self.lower_bound, self.upper_bound = (low, z) if lower_form else (z, high)
        self.peak = {"gamma": shapes[0] - 1.0, "t": 0.0}.get(family)
        if family == "beta" and min(shapes) > 1.0:
            self.peak = (shapes[0] - 1.0) / (shapes[0] + shapes[1] - 2.0)  # the mode
        # (the point at the integration variable and the log of its derivative, where
        # the integration variable is not the point)
        self.map: tuple[Density, Density] | None = None
        if family != "t" and lower_form and shapes[0] < 1.0:
            # Below `z` as `s = z v^(1/a)`, `v` in (0, 1): the density's `s^(a - 1)`, an
            # integrable singularity at 0, is then flat (the score's `ln s`, `ln z + ln v /
            # a`, mild), which `quad` meets to the tolerance where `ln^2 s` is integrated.
            power = 1.0 / shapes[0]
            self.lower_bound, self.upper_bound, self.peak = 0.0, 1.0, None
            self.map = (
                lambda v: z * v**power,
                lambda v: math.log(z * power) + (power - 1.0) * math.log(v),
            )
        if family == "t" and abs(z) >= 1.0:
            # The tail beyond `z` as `s = z / v`, `v` in (0, 1), `ds = |z| / v^2 dv`:
            # `quad`'s own map of an infinite interval keeps the scale 1, which a tail
            # beyond 1e20 (small `df`) never reaches from `z`.
            self.lower_bound, self.upper_bound, self.peak = 0.0, 1.0, None
            self.map = (
                lambda v: z / v if v > 0.0 else math.copysign(math.inf, z),
                lambda v: math.log(abs(z)) - 2.0 * math.log(v),
            )
        self.weight = _weight(log_density, log_mass, (low, high), self.map)
        self._mass: float | None = None

    def _integral(self, integrand: Density) -> float:
        bounds = self.lower_bound, self.upper_bound
        return _integral(integrand, *bounds, self.peak, self.name, self.order)

    def mean(self, function: Density) -> float:
        """The mean of `function` of the point over the region."""
        weight = self.weight
        if self._mass is None:
            self._mass = self._integral(weight)

        def weighted(s: float) -> float:
            w = weight(s)
            return w * function(s) if w else 0.0

        def mapped(v: float) -> float:
            w = weight(v)
            return w * function(point(v)) if w else 0.0

        if self.map is None:
            return self._integral(weighted) / self._mass
        point = self.map[0]
        return self._integral(mapped) / self._mass


def _weight(log_density: Density, log_mass: float, support: tuple[float, float],
            mapped: tuple[Density, Density] | None) -> Density:  # fmt: skip
    """The density over the region's mass at the integration variable (with the map's
    Jacobian), 0 at a node rounded onto the support's end, where the density's limit is 0
    or an integrable singularity (of no weight at a point)."""
    low, high = support
    if mapped is None:

        def weight(s: float) -> float:
            return math.exp(log_density(s) - log_mass) if low < s < high else 0.0

        return weight
    point, log_jacobian = mapped

    def mapped_weight(v: float) -> float:
        s = point(v)
        return math.exp(log_density(s) - log_mass + log_jacobian(v)) if low < s < high else 0.0

    return mapped_weight


def _one(family: str, z: float, shapes: tuple[float, ...], index: int, log_cdf: float,
         log_sf: float) -> float:  # fmt: skip
    """The log cdf's partial in shape `index` at one standardised point `z`: the score's
    mean below `z`, or `-(1 - F) / F` times its mean above."""
    if not math.isfinite(log_cdf) or log_sf == -math.inf:
        return 0.0  # below or above the support (or invalid parameters: masked by the caller)
    region = _Region(family, z, shapes, log_cdf, log_sf)
    mean = region.mean(region.scores[index])
    return mean if region.lower else -region.ratio * mean


def _two(family: str, z: float, shapes: tuple[float, ...], first: int, second: int,
         log_cdf: float, log_sf: float) -> float:  # fmt: skip
    """The log cdf's second partial in shapes `first` and `second` at one standardised
    point `z`. Below `z`, the scores' centred product and their partials, `E[(s_i - m_i)
    (s_j - m_j) + ∂j s_i]` (`∂i∂j log F = ∂i∂j F / F - m_i m_j`, the mean of `s_i s_j +
    ∂j s_i` being `∂i∂j F / F`), centred so that no difference of large terms is left;
    above, with the same means there and `r = (1 - F) / F` (the whole support's mean of
    `s_i s_j + ∂j s_i` is 0), `-r (C + m_i m_j (1 + r))`."""
    if not math.isfinite(log_cdf) or log_sf == -math.inf:
        return 0.0
    region = _Region(family, z, shapes, log_cdf, log_sf, "second ")
    score_i, score_j = region.scores[first], region.scores[second]
    m_i = region.mean(score_i)
    m_j = m_i if first == second else region.mean(score_j)

    def centred(s: float) -> float:
        return (score_i(s) - m_i) * (score_j(s) - m_j) + region.curvature(s)[first][second]

    spread = region.mean(centred)
    if region.lower:
        return spread
    return -region.ratio * (spread + m_i * m_j * (1.0 + region.ratio))


def _one_in_point(family: str, z: float, shapes: tuple[float, ...], index: int,
                  log_cdf: float, log_sf: float, partial: float) -> float:  # fmt: skip
    """The partial in `z` of the log cdf's partial in shape `index` (`partial`, `g`):
    `∂θ (f / F) = (f / F) (s(z) - g)`, `s` the score at `z`."""
    if not math.isfinite(log_cdf) or log_sf == -math.inf:
        return 0.0
    log_density, scores, _, _ = _PARTS[family](*shapes)
    return math.exp(log_density(z) - log_cdf) * (scores[index](z) - partial)


def _elementwise(one: Callable[..., float], family: Any, z: Any, shapes: tuple[Any, ...],
                 log_cdf: Any, *options: Any, extra: Any = None) -> Any:  # fmt: skip
    """`one(name, z, shapes, *options, log_cdf, log_sf[, extra])` at each element of the
    arrays broadcast."""
    arrays = [np.asarray(a, dtype=float) for a in (z, log_cdf, *shapes)]
    if extra is not None:
        arrays.append(np.asarray(extra, dtype=float))
    z_b, log_b, *rest = np.broadcast_arrays(*arrays)
    shapes_b = rest[: len(shapes)]
    extra_b = rest[len(shapes) :]
    with np.errstate(all="ignore"):
        log_sf = np.asarray(family.logsf(z_b, *shapes_b), dtype=float)
    out = np.zeros(z_b.shape)
    for at in np.ndindex(z_b.shape):
        params = tuple(float(s[at]) for s in shapes_b)
        last = tuple(float(e[at]) for e in extra_b)
        out[at] = one(family.name, float(z_b[at]), params, *options, float(log_b[at]),
                      float(log_sf[at]), *last)  # fmt: skip
    return out


def shape_partial(family: Any, index: int, z: Any, shapes: tuple[Any, ...], log_cdf: Any) -> Any:
    """The partial of `family.logcdf` (standardised: `z = (x - loc) / scale`) in its shape
    parameter `index`, elementwise, given the log cdf's value."""
    return _elementwise(_one, family, z, shapes, log_cdf, index)


def shape_second_partial(family: Any, first: int, second: int, z: Any,
                         shapes: tuple[Any, ...], log_cdf: Any) -> Any:  # fmt: skip
    """The second partial of `family.logcdf` (standardised) in its shapes `first` and
    `second`, elementwise, given the log cdf's value."""
    return _elementwise(_two, family, z, shapes, log_cdf, first, second)


def shape_partial_in_point(family: Any, index: int, z: Any, shapes: tuple[Any, ...],
                           log_cdf: Any, partial: Any) -> Any:  # fmt: skip
    """The partial in `z` of `family.logcdf`'s partial in shape `index` (`partial`)."""
    return _elementwise(_one_in_point, family, z, shapes, log_cdf, index, extra=partial)

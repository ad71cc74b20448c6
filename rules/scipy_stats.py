"""Rules for `scipy.stats`: the log densities of `norm`, `t`, `gamma` and `beta`
(`logpdf`, and `norm.logcdf`), and of `poisson` (`logpmf`, `logcdf`), called on the
distribution objects: `norm.logpdf(x, loc, scale)`.

Installed once the user imports `scipy.stats` (`rules/__init__.py: SCIPY_RULE_SETS`).
SciPy computes these through one method of `rv_continuous` or `rv_discrete` shared by
every distribution; the rule of that method gives each family's partials (in the point
and each parameter, passed by position; keywords such as `loc=` are options, which srcad
does not differentiate), and refuses, naming it, a family or method it has none for.
The partials are written with functions that have rules, so that the forward rules are
differentiated in turn. Outside the support, where the log density is `-inf` (or where
SciPy gives NaN for invalid parameters), the partials are 0. A frozen distribution's
methods (`norm(loc, scale).logpdf(x)`) are refused, saying what to write instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special as special
from scipy import stats
from scipy.stats._distn_infrastructure import (
    rv_continuous,
    rv_continuous_frozen,
    rv_discrete,
    rv_discrete_frozen,
    rv_frozen,
    rv_generic,
)

from srcad.errors import MissingRuleError
from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import RuleSet, named
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("scipy_stats")

Pullback = Any
Partials = Callable[..., list[Any]]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _norm_logpdf(x: Any, loc: Any, scale: Any, y: Any) -> list[Any]:
    z = (x - loc) / scale
    return [-z / scale, z / scale, (z * z - 1.0) / scale]


def _norm_logcdf(x: Any, loc: Any, scale: Any, y: Any) -> list[Any]:
    z = (x - loc) / scale
    hazard = np.exp(-0.5 * z * z - _HALF_LOG_2PI - y) / scale  # pdf / cdf, per unit of x
    return [hazard, -hazard, -hazard * z]


def _t_logpdf(x: Any, df: Any, loc: Any, scale: Any, y: Any) -> list[Any]:
    z = (x - loc) / scale
    q = 1.0 + z * z / df
    slope = -(df + 1.0) * z / (df * q)  # d logpdf / dz
    d_df = 0.5 * (special.digamma(0.5 * (df + 1.0)) - special.digamma(0.5 * df) - 1.0 / df)
    d_df = d_df - 0.5 * np.log(q) + 0.5 * (df + 1.0) * z * z / (df * df * q)
    return [slope / scale, d_df, -slope / scale, -(slope * z + 1.0) / scale]


def _gamma_logpdf(x: Any, a: Any, loc: Any, scale: Any, y: Any) -> list[Any]:
    z = (x - loc) / scale
    slope = (a - 1.0) / z - 1.0
    d_a = np.log(z) - special.digamma(a)
    return [slope / scale, d_a, -slope / scale, -(slope * z + 1.0) / scale]


def _beta_logpdf(x: Any, a: Any, b: Any, loc: Any, scale: Any, y: Any) -> list[Any]:
    z = (x - loc) / scale
    slope = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    both = special.digamma(a + b)
    d_a = np.log(z) - special.digamma(a) + both
    d_b = np.log1p(-z) - special.digamma(b) + both
    return [slope / scale, d_a, d_b, -slope / scale, -(slope * z + 1.0) / scale]


def _poisson_logpmf(k: Any, mu: Any, loc: Any, y: Any) -> list[Any]:
    return [np.zeros(np.shape(y)), (k - loc) / mu - 1.0, np.zeros(np.shape(y))]


def _poisson_logcdf(k: Any, mu: Any, loc: Any, y: Any) -> list[Any]:
    # d/dmu P(K <= k) = -pmf(floor(k); mu): the last term's share of the sum.
    last = stats.poisson.logpmf(np.floor(k - loc), mu)
    return [np.zeros(np.shape(y)), -np.exp(last - y), np.zeros(np.shape(y))]


# Per family, its shape parameters and, per method, its partials: one per argument (the
# point, the shapes, then `loc` and, for a continuous family, `scale`), given them and the
# result.
_FAMILIES: dict[type, tuple[tuple[str, ...], dict[str, Partials]]] = {
    type(stats.norm): ((), {"logpdf": _norm_logpdf, "logcdf": _norm_logcdf}),
    type(stats.t): (("df",), {"logpdf": _t_logpdf}),
    type(stats.gamma): (("a",), {"logpdf": _gamma_logpdf}),
    type(stats.beta): (("a", "b"), {"logpdf": _beta_logpdf}),
    type(stats.poisson): (("mu",), {"logpmf": _poisson_logpmf, "logcdf": _poisson_logcdf}),
}


def _partials_of(dist: Any, method: str) -> tuple[tuple[str, ...], Partials]:
    """The shapes and partials of `dist.method`, or a refusal that names what is covered."""
    shapes, methods = _FAMILIES.get(type(dist), ((), {}))
    if method not in methods:
        covered = ", ".join(
            f"{family.__name__.removesuffix('_gen')}.{name}"
            for family, (_, named_partials) in _FAMILIES.items()
            for name in named_partials
        )
        raise MissingRuleError(
            f"srcad has no rule for `{getattr(dist, 'name', type(dist).__name__)}.{method}`: "
            f"its SciPy rules cover {covered}; register one with "
            f"@srcad.rrule.register({type(dist).__name__}.{method})"
        )
    return shapes, methods[method]


def _arguments(dist: Any, shapes: tuple[str, ...], x: Any, args: tuple[Any, ...],
               kwds: dict[str, Any]) -> list[Any]:  # fmt: skip
    """The point, the shapes, `loc` and (continuous) `scale`, by position then keyword,
    with SciPy's defaults."""
    names = ("x", *shapes, "loc", *(("scale",) if isinstance(dist, rv_continuous) else ()))
    defaults = {"loc": 0.0, "scale": 1.0}
    given = dict(zip(names[1:], args, strict=False))
    given.update(kwds)
    missing = [n for n in names[1:] if n not in given and n not in defaults]
    if missing:
        raise TypeError(f"{getattr(dist, 'name', 'the distribution')} needs {missing[0]}")
    return [x, *(given.get(n, defaults.get(n)) for n in names[1:])]


def _on_support(partial: Any, y: Any) -> Any:
    """The partial where the log density is finite, 0 elsewhere (outside the support)."""
    return np.where(np.isfinite(y), partial, 0.0)


def _method_rules(owner: type, method: str) -> None:
    """Both rules of `owner.method` (`rv_continuous.logpdf`, ...), for every family."""
    function = getattr(owner, method)

    def method_rrule(dist: Any, x: Any, *args: Any, **kwds: Any) -> tuple[Any, Pullback]:
        shapes, partials = _partials_of(dist, method)
        y = function(dist, x, *args, **kwds)
        values = _arguments(dist, shapes, x, args, kwds)
        positional = (x, *args)
        projects = [ProjectTo(value) for value in positional]

        def method_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), NoTangent(), *(y_bar for _ in positional))
            with np.errstate(all="ignore"):  # outside the support: masked
                found = partials(*values, y)
            bars = [
                project(unbroadcast(np.asarray(_on_support(p, y) * y_bar), np.shape(value)))
                for project, p, value in zip(projects, found, positional, strict=False)
            ]
            return (NoTangent(), NoTangent(), *bars)

        named(method_pullback, f"{method}_pullback")
        return y, method_pullback

    def method_frule(dargs: tuple[Any, ...], dist: Any, x: Any, *args: Any, **kwds: Any
                     ) -> tuple[Any, Any]:  # fmt: skip
        shapes, partials = _partials_of(dist, method)
        y = function(dist, x, *args, **kwds)
        values = _arguments(dist, shapes, x, args, kwds)
        found = partials(*values, y)
        y_dot: Any = ZeroTangent()
        for k in range(1 + len(args)):
            dot = unthunk(dargs[2 + k])
            if not isinstance(dot, AbstractZero):
                y_dot = y_dot + _on_support(found[k], y) * dot
        return y, y_dot

    rules.rrule(function)(named(method_rrule, f"{method}_rrule"))
    rules.frule(function)(named(method_frule, f"{method}_frule"))


_method_rules(rv_continuous, "logpdf")
_method_rules(rv_continuous, "logcdf")
_method_rules(rv_discrete, "logpmf")
_method_rules(rv_discrete, "logcdf")

# A frozen distribution (`norm(loc, scale).logpdf(x)`) keeps its parameters in the object,
# whose cotangent srcad does not build yet: refused, saying what to write instead.
_FROZEN = (
    "srcad does not differentiate through a frozen distribution's parameters yet; pass "
    "them to the distribution's method instead: `norm.logpdf(x, loc, scale)`"
)
REFUSED = {
    rv_generic.__call__: _FROZEN,
    rv_generic.freeze: _FROZEN,
    rv_continuous_frozen.logpdf: _FROZEN,
    rv_frozen.logcdf: _FROZEN,
    rv_discrete_frozen.logpmf: _FROZEN,
}


# --- multivariate_normal.logpdf -----------------------------------------------------------------

_MVN_PARAMETERS = ("mean", "cov", "allow_singular")


def _mvn_parts(x: Any, mean: Any, cov: Any) -> tuple[Any, Any, int]:
    """The residuals `x - mean` (one row per point), the covariance as the full matrix the
    density uses (`cov` may be a number, the diagonal, or the matrix, of which SciPy reads
    the lower triangle), and its size."""
    x = np.asarray(x, dtype=float)
    if mean is not None and np.ndim(mean) == 1:
        size = np.shape(mean)[0]
    elif np.ndim(cov) >= 1:
        size = np.shape(cov)[-1]
    else:
        size = x.shape[-1] if x.ndim else 1
    full = np.asarray(cov, dtype=float)
    if full.ndim == 0:
        full = full * np.eye(size)
    elif full.ndim == 1:
        full = np.diag(full)
    else:
        full = _symmetric_of_lower(full)
    residuals = x - (0.0 if mean is None else np.asarray(mean))
    return residuals, full, size


def _symmetric_of_lower(m: Any) -> Any:
    """The symmetric matrix the lower triangle of `m` stands for."""
    return np.tril(m) + np.transpose(np.tril(m, -1))


def _read_lower(g: Any) -> Any:
    """The cotangent of a covariance SciPy reads through its lower triangle (`eigh`), from
    the symmetric cotangent `g` of the matrix it stands for."""
    return np.tril(g + np.transpose(g), -1) + np.diag(np.diag(g))


def _covariance_bar(cov: Any, g: Any) -> Any:
    """`g`, the cotangent of the full covariance, as the cotangent of `cov` as passed."""
    if np.ndim(cov) == 0:
        return np.trace(g)
    if np.ndim(cov) == 1:
        return np.diag(g).copy()
    return _read_lower(g)


def _mvn_options(args: tuple[Any, ...], kwds: dict[str, Any]) -> dict[str, Any]:
    given = dict(zip(_MVN_PARAMETERS, args, strict=False))
    given.update(kwds)
    if given.get("allow_singular"):
        raise TypeError(
            "srcad cannot differentiate multivariate_normal.logpdf(allow_singular=True)"
        )
    return given


@rules.rrule(type(stats.multivariate_normal).logpdf)
def multivariate_normal_logpdf_rrule(dist: Any, x: Any, *args: Any, **kwds: Any
                                     ) -> tuple[Any, Pullback]:  # fmt: skip
    """Reverse rule for `multivariate_normal.logpdf(x, mean, cov)`, `-(d^T S^-1 d) / 2 -
    log det S / 2 - n log(2 pi) / 2` with `d = x - mean`: `x_bar = -S^-1 d y_bar`,
    `mean_bar = -x_bar` (summed over the points), and `S_bar = (S^-1 d d^T S^-1 - S^-1) y_bar
    / 2`, onto the lower triangle SciPy reads (or the diagonal, or the number, as passed).
    `mean` and `cov` are differentiated where passed by position."""
    given = _mvn_options(args, kwds)
    mean, cov = given.get("mean"), given.get("cov", 1)
    y = dist.logpdf(x, *args, **kwds)
    residuals, full, _ = _mvn_parts(x, mean, cov)
    inverse = np.linalg.inv(full)
    scaled = residuals @ inverse  # S^-1 d, one row per point
    project_x = ProjectTo(x)
    projects = [ProjectTo(value) for value in args[:2]]

    def multivariate_normal_logpdf_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), NoTangent(), y_bar, *(y_bar for _ in args))
        weights = np.asarray(y_bar)[..., np.newaxis]
        x_bar = -scaled * weights
        points = np.reshape(scaled, (-1, np.shape(full)[0]))
        total = float(np.sum(y_bar))
        outer = np.einsum("pi,pj,p->ij", points, points, np.reshape(np.asarray(y_bar), -1))
        g = 0.5 * (outer - total * inverse)
        bars: list[Any] = [NoTangent()] * len(args)
        if projects:
            bars[0] = projects[0](unbroadcast(-x_bar, np.shape(args[0])))
        if len(projects) > 1:
            bars[1] = projects[1](_covariance_bar(args[1], g))
        return (NoTangent(), NoTangent(), project_x(x_bar), *bars)

    return y, multivariate_normal_logpdf_pullback


@rules.frule(type(stats.multivariate_normal).logpdf)
def multivariate_normal_logpdf_frule(dargs: tuple[Any, ...], dist: Any, x: Any, *args: Any,
                                     **kwds: Any) -> tuple[Any, Any]:  # fmt: skip
    """Forward rule for `multivariate_normal.logpdf`, with the partials of its reverse rule."""
    given = _mvn_options(args, kwds)
    mean, cov = given.get("mean"), given.get("cov", 1)
    y = dist.logpdf(x, *args, **kwds)
    residuals, full, size = _mvn_parts(x, mean, cov)
    inverse = np.linalg.inv(full)
    scaled = residuals @ inverse
    dots = [unthunk(d) for d in dargs[2:]]
    y_dot: Any = ZeroTangent()
    if not isinstance(dots[0], AbstractZero):
        y_dot = y_dot - np.sum(scaled * np.asarray(dots[0]), axis=-1)
    if len(dots) > 1 and not isinstance(dots[1], AbstractZero):
        y_dot = y_dot + np.sum(scaled * np.asarray(dots[1]), axis=-1)
    if len(dots) > 2 and not isinstance(dots[2], AbstractZero):
        cov_dot = np.asarray(dots[2], dtype=float)
        if cov_dot.ndim == 0:
            full_dot = cov_dot * np.eye(size)
        elif cov_dot.ndim == 1:
            full_dot = np.diag(cov_dot)
        else:  # the matrix the lower triangle stands for
            full_dot = _symmetric_of_lower(cov_dot)
        quadratic = np.einsum("...i,ij,...j->...", scaled, full_dot, scaled)
        y_dot = y_dot + 0.5 * (quadratic - np.trace(inverse @ full_dot))
    return y, y_dot

"""Rules for `scipy.stats`: the log densities of `norm`, `t`, `gamma` and `beta`
(`logpdf`, `logcdf`), and of `poisson` (`logpmf`, `logcdf`), and their exponentials
(`pdf`, `pmf`, `cdf`), called on the distribution objects, `norm.logpdf(x, loc, scale)`,
or on frozen ones, `norm(loc, scale).logpdf(x)`; and `multivariate_normal.logpdf`.

Installed once the user imports `scipy.stats` (`rules/__init__.py: SCIPY_RULE_SETS`).
SciPy computes these through one method of `rv_continuous` or `rv_discrete` shared by
every distribution; the rule of that method gives each family's partials (in the point
and each parameter, passed by position; keywords such as `loc=` are options, which srcad
does not differentiate), and refuses, naming it, a family or method it has none for.
The partials are written with functions that have rules, so that the forward rules are
differentiated in turn. Outside the support, where the log density is `-inf` (or where
SciPy gives NaN for invalid parameters), the partials are 0. The log cdfs of `t`, `gamma`
and `beta` have no partial in their shape parameters (`df`, `a`, `b`: derivatives of the
incomplete beta and gamma functions in their parameters): a cotangent there is a
not-implemented one (an error where it is used), a tangent there is refused.
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
from scipy.stats._multivariate import multivariate_normal_frozen

from srcad.errors import MissingRuleError
from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import CONFIG, RuleSet, named
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    elements_of,
    not_implemented,
    unthunk,
)

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


def _continuous_logcdf(family: Any) -> Partials:
    """The partials of `family.logcdf(x, *shapes, loc, scale)` in the point, `loc` and
    `scale`: with `h = pdf / cdf` (the log density less the log cdf, exponentiated), `h`,
    `-h` and `-h z`. Those in the shapes (derivatives of incomplete gamma and beta
    functions in their parameters) are not written: None, which the rules give as a
    not-implemented cotangent (an error if used) and refuse as a tangent."""

    def partials(x: Any, *rest: Any) -> list[Any]:
        *shapes, loc, scale, y = rest
        z = (x - loc) / scale
        hazard = np.exp(family.logpdf(x, *shapes, loc, scale) - y)
        return [hazard, *(None for _ in shapes), -hazard, -hazard * z]

    return partials


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
    type(stats.t): (("df",), {"logpdf": _t_logpdf, "logcdf": _continuous_logcdf(stats.t)}),
    type(stats.gamma): (
        ("a",),
        {"logpdf": _gamma_logpdf, "logcdf": _continuous_logcdf(stats.gamma)},
    ),
    type(stats.beta): (
        ("a", "b"),
        {"logpdf": _beta_logpdf, "logcdf": _continuous_logcdf(stats.beta)},
    ),
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


def _unwritten(dist: Any, method: str, position: int) -> str:
    shapes, _ = _FAMILIES.get(type(dist), ((), {}))
    name = ("x", *shapes)[position] if position <= len(shapes) else f"argument {position}"
    return (
        f"the derivative of `{getattr(dist, 'name', '')}.{method}` in its shape parameter "
        f"`{name}` is not written; srcad differentiates it in x, loc and scale"
    )


# The methods that are the exponentials of the log methods: their partials are those of
# the log method times the value.
_EXPONENTIALS = {"pdf": "logpdf", "pmf": "logpmf", "cdf": "logcdf"}


def _method_rules(owner: type, method: str) -> None:
    """Both rules of `owner.method` (`rv_continuous.logpdf`, `rv_continuous.pdf`, ...), for
    every family: the partials of the log method, times the value for `pdf`, `pmf` and
    `cdf`."""
    function = getattr(owner, method)
    log_method = _EXPONENTIALS.get(method, method)
    log_function = getattr(owner, log_method)

    def weighted(dist: Any, x: Any, args: tuple[Any, ...], kwds: dict[str, Any], y: Any
                 ) -> list[Any]:  # fmt: skip
        """The partials of `method` in the point and each parameter (None: not written)."""
        shapes, partials = _partials_of(dist, log_method)
        values = _arguments(dist, shapes, x, args, kwds)
        log_y = y if log_method == method else log_function(dist, x, *args, **kwds)
        with np.errstate(all="ignore"):  # outside the support: masked
            found = partials(*values, log_y)
            scale = 1.0 if log_method == method else y
            return [None if p is None else _on_support(p, log_y) * scale for p in found]

    def method_rrule(dist: Any, x: Any, *args: Any, **kwds: Any) -> tuple[Any, Pullback]:
        _partials_of(dist, log_method)
        y = function(dist, x, *args, **kwds)
        positional = (x, *args)
        projects = [ProjectTo(value) for value in positional]

        def method_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), NoTangent(), *(y_bar for _ in positional))
            found = weighted(dist, x, args, kwds, y)
            bars = [
                not_implemented(_unwritten(dist, method, k))
                if p is None
                else project(unbroadcast(np.asarray(p * y_bar), np.shape(value)))
                for k, (project, p, value) in enumerate(
                    zip(projects, found, positional, strict=False)
                )
            ]
            return (NoTangent(), NoTangent(), *bars)

        named(method_pullback, f"{method}_pullback")
        return y, method_pullback

    def method_frule(dargs: tuple[Any, ...], dist: Any, x: Any, *args: Any, **kwds: Any
                     ) -> tuple[Any, Any]:  # fmt: skip
        _partials_of(dist, log_method)
        y = function(dist, x, *args, **kwds)
        found = weighted(dist, x, args, kwds, y)
        y_dot: Any = ZeroTangent()
        for k in range(1 + len(args)):
            dot = unthunk(dargs[2 + k]) if 2 + k < len(dargs) else ZeroTangent()
            if isinstance(dot, AbstractZero):
                continue
            if found[k] is None:
                raise MissingRuleError(f"srcad cannot differentiate: {_unwritten(dist, method, k)}")
            y_dot = y_dot + found[k] * dot
        return y, y_dot

    rules.rrule(function)(named(method_rrule, f"{method}_rrule"))
    rules.frule(function)(named(method_frule, f"{method}_frule"))


_METHODS: tuple[tuple[type, tuple[str, ...]], ...] = (
    (rv_continuous, ("logpdf", "logcdf", "pdf", "cdf")),
    (rv_discrete, ("logpmf", "logcdf", "pmf", "cdf")),
)
for _owner, _methods in _METHODS:
    for _method in _methods:
        _method_rules(_owner, _method)


# --- frozen distributions -----------------------------------------------------------------
# `norm(loc, scale)` (`rv_generic.__call__`, `freeze`) keeps its arguments in the frozen
# object, whose (co)tangent is `Tangent(kind, args=Tangent(tuple, *one_per_argument))`; its
# methods (`.logpdf(x)`, `.cdf(x)`, ...) are the distribution's, called with those
# arguments, through their rules. Arguments given by keyword (`scale=2.0`) are options, not
# differentiated (E211 refuses a differentiated one where the distribution is frozen).


def _frozen_tangent(frozen: Any, dots: Any) -> Any:
    if all(isinstance(unthunk(d), AbstractZero) for d in dots):
        return ZeroTangent()
    return Tangent(type(frozen), args=Tangent(tuple, *dots))


def _frozen_argument_tangents(frozen: Any, frozen_tangent: Any) -> tuple[Any, ...]:
    frozen_tangent = unthunk(frozen_tangent)
    if isinstance(frozen_tangent, Tangent):
        return elements_of(unthunk(frozen_tangent.args), len(frozen.args))
    return (ZeroTangent(),) * len(frozen.args)


@rules.rrule(rv_generic.__call__)
def frozen_rrule(dist: Any, *args: Any, **kwds: Any) -> tuple[Any, Pullback]:
    """`norm(loc, scale)`: the cotangent of each argument is the frozen object's part.
    (Called as an object, its pullback gives the distribution's cotangent first.)"""
    frozen = dist(*args, **kwds)

    def frozen_pullback(frozen_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *_frozen_argument_tangents(frozen, frozen_bar))

    return frozen, frozen_pullback


@rules.rrule(rv_generic.freeze)
def freeze_rrule(dist: Any, *args: Any, **kwds: Any) -> tuple[Any, Pullback]:
    """`norm.freeze(loc, scale)`, as `norm(loc, scale)`."""
    frozen, pullback = frozen_rrule(dist, *args, **kwds)

    def freeze_pullback(frozen_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *pullback(frozen_bar))

    return frozen, freeze_pullback


@rules.frule(rv_generic.__call__, rv_generic.freeze)
def frozen_frule(dargs: tuple[Any, ...], dist: Any, *args: Any, **kwds: Any) -> tuple[Any, Any]:
    frozen = dist(*args, **kwds)
    return frozen, _frozen_tangent(frozen, dargs[2 : 2 + len(args)])


def _frozen_method_rules(owner: type, method: str) -> None:
    """Both rules of a frozen distribution's `owner.method` (`rv_continuous_frozen.logpdf`):
    the rules of the distribution's own method, with the frozen arguments."""
    function = getattr(owner, method)

    def frozen_method_rrule(frozen: Any, x: Any) -> tuple[Any, Pullback]:
        base = getattr(type(frozen.dist), method)
        y, pullback = CONFIG.rrule_via_ad(base, frozen.dist, x, *frozen.args, **frozen.kwds)

        def frozen_method_pullback(y_bar: Any) -> tuple[Any, ...]:
            _, _, x_bar, *arg_bars = pullback(y_bar)
            return (NoTangent(), _frozen_tangent(frozen, arg_bars), x_bar)

        named(frozen_method_pullback, f"frozen_{method}_pullback")
        return y, frozen_method_pullback

    def frozen_method_frule(dargs: tuple[Any, ...], frozen: Any, x: Any) -> tuple[Any, Any]:
        base = getattr(type(frozen.dist), method)
        dots = (NoTangent(), NoTangent(), dargs[2], *_frozen_argument_tangents(frozen, dargs[1]))
        return CONFIG.frule_via_ad(dots, base, frozen.dist, x, *frozen.args, **frozen.kwds)

    rules.rrule(function)(named(frozen_method_rrule, f"frozen_{method}_rrule"))
    rules.frule(function)(named(frozen_method_frule, f"frozen_{method}_frule"))


_FROZEN_METHODS: tuple[tuple[type, tuple[str, ...]], ...] = (
    (rv_continuous_frozen, ("logpdf", "pdf")),
    (rv_discrete_frozen, ("logpmf", "pmf")),
    (rv_frozen, ("logcdf", "cdf")),
)
for _owner, _methods in _FROZEN_METHODS:
    for _method in _methods:
        _frozen_method_rules(_owner, _method)


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


# --- multivariate_normal(mean, cov), frozen ---------------------------------------------
# Its (co)tangent is `Tangent(kind, args=Tangent(tuple, mean_part, cov_part))`, with the
# covariance's part that of the full matrix (`frozen.cov`) as `multivariate_normal.logpdf`'s
# rules take it: their cotangent of a matrix read through its lower triangle, their tangent
# of a matrix whose lower triangle is read.

_MVN = type(stats.multivariate_normal)


def _covariance_as_passed(cov: Any, full_bar: Any) -> Any:
    """The cotangent of `cov` as passed (a number, the diagonal or the matrix) from the
    cotangent of the full matrix read through its lower triangle."""
    if np.ndim(cov) == 0:
        return np.trace(full_bar)
    if np.ndim(cov) == 1:
        return np.diag(full_bar).copy()
    return full_bar


def _full_covariance_tangent(cov_dot: Any, size: int) -> Any:
    cov_dot = np.asarray(cov_dot, dtype=float)
    if cov_dot.ndim == 0:
        return cov_dot * np.eye(size)
    return np.diag(cov_dot) if cov_dot.ndim == 1 else cov_dot


@rules.rrule(_MVN.__call__)
def multivariate_normal_frozen_rrule(dist: Any, *args: Any, **kwds: Any) -> tuple[Any, Pullback]:
    """`multivariate_normal(mean, cov)`: `mean` and `cov` differentiated where passed by
    position. (Called as an object, its pullback gives the distribution's cotangent first.)"""
    _mvn_options(args, kwds)
    frozen = dist(*args, **kwds)
    projects = [ProjectTo(a) if a is not None else None for a in args[:2]]

    def multivariate_normal_frozen_pullback(frozen_bar: Any) -> tuple[Any, ...]:
        mean_bar, full_bar = _frozen_parts(frozen_bar, 2)
        bars: list[Any] = [NoTangent()] * len(args)
        if projects and projects[0] is not None and not isinstance(mean_bar, AbstractZero):
            bars[0] = projects[0](unbroadcast(mean_bar, np.shape(args[0])))
        project_cov = projects[1] if len(projects) > 1 else None
        if project_cov is not None and not isinstance(full_bar, AbstractZero):
            bars[1] = project_cov(_covariance_as_passed(args[1], full_bar))
        return (NoTangent(), *bars)

    return frozen, multivariate_normal_frozen_pullback


@rules.frule(_MVN.__call__)
def multivariate_normal_frozen_frule(dargs: tuple[Any, ...], dist: Any, *args: Any,
                                     **kwds: Any) -> tuple[Any, Any]:  # fmt: skip
    _mvn_options(args, kwds)
    frozen = dist(*args, **kwds)
    dots = [unthunk(d) for d in dargs[2 : 2 + min(len(args), 2)]]
    dots += [ZeroTangent()] * (2 - len(dots))
    if not isinstance(dots[1], AbstractZero):
        dots[1] = _full_covariance_tangent(dots[1], frozen.dim)
    return frozen, _frozen_tangent(frozen, dots)


def _frozen_parts(frozen_tangent: Any, count: int) -> tuple[Any, ...]:
    frozen_tangent = unthunk(frozen_tangent)
    if isinstance(frozen_tangent, Tangent):
        return tuple(unthunk(e) for e in elements_of(unthunk(frozen_tangent.args), count))
    return (ZeroTangent(),) * count


@rules.rrule(multivariate_normal_frozen.logpdf)
def multivariate_normal_frozen_logpdf_rrule(frozen: Any, x: Any) -> tuple[Any, Pullback]:
    """A frozen multivariate normal's `logpdf(x)`: `multivariate_normal.logpdf`'s rule,
    with its mean and full covariance."""
    y = frozen.logpdf(x)
    _, pullback = multivariate_normal_logpdf_rrule(
        stats.multivariate_normal, x, frozen.mean, frozen.cov
    )

    def multivariate_normal_frozen_logpdf_pullback(y_bar: Any) -> tuple[Any, ...]:
        _, _, x_bar, mean_bar, cov_bar = pullback(y_bar)
        return (NoTangent(), _frozen_tangent(frozen, (mean_bar, cov_bar)), x_bar)

    return y, multivariate_normal_frozen_logpdf_pullback


@rules.frule(multivariate_normal_frozen.logpdf)
def multivariate_normal_frozen_logpdf_frule(dargs: tuple[Any, ...], frozen: Any, x: Any
                                            ) -> tuple[Any, Any]:  # fmt: skip
    mean_dot, cov_dot = _frozen_parts(dargs[1], 2)
    dots = (NoTangent(), NoTangent(), dargs[2], mean_dot, cov_dot)
    _, y_dot = multivariate_normal_logpdf_frule(
        dots, stats.multivariate_normal, x, frozen.mean, frozen.cov
    )
    return frozen.logpdf(x), y_dot

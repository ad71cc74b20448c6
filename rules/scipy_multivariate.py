"""Rules for `scipy.stats.multivariate_normal`: `logpdf(x, mean, cov)`, called on the
distribution or on a frozen one (`multivariate_normal(mean, cov).logpdf(x)`), in the point,
the mean and the covariance (a number, the diagonal, or the matrix whose lower triangle
SciPy reads), passed by position; to second order, through the rules srcad compiles for
`_mvn_value_and_tangent`.

Installed once the user imports `scipy.stats` (`rules/__init__.py: SCIPY_RULE_SETS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats
from scipy.stats._multivariate import multivariate_normal_frozen

from srcad.errors import UnsupportedCallError
from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import CONFIG, RuleSet
from srcad.rules.scipy_stats import frozen_tangent, tangent_parts
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("scipy_multivariate")

Pullback = Any

# --- multivariate_normal.logpdf -----------------------------------------------------------------

_MVN_PARAMETERS = ("mean", "cov", "allow_singular")


def _mvntangent_parts(x: Any, mean: Any, cov: Any) -> tuple[Any, Any, int]:
    """The residuals `x - mean` (one row per point), the covariance as the full matrix the
    density uses (`cov` may be a number, the diagonal, or the matrix, of which SciPy reads
    the lower triangle), and its size, as SciPy reads them (`_process_parameters_psd`,
    `_process_quantiles`): the dimension is the mean's size, or without a mean the
    covariance matrix's, else 1; a vector `x` is one point, or, in dimension 1, one point
    per element (each a row here, whatever `x`'s shape: the caller reshapes back)."""
    if mean is not None:
        size = int(np.size(mean))
    elif np.ndim(cov) >= 2:
        size = int(np.shape(cov)[0])
    else:
        size = 1
    full = np.asarray(cov, dtype=float)
    if size == 1:
        full = np.reshape(full, (1, 1))
    if full.ndim == 0:
        full = full * np.eye(size)
    elif full.ndim == 1:
        full = np.diag(full)
    else:
        full = _symmetric_of_lower(full)
    points = np.asarray(x, dtype=float)
    if points.ndim == 0:
        points = np.reshape(points, (1,))
    elif points.ndim == 1:
        points = np.reshape(points, (-1, 1) if size == 1 else (1, -1))
    if mean is None:
        return points, full, size
    return points - np.reshape(np.asarray(mean, dtype=float), (size,)), full, size


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
        raise UnsupportedCallError(
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
    residuals, full, _ = _mvntangent_parts(x, mean, cov)
    inverse = np.linalg.inv(full)
    scaled = residuals @ inverse  # S^-1 d, one row per point
    project_x = ProjectTo(x)
    projects = [ProjectTo(value) for value in args[:2]]

    def multivariate_normal_logpdf_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), NoTangent(), y_bar, *(y_bar for _ in args))
        weights = np.reshape(np.asarray(y_bar), np.shape(residuals)[:-1])[..., np.newaxis]
        x_bar = -scaled * weights
        points = np.reshape(scaled, (-1, np.shape(full)[0]))
        total = float(np.sum(y_bar))
        outer = np.einsum("pi,pj,p->ij", points, points, np.reshape(np.asarray(y_bar), -1))
        g = 0.5 * (outer - total * inverse)
        bars: list[Any] = [NoTangent()] * len(args)
        if projects and args[0] is not None:  # (a mean of None has no cotangent)
            bars[0] = projects[0](unbroadcast(-x_bar, np.shape(args[0])))
        if len(projects) > 1:
            bars[1] = projects[1](_covariance_bar(args[1], g))
        return (NoTangent(), NoTangent(), project_x(np.reshape(x_bar, np.shape(x))), *bars)

    return y, multivariate_normal_logpdf_pullback


@rules.frule(type(stats.multivariate_normal).logpdf)
def multivariate_normal_logpdf_frule(dargs: tuple[Any, ...], dist: Any, x: Any, *args: Any,
                                     **kwds: Any) -> tuple[Any, Any]:  # fmt: skip
    """Forward rule for `multivariate_normal.logpdf`, with the partials of its reverse rule."""
    given = _mvn_options(args, kwds)
    mean, cov = given.get("mean"), given.get("cov", 1)
    y = dist.logpdf(x, *args, **kwds)
    residuals, full, size = _mvntangent_parts(x, mean, cov)
    inverse = np.linalg.inv(full)
    scaled = residuals @ inverse
    dots = [unthunk(d) for d in dargs[2:]]
    y_dot: Any = ZeroTangent()
    if not isinstance(dots[0], AbstractZero):
        y_dot = y_dot - np.sum(scaled * np.reshape(dots[0], np.shape(residuals)), axis=-1)
    if len(dots) > 1 and not isinstance(dots[1], AbstractZero):
        y_dot = y_dot + np.sum(scaled * np.reshape(dots[1], (size,)), axis=-1)
    if len(dots) > 2 and not isinstance(dots[2], AbstractZero):
        full_dot = _full_covariance_tangent_of_lower(np.asarray(dots[2], dtype=float), size)
        quadratic = np.einsum("...i,ij,...j->...", scaled, full_dot, scaled)
        y_dot = y_dot + 0.5 * (quadratic - np.trace(inverse @ full_dot))
    if isinstance(y_dot, AbstractZero):
        return y, y_dot
    return y, np.reshape(y_dot, np.shape(y))


@rules.rrule(multivariate_normal_logpdf_frule)
def multivariate_normal_logpdf_frule_rrule(dargs: tuple[Any, ...], dist: Any, x: Any, *args: Any,
                                           **kwds: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """The reverse rule of `multivariate_normal_logpdf_frule` (second derivatives): that of
    `_mvn_value_and_tangent`, which srcad compiles. `mean` and `cov` are differentiated
    where passed by position, as at first order."""
    given = _mvn_options(args, kwds)
    mean, cov = given.get("mean"), given.get("cov", 1)
    count = min(len(args), 2)
    dots = [unthunk(d) for d in dargs[2 : 3 + count]]
    dots += [ZeroTangent()] * (3 - len(dots))
    moving = tuple(not isinstance(d, AbstractZero) for d in dots)
    values = [0.0 if isinstance(d, AbstractZero) else d for d in dots]
    result, pullback = CONFIG.rrule_via_ad(
        _mvn_value_and_tangent, dist, x, _mean_or_zeros(mean, cov), cov, *values, moving
    )

    def multivariate_normal_logpdf_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, _, x_bar, mean_bar, cov_bar, *dot_bars, _ = pullback(bars)
        dargs_bar = Tangent(tuple, NoTangent(), NoTangent(), *dot_bars[: len(dargs) - 2])
        if mean is None:
            mean_bar = NoTangent()
        return (NoTangent(), dargs_bar, NoTangent(), x_bar, *(mean_bar, cov_bar)[:count])

    return result, multivariate_normal_logpdf_frule_pullback


def _mean_or_zeros(mean: Any, cov: Any) -> Any:
    """`mean`, or for None the zero mean SciPy takes, of the covariance matrix's dimension
    (1 for a number or a vector: SciPy's reading): a number 0.0 would tell SciPy the
    dimension is 1, which a covariance matrix contradicts (a crash)."""
    if mean is not None:
        return mean
    return np.zeros(np.shape(cov)[0] if np.ndim(cov) >= 2 else 1)


def _mvn_value_and_tangent(dist: Any, x: Any, mean: Any, cov: Any, x_dot: Any, mean_dot: Any,
                           cov_dot: Any, moving: tuple[bool, bool, bool]
                           ) -> tuple[Any, Any]:  # fmt: skip
    """`multivariate_normal.logpdf(x, mean, cov)` and its tangent (what its forward rule
    gives), written for srcad to differentiate; `moving` says which tangents are not zero."""
    y = _MVN.logpdf(dist, x, mean, cov)
    residuals, full, size = _mvntangent_parts(x, mean, cov)
    inverse = np.linalg.inv(full)
    scaled = residuals @ inverse
    y_dot = np.zeros(np.shape(residuals)[:-1])
    if moving[0]:
        y_dot = y_dot - np.sum(scaled * np.reshape(x_dot, np.shape(residuals)), axis=-1)
    if moving[1]:
        y_dot = y_dot + np.sum(scaled * np.reshape(mean_dot, (size,)), axis=-1)
    if moving[2]:
        full_dot = _full_covariance_tangent_of_lower(cov_dot, size)
        quadratic = np.einsum("...i,ij,...j->...", scaled, full_dot, scaled)
        y_dot = y_dot + 0.5 * (quadratic - np.trace(inverse @ full_dot))
    return y, np.reshape(y_dot, np.shape(y))


def _full_covariance_tangent_of_lower(cov_dot: Any, size: int) -> Any:
    """The tangent of the full covariance from that of `cov` as passed (a number, the
    diagonal, or the matrix whose lower triangle is read)."""
    if np.ndim(cov_dot) == 0:
        return cov_dot * np.eye(size)
    if np.ndim(cov_dot) == 1:
        return np.diag(cov_dot)
    return _symmetric_of_lower(cov_dot)


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
        mean_bar, full_bar = _frozentangent_parts(frozen_bar, 2)
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
    mean_dot = dots[0] if dots else ZeroTangent()
    cov_dot = dots[1] if len(dots) > 1 else ZeroTangent()
    if not isinstance(cov_dot, AbstractZero):
        cov_dot = _full_covariance_tangent(cov_dot, frozen.dim)
    return frozen, frozen_tangent(frozen, (mean_dot, cov_dot))


@rules.rrule(multivariate_normal_frozen_frule)
def multivariate_normal_frozen_frule_rrule(dargs: tuple[Any, ...], dist: Any, *args: Any,
                                           **kwds: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """The reverse rule of `multivariate_normal_frozen_frule` (second derivatives): the
    frozen object pulls back as at first order, and its tangent, linear in the tangents
    of `mean` and `cov`, to them the same way."""
    frozen, frozen_dot = multivariate_normal_frozen_frule(dargs, dist, *args, **kwds)
    _, pullback = multivariate_normal_frozen_rrule(dist, *args, **kwds)
    count = max(len(dargs) - 2, 0)

    def multivariate_normal_frozen_frule_pullback(bars: Any) -> tuple[Any, ...]:
        frozen_bar, frozen_dot_bar = elements_of(unthunk(bars), 2)
        _, *arg_bars = pullback(frozen_bar)
        _, *dot_bars = pullback(frozen_dot_bar)
        dargs_bar = Tangent(tuple, NoTangent(), NoTangent(), *dot_bars[:count])
        return (NoTangent(), dargs_bar, NoTangent(), *arg_bars)

    return (frozen, frozen_dot), multivariate_normal_frozen_frule_pullback


def _frozentangent_parts(frozen_tangent: Any, count: int) -> tuple[Any, ...]:
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
        return (NoTangent(), frozen_tangent(frozen, (mean_bar, cov_bar)), x_bar)

    return y, multivariate_normal_frozen_logpdf_pullback


@rules.frule(multivariate_normal_frozen.logpdf)
def multivariate_normal_frozen_logpdf_frule(dargs: tuple[Any, ...], frozen: Any, x: Any
                                            ) -> tuple[Any, Any]:  # fmt: skip
    mean_dot, cov_dot = _frozentangent_parts(dargs[1], 2)
    dots = (NoTangent(), NoTangent(), dargs[2], mean_dot, cov_dot)
    _, y_dot = multivariate_normal_logpdf_frule(
        dots, stats.multivariate_normal, x, frozen.mean, frozen.cov
    )
    return frozen.logpdf(x), y_dot


@rules.rrule(multivariate_normal_frozen_logpdf_frule)
def multivariate_normal_frozen_logpdf_frule_rrule(dargs: tuple[Any, ...], frozen: Any, x: Any
                                                  ) -> tuple[Any, Pullback]:  # fmt: skip
    """The reverse rule of `multivariate_normal_frozen_logpdf_frule` (second derivatives):
    that of `multivariate_normal.logpdf`'s forward rule, with the frozen mean and full
    covariance."""
    mean_dot, cov_dot = _frozentangent_parts(dargs[1], 2)
    dots = (NoTangent(), NoTangent(), dargs[2], mean_dot, cov_dot)
    result, pullback = multivariate_normal_logpdf_frule_rrule(
        dots, stats.multivariate_normal, x, frozen.mean, frozen.cov
    )

    def multivariate_normal_frozen_logpdf_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, dots_bar, _, x_bar, mean_bar, cov_bar = pullback(bars)
        _, _, x_dot_bar, mean_dot_bar, cov_dot_bar = tangent_parts(unthunk(dots_bar), 5)
        frozen_dot_bar = frozen_tangent(frozen, (mean_dot_bar, cov_dot_bar))
        dargs_bar = Tangent(tuple, NoTangent(), frozen_dot_bar, x_dot_bar)
        return (NoTangent(), dargs_bar, frozen_tangent(frozen, (mean_bar, cov_bar)), x_bar)

    return result, multivariate_normal_frozen_logpdf_frule_pullback


# --- third derivatives --------------------------------------------------------------------


def _is_zero(dot: Any) -> bool:
    return isinstance(unthunk(dot), AbstractZero)


def _padded_dots(dots: Any, count: int) -> list[Any]:
    """`count` tangents (of the point, the mean, the covariance), zeros past those given."""
    found = list(dots)[:count]
    return found + [ZeroTangent()] * (count - len(found))


def _mvn_twice_arguments(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], dist: Any, x: Any,
                         args: tuple[Any, ...], kwds: dict[str, Any]
                         ) -> tuple[tuple[Any, ...], tuple[Any, ...], int]:  # fmt: skip
    """The arguments of `_mvn_value_and_tangent` and their tangents, for the forward rule
    of `multivariate_normal_logpdf_frule` called so (third derivatives): a position moves
    where its tangent or that tangent's own is not zero (a zero one materialised in its
    value's shape, so that its tangent has something to move); and how many of `mean` and
    `cov` were passed by position."""
    given = _mvn_options(args, kwds)
    mean, cov = given.get("mean"), given.get("cov", 1)
    count = min(len(args), 2)
    primals = (x, _mean_or_zeros(mean, cov), cov)
    dots = _padded_dots(dargs[2 : 3 + count], 3)
    inner = unthunk(dargs2[1])
    dot_dots = _padded_dots(
        () if isinstance(inner, AbstractZero) else elements_of(inner, len(dargs))[2 : 3 + count], 3
    )
    value_dots = _padded_dots(dargs2[3 : 4 + count], 3)
    moving = tuple(not (_is_zero(d) and _is_zero(dd)) for d, dd in zip(dots, dot_dots, strict=True))
    values = [
        (np.zeros(np.shape(p)) if m else 0.0) if _is_zero(d) else unthunk(d)
        for p, d, m in zip(primals, dots, moving, strict=True)
    ]
    full = (dist, *primals, *values, moving)
    tangents = (NoTangent(), NoTangent(), *value_dots, *dot_dots, NoTangent())
    return full, tangents, count


def multivariate_normal_logpdf_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                           dist: Any, x: Any, *args: Any, **kwds: Any
                                           ) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `multivariate_normal_logpdf_frule` (third derivatives): srcad's
    forward rule of `_mvn_value_and_tangent`."""
    full, tangents, _ = _mvn_twice_arguments(dargs2, dargs, dist, x, args, kwds)
    found: tuple[Any, Any] = CONFIG.frule_via_ad(tangents, _mvn_value_and_tangent, *full)
    return found


def multivariate_normal_logpdf_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                                 dist: Any, x: Any, *args: Any, **kwds: Any
                                                 ) -> tuple[Any, Pullback]:  # fmt: skip
    """`multivariate_normal_logpdf_frule_frule`'s: the reverse rule srcad compiles for the
    forward rule it generates for `_mvn_value_and_tangent`."""
    full, tangents, count = _mvn_twice_arguments(dargs2, dargs, dist, x, args, kwds)
    twice = CONFIG.forward_rule(_mvn_value_and_tangent, full)
    result, pullback = CONFIG.rrule_via_ad(twice, tangents, *full)

    def multivariate_normal_logpdf_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, tangents_bar, _, x_bar, mean_bar, cov_bar, *dot_bars, _ = pullback(bars)
        parts = tangent_parts(unthunk(tangents_bar), len(tangents))
        inner = Tangent(tuple, NoTangent(), NoTangent(), *parts[5:8][: len(dargs) - 2])
        dargs2_bar = Tangent(tuple, NoTangent(), inner, NoTangent(),
                             *parts[2:5][: len(dargs2) - 3])  # fmt: skip
        dargs_bar = Tangent(tuple, NoTangent(), NoTangent(), *dot_bars[: len(dargs) - 2])
        return (NoTangent(), dargs2_bar, dargs_bar, NoTangent(), x_bar,
                *(mean_bar, cov_bar)[:count])  # fmt: skip

    return result, multivariate_normal_logpdf_frule_frule_pullback


rules.frule(multivariate_normal_logpdf_frule)(multivariate_normal_logpdf_frule_frule)
rules.rrule(multivariate_normal_logpdf_frule_frule)(multivariate_normal_logpdf_frule_frule_rrule)


def _frozen_groups(dargs2: tuple[Any, ...], dargs: tuple[Any, ...]) -> tuple[Any, Any]:
    """The tangents of `multivariate_normal(mean, cov)`'s forward rule's tangents (of the
    frozen object's tangent) and of its arguments (of the frozen object), as groups of
    tangents of its forward rule."""
    inner = unthunk(dargs2[1])
    dot_dot = inner if isinstance(inner, AbstractZero) else tuple(elements_of(inner, len(dargs)))
    return dot_dot, (NoTangent(), NoTangent(), *dargs2[3:])


def multivariate_normal_frozen_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                           dist: Any, *args: Any, **kwds: Any
                                           ) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `multivariate_normal_frozen_frule` (third derivatives), linear in
    the tangents: the frozen object's tangent of each group."""
    value = multivariate_normal_frozen_frule(dargs, dist, *args, **kwds)
    dot_dot, dot2 = _frozen_groups(dargs2, dargs)

    def tangent(group: Any) -> Any:
        if isinstance(group, AbstractZero):
            return group
        return multivariate_normal_frozen_frule(group, dist, *args, **kwds)[1]

    return value, (tangent(dot2), tangent(dot_dot))


def multivariate_normal_frozen_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                                 dist: Any, *args: Any, **kwds: Any
                                                 ) -> tuple[Any, Pullback]:  # fmt: skip
    """`multivariate_normal_frozen_frule_frule`'s: each frozen object's cotangent pulled
    back as at first order, to the tangents (or the arguments) it was made of."""
    result = multivariate_normal_frozen_frule_frule(dargs2, dargs, dist, *args, **kwds)
    _, pullback = multivariate_normal_frozen_rrule(dist, *args, **kwds)

    def group(bar: Any, size: int) -> Any:
        _, *found = pullback(bar)
        return Tangent(tuple, NoTangent(), NoTangent(), *found[: max(size - 2, 0)])

    def multivariate_normal_frozen_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        value_bar, tangent_bar = tangent_parts(unthunk(bars), 2)
        frozen_bar, dot_bar = tangent_parts(unthunk(value_bar), 2)
        dot2_bar, dot_dot_bar = tangent_parts(unthunk(tangent_bar), 2)
        _, *dot2_bars = pullback(dot2_bar)
        dargs2_bar = Tangent(tuple, NoTangent(), group(dot_dot_bar, len(dargs)), NoTangent(),
                             *dot2_bars[: len(dargs2) - 3])  # fmt: skip
        _, *arg_bars = pullback(frozen_bar)
        return (NoTangent(), dargs2_bar, group(dot_bar, len(dargs)), NoTangent(), *arg_bars)

    return result, multivariate_normal_frozen_frule_frule_pullback


rules.frule(multivariate_normal_frozen_frule)(multivariate_normal_frozen_frule_frule)
rules.rrule(multivariate_normal_frozen_frule_frule)(multivariate_normal_frozen_frule_frule_rrule)


def _as_logpdf_group(group: Any) -> Any:
    """A group of tangents of a frozen `logpdf(x)`'s forward rule (its own, the frozen
    object's, the point's) as `multivariate_normal.logpdf`'s (its own, the distribution's,
    the point's, the mean's, the covariance's)."""
    group = unthunk(group)
    if isinstance(group, AbstractZero):
        return group
    _, frozen_dot, x_dot = tangent_parts(group, 3)
    return (NoTangent(), NoTangent(), x_dot, *_frozentangent_parts(frozen_dot, 2))


def _as_frozen_logpdf_group(frozen: Any, bar: Any) -> Any:
    """`_as_logpdf_group`'s adjoint."""
    bar = unthunk(bar)
    if isinstance(bar, AbstractZero):
        return bar
    found = tangent_parts(bar, 5)
    return Tangent(tuple, NoTangent(), frozen_tangent(frozen, found[3:]), found[2])


def _frozen_logpdf_tangents(dargs2: tuple[Any, ...], dargs: tuple[Any, ...]
                            ) -> tuple[tuple[Any, ...], Any]:  # fmt: skip
    outer = (NoTangent(), _as_logpdf_group(dargs2[1]), NoTangent(), dargs2[3],
             *_frozentangent_parts(dargs2[2], 2))  # fmt: skip
    return outer, _as_logpdf_group(dargs)


def multivariate_normal_frozen_logpdf_frule_frule(
    dargs2: tuple[Any, ...], dargs: tuple[Any, ...], frozen: Any, x: Any
) -> tuple[Any, Any]:
    """The forward rule of `multivariate_normal_frozen_logpdf_frule` (third derivatives):
    `multivariate_normal.logpdf`'s forward rule's, with the frozen mean and covariance."""
    outer, inner = _frozen_logpdf_tangents(dargs2, dargs)
    return multivariate_normal_logpdf_frule_frule(
        outer, inner, stats.multivariate_normal, x, frozen.mean, frozen.cov
    )


def multivariate_normal_frozen_logpdf_frule_frule_rrule(
    dargs2: tuple[Any, ...], dargs: tuple[Any, ...], frozen: Any, x: Any
) -> tuple[Any, Pullback]:
    outer, inner = _frozen_logpdf_tangents(dargs2, dargs)
    result, pullback = multivariate_normal_logpdf_frule_frule_rrule(
        outer, inner, stats.multivariate_normal, x, frozen.mean, frozen.cov
    )

    def multivariate_normal_frozen_logpdf_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, outer_bar, inner_bar, _, x_bar, mean_bar, cov_bar = pullback(bars)
        found = tangent_parts(unthunk(outer_bar), 6)
        dargs2_bar = Tangent(tuple, NoTangent(), _as_frozen_logpdf_group(frozen, found[1]),
                             frozen_tangent(frozen, found[4:]), found[3])  # fmt: skip
        return (NoTangent(), dargs2_bar, _as_frozen_logpdf_group(frozen, inner_bar),
                frozen_tangent(frozen, (mean_bar, cov_bar)), x_bar)  # fmt: skip

    return result, multivariate_normal_frozen_logpdf_frule_frule_pullback


rules.frule(multivariate_normal_frozen_logpdf_frule)(multivariate_normal_frozen_logpdf_frule_frule)
rules.rrule(multivariate_normal_frozen_logpdf_frule_frule)(
    multivariate_normal_frozen_logpdf_frule_frule_rrule
)

"""Rules for `scipy.stats`: the log densities of `norm`, `t`, `gamma` and `beta`
(`logpdf`, `logcdf`), and of `poisson` (`logpmf`, `logcdf`), and their exponentials
(`pdf`, `pmf`, `cdf`), called on the distribution objects, `norm.logpdf(x, loc, scale)`,
or on frozen ones, `norm(loc, scale).logpdf(x)` (`multivariate_normal.logpdf`'s are in
`rules/scipy_multivariate.py`).

Installed once the user imports `scipy.stats` (`rules/__init__.py: SCIPY_RULE_SETS`).
SciPy computes these through one method of `rv_continuous` or `rv_discrete` shared by
every distribution; the rule of that method gives each family's partials (in the point
and each parameter, passed by position: a call passing them by keyword, `loc=m`, is
arranged to, `_by_position`), and refuses, naming it, a family or method it has none for.
The partials are written with functions that have rules, so that the forward rules are
differentiated in turn: each forward rule's reverse rule is the one srcad compiles for
`_value_and_tangent`, the value and tangent written as plain code (second derivatives).
Outside the support, where the log density is `-inf` (or where SciPy gives NaN for
invalid parameters), the partials are 0; at the support's end, where a density's factor
`z**(a - 1)` is 1, the one-sided slope from inside (`_power_slope`); `poisson.pmf` in
`mu` has its own partial, finite at `mu == 0` (`_poisson_pmf_slope`). The log cdfs of
`t`, `gamma` and `beta` have their partials in their shape parameters (`df`, `a`, `b`:
derivatives of the incomplete beta and gamma functions in their parameters) by quadrature
(`rules/scipy_stats_shapes.py`), computed where used (a thunk, or a tangent that is not
zero); where a shape moves in the forward rule srcad differentiates, its partials call
`logcdf_shape_partial`, whose rules give the second derivatives
(`rules/scipy_stats_shape_rules.py`) and refuse the third.
"""

from __future__ import annotations

import math
import types
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
from srcad.positions import ByPosition
from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import CONFIG, RuleSet, named
from srcad.rules.scipy_stats_shape_rules import Deferred, logcdf_shape_partial
from srcad.rules.scipy_stats_shapes import call_site, shape_partial
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    Tangent,
    Thunk,
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


def _power_slope(c: Any, d: Any) -> Any:
    """`c / d`, the slope of `c log d` in `d`, with 0 where both `c` and `d` are 0: there the
    density's factor `d**c` is 1 (`gamma` with `a == 1` at its support's lower end, `beta`
    with `a == 1` or `b == 1` at either end), whose log density is finite and whose slope
    is the one-sided limit from inside the support (0/0, NaN, before). Only that point's
    divisor changes, so that the slope's own derivatives stay right elsewhere."""
    return c / np.where((np.asarray(c) == 0) & (np.asarray(d) == 0), 1.0, d)


def _gamma_logpdf(x: Any, a: Any, loc: Any, scale: Any, y: Any) -> list[Any]:
    z = (x - loc) / scale
    slope = _power_slope(a - 1.0, z) - 1.0
    d_a = np.log(z) - special.digamma(a)
    return [slope / scale, d_a, -slope / scale, -(slope * z + 1.0) / scale]


def _beta_logpdf(x: Any, a: Any, b: Any, loc: Any, scale: Any, y: Any) -> list[Any]:
    z = (x - loc) / scale
    slope = _power_slope(a - 1.0, z) - _power_slope(b - 1.0, 1.0 - z)
    both = special.digamma(a + b)
    d_a = np.log(z) - special.digamma(a) + both
    d_b = np.log1p(-z) - special.digamma(b) + both
    return [slope / scale, d_a, d_b, -slope / scale, -(slope * z + 1.0) / scale]


def _continuous_logcdf(family: Any) -> Partials:
    """The partials of `family.logcdf(x, *shapes, loc, scale)` in the point, `loc` and
    `scale`: with `h = pdf / cdf` (the log density less the log cdf, exponentiated), `h`,
    `-h` and `-h z`. Those in the shapes (derivatives of incomplete gamma and beta
    functions in their parameters, by quadrature) are None here: the first-order rules
    compute them where used (`_shape_partials`), and for second derivatives, where a
    shape moves, `_MOVING_SHAPES` gives partials that compute them (`_in_shapes`)."""

    logpdf = type(family).logpdf  # a function, called with the family: a call srcad reads

    def partials(x: Any, *rest: Any) -> list[Any]:
        *shapes, loc, scale, y = rest
        z = (x - loc) / scale
        hazard = np.exp(logpdf(family, x, *shapes, loc, scale) - y)
        return [hazard, *(None for _ in shapes), -hazard, -hazard * z]

    variants: dict[tuple[int, ...], Partials] = {}

    def moving(positions: tuple[int, ...]) -> Partials:
        """The partials, with those in the shapes at `positions` (1 for the first shape)."""
        wanted = tuple(k - 1 for k in positions if 0 < k <= family.numargs)
        if wanted not in variants:
            variants[wanted] = _in_shapes(family, logpdf, wanted)
        return variants[wanted]

    _WITHOUT_SHAPE_PARTIALS[partials] = family
    _MOVING_SHAPES[partials] = moving
    return partials


def _in_shapes(family: Any, logpdf: Any, wanted: tuple[int, ...]) -> Partials:
    """The partials of `family.logcdf` with those in the shapes `wanted` (from 0) computed
    (`logcdf_shape_partial`, whose rules give its own partials: second derivatives), the
    others None, for srcad to differentiate."""

    def partials_in_shapes(x: Any, *rest: Any) -> list[Any]:
        *shapes, loc, scale, y = rest
        z = (x - loc) / scale
        hazard = np.exp(logpdf(family, x, *shapes, loc, scale) - y)
        in_shapes = [
            logcdf_shape_partial(family, k, z, *shapes) if k in wanted else None
            for k in range(len(shapes))
        ]
        return [hazard, *in_shapes, -hazard, -hazard * z]

    return partials_in_shapes


# The partials that give None for the shape parameters (`_continuous_logcdf`), and their
# families, whose first-order partials there `_shape_partials` gives; and for each, the
# partials that compute those at given positions (for srcad to differentiate).
_WITHOUT_SHAPE_PARTIALS: dict[Partials, Any] = {}
_MOVING_SHAPES: dict[Partials, Callable[[tuple[int, ...]], Partials]] = {}


def _shape_partials(partials: Partials, found: list[Any], values: list[Any], log_y: Any,
                    scale: Any) -> list[Any]:  # fmt: skip
    """`found`, the partials of a log cdf (times `scale`: its value for `cdf`), with each
    shape's None, where the family has a first-order partial there, replaced by a function
    computing it (by quadrature, `scipy_stats_shapes`: called only where it is used)."""
    family = _WITHOUT_SHAPE_PARTIALS.get(partials)
    if family is None:
        return found
    x, *shapes, loc, scale_parameter = values
    count = len(shapes)

    def computed(index: int) -> Callable[[], Any]:
        def compute() -> Any:
            with np.errstate(all="ignore"):
                z = (np.asarray(x, dtype=float) - loc) / scale_parameter
                partial = shape_partial(family, index, z, tuple(shapes), log_y)
                return _on_support(partial, log_y) * scale

        return compute

    return [computed(k - 1) if 0 < k <= count else p for k, p in enumerate(found)]


def _moving(partials: Partials, positions: tuple[int, ...]) -> Partials:
    """`partials`, or where it gives None for shapes, the partials computing those at
    `positions` (for srcad to differentiate: second derivatives)."""
    moving = _MOVING_SHAPES.get(partials)
    return partials if moving is None else moving(positions)


def _poisson_logpmf(k: Any, mu: Any, loc: Any, y: Any) -> list[Any]:
    # (k - loc) / mu is 0 at k == loc, mu == 0, where the log pmf is finite (0/0 before)
    return [np.zeros(np.shape(y)), _power_slope(k - loc, mu) - 1.0, np.zeros(np.shape(y))]


def _poisson_pmf_slope(values: Any, y: Any) -> Any:
    """`pmf`'s partial in `mu`, `pmf(k - 1) - pmf(k)`: the log pmf's slope times the value,
    except at `mu == 0`, where the pmf of `k - loc == 1` is 0 with slope 1 (its log's
    slope is infinite: the value's 0 would take the partial as 0, outside the support)."""
    k, mu, loc = values
    return stats.poisson.pmf(k - 1, mu, loc) - y


def _poisson_logcdf(k: Any, mu: Any, loc: Any, y: Any) -> list[Any]:
    # d/dmu P(K <= k) = -pmf(floor(k); mu): the last term's share of the sum, as the ratio
    # of the pmf to the cdf, whose own derivative is right at mu == 0 (the pmf's there: 1
    # at k - loc == 1, whose log is -inf); in log space where the cdf underflows.
    last = np.floor(k - loc)
    cdf = np.exp(y)
    kept = cdf > 1e-200
    ratio = stats.poisson.pmf(last, mu) / np.where(kept, cdf, 1.0)
    share = np.where(kept, ratio, np.exp(stats.poisson.logpmf(last, mu) - y))
    return [np.zeros(np.shape(y)), -share, np.zeros(np.shape(y))]


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
        f"`{name}` is not written{call_site()}"
    )


def _pulled_back(project: Any, partial: Callable[[], Any], y_bar: Any, shape: Any
                 ) -> Callable[[], Any]:  # fmt: skip
    """A shape's cotangent, computed when used: its partial (`_shape_partials`) times
    `y_bar`, summed to the shape's shape."""
    return lambda: project(unbroadcast(np.asarray(partial() * y_bar), shape))


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
            found = [None if p is None else _on_support(p, log_y) * scale for p in found]
            if partials is _poisson_logpmf and method == "pmf":
                found[1] = _poisson_pmf_slope(values, y)
        return _shape_partials(partials, found, values, log_y, scale)

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
                else Deferred(_pulled_back(project, p, y_bar, np.shape(value)))
                if callable(p)
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
            y_dot = y_dot + (found[k]() if callable(found[k]) else found[k]) * dot
        return y, y_dot

    def tangent_arguments(dargs: tuple[Any, ...], dist: Any, x: Any, args: tuple[Any, ...],
                          kwds: dict[str, Any]) -> tuple[Any, ...]:  # fmt: skip
        """The arguments of `_value_and_tangent` for the forward rule called so: every
        value by position (the options too, with zero tangents), their tangents, and the
        positions whose tangents are not zero."""
        shapes, partials = _partials_of(dist, log_method)
        values = tuple(_arguments(dist, shapes, x, args, kwds))
        count = min(len(dargs) - 2, 1 + len(args))
        dots = [unthunk(d) for d in dargs[2 : 2 + count]]
        dots += [ZeroTangent()] * (len(values) - len(dots))
        positions = tuple(k for k, d in enumerate(dots) if not isinstance(d, AbstractZero))
        partials = _moving(partials, positions)
        arguments = (function, log_function, partials, dist, values, tuple(dots), positions)
        return arguments

    def method_frule_rrule(dargs: tuple[Any, ...], dist: Any, x: Any, *args: Any,
                           **kwds: Any) -> tuple[Any, Pullback]:  # fmt: skip
        """The reverse rule of `method_frule` (second derivatives): that of
        `_value_and_tangent`, which srcad compiles."""
        arguments = tangent_arguments(dargs, dist, x, args, kwds)
        with np.errstate(all="ignore"):  # outside the support: masked
            result, pullback = CONFIG.rrule_via_ad(_value_and_tangent, *arguments)

        def method_frule_pullback(bars: Any) -> tuple[Any, ...]:
            with np.errstate(all="ignore"):
                found = pullback(bars)
            values_bar, dots_bar = unthunk(found[5]), unthunk(found[6])
            count = 1 + len(args)
            value_bars = tangent_parts(values_bar, len(arguments[4]))[:count]
            dot_bars = tangent_parts(dots_bar, len(arguments[5]))[: len(dargs) - 2]
            dargs_bar = Tangent(tuple, NoTangent(), NoTangent(), *dot_bars)
            return (NoTangent(), dargs_bar, NoTangent(), *value_bars)

        return result, named(method_frule_pullback, f"{method}_frule_pullback")

    def twice_arguments(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], dist: Any, x: Any,
                        args: tuple[Any, ...], kwds: dict[str, Any]
                        ) -> tuple[tuple[Any, ...], tuple[Any, ...], int]:  # fmt: skip
        """The arguments of `_value_and_tangent` and their tangents, for the forward rule
        of `method_frule` called so (third derivatives): a position moves where its
        tangent or that tangent's own tangent is not zero (a zero one materialised, so
        that its tangent has something to move), and how many tangents were passed."""
        arguments = tangent_arguments(dargs, dist, x, args, kwds)
        values, dots = arguments[4], list(arguments[5])
        count = min(len(dargs) - 2, 1 + len(args))
        inner_dot = unthunk(dargs2[1])
        dot_dots: list[Any] = [ZeroTangent()] * len(values)
        if not isinstance(inner_dot, AbstractZero):
            dot_dots[:count] = elements_of(inner_dot, len(dargs))[2 : 2 + count]
        value_dots: list[Any] = [ZeroTangent()] * len(values)
        value_dots[:count] = dargs2[3 : 3 + count]
        moving = tuple(
            k for k in range(len(values))
            if k in arguments[6] or not isinstance(unthunk(dot_dots[k]), AbstractZero)
        )  # fmt: skip
        for k in moving:
            if isinstance(unthunk(dots[k]), AbstractZero):
                dots[k] = np.zeros_like(np.asarray(values[k], dtype=float))
        partials = _moving(_partials_of(dist, log_method)[1], moving)
        full = (*arguments[:2], partials, *arguments[3:5], tuple(dots), moving)
        # (its own, the functions', the distribution's, the values', the tangents', the
        # positions')
        tangents = (NoTangent(),) * 5 + (tuple(value_dots), tuple(dot_dots))
        return full, (*tangents, NoTangent()), count

    def method_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], dist: Any,
                           x: Any, *args: Any, **kwds: Any) -> tuple[Any, Any]:  # fmt: skip
        """The forward rule of `method_frule`: srcad's forward rule of
        `_value_and_tangent` (third derivatives)."""
        full, tangents, _ = twice_arguments(dargs2, dargs, dist, x, args, kwds)
        with np.errstate(all="ignore"):  # outside the support: masked
            found: tuple[Any, Any] = CONFIG.frule_via_ad(tangents, _value_and_tangent, *full)
        return found

    def method_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], dist: Any,
                                 x: Any, *args: Any, **kwds: Any
                                 ) -> tuple[Any, Pullback]:  # fmt: skip
        """`method_frule_frule`'s: the reverse rule srcad compiles for the forward rule it
        generates for `_value_and_tangent`."""
        full, tangents, count = twice_arguments(dargs2, dargs, dist, x, args, kwds)
        twice = CONFIG.forward_rule(_value_and_tangent, full)
        with np.errstate(all="ignore"):
            result, pullback = CONFIG.rrule_via_ad(twice, tangents, *full)

        def method_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
            with np.errstate(all="ignore"):
                _, tangents_bar, *found = pullback(bars)
            parts = tangent_parts(unthunk(tangents_bar), len(tangents))
            value_dot_bars = tangent_parts(unthunk(parts[5]), len(full[4]))[:count]
            dot_dot_bars = tangent_parts(unthunk(parts[6]), len(full[4]))[:count]
            value_bars = tangent_parts(unthunk(found[4]), len(full[4]))[: 1 + len(args)]
            dot_bars = tangent_parts(unthunk(found[5]), len(full[4]))[:count]
            padding = (ZeroTangent(),) * (len(dargs) - 2 - count)
            inner = Tangent(tuple, NoTangent(), NoTangent(), *dot_dot_bars, *padding)
            tail = (ZeroTangent(),) * (len(dargs2) - 3 - count)
            dargs2_bar = Tangent(tuple, NoTangent(), inner, NoTangent(), *value_dot_bars, *tail)
            dargs_bar = Tangent(tuple, NoTangent(), NoTangent(), *dot_bars, *padding)
            return (NoTangent(), dargs2_bar, dargs_bar, NoTangent(), *value_bars)

        return result, named(method_frule_frule_pullback, f"{method}_frule_frule_pullback")

    frule = named(method_frule, f"{method}_frule")
    _FRULES[function] = frule
    rules.rrule(function)(named(method_rrule, f"{method}_rrule"))
    rules.frule(function)(frule)
    rules.rrule(frule)(named(method_frule_rrule, f"{method}_frule_rrule"))
    frule_frule = named(method_frule_frule, f"{method}_frule_frule")
    frule_frule_rrule = named(method_frule_frule_rrule, f"{method}_frule_frule_rrule")
    _FRULE_FRULES[function] = frule_frule, frule_frule_rrule
    rules.frule(frule)(frule_frule)
    rules.rrule(frule_frule)(frule_frule_rrule)


# Each shared method's forward rule, whose reverse rule a frozen method's uses.
_FRULES: dict[Any, Any] = {}
# And the rules of its forward rule's forward rule, which a frozen method's use
# (`scipy_stats_third_order`).
_FRULE_FRULES: dict[Any, tuple[Any, Any]] = {}
# Each frozen method's forward rule, whose forward rule `scipy_stats_third_order` writes.
_FROZEN_FRULES: dict[Any, Any] = {}


def tangent_parts(value: Any, count: int) -> list[Any]:
    """The `count` elements of a tuple's (co)tangent, zeros for a zero."""
    if isinstance(value, AbstractZero):
        return [ZeroTangent()] * count
    return list(elements_of(value, count))  # not unthunked: a not-implemented one stays


def _value_and_tangent(function: Any, log_function: Any, partials: Partials, dist: Any,
                       values: tuple[Any, ...], dots: tuple[Any, ...],
                       positions: tuple[int, ...]) -> tuple[Any, Any]:  # fmt: skip
    """A method's value and tangent (what its forward rule gives), written for srcad to
    differentiate: the partials of the log method at `positions`, times the tangents there
    (0 outside the support), and times the value for `pdf`, `pmf` and `cdf`."""
    y = function(dist, *values)
    log_y = log_function(dist, *values)
    found = partials(*values, log_y)
    own = partials is _poisson_logpmf and function is not log_function  # `pmf`: in `mu`, its
    tangent = 0.0  # own partial (`_poisson_pmf_slope`), not the log pmf's times the value
    for k in positions:
        if not (own and k == 1):
            tangent = tangent + np.where(np.isfinite(log_y), found[k], 0.0) * dots[k]
    if function is log_function:
        return y, tangent
    if own and 1 in positions:
        return y, tangent * y + _poisson_pmf_slope(values, y) * dots[1]
    return y, tangent * y


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
# arguments, through their rules. Arguments given by keyword (`scale=s`) are passed by
# position where a global names the distribution (`_by_position`); else E211.


def frozen_tangent(frozen: Any, dots: Any) -> Any:
    if all(_zero(d) for d in dots):
        return ZeroTangent()
    return Tangent(type(frozen), args=Tangent(tuple, *dots))


def _zero(dot: Any) -> bool:
    """Whether `dot` is a symbolic zero (a not-implemented cotangent is not: it is kept; nor
    is a thunk, computed only where read: a shape's partial by quadrature)."""
    return not isinstance(dot, NotImplementedTangent | Thunk) and isinstance(dot, AbstractZero)


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
    return frozen, frozen_tangent(frozen, dargs[2 : 2 + len(args)])


@rules.rrule(frozen_frule)
def frozen_frule_rrule(dargs: tuple[Any, ...], dist: Any, *args: Any, **kwds: Any
                       ) -> tuple[Any, Pullback]:  # fmt: skip
    """The reverse rule of `frozen_frule` (second derivatives): the frozen object and its
    tangent hold the arguments and their tangents, each pulled back to its own."""
    frozen, frozen_dot = frozen_frule(dargs, dist, *args, **kwds)

    def frozen_frule_pullback(bars: Any) -> tuple[Any, ...]:
        frozen_bar, frozen_dot_bar = elements_of(unthunk(bars), 2)
        dot_bars = _frozen_argument_tangents(frozen, frozen_dot_bar)[: max(len(dargs) - 2, 0)]
        dargs_bar = Tangent(tuple, NoTangent(), NoTangent(), *dot_bars)
        return (NoTangent(), dargs_bar, NoTangent(), *_frozen_argument_tangents(frozen, frozen_bar))

    return (frozen, frozen_dot), frozen_frule_pullback


def _frozen_method_rules(owner: type, method: str) -> None:
    """Both rules of a frozen distribution's `owner.method` (`rv_continuous_frozen.logpdf`):
    the rules of the distribution's own method, with the frozen arguments."""
    function = getattr(owner, method)

    def frozen_method_rrule(frozen: Any, x: Any) -> tuple[Any, Pullback]:
        base = getattr(type(frozen.dist), method)
        y, pullback = CONFIG.rrule_via_ad(base, frozen.dist, x, *frozen.args, **frozen.kwds)

        def frozen_method_pullback(y_bar: Any) -> tuple[Any, ...]:
            _, _, x_bar, *arg_bars = pullback(y_bar)
            return (NoTangent(), frozen_tangent(frozen, arg_bars), x_bar)

        named(frozen_method_pullback, f"frozen_{method}_pullback")
        return y, frozen_method_pullback

    def frozen_method_frule(dargs: tuple[Any, ...], frozen: Any, x: Any) -> tuple[Any, Any]:
        base = getattr(type(frozen.dist), method)
        dots = (NoTangent(), NoTangent(), dargs[2], *_frozen_argument_tangents(frozen, dargs[1]))
        return CONFIG.frule_via_ad(dots, base, frozen.dist, x, *frozen.args, **frozen.kwds)

    def frozen_method_frule_rrule(dargs: tuple[Any, ...], frozen: Any, x: Any
                                  ) -> tuple[Any, Pullback]:  # fmt: skip
        """The reverse rule of `frozen_method_frule` (second derivatives): the reverse rule
        of the distribution's method's forward rule, with the frozen arguments."""
        base = getattr(type(frozen.dist), method)
        count = len(frozen.args)
        dots = (NoTangent(), NoTangent(), dargs[2], *_frozen_argument_tangents(frozen, dargs[1]))
        result, pullback = CONFIG.rrule_via_ad(
            _FRULES[base], dots, frozen.dist, x, *frozen.args, **frozen.kwds
        )

        def frozen_method_frule_pullback(bars: Any) -> tuple[Any, ...]:
            _, dots_bar, _, x_bar, *arg_bars = pullback(bars)
            dot_bars = tangent_parts(unthunk(dots_bar), 4 + count)
            dargs_bar = Tangent(
                tuple, NoTangent(), frozen_tangent(frozen, dot_bars[3:]), dot_bars[2]
            )
            return (NoTangent(), dargs_bar, frozen_tangent(frozen, arg_bars), x_bar)

        named(frozen_method_frule_pullback, f"frozen_{method}_frule_pullback")
        return result, frozen_method_frule_pullback

    frule = named(frozen_method_frule, f"frozen_{method}_frule")
    rules.rrule(function)(named(frozen_method_rrule, f"frozen_{method}_rrule"))
    rules.frule(function)(frule)
    rules.rrule(frule)(named(frozen_method_frule_rrule, f"frozen_{method}_frule_rrule"))
    _FROZEN_FRULES[function] = frule


_FROZEN_METHODS: tuple[tuple[type, tuple[str, ...]], ...] = (
    (rv_continuous_frozen, ("logpdf", "pdf")),
    (rv_discrete_frozen, ("logpmf", "pmf")),
    (rv_frozen, ("logcdf", "cdf")),
)
for _owner, _methods in _FROZEN_METHODS:
    for _method in _methods:
        _frozen_method_rules(_owner, _method)


# --- parameters by keyword ---------------------------------------------------------------------


def _by_position(callee: Any) -> ByPosition | None:
    """`norm.logpdf(x, loc=m, scale=s)` called as `norm.logpdf(x, m, s)`, and `t(df=3.0,
    loc=m)` as `t(3.0, m)`: SciPy reads a distribution's parameters in the order of its
    shapes, then `loc` (and `scale`, for a continuous one), whichever way they are passed,
    and the rules differentiate those passed by position (`ByPosition`, E211 otherwise).
    None for any other callee."""
    dist: Any = callee
    point: tuple[str, ...] = ()
    if isinstance(callee, types.MethodType) and callee.__func__ in _FRULES:
        dist = callee.__self__
        point = ("x",) if isinstance(dist, rv_continuous) else ("k",)
    if not isinstance(dist, rv_continuous | rv_discrete):
        return None
    shapes = tuple(s.strip() for s in (dist.shapes or "").split(",") if s.strip())
    located = ("loc", "scale") if isinstance(dist, rv_continuous) else ("loc",)
    names = (*point, *shapes, *located)
    return ByPosition(names, frozenset(names), {"loc": 0.0, "scale": 1.0}, {})


rules.keywords_by_position_of(_by_position)

"""Rules for the tails and quantiles of `scipy.stats` distributions: `sf`, `logsf`, `ppf`
and `isf` of `norm`, `t`, `gamma` and `beta` (`sf` and `logsf` of `poisson` too), called
on the distribution or on a frozen one (`norm(loc, scale).sf(x)`), and
`multivariate_normal.pdf`.

Installed once the user imports `scipy.stats` (`rules/__init__.py: SCIPY_RULE_SETS`).
Each is differentiated through a definition (`_support.by_definition`: SciPy's own value,
the definition's derivatives, to any order the rules it calls reach):

- `sf` is `1 - cdf`: its derivatives are minus the cdf's, which `rules/scipy_stats.py`
  writes accurately in either tail (the cdf's partials are the log cdf's times the cdf,
  in the shapes the upper tail's odds times the score's mean there);
- `logsf` is `log sf`, with `sf` SciPy's (accurate far into the tail), so its partials
  are the hazard `pdf / sf`; `norm`'s is `log_ndtr` of the mirrored point, exact in both
  tails;
- `ppf` and `isf` are `loc + scale z`, with `z` the standard distribution's quantile
  (`standard_quantile`), whose partial in `q` is `1 / pdf(z)` (`-1 / pdf(z)` for `isf`)
  and, by the implicit function theorem on `cdf(z; shapes) = q`, in a shape `-d cdf /
  d shape / pdf(z)`, from the log cdf's shape partial (`logcdf_shape_partial`, by
  quadrature, whose rules give second derivatives and refuse third);
- `multivariate_normal.pdf` is `exp(logpdf)`.

At `q == 0` or `1` the quantile is infinite (or the support's end) and so is its partial
in `q` where the density vanishes there; outside `[0, 1]` SciPy's NaN has NaN partials:
never a finite number where there is no derivative.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
from scipy import stats
from scipy.stats._distn_infrastructure import rv_continuous, rv_discrete, rv_frozen

from srcad.errors import MissingRuleError
from srcad.positions import ByPosition
from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import RuleSet
from srcad.rules import second_order
from srcad.rules._support import by_definition
from srcad.rules.scipy_stats_shape_rules import Deferred, logcdf_shape_partial
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("scipy_stats_tails")

Pullback = Any

_NORM = type(stats.norm)
# The families each method is written for (the cdf's and log pdf's rules cover them).
_TAIL_FAMILIES = (_NORM, type(stats.t), type(stats.gamma), type(stats.beta), type(stats.poisson))
_QUANTILE_FAMILIES = _TAIL_FAMILIES[:4]


def covered(dist: Any, method: str) -> bool:
    """Whether srcad differentiates `dist.method`, or a refusal naming what it covers."""
    families = _QUANTILE_FAMILIES if method in ("ppf", "isf") else _TAIL_FAMILIES
    if type(dist) not in families:
        names = ", ".join(f.__name__.removesuffix("_gen") for f in families)
        raise MissingRuleError(
            f"srcad has no rule for `{getattr(dist, 'name', type(dist).__name__)}.{method}`: "
            f"its SciPy rules cover it for {names}; register one with "
            f"@srcad.rrule.register({type(dist).__name__}.{method})"
        )
    return True


def _mirrored(dist: Any, x: Any, *args: Any) -> Any:
    """`norm.logsf(x, loc, scale)` as `log_ndtr((loc - x) / scale)`."""
    loc = args[0] if len(args) > 0 else 0.0
    scale = args[1] if len(args) > 1 else 1.0
    return stats.norm.logcdf(2.0 * loc - x, loc, scale)


def survival(dist: Any, x: Any, *args: Any) -> Any:
    """`dist.sf(x, *args)`: one minus the cdf."""
    covered(dist, "sf")
    return 1.0 - dist.cdf(x, *args)


def log_survival(dist: Any, x: Any, *args: Any) -> Any:
    """`dist.logsf(x, *args)`: the log of SciPy's `sf` (for `norm`, the log cdf of the
    point mirrored about `loc`); `-inf` where `sf` is 0 (above the support), with partials
    0 there, as the log density's outside the support (`1 / sf` times the cdf's 0 partials
    would be NaN)."""
    covered(dist, "logsf")
    if type(dist) is _NORM:
        return _mirrored(dist, x, *args)
    tail = dist.sf(x, *args)
    inside = tail > 0
    return np.where(inside, np.log(np.where(inside, tail, 1.0)), -np.inf)


def _location(dist: Any, args: tuple[Any, ...]) -> tuple[Any, Any]:
    count = dist.numargs
    loc = args[count] if len(args) > count else 0.0
    scale = args[count + 1] if len(args) > count + 1 else 1.0
    return loc, scale


def percent_point(dist: Any, q: Any, *args: Any) -> Any:
    """`dist.ppf(q, *args)`: `loc + scale z`, with `z` the standard quantile."""
    covered(dist, "ppf")
    loc, scale = _location(dist, args)
    return loc + scale * standard_quantile(dist, False, q, *args[: dist.numargs])


def inverse_survival(dist: Any, q: Any, *args: Any) -> Any:
    """`dist.isf(q, *args)`: `loc + scale z`, with `z` the standard upper quantile."""
    covered(dist, "isf")
    loc, scale = _location(dist, args)
    return loc + scale * standard_quantile(dist, True, q, *args[: dist.numargs])


def standard_quantile(dist: Any, upper: bool, q: Any, *shapes: Any) -> Any:
    """The standard distribution's quantile of `q` (of the upper tail's, `upper`)."""
    with np.errstate(all="ignore"):
        return dist.isf(q, *shapes) if upper else dist.ppf(q, *shapes)


def quantile_in_q(dist: Any, upper: bool, z: Any, *shapes: Any) -> Any:
    """The partial of `standard_quantile` in `q`: `1 / pdf(z)` (negated for the upper
    tail), infinite where the density vanishes (`q` at 0 or 1)."""
    with np.errstate(divide="ignore"):
        inverse = 1.0 / dist.pdf(z, *shapes)
    return -inverse if upper else inverse


def quantile_in_shape(dist: Any, index: int, z: Any, *shapes: Any) -> Any:
    """The partial of `standard_quantile` in the shape `index` (either tail: the point
    moves as the cdf there does), `-(d cdf / d shape) / pdf(z)`, the cdf's partial as the
    log cdf's (`logcdf_shape_partial`) times `cdf`."""
    ratio = np.exp(dist.logcdf(z, *shapes) - dist.logpdf(z, *shapes))
    partial = -ratio * logcdf_shape_partial(dist, index, z, *shapes)
    # At an end of the support (`q` at 0 or 1; `dist.a`, `dist.b`: the standard
    # distribution's, the same for every shape of these families) the quantile stays
    # whatever the shapes: its partial in them is 0 there (the ratio above is 0/0).
    return np.where((z == dist.a) | (z == dist.b), 0.0, partial)


rules.non_differentiable(covered)


@rules.rrule(standard_quantile)
def standard_quantile_rrule(dist: Any, upper: bool, q: Any, *shapes: Any
                            ) -> tuple[Any, Pullback]:  # fmt: skip
    """Reverse rule of `standard_quantile`: its partials times the cotangent; those in the
    shapes (by quadrature) computed only where read (`Deferred`)."""
    z = standard_quantile(dist, upper, q, *shapes)
    project_q = ProjectTo(q)
    projects = [ProjectTo(s) for s in shapes]

    def in_shape(index: int, z_bar: Any) -> Any:
        def compute() -> Any:
            with np.errstate(all="ignore"):
                partial = quantile_in_shape(dist, index, z, *shapes)
            return projects[index](unbroadcast(partial * z_bar, np.shape(shapes[index])))

        return compute

    def standard_quantile_pullback(z_bar: Any) -> tuple[Any, ...]:
        z_bar = unthunk(z_bar)
        if isinstance(z_bar, AbstractZero):
            return (NoTangent(), NoTangent(), NoTangent(), z_bar, *(z_bar for _ in shapes))
        with np.errstate(all="ignore"):
            q_bar = unbroadcast(quantile_in_q(dist, upper, z, *shapes) * z_bar, np.shape(q))
        shape_bars = [Deferred(in_shape(k, z_bar)) for k in range(len(shapes))]
        return (NoTangent(), NoTangent(), NoTangent(), project_q(q_bar), *shape_bars)

    return z, standard_quantile_pullback


@rules.frule(standard_quantile)
def standard_quantile_frule(dargs: tuple[Any, ...], dist: Any, upper: bool, q: Any,
                            *shapes: Any) -> tuple[Any, Any]:  # fmt: skip
    """Forward rule of `standard_quantile`, written with functions that have rules (its
    reverse rule, compiled by srcad, gives second derivatives)."""
    z = standard_quantile(dist, upper, q, *shapes)
    z_dot: Any = ZeroTangent()
    q_dot = unthunk(dargs[3]) if len(dargs) > 3 else ZeroTangent()
    if not isinstance(q_dot, AbstractZero):
        z_dot = quantile_in_q(dist, upper, z, *shapes) * q_dot
    for index in range(len(shapes)):
        dot = unthunk(dargs[4 + index]) if 4 + index < len(dargs) else ZeroTangent()
        if not isinstance(dot, AbstractZero):
            z_dot = z_dot + quantile_in_shape(dist, index, z, *shapes) * dot
    return z, z_dot


rules.primitive(standard_quantile)


def multivariate_normal_pdf(dist: Any, x: Any, *args: Any) -> Any:
    """`multivariate_normal.pdf(x, mean, cov)`: the exponential of its `logpdf`."""
    return np.exp(dist.logpdf(x, *args))


by_definition(rules, type(stats.multivariate_normal).pdf, multivariate_normal_pdf)
_DEFINITIONS = (
    (rv_continuous, "sf", survival),
    (rv_continuous, "logsf", log_survival),
    (rv_continuous, "ppf", percent_point),
    (rv_continuous, "isf", inverse_survival),
    (rv_discrete, "sf", survival),
    (rv_discrete, "logsf", log_survival),
)
for _owner, _method, _definition in _DEFINITIONS:
    by_definition(rules, getattr(_owner, _method), _definition)


# Parameters by keyword (`norm.sf(x, loc=m, scale=s)`), passed by position as
# `scipy_stats._by_position` passes those of the other methods.
_TAIL_METHODS = frozenset(getattr(owner, method) for owner, method, _ in _DEFINITIONS)


def _by_position(callee: Any) -> ByPosition | None:
    """`norm.sf(x, loc=m)` called as `norm.sf(x, m)`, in the order of the distribution's
    shapes, then `loc` (and `scale`, for a continuous one); None for any other callee."""
    if not (isinstance(callee, types.MethodType) and callee.__func__ in _TAIL_METHODS):
        return None
    dist: Any = callee.__self__
    point = "q" if callee.__func__.__name__ in ("ppf", "isf") else "x"
    shapes = tuple(s.strip() for s in (dist.shapes or "").split(",") if s.strip())
    located = ("loc", "scale") if isinstance(dist, rv_continuous) else ("loc",)
    names = (point if isinstance(dist, rv_continuous) else "k", *shapes, *located)
    return ByPosition(names, frozenset(names), {"loc": 0.0, "scale": 1.0}, {})


rules.keywords_by_position_of(_by_position)


# --- frozen distributions ---------------------------------------------------------------------
# `norm(loc, scale).sf(x)`: the distribution's method, with the frozen arguments (those
# passed by keyword, which the frozen object's (co)tangent does not hold, as options).


def frozen_options(frozen: Any) -> dict[str, Any]:
    """The keyword arguments a frozen distribution was made with: constants (a
    differentiated one is passed by position, `scipy_stats._by_position`, or refused)."""
    return dict(frozen.kwds)


def frozen_survival(frozen: Any, x: Any) -> Any:
    return frozen.dist.sf(x, *frozen.args, **frozen_options(frozen))


def frozen_log_survival(frozen: Any, x: Any) -> Any:
    return frozen.dist.logsf(x, *frozen.args, **frozen_options(frozen))


def frozen_percent_point(frozen: Any, q: Any) -> Any:
    return frozen.dist.ppf(q, *frozen.args, **frozen_options(frozen))


def frozen_inverse_survival(frozen: Any, q: Any) -> Any:
    return frozen.dist.isf(q, *frozen.args, **frozen_options(frozen))


rules.non_differentiable(frozen_options)
_FROZEN_DEFINITIONS = (
    ("sf", frozen_survival),
    ("logsf", frozen_log_survival),
    ("ppf", frozen_percent_point),
    ("isf", frozen_inverse_survival),
)
for _method, _frozen in _FROZEN_DEFINITIONS:
    by_definition(rules, getattr(rv_frozen, _method), _frozen, f"frozen_{_method}")

# Their second derivatives: the reverse rules of the forward rules srcad compiles for the
# definitions (the eager rule sets get theirs in `rules/__init__.py`).
_SECOND = second_order.build([rules])
rules.rrules.update(_SECOND.rrules)
rules.frules.update(_SECOND.frules)

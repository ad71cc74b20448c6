"""The second derivatives of the log cdfs of `scipy.stats` `t`, `gamma` and `beta` in
their shape parameters: `logcdf_shape_partial`, the log cdf's partial in one shape (at
the standardised point `z`), is a primitive whose rules give its partials, in `z` (closed
form, `(f / F) (s(z) - g)`) and in each shape (by quadrature,
`scipy_stats_shapes.shape_second_partial`: computed where used, a thunk in reverse mode,
a tangent that is not zero in forward mode). `rules/scipy_stats.py` calls it in the
partials that srcad differentiates for second derivatives, where a shape moves. Its
forward rule's own rules refuse, naming the gap: third derivatives in a shape are not
written.

Installed with `scipy_stats`' rules, once the user imports `scipy.stats`
(`rules/__init__.py: SCIPY_RULE_SETS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import MissingRuleError
from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import RuleSet
from srcad.rules.scipy_stats_shapes import (
    call_site,
    shape_partial,
    shape_partial_in_point,
    shape_second_partial,
)
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    Thunk,
    ZeroTangent,
    unthunk,
)

rules = RuleSet("scipy_stats")


class Deferred(Thunk):
    """A cotangent by quadrature, computed only where used, which stays so when added to:
    a shape parameter's cotangents from the calls that read it (the log cdf's, the log
    density's in its partials, second derivatives) are summed unread where the shape is a
    constant. A sum with it is a `Deferred` of the sum (with a symbolic zero, itself; with
    a not-implemented cotangent, that); any other arithmetic computes it, as a thunk's.
    A sum holds its terms, flattened (a loop's thousands of them are added one by one
    when it is computed, not through as many nested calls)."""

    __slots__ = ("terms",)

    def __init__(self, compute: Any, terms: tuple[Any, ...] = ()) -> None:
        super().__init__(compute)
        self.terms = terms

    def __add__(self, other: Any) -> Any:
        return _deferred_sum(self, other)

    def __radd__(self, other: Any) -> Any:
        return _deferred_sum(other, self)

    def __float__(self) -> float:
        return float(self.unthunk())

    def __complex__(self) -> complex:
        return complex(self.unthunk())

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if ufunc is np.add and method == "__call__" and len(inputs) == 2 and not kwargs:
            return _deferred_sum(*inputs)
        return getattr(ufunc, method)(*(unthunk(i) for i in inputs), **kwargs)


def _deferred_sum(first: Any, second: Any) -> Any:
    for one, other in ((first, second), (second, first)):
        if isinstance(other, NotImplementedTangent):
            return other
        if isinstance(other, AbstractZero):
            return one
    terms = (*_terms(first), *_terms(second))
    return Deferred(lambda: _total(terms), terms)


def _terms(value: Any) -> tuple[Any, ...]:
    return value.terms if isinstance(value, Deferred) and value.terms else (value,)


def _total(terms: tuple[Any, ...]) -> Any:
    total = unthunk(terms[0])
    for term in terms[1:]:
        total = total + unthunk(term)
    return total


Pullback = Any


def logcdf_shape_partial(family: Any, index: int, z: Any, *shapes: Any) -> Any:
    """The partial of `family.logcdf` at the standardised point `z` in its shape parameter
    `index`, elementwise (0 outside the support)."""
    with np.errstate(all="ignore"):
        log_cdf = family.logcdf(z, *shapes)
    return shape_partial(family, index, z, shapes, log_cdf)


def _in_point(family: Any, index: int, z: Any, shapes: tuple[Any, ...], partial: Any) -> Any:
    with np.errstate(all="ignore"):
        log_cdf = family.logcdf(z, *shapes)
    return shape_partial_in_point(family, index, z, shapes, log_cdf, partial)


def _in_shape(family: Any, index: int, other: int, z: Any, shapes: tuple[Any, ...]) -> Any:
    with np.errstate(all="ignore"):
        log_cdf = family.logcdf(z, *shapes)
    return shape_second_partial(family, index, other, z, shapes, log_cdf)


@rules.rrule(logcdf_shape_partial)
def logcdf_shape_partial_rrule(family: Any, index: int, z: Any, *shapes: Any
                               ) -> tuple[Any, Pullback]:  # fmt: skip
    y = logcdf_shape_partial(family, index, z, *shapes)
    project_z = ProjectTo(z)
    projects = [ProjectTo(s) for s in shapes]

    def in_shape(other: int, y_bar: Any) -> Any:
        def compute() -> Any:
            partial = _in_shape(family, index, other, z, shapes)
            return projects[other](unbroadcast(partial * y_bar, np.shape(shapes[other])))

        return compute

    def logcdf_shape_partial_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), NoTangent(), NoTangent(), y_bar, *(y_bar for _ in shapes))
        z_bar = unbroadcast(_in_point(family, index, z, shapes, y) * y_bar, np.shape(z))
        shape_bars = [Deferred(in_shape(k, y_bar)) for k in range(len(shapes))]
        return (NoTangent(), NoTangent(), NoTangent(), project_z(z_bar), *shape_bars)

    return y, logcdf_shape_partial_pullback


@rules.frule(logcdf_shape_partial)
def logcdf_shape_partial_frule(dargs: tuple[Any, ...], family: Any, index: int, z: Any,
                               *shapes: Any) -> tuple[Any, Any]:  # fmt: skip
    y = logcdf_shape_partial(family, index, z, *shapes)
    y_dot: Any = ZeroTangent()
    z_dot = unthunk(dargs[3]) if len(dargs) > 3 else ZeroTangent()
    if not isinstance(z_dot, AbstractZero):
        y_dot = _in_point(family, index, z, shapes, y) * z_dot
    for other in range(len(shapes)):
        dot = unthunk(dargs[4 + other]) if 4 + other < len(dargs) else ZeroTangent()
        if not isinstance(dot, AbstractZero):
            y_dot = y_dot + _in_shape(family, index, other, z, shapes) * dot
    return y, y_dot


def _third_message(family: Any) -> str:
    return (
        f"srcad cannot differentiate: the third derivative of `{family.name}.logcdf` in its "
        f"shape parameters is not written (its first and second are, by quadrature); srcad "
        f"differentiates it there twice, and in x, loc and scale to any order{call_site()}"
    )


@rules.rrule(logcdf_shape_partial_frule)
def logcdf_shape_partial_frule_rrule(dargs: tuple[Any, ...], family: Any, index: int, z: Any,
                                     *shapes: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """The forward rule's value and tangent (second derivatives), whose pullback (third
    derivatives in a shape) refuses."""
    result = logcdf_shape_partial_frule(dargs, family, index, z, *shapes)

    def logcdf_shape_partial_frule_pullback(bars: Any) -> tuple[Any, ...]:
        raise MissingRuleError(_third_message(family))

    return result, logcdf_shape_partial_frule_pullback


@rules.frule(logcdf_shape_partial_frule)
def logcdf_shape_partial_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                     family: Any, *rest: Any) -> tuple[Any, Any]:  # fmt: skip
    """Third derivatives in a shape: refused."""
    raise MissingRuleError(_third_message(family))

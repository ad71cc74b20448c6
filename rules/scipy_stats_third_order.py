"""Third derivatives through frozen `scipy.stats` distributions: the forward rules of the
forward rules of `norm(loc, scale)` (`frozen_frule`, linear: the frozen object's tangent
holds the arguments' tangents) and of a frozen method (`frozen_logpdf_frule`, ...: the
distribution's method's forward rule's forward rule, `scipy_stats.method_frule_frule`, with
the frozen arguments, their tangents moved in and out of the frozen object's), with their
reverse rules, which reverse mode differentiates for `grad` three deep.

Installed with `scipy_stats`' rules, once the user imports `scipy.stats`
(`rules/__init__.py: SCIPY_RULE_SETS`).
"""

from __future__ import annotations

from typing import Any

from srcad.registry import RuleSet, named
from srcad.rules.scipy_stats import (
    _FROZEN_FRULES,
    _FROZEN_METHODS,
    _FRULE_FRULES,
    _frozen_argument_tangents,
    _zero,
    frozen_frule,
    frozen_tangent,
    tangent_parts,
)
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, unthunk

# Keyed on the forward rules, as `scipy_stats`' own forward rules' rules are.
rules = RuleSet("scipy_stats")

Pullback = Any


def frozen_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], dist: Any, *args: Any,
                       **kwds: Any) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `frozen_frule` (third derivatives), linear: the frozen object's
    tangent holds the arguments' tangents, and its tangent their tangents' own."""
    frozen, frozen_dot = frozen_frule(dargs, dist, *args, **kwds)
    count = len(args)
    inner = tangent_parts(unthunk(dargs2[1]), len(dargs))
    dot_dot = frozen_tangent(frozen, inner[2 : 2 + count])
    return (frozen, frozen_dot), (frozen_tangent(frozen, dargs2[3 : 3 + count]), dot_dot)


def frozen_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], dist: Any,
                             *args: Any, **kwds: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """`frozen_frule_frule`'s: each part of the frozen objects' cotangents pulled back to
    the tangent (or the argument) it holds."""
    result = frozen_frule_frule(dargs2, dargs, dist, *args, **kwds)
    frozen = result[0][0]

    def parts(bar: Any, count: int) -> tuple[Any, ...]:
        return _frozen_argument_tangents(frozen, bar)[: max(count, 0)]

    def frozen_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        value_bar, tangent_bar = tangent_parts(unthunk(bars), 2)
        frozen_bar, dot_bar = tangent_parts(unthunk(value_bar), 2)
        dot2_bar, dot_dot_bar = tangent_parts(unthunk(tangent_bar), 2)
        dargs_bar = Tangent(tuple, NoTangent(), NoTangent(), *parts(dot_bar, len(dargs) - 2))
        inner = Tangent(tuple, NoTangent(), NoTangent(), *parts(dot_dot_bar, len(dargs) - 2))
        dargs2_bar = Tangent(tuple, NoTangent(), inner, NoTangent(),
                             *parts(dot2_bar, len(dargs2) - 3))  # fmt: skip
        return (NoTangent(), dargs2_bar, dargs_bar, NoTangent(), *parts(frozen_bar, len(args)))

    return result, frozen_frule_frule_pullback


rules.frule(frozen_frule)(frozen_frule_frule)
rules.rrule(frozen_frule_frule)(frozen_frule_frule_rrule)


def _as_method_group(frozen: Any, group: Any) -> Any:
    """A group of a frozen method's forward rule's tangents (its own, the frozen object's,
    the point's) as the distribution's method's (its own, the distribution's, the
    point's, the frozen arguments')."""
    group = unthunk(group)
    if isinstance(group, AbstractZero):
        return group
    _, frozen_dot, x_dot = tangent_parts(group, 3)
    return (NoTangent(), NoTangent(), x_dot, *_frozen_argument_tangents(frozen, frozen_dot))


def _as_frozen_group(frozen: Any, bar: Any) -> Any:
    """`_as_method_group`'s adjoint."""
    if _zero(bar):
        return ZeroTangent()
    found = tangent_parts(unthunk(bar), 3 + len(frozen.args))
    return Tangent(tuple, NoTangent(), frozen_tangent(frozen, found[3:]), found[2])


def _frozen_method_tangents(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], frozen: Any
                            ) -> tuple[tuple[Any, ...], Any]:  # fmt: skip
    """A frozen method's forward rule's tangents, in both orders, as the distribution's
    method's forward rule's (`_as_method_group`)."""
    outer = (NoTangent(), _as_method_group(frozen, dargs2[1]), NoTangent(), dargs2[3],
             *_frozen_argument_tangents(frozen, dargs2[2]))  # fmt: skip
    return outer, _as_method_group(frozen, dargs)


def _frozen_method_third_order_rules(function: Any, method: str) -> None:
    """The rules of the forward rule of a frozen method's forward rule (`function` the
    frozen class's method, `rv_continuous_frozen.logpdf`)."""

    def frozen_method_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], frozen: Any,
                                  x: Any) -> tuple[Any, Any]:  # fmt: skip
        """The forward rule of `frozen_method_frule` (third derivatives): the distribution's
        method's forward rule's, with the frozen arguments."""
        forward, _ = _FRULE_FRULES[getattr(type(frozen.dist), method)]
        outer, inner = _frozen_method_tangents(dargs2, dargs, frozen)
        found: tuple[Any, Any] = forward(outer, inner, frozen.dist, x, *frozen.args, **frozen.kwds)
        return found

    def frozen_method_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                        frozen: Any, x: Any) -> tuple[Any, Pullback]:  # fmt: skip
        _, reverse = _FRULE_FRULES[getattr(type(frozen.dist), method)]
        outer, inner = _frozen_method_tangents(dargs2, dargs, frozen)
        result, pullback = reverse(outer, inner, frozen.dist, x, *frozen.args, **frozen.kwds)

        def frozen_method_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
            _, outer_bar, inner_bar, _, x_bar, *arg_bars = pullback(bars)
            found = tangent_parts(unthunk(outer_bar), 4 + len(frozen.args))
            dargs2_bar = Tangent(tuple, NoTangent(), _as_frozen_group(frozen, found[1]),
                                 frozen_tangent(frozen, found[4:]), found[3])  # fmt: skip
            return (NoTangent(), dargs2_bar, _as_frozen_group(frozen, inner_bar),
                    frozen_tangent(frozen, arg_bars), x_bar)  # fmt: skip

        named(frozen_method_frule_frule_pullback, f"frozen_{method}_frule_frule_pullback")
        return result, frozen_method_frule_frule_pullback

    frule = _FROZEN_FRULES[function]
    frule_frule = named(frozen_method_frule_frule, f"frozen_{method}_frule_frule")
    rules.frule(frule)(frule_frule)
    rules.rrule(frule_frule)(
        named(frozen_method_frule_frule_rrule, f"frozen_{method}_frule_frule_rrule")
    )


for _owner, _methods in _FROZEN_METHODS:
    for _method in _methods:
        _frozen_method_third_order_rules(getattr(_owner, _method), _method)

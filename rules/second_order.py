"""Reverse rules for the forward rules of linear and bilinear functions, built from their
reverse rules: what lets srcad differentiate generated frules (second derivatives).

Which functions are linear or bilinear is a fact of each one's entry in the rule library
(`RuleSet.primitive(..., linearity=...)`): for a linear one, `y_dot = f(x_dot)` (the first
argument; the rest are options); for a bilinear one, `y_dot = f(a_dot, b) + f(a, b_dot)`
(the first two)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from srcad.registry import Linearity, RuleFn, RuleSet, named
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

Pullback = Any


def _linear(primal: Any, rrule: RuleFn) -> RuleFn:
    def linear_frule_rrule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any
                           ) -> tuple[Any, Pullback]:  # fmt: skip
        y, pullback = rrule(x, *options, **keywords)
        x_dot = unthunk(dargs[1])
        moves = not isinstance(x_dot, AbstractZero)
        y_dot, dot_pullback = rrule(x_dot, *options, **keywords) if moves else (ZeroTangent(), None)

        def linear_frule_pullback(bars: Any) -> tuple[Any, ...]:
            y_bar, y_dot_bar = elements_of(bars, 2)
            _, x_bar, *option_bars = pullback(y_bar)
            x_dot_bar: Any = ZeroTangent()
            if dot_pullback is not None and not isinstance(y_dot_bar, AbstractZero):
                x_dot_bar = dot_pullback(y_dot_bar)[1]
            dargs_bar = Tangent(tuple, NoTangent(), x_dot_bar, *(NoTangent() for _ in options))
            return (NoTangent(), dargs_bar, x_bar, *option_bars)

        return (y, y_dot), named(linear_frule_pullback, f"{name}_frule_pullback")

    name = getattr(primal, "__name__", "linear")
    return named(linear_frule_rrule, f"{name}_frule_rrule")


def _bilinear(primal: Any, rrule: RuleFn) -> RuleFn:
    def bilinear_frule_rrule(dargs: tuple[Any, ...], a: Any, b: Any, *options: Any,
                             **keywords: Any) -> tuple[Any, Pullback]:  # fmt: skip
        y, pullback = rrule(a, b, *options, **keywords)
        a_dot, b_dot = unthunk(dargs[1]), unthunk(dargs[2])
        y_dot: Any = ZeroTangent()
        left = right = None
        if not isinstance(a_dot, AbstractZero):
            term, left = rrule(a_dot, b, *options, **keywords)
            y_dot = y_dot + term
        if not isinstance(b_dot, AbstractZero):
            term, right = rrule(a, b_dot, *options, **keywords)
            y_dot = y_dot + term

        def bilinear_frule_pullback(bars: Any) -> tuple[Any, ...]:
            y_bar, y_dot_bar = elements_of(bars, 2)
            _, a_bar, b_bar, *option_bars = pullback(y_bar)
            a_dot_bar: Any = ZeroTangent()
            b_dot_bar: Any = ZeroTangent()
            if not isinstance(y_dot_bar, AbstractZero):
                if left is not None:
                    _, a_dot_bar, b_part, *_ = left(y_dot_bar)
                    b_bar = b_bar + b_part
                if right is not None:
                    _, a_part, b_dot_bar, *_ = right(y_dot_bar)
                    a_bar = a_bar + a_part
            dargs_bar = Tangent(tuple, NoTangent(), a_dot_bar, b_dot_bar,
                                *(NoTangent() for _ in options))  # fmt: skip
            return (NoTangent(), dargs_bar, a_bar, b_bar, *option_bars)

        return (y, y_dot), named(bilinear_frule_pullback, f"{name}_frule_pullback")

    name = getattr(primal, "__name__", "bilinear")
    return named(bilinear_frule_rrule, f"{name}_frule_rrule")


def build(rule_sets: Iterable[RuleSet]) -> RuleSet:
    """Rules keyed on the forward rules (the functions) of the linear and bilinear primals
    that `rule_sets` give both rules for."""
    rules = RuleSet("second_order")
    rrules: dict[Any, Any] = {}
    frules: dict[Any, Any] = {}
    linearities: dict[Any, Linearity] = {}
    for rule_set in rule_sets:
        rrules.update({k: r.rrule for k, r in rule_set.rrules.items()})
        frules.update({k: r.rrule for k, r in rule_set.frules.items()})
        linearities.update(
            {k: p.linearity for k, p in rule_set.primitives.items() if p.linearity is not None}
        )
    makers = {Linearity.LINEAR: _linear, Linearity.BILINEAR: _bilinear}
    for primal, linearity in linearities.items():
        if primal in rrules and primal in frules and frules[primal] not in rules.rrules:
            rules.rrule(frules[primal])(makers[linearity](primal, rrules[primal]))
    return rules

"""Reverse rules for the forward rules of linear and bilinear functions, built from their
reverse rules: what lets srcad differentiate generated frules (second derivatives).

Which functions are linear or bilinear is a fact of each one's entry in the rule library
(`RuleSet.primitive(..., linearity=...)`, a `Linearity`): for a linear one, `y_dot =
f(x_dot)` (the first argument; the rest are options); for a bilinear one, `y_dot = f(a_dot,
b) + f(a, b_dot)` (the first two); for a multilinear one, the same sum over every argument
with a tangent; for a piecewise linear one, and one linear in every argument (containers),
the result and its tangent both pull back through the reverse rule's pullback
(`linear_frule_rrule`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from srcad.callables import padded, perturbable
from srcad.errors import SrcadError
from srcad.registry import CONFIG, Linearity, RuleFn, RuleSet, named, primal_name
from srcad.rules._support import reusable
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

Pullback = Any


def _linear(primal: Any, rrule: RuleFn, frule: RuleFn) -> RuleFn:
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


def _bilinear(primal: Any, rrule: RuleFn, frule: RuleFn) -> RuleFn:
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


def _multilinear(primal: Any, rrule: RuleFn, frule: RuleFn) -> RuleFn:
    """`y_dot = sum_k f(..., x_k_dot, ...)` over the arguments with a tangent: each term
    pulls back through its own call's pullback, its `x_k_dot` getting what the term's
    pullback gives `x_k`, every other argument the rest (as `_bilinear`, for any number)."""

    def multilinear_frule_rrule(dargs: tuple[Any, ...], *args: Any, **keywords: Any
                                ) -> tuple[Any, Pullback]:  # fmt: skip
        y, pullback = rrule(*args, **keywords)
        dots = [unthunk(d) for d in dargs[1 : 1 + len(args)]]
        y_dot: Any = ZeroTangent()
        terms = []  # (the argument replaced by its tangent, the term's pullback)
        for k, dot in enumerate(dots):
            if isinstance(dot, AbstractZero):
                continue
            term, term_pullback = rrule(*args[:k], dot, *args[k + 1 :], **keywords)
            y_dot = y_dot + term
            terms.append((k, term_pullback))

        def multilinear_frule_pullback(bars: Any) -> tuple[Any, ...]:
            y_bar, y_dot_bar = elements_of(unthunk(bars), 2)
            _, *argument_bars = pullback(y_bar)
            tangent_bars: list[Any] = [ZeroTangent()] * len(args)
            if not isinstance(unthunk(y_dot_bar), AbstractZero):
                for k, term_pullback in terms:
                    _, *term_bars = term_pullback(y_dot_bar)
                    tangent_bars[k] = term_bars[k]
                    for i, bar in enumerate(term_bars):
                        if i != k and not isinstance(unthunk(bar), AbstractZero):
                            argument_bars[i] = argument_bars[i] + bar
            dargs_bar = Tangent(tuple, NoTangent(), *tangent_bars)
            return (NoTangent(), dargs_bar, *argument_bars)

        return (y, y_dot), named(multilinear_frule_pullback, f"{name}_frule_pullback")

    name = primal_name(primal)
    return named(multilinear_frule_rrule, f"{name}_frule_rrule")


def linear_frule_rrule(rrule: RuleFn, frule: RuleFn, name: str, real_only: bool = False,
                       of_complex: RuleFn | None = None) -> RuleFn:  # fmt: skip
    """The reverse rule of `frule`, the forward rule of a function linear in every argument
    it differentiates (the others, like `np.select`'s conditions, piecewise constant): its
    tangent is the same linear map of the argument tangents,
    so the result and its tangent both pull back through `rrule`'s pullback, and the
    tangent does not depend on the arguments. For functions `Linearity.LINEAR` cannot
    take: linear in several arguments, or whose forward rule is not the function applied
    to the tangent (constants it joins, branches it takes on the values). `real_only`:
    not so for complex arguments, which go to `of_complex` where given, and are refused
    where not (see `_piecewise_linear`)."""

    def frule_rrule(dargs: tuple[Any, ...], *args: Any, **keywords: Any) -> tuple[Any, Pullback]:
        if real_only and any(_complex(a) for a in (*args, *keywords.values())):
            if of_complex is not None:
                return of_complex(dargs, *args, **keywords)
            raise SrcadError(
                f"srcad takes second derivatives through {name} of real arguments only; "
                "it was given a complex one"
            )
        args = tuple(reusable(a) for a in args)  # read twice, below
        y, pullback = rrule(*args, **keywords)
        _, y_dot = frule(dargs, *args, **keywords)

        def frule_pullback(bars: Any) -> tuple[Any, ...]:
            y_bar, y_dot_bar = elements_of(unthunk(bars), 2)
            _, *argument_bars = pullback(y_bar)
            _, *tangent_bars = pullback(y_dot_bar)
            dargs_bar = Tangent(tuple, NoTangent(), *tangent_bars)
            return (NoTangent(), dargs_bar, *argument_bars)

        return (y, y_dot), frule_pullback

    return named(frule_rrule, f"{name}_frule_rrule", frule_pullback=f"{name}_frule_pullback")


def _piecewise_linear(primal: Any, rrule: RuleFn, frule: RuleFn,
                      definition: Any = None) -> RuleFn:  # fmt: skip
    """A piecewise linear function's (`Linearity.PIECEWISE_LINEAR`): see `linear_frule_rrule`.
    Its tangent's coefficients are the same on each piece, and its pullback, their adjoint,
    uses the same ones (ties split alike: `tests/rules/test_higher_order.py` checks it).

    Over the reals only: `|z|` of a complex `z` is no such function (its coefficient
    `conj(z) / |z|` varies smoothly), so a complex argument goes through the primitive's
    `definition` where it has one (`np.hypot` of the parts, for `np.absolute`), and is
    refused where it has none, rather than given a second derivative of 0."""
    of_complex = None if definition is None else _through_definition(primal, definition)
    return linear_frule_rrule(rrule, frule, primal_name(primal), True, of_complex)


def _linear_in_all(primal: Any, rrule: RuleFn, frule: RuleFn) -> RuleFn:
    """A function linear in every argument, with no pieces (`Linearity.LINEAR_IN_ALL`):
    see `linear_frule_rrule`. Its tangent is the same map of the argument tangents as its
    value is of the arguments, over the complex numbers as over the reals (a tuple built
    of a complex `w` holds `w_dot` where it holds `w`), and its pullback is that map's
    adjoint: complex arguments pass."""
    return linear_frule_rrule(rrule, frule, primal_name(primal))


def _complex(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return any(_complex(v) for v in value)
    return isinstance(value, complex | np.complexfloating) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "c"
    )


def _through_definition(primal: Any, definition: Any) -> RuleFn:
    """The reverse rule of the forward rule of `primal`, which is no `Linearity` kind, from
    its `Primitive.definition`: the reverse rule of the forward rule srcad compiles for the
    definition, which takes the same arguments and tangents. Its result and tangent are
    the definition's, equal to the library rule's (`tests/rules/test_higher_order.py`)."""
    name = primal_name(primal)

    def definition_frule_rrule(dargs: tuple[Any, ...], *args: Any, **keywords: Any
                               ) -> tuple[Any, Pullback]:  # fmt: skip
        # With respect to the arrays and numbers passed by position: never an option.
        code = definition.__code__
        parameters = code.co_varnames[: code.co_argcount]
        wrt = tuple(p for p, a in zip(parameters, args, strict=False) if perturbable(a))
        forward = CONFIG.forward_rule(definition, args, wrt)
        every_dargs = padded(dargs, definition)
        result, pullback = CONFIG.rrule_via_ad(forward, every_dargs, *args, **keywords)

        def definition_frule_pullback(bars: Any) -> tuple[Any, ...]:
            # One cotangent per tangent and argument passed (the compiled pullback has one
            # per parameter).
            own, dargs_bar, *argument_bars = pullback(bars)
            if not isinstance(unthunk(dargs_bar), AbstractZero):
                tangent_bars = elements_of(unthunk(dargs_bar), len(every_dargs))
                dargs_bar = Tangent(tuple, *tangent_bars[: len(dargs)])
            return (own, dargs_bar, *argument_bars[: len(args)])

        return result, definition_frule_pullback

    return named(
        definition_frule_rrule,
        f"{name}_frule_rrule",
        definition_frule_pullback=f"{name}_frule_pullback",
    )


def _linear_frule_frule(primal: Any, frule: RuleFn, real_only: bool = False) -> RuleFn:
    """The forward rule of the forward rule of a function whose tangent is a linear map of
    its argument tangents with coefficients constant in the arguments (`LINEAR`,
    `PIECEWISE_LINEAR`, `LINEAR_IN_ALL`): the result and its tangent move by the same map,
    applied to the arguments' tangents and to the tangents' own; forward over forward
    mode, for `jacobian(jacobian(f))`. `real_only`: a piecewise linear function refuses
    complex arguments, as its reverse rule does (`_piecewise_linear`)."""

    def linear_frule_frule(dargs: tuple[Any, ...], inner_dargs: tuple[Any, ...], *args: Any,
                           **keywords: Any) -> tuple[Any, Any]:  # fmt: skip
        if real_only and any(_complex(a) for a in (*args, *keywords.values())):
            raise SrcadError(
                f"srcad takes forward-over-forward derivatives through "
                f"{primal_name(primal)} of real arguments only; it was given a complex one"
            )
        result = frule(inner_dargs, *args, **keywords)
        moved = frule((NoTangent(), *dargs[2:]), *args, **keywords)[1]
        inner_dots = unthunk(dargs[1])
        if isinstance(inner_dots, AbstractZero):
            return result, Tangent(tuple, moved, ZeroTangent())
        dots = elements_of(inner_dots, len(inner_dargs))
        tangent_moved = frule((NoTangent(), *dots[1:]), *args, **keywords)[1]
        return result, Tangent(tuple, moved, tangent_moved)

    return named(linear_frule_frule, f"{primal_name(primal)}_frule_frule")


def _linear_frule_frule_rrule(primal: Any, rrule: RuleFn, frule_frule: RuleFn) -> RuleFn:
    """The reverse rule of `_linear_frule_frule` (third derivatives): its four results, the
    value, its tangent and their tangents, are the same linear map of the arguments, of
    their tangents and of those tangents' own, so each pulls back through `rrule`'s
    pullback to the one it was made from."""

    def linear_frule_frule_rrule(dargs: tuple[Any, ...], inner_dargs: tuple[Any, ...],
                                 *args: Any, **keywords: Any) -> tuple[Any, Pullback]:  # fmt: skip
        result = frule_frule(dargs, inner_dargs, *args, **keywords)
        _, pullback = rrule(*args, **keywords)
        # A group of tangents that are symbolic zeros throughout (nested forward rules seed
        # the inner tangents' own with zeros; a direction may leave an argument alone)
        # made a symbolic zero, whose cotangent no one reads (what made it is zero
        # whatever its inputs): it gets a zero, never pulled back, where it would meet a
        # primal it was never shaped for.
        zero_inner = _zeros_throughout(dargs[1])
        zero_inner_args = _zeros_throughout(inner_dargs[1:])
        zero_args = _zeros_throughout(dargs[2:])

        def back(bar: Any) -> list[Any]:
            return list(pullback(bar)[1:])

        def linear_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
            outer, outer_dot = elements_of(unthunk(bars), 2)
            y_bar, y_dot_bar = elements_of(unthunk(outer), 2)
            moved_bar, tangent_moved_bar = elements_of(unthunk(outer_dot), 2)
            count = len(args)
            zeros = [ZeroTangent()] * count
            inner_bar = Tangent(
                tuple, NoTangent(), *(zeros if zero_inner_args else back(y_dot_bar))
            )
            if zero_inner:
                inner_dot_bar: Any = ZeroTangent()
            else:
                inner_dot_bar = Tangent(tuple, NoTangent(), *back(tangent_moved_bar))
            moved = zeros if zero_args else back(moved_bar)
            dargs_bar = Tangent(tuple, NoTangent(), inner_dot_bar, *moved)
            return (NoTangent(), dargs_bar, inner_bar, *back(y_bar))

        return result, named(linear_frule_frule_pullback, f"{name}_frule_frule_pullback")

    name = primal_name(primal)
    return named(linear_frule_frule_rrule, f"{name}_frule_frule_rrule")


def _zeros_throughout(tangents: Any) -> bool:
    """Whether `tangents` (a tangent, or a tuple or `Tangent` of them) are all symbolic
    zeros."""
    tangents = unthunk(tangents)
    if isinstance(tangents, AbstractZero):
        return True
    if isinstance(tangents, tuple | Tangent):
        return all(_zeros_throughout(t) for t in elements_of(tangents, len(tangents)))
    return False


def build(rule_sets: Iterable[RuleSet]) -> RuleSet:
    """Rules keyed on the forward rules (the functions) of the linear and bilinear primals
    that `rule_sets` give both rules for."""
    rules = RuleSet("second_order")
    rrules: dict[Any, Any] = {}
    frules: dict[Any, Any] = {}
    linearities: dict[Any, Linearity] = {}
    definitions: dict[Any, Any] = {}
    for rule_set in rule_sets:
        rrules.update({k: r.rrule for k, r in rule_set.rrules.items()})
        frules.update({k: r.rrule for k, r in rule_set.frules.items()})
        linearities.update(
            {k: p.linearity for k, p in rule_set.primitives.items() if p.linearity is not None}
        )
        definitions.update(
            {k: p.definition for k, p in rule_set.primitives.items() if p.definition is not None}
        )
    makers = {
        Linearity.LINEAR: _linear,
        Linearity.BILINEAR: _bilinear,
        Linearity.MULTILINEAR: _multilinear,
        Linearity.PIECEWISE_LINEAR: _piecewise_linear,
        Linearity.LINEAR_IN_ALL: _linear_in_all,
    }
    for primal, linearity in linearities.items():
        if primal in rrules and primal in frules and frules[primal] not in rules.rrules:
            if linearity is Linearity.PIECEWISE_LINEAR:  # its definition: for complex numbers
                rule = _piecewise_linear(
                    primal, rrules[primal], frules[primal], definitions.get(primal)
                )
            else:
                rule = makers[linearity](primal, rrules[primal], frules[primal])
            rules.rrule(frules[primal])(rule)
    for primal, linearity in linearities.items():
        linear_in_all = linearity in (
            Linearity.LINEAR,
            Linearity.PIECEWISE_LINEAR,
            Linearity.LINEAR_IN_ALL,
        )
        if linear_in_all and primal in frules and frules[primal] not in rules.frules:
            real_only = linearity is Linearity.PIECEWISE_LINEAR
            frule_frule = _linear_frule_frule(primal, frules[primal], real_only)
            rules.frule(frules[primal])(frule_frule)
            rules.rrule(frule_frule)(_linear_frule_frule_rrule(primal, rrules[primal], frule_frule))
    for primal, definition in definitions.items():
        if primal in frules and frules[primal] not in rules.rrules:
            rules.rrule(frules[primal])(_through_definition(primal, definition))
    return rules

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

import inspect
from collections.abc import Iterable
from typing import Any

import numpy as np

from srcad.callables import padded, perturbable
from srcad.errors import SrcadError
from srcad.keywords import is_positional_form
from srcad.keywords import parameters as keyword_parameters
from srcad.projection import operand_tangent
from srcad.registry import CONFIG, Linearity, RuleFn, RuleSet, named, primal_name
from srcad.rules._support import integer_valued, reusable
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

Pullback = Any


def _linear(primal: Any, rrule: RuleFn, frule: RuleFn) -> RuleFn:
    def linear_frule_rrule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any
                           ) -> tuple[Any, Pullback]:  # fmt: skip
        y, pullback = rrule(x, *options, **keywords)
        x_dot = operand_tangent(dargs[1], x) if of_arrays else unthunk(dargs[1])
        moves = not isinstance(x_dot, AbstractZero) and not integer_valued(y)
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
    # A NumPy function reads a list operand as an array, and its tangent as theirs.
    of_arrays = _of_numpy(primal)
    return named(linear_frule_rrule, f"{name}_frule_rrule")


def _bilinear(primal: Any, rrule: RuleFn, frule: RuleFn) -> RuleFn:
    def bilinear_frule_rrule(dargs: tuple[Any, ...], a: Any, b: Any, *options: Any,
                             **keywords: Any) -> tuple[Any, Pullback]:  # fmt: skip
        y, pullback = rrule(a, b, *options, **keywords)
        # (Tangents of list operands as arrays: the functions are NumPy's, or `@`.)
        a_dot, b_dot = operand_tangent(dargs[1], a), operand_tangent(dargs[2], b)
        if integer_valued(y):
            a_dot = b_dot = ZeroTangent()
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
        dots = [operand_tangent(d, a) for d, a in zip(dargs[1:], args, strict=False)]
        if integer_valued(y):
            dots = [ZeroTangent()] * len(dots)
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
        if integer_valued(y):
            y_dot = ZeroTangent()
        # A symbolic zero tangent (no argument tangent moves it): its cotangent is that zero
        # (as `ProjectTo` gives it), not a cotangent of the argument tangents.
        still = isinstance(unthunk(y_dot), AbstractZero)

        def frule_pullback(bars: Any) -> tuple[Any, ...]:
            y_bar, y_dot_bar = elements_of(unthunk(bars), 2)
            _, *argument_bars = pullback(y_bar)
            tangent_bars: list[Any] = [ZeroTangent()] * len(argument_bars)
            if not (still or isinstance(unthunk(y_dot_bar), AbstractZero)):
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


def _of_numpy(primal: Any) -> bool:
    """Whether `primal` is NumPy's (a ufunc, or a function of its modules)."""
    module = getattr(primal, "__module__", None) or ""
    return isinstance(primal, np.ufunc) or module == "numpy" or module.startswith("numpy.")


def _complex(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return any(_complex(v) for v in value)
    return isinstance(value, complex | np.complexfloating) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "c"
    )


def _definition_wrt(definition: Any, args: tuple[Any, ...]) -> tuple[str, ...] | None:
    """The parameters of `definition` a forward rule of it differentiates, called with
    `args`: those passed numbers or arrays (never an option); a definition of `*args`
    (calling an `np.vectorize`), every one it can."""
    code = definition.__code__
    if is_positional_form(definition):  # (its keyword-only ones and `**kwargs` too)
        parameters = keyword_parameters(definition)
    elif code.co_flags & inspect.CO_VARARGS:
        return None
    else:
        parameters = code.co_varnames[: code.co_argcount]
    return tuple(p for p, a in zip(parameters, args, strict=False) if perturbable(a))


def _through_definition(primal: Any, definition: Any) -> RuleFn:
    """The reverse rule of the forward rule of `primal`, which is no `Linearity` kind, from
    its `Primitive.definition`: the reverse rule of the forward rule srcad compiles for the
    definition, which takes the same arguments and tangents. Its result and tangent are
    the definition's, equal to the library rule's (`tests/rules/test_higher_order.py`)."""
    name = primal_name(primal)

    def definition_frule_rrule(dargs: tuple[Any, ...], *args: Any, **keywords: Any
                               ) -> tuple[Any, Pullback]:  # fmt: skip
        # With respect to the arrays and numbers passed by position: never an option.
        forward = CONFIG.forward_rule(definition, args, _definition_wrt(definition, args))
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


def frule_frule_via_ad(name: str, definition: Any) -> tuple[RuleFn, RuleFn]:
    """The forward rule of a forward rule that calls srcad's own forward rule of the Python
    function `definition` (third derivatives), and its reverse rule (fourth): the first of
    `definition_nested_rules`. For a computed attribute's getter
    (`second_order_calls.getattr_frule_frule`)."""
    return definition_nested_rules(name, definition)[0]


def definition_nested_rules(name: str, definition: Any) -> list[tuple[RuleFn, RuleFn]]:
    """The forward rules of a forward rule `F_1` that calls srcad's own forward rule of the
    Python function `definition` (a primitive's `Primitive.definition`, as
    `_through_definition` takes the reverse rule of `F_1`), nested to `NESTING` deep, each
    with its reverse rule: `[(F_2, its reverse rule), ..., (F_NESTING, ...)]`.

    `F_k(d_k, ..., d_1, *args)` is `G_(k-1)` called with those tangents, where `G_0` is the
    definition and `G_j` the forward rule srcad generates for `G_(j-1)`; its reverse rule
    is `G_k`'s. A generated rule takes a tangent for every parameter of the function it
    differentiates, so each group `d_j` is padded with zeros to `G_(j-1)`'s parameters,
    the tangents of groups it holds padded alike (`_padded_group`), and the cotangents cut
    back to the tangents passed (`_cut_group`): third derivatives through `F_2`, fourth
    through `F_3`'s reverse rule, and so on."""
    count = len(padded((NoTangent(),), definition))  # a tangent for it and each parameter

    def generated(depth: int, groups: tuple[Any, ...], args: tuple[Any, ...]) -> Any:
        """`G_depth`, compiled for the padded groups `(E_depth, ..., E_1)` it differentiates
        in turn (the last `depth - 1` of `groups`) and the arguments."""
        # With respect to the arrays and numbers passed by position: never an option.
        function = CONFIG.forward_rule(definition, args, _definition_wrt(definition, args))
        for j in range(2, depth + 1):
            function = CONFIG.forward_rule(function, (*groups[len(groups) - (j - 1) :], *args))
        return function

    def nested(depth: int) -> tuple[RuleFn, RuleFn]:
        def split(inputs: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            groups = tuple(_padded_group(d, depth - i, count) for i, d in enumerate(inputs[:depth]))
            return groups, tuple(inputs[depth:])

        def definition_frule_frule(dargs: tuple[Any, ...], *inputs: Any, **keywords: Any
                                   ) -> tuple[Any, Any]:  # fmt: skip
            groups, args = split((dargs, *inputs))
            forward = generated(depth - 1, groups, args)
            found: tuple[Any, Any] = CONFIG.frule_via_ad(
                groups[0], forward, *groups[1:], *args, **keywords
            )
            return found

        def definition_frule_frule_rrule(dargs: tuple[Any, ...], *inputs: Any, **keywords: Any
                                         ) -> tuple[Any, Pullback]:  # fmt: skip
            groups, args = split((dargs, *inputs))
            twice = generated(depth, groups, args)
            result, pullback = CONFIG.rrule_via_ad(twice, *groups, *args, **keywords)
            lengths = {depth - i: len(d) for i, d in enumerate((dargs, *inputs)[:depth])}

            def definition_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
                _, *found = pullback(bars)
                group_bars = [
                    _cut_group(bar, depth - i, lengths) for i, bar in enumerate(found[:depth])
                ]
                argument_bars = found[depth : depth + len(args)]
                return (NoTangent(), *group_bars, *argument_bars)

            frules = "_frule" * depth
            return result, named(definition_frule_frule_pullback, f"{name}{frules}_pullback")

        frules = "_frule" * depth
        return (
            named(definition_frule_frule, f"{name}{frules}"),
            named(definition_frule_frule_rrule, f"{name}{frules}_rrule"),
        )

    return [nested(depth) for depth in range(2, NESTING + 1)]


def _padded_group(group: Any, depth: int, count: int) -> Any:
    """A group of tangents `d_depth` (or a tangent of one) padded with zeros to the
    parameters of `G_(depth - 1)` (`definition_nested_rules`): `depth - 1` groups and the
    definition's parameters, `count` with its own tangent. Its elements `1 ... depth - 1`
    are the tangents of the groups `d_(depth - 1) ... d_1`, padded alike."""
    group = unthunk(group)
    if isinstance(group, AbstractZero):
        return group
    parts = list(group) if isinstance(group, tuple) else list(elements_of(group, len(group)))
    for i in range(1, min(depth, len(parts))):
        parts[i] = _padded_group(parts[i], depth - i, count)
    parts += [ZeroTangent()] * (depth - 1 + count - len(parts))
    return tuple(parts) if isinstance(group, tuple) else Tangent(tuple, *parts)


def _cut_group(bar: Any, depth: int, lengths: dict[int, int]) -> Any:
    """The cotangent of a padded group `E_depth` cut back to the group `d_depth` passed
    (`lengths[j]` elements for `d_j`), the cotangents of the groups it holds alike."""
    bar = unthunk(bar)
    if isinstance(bar, AbstractZero):
        return bar
    parts = list(elements_of(bar, len(bar)))[: lengths[depth]]
    for i in range(1, min(depth, len(parts))):
        parts[i] = _cut_group(parts[i], depth - i, lengths)
    return Tangent(tuple, *parts)


# How many forward rules deep the rules of a linear function's forward rules go: the
# forward rule of its forward rule (forward over forward, third derivatives) and so on, each
# with its reverse rule; `grad` k deep differentiates forward rules k - 1 deep.
NESTING = 6


def linear_nested_rules(primal: Any, rrule: RuleFn, frule: RuleFn, real_only: bool = False
                        ) -> list[tuple[RuleFn, RuleFn]]:  # fmt: skip
    """The forward rules of `frule`'s forward rules, `F_2 ... F_NESTING`, of a
    function whose tangent is a linear map of its argument tangents with coefficients
    constant in the arguments (`LINEAR`, `PIECEWISE_LINEAR`, `LINEAR_IN_ALL`), each with
    its reverse rule: `[(F_2, its reverse rule), (F_3, ...), ...]`.

    `F_1` is `frule`; `F_k(d_k, d_(k-1), ..., d_1, *args)` is `(F_(k-1)(d_(k-1), ...,
    *args), its tangent along d_k)`. Each is a nest of tuples whose leaves are the same
    linear map of the arguments, or of one group of tangents (`_moved`), so its tangent is
    that nest again, with the map applied to the tangents' own tangents, and its pullback
    sends each leaf's cotangent through `rrule`'s pullback to the group it was made from
    (`_pulled_back`). `real_only`: a piecewise linear function refuses complex arguments,
    as its reverse rule does (`_piecewise_linear`)."""
    name = primal_name(primal)

    def moved(depth: int, tangents: tuple[Any, ...], args: tuple[Any, ...],
              keywords: dict[str, Any]) -> Any:  # fmt: skip
        """The tangent of `F_depth`'s result along `tangents`, one per input."""
        if depth == 0:
            return frule((NoTangent(), *tangents), *args, **keywords)[1]
        group, *rest = tangents
        first = moved(depth - 1, tuple(rest), args, keywords)
        group = unthunk(group)
        if isinstance(group, AbstractZero):
            return Tangent(tuple, first, ZeroTangent())
        own = elements_of(group, 1 + len(rest))[1:]
        return Tangent(tuple, first, moved(depth - 1, own, args, keywords))

    def value(depth: int, inputs: tuple[Any, ...], keywords: dict[str, Any]) -> Any:
        """`F_depth(*inputs)`: `depth` groups of tangents, then the arguments."""
        args = inputs[depth:]
        if depth == 1:
            return frule(inputs[0], *args, **keywords)
        group, *rest = inputs
        tangent = moved(depth - 1, tuple(group[1:]), args, keywords)
        return (value(depth - 1, tuple(rest), keywords), tangent)

    def pulled_back(depth: int, bar: Any, inputs: tuple[Any, ...], args: tuple[Any, ...],
                    keywords: dict[str, Any]) -> list[Any]:  # fmt: skip
        """The cotangents of `inputs` (the arguments, or a group of tangents, of
        `F_depth`'s map) for the cotangent `bar` of its result. Inputs that are symbolic
        zeros throughout (nested forward rules seed the inner tangents' own with zeros; a
        direction may leave an argument alone) get zeros, never pulled back, where they
        would meet a primal they were never shaped for."""
        bar = unthunk(bar)
        if depth == 0:
            if isinstance(bar, AbstractZero) or _zeros_throughout(tuple(inputs)):
                return [ZeroTangent()] * len(args)
            return list(rrule(*args, **keywords)[1](bar)[1:])
        group, *rest = inputs
        result_bar, tangent_bar = elements_of(bar, 2)
        rest_bars = pulled_back(depth - 1, result_bar, tuple(rest), args, keywords)
        group = unthunk(group)
        own = () if isinstance(group, AbstractZero) else tuple(elements_of(group, 1))[1:]
        if isinstance(group, AbstractZero) or _zeros_throughout(own):
            return [ZeroTangent(), *rest_bars]
        own_bars = pulled_back(depth - 1, tangent_bar, own, args, keywords)
        return [Tangent(tuple, NoTangent(), *own_bars), *rest_bars]

    def refuse_complex(args: tuple[Any, ...], keywords: dict[str, Any]) -> None:
        if real_only and any(_complex(a) for a in (*args, *keywords.values())):
            raise SrcadError(
                f"srcad takes forward-over-forward derivatives through {name} of real "
                "arguments only; it was given a complex one"
            )

    def nested(depth: int) -> tuple[RuleFn, RuleFn]:
        """`F_depth` and its reverse rule."""

        def linear_frule_frule(dargs: tuple[Any, ...], *inputs: Any, **keywords: Any
                               ) -> tuple[Any, Any]:  # fmt: skip
            args = inputs[depth - 1 :]
            refuse_complex(args, keywords)
            tangent = moved(depth - 1, tuple(dargs[1:]), args, keywords)
            return value(depth - 1, inputs, keywords), tangent

        def linear_frule_frule_rrule(dargs: tuple[Any, ...], *inputs: Any, **keywords: Any
                                     ) -> tuple[Any, Pullback]:  # fmt: skip
            result = linear_frule_frule(dargs, *inputs, **keywords)
            args = inputs[depth - 1 :]

            def linear_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
                every = (dargs, *inputs)
                found = pulled_back(depth, bars, every, args, keywords)
                return (NoTangent(), *found)

            frules = "_frule" * depth
            return result, named(linear_frule_frule_pullback, f"{name}{frules}_pullback")

        frules = "_frule" * depth
        return (
            named(linear_frule_frule, f"{name}{frules}"),
            named(linear_frule_frule_rrule, f"{name}{frules}_rrule"),
        )

    return [nested(depth) for depth in range(2, NESTING + 1)]


def _register_nested(frule: RuleFn, nested: list[tuple[RuleFn, RuleFn]], rules: RuleSet) -> None:
    """`F_k` as the forward rule of `F_(k-1)` (`frule` is `F_1`), each with its reverse rule."""
    outer = frule
    for forward, reverse in nested:
        rules.frule(outer)(forward)
        rules.rrule(forward)(reverse)
        outer = forward


def _zeros_throughout(tangents: Any) -> bool:
    """Whether `tangents` (a tangent, or a tuple or `Tangent` of them) are all symbolic
    zeros."""
    tangents = unthunk(tangents)
    if isinstance(tangents, AbstractZero):
        return True
    if isinstance(tangents, tuple):
        return all(_zeros_throughout(t) for t in tangents)
    if isinstance(tangents, Tangent):  # a plain class's by field: `elements_of` has none
        parts = tangents.elements or tuple(tangents.fields.values())
        return all(_zeros_throughout(t) for t in parts)
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
            nested = linear_nested_rules(primal, rrules[primal], frules[primal], real_only)
            _register_nested(frules[primal], nested, rules)
    for primal, definition in definitions.items():
        if primal in frules and frules[primal] not in rules.rrules:
            rules.rrule(frules[primal])(_through_definition(primal, definition))
        if primal in frules and frules[primal] not in rules.frules:
            nested = definition_nested_rules(primal_name(primal), definition)
            _register_nested(frules[primal], nested, rules)
    return rules

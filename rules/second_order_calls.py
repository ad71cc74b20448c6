"""Reverse rules for the forward rules that call a function known only at run time: calls
of function values, `f(*args)`, method calls, computed attributes, keyword calls and `map`
(`rules/calls.py`, `rules/keywords.py`). What lets srcad take second derivatives through
them.

Each such forward rule rearranges its tangents, then hands the call to srcad's own forward
rule of the function it found (`CONFIG.frule_via_ad`). Its reverse rule is the same
dispatch one level up (`dispatched_frule_rrule`): the reverse rule of that function's
forward rule (the registered rule's, else the forward rule srcad generates for it, both
differentiated as any other code), whose cotangents go back through the rearrangement
(its adjoint: the tangents were only moved, never combined)."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.callables import callee, check_tangents, padded, unwrap
from srcad.entry_rules import entry_rules
from srcad.errors import MissingRuleError, SrcadError
from srcad.keywords import keyword_call, positional_form
from srcad.primitives import unpacked_arguments
from srcad.registry import CONFIG, REGISTRY, RuleFn, RuleSet
from srcad.rules import calls, containers, keywords
from srcad.rules.method_lookup import static_member
from srcad.rules.second_order import (
    frule_frule_via_ad,
    linear_frule_rrule,
    linear_nested_rules,
)
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

Pullback = Any
# The pullback of a dispatched forward rule: from the cotangent of `(y, y_dot)`, those of
# the tangents it was given (one per entry of `dargs`) and of its arguments.
Back = Callable[[Any], tuple[list[Any], list[Any]]]


def dispatched_frule_rrule(
    dargs: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any
) -> tuple[tuple[Any, Any], Back]:
    """The reverse rule of `CONFIG.frule_via_ad(dargs, f, *args, **kwargs)`: the reverse
    rule of the forward rule that call runs (`Compiler.frule` finds it the same way)."""
    f = unwrap(f)
    derivative = entry_rules(CONFIG.ad, f)  # a function srcad returned: its form's rules
    rule = REGISTRY.frule_for(f)
    if derivative is not None:
        forward, every = derivative.frule, tuple(dargs)
    elif rule is not None:
        forward, every = rule.rrule, tuple(dargs)
    else:
        refusal = REGISTRY.refusal(f)
        if refusal is not None:
            raise MissingRuleError(f"srcad has no rule for `{f!r:.60}`: {refusal}")
        if not isinstance(f, types.FunctionType):
            call = callee(f, REGISTRY)
            if call.binds:
                raise SrcadError(
                    f"srcad takes no second derivative through a call of {f!r:.60}, which "
                    "binds arguments of its own; call its function directly"
                )
            if call.function is not f:
                return dispatched_frule_rrule(dargs, call.function, *args, **kwargs)
        if len(dargs) != 1 + len(args):
            raise SrcadError(
                f"frule takes one tangent for {f!r:.60} and one per positional argument: "
                f"{len(dargs)} tangents for {len(args)} arguments"
            )
        check_tangents(f, tuple(dargs), args)
        forward = CONFIG.forward_rule(f, args)
        every = padded(tuple(dargs), f)
    result, pullback = CONFIG.rrule_via_ad(forward, every, *args, **kwargs)

    def back(bars: Any) -> tuple[list[Any], list[Any]]:
        _, dargs_bar, *argument_bars = pullback(bars)
        dargs_bar = unthunk(dargs_bar)
        if isinstance(dargs_bar, AbstractZero):
            dots: list[Any] = [ZeroTangent()] * len(dargs)
        else:
            dots = list(elements_of(dargs_bar, len(every)))[: len(dargs)]
        return dots, list(argument_bars[: len(args)])

    return result, back


def _returned(dots: list[Any], argument_bars: list[Any], *leading: Any) -> tuple[Any, ...]:
    """The cotangents a forward rule's reverse rule returns: its own, its tangents' (one
    tuple, `dots`), then its arguments' (`leading` ones first)."""
    return (NoTangent(), Tangent(tuple, *dots), *leading, *argument_bars)


def _zero(values: Any) -> list[Any]:
    return [ZeroTangent() for _ in values]


# -- calling a value --------------------------------------------------------------------------


def call_frule_rrule(
    dargs: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any
) -> tuple[tuple[Any, Any], Pullback]:
    """`call_frule`'s: a function through its own forward rule (its tangent is not read);
    a bound method, a callable object, with `self`'s tangent in front; a partial, through
    its function with the bound arguments in front."""
    f_dot, arg_dots = dargs[1], tuple(dargs[2:])
    count = len(args)
    if calls._is_function(f):  # (in `call_frule`'s order)
        result, back = dispatched_frule_rrule((NoTangent(), *arg_dots), f, *args, **kwargs)

        def function_call_pullback(bars: Any) -> tuple[Any, ...]:
            dots, argument_bars = back(bars)
            return _returned([NoTangent(), ZeroTangent(), *dots[1:]], argument_bars,
                             NoTangent())  # fmt: skip

        return result, function_call_pullback
    if isinstance(f, types.MethodType):
        function, receiver = f.__func__, f.__self__
    elif isinstance(f, functools.partial):
        return _partial_call(dargs, f, *args, **kwargs)
    else:
        function, receiver = type(f).__call__, f
    result, back = dispatched_frule_rrule(
        (NoTangent(), f_dot, *arg_dots), function, receiver, *args, **kwargs
    )

    def method_call_pullback(bars: Any) -> tuple[Any, ...]:
        # The value called carries `self`: its (co)tangent is `self`'s.
        dots, argument_bars = back(bars)
        own = [NoTangent(), *dots[1 : 2 + count]]
        return _returned(own, argument_bars[1 : 1 + count], argument_bars[0])

    return result, method_call_pullback


def _partial_call(
    dargs: tuple[Any, ...], f: functools.partial, *args: Any, **kwargs: Any
) -> tuple[tuple[Any, Any], Pullback]:
    """A partial's: the call of its function with the bound arguments in front, whose
    (co)tangents, with the function's, are the partial's own."""
    bound, count = len(f.args), len(args)
    own = elements_of(unthunk(dargs[1]), 1 + bound)
    inner = (NoTangent(), *own, *dargs[2:])
    result, pullback = call_frule_rrule(inner, f.func, *f.args, *args, **{**f.keywords, **kwargs})

    def partial(parts: list[Any]) -> Any:
        if all(isinstance(unthunk(p), AbstractZero) for p in parts):
            return ZeroTangent()
        return Tangent(functools.partial, *parts)

    def partial_call_pullback(bars: Any) -> tuple[Any, ...]:
        _, dargs_bar, func_bar, *argument_bars = pullback(bars)
        dots = list(elements_of(dargs_bar, 2 + bound + count))
        f_dot_bar = partial(dots[1 : 2 + bound])
        f_bar = partial([func_bar, *argument_bars[:bound]])
        outer = [NoTangent(), f_dot_bar, *dots[2 + bound :]]
        return _returned(outer, argument_bars[bound:], f_bar)

    return result, partial_call_pullback


def unpacked_call_frule_rrule(
    dargs: tuple[Any, ...], f: Any, layout: str, *parts: Any, **kwargs: Any
) -> tuple[tuple[Any, Any], Pullback]:
    """`f(a, *rest)`'s: `call_frule`'s, each argument's tangent read from its part's (an
    unpacked part's holds one per element), each part's cotangent made of its arguments'."""
    calls._unpackable(layout, parts)
    argument_dots: list[Any] = []
    for kind, part, dot in zip(layout, parts, dargs[3:], strict=True):
        argument_dots += list(elements_of(dot, len(part))) if kind == "*" else [dot]
    arguments = unpacked_arguments(layout, parts)
    inner = (NoTangent(), dargs[1], *argument_dots)
    result, pullback = call_frule_rrule(inner, f, *arguments, **kwargs)

    def unpacked_call_pullback(bars: Any) -> tuple[Any, ...]:
        _, dargs_bar, f_bar, *argument_bars = pullback(bars)
        dots = list(elements_of(dargs_bar, 2 + len(arguments)))
        part_dots = calls._part_bars(layout, parts, tuple(dots[2:]))
        part_bars = calls._part_bars(layout, parts, tuple(argument_bars))
        outer = [NoTangent(), dots[1], NoTangent(), *part_dots]
        return _returned(outer, part_bars, f_bar, NoTangent())

    return result, unpacked_call_pullback


# -- methods and attributes ---------------------------------------------------------------------


def method_frule_rrule(
    dargs: tuple[Any, ...], receiver: Any, name: str, *args: Any, **kwargs: Any
) -> tuple[tuple[Any, Any], Pullback]:
    """`method_frule`'s: the class's method (or the NumPy function an array's method
    calls) through its own forward rule, `self`'s tangent first. An array's `.copy()`,
    `.astype()`, `.item()` and the methods with no derivative move or drop the tangent
    as they do the value: linear (`second_order.linear_frule_rrule`)."""
    count = len(args)
    receiver_dot, arg_dots = dargs[1], tuple(dargs[3:])
    array = isinstance(receiver, np.ndarray | np.generic)
    static = None if isinstance(receiver, calls.NUMERIC) else static_member(receiver, name)
    if static is not None:  # a staticmethod's or classmethod's function, without the receiver
        function, leading = static
        skip = len(leading)
        inner = (NoTangent(), *(NoTangent(),) * skip, *arg_dots)
        found, back = dispatched_frule_rrule(inner, function, *leading, *args, **kwargs)

        def static_method_pullback(bars: Any) -> tuple[Any, ...]:
            dot_bars, argument_bars = back(bars)
            outer = [NoTangent(), ZeroTangent(), NoTangent(), *dot_bars[1 + skip :]]
            return _returned(outer, argument_bars[skip:], ZeroTangent(), NoTangent())

        return found, static_method_pullback
    if array and name not in calls.ARRAY_METHODS:
        linear = linear_frule_rrule(calls.method_rrule, calls.method_frule, "method")
        result: tuple[tuple[Any, Any], Pullback] = linear(dargs, receiver, name, *args, **kwargs)
        return result
    packs = False
    if array:
        function, packs = calls.ARRAY_METHODS[name]
        passed = calls._packed(args) if packs else args
        dots = (NoTangent(),) * len(passed) if packs else arg_dots
    else:
        function, passed, dots = calls._method_function(receiver, name, "frule"), args, arg_dots
        if REGISTRY.is_non_differentiable(function):
            y = function(receiver, *args, **kwargs)

            def no_derivative_method_pullback(bars: Any) -> tuple[Any, ...]:
                outer = [NoTangent(), ZeroTangent(), NoTangent(), *_zero(args)]
                return _returned(outer, [NoTangent()] * count, ZeroTangent(), NoTangent())

            return (y, ZeroTangent()), no_derivative_method_pullback
    result, back = dispatched_frule_rrule(
        (NoTangent(), receiver_dot, *dots), function, receiver, *passed, **kwargs
    )

    def method_pullback(bars: Any) -> tuple[Any, ...]:
        dot_bars, argument_bars = back(bars)
        own_dots = _zero(args) if packs else dot_bars[2:]
        own_bars = [NoTangent()] * count if packs else argument_bars[1:]
        outer = [NoTangent(), dot_bars[1], NoTangent(), *own_dots]
        return _returned(outer, own_bars, argument_bars[0], NoTangent())

    return result, method_pullback


def getattr_frule_rrule(
    dargs: tuple[Any, ...], obj: Any, name: str, *default: Any
) -> tuple[tuple[Any, Any], Pullback]:
    """`getattr_frule`'s: a computed attribute (a property) through the forward rule of
    the function computing it; a field, `.real` or `.imag` is read from the tangent as
    from the value, linearly (`second_order.linear_frule_rrule`)."""
    reader = None if isinstance(obj, calls.NUMERIC) else calls.attribute_reader(obj, name)
    if not isinstance(reader, tuple):
        linear = linear_frule_rrule(calls.getattr_rrule, calls.getattr_frule, "getattr")
        result: tuple[tuple[Any, Any], Pullback] = linear(dargs, obj, name, *default)
        return result
    function, extra = reader
    others = [NoTangent()] * len(default)
    inner = (NoTangent(), dargs[1], *(NoTangent(),) * len(extra))
    result, back = dispatched_frule_rrule(inner, function, obj, *extra)

    def computed_attribute_pullback(bars: Any) -> tuple[Any, ...]:
        dot_bars, argument_bars = back(bars)
        outer = [NoTangent(), dot_bars[1], NoTangent(), *others]
        return _returned(outer, others, argument_bars[0], NoTangent())

    return result, computed_attribute_pullback


def transpose_attribute_frule_rrule(
    dargs: tuple[Any, ...], x: Any
) -> tuple[tuple[Any, Any], Pullback]:
    """`.T`'s forward rule's: of an array, linear; of any other value, a field read
    (`getattr_frule_rrule`)."""
    if isinstance(x, np.ndarray | np.generic):
        linear = linear_frule_rrule(
            containers.transpose_attribute_rrule, containers.transpose_attribute_frule, "T"
        )
        result: tuple[tuple[Any, Any], Pullback] = linear(dargs, x)
        return result
    result, pullback = getattr_frule_rrule((dargs[0], dargs[1], NoTangent()), x, "T")

    def field_t_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, dargs_bar, x_bar, _ = pullback(bars)
        return _returned(list(elements_of(dargs_bar, 3))[:2], [x_bar])

    return result, field_t_frule_pullback


# -- keywords and map ---------------------------------------------------------------------------


def keyword_call_frule_rrule(
    dargs: tuple[Any, ...], function: Any, layout: str, names: tuple[str | None, ...],
    *parts: Any,
) -> tuple[tuple[Any, Any], Pullback]:  # fmt: skip
    """`keyword_call_frule`'s: the function's positional form through its forward rule,
    each parameter's (co)tangent moved back to the part of the call that gave it
    (`_Binding.part_bars`, the adjoint of `_Binding.parameter_dots`)."""
    binding = keywords._Binding(function, layout, names, parts)
    dots = binding.parameter_dots([unthunk(d) for d in dargs[4:]])
    form = positional_form(function)
    result, back = dispatched_frule_rrule((NoTangent(), *dots), form, *binding.arguments)

    def keyword_call_pullback(bars: Any) -> tuple[Any, ...]:
        dot_bars, argument_bars = back(bars)
        outer = [NoTangent()] * 4 + binding.part_bars(dot_bars[1:])
        leading = (NoTangent(),) * 3
        return _returned(outer, binding.part_bars(argument_bars), *leading)

    return result, keyword_call_pullback


def map_frule_rrule(
    dargs: tuple[Any, ...], f: Any, *iterables: Any
) -> tuple[tuple[Any, Any], Pullback]:
    """`map`'s forward rule's: one `call_frule` per item, each through its reverse rule;
    `f` and its tangent get the sums of their cotangents over the calls."""
    iterable_dots = dargs[2:]
    columns = [elements_of(dot, len(it)) for dot, it in zip(iterable_dots, iterables, strict=True)]
    rows = list(zip(*iterables, strict=False))
    calls_made = [
        dispatched_frule_rrule((NoTangent(), dargs[1], *item_dots), calls.call, f, *items)
        for items, item_dots in zip(rows, zip(*columns, strict=False), strict=False)
    ]
    results = [y for (y, _), _ in calls_made]
    dots = [y_dot for (_, y_dot), _ in calls_made]
    count = len(calls_made)

    def map_frule_pullback(bars: Any) -> tuple[Any, ...]:
        results_bar, dots_bar = elements_of(unthunk(bars), 2)
        pairs = zip(elements_of(results_bar, count), elements_of(dots_bar, count), strict=True)
        backs = [back((y_bar, dot_bar)) for (_, back), (y_bar, dot_bar) in
                 zip(calls_made, pairs, strict=True)]  # fmt: skip
        f_dot_bar: Any = ZeroTangent()
        f_bar: Any = ZeroTangent()
        for dot_bars, argument_bars in backs:
            f_dot_bar = f_dot_bar + dot_bars[1]
            f_bar = f_bar + argument_bars[0]
        iterable_dot_bars, iterable_bars = [], []
        for position, iterable in enumerate(iterables):
            padding = (ZeroTangent(),) * (len(iterable) - count)
            own_dots = tuple(d[2 + position] for d, _ in backs) + padding
            own_bars = tuple(a[1 + position] for _, a in backs) + padding
            iterable_dot_bars.append(calls.cotangent_of_elements(iterable, own_dots))
            iterable_bars.append(calls.cotangent_of_elements(iterable, own_bars))
        return _returned([NoTangent(), f_dot_bar, *iterable_dot_bars], iterable_bars, f_bar)

    return (results, dots), map_frule_pullback


# Reading a field is linear: the rules of its forward rule's forward rule are a linear
# function's. A computed attribute (a property) goes through its getter's own (`_computed`).
_FIELD_FRULE_FRULE, _FIELD_FRULE_FRULE_RRULE = linear_nested_rules(
    getattr, calls.getattr_rrule, calls.getattr_frule
)[0]


def _computed(obj: Any, name: str) -> tuple[Any, tuple[Any, ...]] | None:
    """The getter of a computed attribute and the arguments it takes after the instance
    (`calls.attribute_reader`), or None for a field."""
    if isinstance(obj, calls.NUMERIC):
        return None
    reader = calls.attribute_reader(obj, name)
    return reader if isinstance(reader, tuple) else None


def _element(tangent: Any, count: int, index: int) -> Any:
    tangent = unthunk(tangent)
    if isinstance(tangent, AbstractZero):
        return tangent
    return elements_of(tangent, count)[index]


def _getter_tangents(dargs: tuple[Any, ...], inner_dargs: tuple[Any, ...], extra: tuple[Any, ...]
                     ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:  # fmt: skip
    """The tangents `getattr_frule_frule` was given, moved to the getter's forward rule of
    the forward rule: the object's (co)tangent is the getter's `self`'s; the name's and the
    default's have none."""
    none = (NoTangent(),) * len(extra)
    inner = (NoTangent(), inner_dargs[1], *none)
    inner_dot = _element(dargs[1], len(inner_dargs), 1)
    moved: Any = inner_dot
    if not isinstance(unthunk(inner_dot), AbstractZero):
        moved = Tangent(tuple, NoTangent(), inner_dot, *none)
    dot = unthunk(dargs[1])
    outer_dot = ZeroTangent() if isinstance(dot, AbstractZero) else moved
    return (NoTangent(), outer_dot, dargs[2], *none), inner


def _getter_rules(name: str, function: Any) -> tuple[Any, Any]:
    """The forward rule of a getter's forward rule and its reverse rule: the registered ones
    where there are (a field of `solve_ivp`'s result, read through its class's
    `__getattr__`), else srcad's of the getter's source (`frule_frule_via_ad`)."""
    once = REGISTRY.frule_for(function)
    twice = None if once is None else REGISTRY.frule_for(once.rrule)
    if once is None or twice is None or REGISTRY.rrule_for(twice.rrule) is None:
        return frule_frule_via_ad(name, function)
    first, second = once.rrule, twice.rrule

    def registered_getter_frule_frule(dargs: tuple[Any, ...], *inputs: Any) -> Any:
        return CONFIG.frule_via_ad(dargs, first, *inputs)

    def registered_getter_frule_frule_rrule(*inputs: Any) -> Any:
        return CONFIG.rrule_via_ad(second, *inputs)

    return registered_getter_frule_frule, registered_getter_frule_frule_rrule


def getattr_frule_frule(dargs: tuple[Any, ...], inner_dargs: tuple[Any, ...], obj: Any,
                        name: str, *default: Any) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `getattr_frule` (`x.shape`, a field), for forward mode over a
    forward rule: reading a field is linear (`second_order.linear_nested_rules`); a computed
    attribute goes through the forward rule of its getter's forward rule
    (`second_order.frule_frule_via_ad`)."""
    computed = _computed(obj, name)
    if computed is None:
        result: tuple[Any, Any] = _FIELD_FRULE_FRULE(dargs, inner_dargs, obj, name, *default)
        return result
    function, extra = computed
    getter_dargs, getter_inner = _getter_tangents(dargs, inner_dargs, extra)
    forward, _ = _getter_rules(name, function)
    found: tuple[Any, Any] = forward(getter_dargs, getter_inner, obj, *extra)
    return found


def getattr_frule_frule_rrule(
    dargs: tuple[Any, ...], inner_dargs: tuple[Any, ...], obj: Any, name: str, *default: Any
) -> tuple[Any, Pullback]:
    """`getattr_frule_frule`'s: of a field, linear, each result pulled back to what it was
    read from; of a computed attribute, the getter's, its cotangents moved back to the
    object's (co)tangents (`_getter_tangents`' adjoint)."""
    computed = _computed(obj, name)
    if computed is None:
        result, pullback = _FIELD_FRULE_FRULE_RRULE(dargs, inner_dargs, obj, name, *default)

        def getattr_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
            found: tuple[Any, ...] = pullback(bars)
            return found

        return result, getattr_frule_frule_pullback
    function, extra = computed
    getter_dargs, getter_inner = _getter_tangents(dargs, inner_dargs, extra)
    _, reverse = _getter_rules(name, function)
    result, getter_pullback = reverse(getter_dargs, getter_inner, obj, *extra)
    rest = (NoTangent(),) * (len(inner_dargs) - 2)

    def inner_of(bar: Any, count: int) -> Any:
        """A cotangent of the getter's inner tangents, as one of `getattr`'s."""
        bar = unthunk(bar)
        if isinstance(bar, AbstractZero):
            return bar
        return Tangent(tuple, NoTangent(), _element(bar, count, 1), *rest)

    def computed_attribute_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, dargs_bar, inner_bar, obj_bar, *_ = getter_pullback(bars)
        dargs_bar = unthunk(dargs_bar)
        outer: Any = ZeroTangent()
        if not isinstance(dargs_bar, AbstractZero):
            _, inner_dot_bar, obj_dot_bar, *_ = elements_of(dargs_bar, len(getter_dargs))
            tail = (NoTangent(),) * (len(dargs) - 3)
            inner_dot_bar = inner_of(inner_dot_bar, len(getter_inner))
            outer = Tangent(tuple, NoTangent(), inner_dot_bar, obj_dot_bar, *tail)
        inner = inner_of(inner_bar, len(getter_inner))
        return (NoTangent(), outer, inner, obj_bar, NoTangent(), *(NoTangent() for _ in default))

    return result, computed_attribute_frule_pullback


# Keyed on the forward rules (the functions `RuleSet.frule` registered), as
# `second_order.build`'s are; a rule set of that name, which the docs leave out.
rules = RuleSet("second_order")
DISPATCHERS: dict[Any, RuleFn] = {
    calls.call: call_frule_rrule,
    calls.unpacked_call: unpacked_call_frule_rrule,
    calls.method: method_frule_rrule,
    getattr: getattr_frule_rrule,
    keyword_call: keyword_call_frule_rrule,
    map: map_frule_rrule,
}
for _primal, _rrule in DISPATCHERS.items():
    _frule = (calls.rules.frules.get(_primal) or keywords.rules.frules[_primal]).rrule
    rules.rrule(_frule)(_rrule)
rules.rrule(containers.transpose_attribute_frule)(transpose_attribute_frule_rrule)
rules.frule(calls.getattr_frule)(getattr_frule_frule)
rules.rrule(getattr_frule_frule)(getattr_frule_frule_rrule)

"""The forward rules of the forward rules that call a function known only at run time
(third derivatives): of a method call (`method_frule`, the `scipy.stats` methods among
them), of a call of a function value, a bound method or a callable object
(`call_frule`), and of an array's `.T`. Each is forward mode over the forward rule of the
function the call runs (`_dispatched_frule_frule`: its registered forward rule's forward
rule, or srcad's of its source), its tangents moved as the forward rule moved them, with
its reverse rule (`grad` three deep). Where a call reaches what these do not dispatch, they
refuse when they run, and `jacobian` three deep takes the derivative by rows
(`atoms.derivative_atom`). The rules of the forward rules themselves are in
`rules/second_order_calls.py`."""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from srcad.callables import padded, unwrap
from srcad.entry_rules import entry_rules
from srcad.errors import MissingRuleError
from srcad.keywords import keyword_call, positional_form
from srcad.primitives import unpacked_arguments
from srcad.registry import CONFIG, REGISTRY, RuleSet
from srcad.rules import calls, containers, keywords
from srcad.rules.second_order import (
    frule_frule_via_ad,
    linear_nested_rules,
)
from srcad.rules.second_order_calls import Back, Pullback
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk


def _dispatched_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], function: Any,
                            *args: Any, **kwargs: Any) -> tuple[Any, Any]:  # fmt: skip
    """Forward mode over `CONFIG.frule_via_ad(dargs, function, *args)`: the forward rule
    of `function`'s forward rule, its registered one's (or the one srcad compiles from the
    registered rule's source), or of the one srcad generates for `function`'s source."""
    rule = REGISTRY.frule_for(function)
    if rule is not None:
        found: tuple[Any, Any] = CONFIG.frule_via_ad(dargs2, rule.rrule, dargs, *args, **kwargs)
        return found
    forward, _ = frule_frule_via_ad(getattr(function, "__name__", "method"), function)
    result: tuple[Any, Any] = forward(dargs2, dargs, *args, **kwargs)
    return result


def _dispatched_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                  function: Any, *args: Any, **kwargs: Any
                                  ) -> tuple[Any, Back]:  # fmt: skip
    """`_dispatched_frule_frule`'s reverse rule; its pullback gives the cotangents of
    `dargs2`'s elements and `dargs`' (as lists), then of the arguments."""
    rule = REGISTRY.frule_for(function)
    if rule is not None:
        once = rule.rrule
        twice_rule = REGISTRY.frule_for(once)
        if twice_rule is not None:
            twice, every = twice_rule.rrule, tuple(dargs2)
        else:
            twice = CONFIG.forward_rule(once, (dargs, *args))
            every = padded(tuple(dargs2), once)
        result, pullback = CONFIG.rrule_via_ad(twice, every, dargs, *args, **kwargs)
    else:
        _, reverse = frule_frule_via_ad(getattr(function, "__name__", "method"), function)
        result, pullback = reverse(dargs2, dargs, *args, **kwargs)

    def back(bars: Any) -> tuple[list[Any], list[Any]]:
        _, dargs2_bar, dargs_bar, *argument_bars = pullback(bars)
        return [dargs2_bar, dargs_bar], list(argument_bars[: len(args)])

    return result, back


def _method_tangents(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], packs: bool
                     ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:  # fmt: skip
    """A method call's tangents (`method_frule`'s: the receiver's, the name's, the
    arguments'), moved to its function's (the receiver's, the arguments'), for the forward
    rule of the forward rule: the name's dropped, in `dargs` and in its tangent. `packs`:
    the arguments are a shape, passed as one tuple, with no tangent."""
    rest = (NoTangent(),) if packs else tuple(dargs[3:])
    inner = (NoTangent(), dargs[1], *rest)
    dot = unthunk(dargs2[1])
    moved: Any = dot
    if not isinstance(dot, AbstractZero):
        parts = elements_of(dot, len(dargs))
        # (a tuple's tangent, as generated code has it)
        moved = (NoTangent(), parts[1], *((NoTangent(),) if packs else parts[3:]))
    return (NoTangent(), moved, dargs2[2], *(rest if packs else dargs2[4:])), inner


def _method_target(receiver: Any, name: str, args: tuple[Any, ...]
                   ) -> tuple[Any, bool, tuple[Any, ...]] | None:  # fmt: skip
    """The function a method call runs, whether it packs the arguments into one shape, and
    the arguments it passes (`method_frule`'s dispatch); None where its forward rule is
    linear in the receiver's tangent (an array's `.copy()`, `.astype()`, `.item()`, the
    methods with no derivative)."""
    if isinstance(receiver, np.ndarray | np.generic):
        if name not in calls.ARRAY_METHODS:
            return None
        function, packs = calls.ARRAY_METHODS[name]
        return function, packs, calls._packed(args) if packs else args
    return calls._method_function(receiver, name, "frule"), False, args


_METHOD_FRULE_FRULE, _METHOD_FRULE_FRULE_RRULE = linear_nested_rules(
    calls.method, calls.method_rrule, calls.method_frule
)[0]


def method_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], receiver: Any,
                       name: str, *args: Any, **kwargs: Any) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `method_frule` (third derivatives through method calls, the
    `scipy.stats` methods among them): forward mode over the forward rule of the function
    the call runs (`_dispatched_frule_frule`)."""
    target = _method_target(receiver, name, args)
    if target is None:
        found: tuple[Any, Any] = _METHOD_FRULE_FRULE(dargs2, dargs, receiver, name, *args, **kwargs)
        return found
    function, packs, passed = target
    if REGISTRY.is_non_differentiable(function):
        return (function(receiver, *passed, **kwargs), ZeroTangent()), ZeroTangent()
    outer, inner = _method_tangents(dargs2, dargs, packs)
    return _dispatched_frule_frule(outer, inner, function, receiver, *passed, **kwargs)


def method_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], receiver: Any,
                             name: str, *args: Any, **kwargs: Any
                             ) -> tuple[Any, Pullback]:  # fmt: skip
    """`method_frule_frule`'s: the function's, the name's (co)tangents put back."""
    target = _method_target(receiver, name, args)
    if target is None:
        result, pullback = _METHOD_FRULE_FRULE_RRULE(dargs2, dargs, receiver, name, *args, **kwargs)

        def linear_method_pullback(bars: Any) -> tuple[Any, ...]:
            found: tuple[Any, ...] = pullback(bars)
            return found

        return result, linear_method_pullback
    function, packs, passed = target
    if REGISTRY.is_non_differentiable(function):
        raise MissingRuleError(
            f"srcad takes no third derivative through the method .{name}, which has none"
        )
    outer, inner = _method_tangents(dargs2, dargs, packs)
    result, back = _dispatched_frule_frule_rrule(outer, inner, function, receiver, *passed,
                                                 **kwargs)  # fmt: skip

    unpacked = (NoTangent(),) * len(args)  # a shape's (co)tangents: none

    def with_name(bar: Any) -> Any:
        """A cotangent of the function's tangents, as one of the method call's."""
        bar = unthunk(bar)
        if isinstance(bar, AbstractZero):
            return bar
        parts = elements_of(bar, len(inner))
        return Tangent(tuple, NoTangent(), parts[1], NoTangent(),
                       *(unpacked if packs else parts[2:]))  # fmt: skip

    def method_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        (outer_bar, inner_bar), argument_bars = back(bars)
        outer_bar = unthunk(outer_bar)
        dargs2_bar: Any = ZeroTangent()
        if not isinstance(outer_bar, AbstractZero):
            parts = elements_of(outer_bar, len(outer))
            own = unpacked if packs else parts[3:]
            dargs2_bar = Tangent(tuple, NoTangent(), with_name(parts[1]), parts[2], NoTangent(),
                                 *own)  # fmt: skip
        receiver_bar, *rest = argument_bars
        own_bars = unpacked if packs else tuple(rest)
        return (NoTangent(), dargs2_bar, with_name(inner_bar), receiver_bar, NoTangent(),
                *own_bars)  # fmt: skip

    return result, method_frule_frule_pullback


def _call_target(f: Any) -> tuple[Any, bool]:
    """The Python function a call of the value `f` runs, and whether `f` itself is its
    first argument (a bound method's object, a callable object), for the forward rule of
    `call_frule`; refused (rows for `jacobian`, `atoms.derivative_atom`) for what else a
    value may be: a partial, a class, a derivative srcad returned, a wrapper."""
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        return f.__func__, True
    plain = isinstance(f, types.FunctionType) and unwrap(f) is f
    if plain and entry_rules(CONFIG.ad, f) is None:
        return f, False
    if REGISTRY.frule_for(f) is not None:  # a ufunc, a builtin, a NumPy function: its rule's
        return f, False
    if not calls._is_function(f) and not isinstance(f, functools.partial):
        dunder = type(f).__call__
        if isinstance(dunder, types.FunctionType):
            return dunder, True
    raise MissingRuleError(f"srcad takes no third derivative through a call of {f!r:.60}")


def _call_tangents(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], carried: bool
                   ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:  # fmt: skip
    """`call_frule`'s tangents (the value's, the arguments'), moved to the function's: the
    value's is the first argument's where it is carried, else dropped."""
    own = (dargs[1],) if carried else ()
    inner = (NoTangent(), *own, *dargs[2:])
    dot = unthunk(dargs2[1])
    moved: Any = dot
    if not isinstance(dot, AbstractZero):
        parts = elements_of(dot, len(dargs))
        moved = (NoTangent(), *(parts[1:] if carried else parts[2:]))  # (a tuple's, as generated)
    outer_own = (dargs2[2],) if carried else ()
    return (NoTangent(), moved, *outer_own, *dargs2[3:]), inner


def call_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], f: Any, *args: Any,
                     **kwargs: Any) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `call_frule` (third derivatives through calls of function
    values, bound methods and callable objects): forward mode over the forward rule of
    the function the call runs (`_dispatched_frule_frule`); a partial's, through its
    function with the bound arguments in front."""
    if isinstance(f, functools.partial):
        return _partial_frule_frule(dargs2, dargs, f, *args, **kwargs)
    function, carried = _call_target(f)
    outer, inner = _call_tangents(dargs2, dargs, carried)
    receiver = (f.__self__ if isinstance(f, types.MethodType) else f,) if carried else ()
    return _dispatched_frule_frule(outer, inner, function, *receiver, *args, **kwargs)


def call_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], f: Any,
                           *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """`call_frule_frule`'s: the function's, the value's (co)tangents put back (its
    object's, where it carries one; none for a function)."""
    if isinstance(f, functools.partial):
        return _partial_frule_frule_rrule(dargs2, dargs, f, *args, **kwargs)
    function, carried = _call_target(f)
    outer, inner = _call_tangents(dargs2, dargs, carried)
    receiver = (f.__self__ if isinstance(f, types.MethodType) else f,) if carried else ()
    result, back = _dispatched_frule_frule_rrule(outer, inner, function, *receiver, *args,
                                                 **kwargs)  # fmt: skip

    def as_call(bar: Any) -> Any:
        """A cotangent of the function's tangents, as one of the call's."""
        bar = unthunk(bar)
        if isinstance(bar, AbstractZero):
            return bar
        parts = elements_of(bar, len(inner))
        own = parts[1:] if carried else (ZeroTangent(), *parts[1:])
        return Tangent(tuple, NoTangent(), *own)

    def call_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        (outer_bar, inner_bar), argument_bars = back(bars)
        outer_bar = unthunk(outer_bar)
        dargs2_bar: Any = ZeroTangent()
        if not isinstance(outer_bar, AbstractZero):
            parts = elements_of(outer_bar, len(outer))
            value_dot = parts[2] if carried else ZeroTangent()
            rest = parts[3:] if carried else parts[2:]
            dargs2_bar = Tangent(tuple, NoTangent(), as_call(parts[1]), value_dot, *rest)
        f_bar = argument_bars[0] if carried else NoTangent()
        own_bars = argument_bars[1:] if carried else argument_bars
        return (NoTangent(), dargs2_bar, as_call(inner_bar), f_bar, *own_bars)

    return result, call_frule_frule_pullback


def _partial_tangents(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], bound: int
                      ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:  # fmt: skip
    """A partial's call's tangents (the partial's, the arguments'), as those of the call of
    its function with the bound arguments in front (`call_frule`'s own dispatch): the
    partial's tangent holds its function's and its bound arguments', in both orders."""
    inner = (NoTangent(), *elements_of(unthunk(dargs[1]), 1 + bound), *dargs[2:])
    dot = unthunk(dargs2[1])
    moved: Any = dot
    if not isinstance(dot, AbstractZero):
        parts = elements_of(dot, len(dargs))
        moved = (NoTangent(), *elements_of(unthunk(parts[1]), 1 + bound), *parts[2:])
    own = elements_of(unthunk(dargs2[2]), 1 + bound)
    return (NoTangent(), moved, *own, *dargs2[3:]), inner


def _partial_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                         f: functools.partial, *args: Any, **kwargs: Any
                         ) -> tuple[Any, Any]:  # fmt: skip
    outer, inner = _partial_tangents(dargs2, dargs, len(f.args))
    return call_frule_frule(outer, inner, f.func, *f.args, *args, **{**f.keywords, **kwargs})


def _partial_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                               f: functools.partial, *args: Any, **kwargs: Any
                               ) -> tuple[Any, Pullback]:  # fmt: skip
    """The partial's (co)tangents made of its function's and its bound arguments'."""
    bound, count = len(f.args), len(args)
    outer, inner = _partial_tangents(dargs2, dargs, bound)
    result, pullback = call_frule_frule_rrule(outer, inner, f.func, *f.args, *args,
                                              **{**f.keywords, **kwargs})  # fmt: skip

    def partial(parts: Any) -> Any:
        if all(isinstance(unthunk(p), AbstractZero) for p in parts):
            return ZeroTangent()
        return Tangent(functools.partial, *parts)

    def as_partial(bar: Any) -> Any:
        """A cotangent of the function's call's tangents, as one of the partial's call's."""
        bar = unthunk(bar)
        if isinstance(bar, AbstractZero):
            return bar
        parts = elements_of(bar, 2 + bound + count)
        return Tangent(tuple, NoTangent(), partial(parts[1 : 2 + bound]), *parts[2 + bound :])

    def partial_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, outer_bar, inner_bar, func_bar, *argument_bars = pullback(bars)
        outer_bar = unthunk(outer_bar)
        dargs2_bar: Any = ZeroTangent()
        if not isinstance(outer_bar, AbstractZero):
            parts = elements_of(outer_bar, 3 + bound + count)
            dargs2_bar = Tangent(tuple, NoTangent(), as_partial(parts[1]),
                                 partial(parts[2 : 3 + bound]), *parts[3 + bound :])  # fmt: skip
        f_bar = partial([func_bar, *argument_bars[:bound]])
        return (NoTangent(), dargs2_bar, as_partial(inner_bar), f_bar, *argument_bars[bound:])

    return result, partial_frule_frule_pullback


def _keyword_tangents(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], binding: Any
                      ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:  # fmt: skip
    """`keyword_call_frule`'s tangents (the function's, the layout's, the names', the
    parts'), as its positional form's (one per parameter: `_Binding.parameter_dots`,
    linear), in both orders; the function's, the layout's and the names' dropped, as
    `keyword_call_frule` drops them."""
    inner = (NoTangent(), *binding.parameter_dots([unthunk(d) for d in dargs[4:]]))
    dot = unthunk(dargs2[1])
    moved: Any = dot
    if not isinstance(dot, AbstractZero):
        parts = elements_of(dot, len(dargs))
        moved = (NoTangent(), *binding.parameter_dots([unthunk(d) for d in parts[4:]]))
    own = binding.parameter_dots([unthunk(d) for d in dargs2[5:]])
    return (NoTangent(), moved, *own), inner


def keyword_call_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], function: Any,
                             layout: str, names: tuple[str | None, ...], *parts: Any
                             ) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `keyword_call_frule` (third derivatives through keywords into
    keyword-only parameters or `**kwargs`): forward mode over the forward rule of the
    function's positional form, each part's tangents moved to its parameter's."""
    binding = keywords._Binding(function, layout, names, parts)
    outer, inner = _keyword_tangents(dargs2, dargs, binding)
    form = positional_form(function)
    return _dispatched_frule_frule(outer, inner, form, *binding.arguments)


def keyword_call_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                   function: Any, layout: str, names: tuple[str | None, ...],
                                   *parts: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """`keyword_call_frule_frule`'s: each parameter's (co)tangents moved back to the part
    that gave it (`_Binding.part_bars`, the adjoint of `parameter_dots`)."""
    binding = keywords._Binding(function, layout, names, parts)
    outer, inner = _keyword_tangents(dargs2, dargs, binding)
    form = positional_form(function)
    result, back = _dispatched_frule_frule_rrule(outer, inner, form, *binding.arguments)
    count = len(binding.parameters)
    unmoved = (NoTangent(),) * 3  # the function's, the layout's, the names'

    def as_call(bar: Any) -> Any:
        """A cotangent of the form's tangents, as one of `keyword_call_frule`'s."""
        bar = unthunk(bar)
        if isinstance(bar, AbstractZero):
            return bar
        own = list(elements_of(bar, 1 + count))[1:]
        return Tangent(tuple, NoTangent(), *unmoved, *binding.part_bars(own))

    def keyword_call_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        (outer_bar, inner_bar), argument_bars = back(bars)
        outer_bar = unthunk(outer_bar)
        dargs2_bar: Any = ZeroTangent()
        if not isinstance(outer_bar, AbstractZero):
            own = list(elements_of(outer_bar, 2 + count))
            dargs2_bar = Tangent(tuple, NoTangent(), as_call(own[1]), *unmoved,
                                 *binding.part_bars(own[2:]))  # fmt: skip
        part_bars = binding.part_bars(list(argument_bars))
        return (NoTangent(), dargs2_bar, as_call(inner_bar), *unmoved, *part_bars)

    return result, keyword_call_frule_frule_pullback


def _flat(layout: str, parts: tuple[Any, ...], dots: tuple[Any, ...]) -> list[Any]:
    """One tangent per argument an unpacking call passes, from one per part."""
    found: list[Any] = []
    for kind, part, dot in zip(layout, parts, dots, strict=True):
        found += list(elements_of(unthunk(dot), len(part))) if kind == "*" else [dot]
    return found


def _unpacked_tangents(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], layout: str,
                       parts: tuple[Any, ...]
                       ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:  # fmt: skip
    """`unpacked_call_frule`'s tangents (the value's, the layout's, the parts'), as
    `call_frule`'s (the value's, the arguments'), in both orders."""
    inner = (NoTangent(), dargs[1], *_flat(layout, parts, tuple(dargs[3:])))
    dot = unthunk(dargs2[1])
    moved: Any = dot
    if not isinstance(dot, AbstractZero):
        own = elements_of(dot, len(dargs))
        moved = (NoTangent(), own[1], *_flat(layout, parts, tuple(own[3:])))
    return (NoTangent(), moved, dargs2[2], *_flat(layout, parts, tuple(dargs2[4:]))), inner


def unpacked_call_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], f: Any,
                              layout: str, *parts: Any, **kwargs: Any
                              ) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `unpacked_call_frule` (`f(*args)`, third derivatives):
    `call_frule_frule`'s, each argument's tangents read from its part's."""
    calls._unpackable(layout, parts)
    outer, inner = _unpacked_tangents(dargs2, dargs, layout, parts)
    return call_frule_frule(outer, inner, f, *unpacked_arguments(layout, parts), **kwargs)


def unpacked_call_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], f: Any,
                                    layout: str, *parts: Any, **kwargs: Any
                                    ) -> tuple[Any, Pullback]:  # fmt: skip
    """`unpacked_call_frule_frule`'s: each part's (co)tangents made of its arguments'."""
    calls._unpackable(layout, parts)
    outer, inner = _unpacked_tangents(dargs2, dargs, layout, parts)
    arguments = unpacked_arguments(layout, parts)
    count = len(arguments)
    result, pullback = call_frule_frule_rrule(outer, inner, f, *arguments, **kwargs)

    def as_parts(bar: Any) -> Any:
        """A cotangent of `call_frule`'s tangents, as one of `unpacked_call_frule`'s."""
        bar = unthunk(bar)
        if isinstance(bar, AbstractZero):
            return bar
        own = elements_of(bar, 2 + count)
        return Tangent(tuple, NoTangent(), own[1], NoTangent(),
                       *calls._part_bars(layout, parts, tuple(own[2:])))  # fmt: skip

    def unpacked_call_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, outer_bar, inner_bar, f_bar, *argument_bars = pullback(bars)
        outer_bar = unthunk(outer_bar)
        dargs2_bar: Any = ZeroTangent()
        if not isinstance(outer_bar, AbstractZero):
            own = elements_of(outer_bar, 3 + count)
            dargs2_bar = Tangent(tuple, NoTangent(), as_parts(own[1]), own[2], NoTangent(),
                                 *calls._part_bars(layout, parts, tuple(own[3:])))  # fmt: skip
        part_bars = calls._part_bars(layout, parts, tuple(argument_bars))
        return (NoTangent(), dargs2_bar, as_parts(inner_bar), f_bar, NoTangent(), *part_bars)

    return result, unpacked_call_frule_frule_pullback


def _map_calls(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], iterables: tuple[Any, ...]
               ) -> list[tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]]:  # fmt: skip
    """`map_frule`'s calls of `call_frule`, one per item: their tangents, in both orders
    (`call_frule_frule`'s), and their arguments (the items)."""

    def column(dots: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        found = [elements_of(unthunk(d), len(it)) for d, it in zip(dots, iterables, strict=True)]
        return list(zip(*found, strict=False))

    rows = list(zip(*iterables, strict=False))
    count = len(rows)
    item_dots, outer_dots = column(tuple(dargs[2:])), column(tuple(dargs2[3:]))
    dot = unthunk(dargs2[1])
    moved: list[Any] = [dot] * count
    if not isinstance(dot, AbstractZero):
        own = elements_of(dot, len(dargs))
        moved = [(NoTangent(), own[1], *dots) for dots in column(tuple(own[2:]))]
    return [
        ((NoTangent(), moved[i], dargs2[2], *outer_dots[i]), (NoTangent(), dargs[1], *item_dots[i]),
         rows[i])
        for i in range(count)
    ]  # fmt: skip


def map_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], f: Any, *iterables: Any
                    ) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `map`'s forward rule (third derivatives): `call_frule_frule`
    for each item; the results, their tangents and those tangents' own, as lists."""
    found = [call_frule_frule(outer, inner, f, *items)
             for outer, inner, items in _map_calls(dargs2, dargs, iterables)]  # fmt: skip
    results = [y for (y, _), _ in found]
    dots = [y_dot for (_, y_dot), _ in found]
    moved = [elements_of(unthunk(m), 2) for _, m in found]
    return (results, dots), ([m[0] for m in moved], [m[1] for m in moved])


def map_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], f: Any,
                          *iterables: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """`map_frule_frule`'s: each call through `call_frule_frule_rrule`; `f` and its
    tangents get the sums of their cotangents over the calls, each iterable and its
    tangents their elements'."""
    planned = _map_calls(dargs2, dargs, iterables)
    made = [call_frule_frule_rrule(outer, inner, f, *items) for outer, inner, items in planned]
    results = [y for ((y, _), _), _ in made]
    dots = [y_dot for ((_, y_dot), _), _ in made]
    moved = [elements_of(unthunk(m), 2) for (_, m), _ in made]
    value = ((results, dots), ([m[0] for m in moved], [m[1] for m in moved]))
    count, width = len(made), len(iterables)

    def elements(bar: Any, size: int) -> tuple[Any, ...]:
        bar = unthunk(bar)
        return elements_of(bar, size) if not isinstance(bar, AbstractZero) else (bar,) * size

    def map_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        value_bar, tangent_bar = elements(bars, 2)
        result_bars, dot_bars = (elements(b, count) for b in elements(value_bar, 2))
        moved_bars, moved_dot_bars = (elements(b, count) for b in elements(tangent_bar, 2))
        f_bar: Any = ZeroTangent()
        f_dot2_bar: Any = ZeroTangent()
        f_dot_bar: Any = ZeroTangent()
        f_dot_dot_bar: Any = ZeroTangent()
        items: list[list[Any]] = [[] for _ in range(4 * width)]
        for i, (_, back) in enumerate(made):
            pair = ((result_bars[i], dot_bars[i]), (moved_bars[i], moved_dot_bars[i]))
            _, outer_bar, inner_bar, own_bar, *argument_bars = back(pair)
            outer = elements(outer_bar, 3 + width)
            inner = elements(inner_bar, 2 + width)
            twice = elements(outer[1], 2 + width)
            f_bar, f_dot2_bar = f_bar + own_bar, f_dot2_bar + outer[2]
            f_dot_bar, f_dot_dot_bar = f_dot_bar + inner[1], f_dot_dot_bar + twice[1]
            for k in range(width):
                items[k].append(argument_bars[k])
                items[width + k].append(inner[2 + k])
                items[2 * width + k].append(outer[3 + k])
                items[3 * width + k].append(twice[2 + k])

        def of(position: int) -> list[Any]:
            """Each iterable's cotangent, from its items' in group `position`."""
            return [
                calls.cotangent_of_elements(it, (*items[position * width + k],
                                                 *(ZeroTangent(),) * (len(it) - count)))
                for k, it in enumerate(iterables)
            ]  # fmt: skip

        dargs_bar = Tangent(tuple, NoTangent(), f_dot_bar, *of(1))
        twice_bar = Tangent(tuple, NoTangent(), f_dot_dot_bar, *of(3))
        dargs2_bar = Tangent(tuple, NoTangent(), twice_bar, f_dot2_bar, *of(2))
        return (NoTangent(), dargs2_bar, dargs_bar, f_bar, *of(0))

    return value, map_frule_frule_pullback


# An array's `.T` is linear: the rules of its forward rule's forward rule are a linear
# function's (a field named `T` of another value is refused there).
_T_NESTED = linear_nested_rules(
    np.transpose, containers.transpose_attribute_rrule, containers.transpose_attribute_frule
)
_T_FRULE_FRULE, _T_FRULE_FRULE_RRULE = _T_NESTED[0]


def _array_t(x: Any) -> None:
    if not isinstance(x, np.ndarray | np.generic):
        raise MissingRuleError(
            f"srcad takes no third derivative through the field .T of {type(x).__name__}"
        )


def transpose_attribute_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                    x: Any) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `.T`'s forward rule, for an array (third derivatives)."""
    _array_t(x)
    found: tuple[Any, Any] = _T_FRULE_FRULE(dargs2, dargs, x)
    return found


def transpose_attribute_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                          x: Any) -> tuple[Any, Pullback]:  # fmt: skip
    _array_t(x)
    result, pullback = _T_FRULE_FRULE_RRULE(dargs2, dargs, x)

    def transpose_attribute_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        found: tuple[Any, ...] = pullback(bars)
        return found

    return result, transpose_attribute_frule_frule_pullback


# Keyed on the forward rules, as `second_order_calls.rules` are; a rule set of that name,
# which the docs leave out.
rules = RuleSet("second_order")
rules.frule(calls.method_frule)(method_frule_frule)
rules.rrule(method_frule_frule)(method_frule_frule_rrule)
rules.frule(calls.call_frule)(call_frule_frule)
rules.rrule(call_frule_frule)(call_frule_frule_rrule)
rules.frule(calls.rules.frules[map].rrule)(map_frule_frule)
rules.rrule(map_frule_frule)(map_frule_frule_rrule)
rules.frule(calls.unpacked_call_frule)(unpacked_call_frule_frule)
rules.rrule(unpacked_call_frule_frule)(unpacked_call_frule_frule_rrule)
rules.frule(keywords.rules.frules[keyword_call].rrule)(keyword_call_frule_frule)
rules.rrule(keyword_call_frule_frule)(keyword_call_frule_frule_rrule)
rules.frule(containers.transpose_attribute_frule)(transpose_attribute_frule_frule)
rules.rrule(transpose_attribute_frule_frule)(transpose_attribute_frule_frule_rrule)
_outer: Any = transpose_attribute_frule_frule
for _forward, _reverse in _T_NESTED[1:]:  # deeper, as `second_order._register_nested`
    rules.frule(_outer)(_forward)
    rules.rrule(_forward)(_reverse)
    _outer = _forward

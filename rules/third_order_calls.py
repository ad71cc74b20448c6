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
from srcad.registry import CONFIG, REGISTRY, RuleSet
from srcad.rules import calls, containers
from srcad.rules.second_order import frule_frule_via_ad, linear_nested_rules
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
    if isinstance(f, np.ufunc | types.BuiltinFunctionType) and REGISTRY.frule_for(f) is not None:
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
    the function the call runs (`_dispatched_frule_frule`)."""
    function, carried = _call_target(f)
    outer, inner = _call_tangents(dargs2, dargs, carried)
    receiver = (f.__self__ if isinstance(f, types.MethodType) else f,) if carried else ()
    return _dispatched_frule_frule(outer, inner, function, *receiver, *args, **kwargs)


def call_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], f: Any,
                           *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """`call_frule_frule`'s: the function's, the value's (co)tangents put back (its
    object's, where it carries one; none for a function)."""
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
rules.frule(containers.transpose_attribute_frule)(transpose_attribute_frule_frule)
rules.rrule(transpose_attribute_frule_frule)(transpose_attribute_frule_frule_rrule)
_outer: Any = transpose_attribute_frule_frule
for _forward, _reverse in _T_NESTED[1:]:  # deeper, as `second_order._register_nested`
    rules.frule(_outer)(_forward)
    rules.rrule(_forward)(_reverse)
    _outer = _forward

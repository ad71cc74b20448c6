"""The forward rules four deep and beyond (fourth derivatives) of a method call, a call of
a value and reading an attribute: a user class's method, a Python function called as a
value (a bound method, a callable object's `__call__`), or a computed attribute's getter,
through the forward rules srcad generates for its source, nested
(`second_order.definition_nested_rules`), the call's tangents moved to the function's at
every depth, as `third_order_calls` moves them three deep; a field read and an array's
linear methods as a linear function's (`second_order.linear_nested_rules`). A method with a
registered rule (an array's `.sum()`, a ufunc held by a local), a partial and `f(*args)`
refuse there when they run."""

from __future__ import annotations

import types
from typing import Any

from srcad.errors import MissingRuleError
from srcad.registry import REGISTRY, RuleFn, RuleSet, named
from srcad.rules import calls, second_order_calls
from srcad.rules.second_order import definition_nested_rules, linear_nested_rules
from srcad.rules.second_order_calls import Pullback
from srcad.rules.third_order_calls import (
    _call_target,
    _method_target,
    call_frule_frule,
    method_frule_frule,
    unpacked_call_frule_frule,
)
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

# A method call's forward rules four deep and beyond (fourth derivatives): a user class's
# method (a Python function) through the forward rules srcad generates for its source,
# nested (`second_order.definition_nested_rules`), its tangents moved at every depth as
# `_method_tangents` moves them; an array's linear methods (`.copy()`) as a linear
# function's; any other method refuses.
_METHOD_NESTED = linear_nested_rules(calls.method, calls.method_rrule, calls.method_frule)


def _moved(group: Any, level: int, count: int) -> Any:
    """A group of tangents of the method call's forward rule `level` deep (its own, the
    groups below, the receiver's, the name's, the arguments'), as the method's function's:
    the name's dropped, at every depth."""
    group = unthunk(group)
    if isinstance(group, AbstractZero):
        return group
    parts = elements_of(group, level + 2 + count)
    inner = [_moved(parts[i], level - i, count) for i in range(1, level)]
    return (NoTangent(), *inner, parts[level], *parts[level + 2 :])


def _with_name(bar: Any, level: int, count: int) -> Any:
    """`_moved`'s adjoint: a cotangent of the function's group, as one of the method's."""
    bar = unthunk(bar)
    if isinstance(bar, AbstractZero):
        return bar
    parts = elements_of(bar, level + 1 + count)
    inner = [_with_name(parts[i], level - i, count) for i in range(1, level)]
    return Tangent(tuple, NoTangent(), *inner, parts[level], NoTangent(), *parts[level + 1 :])


def _python_method(receiver: Any, name: str, args: tuple[Any, ...]) -> Any:
    """The Python function a method call runs, for its forward rules four deep; refused
    for a method with a registered rule or none."""
    target = _method_target(receiver, name, args)
    function = None if target is None else target[0]
    if (target is None or target[1] or not isinstance(function, types.FunctionType)
            or REGISTRY.frule_for(function) is not None
            or REGISTRY.is_non_differentiable(function)):  # fmt: skip
        raise MissingRuleError(
            f"srcad takes third derivatives through the method .{name} of a "
            f"{type(receiver).__name__}, no higher ones: fourth derivatives go through the "
            "methods of your own classes"
        )
    return function


def _method_nested(depth: int) -> tuple[RuleFn, RuleFn]:
    """`method`'s forward rule `depth` deep (`depth` groups of tangents, then the receiver,
    the name and the arguments), and its reverse rule."""
    linear_forward, linear_reverse = _METHOD_NESTED[depth - 2]

    def split(dargs: tuple[Any, ...], inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        receiver, name, *args = inputs[depth - 1 :]
        groups = (dargs, *inputs[: depth - 1])
        moved = [_moved(g, depth - i, len(args)) for i, g in enumerate(groups)]
        return receiver, name, tuple(args), moved

    def method_nested_frule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        receiver, name, args, moved = split(dargs, inputs)
        if _method_target(receiver, name, args) is None:
            return linear_forward(dargs, *inputs, **kwargs)
        function = _python_method(receiver, name, args)
        forward, _ = definition_nested_rules(name, function)[depth - 2]
        return forward(*moved, receiver, *args, **kwargs)

    def method_nested_rrule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        receiver, name, args, moved = split(dargs, inputs)
        if _method_target(receiver, name, args) is None:
            return linear_reverse(dargs, *inputs, **kwargs)
        function = _python_method(receiver, name, args)
        _, reverse = definition_nested_rules(name, function)[depth - 2]
        result, pullback = reverse(*moved, receiver, *args, **kwargs)

        def method_nested_pullback(bars: Any) -> tuple[Any, ...]:
            _, *found = pullback(bars)
            groups = [_with_name(g, depth - i, len(args)) for i, g in enumerate(found[:depth])]
            receiver_bar, *argument_bars = found[depth:]
            return (NoTangent(), *groups, receiver_bar, NoTangent(), *argument_bars)

        return result, method_nested_pullback

    frules = "_frule" * depth
    return (named(method_nested_frule, f"method{frules}"),
            named(method_nested_rrule, f"method{frules}_rrule"))  # fmt: skip


def _call_moved(group: Any, level: int, count: int, carried: bool) -> Any:
    """A group of tangents of `call`'s forward rule `level` deep (its own, the groups below,
    the value's, the arguments'), as the called function's: the value's is the first
    argument's where the value carries one (a bound method's object, a callable object),
    else dropped, at every depth, as `third_order_calls._call_tangents` moves them."""
    group = unthunk(group)
    if isinstance(group, AbstractZero):
        return group
    parts = elements_of(group, level + 1 + count)
    inner = [_call_moved(parts[i], level - i, count, carried) for i in range(1, level)]
    own = (parts[level],) if carried else ()
    return (NoTangent(), *inner, *own, *parts[level + 1 :])


def _call_back(bar: Any, level: int, count: int, carried: bool) -> Any:
    """`_call_moved`'s adjoint (a dropped value's tangent gets a zero)."""
    bar = unthunk(bar)
    if isinstance(bar, AbstractZero):
        return bar
    parts = elements_of(bar, level + count + (1 if carried else 0))
    inner = [_call_back(parts[i], level - i, count, carried) for i in range(1, level)]
    own = parts[level:] if carried else (ZeroTangent(), *parts[level:])
    return Tangent(tuple, NoTangent(), *inner, *own)


def _python_call(f: Any) -> tuple[Any, bool, tuple[Any, ...]]:
    """The Python function a call of the value `f` runs, whether `f` carries its first
    argument, and that argument; refused for a value with a registered rule, a partial,
    a class, a derivative srcad returned."""
    try:
        function, carried = _call_target(f)
    except MissingRuleError:
        function, carried = None, False
    if (not isinstance(f, types.FunctionType | types.MethodType) and not carried) or not (
        isinstance(function, types.FunctionType) and REGISTRY.frule_for(function) is None
    ):
        raise MissingRuleError(
            f"srcad takes third derivatives through a call of {f!r:.60}, no higher ones: "
            "fourth derivatives go through calls of your own functions, methods and callable "
            "objects"
        )
    receiver = (f.__self__ if isinstance(f, types.MethodType) else f,) if carried else ()
    return function, carried, receiver


def _call_nested(depth: int) -> tuple[RuleFn, RuleFn]:
    """`call`'s forward rule `depth` deep (`depth` groups of tangents, then the value and
    the arguments), and its reverse rule: a Python function's, a bound method's or a
    callable object's, through the nested forward rules of the function's source."""

    def split(dargs: tuple[Any, ...], inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        f, *args = inputs[depth - 1 :]
        function, carried, receiver = _python_call(f)
        groups = (dargs, *inputs[: depth - 1])
        moved = [_call_moved(g, depth - i, len(args), carried) for i, g in enumerate(groups)]
        return function, carried, receiver, tuple(args), moved

    def call_nested_frule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        function, _, receiver, args, moved = split(dargs, inputs)
        forward, _ = definition_nested_rules(function.__name__, function)[depth - 2]
        return forward(*moved, *receiver, *args, **kwargs)

    def call_nested_rrule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        function, carried, receiver, args, moved = split(dargs, inputs)
        _, reverse = definition_nested_rules(function.__name__, function)[depth - 2]
        result, pullback = reverse(*moved, *receiver, *args, **kwargs)
        count = len(args)

        def call_nested_pullback(bars: Any) -> tuple[Any, ...]:
            _, *found = pullback(bars)
            groups = [_call_back(g, depth - i, count, carried) for i, g in enumerate(found[:depth])]
            argument_bars = found[depth:]
            f_bar = argument_bars[0] if carried else NoTangent()
            return (NoTangent(), *groups, f_bar, *argument_bars[len(receiver) :])

        return result, call_nested_pullback

    frules = "_frule" * depth
    return (named(call_nested_frule, f"call{frules}"),
            named(call_nested_rrule, f"call{frules}_rrule"))  # fmt: skip


# Reading a field is linear: the forward rules of `getattr_frule_frule` (fourth
# derivatives and beyond) are a linear function's, nested (`linear_nested_rules`); a
# computed attribute's are its getter's.
_FIELD_NESTED = linear_nested_rules(getattr, calls.getattr_rrule, calls.getattr_frule)


def _getter_moved(group: Any, level: int, defaults: int, extras: int) -> Any:
    """A group of tangents of `getattr`'s forward rule `level` deep (its own, the groups
    below, the object's, the name's, the default's), as the getter's of a computed
    attribute (the instance's, then none for the getter's other arguments), at every
    depth, as `second_order_calls._getter_tangents` moves them two deep."""
    group = unthunk(group)
    if isinstance(group, AbstractZero):
        return group
    parts = elements_of(group, level + 2 + defaults)
    inner = [_getter_moved(parts[i], level - i, defaults, extras) for i in range(1, level)]
    return (NoTangent(), *inner, parts[level], *(NoTangent(),) * extras)


def _getter_back(bar: Any, level: int, defaults: int, extras: int) -> Any:
    """`_getter_moved`'s adjoint."""
    bar = unthunk(bar)
    if isinstance(bar, AbstractZero):
        return bar
    parts = elements_of(bar, level + 1 + extras)
    inner = [_getter_back(parts[i], level - i, defaults, extras) for i in range(1, level)]
    return Tangent(tuple, NoTangent(), *inner, parts[level], NoTangent(),
                   *(NoTangent(),) * defaults)  # fmt: skip


def _field_nested(depth: int) -> tuple[RuleFn, RuleFn]:
    """`getattr`'s forward rule `depth` deep (`depth` groups of tangents, then the object,
    the name and a default), and its reverse rule: a field's, linear; a computed
    attribute's, the forward rules srcad generates for its getter's source, nested
    (`second_order.definition_nested_rules`), the tangents moved at every depth."""
    forward, reverse = _FIELD_NESTED[depth - 2]

    def split(dargs: tuple[Any, ...], inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        obj, name, *default = inputs[depth - 1 :]
        computed = second_order_calls._computed(obj, name)
        if computed is None:
            return obj, name, None, (), []
        function, extra = computed
        groups = (dargs, *inputs[: depth - 1])
        sizes = (len(default), len(extra))
        moved = [_getter_moved(g, depth - i, *sizes) for i, g in enumerate(groups)]
        return obj, name, function, extra, moved

    def getattr_nested_frule(dargs: tuple[Any, ...], *inputs: Any) -> tuple[Any, Any]:
        obj, name, function, extra, moved = split(dargs, inputs)
        if function is None:
            found: tuple[Any, Any] = forward(dargs, *inputs)
            return found
        nested, _ = definition_nested_rules(name, function)[depth - 2]
        computed: tuple[Any, Any] = nested(*moved, obj, *extra)
        return computed

    def getattr_nested_rrule(dargs: tuple[Any, ...], *inputs: Any) -> tuple[Any, Pullback]:
        obj, name, function, extra, moved = split(dargs, inputs)
        if function is None:
            found: tuple[Any, Pullback] = reverse(dargs, *inputs)
            return found
        defaults = len(inputs) - depth - 1
        _, nested = definition_nested_rules(name, function)[depth - 2]
        result, pullback = nested(*moved, obj, *extra)

        def getattr_nested_pullback(bars: Any) -> tuple[Any, ...]:
            _, *found = pullback(bars)
            sizes = (defaults, len(extra))
            groups = [_getter_back(g, depth - i, *sizes) for i, g in enumerate(found[:depth])]
            return (NoTangent(), *groups, found[depth], NoTangent(), *(NoTangent(),) * defaults)

        return result, getattr_nested_pullback

    frules = "_frule" * depth
    return (named(getattr_nested_frule, f"getattr{frules}"),
            named(getattr_nested_rrule, f"getattr{frules}_rrule"))  # fmt: skip


# Keyed on the forward rules, as `second_order_calls.rules` are; a rule set of that name,
# which the docs leave out.
rules = RuleSet("second_order")


def _register_nested(outer: Any, nested: Any, deepest: int) -> None:
    """Register the rules `nested(depth)` makes for each depth from 3 to `deepest`: each
    forward rule as the forward rule of the one below (`outer` at the start), and its
    reverse rule."""
    for depth in range(3, deepest + 1):
        forward, reverse = nested(depth)
        rules.frule(outer)(forward)
        rules.rrule(forward)(reverse)
        outer = forward


# Fourth derivatives and beyond, through fields, methods and calls.
_register_nested(second_order_calls.getattr_frule_frule, _field_nested, len(_FIELD_NESTED) + 1)
_register_nested(method_frule_frule, _method_nested, len(_METHOD_NESTED) + 1)
_register_nested(call_frule_frule, _call_nested, len(_METHOD_NESTED) + 1)


def unpacked_call_frule_frule_frule(dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> Any:
    """`f(*args)` four deep: refused when it runs (srcad's rules three deep are Python code
    that changes lists in place, which compiled from its source would be refused there)."""
    raise MissingRuleError(
        "srcad takes third derivatives through a call with unpacked arguments (`f(*args)`), "
        "no higher ones: fourth derivatives go through calls of your own functions with "
        "their arguments written out"
    )


rules.frule(unpacked_call_frule_frule)(unpacked_call_frule_frule_frule)

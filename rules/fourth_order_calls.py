"""The forward rules four deep and beyond (fourth derivatives) of a method call, a call of
a value, `f(*args)` and reading an attribute: a user class's method, a Python function
called as a value (a bound method, a callable object's `__call__`), or a computed
attribute's getter, through the forward rules srcad generates for its source, nested
(`second_order.definition_nested_rules`), the call's tangents moved to the function's at
every depth, as `third_order_calls` moves them three deep; a field read and an array's
linear methods as a linear function's (`second_order.linear_nested_rules`). A function
with a registered rule (a ufunc held by a local, the function an array's `.sum()` runs)
through its registered forward rules nested, where they are, else through those of the
function that calls it (`primitive_callers`); a partial through its function with the
bound arguments in front, and `f(*args)` as the call of its arguments, the tangents
regrouped at every depth (`_Regrouping`)."""

from __future__ import annotations

import functools
import types
from typing import Any

from srcad.errors import MissingRuleError
from srcad.keywords import positional_form
from srcad.primitive_callers import is_primitive_caller, primitive_caller
from srcad.primitives import unpacked_arguments
from srcad.registry import CONFIG, REGISTRY, RuleFn, RuleSet, named
from srcad.rules import calls, keywords, second_order_calls
from srcad.rules.second_order import definition_nested_rules, linear_nested_rules
from srcad.rules.second_order_calls import Pullback
from srcad.rules.third_order_calls import (
    _call_target,
    _flat,
    _method_target,
    call_frule_frule,
    keyword_call_frule_frule,
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


def _python_method(receiver: Any, name: str, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> Any:  # fmt: skip
    """The Python function a method call runs, for its forward rules four deep: a class's
    own, or the caller of a function with a registered rule (an array's `.sum()`,
    `_primitive_call`); refused for a method with none, or one whose arguments that caller
    does not take."""
    target = _method_target(receiver, name, args)
    function = None if target is None else target[0]
    if target is not None and not target[1] and _registered(function):
        return _primitive_call(function, (receiver, *args), kwargs, f"the method .{name}")
    if (target is None or target[1] or not isinstance(function, types.FunctionType)
            or REGISTRY.is_non_differentiable(function)):  # fmt: skip
        raise MissingRuleError(
            f"srcad takes third derivatives through the method .{name} of a "
            f"{type(receiver).__name__}, no higher ones: fourth derivatives go through the "
            "methods of your own classes and of arrays called with their required arguments"
        )
    return function


def _registered_method(receiver: Any, name: str, args: tuple[Any, ...], depth: int
                       ) -> tuple[Any, Any, tuple[Any, ...], _Regrouping] | None:  # fmt: skip
    """The registered forward rules `depth - 1` and `depth` deep of the function a method
    call runs (`_registered_chain`: `np.sum`'s, linear, for `.sum(axis=0)`), the arguments
    it passes, and how the call's tangents become the function's (the name's dropped; a
    shape packed into one argument, `x.reshape(2, 3)`, has none); None where there are
    none."""
    target = _method_target(receiver, name, args)
    chain = None if target is None else _registered_chain(target[0], depth)
    if target is None or chain is None:
        return None
    packs, count = target[1], len(args)

    def change(tail: tuple[Any, ...]) -> tuple[Any, ...]:
        return (tail[0], NoTangent()) if packs else (tail[0], *tail[2:])

    def back(tail: tuple[Any, ...]) -> tuple[Any, ...]:
        return (tail[0], NoTangent(), *((NoTangent(),) * count if packs else tail[1:]))

    moved_width = 2 if packs else 1 + count
    return (*chain, target[2], _Regrouping(2 + count, moved_width, change, back))


def _registered(function: Any) -> bool:
    return REGISTRY.frule_for(function) is not None


def _primitive_call(primitive: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                    what: str) -> types.FunctionType:  # fmt: skip
    """The Python function that calls `primitive` (a function with a registered rule) with
    the call's positional arguments and keywords (`primitive_callers`), whose calls srcad
    resolves against the rules at every depth, as a call written in the user's code (the
    keywords are options: a call of a value or a method passes none a tangent); refused
    where that function cannot be written (a keyword named as a positional parameter)."""
    caller = primitive_caller(primitive, len(args), tuple(kwargs))
    if caller is None:
        name = getattr(primitive, "__name__", "the function")
        raise MissingRuleError(
            f"srcad takes third derivatives through {what}, no higher ones where its "
            f"arguments' names cannot be written as a function's: fourth derivatives go "
            f"through {name} called through a function of your own that calls it"
        )
    return caller


def _options(function: Any, kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The keywords a call passes `function`, as the positional arguments and keywords its
    nested forward rules take: a primitive's caller takes them by position, after the
    call's, so that the rules srcad generates for it are compiled for their kinds (an int
    `axis` is no derivative; their tangents are zeros, their cotangents dropped)."""
    if is_primitive_caller(function):
        return tuple(kwargs.values()), {}
    return (), kwargs


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
        chain = _registered_method(receiver, name, args, depth)
        if chain is not None:
            passed, regrouping = chain[2:]
            moved = regrouping.groups(depth, (dargs, *inputs[: depth - 1]))
            return CONFIG.frule_via_ad(moved[0], chain[0], *moved[1:], receiver, *passed, **kwargs)
        function = _python_method(receiver, name, args, kwargs)
        forward, _ = definition_nested_rules(name, function)[depth - 2]
        options, kwargs = _options(function, kwargs)
        return forward(*moved, receiver, *args, *options, **kwargs)

    def method_nested_rrule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        receiver, name, args, moved = split(dargs, inputs)
        if _method_target(receiver, name, args) is None:
            return linear_reverse(dargs, *inputs, **kwargs)
        chain = _registered_method(receiver, name, args, depth)
        if chain is not None:
            passed, regrouping = chain[2:]
            moved = regrouping.groups(depth, (dargs, *inputs[: depth - 1]))
            result, pullback = CONFIG.rrule_via_ad(chain[1], *moved, receiver, *passed, **kwargs)

            def registered_method_nested_pullback(bars: Any) -> tuple[Any, ...]:
                _, *found = pullback(bars)
                groups = regrouping.group_bars(depth, found[:depth])
                # (the arguments' cotangents: those `back` gives past the receiver's and
                # the name's, none for a packed shape)
                argument_bars = regrouping.back((None, *found[depth + 1 :]))[2:]
                return (NoTangent(), *groups, found[depth], NoTangent(), *argument_bars)

            return result, registered_method_nested_pullback
        function = _python_method(receiver, name, args, kwargs)
        _, reverse = definition_nested_rules(name, function)[depth - 2]
        options, kwargs = _options(function, kwargs)
        result, pullback = reverse(*moved, receiver, *args, *options, **kwargs)

        def method_nested_pullback(bars: Any) -> tuple[Any, ...]:
            _, *found = pullback(bars)
            groups = [_with_name(g, depth - i, len(args)) for i, g in enumerate(found[:depth])]
            receiver_bar, *argument_bars = found[depth : depth + 1 + len(args)]
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


def _python_call(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> tuple[Any, bool, tuple[Any, ...]]:  # fmt: skip
    """The Python function a call of the value `f` runs, whether `f` carries its first
    argument, and that argument: a function with a registered rule (a ufunc held by a
    local) through its caller (`_primitive_call`); refused for a class, a derivative srcad
    returned."""
    if _registered(f) and not isinstance(f, types.MethodType):
        return _primitive_call(f, args, kwargs, f"a call of {f!r:.60}"), False, ()
    try:
        function, carried = _call_target(f)
    except MissingRuleError:
        function, carried = None, False
    if (not isinstance(f, types.FunctionType | types.MethodType) and not carried) or not (
        isinstance(function, types.FunctionType) and not _registered(function)
    ):
        raise MissingRuleError(
            f"srcad takes third derivatives through a call of {f!r:.60}, no higher ones: "
            "fourth derivatives go through calls of your own functions, methods and callable "
            "objects, partials and functions with rules"
        )
    receiver = (f.__self__ if isinstance(f, types.MethodType) else f,) if carried else ()
    return function, carried, receiver


def _registered_chain(f: Any, depth: int) -> tuple[Any, Any] | None:
    """`f`'s registered forward rules `depth - 1` and `depth` deep (the forward rule of
    `call`'s for `f` called so: `method`'s, a linear function's nested rules), where every
    one down to them and the last one's reverse rule are registered; else None."""
    rules = [f]
    for _ in range(depth):
        found = REGISTRY.frule_for(rules[-1])
        if found is None:
            return None
        rules.append(found.rrule)
    return (rules[-2], rules[-1]) if REGISTRY.rrule_for(rules[-1]) is not None else None


def _regrouped(group: Any, level: int, width: int, change: Any) -> Any:
    """A group of tangents of a forward rule `level` deep (its own, the groups below, then
    `width` of the call's), its call's tangents replaced by `change` of them, at every
    depth."""
    group = unthunk(group)
    if isinstance(group, AbstractZero):
        return group
    parts = elements_of(group, level + width)
    inner = [_regrouped(parts[i], level - i, width, change) for i in range(1, level)]
    return (NoTangent(), *inner, *change(tuple(parts[level:])))


def _regrouped_back(bar: Any, level: int, width: int, change: Any) -> Any:
    """The adjoint of a `_regrouped` (`change` the adjoint of its, `width` the changed
    group's)."""
    bar = unthunk(bar)
    if isinstance(bar, AbstractZero):
        return bar
    parts = elements_of(bar, level + width)
    inner = [_regrouped_back(parts[i], level - i, width, change) for i in range(1, level)]
    return Tangent(tuple, NoTangent(), *inner, *change(tuple(parts[level:])))


class _Regrouping:
    """How one call's tangents become another's at every depth of a nested forward rule:
    `change` from the first's (`width` of them) to the second's (`moved_width`), and
    `back` of cotangents the other way."""

    def __init__(self, width: int, moved_width: int, change: Any, back: Any) -> None:
        self.width, self.moved_width, self.change, self.back = width, moved_width, change, back

    def groups(self, depth: int, groups: tuple[Any, ...]) -> list[Any]:
        return [_regrouped(g, depth - i, self.width, self.change) for i, g in enumerate(groups)]

    def group_bars(self, depth: int, bars: list[Any]) -> list[Any]:
        return [_regrouped_back(b, depth - i, self.moved_width, self.back)
                for i, b in enumerate(bars)]  # fmt: skip


def _partial_tangent(parts: tuple[Any, ...]) -> Any:
    if all(isinstance(unthunk(p), AbstractZero) for p in parts):
        return ZeroTangent()
    return Tangent(functools.partial, *parts)


def _partial_regrouping(f: functools.partial, count: int) -> _Regrouping:
    """A partial's call's tangents (the partial's, the arguments') as its function's call's
    with the bound arguments in front: the partial's tangent holds its function's and the
    bound arguments' (`third_order_calls._partial_tangents`)."""
    bound = len(f.args)

    def change(tail: tuple[Any, ...]) -> tuple[Any, ...]:
        return (*elements_of(unthunk(tail[0]), 1 + bound), *tail[1:])

    def back(tail: tuple[Any, ...]) -> tuple[Any, ...]:
        return (_partial_tangent(tail[: 1 + bound]), *tail[1 + bound :])

    return _Regrouping(1 + count, 1 + bound + count, change, back)


def _call_nested(depth: int) -> tuple[RuleFn, RuleFn]:
    """`call`'s forward rule `depth` deep (`depth` groups of tangents, then the value and
    the arguments), and its reverse rule: a Python function's, a bound method's or a
    callable object's, through the nested forward rules of the function's source; a
    partial's, through its function's with the bound arguments in front."""

    def split(dargs: tuple[Any, ...], inputs: tuple[Any, ...], kwargs: dict[str, Any]
              ) -> tuple[Any, ...]:  # fmt: skip
        f, *args = inputs[depth - 1 :]
        function, carried, receiver = _python_call(f, tuple(args), kwargs)
        groups = (dargs, *inputs[: depth - 1])
        moved = [_call_moved(g, depth - i, len(args), carried) for i, g in enumerate(groups)]
        return function, carried, receiver, tuple(args), moved

    def call_nested_frule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        f = inputs[depth - 1]
        if isinstance(f, functools.partial):
            regrouping = _partial_regrouping(f, len(inputs) - depth)
            groups = regrouping.groups(depth, (dargs, *inputs[: depth - 1]))
            return call_nested_frule(*groups, f.func, *f.args, *inputs[depth:],
                                     **{**f.keywords, **kwargs})  # fmt: skip
        chain = _registered_chain(f, depth)
        if chain is not None:
            args = inputs[depth:]
            moved = [_call_moved(g, depth - i, len(args), False)
                     for i, g in enumerate((dargs, *inputs[: depth - 1]))]  # fmt: skip
            return CONFIG.frule_via_ad(moved[0], chain[0], *moved[1:], *args, **kwargs)
        function, _, receiver, args, moved = split(dargs, inputs, kwargs)
        forward, _ = definition_nested_rules(function.__name__, function)[depth - 2]
        options, kwargs = _options(function, kwargs)
        return forward(*moved, *receiver, *args, *options, **kwargs)

    def call_nested_rrule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        f = inputs[depth - 1]
        if isinstance(f, functools.partial):
            return partial_nested_rrule(f, (dargs, *inputs[: depth - 1]), inputs[depth:], kwargs)
        chain = _registered_chain(f, depth)
        if chain is not None:
            args = inputs[depth:]
            moved = [_call_moved(g, depth - i, len(args), False)
                     for i, g in enumerate((dargs, *inputs[: depth - 1]))]  # fmt: skip
            result, pullback = CONFIG.rrule_via_ad(chain[1], *moved, *args, **kwargs)
            carried, receiver = False, ()
        else:
            function, carried, receiver, args, moved = split(dargs, inputs, kwargs)
            _, reverse = definition_nested_rules(function.__name__, function)[depth - 2]
            options, kwargs = _options(function, kwargs)
            result, pullback = reverse(*moved, *receiver, *args, *options, **kwargs)
        count = len(args)

        def call_nested_pullback(bars: Any) -> tuple[Any, ...]:
            _, *found = pullback(bars)
            groups = [_call_back(g, depth - i, count, carried) for i, g in enumerate(found[:depth])]
            argument_bars = found[depth : depth + len(receiver) + count]  # (no options')
            f_bar = argument_bars[0] if carried else NoTangent()
            return (NoTangent(), *groups, f_bar, *argument_bars[len(receiver) :])

        return result, call_nested_pullback

    def partial_nested_rrule(f: functools.partial, groups: tuple[Any, ...],
                             args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:  # fmt: skip
        """The partial's (co)tangents made of its function's and its bound arguments'."""
        regrouping = _partial_regrouping(f, len(args))
        moved = regrouping.groups(depth, groups)
        result, pullback = call_nested_rrule(*moved, f.func, *f.args, *args,
                                             **{**f.keywords, **kwargs})  # fmt: skip
        bound = len(f.args)

        def partial_nested_pullback(bars: Any) -> tuple[Any, ...]:
            _, *found = pullback(bars)
            group_bars = regrouping.group_bars(depth, found[:depth])
            func_bar, *argument_bars = found[depth:]
            f_bar = _partial_tangent((func_bar, *argument_bars[:bound]))
            return (NoTangent(), *group_bars, f_bar, *argument_bars[bound:])

        return result, partial_nested_pullback

    frules = "_frule" * depth
    return (named(call_nested_frule, f"call{frules}"),
            named(call_nested_rrule, f"call{frules}_rrule"))  # fmt: skip


def _unpacked_nested(depth: int) -> tuple[RuleFn, RuleFn]:
    """`f(*args)`'s forward rule `depth` deep (`depth` groups of tangents, then the value,
    the layout and the parts), and its reverse rule: `call`'s (`_call_nested`), each
    argument's tangents read from its part's (`third_order_calls._unpacked_tangents`)."""
    call_forward, call_reverse = _CALL_NESTED[depth]

    def split(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        f, layout, *parts = inputs[depth:]
        calls._unpackable(layout, tuple(parts))
        arguments = unpacked_arguments(layout, tuple(parts))

        def change(tail: tuple[Any, ...]) -> tuple[Any, ...]:
            return (tail[0], *_flat(layout, tuple(parts), tail[2:]))

        def back(tail: tuple[Any, ...]) -> tuple[Any, ...]:
            return (tail[0], NoTangent(), *calls._part_bars(layout, tuple(parts), tail[1:]))

        regrouping = _Regrouping(2 + len(parts), 1 + len(arguments), change, back)
        return f, layout, tuple(parts), arguments, regrouping

    def unpacked_nested_frule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        inputs = (dargs, *inputs)
        f, _, _, arguments, regrouping = split(inputs)
        return call_forward(*regrouping.groups(depth, inputs[:depth]), f, *arguments, **kwargs)

    def unpacked_nested_rrule(dargs: tuple[Any, ...], *inputs: Any, **kwargs: Any) -> Any:
        inputs = (dargs, *inputs)
        f, layout, parts, arguments, regrouping = split(inputs)
        moved = regrouping.groups(depth, inputs[:depth])
        result, pullback = call_reverse(*moved, f, *arguments, **kwargs)

        def unpacked_nested_pullback(bars: Any) -> tuple[Any, ...]:
            _, *found = pullback(bars)
            group_bars = regrouping.group_bars(depth, found[:depth])
            f_bar, *argument_bars = found[depth:]
            part_bars = calls._part_bars(layout, parts, tuple(argument_bars))
            return (NoTangent(), *group_bars, f_bar, NoTangent(), *part_bars)

        return result, unpacked_nested_pullback

    frules = "_frule" * depth
    return (named(unpacked_nested_frule, f"unpacked_call{frules}"),
            named(unpacked_nested_rrule, f"unpacked_call{frules}_rrule"))  # fmt: skip


def _keyword_nested(depth: int) -> tuple[RuleFn, RuleFn]:
    """`keyword_call`'s forward rule `depth` deep (`depth` groups of tangents, then the
    function, the layout, the names and the parts), and its reverse rule: the forward rules
    srcad generates for the function's positional form, nested, each part's tangents moved
    to its parameter's at every depth (`_Binding.parameter_dots`, linear; the function's,
    the layout's and the names' dropped, as `keyword_call_frule` drops them)."""

    def split(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        function, layout, names, *parts = inputs[depth:]
        binding = keywords._Binding(function, layout, names, tuple(parts))

        def change(tail: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(binding.parameter_dots([unthunk(d) for d in tail[3:]]))

        def back(tail: tuple[Any, ...]) -> tuple[Any, ...]:
            return (NoTangent(),) * 3 + tuple(binding.part_bars(list(tail)))

        width, moved_width = 3 + len(parts), len(binding.parameters)
        regrouping = _Regrouping(width, moved_width, change, back)
        form = positional_form(function)
        nested = definition_nested_rules(function.__name__, form)[depth - 2]
        return binding, regrouping, regrouping.groups(depth, inputs[:depth]), nested

    def keyword_nested_frule(dargs: tuple[Any, ...], *inputs: Any) -> Any:
        binding, _, moved, (forward, _) = split((dargs, *inputs))
        return forward(*moved, *binding.arguments)

    def keyword_nested_rrule(dargs: tuple[Any, ...], *inputs: Any) -> Any:
        binding, regrouping, moved, (_, reverse) = split((dargs, *inputs))
        result, pullback = reverse(*moved, *binding.arguments)
        count = len(binding.parameters)

        def keyword_nested_pullback(bars: Any) -> tuple[Any, ...]:
            _, *found = pullback(bars)
            groups = regrouping.group_bars(depth, found[:depth])
            part_bars = binding.part_bars(list(found[depth : depth + count]))
            return (NoTangent(), *groups, NoTangent(), NoTangent(), NoTangent(), *part_bars)

        return result, keyword_nested_pullback

    frules = "_frule" * depth
    return (named(keyword_nested_frule, f"keyword_call{frules}"),
            named(keyword_nested_rrule, f"keyword_call{frules}_rrule"))  # fmt: skip


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
_CALL_NESTED = {depth: _call_nested(depth) for depth in range(3, len(_METHOD_NESTED) + 2)}
_register_nested(call_frule_frule, _CALL_NESTED.__getitem__, len(_METHOD_NESTED) + 1)
_register_nested(unpacked_call_frule_frule, _unpacked_nested, len(_METHOD_NESTED) + 1)
_register_nested(keyword_call_frule_frule, _keyword_nested, len(_METHOD_NESTED) + 1)

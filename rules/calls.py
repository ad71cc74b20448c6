"""Rules for calling values: functions passed in, callable objects, methods, and fields."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.primitives import call, method
from srcad.projection import ProjectTo
from srcad.registry import CONFIG, RuleSet, with_config
from srcad.rules.containers import _cotangent_of_elements
from srcad.source import differentiated_function
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("calls")

Pullback = Any


def _is_function(f: Any) -> bool:
    """A function, or a transparent wrapper of one (`source.differentiated_function`):
    not a callable object, whose class's `__call__` is differentiated."""
    return isinstance(f, types.FunctionType | types.BuiltinFunctionType | np.ufunc | type) or (
        differentiated_function(f) is not f
    )


@rules.rrule(call)
def call_rrule(f: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    """Calling a value. A function goes through its rule (registered, else compiled); a
    callable object through the rule of its class's `__call__`, whose pullback gives the
    instance's cotangent first (a registered `__call__` rule returns it in the function's
    place; a compiled `__call__` returns it after the method's own `NoTangent`)."""
    count = len(args)
    if _is_function(f):
        y, pullback = CONFIG.rrule_via_ad(f, *args, **kwargs)

        def call_pullback(y_bar: Any) -> tuple[Any, ...]:
            bars = pullback(y_bar)
            return (NoTangent(), *bars[: 1 + count])

        return y, call_pullback
    dunder = type(f).__call__
    registered = _registered(dunder)
    y, pullback = CONFIG.rrule_via_ad(dunder, f, *args, **kwargs)

    def call_object_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars = pullback(y_bar)
        own = bars[: 1 + count] if registered else bars[1 : 2 + count]
        return (NoTangent(), *own)

    return y, call_object_pullback


def _registered(function: Any) -> bool:
    from srcad.registry import REGISTRY

    return REGISTRY.rrule_for(function) is not None


def _packed(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`x.reshape(2, 3)` passes the shape as several arguments, `np.reshape` as one."""
    return (args,) if len(args) != 1 else args


# ndarray methods, as the NumPy functions they call, and whether they take `*shape`-style
# arguments that the function takes as one tuple.
ARRAY_METHODS: dict[str, tuple[Callable[..., Any], bool]] = {
    "sum": (np.sum, False),
    "mean": (np.mean, False),
    "prod": (np.prod, False),
    "max": (np.max, False),
    "min": (np.min, False),
    "var": (np.var, False),
    "std": (np.std, False),
    "cumsum": (np.cumsum, False),
    "cumprod": (np.cumprod, False),
    "dot": (np.dot, False),
    "reshape": (np.reshape, True),
    "transpose": (np.transpose, True),
    "ravel": (np.ravel, False),
    "flatten": (np.ravel, False),
    "squeeze": (np.squeeze, False),
    "swapaxes": (np.swapaxes, False),
    "repeat": (np.repeat, False),
    "clip": (np.clip, False),
    "trace": (np.trace, False),
    "conj": (np.conjugate, False),
    "conjugate": (np.conjugate, False),
}
ARRAY_METHODS_WITHOUT_DERIVATIVE = frozenset(
    {
        "argmax",
        "argmin",
        "argsort",
        "nonzero",
        "any",
        "all",
        "round",
        "tolist",
        "__len__",
    }
)


@rules.rrule(method)
def method_rrule(receiver: Any, name: str, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    """A method call on a value: for arrays, the rule of the NumPy function the method
    calls (`x.sum(axis=0)` is `np.sum(x, axis=0)`); for other objects, the rule of the
    class's method (registered, else compiled from its source, `self` first)."""
    count = len(args)
    if isinstance(receiver, np.ndarray | np.generic):
        return _array_method(receiver, name, args, kwargs)
    function = getattr(type(receiver), name, None)
    if not isinstance(function, types.FunctionType):
        raise TypeError(
            f"srcad has no rule for the method .{name} of {type(receiver).__name__}; "
            f"register one with @srcad.rrule.register({type(receiver).__name__}.{name})"
        )
    y, pullback = CONFIG.rrule_via_ad(function, receiver, *args, **kwargs)

    def method_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars = pullback(y_bar)
        return (NoTangent(), bars[1], NoTangent(), *bars[2 : 2 + count])

    return y, method_pullback


def _array_method(
    receiver: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Pullback]:
    count = len(args)
    if name in ARRAY_METHODS_WITHOUT_DERIVATIVE:
        y = getattr(receiver, name)(*args, **kwargs)

        def no_derivative_pullback(y_bar: Any) -> tuple[Any, ...]:
            return (NoTangent(), ZeroTangent(), NoTangent(), *(NoTangent(),) * count)

        return y, no_derivative_pullback
    if name in ("astype", "copy", "item"):
        y = getattr(receiver, name)(*args, **kwargs)
        project = ProjectTo(receiver)
        shape = np.shape(receiver)

        def cast_back_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), y_bar, NoTangent(), *(NoTangent(),) * count)
            y_bar = np.reshape(np.asarray(unthunk(y_bar)), shape)
            return (NoTangent(), project(y_bar), NoTangent(), *(NoTangent(),) * count)

        return y, cast_back_pullback
    if name not in ARRAY_METHODS:
        raise TypeError(f"srcad has no rule for the array method .{name}")
    function, packs = ARRAY_METHODS[name]
    passed = _packed(args) if packs else args
    y, pullback = CONFIG.rrule_via_ad(function, receiver, *passed, **kwargs)

    def array_method_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars = pullback(y_bar)
        arg_bars = (NoTangent(),) * count if packs else tuple(bars[2 : 2 + count])
        return (NoTangent(), bars[1], NoTangent(), *arg_bars)

    return y, array_method_pullback


@rules.rrule(getattr)
def getattr_rrule(obj: Any, name: str, *default: Any) -> tuple[Any, Pullback]:
    """Reading a field of a struct (dataclass, NamedTuple, plain object): the cotangent of
    the object is a structural `Tangent` holding the field's; `.real` and `.imag` of
    arrays and complex numbers too."""
    y = getattr(obj, name, *default)
    if isinstance(obj, np.ndarray | np.generic | complex | float | int):
        if name not in ("real", "imag"):
            raise TypeError(f"srcad has no rule for the attribute .{name} of {type(obj).__name__}")
        project = ProjectTo(obj)
        imaginary = name == "imag"

        def part_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent()
            y_bar = unthunk(y_bar)
            return NoTangent(), project(1j * y_bar if imaginary else y_bar), NoTangent()

        return y, part_pullback
    kind = type(obj)

    def getattr_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, NoTangent(), *(NoTangent(),) * len(default))
        return (
            NoTangent(),
            _field_tangent(kind, name, y_bar),
            NoTangent(),
            *(NoTangent(),) * len(default),
        )

    return y, getattr_pullback


def _field_tangent(kind: type, name: str, bar: Any) -> Tangent:
    if dataclasses.is_dataclass(kind) or hasattr(kind, "_fields"):
        return Tangent(kind, **{name: bar})
    return Tangent.of_mapping(kind, {name: bar})


def map_rrule(config: Any, f: Any, *iterables: Any) -> tuple[list[Any], Pullback]:
    """The builtin `map`, as the list of results a consumer (`list`, `sum`, a loop) walks:
    each call goes through `f`'s own rule (registered, else compiled), via the config."""
    calls = [config.rrule_via_ad(f, *items) for items in zip(*iterables)]  # noqa: B905
    results = [y for y, _ in calls]
    count = len(calls)

    def map_pullback(results_bar: Any) -> tuple[Any, ...]:
        bars = [
            pullback(bar)
            for (_, pullback), bar in zip(calls, elements_of(results_bar, count), strict=True)
        ]
        iterable_bars = []
        for position, iterable in enumerate(iterables):
            element_bars = tuple(b[1 + position] for b in bars)
            element_bars += (ZeroTangent(),) * (len(iterable) - count)
            iterable_bars.append(_cotangent_of_elements(iterable, element_bars))
        return (NoTangent(), NoTangent(), *iterable_bars)

    return results, map_pullback


rules.rrule(map)(with_config(map_rrule))


# -- forward rules ---------------------------------------------------------------------------
# A callable object's (or a method's) forward rule takes the tangent of `self` in the
# position of its first argument: `frule((NoTangent(), self_dot, *arg_dots), Class.method,
# instance, *args)`, as for any function of `self`.


@rules.frule(call)
def call_frule(dargs: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    _, f_dot, *arg_dots = dargs
    if _is_function(f):
        return CONFIG.frule_via_ad((NoTangent(), *arg_dots), f, *args, **kwargs)
    dunder = type(f).__call__
    return CONFIG.frule_via_ad((NoTangent(), f_dot, *arg_dots), dunder, f, *args, **kwargs)


@rules.frule(method)
def method_frule(
    dargs: tuple[Any, ...], receiver: Any, name: str, *args: Any, **kwargs: Any
) -> tuple[Any, Any]:
    _, receiver_dot, _, *arg_dots = dargs
    if not isinstance(receiver, np.ndarray | np.generic):
        function = getattr(type(receiver), name, None)
        if not isinstance(function, types.FunctionType):
            raise TypeError(
                f"srcad has no rule for the method .{name} of {type(receiver).__name__}"
            )
        return CONFIG.frule_via_ad(
            (NoTangent(), receiver_dot, *arg_dots), function, receiver, *args, **kwargs
        )
    y = getattr(receiver, name)(*args, **kwargs)
    if name in ARRAY_METHODS_WITHOUT_DERIVATIVE:
        return y, ZeroTangent()
    if name in ("astype", "copy", "item"):
        if isinstance(receiver_dot, AbstractZero):
            return y, receiver_dot
        dot = np.asarray(unthunk(receiver_dot))
        if name == "item":
            return y, dot.reshape(()).item() if np.size(dot) == 1 else dot.item(*args)
        return y, dot.astype(np.result_type(y), copy=True) if name == "astype" else dot.copy()
    if name not in ARRAY_METHODS:
        raise TypeError(f"srcad has no rule for the array method .{name}")
    function, packs = ARRAY_METHODS[name]
    passed = _packed(args) if packs else args
    dots = (NoTangent(),) * len(passed) if packs else tuple(arg_dots)
    return CONFIG.frule_via_ad(
        (NoTangent(), receiver_dot, *dots), function, receiver, *passed, **kwargs
    )


@rules.frule(getattr)
def getattr_frule(dargs: tuple[Any, ...], obj: Any, name: str, *default: Any) -> tuple[Any, Any]:
    y = getattr(obj, name, *default)
    obj_dot = unthunk(dargs[1])
    if isinstance(obj_dot, AbstractZero):
        return y, ZeroTangent()
    if isinstance(obj, np.ndarray | np.generic | complex | float | int):
        if name not in ("real", "imag"):
            raise TypeError(f"srcad has no rule for the attribute .{name} of {type(obj).__name__}")
        return y, np.real(obj_dot) if name == "real" else np.imag(obj_dot)
    if isinstance(obj_dot, Tangent):
        return y, obj_dot[name] if obj_dot.fields else getattr(obj_dot, name)
    return y, getattr(obj_dot, name)


def map_frule(config: Any, dargs: tuple[Any, ...], f: Any, *iterables: Any) -> tuple[Any, Any]:
    """The builtin `map`: each call through `f`'s forward rule, via the config."""
    _, _, *iterable_dots = dargs
    columns = [elements_of(dot, len(it)) for dot, it in zip(iterable_dots, iterables, strict=True)]
    results, dots = [], []
    for items, item_dots in zip(zip(*iterables), zip(*columns), strict=False):  # noqa: B905
        y, y_dot = config.frule_via_ad((NoTangent(), *item_dots), f, *items)
        results.append(y)
        dots.append(y_dot)
    return results, dots


rules.frule(map)(with_config(map_frule))

"""Rules for calling values: functions passed in, callable objects, methods, and fields."""

from __future__ import annotations

import collections
import dataclasses
import functools
import inspect
import types
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from srcad.entry_rules import RULE_TYPES
from srcad.errors import MissingRuleError
from srcad.out_arguments import refuse_positional_out
from srcad.primitives import call, method, unpacked_arguments, unpacked_call
from srcad.projection import ProjectTo
from srcad.registry import CONFIG, REGISTRY, Linearity, RuleSet, with_config
from srcad.rules._support import array_of_elements, cotangent_of_elements, integer_valued
from srcad.rules.method_lookup import runs_class_function, static_member
from srcad.source import differentiated_function
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("calls")

Pullback = Any


def _is_function(f: Any) -> bool:
    """A function, or a transparent wrapper of one (`source.differentiated_function`), or
    a rule of a derivative srcad returned (`srcad/forms.py`, differentiated through its own
    rules): not a callable object, whose class's `__call__` is differentiated."""
    return isinstance(
        f, types.FunctionType | types.BuiltinFunctionType | np.ufunc | type | RULE_TYPES
    ) or (differentiated_function(f) is not f)


def _not_a_generator(function: Any) -> Any:
    """`function`, which a call of a value known only when the code runs reaches; refused
    if it is a generator function: srcad runs it to its end and takes the list of what it
    yields, which is what Python's iterator gives only where it is read once, at once, as
    `passes/checks/one_shot_iterators.py` proves for a call of a function named in the
    code, and cannot here (`g = obj.items(s)`, `sum(g)` twice: the second is 0)."""
    if inspect.isgeneratorfunction(differentiated_function(function)):
        raise MissingRuleError(
            f"`{getattr(function, '__qualname__', function)}` is a generator function, "
            "called through a value known only when the code runs, so srcad cannot see "
            "that its iterator is read once, where it is made; call it by its name (a "
            "module's function), or have it return a list"
        )
    return function


@rules.rrule(call)
def call_rrule(f: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    """Calling a value. A function goes through its rule (registered, else compiled); a
    callable object through the rule of its class's `__call__`, whose pullback gives the
    instance's cotangent first (a registered `__call__` rule returns it in the function's
    place; a compiled `__call__` returns it after the method's own `NoTangent`)."""
    count = len(args)
    if _is_function(f):
        y, pullback = CONFIG.rrule_via_ad(_not_a_generator(f), *args, **kwargs)

        def call_pullback(y_bar: Any) -> tuple[Any, ...]:
            bars = pullback(y_bar)
            return (NoTangent(), *bars[: 1 + count])

        return y, call_pullback
    if isinstance(f, types.MethodType):
        # A bound method is its function with the receiver in front; the receiver's
        # cotangent is the method's own (its code cannot be perturbed).
        y, pullback = CONFIG.rrule_via_ad(_not_a_generator(f.__func__), f.__self__, *args, **kwargs)

        def bound_method_pullback(y_bar: Any) -> tuple[Any, ...]:
            bars = pullback(y_bar)
            return (NoTangent(), *bars[1 : 2 + count])

        return y, bound_method_pullback
    if isinstance(f, functools.partial):
        return _partial_call_rrule(f, *args, **kwargs)
    dunder = _not_a_generator(type(f).__call__)
    registered = _registered(dunder)
    y, pullback = CONFIG.rrule_via_ad(dunder, f, *args, **kwargs)

    def call_object_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars = pullback(y_bar)
        own = bars[: 1 + count] if registered else bars[1 : 2 + count]
        return (NoTangent(), *own)

    return y, call_object_pullback


# A `functools.partial`'s (co)tangent is `Tangent(functools.partial, func_bar, *bound_bars)`:
# its function's, then one per bound positional argument (bound keywords are never
# differentiated: `functools.partial(f, k=x)` with a differentiated `x` is refused, E211).


@rules.rrule(functools.partial)
def partial_rrule(func: Any, *args: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Making a partial: its cotangent's parts go back to its function and bound arguments.
    A partial of a partial is flattened by Python (one function, both arguments bound): the
    inner partial's part is its function's and its own bound arguments'."""
    y = functools.partial(func, *args, **keywords)
    inner = len(y.args) - len(args)  # bound by `func` itself, where it was flattened

    def partial_pullback(y_bar: Any) -> tuple[Any, ...]:
        func_bar, *bars = elements_of(unthunk(y_bar), 1 + len(y.args))
        if y.func is not func:
            own = [func_bar, *bars[:inner]]
            zero = all(isinstance(b, AbstractZero) for b in own)
            func_bar = ZeroTangent() if zero else Tangent(functools.partial, *own)
        return (NoTangent(), func_bar, *bars[inner:])

    return y, partial_pullback


@rules.frule(functools.partial)
def partial_frule(dargs: tuple[Any, ...], func: Any, *args: Any, **keywords: Any) -> Any:
    dots = [unthunk(d) for d in dargs[1 : 2 + len(args)]]
    y = functools.partial(func, *args, **keywords)
    if y.func is not func:  # flattened: the inner partial's parts first
        inner = len(y.args) - len(args)
        dots = [*elements_of(dots[0], 1 + inner), *dots[1:]]
    if all(isinstance(d, AbstractZero) for d in dots):
        return y, ZeroTangent()
    return y, Tangent(functools.partial, *dots)


# A partial's tangent holds its function's and bound arguments' as they are: linear in
# each, so its forward rule's reverse rule is its own pullback (second derivatives).
rules.primitive(functools.partial, linearity=Linearity.LINEAR_IN_ALL)


def _partial_call_rrule(f: functools.partial, *args: Any, **kwargs: Any) -> Any:
    """Calling a partial: a call of its function with the bound arguments in front, whose
    cotangents (and the function's) are the partial's own."""
    bound, count = len(f.args), len(args)
    y, pullback = call_rrule(f.func, *f.args, *args, **{**f.keywords, **kwargs})

    def partial_call_pullback(y_bar: Any) -> tuple[Any, ...]:
        _, func_bar, *bars = pullback(y_bar)
        own = [func_bar, *bars[:bound]]
        zero = all(isinstance(b, AbstractZero) for b in own)
        partial_bar = ZeroTangent() if zero else Tangent(functools.partial, *own)
        return (NoTangent(), partial_bar, *bars[bound : bound + count])

    return y, partial_call_pullback


def _unpackable(layout: str, parts: tuple[Any, ...]) -> None:
    """A part unpacked into arguments is a tuple, a list or an array, whose cotangent is
    made of its elements' (`cotangent_of_elements`); another iterable (a generator, a
    dict) is refused, not given a cotangent of the wrong kind."""
    for kind, part in zip(layout, parts, strict=True):
        if kind == "*" and not isinstance(part, tuple | list | np.ndarray):
            raise MissingRuleError(
                f"srcad differentiates `*` unpacking of tuples, lists and arrays only, "
                f"not of a {type(part).__name__}; make it a tuple first"
            )


def _part_bars(layout: str, parts: tuple[Any, ...], argument_bars: tuple[Any, ...]) -> list[Any]:
    """The cotangent of each part of an unpacking call, from one per argument received:
    an unpacked part's is made of its elements'."""
    bars: list[Any] = []
    start = 0
    for kind, part in zip(layout, parts, strict=True):
        if kind == "*":
            count = len(part)
            bars.append(cotangent_of_elements(part, tuple(argument_bars[start : start + count])))
            start += count
        else:
            bars.append(argument_bars[start])
            start += 1
    return bars


@rules.rrule(unpacked_call)
def unpacked_call_rrule(f: Any, layout: str, *parts: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    """A call that unpacks arguments, `f(a, *rest)`: the call of `f` with the arguments it
    receives (through `call`'s rule), whose cotangents are gathered back into each part's
    (an unpacked tuple's cotangent holds its elements'). Keyword arguments, `**` ones
    included, are passed as they are and not differentiated."""
    _unpackable(layout, parts)
    refuse_positional_out(f, unpacked_arguments(layout, parts))  # `np.multiply(*(a, b, a))`
    y, pullback = call_rrule(f, *unpacked_arguments(layout, parts), **kwargs)

    def unpacked_call_pullback(y_bar: Any) -> tuple[Any, ...]:
        _, f_bar, *argument_bars = pullback(y_bar)
        return (NoTangent(), f_bar, NoTangent(), *_part_bars(layout, parts, argument_bars))

    return y, unpacked_call_pullback


def _registered(function: Any) -> bool:
    return REGISTRY.rrule_for(function) is not None


def _packed(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`x.reshape(2, 3)` passes the shape as several arguments, `np.reshape` as one
    (`x.transpose()`, none: `np.transpose(x)`)."""
    return (args,) if len(args) > 1 else args


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
    "diagonal": (np.diagonal, False),
    "take": (np.take, False),
    "conj": (np.conjugate, False),
    "conjugate": (np.conjugate, False),
}


def _no_array_method(name: str) -> MissingRuleError:
    """The refusal of an array method srcad has no rule for (`.sort()`, in place, among
    them): a `SrcadError` that says what to write instead."""
    return MissingRuleError(
        f"srcad has no rule for the array method .{name}: call the NumPy function instead "
        f"(`np.{name}(x, ...)`, where NumPy has one that returns a new array), or register "
        "a rule for it (docs/writing-rules.md)"
    )


ARRAY_METHODS_WITHOUT_DERIVATIVE = frozenset(
    {
        "argmax",
        "argmin",
        "argsort",
        "nonzero",
        "any",
        "all",
        "round",
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
    static = static_member(receiver, name)
    if static is not None:  # a staticmethod's or classmethod's function, without the receiver
        function, leading = static
        y, pullback = CONFIG.rrule_via_ad(_not_a_generator(function), *leading, *args, **kwargs)
        skip = 1 + len(leading)

        def static_method_pullback(y_bar: Any) -> tuple[Any, ...]:
            bars = pullback(y_bar)
            return (NoTangent(), ZeroTangent(), NoTangent(), *bars[skip : skip + count])

        return y, static_method_pullback
    function = _not_a_generator(_method_function(receiver, name, "rrule"))
    if REGISTRY.is_non_differentiable(function):
        y = function(receiver, *args, **kwargs)

        def no_derivative_method_pullback(y_bar: Any) -> tuple[Any, ...]:
            return (NoTangent(), ZeroTangent(), NoTangent(), *(NoTangent(),) * count)

        return y, no_derivative_method_pullback
    y, pullback = CONFIG.rrule_via_ad(function, receiver, *args, **kwargs)

    def method_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars = pullback(y_bar)
        return (NoTangent(), bars[1], NoTangent(), *bars[2 : 2 + count])

    return y, method_pullback


def _method_function(receiver: Any, name: str, kind: str) -> Any:
    """The function a method call runs, `type(receiver).name`: Python code (compiled), or
    one with a registered rule or none (the methods of dicts, lists and tuples); any other
    is refused when the call runs, as is a call that would not run the class's function
    with the receiver first (`method_lookup.runs_class_function`)."""
    function = getattr(type(receiver), name, None)
    if not runs_class_function(receiver, name):
        owner = type(receiver).__name__
        raise MissingRuleError(
            f"srcad differentiates a method call .{name}(...) on a {owner} as a call of "
            f"{owner}.{name} with the instance first, but .{name} is not such a method here "
            "(an attribute of the instance, a property or __getattribute__; a "
            "staticmethod or classmethod beyond second order), which srcad does not "
            "differentiate through; call a function instead"
        )
    if isinstance(function, types.FunctionType) or REGISTRY.is_non_differentiable(function):
        return function
    registered = REGISTRY.frule_for if kind == "frule" else REGISTRY.rrule_for
    if function is not None and registered(function) is not None:
        return function
    owner = type(receiver).__name__
    raise MissingRuleError(
        f"srcad has no rule for the method .{name} of {owner}; "
        f"register one with @srcad.{kind}.register({owner}.{name})"
    )


def _array_method(
    receiver: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Pullback]:
    count = len(args)
    refuse_positional_out(getattr(receiver, name, None), args)  # `a.clip(lo, hi, out)`
    if name in ARRAY_METHODS_WITHOUT_DERIVATIVE:
        y = getattr(receiver, name)(*args, **kwargs)

        def no_derivative_pullback(y_bar: Any) -> tuple[Any, ...]:
            return (NoTangent(), ZeroTangent(), NoTangent(), *(NoTangent(),) * count)

        return y, no_derivative_pullback
    if name == "tolist":  # the same numbers, as (nested) lists of Python numbers
        y = receiver.tolist()
        project, shape = ProjectTo(receiver), np.shape(receiver)

        def tolist_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero) or receiver.dtype.kind not in "fc":
                return (NoTangent(), ZeroTangent(), NoTangent())
            return (NoTangent(), project(array_of_elements(y_bar, shape)), NoTangent())

        return y, tolist_pullback
    if name in ("astype", "copy", "item"):
        y = getattr(receiver, name)(*args, **kwargs)
        project = ProjectTo(receiver)
        shape = np.shape(receiver)
        to_integers = integer_valued(y)  # `x.astype(int)`: piecewise constant

        def cast_back_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero) or to_integers:
                return (NoTangent(), y_bar, NoTangent(), *(NoTangent(),) * count)
            y_bar = np.asarray(unthunk(y_bar))
            if name == "item" and args:  # one element of many: `x.item(1)`, `x.item(0, 2)`
                whole = np.zeros(shape, dtype=np.result_type(y_bar, float))
                index = args[0] if count == 1 else args
                if isinstance(index, tuple):
                    whole[index] = y_bar
                else:  # a flat position (a view: `whole` is contiguous)
                    whole.reshape(-1)[index] = y_bar
                y_bar = whole
            return (NoTangent(), project(np.reshape(y_bar, shape)), NoTangent(),
                    *(NoTangent(),) * count)  # fmt: skip

        return y, cast_back_pullback
    if name not in ARRAY_METHODS:
        raise _no_array_method(name)
    function, packs = ARRAY_METHODS[name]
    passed = _packed(args) if packs else args
    y, pullback = CONFIG.rrule_via_ad(function, receiver, *passed, **kwargs)

    def array_method_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars = pullback(y_bar)
        arg_bars = (NoTangent(),) * count if packs else tuple(bars[2 : 2 + count])
        return (NoTangent(), bars[1], NoTangent(), *arg_bars)

    return y, array_method_pullback


# The values whose attributes are NumPy's (`.real`, `.shape`), not fields of a struct.
NUMERIC = (np.ndarray, np.generic, complex, float, int)

# The class attributes that hold an instance's own fields: `__slots__` entries and the
# fields of a NamedTuple. Reading one reads what the instance stores.
_FIELD_DESCRIPTORS = (
    types.MemberDescriptorType,
    type(vars(collections.namedtuple("_", "a"))["a"]),
)
_MISSING = object()


def _class_attribute(kind: type, name: str) -> Any:
    """What `name` is in the class `kind` or its bases (`_MISSING` where none has it),
    without running any descriptor."""
    for klass in kind.__mro__:
        found = vars(klass).get(name, _MISSING)
        if found is not _MISSING:
            return found
    return _MISSING


def _python_hook(kind: type, name: str) -> Any:
    """The Python-defined `__getattribute__` or `__getattr__` of a class, else None."""
    found = _class_attribute(kind, name)
    return found if isinstance(found, types.FunctionType) else None


# What `attribute_reader` finds an attribute read to be, where no function computes it.
FIELD = "field"  # a field the instance stores
CLASS_CONSTANT = "class constant"  # a plain value of the class, shared by every instance

Reader = str | tuple[Callable[..., Any], tuple[Any, ...]]


def attribute_reader(obj: Any, name: str) -> Reader:
    """How reading `obj.name` reaches its value: `FIELD` where it reads a field the
    instance stores (a dataclass or NamedTuple field, a `__slots__` entry, an entry of its
    `__dict__`), `CLASS_CONSTANT` for a plain class attribute, else `(function, extra)`:
    the Python function whose result it is, to be differentiated with the instance and
    `extra` as its arguments (a property's getter, a `cached_property`'s function, a
    class's `__getattr__` for a name the instance does not store). Any other reader (a
    custom descriptor, a method read as a value, a `__getattribute__` override) computes
    something no rule describes, and is refused."""
    kind = type(obj)
    if _python_hook(kind, "__getattribute__") is not None:
        _refuse_attribute(obj, name, "its class overrides `__getattribute__`")
    found = _class_attribute(kind, name)
    if isinstance(found, property):
        getter = found.fget
        if not isinstance(getter, types.FunctionType):
            _refuse_attribute(obj, name, "it is a property whose getter is not Python code")
        return getter, ()
    if isinstance(found, functools.cached_property):
        return found.func, ()
    if isinstance(found, _FIELD_DESCRIPTORS):
        return FIELD
    if hasattr(type(found), "__set__") or hasattr(type(found), "__delete__"):
        _refuse_attribute(obj, name, f"it is a {type(found).__name__} descriptor")
    if name in getattr(obj, "__dict__", ()):
        return FIELD  # stored in the instance, which a non-data descriptor does not hide
    if found is not _MISSING:
        if hasattr(type(found), "__get__"):
            what = (
                "a method, read as a value"
                if isinstance(found, types.FunctionType)
                else f"computed by a {type(found).__name__} descriptor"
            )
            _refuse_attribute(obj, name, f"it is {what}")
        return CLASS_CONSTANT
    hook = _python_hook(kind, "__getattr__")
    if hook is not None:
        return hook, (name,)
    return FIELD  # (reading it raises AttributeError, as Python does)


def _refuse_attribute(obj: Any, name: str, why: str) -> NoReturn:
    kind = type(obj).__qualname__
    raise MissingRuleError(
        f"srcad cannot differentiate reading `.{name}` of a {kind}: {why}; read a plain "
        f"field, or register a rule for a function that reads it"
    )


@rules.rrule(getattr)
def getattr_rrule(obj: Any, name: str, *default: Any) -> tuple[Any, Pullback]:
    """Reading a field of a struct (dataclass, NamedTuple, plain object): the cotangent of
    the object is a structural `Tangent` holding the field's; `.real` and `.imag` of
    arrays and complex numbers too. An attribute that is computed (a property, see
    `attribute_reader`) is differentiated through the function that computes it. One the
    object has not, with a default, is the default, which gets the cotangent."""
    if default and _lacks(obj, name):

        def default_pullback(y_bar: Any) -> tuple[Any, ...]:
            return (NoTangent(), ZeroTangent(), NoTangent(), y_bar)

        return default[0], default_pullback
    if isinstance(obj, NUMERIC):
        y = getattr(obj, name, *default)
        if REGISTRY.is_non_differentiable_attribute(name):  # `.shape`, `.dtype`

            def no_derivative_pullback(y_bar: Any) -> tuple[Any, ...]:
                return (NoTangent(), ZeroTangent(), NoTangent(), *(NoTangent(),) * len(default))

            return y, no_derivative_pullback
        if name not in ("real", "imag"):
            raise MissingRuleError(
                f"srcad has no rule for the attribute .{name} of {type(obj).__name__}"
            )
        project = ProjectTo(obj)
        imaginary, unused = name == "imag", (NoTangent(),) * len(default)

        def part_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent(), *unused
            y_bar = unthunk(y_bar)
            return NoTangent(), project(1j * y_bar if imaginary else y_bar), NoTangent(), *unused

        return y, part_pullback
    others = (NoTangent(),) * len(default)
    reader = attribute_reader(obj, name)
    if isinstance(reader, tuple):
        function, extra = reader
        y, pullback = CONFIG.rrule_via_ad(function, obj, *extra)

        def computed_attribute_pullback(y_bar: Any) -> tuple[Any, ...]:
            return (NoTangent(), pullback(y_bar)[1], NoTangent(), *others)

        return y, computed_attribute_pullback
    y = getattr(obj, name, *default)
    kind = type(obj)
    stored = reader == FIELD

    def getattr_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero) or not stored:  # a class constant: no field's
            return (NoTangent(), ZeroTangent(), NoTangent(), *others)
        return (NoTangent(), _field_tangent(kind, name, y_bar), NoTangent(), *others)

    return y, getattr_pullback


def _lacks(obj: Any, name: str) -> bool:
    """Whether `obj` has no attribute `name` stored or in its class (`getattr(obj, name, v)`
    gives `v`), none computed by a function that may raise AttributeError for it."""
    computed = not isinstance(obj, NUMERIC) and isinstance(attribute_reader(obj, name), tuple)
    return not computed and getattr(obj, name, _MISSING) is _MISSING


def _field_tangent(kind: type, name: str, bar: Any) -> Tangent:
    if dataclasses.is_dataclass(kind) or hasattr(kind, "_fields"):
        return Tangent(kind, **{name: bar})
    return Tangent.of_mapping(kind, {name: bar})


def map_rrule(config: Any, f: Any, *iterables: Any) -> tuple[list[Any], Pullback]:
    """The builtin `map`, as the list of results a consumer (`list`, `sum`, a loop) walks:
    each call goes through `call`'s rule, via the config, so that `f` itself gets the sum
    of its cotangents over the calls (a `functools.partial` holding a differentiated
    value, a callable object with fields)."""
    calls = [config.rrule_via_ad(call, f, *items) for items in zip(*iterables)]  # noqa: B905
    results = [y for y, _ in calls]
    count = len(calls)

    def map_pullback(results_bar: Any) -> tuple[Any, ...]:
        bars = [
            pullback(bar)
            for (_, pullback), bar in zip(calls, elements_of(results_bar, count), strict=True)
        ]
        f_bar: Any = ZeroTangent()
        for own in bars:
            f_bar = f_bar + own[1]
        iterable_bars = []
        for position, iterable in enumerate(iterables):
            element_bars = tuple(b[2 + position] for b in bars)
            element_bars += (ZeroTangent(),) * (len(iterable) - count)
            iterable_bars.append(cotangent_of_elements(iterable, element_bars))
        return (NoTangent(), f_bar, *iterable_bars)

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
        return CONFIG.frule_via_ad((NoTangent(), *arg_dots), _not_a_generator(f), *args, **kwargs)
    if isinstance(f, types.MethodType):
        dargs = (NoTangent(), f_dot, *arg_dots)
        return CONFIG.frule_via_ad(dargs, _not_a_generator(f.__func__), f.__self__, *args, **kwargs)
    if isinstance(f, functools.partial):  # its function, with the bound arguments in front
        own = elements_of(unthunk(f_dot), 1 + len(f.args))
        dargs = (NoTangent(), *own, *arg_dots)
        return call_frule(dargs, f.func, *f.args, *args, **{**f.keywords, **kwargs})
    dunder = _not_a_generator(type(f).__call__)
    return CONFIG.frule_via_ad((NoTangent(), f_dot, *arg_dots), dunder, f, *args, **kwargs)


@rules.frule(unpacked_call)
def unpacked_call_frule(
    dargs: tuple[Any, ...], f: Any, layout: str, *parts: Any, **kwargs: Any
) -> tuple[Any, Any]:
    """A call that unpacks arguments: `call`'s forward rule, given each argument's tangent
    (an unpacked part's tangent holds one per element)."""
    _, f_dot, _, *part_dots = dargs
    _unpackable(layout, parts)
    argument_dots: list[Any] = []
    for kind, part, dot in zip(layout, parts, part_dots, strict=True):
        if kind == "*":
            argument_dots.extend(elements_of(dot, len(part)))
        else:
            argument_dots.append(dot)
    arguments = unpacked_arguments(layout, parts)
    refuse_positional_out(f, arguments)  # `np.multiply(*(a, b, a))`
    return call_frule((NoTangent(), f_dot, *argument_dots), f, *arguments, **kwargs)


@rules.frule(method)
def method_frule(
    dargs: tuple[Any, ...], receiver: Any, name: str, *args: Any, **kwargs: Any
) -> tuple[Any, Any]:
    _, receiver_dot, _, *arg_dots = dargs
    static = None if isinstance(receiver, NUMERIC) else static_member(receiver, name)
    if static is not None:  # a staticmethod's or classmethod's function, without the receiver
        function, leading = static
        dargs = (NoTangent(), *(NoTangent(),) * len(leading), *arg_dots)
        return CONFIG.frule_via_ad(dargs, _not_a_generator(function), *leading, *args, **kwargs)
    if not isinstance(receiver, np.ndarray | np.generic):
        function = _not_a_generator(_method_function(receiver, name, "frule"))
        if REGISTRY.is_non_differentiable(function):
            return function(receiver, *args, **kwargs), ZeroTangent()
        return CONFIG.frule_via_ad(
            (NoTangent(), receiver_dot, *arg_dots), function, receiver, *args, **kwargs
        )
    refuse_positional_out(getattr(receiver, name, None), args)  # `a.clip(lo, hi, out)`
    y = getattr(receiver, name)(*args, **kwargs)
    if name in ARRAY_METHODS_WITHOUT_DERIVATIVE:
        return y, ZeroTangent()
    if name == "tolist":
        if isinstance(receiver_dot, AbstractZero) or receiver.dtype.kind not in "fc":
            return y, ZeroTangent()
        return y, np.broadcast_to(unthunk(receiver_dot), np.shape(receiver)).tolist()
    if name in ("astype", "copy", "item"):
        if isinstance(receiver_dot, AbstractZero):
            return y, receiver_dot
        if integer_valued(y):  # `x.astype(int)`, `x.item()` of an int array: piecewise constant
            return y, ZeroTangent()
        dot = np.asarray(unthunk(receiver_dot))
        if name == "item":
            return y, dot.reshape(()).item() if np.size(dot) == 1 else dot.item(*args)
        return y, dot.astype(np.result_type(y), copy=True) if name == "astype" else dot.copy()
    if name not in ARRAY_METHODS:
        raise _no_array_method(name)
    function, packs = ARRAY_METHODS[name]
    passed = _packed(args) if packs else args
    dots = (NoTangent(),) * len(passed) if packs else tuple(arg_dots)
    return CONFIG.frule_via_ad(
        (NoTangent(), receiver_dot, *dots), function, receiver, *passed, **kwargs
    )


@rules.frule(getattr)
def getattr_frule(dargs: tuple[Any, ...], obj: Any, name: str, *default: Any) -> tuple[Any, Any]:
    if default and _lacks(obj, name):  # the default, with its tangent
        return default[0], dargs[3]
    obj_dot = unthunk(dargs[1])
    if isinstance(obj, NUMERIC):
        y = getattr(obj, name, *default)
        if isinstance(obj_dot, AbstractZero) or REGISTRY.is_non_differentiable_attribute(name):
            return y, ZeroTangent()
        if name not in ("real", "imag"):
            raise MissingRuleError(
                f"srcad has no rule for the attribute .{name} of {type(obj).__name__}"
            )
        return y, np.real(obj_dot) if name == "real" else np.imag(obj_dot)
    reader = attribute_reader(obj, name)
    if isinstance(reader, tuple):  # computed: through the function that computes it
        function, extra = reader
        dots = (NoTangent(), obj_dot, *(NoTangent(),) * len(extra))
        return CONFIG.frule_via_ad(dots, function, obj, *extra)
    y = getattr(obj, name, *default)
    if isinstance(obj_dot, AbstractZero) or reader == CLASS_CONSTANT:
        return y, ZeroTangent()
    if isinstance(obj_dot, Tangent):
        return y, obj_dot[name] if obj_dot.fields else getattr(obj_dot, name)
    return y, getattr(obj_dot, name)


def map_frule(config: Any, dargs: tuple[Any, ...], f: Any, *iterables: Any) -> tuple[Any, Any]:
    """The builtin `map`: each call through `call`'s forward rule, via the config, with
    `f`'s own tangent (a `functools.partial` holding a differentiated value)."""
    _, f_dot, *iterable_dots = dargs
    columns = [elements_of(dot, len(it)) for dot, it in zip(iterable_dots, iterables, strict=True)]
    results, dots = [], []
    for items, item_dots in zip(zip(*iterables), zip(*columns), strict=False):  # noqa: B905
        y, y_dot = config.frule_via_ad((NoTangent(), f_dot, *item_dots), call, f, *items)
        results.append(y)
        dots.append(y_dot)
    return results, dots


rules.frule(map)(with_config(map_frule))

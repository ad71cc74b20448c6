"""What srcad differentiates for a callable the user passes, and the checks of the
arguments it is called with, shared by every entry point of the API (`srcad.api`).

A callable is a Python function, or calls one with some arguments bound (`Call`): a
`functools.partial`, a bound method, a callable object. Its parameters are read from its
signature (`positional_parameters`, `resolve_wrt`), and a call that does not fit it is
refused naming it (`Call.check_arguments`), never with a `TypeError` from srcad's generated
code.

Integers: srcad differentiates with respect to floats only (Python floats, NumPy float and
complex scalars and arrays). An int, a bool, or an integer array is never perturbed: asking
for a derivative with respect to one (as `wrt`, or with a nonzero tangent) is refused, the
same at every entry point (`check_perturbable`, `check_tangents`), and a rule's pullback
gives it NoTangent(). Derivatives for a float argument have its float type (`floating`).
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.cached_functions import stale_cache
from srcad.constructors import constructed_class
from srcad.errors import MissingRuleError, SourceUnavailableError, SrcadError
from srcad.keywords import is_positional_form
from srcad.keywords import parameters as keyword_parameters
from srcad.projection import ProjectTo
from srcad.registry import REGISTRY, Registry
from srcad.requests import Mode
from srcad.source import differentiated_function
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

Wrt = int | str | tuple[int | str, ...] | list[int | str]


class Wrapper:
    """A callable srcad made around a user's function `func` (`srcad.Differentiable`):
    srcad differentiates `func`, and names the wrapper by it."""

    func: Callable[..., Any]


def unwrap(f: Any) -> Any:
    """The user's function inside a `Wrapper`; any other callable as it is."""
    return f.func if isinstance(f, Wrapper) else f


def name_of(f: Any) -> str:
    """How messages name a callable the user gave: its qualified name; a partial, a
    callable object by the function they call."""
    if isinstance(f, Wrapper):
        return name_of(f.func)
    if isinstance(f, functools.partial):
        return f"functools.partial({name_of(f.func)})"
    name = getattr(f, "__qualname__", None)
    if isinstance(name, str):
        return name
    if _python_call(f) is not None:
        return f"{type(f).__qualname__}.__call__"
    return repr(f)[:60]


class Call:
    """What calling a callable `f` runs: `function(*bound, *args, **keywords, **kwargs)`,
    with `function` a Python function or one with a registered rule.

    A function binds nothing. A bound method binds its `self` (a classmethod, its class), a
    callable object is its class's `__call__` with the instance bound, and a
    `functools.partial` binds its arguments and keywords. srcad differentiates `function`
    (compiled once, whatever is bound) and hands back the derivatives for the caller's
    arguments. `instance`: whether `bound[0]` is an instance, whose cotangent is the
    callable's own (ChainRules' convention for callable objects); a partial's own
    cotangent is NoTangent(), as bound arguments and keywords are not differentiated.
    """

    __slots__ = ("bound", "count", "f", "function", "instance", "keywords", "registry")

    def __init__(
        self,
        f: Any,
        function: Callable[..., Any],
        bound: tuple[Any, ...] = (),
        keywords: dict[str, Any] | None = None,
        instance: bool = False,
        registry: Registry = REGISTRY,
    ) -> None:
        self.f = f
        self.function = function
        self.bound = bound
        self.keywords = keywords or {}
        self.instance = instance
        self.registry = registry  # whose rules count (the compiler's calling it)
        # How many positional parameters `f` has (None: any number), each with a cotangent.
        self.count = _positional_count(f) if self.binds else None

    @property
    def binds(self) -> bool:
        return bool(self.bound or self.keywords)

    def arguments(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments `function` gets for a call of `f` with `args` and `kwargs`."""
        if not self.binds:
            return args, kwargs
        return (*self.bound, *args), {**self.keywords, **kwargs}

    def cotangents(self, bars: tuple[Any, ...]) -> tuple[Any, ...]:
        """A pullback's cotangents for `function` as those for `f`: `f`'s own, then one
        for each argument of the caller's."""
        if not self.binds:
            return bars
        if self.instance and self._registered_call():
            return bars  # a registered `__call__` rule gives the instance's first
        own = bars[1] if self.instance else NoTangent()
        start = 1 + len(self.bound)
        return (own, *bars[start : None if self.count is None else start + self.count])

    def tangents(self, dargs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Tangents `(f_dot, *arg_dots)` for `f` as those for `function`: an instance's is
        `f_dot`, other bound arguments' zero."""
        if not self.bound:
            return dargs
        bound_dots: list[Any] = [ZeroTangent()] * len(self.bound)
        if self.instance and dargs and not isinstance(dargs[0], AbstractZero):
            bound_dots[0] = dargs[0]
        return (NoTangent(), *bound_dots, *dargs[1:])

    def _registered_call(self) -> bool:
        function = self.function
        return function.__name__ == "__call__" and self.registry.rrule_for(function) is not None

    def check_arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Raise a `SrcadError` naming `f` if `f` cannot be called with these arguments
        (what a `TypeError` from the generated code would otherwise say, naming srcad's
        own functions); return if it can."""
        try:
            parameters = inspect.signature(self.f)
        except (TypeError, ValueError):
            return  # a builtin without a signature: its own error stands
        try:
            parameters.bind(*args, **kwargs)
        except TypeError as error:
            raise SrcadError(
                f"cannot call {name_of(self.f)}{parameters} with {_described(args, kwargs)}: "
                f"{error}"
            ) from None


def _positional_count(f: Any) -> int | None:
    """The number of positional parameters of `f` (a partial's keywords make the parameters
    from theirs on keyword-only); None for `*args`, or where no signature can be read."""
    try:
        parameters = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = [p.kind for p in parameters]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(kind in positional for kind in kinds)


def _described(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    count = f"{len(args)} positional argument{'s' if len(args) != 1 else ''}"
    return f"{count} and keywords {sorted(kwargs)}" if kwargs else count


def callee(f: Any, registry: Registry = REGISTRY) -> Call:
    """What srcad differentiates for a callable `f` (see `Call`), or a `SrcadError`
    saying why it cannot: `f` is not callable, or has neither a rule (in `registry`: the
    default compiler's, unless a compiler gives its own) nor Python source."""
    if isinstance(f, types.FunctionType) or _registered(f, registry):
        return Call(f, f, registry=registry)
    if isinstance(f, Wrapper):
        return callee(f.func, registry)
    if isinstance(f, functools.partial):
        inner = callee(f.func, registry)
        return Call(f, inner.function, (*inner.bound, *f.args), {**inner.keywords, **f.keywords},
                    inner.instance, registry)  # fmt: skip
    if isinstance(f, types.MethodType):
        inner = callee(f.__func__, registry)
        own = not inner.bound and not isinstance(f.__self__, type)
        return Call(f, inner.function, (*inner.bound, f.__self__), inner.keywords, own, registry)
    if isinstance(f, staticmethod):
        return callee(f.__func__, registry)
    if not callable(f):
        raise SrcadError(
            f"srcad differentiates functions, but was given {type(f).__name__} {f!r:.60}, "
            "which cannot be called"
        )
    dunder = _python_call(f)
    if dunder is not None:
        return Call(f, dunder, (f,), None, True, registry)  # a callable object
    stale = stale_cache(f)
    if stale is not None:
        raise MissingRuleError(f"cannot differentiate {name_of(f)}: {stale}")
    function = differentiated_function(f)  # a function behind a transparent wrapper
    if isinstance(function, types.FunctionType):
        return Call(f, function, registry=registry)
    name = name_of(f)
    raise SourceUnavailableError(
        f"cannot differentiate {name}: it is a {type(f).__module__}.{type(f).__qualname__} "
        "with no rule and no Python source srcad can read; register a rule with "
        f"@srcad.rrule.register({name}) (and @srcad.frule.register for forward mode)"
    )


def _python_call(f: Any) -> types.FunctionType | None:
    """The Python `__call__` of `f`'s class, if `f` is an instance (not a class) with one."""
    dunder = getattr(type(f), "__call__", None)  # noqa: B004 (the class's, not callable())
    return dunder if isinstance(dunder, types.FunctionType) and not isinstance(f, type) else None


def _registered(f: Any, registry: Registry) -> bool:
    return registry.knows(f)


def positional_parameters(func: Callable[..., Any]) -> list[str]:
    """The names of the parameters a pullback returns cotangents for, in order."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        if isinstance(func, np.ufunc):  # NumPy before 2.1 gives ufuncs no signature
            return [f"x{position}" for position in range(1, func.nin + 1)]
        raise SrcadError(
            f"cannot read the parameters of {name_of(func)}, so cannot choose the "
            "arguments to differentiate; wrap it in a Python function"
        ) from None
    return [p.name for p in parameters if p.kind in kinds]


def wrt_parameters(func: Callable[..., Any]) -> list[str]:
    """The parameters a gradient function gives cotangents for, in order: the positional
    ones, then the keyword-only ones (those `wrt` names are appended to a compiled
    pullback's cotangents). A function with `*args`, or behind a wrapper, has no
    keyword-only ones here: where its cotangents end is not known in advance."""
    params = positional_parameters(func)
    code = getattr(func, "__code__", None)
    if not isinstance(func, types.FunctionType) or code is None or hasattr(func, "__wrapped__"):
        return params
    if code.co_flags & inspect.CO_VARARGS:
        return params
    start = code.co_argcount
    return [*params, *code.co_varnames[start : start + code.co_kwonlyargcount]]


def resolve_wrt(
    func: Callable[..., Any], wrt: Wrt, keywords: bool = False
) -> tuple[tuple[str, ...], bool]:
    """Turn `wrt` (an int, a NumPy integer, a parameter name, or a tuple or list of them)
    into parameter names; with `keywords` (`grad`, `value_and_grad`), a name may be a
    keyword-only parameter's (`wrt_parameters`). An int counts positional parameters.

    The flag says whether the caller asked for a tuple (and so gets a tuple back); an empty
    tuple asks for nothing, and gets an empty tuple.
    """
    params = positional_parameters(func)
    named = wrt_parameters(func) if keywords else params
    if isinstance(wrt, list):
        wrt = tuple(wrt)
    items = wrt if isinstance(wrt, tuple) else (wrt,)
    names = []
    for item in items:
        if isinstance(item, bool | np.bool_) or not isinstance(item, int | np.integer | str):
            raise SrcadError(f"wrt takes ints and parameter names, not {item!r}")
        if isinstance(item, np.integer):
            item = int(item)
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                raise SrcadError(
                    f"wrt={item} is out of range: {name_of(func)} has {len(params)} "
                    f"positional parameters {tuple(params)}"
                )
            names.append(params[item])
        elif item in named:
            names.append(item)
        elif item in wrt_parameters(func):
            raise SrcadError(
                f"wrt={item!r} is a keyword-only parameter of {name_of(func)}: grad and "
                "value_and_grad differentiate with respect to one; here, make it positional"
            )
        else:
            also = " (nor a keyword-only one)" if len(named) > len(params) else ""
            raise SrcadError(
                f"wrt={item!r} names no positional parameter of {name_of(func)}{also}: "
                f"choose from {tuple(named)}"
            )
    if len(set(names)) != len(names):
        raise SrcadError(f"wrt={wrt!r} names a parameter twice")
    return tuple(names), isinstance(wrt, tuple)


def checked_mode(mode: Any) -> Mode:
    """The mode a user names: "reverse" or "forward"."""
    if not isinstance(mode, str) or mode not in ("reverse", "forward"):
        raise SrcadError(f"mode={mode!r:.60}: choose 'reverse' or 'forward'")
    return Mode(mode)


# -- integers --------------------------------------------------------------------------------


def perturbable(primal: Any) -> bool:
    """Whether a value has a derivative to take: not an int, bool, string or None."""
    if isinstance(primal, bool | int | str | bytes) or primal is None:
        return False
    if isinstance(primal, np.ndarray | np.generic):
        return primal.dtype.kind in "fc"
    return True


WRT_REMEDY = "pass a float (or a float array), or leave it out of wrt"
TANGENT_REMEDY = "pass a float (or a float array), or give it a zero tangent (NoTangent())"


def refuse_unperturbable(func: Any, position: int, primal: Any, remedy: str = WRT_REMEDY) -> None:
    """Raise the error every entry point gives for a derivative with respect to an
    argument that cannot be perturbed (an int, a bool, an integer array...)."""
    params = wrt_parameters(func)
    name = f"`{params[position]}`" if position < len(params) else f"argument {position}"
    what = f"{primal.dtype} array" if isinstance(primal, np.ndarray) else type(primal).__name__
    article = "an" if what[0] in "aeiou" else "a"
    raise SrcadError(
        f"cannot differentiate {name_of(func)} with respect to {name}: it is {article} {what}, "
        f"which cannot be perturbed; {remedy}"
    )


def check_perturbable(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                       positions: Any) -> None:  # fmt: skip
    """Refuse a derivative with respect to an argument at `positions` that cannot be
    perturbed."""
    for position in positions:
        primal = argument_at(args, kwargs, func, position)
        if not perturbable(primal):
            refuse_unperturbable(func, position, primal)


def check_tangents(f: Any, dargs: tuple[Any, ...], args: tuple[Any, ...]) -> None:
    """Refuse a nonzero number (or array) as the tangent of an argument that cannot be
    perturbed: it would be ignored, or (read as the tangent of a float) give a derivative
    srcad does not compute."""
    for position, (dot, primal) in enumerate(zip(dargs[1:], args, strict=False)):
        if isinstance(dot, AbstractZero) or perturbable(primal):
            continue
        dot = unthunk(dot)  # a thunk for an int: cheap, and its value is needed to judge
        if isinstance(dot, int | float | complex | np.ndarray | np.generic) and np.any(dot):
            refuse_unperturbable(f, position, primal, TANGENT_REMEDY)


def differentiated_parameters(
    func: Callable[..., Any], args: tuple[Any, ...]
) -> tuple[str, ...] | None:
    """The parameters these arguments let vary: None (every one) unless some argument
    cannot be perturbed (an int, a bool, a string). Such an argument has no derivative
    (its tangent is a zero, `check_tangents`; its cotangent NoTangent()), and neither has
    any value computed only from it: `x[slice(0, n)]` for an int `n` needs no rule for
    `slice`, in either mode (`Compiler.wrt_for`).

    Left as None for a function with `*args` or behind a wrapper, whose arguments do not
    map one to one onto the parameters of its code."""
    code = getattr(func, "__code__", None)
    if code is None or code.co_flags & inspect.CO_VARARGS or hasattr(func, "__wrapped__"):
        return None
    parameters = code.co_varnames[: code.co_argcount]
    if constructed_class(func) is not None:
        parameters = parameters[1:]  # a class's initialiser makes its `self` itself
    elif is_positional_form(func):
        parameters = keyword_parameters(func)  # keyword-only ones and `**kwargs` too
    fixed = {p for p, a in zip(parameters, args, strict=False) if not perturbable(a)}
    if not fixed:
        return None
    return tuple(p for p in parameters if p not in fixed)


def floating(derivative: Any, primal: Any) -> Any:
    """A derivative for a float argument with the argument's float type, though the code
    computed it from ints (`d(x * n)/dx` is `n`), or (for a float32 argument) in float64,
    which NumPy's promotion gives where a float64 value meets it, or (for a float32 number)
    as a Python float, or (for a float64 value, as `x32 + c64` is) in the narrower type of a
    float32 argument's tangent, which no float64 operand met on its way; for a complex
    argument, complex though the code computed it real (`np.real(z)`'s, inlined)."""
    integral = isinstance(derivative, bool | int | np.integer) or (
        isinstance(derivative, np.ndarray) and derivative.dtype.kind in "biu"
    )
    if isinstance(primal, complex | np.generic | np.ndarray) and np.iscomplexobj(primal):
        real = isinstance(derivative, float | np.floating) or (
            isinstance(derivative, np.ndarray) and derivative.dtype.kind == "f"
        )
        return ProjectTo(primal)(derivative) if integral or real else derivative
    if isinstance(primal, np.float32 | np.ndarray) and primal.dtype == np.float32:
        widened = isinstance(derivative, np.ndarray | np.generic) and derivative.dtype == np.float64
        # A Python float for a float32 number (`d(float(x))/dx`, `d(x)/dx`): a float32 too.
        python = type(derivative) is float and primal.ndim == 0
        return ProjectTo(primal)(derivative) if integral or widened or python else derivative
    inexact = isinstance(primal, float | complex | np.inexact) or (
        isinstance(primal, np.ndarray) and primal.dtype.kind in "fc"
    )
    if not inexact:
        return derivative
    if integral or _narrower(derivative, primal):
        return ProjectTo(primal)(derivative)
    return derivative


def _narrower(derivative: Any, primal: Any) -> bool:
    """Whether `derivative` is a NumPy float (or complex) value of fewer bits than the NumPy
    `primal`'s float type, of the same kind."""
    if not isinstance(primal, np.ndarray | np.generic):
        return False
    if not isinstance(derivative, np.ndarray | np.generic):
        return False
    wanted, given = primal.dtype, derivative.dtype
    return given != wanted and given.kind == wanted.kind and given.itemsize < wanted.itemsize


def argument_at(args: tuple[Any, ...], kwargs: dict[str, Any], func: Any, position: int) -> Any:
    if position < len(args):
        return args[position]
    name = wrt_parameters(func)[position]
    if name in kwargs:
        return kwargs[name]
    return inspect.signature(func).parameters[name].default


def padded(dargs: tuple[Any, ...], function: Callable[..., Any]) -> tuple[Any, ...]:
    """Tangents for every positional parameter of a compiled forward rule: zeros for the
    arguments a call leaves to their defaults (or passes by keyword, which are not
    differentiated)."""
    code = getattr(function, "__code__", None)
    if code is None:
        return dargs
    count = code.co_argcount - (constructed_class(function) is not None)  # `self`: made
    if is_positional_form(function):
        count = len(keyword_parameters(function))
    if len(dargs) > count:
        return dargs
    return (*dargs, *(ZeroTangent(),) * (count + 1 - len(dargs)))

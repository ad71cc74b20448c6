"""The Python function srcad compiles for a primitive given to it directly: one that calls it.

A primitive (a function with a rule, or one marked non-differentiable, such as `np.sin` or
`np.floor`) has no Python source. At first order its rule serves; a derivative of a
derivative is srcad's generated code differentiated again, and that needs source: the
source of `def sin(x): return primitive(x)`, whose call of `np.sin` resolves against the
rules as any call inside a function does. Its text lives in `linecache` under a name of its
own (as a notebook cell's does), so `source.function_source` reads it as any function's.
"""

from __future__ import annotations

import inspect
import keyword
import linecache
import types
from typing import Any

import numpy as np

from srcad.callables import positional_parameters
from srcad.errors import SrcadError

# One caller per primitive and text, so that its compiled code is kept (in the caller's
# `__dict__`) and used again, with its text. Keyed by `id`: the caller's globals hold the
# primitive, so the id is not reused while the entry lives (and by the parameters, which
# differ with the arguments and keywords a call passes).
_CALLERS: dict[tuple[int, tuple[str, ...], tuple[str, ...]], tuple[types.FunctionType, str]] = {}


def primitive_caller(
    primitive: Any, arity: int | None = None, keywords: tuple[str, ...] = ()
) -> types.FunctionType | None:
    """A Python function of `primitive`'s required positional parameters that returns
    `primitive` called with them; None where they cannot be read (no signature), unless
    `arity` says how many positional arguments a call passes it (`np.dot` on NumPy before
    2.1: a caller of `arity` parameters makes the same call). Given `keywords` (the names a
    call passes by keyword, `g(x, dtype=float)`), the caller takes `arity` positional
    parameters, then one for each keyword, which it passes by keyword: the same call."""
    parameters = _required_parameters(primitive)
    if keywords or (parameters is not None and arity is not None and arity != len(parameters)):
        assert arity is not None
        known = [] if parameters is None else parameters
        positional = [*known, *(f"arg{i}" for i in range(len(known), arity))][:arity]
        names = [*positional, *keywords]
        if len(set(names)) != len(names) or not all(_usable(n) for n in names):
            return None
        passed = [*positional, *(f"{k}={k}" for k in keywords)]
        return _made(primitive, tuple(names), ", ".join(passed), tuple(keywords))
    if parameters is None:
        if arity is None:
            return None
        parameters = [f"arg{position}" for position in range(arity)]
    return _made(primitive, tuple(parameters), ", ".join(parameters), ())


def _made(primitive: Any, parameters: tuple[str, ...], passed: str,
          keywords: tuple[str, ...]) -> types.FunctionType:  # fmt: skip
    """The caller of `parameters` that calls `primitive` with `passed`, made once."""
    key = (id(primitive), parameters, keywords)
    found = _CALLERS.get(key)
    if found is not None:
        made, made_text = found
        _register(made.__code__.co_filename, made_text)  # again, should `linecache` be cleared
        return made
    name = getattr(primitive, "__name__", "primitive")
    if not name.isidentifier() or keyword.iskeyword(name) or name in parameters:
        name = "primitive_call"
    text = f"def {name}({', '.join(parameters)}):\n    return primitive({passed})\n"
    shape = ", ".join(parameters)
    filename = f"<srcad caller of {_qualified(primitive)}({shape})>"
    if not keywords and len(parameters) == len(_required_parameters(primitive) or ()):
        filename = f"<srcad caller of {_qualified(primitive)}>"
    _register(filename, text)
    namespace: dict[str, Any] = {"__name__": __name__, "primitive": primitive}
    exec(compile(text, filename, "exec"), namespace)  # the text written above
    caller: types.FunctionType = namespace[name]
    caller.__qualname__ = name
    _CALLERS[key] = (caller, text)
    return caller


def is_primitive_caller(function: Any) -> bool:
    """Whether `function` is a caller `primitive_caller` made."""
    return isinstance(function, types.FunctionType) and function.__module__ == __name__


def _usable(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and name != "primitive"


def check_primitive_arguments(primitive: Any, args: tuple[Any, ...]) -> None:
    """Refuse, naming `primitive`, arguments its caller does not take (options, which it
    leaves to their defaults), rather than let the call of srcad's generated code fail."""
    caller = primitive_caller(primitive)
    if caller is None or len(args) == caller.__code__.co_argcount:
        return
    parameters = ", ".join(caller.__code__.co_varnames[: caller.__code__.co_argcount])
    name = getattr(primitive, "__name__", "the function")
    raise SrcadError(
        f"srcad differentiates {name} given directly with its arguments without a default "
        f"({parameters}) only, and was given {len(args)}; to pass other options, "
        f"differentiate a function of your own that calls it (`lambda {parameters}: "
        f"{name}({parameters}, ...)`)"
    )


def _register(filename: str, text: str) -> None:
    # A `linecache` entry without a modification time is never checked against a file
    # (`linecache.checkcache`), as an IPython cell's is not.
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)


def _required_parameters(primitive: Any) -> list[str] | None:
    """The names of `primitive`'s positional parameters without a default (a ufunc's
    inputs), in order; None where its signature cannot be read."""
    if isinstance(primitive, np.ufunc):
        try:
            signature = inspect.signature(primitive)
        except (TypeError, ValueError):  # NumPy before 2.1 gives ufuncs no signature
            return positional_parameters(primitive)  # (the names `wrt` is read with)
        return [p.name for p in list(signature.parameters.values())[: primitive.nin]]
    try:
        signature = inspect.signature(primitive)
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [
        p.name
        for p in signature.parameters.values()
        if p.kind in positional and p.default is inspect.Parameter.empty
    ]
    if not all(_usable(n) for n in names):
        return None
    return names


def _qualified(primitive: Any) -> str:
    module = getattr(primitive, "__module__", None) or type(primitive).__module__
    return f"{module}.{getattr(primitive, '__qualname__', type(primitive).__qualname__)}"

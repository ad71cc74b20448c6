"""Differentiated values passed by keyword where a rule takes none: to a Python function's
keyword-only parameters (`g(x, scale=s)` for `def g(x, *, scale)`), into its `**kwargs`
(`g(x, s=v)` for `def g(x, **kw)`), or forwarded with `**` (`g(x, **kw)`).

The normal form calls `keyword_call(g, layout, names, *parts)` for such a call
(`passes/transforms/to_anf.py`), whose rules (`rules/keywords.py`) bind the arguments to
`g`'s parameters as Python does, and differentiate `g`'s *positional form*
(`positional_form`): a copy of `g` marked so that srcad compiles it with every parameter
positional, its keyword-only ones and its `**kwargs` dict among them, each with its own
cotangent and tangent. Then each keyword's derivative is its parameter's, or its entry's in
the `**kwargs` dict's."""

from __future__ import annotations

import inspect
import types
import weakref
from typing import Any

_FORMS: weakref.WeakKeyDictionary[types.FunctionType, tuple[Any, types.FunctionType]] = (
    weakref.WeakKeyDictionary()
)
_POSITIONAL = "__srcad_positional_form__"  # the marker a positional form carries


def keyword_call(function: Any, layout: str, names: tuple[str | None, ...], *parts: Any) -> Any:
    """The primal of `function(a, *rest, k=v, **options)`: `layout` says, for each
    positional part, whether it is one argument (`.`) or a sequence to unpack (`*`); the
    parts after those are the keyword arguments, named by `names` (None: a dict unpacked
    with `**`)."""
    positional, keywords = parts[: len(layout)], parts[len(layout) :]
    args: list[Any] = []
    for kind, part in zip(layout, positional, strict=True):
        if kind == "*":
            args.extend(part)
        else:
            args.append(part)
    return function(*args, **keyword_arguments(names, keywords))


def keyword_arguments(names: tuple[str | None, ...], values: tuple[Any, ...]) -> dict[str, Any]:
    """The keyword arguments a call passes, refusing one passed twice as Python does."""
    passed: dict[str, Any] = {}
    for name, value in zip(names, values, strict=True):
        for key, item in ({name: value} if name is not None else dict(value)).items():
            if key in passed:
                raise TypeError(f"got multiple values for keyword argument '{key}'")
            passed[key] = item
    return passed


def takes_keywords(function: Any) -> bool:
    """Whether `function` is a Python function whose positional form srcad can make: one
    with no `*args` (after which keyword-only parameters could not be passed by position)."""
    return isinstance(function, types.FunctionType) and not (
        function.__code__.co_flags & inspect.CO_VARARGS
    )


def positional_form(function: types.FunctionType) -> types.FunctionType:
    """`function`, copied and marked so that srcad compiles it with every parameter
    positional, in order: the positional ones, the keyword-only ones, the `**kwargs` dict
    (`parameters`). Its code is `function`'s, so its source is."""
    found = _FORMS.get(function)
    if found is not None and found[0] is function.__code__:
        return found[1]
    copy = types.FunctionType(
        function.__code__,
        function.__globals__,
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__qualname__ = function.__qualname__
    copy.__module__ = function.__module__
    setattr(copy, _POSITIONAL, True)
    _FORMS[function] = (function.__code__, copy)
    return copy


def is_positional_form(func: Any) -> bool:
    return isinstance(func, types.FunctionType) and getattr(func, _POSITIONAL, False)


def parameters(function: Any) -> tuple[str, ...]:
    """The parameters of `function`'s positional form, in order."""
    code = function.__code__
    count = code.co_argcount + code.co_kwonlyargcount
    names = code.co_varnames[:count]
    if code.co_flags & inspect.CO_VARKEYWORDS:
        names += (code.co_varnames[count],)
    return names


def bound_arguments(
    function: types.FunctionType, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[list[Any], str | None]:
    """The arguments of `function`'s positional form for a call of `function` with `args`
    and `kwargs` (defaults filled in, the `**kwargs` dict made), and the name of its
    `**kwargs` parameter (None where it has none)."""
    signature = inspect.signature(function)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    kind = inspect.Parameter.VAR_KEYWORD
    star = next((p.name for p in signature.parameters.values() if p.kind is kind), None)
    return [bound.arguments[name] for name in parameters(function)], star

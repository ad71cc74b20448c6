"""Rules for calls that pass differentiated values by keyword to a Python function's
keyword-only parameters or `**kwargs`, or forward a dict with `**` (`srcad.keywords`): the
arguments bound to the function's parameters as Python binds them, and the function's
positional form differentiated, each keyword's (co)tangent its parameter's, or its entry's
in the `**kwargs` dict's."""

from __future__ import annotations

from typing import Any

from srcad.keywords import (
    bound_arguments,
    keyword_arguments,
    keyword_call,
    parameters,
    positional_form,
)
from srcad.registry import CONFIG, RuleSet
from srcad.rules._support import cotangent_of_elements
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("keywords")

Pullback = Any


def _entry(bar: Any, key: str) -> Any:
    """The (co)tangent of the entry `key` of a dict, from the dict's."""
    bar = unthunk(bar)
    return ZeroTangent() if isinstance(bar, AbstractZero) else bar[key]


def _mapping(entries: dict[str, Any]) -> Any:
    if all(isinstance(unthunk(v), AbstractZero) for v in entries.values()):
        return ZeroTangent()
    return Tangent.of_mapping(dict, entries)


class _Binding:
    """How a call's parts reach the parameters of the function's positional form."""

    def __init__(self, function: Any, layout: str, names: tuple[str | None, ...],
                 parts: tuple[Any, ...]) -> None:  # fmt: skip
        self.layout, self.names = layout, names
        self.positional, self.keywords = parts[: len(layout)], parts[len(layout) :]
        self.args: list[Any] = []
        for kind, part in zip(layout, self.positional, strict=True):
            self.args += list(part) if kind == "*" else [part]
        passed = keyword_arguments(names, self.keywords)
        self.arguments, self.star = bound_arguments(function, tuple(self.args), passed)
        self.parameters = list(parameters(function))

    def part_bars(self, parameter_bars: list[Any]) -> list[Any]:
        """Each part's (co)tangent, from one per parameter of the positional form."""
        by_name = dict(zip(self.parameters, parameter_bars, strict=True))
        own = [by_name[p] for p in self.parameters[: len(self.args)]]

        def keyword(key: str) -> Any:
            if key in by_name and key != self.star:
                return by_name[key]
            return _entry(by_name[self.star], key) if self.star else ZeroTangent()

        bars: list[Any] = []
        start = 0
        for kind, part in zip(self.layout, self.positional, strict=True):
            if kind == "*":
                bars.append(cotangent_of_elements(part, tuple(own[start : start + len(part)])))
                start += len(part)
            else:
                bars.append(own[start])
                start += 1
        for name, value in zip(self.names, self.keywords, strict=True):
            bars.append(keyword(name) if name else _mapping({k: keyword(k) for k in value}))
        return bars

    def parameter_dots(self, part_dots: list[Any]) -> list[Any]:
        """Each parameter's tangent, from one per part (zero for a default)."""
        dots: dict[str, Any] = {}
        arguments: list[Any] = []
        for kind, part, dot in zip(self.layout, self.positional, part_dots, strict=False):
            arguments += list(elements_of(dot, len(part))) if kind == "*" else [dot]
        dots.update(zip(self.parameters, arguments, strict=False))
        extra: dict[str, Any] = {}
        keyword_dots = part_dots[len(self.layout) :]
        for name, value, dot in zip(self.names, self.keywords, keyword_dots, strict=True):
            given = {name: dot} if name else {k: _entry(dot, k) for k in value}
            for key, item in given.items():
                if key in self.parameters and key != self.star:
                    dots[key] = item
                else:
                    extra[key] = item
        if self.star is not None:
            dots[self.star] = _mapping(extra) if extra else ZeroTangent()
        return [dots.get(p, ZeroTangent()) for p in self.parameters]


@rules.rrule(keyword_call)
def keyword_call_rrule(
    function: Any, layout: str, names: tuple[str | None, ...], *parts: Any
) -> tuple[Any, Pullback]:
    binding = _Binding(function, layout, names, parts)
    y, pullback = CONFIG.rrule_via_ad(positional_form(function), *binding.arguments)

    def keyword_call_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars = list(pullback(y_bar)[1 : 1 + len(binding.parameters)])
        return (NoTangent(), NoTangent(), NoTangent(), NoTangent(), *binding.part_bars(bars))

    return y, keyword_call_pullback


@rules.frule(keyword_call)
def keyword_call_frule(
    dargs: tuple[Any, ...], function: Any, layout: str, names: tuple[str | None, ...],
    *parts: Any,
) -> tuple[Any, Any]:  # fmt: skip
    binding = _Binding(function, layout, names, parts)
    dots = binding.parameter_dots([unthunk(d) for d in dargs[4:]])
    return CONFIG.frule_via_ad((NoTangent(), *dots), positional_form(function), *binding.arguments)

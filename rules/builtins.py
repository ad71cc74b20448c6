"""Rules for Python's numeric builtins: `abs`, `pow`, `float`, `min` and `max`."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.projection import ProjectTo
from srcad.registry import RuleSet, named
from srcad.rules.containers import _cotangent_of_elements
from srcad.rules.operators import pow_rrule
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("builtins")

Pullback = Any

rules.rrule(pow)(pow_rrule)  # two-argument pow is `**`


@rules.rrule(abs)
def abs_rrule(x: Any) -> tuple[Any, Pullback]:
    """`abs(x)`: the cotangent is scaled by x / |x| (the sign, for real x; 0 at 0)."""
    y = abs(x)
    project_x = ProjectTo(x)

    def abs_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        y_bar = unthunk(y_bar)
        if np.iscomplexobj(x):
            direction = np.divide(x, y, out=np.zeros_like(np.asarray(x)), where=np.asarray(y) != 0)
            return NoTangent(), project_x(y_bar * direction)
        return NoTangent(), project_x(y_bar * np.sign(x))

    return y, abs_pullback


@rules.rrule(float)
def float_rrule(x: Any) -> tuple[float, Pullback]:
    """`float(x)` of a number, a NumPy scalar or a one-element array."""
    y = float(x)
    project_x = ProjectTo(x)
    shape = np.shape(x)

    def float_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.reshape(np.asarray(unthunk(y_bar)), shape))

    return y, float_pullback


def _extremum_rrule(
    choose: Callable[..., Any], better: Callable[[Any, Any], bool], name: str
) -> Callable[..., tuple[Any, Pullback]]:
    """`max`/`min` of several arguments or of one iterable: the cotangent goes to the item
    the builtin returned (the first of equal ones, as the builtin picks it)."""

    def extremum_rrule(*args: Any, key: Any = None, **kwargs: Any) -> tuple[Any, Pullback]:
        y = choose(*args, key=key, **kwargs) if key is not None else choose(*args, **kwargs)
        single = len(args) == 1
        items = list(args[0]) if single else list(args)
        rank = key or (lambda v: v)
        chosen = 0
        for index in range(1, len(items)):
            if better(rank(items[index]), rank(items[chosen])):
                chosen = index
        projections = [ProjectTo(item) for item in items]

        def extremum_pullback(y_bar: Any) -> tuple[Any, ...]:
            bars: list[Any] = [ZeroTangent()] * len(items)
            if not isinstance(y_bar, AbstractZero):
                bars[chosen] = projections[chosen](unthunk(y_bar))
            if single:
                return NoTangent(), _cotangent_of_elements(args[0], tuple(bars))
            return (NoTangent(), *bars)

        return y, named(extremum_pullback, f"{name}_pullback")

    return named(extremum_rrule, f"{name}_rrule")


max_rrule = rules.rrule(max)(_extremum_rrule(max, operator.gt, "max"))
min_rrule = rules.rrule(min)(_extremum_rrule(min, operator.lt, "min"))

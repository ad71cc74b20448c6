"""Rules for Python's numeric builtins: `abs`, `pow`, `float`, `min` and `max`; and `sorted` and
`reversed`, which move items without changing them."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from srcad.kinds import EXTREMUM, FLOAT_OF_FLOAT, MAGNITUDE, Kind
from srcad.partials import direction, reciprocal_or_zero, sign
from srcad.projection import ProjectTo
from srcad.registry import Inline, Linearity, RuleSet, named
from srcad.rules._support import (
    chosen_cotangent,
    cotangent_of_elements,
    of_float_list,
    reusable,
)
from srcad.rules.operators import _operand_checked, pow_frule, pow_rrule
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("builtins")

Pullback = Any

rules.rrule(pow)(pow_rrule)  # two-argument pow is `**`
rules.frule(pow)(pow_frule)


def _direction(x: Any, y: Any) -> Any:
    """x / |x| for `y = abs(x)`: the sign, for real x; 0 at 0."""
    if np.iscomplexobj(x):
        return np.divide(x, y, out=np.zeros_like(np.asarray(x)), where=np.asarray(y) != 0)
    return np.sign(x)


@rules.rrule(abs)
def abs_rrule(x: Any) -> tuple[Any, Pullback]:
    """`abs(x)`: the cotangent is scaled by x / |x| (the sign, for real x; 0 at 0)."""
    _operand_checked(x, "abs")  # (a class's own `__abs__` may compute otherwise)
    y = abs(x)
    project_x = ProjectTo(x)

    def abs_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(unthunk(y_bar) * _direction(x, y))

    return y, abs_pullback


@rules.frule(abs)
def abs_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    """`abs(x)`: the tangent's component along x / |x| (its real part, for complex x)."""
    _operand_checked(x, "abs")
    y = abs(x)
    x_dot = unthunk(dargs[1])
    if isinstance(x_dot, AbstractZero):
        return y, ZeroTangent()
    y_dot = np.real(np.conj(_direction(x, y)) * x_dot)
    return y, float(y_dot) if type(y) is float else y_dot


@rules.rrule(float)
def float_rrule(x: Any) -> tuple[float, Pullback]:
    """`float(x)` of a number, a NumPy scalar or a one-element array."""
    _operand_checked(x, "float")  # (a class's own `__float__` may compute otherwise)
    y = float(x)
    project_x = ProjectTo(x)
    shape = np.shape(x)

    def float_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.reshape(np.asarray(unthunk(y_bar)), shape))

    return y, float_pullback


@rules.frule(float)
def float_frule(dargs: tuple[Any, ...], x: Any) -> tuple[float, Any]:
    _operand_checked(x, "float")
    x_dot = unthunk(dargs[1])
    if isinstance(x_dot, AbstractZero):
        return float(x), ZeroTangent()
    return float(x), float(np.reshape(x_dot, ()))


def _chosen(items: list[Any], key: Any, better: Callable[[Any, Any], bool]) -> int:
    """The position of the item `max` (`better` is `>`) or `min` returns: the first of
    equal ones."""
    rank = key or (lambda v: v)
    chosen = 0
    for index in range(1, len(items)):
        if better(rank(items[index]), rank(items[chosen])):
            chosen = index
    return chosen


def _extremum_rrule(
    choose: Callable[..., Any], better: Callable[[Any, Any], bool], name: str
) -> Callable[..., tuple[Any, Pullback]]:
    """`max`/`min` of several arguments or of one iterable: the cotangent goes to the item
    the builtin returned (the first of equal ones, as the builtin picks it)."""

    def extremum_rrule(*args: Any, key: Any = None, **kwargs: Any) -> tuple[Any, Pullback]:
        y = choose(*args, key=key, **kwargs) if key is not None else choose(*args, **kwargs)
        single = len(args) == 1
        items = list(args[0]) if single else list(args)
        chosen = _chosen(items, key, better)
        projections = [ProjectTo(item) for item in items]

        def extremum_pullback(y_bar: Any) -> tuple[Any, ...]:
            bars: list[Any] = [ZeroTangent()] * len(items)
            if not isinstance(y_bar, AbstractZero):
                bars[chosen] = projections[chosen](unthunk(y_bar))
            if single:
                return NoTangent(), cotangent_of_elements(args[0], tuple(bars))
            return (NoTangent(), *bars)

        return y, extremum_pullback

    return named(extremum_rrule, f"{name}_rrule", extremum_pullback=f"{name}_pullback")


max_rrule = rules.rrule(max)(_extremum_rrule(max, operator.gt, "max"))
min_rrule = rules.rrule(min)(_extremum_rrule(min, operator.lt, "min"))


def _extremum_frule(
    choose: Callable[..., Any], better: Callable[[Any, Any], bool], name: str
) -> Callable[..., tuple[Any, Any]]:
    """`max`/`min` of several arguments or of one iterable: the tangent of the item the
    builtin returned (a `default=` returned for an empty iterable has none)."""

    def extremum_frule(
        dargs: tuple[Any, ...], *args: Any, key: Any = None, **kwargs: Any
    ) -> tuple[Any, Any]:
        y = choose(*args, key=key, **kwargs) if key is not None else choose(*args, **kwargs)
        single = len(args) == 1
        items = list(args[0]) if single else list(args)
        if not items:
            return y, ZeroTangent()
        dots = elements_of(unthunk(dargs[1]), len(items)) if single else dargs[1:]
        dot = unthunk(dots[_chosen(items, key, better)])
        return y, ZeroTangent() if isinstance(dot, AbstractZero) else dot

    return named(extremum_frule, f"{name}_frule")


max_frule = rules.frule(max)(_extremum_frule(max, operator.gt, "max"))
min_frule = rules.frule(min)(_extremum_frule(min, operator.lt, "min"))


# -- sorted and reversed: items moved, cotangents moved back -----------------------------


def _sorted_order(items: list[Any], options: dict[str, Any]) -> list[int]:
    """The positions of `items` in the order `sorted(items, **options)` gives them: Python's
    sort makes the same comparisons of the same keys, so ties keep the same order."""
    key = options.get("key")
    ranked = items.__getitem__ if key is None else (lambda i: key(items[i]))
    return sorted(range(len(items)), key=ranked, reverse=bool(options.get("reverse", False)))


@rules.rrule(sorted)
def sorted_rrule(values: Any, **options: Any) -> tuple[list[Any], Pullback]:
    """`sorted(values, key=..., reverse=...)`: each item's cotangent goes back to the place
    it came from (the key only orders them: it is not differentiated)."""
    items = list(values)
    order = _sorted_order(items, options)
    count = len(items)

    def sorted_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        bars: list[Any] = [ZeroTangent()] * count
        for position, bar in zip(order, elements_of(unthunk(y_bar), count), strict=True):
            bars[position] = bar
        return NoTangent(), cotangent_of_elements(values, tuple(bars))

    return [items[i] for i in order], sorted_pullback


@rules.frule(sorted)
def sorted_frule(dargs: tuple[Any, ...], values: Any, **options: Any) -> tuple[list[Any], Any]:
    items = list(values)
    order = _sorted_order(items, options)
    dot = unthunk(dargs[1])
    y = [items[i] for i in order]
    if isinstance(dot, AbstractZero):
        return y, ZeroTangent()
    dots = elements_of(dot, len(items))
    return y, [unthunk(dots[i]) for i in order]


@rules.rrule(reversed)
def reversed_rrule(values: Any) -> tuple[Any, Pullback]:
    """`reversed(values)`, a sequence's items last first, as the list a consumer walks (as
    `map` and `zip` give theirs): a one-shot iterator would be empty the second time a
    rule reads it (`sum`'s pullback, `max`'s choice), so `sum(reversed(x))` had a gradient
    of 0. Its cotangent, one per item, turned round."""
    count = len(values)

    def reversed_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        bars = elements_of(unthunk(y_bar), count)
        return NoTangent(), cotangent_of_elements(values, tuple(bars[::-1]))

    return list(reversed(values)), reversed_pullback


@rules.frule(reversed)
def reversed_frule(dargs: tuple[Any, ...], values: Any) -> tuple[Any, Any]:
    """`reversed_rrule`'s list, and its tangent: the items' tangents turned round."""
    dot = unthunk(dargs[1])
    if isinstance(dot, AbstractZero):
        return list(reversed(values)), ZeroTangent()
    return list(reversed(values)), [unthunk(d) for d in elements_of(dot, len(values))[::-1]]


def _moving_frule_rrule(frule: Any, rrule: Any) -> Any:
    """The reverse rule of the forward rule of a function that moves items (`sorted`,
    `reversed`): the tangent moves as the value does, so both pull back through `rrule`."""

    def moving_frule_rrule(dargs: tuple[Any, ...], values: Any, **options: Any) -> Any:
        values = reusable(values)  # read twice, below
        y, y_dot = frule(dargs, values, **options)
        _, pullback = rrule(values, **options)

        def moving_frule_pullback(bars: Any) -> tuple[Any, ...]:
            y_bar, y_dot_bar = elements_of(bars, 2)
            _, values_bar = pullback(y_bar)
            _, dot_bar = pullback(y_dot_bar)
            return NoTangent(), Tangent(tuple, NoTangent(), dot_bar), values_bar

        return (y, y_dot), moving_frule_pullback

    return named(
        moving_frule_rrule,
        f"{frule.__name__}_rrule",
        moving_frule_pullback=f"{frule.__name__}_pullback",
    )


rules.rrule(sorted_frule)(_moving_frule_rrule(sorted_frule, sorted_rrule))
rules.rrule(reversed_frule)(_moving_frule_rrule(reversed_frule, reversed_rrule))


def abs_definition(x: Any) -> Any:
    """`abs(x)` as `np.hypot` of its real and imaginary parts, smooth but at 0: what a
    complex `x`'s second derivatives come from (`second_order._piecewise_linear`)."""
    return np.hypot(np.real(x), np.imag(x))


# The kinds of their results (their rules are above), for specialised code.
# |x| of a real number: its slope is sign(x), 0 at the kink, as `abs`'s rules give; piecewise
# linear, and so is the item `min` and `max` choose (for second derivatives). Of a complex
# number, its second derivatives are its definition's.
rules.primitive(
    abs,
    result=MAGNITUDE,
    inline=Inline(
        "y_bar * sign(a)",
        sign=sign,
        complex=("y_bar * direction(a, y)",),
        complex_tangents=("real_part(conj(direction(a, y)) * y_bar)",),
        direction=direction,
    ),
    linearity=Linearity.PIECEWISE_LINEAR,
    definition=abs_definition,
)
# `z / r` (0 where `r` is), the slope of `abs` of a complex `z` that its inline tangent
# calls, with `r = abs(z)` (a real operand): holomorphic in `z`, for second derivatives.
rules.primitive(
    direction,
    lambda z, r, y: reciprocal_or_zero(r),
    lambda z, r, y: -y * reciprocal_or_zero(r),
)
rules.primitive(reciprocal_or_zero, lambda r, y: -y * y)  # (0 at 0, as `y`)
# `float(x)` of a real number (a NumPy float64, a 0-d array: `kinds.ZERO_D`) is `x`.
rules.primitive(float, result=FLOAT_OF_FLOAT, inline=Inline("y_bar"), linearity=Linearity.LINEAR)


def _extremum_cotangents(better: str) -> Any:
    """Of two numbers, the cotangent goes to the one returned: the first of equal ones; of
    a list of floats the function made, to the element returned (`chosen_cotangent`)."""
    pair = [f"0.0 if b {better} a else y_bar", f"y_bar if b {better} a else 0.0"]
    of_list = of_float_list("chosen_cotangent(a, y, y_bar)")

    def choose(kinds: Sequence[Kind], constants: Sequence[Any]) -> list[str] | None:
        return pair if len(kinds) == 2 else of_list(kinds, constants)

    return choose


for _extremum, _better in ((min, "<"), (max, ">")):
    rules.primitive(
        _extremum,
        result=EXTREMUM,
        inline=Inline(_extremum_cotangents(_better), chosen_cotangent=chosen_cotangent),
        linearity=Linearity.PIECEWISE_LINEAR,
    )

# `sum(xs, start=s)` as `sum(xs, s)`, where `builtin_sum_rrule` (`rules/containers.py`) gives
# a differentiated start its cotangent and tangent.
rules.keywords_by_position(sum, "start")

"""Rules for the differentiable functions of Python's `math` module, on real numbers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.kinds import FLOAT_OF_FLOAT, FLOAT_OF_TWO_NUMBERS
from srcad.partials import log_base, power_slope, quotient, reciprocal, sign, strong_product
from srcad.projection import ProjectTo
from srcad.registry import Inline, RuleSet
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("math")

Pullback = Any

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _sign(x: float) -> float:
    """The derivative of |x|: its sign, taken as 0 at the kink x == 0, as a Python float
    (`sign`, flat, takes NumPy floats too: the booleans of a float64's comparisons do not
    subtract)."""
    return float(sign(x))


def _primitive(function: Any, *partials: Any) -> None:
    """`function` of numbers, with its rules built from its `partials` (each taking the
    arguments and then the result), its result a Python float, and its derivative inlined
    as each partial times the cotangent: `strong_product(log10_partial(x, y), y_bar)`."""
    name = function.__name__
    names = [f"{name}_partial"] if len(partials) == 1 else [
        f"{name}_partial_{i}" for i in range(len(partials))
    ]  # fmt: skip
    arguments = ", ".join(("a", "b")[: len(partials)])
    texts = [f"strong_product({n}({arguments}, y), y_bar)" for n in names]
    functions = dict(zip(names, partials, strict=True))
    inline = Inline(*texts, strong_product=strong_product, **functions)
    result = FLOAT_OF_FLOAT if len(partials) == 1 else FLOAT_OF_TWO_NUMBERS
    rules.primitive(function, *partials, result=result, inline=inline)


def _hypot_partial(a: float, y: float) -> float:
    """d hypot(a, b) / da = a / hypot(a, b), taken as 0 at the origin (a subgradient)."""
    return a / y if y else 0.0


rules.primitive(
    math.sin,
    lambda x, y: math.cos(x),
    result=FLOAT_OF_FLOAT,
    inline=Inline("y_bar * cos(a)", cos=math.cos),
)
rules.primitive(
    math.cos,
    lambda x, y: -math.sin(x),
    result=FLOAT_OF_FLOAT,
    inline=Inline("-y_bar * sin(a)", sin=math.sin),
)
rules.primitive(
    math.tan,
    lambda x, y: 1.0 + y * y,
    result=FLOAT_OF_FLOAT,
    inline=Inline("y_bar * (1.0 + y * y)"),
)
# At the ends of their domains (asin at 1, sqrt at 0, ...) the partials are infinite, where
# Python's float division would raise: see `srcad.partials`.
_primitive(math.asin, lambda x, y: reciprocal(math.sqrt(1.0 - x * x)))
_primitive(math.acos, lambda x, y: -reciprocal(math.sqrt(1.0 - x * x)))
rules.primitive(
    math.atan,
    lambda x, y: 1.0 / (1.0 + x * x),
    result=FLOAT_OF_FLOAT,
    inline=Inline("y_bar / (1.0 + a * a)"),
)
rules.primitive(
    math.sinh,
    lambda x, y: math.cosh(x),
    result=FLOAT_OF_FLOAT,
    inline=Inline("y_bar * cosh(a)", cosh=math.cosh),
)
rules.primitive(
    math.cosh,
    lambda x, y: math.sinh(x),
    result=FLOAT_OF_FLOAT,
    inline=Inline("y_bar * sinh(a)", sinh=math.sinh),
)
rules.primitive(
    math.tanh,
    lambda x, y: 1.0 - y * y,
    result=FLOAT_OF_FLOAT,
    inline=Inline("y_bar * (1.0 - y * y)"),
)
_primitive(math.asinh, lambda x, y: 1.0 / math.sqrt(x * x + 1.0))
_primitive(math.acosh, lambda x, y: reciprocal(math.sqrt(x * x - 1.0)))
_primitive(math.atanh, lambda x, y: 1.0 / (1.0 - x * x))
rules.primitive(math.exp, lambda x, y: y, result=FLOAT_OF_FLOAT, inline=Inline("y_bar * y"))
rules.primitive(
    math.expm1, lambda x, y: y + 1.0, result=FLOAT_OF_FLOAT, inline=Inline("y_bar * (y + 1.0)")
)
_primitive(math.log2, lambda x, y: 1.0 / (x * _LN2))
_primitive(math.log10, lambda x, y: 1.0 / (x * _LN10))
rules.primitive(
    math.log1p,
    lambda x, y: 1.0 / (1.0 + x),
    result=FLOAT_OF_FLOAT,
    inline=Inline("y_bar / (1.0 + a)"),
)
rules.primitive(
    math.sqrt,
    lambda x, y: 0.5 * reciprocal(y),
    result=FLOAT_OF_FLOAT,
    inline=Inline(
        "strong_product(0.5 * reciprocal(y), y_bar)",
        strong_product=strong_product,
        reciprocal=reciprocal,
    ),
)
_primitive(math.fabs, lambda x, y: _sign(x))
_primitive(math.erf, lambda x, y: _TWO_OVER_SQRT_PI * math.exp(-x * x))
_primitive(math.erfc, lambda x, y: -_TWO_OVER_SQRT_PI * math.exp(-x * x))
_primitive(math.degrees, lambda x, y: 180.0 / math.pi)
_primitive(math.radians, lambda x, y: math.pi / 180.0)
# At the origin atan2 is 0 and its partials 0 / 0: NaN, as NumPy's `arctan2` has them.
_primitive(
    math.atan2,
    lambda a, b, y: quotient(b, a * a + b * b),
    lambda a, b, y: -quotient(a, a * a + b * b),
)


@rules.rrule(math.hypot)
def hypot_rrule(*coordinates: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `math.hypot` of any number of coordinates: each one's partial is
    itself over the result (0 at the origin, a subgradient)."""
    y = math.hypot(*coordinates)
    projections = [ProjectTo(c) for c in coordinates]

    def hypot_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), *(y_bar for _ in coordinates))
        bars = [
            project(_hypot_partial(c, y) * y_bar)
            for project, c in zip(projections, coordinates, strict=True)
        ]
        return (NoTangent(), *bars)

    return y, hypot_pullback


@rules.frule(math.hypot)
def hypot_frule(dargs: tuple[Any, ...], *coordinates: Any) -> tuple[Any, Any]:
    """`math.hypot`, forward: the same partials as `hypot_rrule`."""
    y = math.hypot(*coordinates)
    y_dot: Any = ZeroTangent()
    for c, dot in zip(coordinates, dargs[1:], strict=True):
        dot = unthunk(dot)
        if not isinstance(dot, AbstractZero):
            y_dot = y_dot + _hypot_partial(c, y) * dot
    return y, y_dot


# Of two coordinates, a float, and inlined (of others, the rules above).
rules.primitive(
    math.hypot,
    result=FLOAT_OF_TWO_NUMBERS,
    inline=Inline(
        "y_bar * hypot_partial(a, y)", "y_bar * hypot_partial(b, y)", hypot_partial=_hypot_partial
    ),
)


@rules.rrule(math.log)
def log_rrule(x: Any, *base: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `math.log(x)` and `math.log(x, base)`.

    `log(x, b) = ln x / ln b`, so `d/dx = 1 / (x ln b)` and `d/db = -log(x, b) / (b ln b)`;
    an integer base (`math.log(x, 2)`) is a constant and gets `NoTangent()`, as integer
    exponents do in `pow`.
    """
    y = math.log(x, *base)
    project_x = ProjectTo(x)
    project_base = [ProjectTo(b) for b in base]
    constant_base = [isinstance(b, int | np.integer) for b in base]
    ln_base = math.log(base[0]) if base else 1.0

    def log_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *(NoTangent() if c else y_bar for c in constant_base))
        x_bar = project_x(y_bar / (x * ln_base))
        base_bars = [
            NoTangent() if constant else project(-y_bar * y / (b * ln_base))
            for project, b, constant in zip(project_base, base, constant_base, strict=True)
        ]
        return (NoTangent(), x_bar, *base_bars)

    return y, log_pullback


@rules.rrule(math.pow)
def pow_rrule(x: Any, p: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `math.pow(x, p)`.

    An integer exponent is a constant (`NoTangent()`): `x ** p` for negative x exists only
    at integer p, so p cannot vary there. A float exponent gets `x ** p * log(x)` for x > 0,
    0 at x == 0 (the limit for p > 0), and NaN for x < 0, where it cannot vary in the reals.
    """
    y = math.pow(x, p)
    project_x, project_p = ProjectTo(x), ProjectTo(p)
    integer_exponent = isinstance(p, int | np.integer)

    def pow_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, NoTangent() if integer_exponent else y_bar
        x_bar = project_x(strong_product(power_slope(x, p), y_bar))
        if integer_exponent:
            return NoTangent(), x_bar, NoTangent()
        return NoTangent(), x_bar, project_p(strong_product(y * log_base(x), y_bar))

    return y, pow_pullback


@rules.frule(math.log)
def log_frule(dargs: tuple[Any, ...], x: Any, *base: Any) -> tuple[Any, Any]:
    """`math.log(x)` and `math.log(x, base)`, forward: the same partials as `log_rrule`."""
    y = math.log(x, *base)
    ln_base = math.log(base[0]) if base else 1.0
    x_dot = unthunk(dargs[1])
    y_dot: Any = ZeroTangent() if isinstance(x_dot, AbstractZero) else x_dot / (x * ln_base)
    if base and not isinstance(dargs[2], AbstractZero) and not isinstance(base[0], int):
        y_dot = y_dot + unthunk(dargs[2]) * (-y / (base[0] * ln_base))
    return y, y_dot


@rules.frule(math.pow)
def pow_frule(dargs: tuple[Any, ...], x: Any, p: Any) -> tuple[Any, Any]:
    """`math.pow(x, p)`, forward: the same partials as `pow_rrule`."""
    y = math.pow(x, p)
    _, x_dot, p_dot = (unthunk(d) for d in dargs)
    y_dot: Any = ZeroTangent()
    if not isinstance(x_dot, AbstractZero):
        y_dot = strong_product(power_slope(x, p), x_dot)
    if not isinstance(p_dot, AbstractZero) and not isinstance(p, int | np.integer):
        y_dot = y_dot + strong_product(y * log_base(x), p_dot)
    return y, y_dot


# `math.log(x)` and `math.pow(x, p)`, with their rules above: a float, and inlined.
rules.primitive(math.log, result=FLOAT_OF_FLOAT, inline=Inline("y_bar / a"))
rules.primitive(
    math.pow,
    result=FLOAT_OF_TWO_NUMBERS,
    inline=Inline(
        "strong_product(power_slope(a, b), y_bar)",
        "strong_product(y * log_base(a), y_bar)",
        strong_product=strong_product,
        power_slope=power_slope,
        log_base=log_base,
    ),
)

"""Rules for the functions that split a float into parts or build one from parts: `copysign`,
`fmod`, `modf`, `frexp` and `ldexp` of `math` and NumPy, `math.remainder`, and `divmod` (the
builtin and `np.divmod`); for those of a float's representation: `nextafter` (`math`
and NumPy), `math.ulp` and `np.spacing`; and for `np.unwrap`, which adds whole periods.

Each is srcad's own rule of a plain-NumPy definition (`rules/_support.by_definition`), so its
second and higher derivatives are the definition's. The parts that are integers, or
piecewise constant (the whole part of `modf`, the quotient of `divmod`, the exponent of
`frexp`, the sign `copysign` takes from its second argument), carry no derivative; the
others are linear in the argument on each piece:

- `copysign(x, s)` is `|x|` times the sign of `s`: its slope in `x` is `sign(x)` times that
  sign, 0 at `x == 0` (the kink, as `np.abs` takes it); in `s`, 0.
- `fmod(a, b)`, `math.remainder(a, b)` and the remainder of `divmod(a, b)` are `a - q b`
  for the integer quotient `q` the function took (truncated, rounded to even, floored): their
  slopes are 1 in `a` and `-q` in `b`. `q` is read back from the result, `(a - r) / b`
  rounded to an integer, so that it is the quotient of the piece the point is in even
  where `a / b` rounds the other way (`fmod(1.0, 0.1)` takes 9, not 10). Where the result
  jumps (`a` a multiple of `b`) that is the piece the function's own result belongs to.
- `modf(x)` is `(x - trunc(x), trunc(x))`: slope 1 for the fractional part.
- `frexp(x)` is `(x * 2**-e, e)`: slope `2**-e` for the mantissa (1 at `x == 0`, where
  NumPy's exponent is 0: the mantissa jumps there, from about `+-0.5`, and has no
  derivative; the slope is that of `x * 2**-e` with the exponent held, as for the others).
- `ldexp(x, e)` is `x * 2**e`, for integer `e` (both functions refuse a float exponent).
- `nextafter(x, y)` is `x` moved one float (`steps` floats for `math.nextafter` on Python
  3.12 and later) toward `y`: `x + d`, the step `d` piecewise constant, so its slope is 1 in
  `x` and 0 in `y`, also where `x == y` (it is `y` there, and moves with `x` on either side
  of it but not with `y`). `math.ulp(x)` and `np.spacing(x)`, the distance to the next
  float, are piecewise constant: no derivative (0 between the powers of two, where they
  jump).
- `np.unwrap(p, discont, axis, period=)` is `p + k * period` for the integers `k` of whole
  periods it adds (read back from NumPy's result): slope 1 in `p`, 0 in `discont`
  (`period`, a keyword-only option, is not differentiated: E211); where a step of `p` is
  `discont` exactly (or half a period), `k` jumps, and the slope is that of the piece
  NumPy's result is in.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("float_parts")


# -- the piecewise constant parts, as non-differentiable helpers -------------------------------


def sign_of(s: Any) -> Any:
    """-1.0 where the sign bit of `s` is set (negative numbers, -0.0), 1.0 elsewhere: the
    sign `copysign` gives its result."""
    return np.where(np.signbit(s), -1.0, 1.0)


def _quotient(a: Any, b: Any, remainder: Any) -> Any:
    """The integer `q` with `remainder == a - q * b`, read back from the remainder a
    function computed: `a - remainder` is `q * b` up to rounding, far less than `b`, so
    the division rounds to `q` (where floats hold `q` exactly, below 2**53)."""
    return np.rint(np.subtract(a, remainder) / np.asarray(b, dtype=np.result_type(b, 1.0)))


def truncated_quotient(a: Any, b: Any) -> Any:
    """The quotient `np.fmod(a, b)` took, truncated toward zero."""
    return _quotient(a, b, np.fmod(a, b))


def math_truncated_quotient(a: Any, b: Any) -> Any:
    """The quotient `math.fmod(a, b)` took, truncated toward zero."""
    return float(_quotient(a, b, math.fmod(a, b)))


def nearest_quotient(a: Any, b: Any) -> Any:
    """The quotient `math.remainder(a, b)` took, rounded to the nearest integer (to even)."""
    return float(_quotient(a, b, math.remainder(a, b)))


def floored_quotient(a: Any, b: Any) -> Any:
    """The quotient `a % b` (`np.mod(a, b)`) took, floored."""
    return _quotient(a, b, np.mod(a, b))


def exponent_of(x: Any) -> Any:
    """The exponent `frexp` gives `x`, as NumPy's ints (math's Python int for a number)."""
    return np.frexp(x)[1]


def power_of_two(e: Any) -> Any:
    """`2.0 ** e` for integers `e`, exact where it is a float (`ldexp(1.0, e)`)."""
    return np.ldexp(1.0, e)


def step_toward(x: Any, y: Any) -> Any:
    """The step `np.nextafter(x, y)` takes from `x`: exact (two neighbouring floats)."""
    return np.nextafter(x, y) - x


def math_step_toward(x: Any, y: Any, steps: Any = None) -> Any:
    """The step `math.nextafter(x, y)` takes from `x` (`steps` of them, where given)."""
    keywords = {} if steps is None else {"steps": steps}  # (Python 3.12 on)
    return math.nextafter(x, y, **keywords) - x


def unwrapping_turns(p: Any, discont: Any, axis: Any, period: Any) -> Any:
    """The whole periods `np.unwrap` adds to each element of `p`: an integer array."""
    unwrapped = np.unwrap(p, discont, axis, period=period)
    return np.rint(np.subtract(unwrapped, p) / period)


rules.non_differentiable(sign_of, exponent_of, power_of_two, step_toward, math_step_toward)
rules.non_differentiable(unwrapping_turns)
rules.non_differentiable(np.spacing, math.ulp)
rules.non_differentiable(
    truncated_quotient, math_truncated_quotient, nearest_quotient, floored_quotient
)


# -- the definitions --------------------------------------------------------------------------


def numpy_copysign(x: Any, s: Any) -> Any:
    """`np.copysign(x, s)`: |x| with the sign of `s`."""
    return np.abs(x) * sign_of(s)


def math_copysign(x: Any, s: Any) -> Any:
    """`math.copysign(x, s)`: |x| with the sign of `s`."""
    return abs(x) * sign_of(s)


def numpy_fmod(a: Any, b: Any) -> Any:
    """`np.fmod(a, b)`: `a - q b`, `q` the quotient truncated toward zero."""
    return a - b * truncated_quotient(a, b)


def math_fmod(a: Any, b: Any) -> Any:
    """`math.fmod(a, b)`: `a - q b`, `q` the quotient truncated toward zero."""
    return a - b * math_truncated_quotient(a, b)


def math_remainder(a: Any, b: Any) -> Any:
    """`math.remainder(a, b)`: `a - q b`, `q` the quotient rounded to the nearest integer."""
    return a - b * nearest_quotient(a, b)


def numpy_divmod(a: Any, b: Any) -> Any:
    """`np.divmod(a, b)`: the floored quotient, and `a - q b`."""
    return np.floor_divide(a, b), a - b * floored_quotient(a, b)


def builtin_divmod(a: Any, b: Any) -> Any:
    """`divmod(a, b)`: the floored quotient, and `a - q b`."""
    return a // b, a - b * floored_quotient(a, b)


def numpy_modf(x: Any) -> Any:
    """`np.modf(x)`: the fractional part `x - trunc(x)`, and the whole part."""
    whole = np.trunc(x)
    return x - whole, whole


def math_modf(x: Any) -> Any:
    """`math.modf(x)`: the fractional part `x - trunc(x)`, and the whole part."""
    whole = float(np.trunc(x))  # (`math.trunc` raises at inf, where `math.modf` does not)
    return x - whole, whole


def numpy_frexp(x: Any) -> Any:
    """`np.frexp(x)`: the mantissa `x * 2**-e`, and the exponent `e`."""
    e = exponent_of(x)
    return x * power_of_two(-e), e


def math_frexp(x: Any) -> Any:
    """`math.frexp(x)`: the mantissa `x * 2**-e`, and the exponent `e`."""
    e = int(exponent_of(x))
    return x * power_of_two(-e), e


def numpy_nextafter(x: Any, y: Any) -> Any:
    """`np.nextafter(x, y)`: `x` plus the step toward `y`."""
    return x + step_toward(x, y)


def math_nextafter(x: Any, y: Any, *, steps: Any = None) -> Any:
    """`math.nextafter(x, y)`: `x` plus the step toward `y`."""
    return x + math_step_toward(x, y, steps)


def numpy_unwrap(p: Any, discont: Any = None, axis: Any = -1, *,
                 period: Any = 2 * np.pi) -> Any:  # fmt: skip
    """`np.unwrap`: `p` plus the whole periods NumPy adds."""
    return p + period * unwrapping_turns(p, discont, axis, period)


def numpy_ldexp(x: Any, e: Any) -> Any:
    """`np.ldexp(x, e)`: `x * 2**e`."""
    return x * power_of_two(e)


by_definition(rules, np.copysign, numpy_copysign)
by_definition(rules, math.copysign, math_copysign, "math_copysign")
by_definition(rules, np.fmod, numpy_fmod)
by_definition(rules, math.fmod, math_fmod, "math_fmod")
by_definition(rules, math.remainder, math_remainder, "math_remainder")
by_definition(rules, np.divmod, numpy_divmod)
by_definition(rules, divmod, builtin_divmod, "builtin_divmod")
by_definition(rules, np.modf, numpy_modf)
by_definition(rules, math.modf, math_modf, "math_modf")
by_definition(rules, np.frexp, numpy_frexp)
by_definition(rules, math.frexp, math_frexp, "math_frexp")
by_definition(rules, np.ldexp, numpy_ldexp)
by_definition(rules, math.ldexp, numpy_ldexp, "math_ldexp")
by_definition(rules, np.nextafter, numpy_nextafter)
by_definition(rules, math.nextafter, math_nextafter, "math_nextafter")
by_definition(rules, np.unwrap, numpy_unwrap)

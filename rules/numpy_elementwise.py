"""Rules for NumPy's elementwise ufuncs (not `np.power` or `np.matmul`: see operators.py).

Every rule comes from the ufunc's partial derivatives through `rules.scalar`, which
conjugates them (ChainRules' convention `x_bar = y_bar * conj(df/dx)`, right for holomorphic
functions of complex arrays) and projects each cotangent onto its argument, undoing
broadcasting. The two functions that are not holomorphic, `absolute` and `conjugate`, say
how they treat complex numbers below; the real-only ufuncs (`cbrt`, `arctan2`, `hypot`,
`logaddexp`, ...) reject complex inputs in NumPy itself.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.projection import ProjectTo
from srcad.registry import RuleSet
from srcad.tangents import AbstractZero, NoTangent

rules = RuleSet("numpy_elementwise")

Pullback = Any

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_DEGREES_PER_RADIAN = 180.0 / math.pi
_RADIANS_PER_DEGREE = math.pi / 180.0


def _absolute_partial(x: Any, y: Any) -> Any:
    """The derivative of |x|: sign(x) for reals, 0 at the kink x == 0.

    For complex x this returns conj(x) / |x|, so that the cotangent `scalar` forms,
    `y_bar * x / |x|`, is ChainRules' (the direction in which |x| grows fastest).
    """
    if np.iscomplexobj(x):
        x = np.asarray(x)
        return np.divide(x.conj(), y, out=np.zeros_like(x), where=np.asarray(y) != 0)
    return np.sign(x)


def _hypot_partial(a: Any, y: Any) -> Any:
    """d hypot(a, b) / da = a / hypot(a, b), taken as 0 at the origin (a subgradient)."""
    out = np.zeros(np.shape(y), dtype=np.result_type(a, y))
    return np.divide(a, y, out=out, where=np.asarray(y) != 0)


def _maximum_share(a: Any, b: Any) -> Any:
    """The share of `np.maximum`'s cotangent that goes to `a`: 1 where a > b, 0 where
    a < b, and half at a tie, so that the two arguments split it evenly (as autograd
    does; a tie is a kink, and the half-half split is the symmetric subgradient)."""
    return (np.asarray(a) > b) + 0.5 * (np.asarray(a) == b)


def _minimum_share(a: Any, b: Any) -> Any:
    """The share of `np.minimum`'s cotangent that goes to `a`; ties split as for maximum."""
    return (np.asarray(a) < b) + 0.5 * (np.asarray(a) == b)


# Unary ufuncs: each partial takes the argument, then the result.
rules.scalar(np.sin, lambda x, y: np.cos(x))
rules.scalar(np.cos, lambda x, y: -np.sin(x))
rules.scalar(np.tan, lambda x, y: 1.0 + y * y)
rules.scalar(np.arcsin, lambda x, y: 1.0 / np.sqrt(1.0 - x * x))
rules.scalar(np.arccos, lambda x, y: -1.0 / np.sqrt(1.0 - x * x))
rules.scalar(np.arctan, lambda x, y: 1.0 / (1.0 + x * x))
rules.scalar(np.sinh, lambda x, y: np.cosh(x))
rules.scalar(np.cosh, lambda x, y: np.sinh(x))
rules.scalar(np.tanh, lambda x, y: 1.0 - y * y)
rules.scalar(np.arcsinh, lambda x, y: 1.0 / np.sqrt(x * x + 1.0))
# sqrt(x - 1) * sqrt(x + 1), not sqrt(x * x - 1): the two differ for complex x with Re x < 0.
rules.scalar(np.arccosh, lambda x, y: 1.0 / (np.sqrt(x - 1.0) * np.sqrt(x + 1.0)))
rules.scalar(np.arctanh, lambda x, y: 1.0 / (1.0 - x * x))
rules.scalar(np.exp, lambda x, y: y)
rules.scalar(np.exp2, lambda x, y: y * _LN2)
rules.scalar(np.expm1, lambda x, y: y + 1.0)
rules.scalar(np.log, lambda x, y: 1.0 / x)
rules.scalar(np.log2, lambda x, y: 1.0 / (x * _LN2))
rules.scalar(np.log10, lambda x, y: 1.0 / (x * _LN10))
rules.scalar(np.log1p, lambda x, y: 1.0 / (1.0 + x))
rules.scalar(np.sqrt, lambda x, y: 0.5 / y)
rules.scalar(np.cbrt, lambda x, y: 1.0 / (3.0 * y * y))
rules.scalar(np.square, lambda x, y: 2.0 * x)
rules.scalar(np.reciprocal, lambda x, y: -y * y)
rules.scalar(np.negative, lambda x, y: -1.0)
rules.scalar(np.positive, lambda x, y: 1.0)
rules.scalar(np.absolute, _absolute_partial)  # np.abs is np.absolute
rules.scalar(np.deg2rad, lambda x, y: _RADIANS_PER_DEGREE)
rules.scalar(np.radians, lambda x, y: _RADIANS_PER_DEGREE)
rules.scalar(np.rad2deg, lambda x, y: _DEGREES_PER_RADIAN)
rules.scalar(np.degrees, lambda x, y: _DEGREES_PER_RADIAN)

# Binary ufuncs: each partial takes both arguments, then the result.
rules.scalar(np.add, lambda a, b, y: 1.0, lambda a, b, y: 1.0)
rules.scalar(np.subtract, lambda a, b, y: 1.0, lambda a, b, y: -1.0)
rules.scalar(np.multiply, lambda a, b, y: b, lambda a, b, y: a)
rules.scalar(np.divide, lambda a, b, y: 1.0 / b, lambda a, b, y: -y / b)  # also true_divide
rules.scalar(
    np.arctan2,
    lambda a, b, y: b / (a * a + b * b),
    lambda a, b, y: -a / (a * a + b * b),
)
rules.scalar(
    np.hypot,
    lambda a, b, y: _hypot_partial(a, y),
    lambda a, b, y: _hypot_partial(b, y),
)
rules.scalar(np.logaddexp, lambda a, b, y: np.exp(a - y), lambda a, b, y: np.exp(b - y))
rules.scalar(np.logaddexp2, lambda a, b, y: np.exp2(a - y), lambda a, b, y: np.exp2(b - y))
rules.scalar(
    np.maximum,
    lambda a, b, y: _maximum_share(a, b),
    lambda a, b, y: _maximum_share(b, a),
)
rules.scalar(
    np.minimum,
    lambda a, b, y: _minimum_share(a, b),
    lambda a, b, y: _minimum_share(b, a),
)


@rules.rrule(np.conjugate)
def conjugate_rrule(x: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.conjugate` (also `np.conj`); the identity on real arrays.

    Conjugation is not holomorphic, so no partial describes it: the cotangent is
    `conj(y_bar)`, since `Re <y_bar, conj(dx)> = Re <conj(y_bar), dx>`.
    """
    y = np.conjugate(x)
    project_x = ProjectTo(x)

    def conjugate_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.conjugate(y_bar))

    return y, conjugate_pullback

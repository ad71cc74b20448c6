"""Rules for the `math` module, checked against finite differences."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.rules.math import log_rrule, pow_rrule
from srcad.tangents import NoTangent, ZeroTangent
from srcad.testing import check_frule, check_rrule

# One point inside each function's domain, away from its kinks, and a second point of the
# other sign (or elsewhere in the domain) for the functions that allow it.
UNARY: list[tuple[Callable[[float], float], tuple[float, ...]]] = [
    (math.sin, (0.7, -2.1)),
    (math.cos, (0.7, -2.1)),
    (math.tan, (0.4, -1.2)),
    (math.asin, (0.3, -0.8)),
    (math.acos, (0.3, -0.8)),
    (math.atan, (0.7, -3.0)),
    (math.sinh, (0.7, -1.5)),
    (math.cosh, (0.7, -1.5)),
    (math.tanh, (0.7, -1.5)),
    (math.asinh, (0.7, -2.5)),
    (math.acosh, (1.3, 4.0)),
    (math.atanh, (0.3, -0.8)),
    (math.exp, (0.7, -1.5)),
    (math.expm1, (0.7, -1.5)),
    (math.log, (0.4, 3.5)),
    (math.log2, (0.4, 3.5)),
    (math.log10, (0.4, 3.5)),
    (math.log1p, (0.4, -0.6)),
    (math.sqrt, (0.4, 3.5)),
    (math.fabs, (0.4, -3.5)),
    (math.erf, (0.4, -1.5)),
    (math.erfc, (0.4, -1.5)),
    (math.degrees, (0.4, -1.5)),
    (math.radians, (40.0, -150.0)),
]

BINARY: list[tuple[str, Callable[[float, float], float], float, float]] = [
    ("pow", math.pow, 1.7, 2.3),
    ("pow-fractional", math.pow, 0.6, -0.5),
    ("atan2", math.atan2, 0.7, -1.3),
    ("atan2-third-quadrant", math.atan2, -0.7, -1.3),
    ("hypot", math.hypot, 0.7, -1.3),
    ("log-base", math.log, 3.5, 2.5),
    ("log-base-below-one", math.log, 0.3, 0.5),
]


@pytest.mark.parametrize(
    ("f", "x"),
    [pytest.param(f, x, id=f"{f.__name__}({x})") for f, xs in UNARY for x in xs],
)
def test_unary_rule_matches_finite_differences(f: Callable[[float], float], x: float) -> None:
    check_rrule(f, x)


@pytest.mark.parametrize(
    ("f", "a", "b"),
    [pytest.param(f, a, b, id=name) for name, f, a, b in BINARY],
)
def test_binary_rule_matches_finite_differences(
    f: Callable[[float, float], float], a: float, b: float
) -> None:
    check_rrule(f, a, b)


@pytest.mark.parametrize(
    ("f", "x"),
    [
        pytest.param(math.fabs, 0.0, id="fabs-at-kink"),
        pytest.param(math.sin, np.float64(0.7), id="sin-numpy-scalar"),
        pytest.param(math.exp, np.float32(0.7), id="exp-float32-scalar"),
    ],
)
def test_rule_at_edges_matches_finite_differences(f: Callable[[float], float], x: Any) -> None:
    # Central differences of |x| at 0 give 0, the subgradient the rule picks.
    check_rrule(f, x, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(math.hypot, 0.0, 0.0, id="hypot-at-origin"),
    ],
)
def test_binary_rule_at_edges_matches_finite_differences(
    f: Callable[[float, float], float], a: float, b: float
) -> None:
    check_rrule(f, a, b, atol=1e-6)


@pytest.mark.parametrize(
    ("rule", "x", "constant"),
    [
        pytest.param(pow_rrule, -1.5, 3, id="pow-integer-exponent"),
        pytest.param(log_rrule, 3.5, 2, id="log-integer-base"),
    ],
)
def test_integer_constant_gets_no_tangent(
    rule: Callable[..., Any], x: float, constant: int
) -> None:
    _, pullback = rule(x, constant)
    assert pullback(1.0)[2] is NoTangent()
    check_rrule(math.pow if rule is pow_rrule else math.log, x, constant)


def test_zero_cotangent_stays_symbolic() -> None:
    _, pullback = log_rrule(2.0, 3.0)
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), ZeroTangent())


FORWARD = [
    ("log", math.log, (1.7,)),
    ("log_base_float", math.log, (1.7, 3.5)),
    ("log_base_int", math.log, (1.7, 2)),
    ("pow_float", math.pow, (1.7, 2.5)),
    ("pow_int", math.pow, (-1.7, 3)),
    ("sin", math.sin, (0.4,)),
    ("atan2", math.atan2, (0.4, -1.2)),
]


@pytest.mark.parametrize(
    ("function", "args"), [c[1:] for c in FORWARD], ids=[c[0] for c in FORWARD]
)
def test_forward_rule_matches_finite_differences(function, args):
    check_frule(function, *args)


def test_every_rule_has_a_forward_rule():
    from srcad.rules import math as math_rules

    assert set(math_rules.rules.rrules) <= set(math_rules.rules.frules)

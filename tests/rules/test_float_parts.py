"""Rules for `copysign`, `fmod`, `modf`, `frexp`, `ldexp`, `math.remainder`, `divmod`,
`nextafter`, `math.ulp` and `np.spacing` (`rules/float_parts.py`, issue 20), checked against
finite differences: each rule alone in both modes away from its kinks, then through the
public API (second order too), then the points where a float quotient rounds across an
integer (the slope is the quotient of the piece the result is in, checked against exact
rational arithmetic) and the kinks themselves (the convention `np.abs` has: 0 at
`copysign(0.0, s)`; `nextafter(x, y)` at `x == y`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule
from tests.conftest import close, difference
from tests.rules.through_the_api import check_through_api

A = np.array([0.7, -1.9, 2.45, -0.35, 3.35])
B = np.array([0.3, 0.6, -0.7, 0.25, -1.1])


@pytest.mark.parametrize(
    ("f", "args"),
    [
        (np.copysign, (A, B)),
        (np.copysign, (A, 0.5)),
        (np.fmod, (A, B)),
        (np.fmod, (A, 0.45)),
        (np.divmod, (A, B)),
        (np.modf, (A,)),
        (np.frexp, (A,)),
        (np.ldexp, (A, np.array([3, -2, 0, 1, 5]))),
        (math.copysign, (0.7, -0.2)),
        (math.fmod, (-1.9, 0.6)),
        (math.remainder, (2.5, 0.7)),
        (math.remainder, (-3.2, 0.6)),
        (divmod, (2.45, -0.7)),
        (math.modf, (-1.9,)),
        (math.frexp, (2.45,)),
        (math.ldexp, (-1.9, 3)),
        (np.nextafter, (A, B)),
        (np.nextafter, (A, 10.0)),
        (math.nextafter, (0.7, -0.2)),
        (math.nextafter, (-1.9, 40.0)),
        (np.unwrap, (np.array([0.1, 3.5, 7.2, 1.0, -4.4, 2.0]),)),
        (np.unwrap, (np.array([[0.1, 3.5, 7.2], [1.0, -4.4, 2.0]]), 2.0, 0)),
        (np.unwrap, ((np.array([0.5, 4.1, 9.5, 1.2]),), {"period": 4.0})),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_rules_match_finite_differences(f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    arguments, keywords = (args[0], args[1]) if isinstance(args[-1], dict) else (args, {})
    check_rrule(f, *arguments, **keywords)
    check_frule(f, *arguments, **keywords, seed=3)


def numpy_loss(x: np.ndarray) -> Any:
    a, b = x[:5], x[5:]
    fraction, whole = np.modf(3.0 * a)
    mantissa, exponent = np.frexp(a * b)
    quotient, rest = np.divmod(a * a, b)
    total = np.sum(np.copysign(a * a, b) * b) + np.sum(np.fmod(a * b, b * b + 0.3) ** 2)
    total = total + np.sum(fraction * whole * a) + np.sum(mantissa**2 * exponent)
    return total + np.sum(quotient * rest**2) + np.sum(np.ldexp(a * b, exponent))


def representation_loss(x: np.ndarray) -> Any:
    """`nextafter` moves with its first argument; `ulp` and `spacing` are flat (the points
    are away from the powers of two where they jump)."""
    a, b = x[:3], x[3:]
    after = np.nextafter(a * b, b) + np.nextafter(a, a) * math.nextafter(b[0] * b[1], a[0])
    flat = np.spacing(a * b) * 1e12 + math.ulp(a[1] * a[2]) * 1e12
    return np.sum(after**2 * b) + np.sum(flat * a)


@pytest.mark.parametrize(
    "x", [np.array([0.7, -1.3, 2.2, 0.45, 1.7, -0.9]), np.array([3.3, 0.2, -0.6, -2.1, 0.35, 1.1])]
)
def test_float_representation_through_the_api(x: np.ndarray) -> None:
    check_through_api(representation_loss, x)


@pytest.mark.parametrize("f", [np.nextafter, math.nextafter], ids=lambda f: f.__name__)
@pytest.mark.parametrize("y", [0.7, 5.0, -math.inf], ids=["equal", "above", "toward-inf"])
def test_nextafter_moves_with_its_first_argument(f: Callable[..., Any], y: float) -> None:
    """Slope 1 in `x`, 0 in `y`, also at `x == y` (where the value is `y`: moving `x`
    alone moves the result with it, moving `y` alone leaves it one float from `x`)."""
    gradient = srcad.grad(lambda x, y: f(x, y) * 3.0, wrt=(0, 1))(0.7, y)
    np.testing.assert_array_equal(np.asarray(gradient, dtype=float), [3.0, 0.0])
    h = 1e-7
    for shift, expected in (((h, 0.0), 1.0), ((0.0, h), 0.0)):
        after = f(0.7 + shift[0], y + shift[1]) - f(0.7 - shift[0], y - shift[1])
        assert after / (2 * h) == pytest.approx(expected, abs=1e-6)


def unwrapped(x: np.ndarray) -> Any:
    """Steps of more than half a period, both ways, along either axis, with a period and a
    threshold of its own."""
    phases = np.unwrap(np.cumsum(4.0 * x)) * x
    table = np.unwrap(np.reshape(3.0 * x, (2, 3)), None, 0)
    return (
        np.sum(phases**2)
        + np.sum(np.sin(table) * x[:3])
        + np.sum(np.unwrap(x * 5.3, 1.0, -1, period=2.5))
    )


def test_unwrap_through_the_api() -> None:
    check_through_api(unwrapped, np.array([0.9, -1.1, 0.95, 0.2, 1.3, -0.9]))


def math_loss(x: np.ndarray) -> Any:
    a, b = x[0], x[1]
    fraction, whole = math.modf(3.0 * a * b)
    mantissa, exponent = math.frexp(a * a)
    quotient, rest = divmod(a * 3.0, b)
    total = math.copysign(a * a, b) * b + math.fmod(a * b * 4.0, b * b) ** 2
    total = total + math.remainder(a * 5.0, b) * a + fraction * whole * b
    return total + mantissa**2 * exponent + quotient * rest**2 + math.ldexp(a * b, exponent)


@pytest.mark.parametrize(
    "x",
    [np.concatenate([A, B]), np.concatenate([-A[::-1], B * 1.8])],
    ids=["first", "second"],
)
def test_numpy_functions_through_the_api(x: np.ndarray) -> None:
    check_through_api(numpy_loss, x)


@pytest.mark.parametrize(
    "x", [np.array([0.72, 0.3]), np.array([-1.3, 0.45]), np.array([2.2, -0.65])], ids=str
)
def test_math_functions_through_the_api(x: np.ndarray) -> None:
    check_through_api(math_loss, x)


def exact_quotient(kind: str, a: float, b: float) -> int:
    """The integer quotient of `a / b` in exact arithmetic: truncated, floored or rounded to
    the nearest (ties to even), as `fmod`, `divmod` and `math.remainder` take it."""
    exact = Fraction(a) / Fraction(b)
    if kind == "truncated":
        return math.trunc(exact)
    if kind == "floored":
        return math.floor(exact)
    return round(exact)


def fmod_of(a, b):
    return math.fmod(a, b)


def numpy_fmod_of(a, b):
    return np.fmod(a, b)


def remainder_of(a, b):
    return math.remainder(a, b)


def divmod_of(a, b):
    return divmod(a, b)[1]


def numpy_divmod_of(a, b):
    return np.divmod(a, b)[1]


# `a / b` rounds to an integer it is not for these: `1.0 / 0.1` is 10.0, but 0.1 is a little
# more than a tenth, and `math.fmod(1.0, 0.1)` is 0.0999...: the quotient the result is of is 9.
QUOTIENT_POINTS = [(k * 0.1, 0.1) for k in (3, 7, 10, 13, 29, 47)] + [(2.0, 0.2), (-3.0, 0.3)]


@pytest.mark.parametrize(
    ("f", "kind"),
    [
        (fmod_of, "truncated"),
        (numpy_fmod_of, "truncated"),
        (remainder_of, "nearest"),
        (divmod_of, "floored"),
        (numpy_divmod_of, "floored"),
    ],
    ids=lambda value: getattr(value, "__name__", value),
)
@pytest.mark.parametrize(("a", "b"), QUOTIENT_POINTS, ids=str)
def test_the_slope_is_the_quotient_of_the_piece_the_result_is_in(
    f: Callable[..., Any], kind: str, a: float, b: float
) -> None:
    q = exact_quotient(kind, a, b)
    if Fraction(a) / Fraction(b) == q:
        pytest.skip("a / b is a whole number here: the remainder jumps, and has no slope to check")
    np.testing.assert_allclose(float(f(a, b)), float(Fraction(a) - q * Fraction(b)), atol=1e-15)
    a_bar, b_bar = srcad.grad(f, wrt=(0, 1))(a, b)
    assert (float(a_bar), float(b_bar)) == (1.0, -float(q))
    _, b_dot = srcad.jvp(f, (a, b), (0.0, 1.0))
    assert float(b_dot) == -float(q)


def copysign_of(x, s):
    return np.copysign(x, s)


def math_copysign_of(x, s):
    return math.copysign(x, s)


@pytest.mark.parametrize("f", [copysign_of, math_copysign_of], ids=lambda f: f.__name__)
@pytest.mark.parametrize("s", [2.0, -0.5, 0.0, -0.0])
def test_copysign_at_its_kink_takes_the_slope_of_abs(f: Callable[..., Any], s: float) -> None:
    """`copysign(x, s)` is `|x|` or `-|x|`: at `x == 0` its slope is 0, as `np.abs`'s is;
    away from it, `+-sign(x)`; in `s`, 0 everywhere (a jump at 0)."""
    sign = -1.0 if math.copysign(1.0, s) < 0 else 1.0
    for x, slope in ((0.0, 0.0), (-0.0, 0.0), (0.4, sign), (-0.4, -sign)):
        assert tuple(float(g) for g in srcad.grad(f, wrt=(0, 1))(x, s)) == (slope, 0.0)
        assert float(srcad.jvp(f, (x, s), (1.0, 1.0))[1]) == slope


def mantissa_of(x):
    return np.frexp(x)[0]


def fraction_of(x):
    return np.modf(x)[0]


@pytest.mark.parametrize(
    ("f", "x"),
    [
        (mantissa_of, np.array([0.0, 0.5, 1.0, -2.0, 3.75, 1e-300, 7e300])),
        (fraction_of, np.array([0.0, 1.0, -2.0, 2.5, -0.25])),
    ],
    ids=["frexp", "modf"],
)
def test_slopes_at_powers_of_two_and_integers(f: Callable[..., Any], x: np.ndarray) -> None:
    """At the jumps the slope is that of the piece the result is in: `x * 2**-e` for the
    mantissa (1 at 0, where the exponent is 0), 1 for the fractional part."""
    exponent = np.frexp(x)[1] if f is mantissa_of else np.zeros(x.shape, int)
    expected = np.diag(np.ldexp(1.0, -exponent))
    np.testing.assert_array_equal(srcad.jacobian(f)(x), expected)
    np.testing.assert_array_equal(srcad.jacobian(f, mode="forward")(x), expected)


def test_away_from_the_jumps_the_jacobians_match_differences() -> None:
    x = np.array([0.3, 0.6, 1.7, -2.2, 3.1, 0.0413])
    for f in (mantissa_of, fraction_of):
        close(srcad.jacobian(f)(x), difference(f, (x,)))


def test_integer_parts_carry_no_derivative() -> None:
    def whole_and_exponent(x):
        return np.modf(x)[1] + np.frexp(x)[1] + np.divmod(x, 0.3)[0]

    x = np.array([0.7, -1.2, 2.6])
    np.testing.assert_array_equal(srcad.jacobian(whole_and_exponent)(x), np.zeros((3, 3)))
    _, dot = srcad.jvp(whole_and_exponent, (x,), (np.ones(3),))
    np.testing.assert_array_equal(np.asarray(dot), np.zeros(3))

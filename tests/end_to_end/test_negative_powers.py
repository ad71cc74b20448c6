"""A non-integer power of a negative Python float is complex (`(-2.0) ** 1.5 == -2.83j`),
where NumPy's is NaN. Code specialised for floats took it for a float and differentiated
it with real templates (no conjugate): `abs(x ** 1.5)` at x = -2 had the wrong sign in
both modes, with no error. The power's kind is now unknown there (`srcad.kinds._powered`),
and the general rules, which conjugate, differentiate it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import difference


def abs_of_power(x):
    return abs(x**1.5)


def real_part(x):
    return (x**0.5).real * 2.0 + x


def imaginary_part(x):
    return (x**2.5).imag


def product(x):
    y = x**0.5
    return abs(y * y * x + 1.0)


def in_a_loop(x):
    s = 0.0
    for k in range(1, 4):
        s = s + abs(x ** (0.5 * k))
    return s


def variable_power(x, p):
    return abs(x**p) + (x**p).real


def integer_power(x):
    return x**3 - 2.0 * x**2


def numpy_scalar(x):
    return np.sqrt(x * x) ** 1.5


FUNCTIONS = [abs_of_power, real_part, imaginary_part, product, in_a_loop, integer_power]
POINTS = [-2.0, -0.7, 0.6, 1.9]


@pytest.mark.parametrize("x", POINTS)
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_both_modes_at_negative_and_positive_bases(f: Any, x: float) -> None:
    expected = difference(f, (x,))
    gradient = srcad.grad(f)(x)
    assert type(gradient) is float  # the gradient of a real argument is real
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)
    _, tangent = srcad.jvp(f, (x,), (1.0,))
    np.testing.assert_allclose(np.real(tangent), expected, rtol=1e-6, atol=1e-8)
    assert np.imag(tangent) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(("x", "p"), [(-2.0, 0.5), (-1.3, 1.7), (0.8, 0.3), (2.0, -1.5)])
def test_a_variable_power_in_both_arguments(x: float, p: float) -> None:
    """In the base, at every base; in the exponent, at positive bases (at a negative one the
    partial is NaN, as NumPy's `log` gives: `srcad.partials.log_base`)."""
    gradient = srcad.grad(variable_power, wrt=(0, 1))(x, p)
    if x < 0:
        assert np.isnan(gradient[1])
    for position in (0, 1) if x > 0 else (0,):
        expected = difference(variable_power, (x, p), position)
        np.testing.assert_allclose(gradient[position], expected, rtol=1e-6, atol=1e-8)
        tangents = (1.0, 0.0) if position == 0 else (0.0, 1.0)
        _, tangent = srcad.jvp(variable_power, (x, p), tangents)
        np.testing.assert_allclose(np.real(tangent), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("x", [-2.0, 1.5])
def test_second_derivatives(x: float) -> None:
    for f in (abs_of_power, real_part, integer_power):
        second = srcad.grad(srcad.grad(f))(x)
        np.testing.assert_allclose(
            np.real(second), difference(srcad.grad(f), (x,)), rtol=1e-5, atol=1e-7
        )


def test_numpy_scalars_keep_numpys_float_powers() -> None:
    np.testing.assert_allclose(
        srcad.grad(numpy_scalar)(-1.2), difference(numpy_scalar, (-1.2,)), rtol=1e-6
    )

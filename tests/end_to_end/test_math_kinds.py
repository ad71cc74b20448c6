"""Issue 19: `math` functions of floats and the builtins `min` and `max` of two numbers have
result kinds and inline derivatives, so scalar code calling them stays specialised (a loop
calling `math.pow` was 49x its primal, one calling `max` 21x). Each is checked against
central differences in both modes and to second order, at points where it is smooth and,
for `min` and `max`, at ties (the cotangent goes to the argument the builtin returns, the
first of equal ones)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import difference


def looped(function: Any, shift: float) -> Any:
    """A loop calling `function` of one number, from a point near `x`."""

    def f(x):
        s = 0.0
        for k in range(3):
            s = s + function(x * 0.5 + shift + 0.01 * k) * (k + 1)
        return s

    return f


ONE_ARGUMENT = [
    (math.asin, 0.0),
    (math.acos, 0.0),
    (math.asinh, 0.0),
    (math.acosh, 2.0),
    (math.atanh, 0.0),
    (math.log2, 2.0),
    (math.log10, 2.0),
    (math.fabs, 1.0),
    (math.erf, 0.0),
    (math.erfc, 0.0),
    (math.degrees, 0.0),
    (math.radians, 0.0),
]


def two_arguments(x):
    s = 0.0
    for k in range(3):
        s = s + math.atan2(x, 1.5 + k) + math.hypot(x * k, 2.0 - x)
        s = s + math.pow(x + k, 1.5) + math.pow(2.0 + k, x)
    return s


def extrema(x):
    s = 0.0
    for k in range(4):
        s = s + max(x * k, 1.0) * min(x, 0.5 * k) + max(x, -x)
    return s


def check(f: Any, x: float) -> None:
    expected = difference(f, (x,))
    np.testing.assert_allclose(srcad.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jvp(f, (x,), (1.0,))[1], expected, rtol=1e-6, atol=1e-8)
    second = srcad.grad(srcad.grad(f))(x)
    np.testing.assert_allclose(second, difference(srcad.grad(f), (x,)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("function", "shift"), ONE_ARGUMENT, ids=lambda v: getattr(v, "__name__", "")
)
def test_a_math_function_in_a_loop(function: Any, shift: float) -> None:
    f = looped(function, shift)
    check(f, 0.3)
    text = COMPILER.compiled(f, None, Request.grad(signature((0.3,)))).source
    assert "_rrule(" not in text, text  # inlined: the result has a kind


@pytest.mark.parametrize("x", [0.4, 1.3])
def test_math_functions_of_two_numbers(x: float) -> None:
    check(two_arguments, x)
    text = COMPILER.compiled(two_arguments, None, Request.grad(signature((x,)))).source
    assert "_rrule(" not in text, text


@pytest.mark.parametrize("x", [0.3, 0.7, 1.6])
def test_min_and_max_of_two_numbers(x: float) -> None:
    check(extrema, x)
    text = COMPILER.compiled(extrema, None, Request.grad(signature((x,)))).source
    assert "_rrule(" not in text, text


@pytest.mark.parametrize(("a", "b"), [(1.0, 1.0), (2.0, 1.0), (1.0, 2.0), (math.nan, 1.0)])
def test_ties_go_to_the_argument_returned(a: float, b: float) -> None:
    """The specialised code and the general rules agree, at a tie and at NaN too."""

    def both(a, b):
        return max(a, b) * 3.0 + min(a, b)

    specialised = srcad.grad(both, wrt=(0, 1))(a, b)
    general = srcad.grad(both, wrt=(0, 1))(np.float32(a), np.float32(b))  # no kind: rules
    assert specialised == tuple(float(g) for g in general)
    first_is_max = not (b > a)
    first_is_min = not (b < a)
    assert specialised == (
        3.0 * first_is_max + first_is_min,
        3.0 * (not first_is_max) + (not first_is_min),
    )


def hypots(x):
    return math.hypot(x) + math.hypot(x, 2.0 * x, 0.5) + math.hypot(0.0, x)


@pytest.mark.parametrize("x", [0.4, -1.2])
def test_hypot_of_any_number_of_coordinates(x: float) -> None:
    check(hypots, x)


def numpy_scalars(x):
    s = 0.0
    for i in range(5):
        s = s + np.sin(x * i) * np.float64(0.5) + np.float64(x) * np.cos(x)
    return s


@pytest.mark.parametrize("x", [0.4, -1.3])
def test_numpy_scalars_in_a_loop(x: float) -> None:
    """`np.sin` of a float is a NumPy float64, and `np.float64(...)` one too: both have a
    kind (was: every operation after them called its rule)."""
    check(numpy_scalars, x)
    text = COMPILER.compiled(numpy_scalars, None, Request.grad(signature((x,)))).source
    assert "_rrule(" not in text, text


def of_elements(x):
    s = math.fabs(x[0]) * math.exp(x[1]) + math.fabs(x[1] - 0.5) * x[0]
    for k in range(2):
        s = s + math.fabs(x[k] * x[1 - k]) + math.erf(x[k])
    return s


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("x", [[0.3, 0.7], [-0.4, 0.2], [0.6, -1.1]])
def test_math_functions_of_numpy_floats(dtype: Any, x: list[float]) -> None:
    """`math.fabs` of an array's element (a NumPy float) crashed in its derivative (its
    sign took `(x > 0) - (x < 0)`, and NumPy's booleans do not subtract)."""
    point = np.array(x, dtype=dtype)
    expected = difference(of_elements, (np.array(x),))
    tolerance = {"rtol": 1e-6, "atol": 1e-8} if dtype is np.float64 else {"rtol": 1e-4}
    np.testing.assert_allclose(srcad.grad(of_elements)(point), expected, **tolerance)
    tangent = np.array([1.0, -2.0], dtype=dtype)
    y_dot = srcad.jvp(of_elements, (point,), (tangent,))[1]
    np.testing.assert_allclose(y_dot, expected @ [1.0, -2.0], **tolerance)
    if dtype is np.float64:
        second = difference(srcad.grad(of_elements), (point,))
        np.testing.assert_allclose(srcad.hessian(of_elements)(point), second, rtol=1e-5, atol=1e-6)

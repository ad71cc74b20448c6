"""0-d arrays (`np.array(0.0)`, then `acc = acc + x[i] * y[i]`, a NumPy float64 after the
first step): such a local has the kind `ZERO_D` (`srcad.kinds`), a float64 that may be a
0-d array, so the operators and ufuncs on it are inlined as on a float; it is never taken
for an immutable number (`acc += v`, `acc[()] = v` change the array, and whatever else
holds it). Every derivative here is checked against central differences, in both modes and
to second order, with 0-d arrays as locals, parameters, mixed with floats and float32, and
NumPy float64s beside them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import close, difference


def accumulated(x, y):
    acc = np.array(0.0)
    for i in range(len(x)):
        acc = acc + x[i] * y[i]
    return float(acc)


def zeros_of_no_shape(x, y):
    acc = np.zeros(())
    for i in range(len(x)):
        acc = acc + np.sin(x[i]) * y[i]
    return acc * 1.0


def in_place(x, y):
    acc = np.array(0.0)
    for i in range(len(x)):
        acc += x[i] * y[i]
    return acc * 2.0


def aliased(x, y):
    acc = np.array(0.0)
    kept = acc
    for i in range(len(x)):
        acc += x[i] * y[i]
    return kept * 3.0 + acc


def written(x, y):
    acc = np.array(1.0)
    acc[()] = np.sum(x * y)
    return acc * acc


def mixed(x, y):
    scale = np.asarray(np.sum(y))
    s = 0.0
    for i in range(len(x)):
        s = s + scale * math.cos(x[i]) + np.float64(0.5) * x[i] ** 2
    return s / scale


def with_float32(x, y):
    acc = np.array(0.5)
    for i in range(len(x)):
        acc = acc * np.float32(1.5) + x[i] * y[i]
    return float(acc)


def of_a_float(x, y):
    a = np.array(x[0] * y[1])
    b = a**2.0 - abs(a) + -a / (1.0 + a * a)
    return np.exp(b) + np.sum(x) * a


def reduced(x, y):
    total = np.sum(np.array(np.dot(x, y)))
    return total * np.max(x) + np.mean(np.array(x[0]))


def returned_array(x, y):
    return np.array(np.dot(x, y) + 1.0)


def powered(x, y):
    s = np.array(0.0)
    for i in range(len(x)):
        s = s + x[i] * y[i]
    return s**0.5 + np.sqrt(s)


FUNCTIONS = [accumulated, zeros_of_no_shape, in_place, written, mixed, with_float32,
             of_a_float, reduced, returned_array, powered]  # fmt: skip
X = np.array([0.3, -0.8, 1.1])
Y = np.array([0.9, 0.4, 1.6])


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_both_modes_and_second_order(f: Any) -> None:
    args = (X, Y)
    for position in (0, 1):
        close(srcad.grad(f, wrt=position)(*args), difference(f, args, position))
        close(srcad.grad(f, wrt=position)(*args), difference(f, args, position))  # the branch
    tangent = srcad.jvp(f, args, (Y, X))[1]
    close(tangent, difference(f, args, 0) @ Y + difference(f, args, 1) @ X)
    close(srcad.hessian(f)(X, Y), difference(srcad.grad(f), args, 0))


def test_a_loop_into_a_zero_dimensional_array_is_inlined() -> None:
    """The accumulating loop's derivative is arithmetic, no rule call per step."""
    for f in (accumulated, zeros_of_no_shape):
        text = COMPILER.compiled(f, None, Request.grad(signature((X, Y)))).source
        assert "acc = acc + " in text and "add_rrule" not in text, text


@pytest.mark.parametrize("kind", ["zero-d", "float64", "float"])
def test_zero_dimensional_and_scalar_parameters(kind: str) -> None:
    """A 0-d array as an argument (no kind of its own: the general path), beside a NumPy
    float64 and a float, each against differences; the gradient has the argument's type."""
    make = {"zero-d": np.array, "float64": np.float64, "float": float}[kind]

    def f(a, x):
        s = a * 1.0
        for i in range(len(x)):
            s = s + a * x[i] + np.sin(s)
        return s

    a = make(0.7)
    gradient = srcad.grad(f)(a, X)
    close(gradient, difference(f, (a, X), 0))
    close(srcad.grad(f, wrt=1)(a, X), difference(f, (a, X), 1))
    if kind == "zero-d":
        assert np.shape(gradient) == ()
    else:
        assert np.ndim(gradient) == 0


def test_an_argument_changed_in_place_is_still_refused_or_right() -> None:
    """A 0-d array parameter changed in place is the caller's: its kind is none, and the
    result is what the function gives (or a refusal), never a silent wrong derivative."""

    def f(a, x):
        b = np.array(a * 2.0)
        b += x[0]
        return b * a

    a = 0.7
    close(srcad.grad(f)(a, X), difference(f, (a, X), 0))


def test_a_zero_dimensional_array_changed_in_place_while_shared_is_refused() -> None:
    """`acc += v` on a 0-d array something else holds changes that too: never taken for a
    float's rebinding (its kind is no immutable number), so it is refused, located."""
    with pytest.raises(srcad.MutationError, match="acc"):
        srcad.grad(aliased)(X, Y)

"""A value that overflows to infinity and is then overwritten: its derivative is zero,
and so is the cotangent the reverse pulls back through the code that made it. Where the
kinds are known, that cotangent starts from the float `0.0`, and pulled back through
`x = x * x + 0.5` at `x = inf` it was `0.0 * inf`, NaN (fuzz seed 50118; the general
path's symbolic zero multiplies to zero). Cotangents known zero at compile time are now
folded out of the pullback (`passes/transforms/zero_cotangents.py`), in loops and in the
straight-line code of their bodies: `docs/higher_order.md`, "Zero times infinity".

First and second derivatives against central differences (of `f`, then of `grad(f)`),
with the primal checked to be finite."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import difference

c0 = 0.7


def grow(x):
    for _i in range(20):
        x = x * x + 0.5
    return x


def nested_loops_then_overwritten(x):  # seed 50118, reduced
    for _i in range(4):
        for _j in range(5):
            x = x * x + 0.5
    x = c0
    return x


def exponentials_then_overwritten(x):
    for _i in range(4):
        x = np.exp(x) * 10.0
    x = c0
    return x


def overwritten_inside_the_outer_loop(x):
    s = 0.0
    for i in range(3):
        for _j in range(20):
            x = x * x + 0.5
        x = c0 + i
        s = s + x * x
    return s


def beside_a_value_still_used(x, y):
    for _i in range(20):
        x = x * x + y
        y = y * 1.5
    x = c0
    return x + y * y


def in_a_branch(x):
    for _i in range(20):
        if x > 0.0:  # noqa: SIM108 (a branch, as users write it)
            x = x * x + 0.5
        else:
            x = -x
    x = c0
    return x * 2.0


def in_a_while_loop(x):
    n = 0
    while n < 20:
        x = x * x + 0.5
        n += 1
    x = c0
    return x


def through_a_helper(x):
    y = grow(x)
    y = c0 * y / y
    y = c0
    return y + x * x


def straight_line_in_a_loop(x):
    s = 0.0
    for _i in range(3):
        t = x * 1e300 * 1e10
        u = t * t
        u = c0
        s = s + u * x
    return s


def of_an_array(x):
    for _i in range(20):
        x = x * x + 0.5
    x = c0 * np.ones(3)
    return np.sum(x * x)


CASES = [
    (nested_loops_then_overwritten, (0.9,)),
    (exponentials_then_overwritten, (0.9,)),
    (overwritten_inside_the_outer_loop, (0.9,)),
    (beside_a_value_still_used, (0.9, 0.8)),
    (in_a_branch, (0.9,)),
    (in_a_while_loop, (0.9,)),
    (through_a_helper, (0.9,)),
    (straight_line_in_a_loop, (0.9,)),
    (of_an_array, (np.array([0.9, 1.0, 1.2]),)),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize(("f", "args"), CASES, ids=IDS)
def test_gradient_against_differences(f: Any, args: tuple[Any, ...]) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.all(np.isfinite(f(*args)))
        for position in range(len(args)):
            expected = difference(f, args, position)
            assert np.all(np.isfinite(expected))
            np.testing.assert_allclose(srcad.grad(f, wrt=position)(*args), expected, atol=1e-8)
            _, gradient = srcad.value_and_grad(f, wrt=position)(*args)
            np.testing.assert_allclose(gradient, expected, atol=1e-8)


@pytest.mark.parametrize(("f", "args"), CASES, ids=IDS)
def test_hessian_against_differences_of_the_gradient(f: Any, args: tuple[Any, ...]) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        expected = difference(srcad.grad(f), args)
        assert np.all(np.isfinite(expected))  # (NaN would match NaN)
        np.testing.assert_allclose(srcad.hessian(f)(*args), expected, atol=1e-7)
        v = np.ones_like(args[0])
        product = srcad.hessian_vector_product(f)(*args, v)
        columns = np.reshape(expected, (*np.shape(v), -1))
        np.testing.assert_allclose(product, columns.sum(-1), atol=1e-7)

"""A short-circuiting value assigned to a name it reads: every mode against central finite
differences, and the value against the primal."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from tests.end_to_end import short_circuit_functions as functions

SCALAR = [
    functions.or_reads_target,
    functions.and_reads_target,
    functions.or_reads_target_in_a_loop,
    functions.conditional_or_reads_target,
    functions.conditional_with_inner_or,
    functions.both_sides_read_target,
    functions.while_and_reads_target,
]


def central(f, x, u, step=1e-6):
    return (f(x + step * u) - f(x - step * u)) / (2 * step)


@pytest.mark.parametrize("f", SCALAR, ids=[f.__name__ for f in SCALAR])
@pytest.mark.parametrize("x", [1.5, -0.7, 2.5])
def test_scalar_both_modes(f, x):
    want = central(f, x, 1.0)
    value, gradient = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x))
    assert gradient == pytest.approx(want, rel=1e-6, abs=1e-8)
    assert srcad.grad(f)(x) == pytest.approx(want, rel=1e-6, abs=1e-8)  # specialised
    y, y_dot = srcad.jvp(f, (x,), (1.0,))
    assert y == pytest.approx(f(x))
    assert y_dot == pytest.approx(want, rel=1e-6, abs=1e-8)


def test_array_both_modes():
    f = functions.array_or_reads_target
    x = np.array([0.3, -1.2, 2.0])
    u = np.array([0.5, 1.0, -2.0])
    want = central(f, x, u)
    assert srcad.grad(f)(x) @ u == pytest.approx(want, rel=1e-6)
    assert srcad.jvp(f, (x,), (u,))[1] == pytest.approx(want, rel=1e-6)

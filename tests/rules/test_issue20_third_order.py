"""Third derivatives through the rules issue 20 added in session 36 (`rules/float_parts.py`,
`numpy_counting.py`, `numpy_flat.py`, `ufunc_at.py`, with `np.nditer` and the other
ufuncs' `at` of session 37): `grad` three deep against central differences of the second
derivative."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp


def flat(t):
    m = np.array([[t, 2.0 * t], [t * t, 0.5]])
    return m.flat[2] ** 2 * m.flat[0] + np.sum(np.sin(m.flat[1:]))


def enumerated(t):
    total = 0.0
    for index, v in np.ndenumerate(np.array([[t, t * t], [1.0, t]])):
        total = total + v**3 * (index[0] + 1)
    return total


def iterated(t):
    total = 0.0
    for v in np.nditer(np.array([[t, t * t], [1.0, t]]).T):
        total = total * v + v**3
    return total


def unique(t):
    return np.sum(np.unique(np.array([t, t * t + 2.0, -t])) ** 3 * np.arange(3.0))


def bincount(t):
    return np.sum(np.bincount(np.array([0, 1, 1]), np.array([t, t * t, np.sin(t)])) ** 3)


def add_at(t):
    a = np.zeros(2)
    np.add.at(a, np.array([0, 1, 1]), np.array([t, t * t, np.sin(t)]))
    return np.sum(a**3)


def in_turn_at(t):
    a = np.array([t, 2.0])
    np.multiply.at(a, np.array([0, 1, 0]), np.array([t, t * t, np.sin(t)]))
    np.maximum.at(a, np.array([1]), 3.0 * t)
    np.power.at(a, np.array([0, 0]), np.array([1.5, t]))
    return np.sum(a**3)


def float_parts(t):
    mantissa, exponent = np.frexp(3.0 * t * t)
    fraction = np.modf(4.0 * t**3)[0]
    return (
        math.copysign(t**3, -1.0)
        + math.fmod(5.0 * t * t, 0.7) ** 3
        + mantissa**3 * exponent
        + fraction**2
        + divmod(7.0 * t, 0.9)[1] ** 3
    )


@pytest.mark.parametrize(
    "f",
    [flat, enumerated, iterated, unique, bincount, add_at, in_turn_at, float_parts],
    ids=lambda f: f.__name__,
)
def test_third_derivatives_match_differences_of_the_second(f: Any) -> None:
    second = srcad.grad(srcad.grad(f))
    expected = float(finite_difference_jvp(second, (0.4,), (1.0,)))
    assert float(srcad.grad(second)(0.4)) == pytest.approx(expected, rel=2e-5, abs=1e-6)

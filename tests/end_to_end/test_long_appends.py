"""A list grown by many appends: each append's pullback takes its element off the list's
cotangent in O(1) (`srcad.tangents.Prefix`), where a copy of the elements before it made n
appends cost O(n²). The numbers must not change: every way of reading such a list (whole,
by item, by slice, by iteration, after a list that was not empty) against central
differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import difference


def trajectory(x):
    out = []
    y = x
    for _ in range(300):
        y = y * 0.99 + 0.01 * np.sin(y)
        out.append(y)
    return np.sum(np.array(out) ** 2)


def read_by_item(x):
    out = [x, 2.0 * x]
    for k in range(200):
        out.append(out[-1] * 0.98 + out[-2] * 0.01 + 0.001 * k)
    return np.sum(out[-1] + out[3] * out[100] + sum(out[::7]))


def read_by_iteration(x):
    out = []
    for k in range(250):
        out.append(np.tanh(x * (k % 5 - 2.0)))
    total = 0.0
    for v in out:
        total = total + np.sum(v * v)
    return total


def two_lists(x):
    a, b = [], []
    for k in range(150):
        a.append(x * k)
        b.append(np.cos(x + k))
    return np.sum(sum(a)) * 1e-3 + np.sum(np.array(b) * np.array(a))


@pytest.mark.parametrize(
    "f", [trajectory, read_by_item, read_by_iteration, two_lists], ids=lambda f: f.__name__
)
@pytest.mark.parametrize("x", [0.7, np.array([0.3, -1.1])], ids=["float", "array"])
def test_long_lists_of_appends(f: Any, x: Any) -> None:
    expected = difference(f, (x,))
    np.testing.assert_allclose(srcad.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
    _, pullback = srcad.rrule(f, x)
    np.testing.assert_allclose(pullback(2.0)[1], 2.0 * expected, rtol=1e-6, atol=1e-8)


def appends_to_a_shared_list(x, held):
    a, b = [], held  # `b` is the caller's list
    a.append(x)
    b.append(x)
    return a[0] * 2.0


def test_only_the_fresh_item_of_an_unpacking_is_fresh() -> None:
    with pytest.raises(srcad.MutationError, match=r"`b\.append\(\.\.\.\)`"):
        srcad.grad(appends_to_a_shared_list)(0.5, [])

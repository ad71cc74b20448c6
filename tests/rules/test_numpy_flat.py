"""Reading an array element by element: `x.flat` and `np.ndenumerate` (`rules/numpy_flat.py`,
issue 20), through the public API against finite differences (second order too); a field
named `flat` of another value; and a write through `.flat`, refused."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api


def flat_items(x):
    m = np.reshape(x, (2, 3)).T  # not contiguous: `.flat` walks it in C order all the same
    return m.flat[1] * m.flat[4] ** 2 + np.sum(np.sin(m.flat[1:5])) + np.sum(m.flat[[0, 5, 0]] ** 3)


def flat_loop(x):
    total = 0.0
    for v in np.reshape(x, (3, 2)).flat:
        total = total + v * v * total + np.cos(v)
    return total + len(x.flat) * x.flat[-1]


def enumerated(x):
    total = 0.0
    for index, v in np.ndenumerate(np.reshape(x, (2, 3))):
        total = total + (index[0] + 2 * index[1] + 1) * v**3 + v * total
    return total


@pytest.mark.parametrize("f", [flat_items, flat_loop, enumerated], ids=lambda f: f.__name__)
def test_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, sample((6,), 3))


def test_a_matrix_through_flat() -> None:
    def f(m):
        return np.sum(m.flat[::2] ** 2) * m.flat[3]

    m = sample((2, 2), 4)
    expected = 2.0 * m.reshape(-1)[::2] * m.reshape(-1)[3]
    gradient = np.zeros(4)
    gradient[::2] = expected
    gradient[3] += np.sum(m.reshape(-1)[::2] ** 2)
    np.testing.assert_allclose(srcad.grad(f)(m), gradient.reshape(2, 2))


@dataclasses.dataclass
class Holder:
    flat: Any


def field_named_flat(x):
    holder = Holder(x * x)
    return np.sum(holder.flat * x)


def test_a_field_named_flat_is_read_as_a_field() -> None:
    check_through_api(field_named_flat, sample((4,), 5))


def write_through_flat(x):
    y = x * 2.0
    y.flat[0] = 1.0
    return np.sum(y)


def test_a_write_through_flat_is_refused() -> None:
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(write_through_flat)(np.ones(3))
    assert "E301" in str(raised.value)

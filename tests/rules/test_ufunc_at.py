"""`np.add.at` and `np.subtract.at` into an array the function made (`rules/ufunc_at.py`,
issue 20): the rules alone against finite differences, whole functions through the public
API (repeated indices, indices of several axes, broadcast values, in a loop; second order
too), and the changes in place that stay refused (E305), each with its reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.primitives import ufunc_at
from srcad.testing import check_frule, check_rrule
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api

REPEATED = np.array([0, 2, 2, 1, 0, 2])


@pytest.mark.parametrize(
    "args",
    [
        (np.add, sample((3,), 1), REPEATED, sample((6,), 2)),
        (np.subtract, sample((3,), 3), REPEATED, sample((6,), 4)),
        (np.add, sample((3, 2), 5), (np.array([0, 2, 0]), np.array([1, 1, 1])), sample((3,), 6)),
        (np.add, sample((3, 2), 7), REPEATED, sample((2,), 8)),
        (np.subtract, sample((4,), 9), slice(1, 3), 0.5),
    ],
    ids=["add", "subtract", "two-axes", "broadcast-rows", "slice-scalar"],
)
def test_rules_match_finite_differences(args: tuple[Any, ...]) -> None:
    check_rrule(ufunc_at, *args)
    check_frule(ufunc_at, *args, seed=3)


def histogram_like(x):
    counts = np.zeros(4)
    np.add.at(counts, np.array([0, 3, 3, 1, 0, 3, 2]), x[:7] * x[7:])
    np.subtract.at(counts, 1, np.sin(x[0]))
    return np.sum(counts**3) + counts[3] * x[1]


def rows_and_columns(x):
    m = np.zeros((3, 3))
    np.add.at(m, (np.array([0, 2, 2, 1]), np.array([1, 1, 1, 0])), x[:4])
    np.add.at(m, np.array([1, 1]), x[4:7] ** 2)  # whole rows, a value per column
    return np.sum(np.exp(m) * x[7:10].reshape(3, 1))


def in_a_loop(x):
    total = np.zeros(3)
    for k in range(4):
        np.add.at(total, np.array([k % 3, (k + 1) % 3, k % 3]), x[k : k + 3] * total[k % 3])
    return np.sum(total**2)


@pytest.mark.parametrize(
    "f", [histogram_like, rows_and_columns, in_a_loop], ids=lambda f: f.__name__
)
def test_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, sample((14,), 11))


def into_a_parameter(x):
    np.add.at(x, np.array([0, 1]), 1.0)
    return np.sum(x**2)


def into_an_alias(x):
    a = np.zeros(3)
    b = a
    np.add.at(a, np.array([0, 0]), x[:2])
    return np.sum(b * x[:3])


def reading_itself(x):
    a = x * 2.0
    np.add.at(a, np.array([0, 0]), a)
    return np.sum(a)


def product_at(x):
    a = np.ones(3)
    np.multiply.at(a, np.array([0, 0]), x[:2])
    return np.sum(a)


def as_an_expression(x):
    a = np.zeros(3)
    nothing = np.add.at(a, np.array([0, 0]), x[:2])
    return np.sum(a) + (nothing is None)


@pytest.mark.parametrize(
    ("f", "reason"),
    [
        (into_a_parameter, "is a parameter"),
        (into_an_alias, "may keep it"),
        (reading_itself, "may keep it"),
        (product_at, "not np.multiply.at"),
        (as_an_expression, "not a statement of its own"),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_changes_that_stay_refused(f: Callable[[np.ndarray], Any], reason: str) -> None:
    for derivative in (srcad.grad(f), lambda x: srcad.jvp(f, (x,), (x,))):
        with pytest.raises(srcad.MutationError) as raised:
            derivative(np.ones(4))
        assert "E305" in str(raised.value)
        assert reason in str(raised.value)

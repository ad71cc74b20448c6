"""`np.add.at`, `np.subtract.at` and the other ufuncs' `at` (`np.multiply.at`,
`np.maximum.at`, ...) into an array the function made (`rules/ufunc_at.py`, issue 20): the
rules alone against finite differences, whole functions through the public API (repeated
indices, indices of several axes, broadcast values, in a loop; second order too), the
convention at a maximum's ties, and the changes in place that stay refused (E305), each
with its reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.primitives import IN_TURN_AT, ufunc_at, ufunc_at_in_turn
from srcad.rules.ufunc_at import in_turn
from srcad.testing import check_frule, check_rrule, finite_difference_jvp
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


# Every element named at least once, some several times (up to four), out of order.
NAMED_IN_TURN = np.array([2, 0, 2, 1, 0, 2, 3, 2])


@pytest.mark.parametrize("ufunc", [np.multiply, np.divide, np.power, np.maximum, np.minimum,
                                   np.fmax, np.fmin])  # fmt: skip
@pytest.mark.parametrize(
    "shapes",
    [
        ((4,), NAMED_IN_TURN, (8,)),
        ((4,), NAMED_IN_TURN, ()),
        ((3, 2), (np.array([0, 2, 0, 0]), np.array([1, 1, 1, 0])), (4,)),
        ((3, 2), np.array([1, 1, 0]), (2,)),
        ((5,), slice(1, 4), (3,)),
        ((3,), 1, ()),
    ],
    ids=["repeated", "scalar-value", "two-axes", "broadcast-rows", "slice", "one-element"],
)
def test_in_turn_rules_match_finite_differences(ufunc: Any, shapes: tuple[Any, ...]) -> None:
    """Positive arrays and values a little apart (no ties: the maximum's pieces are
    smooth there; `np.power` of a positive base)."""
    items_shape, indices, values_shape = shapes
    rng = np.random.default_rng(len(str(shapes)))
    items = rng.uniform(0.5, 1.5, items_shape)
    values = rng.uniform(0.5, 1.5, values_shape)
    args = (ufunc, items, indices, values)
    check_rrule(ufunc_at_in_turn, *args)
    check_frule(ufunc_at_in_turn, *args, seed=3)


def test_in_turn_definition_is_numpys_at() -> None:
    """The definition the derivatives come from computes NumPy's values, an element named
    several times taking the ufunc as many times, and leaves its array as it was."""
    items, values = np.arange(1.0, 5.0), np.array([2.0, 3.0, 0.5, 4.0, -1.0, 2.0, 5.0, 1.5])
    for ufunc in IN_TURN_AT:
        expected = items.copy()
        ufunc.at(expected, NAMED_IN_TURN, values)
        np.testing.assert_array_equal(in_turn(ufunc, items, NAMED_IN_TURN, values), expected)
        np.testing.assert_array_equal(items, np.arange(1.0, 5.0))


def tied_maximum(x):
    a = x[3:5] * 1.0
    np.maximum.at(a, np.array([0, 0, 1]), x[:3])
    return a[0] * 5.0 + a[1] * 3.0


def test_maximum_ties_split_evenly_at_each_step() -> None:
    """Where `a[0] == v1 == v2` the derivative is the one along the directions that keep
    the ties (against finite differences along one), a quarter of the cotangent to `a[0]`,
    a quarter to `v1` and a half to `v2`: shares that add up to 1."""
    x = np.array([1.0, 1.0, 0.5, 1.0, 2.0])
    gradient = srcad.grad(tied_maximum)(x)
    np.testing.assert_allclose(gradient, [5.0 * 0.25, 5.0 * 0.5, 0.0, 5.0 * 0.25, 3.0])
    along_ties = np.array([1.0, 1.0, 0.3, 1.0, -0.7])
    _, tangent = srcad.jvp(tied_maximum, (x,), (along_ties,))
    expected = finite_difference_jvp(tied_maximum, (x,), (along_ties,))
    np.testing.assert_allclose([tangent, gradient @ along_ties], [expected, expected])


def products_and_extremes(x):
    a = np.ones(4)
    np.multiply.at(a, np.array([0, 3, 3, 1, 0, 3, 2]), x[:7])
    np.divide.at(a, np.array([1, 1]), x[7:9] + 2.0)
    b = np.zeros((2, 3))
    np.maximum.at(b, (np.array([0, 1, 0]), np.array([2, 2, 2])), x[9:12])
    np.minimum.at(b, np.array([1]), x[11:14] * 0.5)
    return np.sum(a**2 * x[:4]) + np.sum(np.sin(b))


def power_in_a_loop(x):
    total = np.full(3, 1.5)
    for k in range(3):
        np.power.at(total, np.array([k, (k + 1) % 3, k]), 0.5 + x[k : k + 3] ** 2)
    return np.sum(total * x[3:6])


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
    "f",
    [histogram_like, rows_and_columns, in_a_loop, products_and_extremes, power_in_a_loop],
    ids=lambda f: f.__name__,
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


def arctan2_at(x):
    a = np.ones(3)
    np.arctan2.at(a, np.array([0, 0]), x[:2])
    return np.sum(a)


def product_into_a_parameter(x):
    np.multiply.at(x, np.array([0, 0]), 2.0)
    return np.sum(x)


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
        (arctan2_at, "not np.arctan2.at"),
        (product_into_a_parameter, "is a parameter"),
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

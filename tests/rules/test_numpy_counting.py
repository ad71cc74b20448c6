"""Rules for `np.bincount` with weights and `np.unique` (`rules/numpy_counting.py`, issue 20),
checked against finite differences: each rule alone in both modes, then through the public
API (second order too), then `np.unique` where differentiated elements tie, against
differences along the directions that keep the ties (the only ones in which its result keeps
its length)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_jvp
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api

BINS = np.array([0, 3, 1, 1, 3, 0, 5])


@pytest.mark.parametrize(
    "args", [(BINS, sample((7,), 1)), (BINS, sample((7,), 2), 9)], ids=["bins", "minlength"]
)
def test_bincount_rules_match_finite_differences(args: tuple[Any, ...]) -> None:
    check_rrule(np.bincount, *args)
    check_frule(np.bincount, *args, seed=3)


DISTINCT = np.array([0.7, -1.3, 2.2, 0.15, -0.4, 1.05])


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((DISTINCT,), {}),
        ((DISTINCT.reshape(2, 3),), {}),
        ((DISTINCT, True, True, True), {}),
        ((DISTINCT,), {"return_counts": True}),
        ((np.array([[0.5, 1.5], [0.6, -1.5], [-0.2, 3.0]]),), {"axis": 0}),
        ((np.array([[0.5, 1.5, 0.7], [-0.2, 3.0, 0.1]]),), {"axis": 1}),
    ],
    ids=["vector", "matrix", "all-by-position", "counts", "rows", "columns"],
)
def test_unique_rules_match_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(np.unique, *args, **kwargs)
    check_frule(np.unique, *args, **kwargs, seed=3)


def bincount_loss(x: np.ndarray) -> Any:
    spread = np.bincount(BINS, x[:7] * x[7:], minlength=8)
    return np.sum(np.bincount(BINS, weights=np.sin(x[:7])) ** 2) + np.sum(spread**3)


def unique_loss(x: np.ndarray) -> Any:
    values, index, inverse, counts = np.unique(x * x, True, True, True)
    rows = np.unique(np.reshape(x, (2, 7)), axis=1)
    return np.sum(values[inverse] ** 3 * counts[inverse]) + np.sum(np.sin(rows) * index[0])


@pytest.mark.parametrize("f", [bincount_loss, unique_loss], ids=lambda f: f.__name__)
def test_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, sample((14,), 5))


def tied_loss(x: np.ndarray) -> Any:
    values, inverse = np.unique(x, return_inverse=True)
    return np.sum(np.exp(values) * np.arange(values.size)) + np.sum(values[inverse] ** 3)


# Ties: 0.4 three times, -1.1 twice. Directions that keep them tied.
TIED = np.array([0.4, -1.1, 0.4, 2.0, -1.1, 0.4])
KEEPING = [
    np.array([1.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
    np.array([0.0, -2.0, 0.0, 0.5, -2.0, 0.0]),
    np.array([0.3, 0.7, 0.3, -1.0, 0.7, 0.3]),
]


@pytest.mark.parametrize("v", KEEPING, ids=["first-tie", "second-tie", "all"])
def test_unique_with_ties_along_directions_that_keep_them(v: np.ndarray) -> None:
    expected = finite_difference_jvp(tied_loss, (TIED,), (v,))
    np.testing.assert_allclose(srcad.grad(tied_loss)(TIED) @ v, expected, rtol=1e-6)
    np.testing.assert_allclose(srcad.jvp(tied_loss, (TIED,), (v,))[1], expected, rtol=1e-6)
    gradient_along = finite_difference_jvp(srcad.grad(tied_loss), (TIED,), (v,))
    hessian = srcad.hessian(tied_loss)(TIED)
    np.testing.assert_allclose(v @ hessian @ v, v @ gradient_along, rtol=1e-5)


def tied_rows_loss(m: np.ndarray) -> Any:
    rows, inverse = np.unique(m, return_inverse=True, axis=0)
    return np.sum(np.sin(rows) * np.arange(rows.size).reshape(rows.shape)) + np.sum(m[inverse] ** 3)


def test_unique_with_tied_rows() -> None:
    m = np.array([[0.5, 1.5], [-0.2, 3.0], [0.5, 1.5]])
    v = np.array([[0.3, -1.0], [0.8, 0.2], [0.3, -1.0]])  # rows 0 and 2 stay equal
    expected = finite_difference_jvp(tied_rows_loss, (m,), (v,))
    np.testing.assert_allclose(np.sum(srcad.grad(tied_rows_loss)(m) * v), expected, rtol=1e-6)
    np.testing.assert_allclose(srcad.jvp(tied_rows_loss, (m,), (v,))[1], expected, rtol=1e-6)


def test_unique_splits_a_tied_cotangent_evenly() -> None:
    """The gradient's tied elements get equal shares: the gradient of the value restricted
    to where the ties hold (orthogonal to every direction that would break them)."""
    gradient = srcad.grad(tied_loss)(TIED)
    assert gradient[0] == gradient[2] == gradient[5]
    assert gradient[1] == gradient[4]


def test_counts_alone_carry_no_derivative() -> None:
    def counted(x):
        return np.sum(np.bincount(np.array([0, 2, 2])) * x) + np.unique(x, return_counts=True)[1][0]

    x = np.array([0.5, -0.25, 1.5])
    np.testing.assert_array_equal(srcad.grad(counted)(x), np.array([1.0, 0.0, 2.0]))


def test_weights_by_keyword_where_python_cannot_read_the_signature(monkeypatch) -> None:
    """NumPy 2.2's `np.bincount` has no signature Python can read: `weights=` goes to the
    same position all the same (`ByPosition.of`'s `leading`)."""
    import inspect

    from srcad.positions import ByPosition

    readable = ByPosition.of(np.bincount, "weights", leading=("x",))

    def unreadable(function: Any, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("no signature found")

    monkeypatch.setattr(inspect, "signature", unreadable)
    blind = ByPosition.of(np.bincount, "weights", leading=("x",))
    assert blind.parameters == readable.parameters == ("x", "weights")
    assert blind.differentiated == readable.differentiated == {"weights"}
    assert blind.arrangement(1, ["weights", "minlength"]) == [("weights", None)]

"""Rules for `reduce`, `accumulate`, `reduceat` and `outer` of NumPy's ufuncs, and
`np.cumulative_sum` and `np.cumulative_prod` (`rules/numpy_ufunc_methods.py`, issue 20),
checked against finite differences: each rule alone in both modes with varied axes and
options, then through the public API (second order too), and the options refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedCallError
from srcad.testing import check_frule, check_rrule
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api

TANGENT_SEED = 4
M = sample((3, 4), 1)
X = sample((2, 3, 4), 2)
V = sample((5,), 3)

Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

CALLS: list[Call] = [
    ("add.reduce", np.add.reduce, (M,), {}),
    ("add.reduce-axis-keepdims", np.add.reduce, (X, 2), {"keepdims": True}),
    ("add.reduce-axes", np.add.reduce, (X,), {"axis": (0, 2)}),
    ("add.reduce-none-initial", np.add.reduce, (M,), {"axis": None, "initial": 1.5}),
    ("multiply.reduce", np.multiply.reduce, (M, 1), {}),
    ("multiply.reduce-none", np.multiply.reduce, (V,), {"axis": None}),
    ("maximum.reduce", np.maximum.reduce, (M,), {}),
    ("maximum.reduce-axis-initial", np.maximum.reduce, (M, 1), {"initial": 0.2}),
    ("minimum.reduce", np.minimum.reduce, (X, -1), {"keepdims": True}),
    ("logaddexp.reduce", np.logaddexp.reduce, (V,), {}),
    ("logaddexp.reduce-axis", np.logaddexp.reduce, (X, 1), {}),
    ("add.accumulate", np.add.accumulate, (M,), {}),
    ("multiply.accumulate", np.multiply.accumulate, (M, 1), {}),
    ("maximum.accumulate", np.maximum.accumulate, (X,), {"axis": 2}),
    ("minimum.accumulate", np.minimum.accumulate, (V,), {}),
    ("logaddexp.accumulate", np.logaddexp.accumulate, (M, -1), {}),
    ("add.reduceat", np.add.reduceat, (V, np.array([0, 3, 1, 4])), {}),
    ("add.reduceat-axis", np.add.reduceat, (X, [0, 2, 2, 3]), {"axis": -1}),
    ("multiply.reduceat", np.multiply.reduceat, (M, [1, 0, 2]), {"axis": 1}),
    ("maximum.reduceat", np.maximum.reduceat, (X, [1], 1), {}),
    ("minimum.reduceat", np.minimum.reduceat, (V, [4, 2, 3, 0]), {}),
    ("add.outer", np.add.outer, (V, M), {}),
    ("subtract.outer", np.subtract.outer, (M, V), {}),
    ("multiply.outer", np.multiply.outer, (V, V[:3]), {}),
    ("divide.outer", np.divide.outer, (V, np.exp(M)), {}),
]


# NumPy 2.1 on.
if hasattr(np, "cumulative_sum"):
    CALLS += [
        ("cumulative_sum", np.cumulative_sum, (V,), {}),
        ("cumulative_sum-initial-axis", np.cumulative_sum, (X,),
         {"axis": 1, "include_initial": True}),
        ("cumulative_prod", np.cumulative_prod, (M,), {"axis": -1}),
        ("cumulative_prod-initial", np.cumulative_prod, (V,), {"include_initial": True}),
    ]  # fmt: skip


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_rules_match_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)
    check_frule(f, *args, **kwargs, seed=TANGENT_SEED)


def reduce_loss(x: np.ndarray) -> Any:
    sums = np.add.reduce(x * x) ** 2
    return np.sum(sums) + np.add.reduce(x, axis=None) * np.multiply.reduce(x[0], initial=1.5)


def extrema_loss(x: np.ndarray) -> Any:
    largest = np.maximum.reduce(x) ** 2
    return np.sum(largest) + np.minimum.reduce(x, axis=None) + np.maximum.reduce(x[0], initial=0.1)


def logaddexp_loss(x: np.ndarray) -> Any:
    return np.sum(np.logaddexp.reduce(x, axis=1) ** 2) + np.logaddexp.reduce(x[0])


def accumulate_loss(x: np.ndarray) -> Any:
    running = np.maximum.accumulate(x, axis=1) ** 2 + np.minimum.accumulate(x) * x
    return np.sum(np.add.accumulate(x) ** 2) + np.sum(np.multiply.accumulate(x, 1)) + np.sum(
        running + np.logaddexp.accumulate(x, 1) ** 2
    )  # fmt: skip


def reduceat_loss(x: np.ndarray) -> Any:
    """Slices of several elements, one element where the next index is not beyond
    (`[2, 1]`, `[1, 1]`), the last to the end, along either axis."""
    sums = np.add.reduceat(x, np.array([0, 2, 1, 1]), axis=1) ** 2
    products = np.multiply.reduceat(x, [0, 2]) * np.maximum.reduceat(x, [2, 0, 1])[:2]
    return np.sum(sums) + np.sum(products) + np.sum(np.minimum.reduceat(x[0], [3, 1]) ** 3)


def cumulative_loss(x: np.ndarray) -> Any:
    sums = np.cumulative_sum(x, axis=0, include_initial=True) ** 2
    return np.sum(sums * np.cumulative_prod(x[0] * 0.5, include_initial=True)[:4, None])


def outer_loss(x: np.ndarray) -> Any:
    table = np.add.outer(x[0], x[1]) ** 2 + np.multiply.outer(x[0], x[2])
    return np.sum(table) + np.sum(np.subtract.outer(x[:2], x[2]) ** 3) + np.sum(
        np.divide.outer(x[0], x[1] ** 2 + 1.0)
    )  # fmt: skip


@pytest.mark.parametrize(
    "f",
    [
        reduce_loss,
        extrema_loss,
        logaddexp_loss,
        accumulate_loss,
        reduceat_loss,
        pytest.param(
            cumulative_loss,
            marks=pytest.mark.skipif(not hasattr(np, "cumulative_sum"), reason="NumPy 2.1 on"),
        ),
        outer_loss,
    ],
    ids=lambda f: f.__name__,
)
def test_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, sample((3, 4), 9))


def test_single_precision() -> None:
    x = M.astype(np.float32)

    def f(a: np.ndarray) -> Any:
        return np.sum(np.logaddexp.reduce(a, 1) ** 2) + np.sum(np.multiply.outer(a[0], a[1]))

    assert srcad.grad(f)(x).dtype == np.float32
    assert srcad.jvp(f, (x,), (x,))[1].dtype == np.float32


@pytest.mark.parametrize(
    ("f", "kwargs"),
    [
        (np.add.reduce, {"where": M > 0}),
        (np.maximum.reduce, {"dtype": np.float32}),
        (np.add.accumulate, {"dtype": np.float32}),
        (lambda a, **kw: np.add.reduceat(a, [0, 2], **kw), {"dtype": np.float32}),
    ],
    ids=["where", "dtype", "accumulate-dtype", "reduceat-dtype"],
)
def test_options_refused(f: Callable[..., Any], kwargs: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedCallError):
        srcad.grad(lambda a: np.sum(f(a, **kwargs)))(M)


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
def test_reduceat_values_and_indices_numpy_refuses(ufunc: Any) -> None:
    """The definition's value is NumPy's (no indices: an empty result); an index out of
    range is NumPy's error in both modes."""
    f = srcad.grad(lambda a, i: np.sum(ufunc.reduceat(a, i, 1) ** 2), wrt=0)
    value_and_gradient = srcad.value_and_grad(lambda a: np.sum(ufunc.reduceat(a, [], 1)))
    value, gradient = value_and_gradient(M)
    assert value == 0.0
    np.testing.assert_array_equal(gradient, np.zeros_like(M))
    with pytest.raises(IndexError, match="out-of-bounds"):
        f(M, [0, 4])
    with pytest.raises(IndexError, match="out-of-bounds"):
        srcad.jvp(lambda a: ufunc.reduceat(a, [-1]), (V,), (V,))

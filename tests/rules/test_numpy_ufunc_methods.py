"""Rules for `reduce`, `accumulate` and `outer` of NumPy's ufuncs
(`rules/numpy_ufunc_methods.py`, issue 20), checked against finite differences: each rule
alone in both modes with varied axes and options, then through the public API (second order
too), and the options refused."""

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
    ("add.outer", np.add.outer, (V, M), {}),
    ("subtract.outer", np.subtract.outer, (M, V), {}),
    ("multiply.outer", np.multiply.outer, (V, V[:3]), {}),
    ("divide.outer", np.divide.outer, (V, np.exp(M)), {}),
]


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


def outer_loss(x: np.ndarray) -> Any:
    table = np.add.outer(x[0], x[1]) ** 2 + np.multiply.outer(x[0], x[2])
    return np.sum(table) + np.sum(np.subtract.outer(x[:2], x[2]) ** 3) + np.sum(
        np.divide.outer(x[0], x[1] ** 2 + 1.0)
    )  # fmt: skip


@pytest.mark.parametrize(
    "f",
    [reduce_loss, extrema_loss, logaddexp_loss, accumulate_loss, outer_loss],
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
    ],
    ids=["where", "dtype", "accumulate-dtype"],
)
def test_options_refused(f: Callable[..., Any], kwargs: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedCallError):
        srcad.grad(lambda a: np.sum(f(a, **kwargs)))(M)

"""Rules for `np.sum` and `np.mean`, checked against finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.rules.numpy_reductions import mean_rrule, sum_rrule
from srcad.tangents import NoTangent, ZeroTangent
from srcad.testing import check_rrule

X = np.random.default_rng(0).standard_normal((2, 3, 2))
REDUCTIONS = [pytest.param(np.sum, id="sum"), pytest.param(np.mean, id="mean")]

# (id, positional arguments, keyword arguments) of one call, array first.
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("all", (X,), {}),
    ("axis-0", (X,), {"axis": 0}),
    ("axis-1", (X,), {"axis": 1}),
    ("axis-negative", (X,), {"axis": -1}),
    ("axis-tuple", (X,), {"axis": (0, 2)}),
    ("axis-tuple-negative", (X,), {"axis": (-1, -3)}),
    ("axis-empty-tuple", (X,), {"axis": ()}),
    ("keepdims-all", (X,), {"keepdims": True}),
    ("keepdims-axis", (X,), {"axis": 1, "keepdims": True}),
    ("keepdims-axis-tuple", (X,), {"axis": (0, 2), "keepdims": True}),
    ("axis-positional", (X, 1), {}),
    ("axis-tuple-positional", (X, (0, 1)), {}),
    ("keepdims-positional", (X, (0, 2), None, None, True), {}),
    ("vector", (X[0, :, 0],), {}),
    ("matrix-axis-0", (X[0],), {"axis": 0}),
    ("0d", (np.array(1.5),), {}),
    ("numpy-scalar", (np.float64(1.5),), {}),
    ("python-float", (1.5,), {}),
    ("float32", (X.astype(np.float32),), {"axis": 1}),
    ("float32-to-float64", (X.astype(np.float32),), {"axis": 1, "dtype": np.float64}),
    ("complex", (X + 1j * X[::-1],), {"axis": (0, 1)}),
]


@pytest.mark.parametrize(("args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
@pytest.mark.parametrize("f", REDUCTIONS)
def test_reduction_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    float32 = np.asarray(args[0]).dtype == np.float32
    check_rrule(f, *args, rtol=1e-4 if float32 else 1e-6, atol=1e-5 if float32 else 1e-9, **kwargs)


def test_sum_of_0d_over_axis_0_matches_finite_differences() -> None:
    # np.sum (unlike np.mean) lets axis 0 or -1 "reduce" a 0-d array.
    check_rrule(np.sum, np.array(1.5), axis=-1)


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        pytest.param(sum_rrule, (X,), id="sum"),
        pytest.param(mean_rrule, (X, 1), id="mean-axis-positional"),
    ],
)
def test_zero_cotangent_stays_symbolic(rule: Callable[..., Any], args: tuple[Any, ...]) -> None:
    _, pullback = rule(*args)
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), *[NoTangent()] * (len(args) - 1))


@pytest.mark.parametrize(
    "rule", [pytest.param(sum_rrule, id="sum"), pytest.param(mean_rrule, id="mean")]
)
def test_cotangent_is_a_writable_array(rule: Callable[..., Any]) -> None:
    _, pullback = rule(X, axis=0)
    x_bar = pullback(np.ones((3, 2)))[1]
    assert x_bar.flags.writeable


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"where": X > 0}, "where", id="where"),
        pytest.param({"out": np.empty(())}, "out", id="out"),
    ],
)
@pytest.mark.parametrize(
    "rule", [pytest.param(sum_rrule, id="sum"), pytest.param(mean_rrule, id="mean")]
)
def test_unsupported_options_are_rejected(
    rule: Callable[..., Any], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        rule(X, **kwargs)

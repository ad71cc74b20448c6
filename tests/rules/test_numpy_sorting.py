"""Rules for NumPy's sorting, checked against finite differences; and functions that pair
a value with its (non-differentiable) position, differentiated end to end."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.rules import numpy_sorting
from srcad.rules.numpy_sorting import sort_rrule
from srcad.tangents import NoTangent, Thunk, ZeroTangent
from srcad.testing import check_frule, check_rrule, finite_difference_vjp
from tests.conftest import sample

# The seed of random tangents, apart from the data's: a tangent equal to its primal (both
# drawn from seed 0) would hide a rule that confuses the two.
TANGENT_SEED = 7


# (id, positional arguments, keyword arguments) of one np.sort call; random values, so no
# ties, where sorting has no derivative.
SORT_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("vector", (sample((5,), 0),), {}),
    ("one-element", (sample((1,), 0),), {}),
    ("matrix-last-axis", (sample((3, 4), 0),), {}),
    ("matrix-axis-0", (sample((3, 4), 0),), {"axis": 0}),
    ("axis-positional", (sample((3, 4), 0), 0), {}),
    ("3d-axis-1", (sample((2, 3, 4), 0),), {"axis": 1}),
    ("3d-axis-negative", (sample((2, 3, 4), 0),), {"axis": -2}),
    ("flattened", (sample((3, 4), 0),), {"axis": None}),
    ("flattened-positional", (sample((2, 3), 0), None), {}),
    ("0d-flattened", (np.array(1.5),), {"axis": None}),
    ("kind-stable", (sample((3, 4), 0),), {"kind": "stable"}),
    ("kind-positional", (sample((3, 4), 0), -1, "mergesort"), {}),
    ("stable-keyword", (sample((4,), 0),), {"stable": True}),
    ("complex", (sample((2, 4), 0, complex),), {}),
]


@pytest.mark.parametrize(("args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in SORT_CALLS])
def test_sort_matches_finite_differences(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    check_rrule(np.sort, *args, **kwargs)


def test_sort_keeps_float32() -> None:
    check_rrule(np.sort, sample((3, 4), 0, np.float32), axis=0, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in SORT_CALLS])
def test_sort_forward_rule_matches_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(np.sort, *args, **kwargs, seed=TANGENT_SEED)


def test_sort_forward_rule_keeps_float32() -> None:
    check_frule(
        np.sort, sample((3, 4), 0, np.float32), axis=0, rtol=1e-4, atol=1e-5, seed=TANGENT_SEED
    )


def test_sort_forward_rule_takes_a_thunk_and_keeps_zeros_symbolic() -> None:
    x, dot = sample((3, 4), 0), sample((3, 4), 1)
    expected = srcad.frule((NoTangent(), dot), np.sort, x)[1]
    np.testing.assert_array_equal(
        srcad.frule((NoTangent(), Thunk(lambda: dot)), np.sort, x)[1], expected
    )
    assert srcad.frule((NoTangent(), NoTangent(), NoTangent()), np.sort, x, 0)[1] is ZeroTangent()


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_sorting.rules.rrules) <= set(numpy_sorting.rules.frules)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param((sample((3,), 0),), 2, id="default"),
        pytest.param((sample((2, 3), 0), None), 3, id="axis-positional"),
    ],
)
def test_zero_cotangent_stays_symbolic(args: tuple[Any, ...], expected: int) -> None:
    cotangents = sort_rrule(*args)[1](ZeroTangent())
    assert len(cotangents) == expected
    assert cotangents[0] is NoTangent() and cotangents[1] is ZeroTangent()


# Functions pairing values with positions: the positions come from np.argmax, np.argmin
# and np.argsort, which are non-differentiable, so they are constants to the gradient.


def max_times_value_at_argmax(x):
    return np.max(x) * x[np.argmax(x)]


def top_gap_plus_minimum(x):
    s = np.sort(x)
    return s[-1] - s[-2] + 3.0 * x[np.argmin(x)]


def sorted_by_argsort_weighted(x):
    order = np.argsort(x)
    return np.sum(x[order] * np.sort(x) * np.arange(x.shape[0]))


# passes/checks/callees.py skips every call whose attribute is an in-place method name (`.sort`),
# even when the receiver is the module `np`, so compiling a call to `np.sort` fails.


@pytest.mark.parametrize(
    "f",
    [
        pytest.param(max_times_value_at_argmax, id="max-and-argmax"),
        pytest.param(top_gap_plus_minimum, id="sort-and-argmin"),
        pytest.param(sorted_by_argsort_weighted, id="argsort-and-sort"),
    ],
)
def test_gradient_through_positions_matches_finite_differences(f: Any) -> None:
    x = sample((5,), 3)
    expected = finite_difference_vjp(f, (x,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(f)(x), expected, rtol=1e-6, atol=1e-9)

"""`np.compress`, `np.delete`, `np.insert`, `np.choose`, `np.diagflat`, `np.block` and
`sliding_window_view` (`rules/numpy_moves.py`): each rule alone in both modes against
finite differences, over the ways NumPy names positions (negative indices, slices, masks,
masks shorter than the axis, several insertion points, broadcast values, the modes of
`np.choose`, diagonals above and below, overlapping windows along chosen axes); whole
functions through the public API (second order too: `np.block` nested there, as the rule
checker takes flat lists); and the calls NumPy refuses, refused with NumPy's error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import srcad
from srcad.testing import check_frule, check_rrule
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api

M = sample((3, 4), 1)
V = sample((5,), 2)
A = np.array([[0, 2, 1, 1], [2, 2, 0, 1], [1, 0, 0, 2]])

CALLS = [
    ("compress", np.compress, ([True, False, True], M), {"axis": 0}),
    ("compress-short", np.compress, ([False, True], M), {"axis": 1}),
    ("compress-flat", np.compress, (np.array([1, 0, 1, 1, 0, 0, 1]), M), {}),
    ("delete", np.delete, (V, [0, -1, 0]), {}),
    ("delete-slice-axis", np.delete, (M, slice(1, None, 2)), {"axis": 1}),
    ("delete-mask-flat", np.delete, (M, np.arange(12) % 5 == 0), {}),
    ("insert", np.insert, (V, 2, 0.5), {}),
    ("insert-several", np.insert, (V, [1, 1, -1], V[:3] * 2.0), {}),
    ("insert-column", np.insert, (M, 1, V[:3]), {"axis": 1}),
    ("insert-broadcast-row", np.insert, (M, [0, 3], V[:4]), {"axis": 0}),
    ("choose", np.choose, (A, [M, M**2, 1.5 - M]), {}),
    ("choose-broadcast", np.choose, (A[0], (V[:4], M[1], 0.25)), {}),
    ("choose-wrap", np.choose, (A + 2, [M, V[:4]]), {"mode": "wrap"}),
    ("choose-clip", np.choose, (A - 1, [M, V[:4], M.T[0:1].T]), {"mode": "clip"}),
    ("diagflat", np.diagflat, (V,), {}),
    ("diagflat-matrix-below", np.diagflat, (M[:2, :2], -2), {}),
    ("block-flat", np.block, ([V, M[0], 2.0],), {}),
    ("windows", sliding_window_view, (V, 3), {}),
    ("windows-2d", sliding_window_view, (M, (2, 2)), {}),
    ("windows-axis", sliding_window_view, (M, 2), {"axis": 0}),
]


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_rules_match_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)
    check_frule(f, *args, **kwargs, seed=5)


def edited(x):
    m = np.reshape(x, (2, 4))
    kept = np.compress(m[0] > -10.0, m * m, axis=1)  # a condition computed, all true
    fewer = np.delete(m, [1, -1], axis=1)
    more = np.insert(x, [0, 2, 2], np.sin(x[:3]))
    chosen = np.choose(np.array([[1, 0, 2, 0], [0, 2, 1, 1]]), np.stack([m, -m, m**3]))
    return np.sum(kept * m) + np.sum(fewer**3) + np.sum(more**2 * x[0]) + np.sum(chosen * m)


def framed(x):
    m = np.reshape(x, (2, 4))
    windows = sliding_window_view(x, 3)
    frame = np.block([[np.diagflat(x[:2], 1), m[:, :3].T], [x[5:8], m[1, 2:4] ** 2]])
    return np.sum(np.prod(windows, axis=1)) + np.sum(frame**3 * np.sin(x[0]))


def test_through_the_api() -> None:
    check_through_api(framed, sample((8,), 10))
    check_through_api(edited, sample((8,), 9))


@pytest.mark.parametrize(
    ("f", "error"),
    [
        (lambda x: np.delete(x, [5]), IndexError),
        (lambda x: np.insert(x, 7, 1.0), IndexError),
        (lambda x: np.choose([0, 3, 1], [x[:3], x[1:4]]), ValueError),
        (lambda x: np.compress([False] * 5 + [True], x), IndexError),
    ],
    ids=["delete", "insert", "choose", "compress"],
)
def test_what_numpy_refuses_is_refused(f: Callable[..., Any], error: type) -> None:
    with pytest.raises(error):
        srcad.jvp(f, (V,), (V,))


def choose_into(x):
    return np.sum(np.choose([0, 1], [x[:2], x[2:4]], np.zeros(2)))


def compress_into(x):
    return np.sum(np.compress([True, False], x[:2], 0, np.zeros(1)))


def writeable_windows(x):
    return np.sum(sliding_window_view(x, 2, writeable=True))


@pytest.mark.parametrize(
    "f", [choose_into, compress_into, writeable_windows], ids=lambda f: f.__name__
)
def test_out_is_refused(f: Callable[..., Any]) -> None:
    """Refused at the user's line where `out` is given by position (E304, s37-audit's check,
    before any rule runs), else when the rule runs."""
    with pytest.raises(srcad.SrcadError, match=r"out|writeable"):
        srcad.grad(f)(V)

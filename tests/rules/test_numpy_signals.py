"""Rules for `np.convolve`, `np.correlate` and `np.ediff1d` (`rules/numpy_signals.py`, issue
20), checked against finite differences: each rule alone in both modes for every mode and
every order of lengths (the window NumPy cuts from the full result moves with them), complex
too, then through the public API (second order too), and the modes it refuses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api

TANGENT_SEED = 3
LENGTHS = [(1, 3), (2, 5), (4, 4), (5, 2), (6, 3)]
MODES = ["full", "same", "valid"]


@pytest.mark.parametrize("f", [np.convolve, np.correlate], ids=lambda f: f.__name__)
@pytest.mark.parametrize(("n", "m"), LENGTHS)
@pytest.mark.parametrize("mode", MODES)
def test_rules_match_finite_differences(f: Callable[..., Any], n: int, m: int, mode: str) -> None:
    a, v = sample((n,), n), sample((m,), 10 + m)
    check_rrule(f, a, v, mode)
    check_frule(f, a, v, mode=mode, seed=TANGENT_SEED)


@pytest.mark.parametrize("f", [np.convolve, np.correlate], ids=lambda f: f.__name__)
@pytest.mark.parametrize(("n", "m"), [(4, 3), (2, 5)])
def test_complex_rules_match_finite_differences(f: Callable[..., Any], n: int, m: int) -> None:
    a, v = sample((n,), 1, np.complex128), sample((m,), 2, np.complex128)
    for mode in MODES:
        check_rrule(f, a, v, mode)
        check_frule(f, a, v, mode, seed=TANGENT_SEED)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((sample((3, 4), 4),), {}),
        ((sample((5,), 5), sample((2,), 6)), {}),
        ((sample((5,), 5),), {"to_begin": sample((3,), 7), "to_end": 0.5}),
    ],
    ids=["matrix", "to-end", "both-ends"],
)
def test_ediff1d_rules_match_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(np.ediff1d, *args, **kwargs)
    check_frule(np.ediff1d, *args, **kwargs, seed=TANGENT_SEED)


def convolve_loss(x: np.ndarray) -> Any:
    same = np.convolve(x[0], x[1, :3], "same")
    valid = np.convolve(x[2, :2], x[1], mode="valid")
    return np.sum(np.convolve(x[0], x[1]) ** 2) + np.sum(same**2) + np.sum(valid * x[0, :4])


def correlate_loss(x: np.ndarray) -> Any:
    smoothed = np.correlate(x[0], np.array([0.25, 0.5, 0.25]), "same")
    return np.sum(np.correlate(x[0], x[1, :3]) ** 2) + np.sum(
        np.correlate(x[2, :2], x[1], "same") ** 3
    ) + np.sum(smoothed**2)  # fmt: skip


def ediff1d_loss(x: np.ndarray) -> Any:
    ends = np.ediff1d(x[0], to_begin=x[1, 0], to_end=x[2, :2])
    return np.sum(np.ediff1d(x) ** 2) + np.sum(ends**3) + np.sum(np.ediff1d(x[1], [1.0]) ** 2)


@pytest.mark.parametrize(
    "f", [convolve_loss, correlate_loss, ediff1d_loss], ids=lambda f: f.__name__
)
def test_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, sample((3, 5), 11))


@pytest.mark.parametrize("f", [convolve_loss, ediff1d_loss], ids=lambda f: f.__name__)
def test_single_precision(f: Callable[[np.ndarray], Any]) -> None:
    x = sample((3, 5), 12).astype(np.float32)
    assert srcad.grad(f)(x).dtype == np.float32
    assert srcad.jvp(f, (x,), (x,))[1].dtype == np.asarray(f(x)).dtype


@pytest.mark.parametrize("f", [np.convolve, np.correlate], ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_modes_by_number(f: Callable[..., Any], mode: int) -> None:
    """NumPy takes 0, 1 and 2 for "valid", "same" and "full"."""
    a, v = sample((5,), 1), sample((2,), 2)
    check_rrule(f, a, v, mode)
    check_frule(f, a, v, mode, seed=TANGENT_SEED)

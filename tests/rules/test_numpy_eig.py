"""Rules for `np.linalg.eig`, `eigvals` and `pinv`, checked against finite differences:
the eigenvectors as NumPy normalises them (norm 1, the largest component real)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.testing import check_frule, check_rrule
from tests.rules.through_the_api import check_through_api

TANGENT_SEED = 7
RNG = np.random.default_rng(8)
GENERAL = RNG.standard_normal((4, 4))  # two complex pairs of eigenvalues
_BASIS = RNG.standard_normal((4, 4))
REAL_SPECTRUM = _BASIS @ np.diag([1.0, 2.5, -1.0, 4.0]) @ np.linalg.inv(_BASIS)
COMPLEX = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
STACK = RNG.standard_normal((2, 3, 3))
TALL = RNG.standard_normal((5, 3))
WIDE = RNG.standard_normal((2, 4))
RANK_2 = RNG.standard_normal((4, 2)) @ RNG.standard_normal((2, 3))


def test_the_matrices_have_the_spectra_named() -> None:
    assert np.iscomplexobj(np.linalg.eigvals(GENERAL))
    # NumPy 2.5 returns a complex array even for a real spectrum.
    assert np.all(np.imag(np.linalg.eigvals(REAL_SPECTRUM)) == 0)


Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

CALLS: list[Call] = [
    ("eig-complex-spectrum", np.linalg.eig, (GENERAL,), {}),
    ("eig-real-spectrum", np.linalg.eig, (REAL_SPECTRUM,), {}),
    ("eig-complex-matrix", np.linalg.eig, (COMPLEX,), {}),
    ("eig-stack", np.linalg.eig, (STACK,), {}),
    ("eigvals", np.linalg.eigvals, (GENERAL,), {}),
    ("eigvals-real", np.linalg.eigvals, (REAL_SPECTRUM,), {}),
    ("eigvals-complex", np.linalg.eigvals, (COMPLEX,), {}),
    ("pinv-square", np.linalg.pinv, (GENERAL,), {}),
    ("pinv-tall", np.linalg.pinv, (TALL,), {}),
    ("pinv-wide", np.linalg.pinv, (WIDE,), {}),
    # At constant rank: a cut that keeps the perturbed singular values out of the rank.
    ("pinv-rank-deficient", np.linalg.pinv, (RANK_2, 1e-2), {}),
    ("pinv-complex", np.linalg.pinv, (COMPLEX[:, :2],), {}),
    ("pinv-stack", np.linalg.pinv, (STACK,), {}),
    ("pinv-rcond", np.linalg.pinv, (TALL, 1e-10), {}),
]


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_reverse_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_forward_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **kwargs, rtol=1e-5, atol=1e-8, seed=TANGENT_SEED)


def eig_loss(x: np.ndarray) -> Any:
    w, v = np.linalg.eig(x)
    return np.sum(np.real(w) ** 2) + np.sum(np.abs(v[0]) ** 2) + np.sum(np.real(v) * x)


def eigvals_loss(x: np.ndarray) -> Any:
    return np.sum(np.abs(np.linalg.eigvals(x @ x)))


def pinv_loss(x: np.ndarray) -> Any:
    return np.sum(np.linalg.pinv(x[:, :3]) ** 2)


@pytest.mark.parametrize("f", [eig_loss, eigvals_loss, pinv_loss], ids=lambda f: f.__name__)
def test_first_order_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, GENERAL, second_order=False)


def eig_smooth_loss(x: np.ndarray) -> Any:
    result = np.linalg.eig(x)
    return np.sum(np.real(result[0] * result[0])) + np.sum(np.imag(result[1]) * x)


def eigvals_smooth_loss(x: np.ndarray) -> Any:
    w = np.linalg.eigvals(x)
    return np.sum(np.real(w * w * w))


@pytest.mark.parametrize("f", [eig_smooth_loss, eigvals_smooth_loss, pinv_loss],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_second_order_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, GENERAL)

"""`scipy.linalg`'s routines that NumPy computes too (rules/scipy_linalg_numpy.py), through
the public API against finite differences in both modes and to second order, on inputs
that are not symmetric where SciPy reads one triangle (the triangle not read differs). They
were refused (SciPy's own source, or no rule), found differentiating ordinary SciPy code.
Skipped where SciPy is not installed (an optional dependency)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

linalg = pytest.importorskip("scipy.linalg")

import srcad  # noqa: E402
from srcad.errors import SrcadError  # noqa: E402
from srcad.registry import REGISTRY  # noqa: E402
from tests.rules.through_the_api import check_through_api  # noqa: E402

RNG = np.random.default_rng(37)
BASE = RNG.standard_normal((3, 3))


def matrix_of(x: np.ndarray) -> np.ndarray:
    """A well-conditioned matrix, not symmetric, moving with all of `x`."""
    return np.reshape(x, (3, 3)) + 3.0 * np.eye(3)


def lopsided_of(x: np.ndarray) -> np.ndarray:
    """Positive definite in each triangle, and not symmetric."""
    m = np.reshape(x, (3, 3))
    return m @ m.T + 3.0 * np.eye(3) + np.triu(BASE, 1)


def inverse(x):
    return np.sum(np.sin(linalg.inv(matrix_of(x))))


def determinant(x):
    return linalg.det(matrix_of(x)) ** 2


def solved(x):
    a = matrix_of(x)
    transposed = linalg.solve(a, x[3:6], transposed=True)
    return np.sum(linalg.solve(a, np.cos(x[:3])) ** 2) + np.sum(transposed)


def solved_symmetric(x):
    a = lopsided_of(x)
    upper = linalg.solve(a, x[:3], assume_a="sym")
    lower = linalg.solve(a, np.sin(x[3:6]), assume_a="pos", lower=True)
    return np.sum(upper**2) + np.sum(lower * x[6:9])


def cholesky_factors(x):
    a = lopsided_of(x)
    return np.sum(linalg.cholesky(a) ** 3) + np.sum(np.sin(linalg.cholesky(a, lower=True)))


def eigen(x):
    a = lopsided_of(x)
    values, vectors = linalg.eigh(a)
    upper_values = linalg.eigh(a, lower=False, eigvals_only=True)
    return np.sum(values * vectors[0] ** 2) + np.sum(vectors[:, 1] * x[:3]) + np.sum(
        upper_values**2
    ) + np.sum(linalg.eigvalsh(a) ** 3)  # fmt: skip


def singular(x):
    a = matrix_of(x)
    u, s, vh = linalg.svd(a)
    thin_u, thin_s, thin_vh = linalg.svd(a[:, :2], full_matrices=False)
    total = np.sum(u[:, 0] * x[:3]) + np.sum(s**2) + np.sum(vh[1] * np.cos(x[3:6]))
    return total + np.sum(thin_u[0] * thin_s) + np.sum(thin_vh**3) + np.sum(linalg.svdvals(a))


def pseudo_inverse(x):
    return np.sum(linalg.pinv(np.reshape(x, (3, 3))[:, :2] + np.eye(3)[:, :2]) ** 2)


def norms(x):
    a = matrix_of(x)
    return linalg.norm(a) + linalg.norm(x) ** 3 + np.sum(linalg.norm(a, axis=0) ** 2)


def other_norms(x):
    """Orders whose second derivatives NumPy's rule does not take (`rules/numpy_norms.py`)."""
    return linalg.norm(x, 3) + linalg.norm(matrix_of(x), 1) + linalg.norm(x, np.inf)


MODELS = [inverse, determinant, solved, solved_symmetric, cholesky_factors, eigen, singular,
          pseudo_inverse, norms]  # fmt: skip


@pytest.mark.parametrize("f", MODELS, ids=lambda f: f.__name__)
def test_through_the_api_to_second_order(f: Any) -> None:
    check_through_api(f, 0.3 * RNG.standard_normal(9))


def test_other_norms_to_first_order() -> None:
    check_through_api(other_norms, 0.3 * RNG.standard_normal(9), second_order=False)


def test_values_are_scipys() -> None:
    """The value is SciPy's own, its eigenvectors and singular vectors with SciPy's signs."""
    x = 0.3 * RNG.standard_normal(9)
    for f in MODELS:
        value, _ = srcad.value_and_grad(f)(x)
        assert value == f(x)


@pytest.mark.parametrize(
    ("f", "match"),
    [
        (lambda x: np.sum(linalg.inv(matrix_of(x), overwrite_a=True)), "overwrite_a"),
        (lambda x: np.sum(linalg.solve(matrix_of(x), x[:3], assume_a="banded")), "assume_a"),
        (lambda x: np.sum(linalg.eigh(matrix_of(x), np.eye(3))[0]), "generalized"),
        (lambda x: np.sum(linalg.svd(matrix_of(x)[:, :2])[0]), "full_matrices"),
        (lambda x: np.sum(linalg.pinv(matrix_of(x), rtol=0.1)), "rtol"),
    ],
)
def test_what_is_not_differentiated_is_refused(f: Any, match: str) -> None:
    with pytest.raises((SrcadError, TypeError), match=match):
        srcad.grad(f)(0.3 * RNG.standard_normal(9))


@pytest.mark.parametrize("name", ["inv", "det", "solve", "cholesky", "eigh", "eigvalsh", "svd",
                                  "svdvals", "pinv", "norm"])  # fmt: skip
def test_both_rules_are_registered(name: str) -> None:
    f = getattr(linalg, name)
    assert REGISTRY.rrule_for(f) is not None
    assert REGISTRY.frule_for(f) is not None


def test_vectors_turned_to_scipys_or_refused() -> None:
    """`phases` turns each of NumPy's vectors to SciPy's (a sign, or a complex phase), and
    refuses vectors that are not the same up to it (a repeated eigenvalue's, rotated)."""
    from srcad.rules.scipy_linalg_numpy import phases

    q = np.linalg.qr(RNG.standard_normal((3, 3)))[0]
    np.testing.assert_array_equal(phases(q, q * np.array([1.0, -1.0, -1.0])), [1, -1, -1])
    turn = np.exp(1j * np.array([0.3, -2.0, 1.0]))
    np.testing.assert_allclose(phases(q + 0j, q * turn), turn)
    c, s = np.cos(0.4), np.sin(0.4)
    rotated = q @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(SrcadError, match="repeated eigenvalue"):
        phases(q, rotated)

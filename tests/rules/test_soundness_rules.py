"""Soundness of rules on inputs that lack the property a routine assumes (issue 17).

A rule must give the derivative of what NumPy actually computes. Cholesky, eigh and
`svd(hermitian=True)` read one triangle of their argument (and the real part of its
diagonal): on a matrix that is not Hermitian, the entries they do not read have a zero
derivative. Every check perturbs every entry of a matrix that is *not* Hermitian, by central
finite differences, in both modes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_jvp, finite_difference_vjp


def sample(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.standard_normal(shape)
    return np.asarray(values, dtype=dtype)


def lopsided(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    """A matrix (or stack) far from Hermitian whose either triangle, mirrored, is positive
    definite with eigenvalues far apart: a diagonal 3, 6, 9, ... plus small noise, then
    different noise added to each triangle (and to the imaginary part of the diagonal)."""
    n = shape[-1]
    base = np.diag(3.0 * np.arange(1, n + 1)) + 0.3 * sample(shape, seed, dtype)
    junk = sample(shape, seed + 1, dtype)
    return np.asarray(
        base
        + 0.5 * np.triu(junk, 1)
        - 0.4 * np.tril(junk.swapaxes(-1, -2), -1)
        + (0.7j * np.eye(n) if np.iscomplexobj(base) else 0),
        dtype=dtype,
    )


def eigh_values_lower(a):
    w, _v = np.linalg.eigh(a)
    return np.sum(w * np.arange(1.0, 1.0 + w.shape[-1]))


def eigh_values_upper(a):
    w, _v = np.linalg.eigh(a, "U")
    return np.sum(w * np.arange(1.0, 1.0 + w.shape[-1]))


def eigh_values_upper_keyword(a):
    w, _v = np.linalg.eigh(a, UPLO="u")
    return np.sum(w * w)


def eigh_function_lower(a):
    w, v = np.linalg.eigh(a)
    return np.sum(np.real(v * np.conj(v)) * np.sin(w)[..., np.newaxis, :] * np.cos(a.real))


def eigh_function_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(np.real((v * np.exp(0.1 * w)[..., np.newaxis, :]) @ np.conj(v).swapaxes(-1, -2)))


def cholesky_lower(a):
    return np.sum(np.abs(np.linalg.cholesky(a)) ** 2 * np.arange(1.0, 1.0 + a.shape[-1]))


def cholesky_upper(a):
    return np.sum(np.real(np.linalg.cholesky(a, upper=True)) * np.arange(1.0, 1.0 + a.shape[-1]))


def svd_hermitian_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False, hermitian=True) ** 3)


def svd_hermitian_product(a):
    u, s, vh = np.linalg.svd(a, hermitian=True)
    return np.sum(np.real((u * np.sqrt(s)[..., np.newaxis, :]) @ vh) * np.arange(1.0, 4.0))


TRIANGLE_READERS = [
    ("eigh-values-lower", eigh_values_lower, (3, 3), float),
    ("eigh-values-lower-complex", eigh_values_lower, (3, 3), complex),
    ("eigh-values-lower-stack", eigh_values_lower, (2, 3, 3), float),
    ("eigh-values-upper", eigh_values_upper, (3, 3), float),
    ("eigh-values-upper-complex", eigh_values_upper, (3, 3), complex),
    ("eigh-values-upper-keyword", eigh_values_upper_keyword, (4, 4), float),
    ("eigh-function-lower", eigh_function_lower, (3, 3), float),
    ("eigh-function-lower-complex", eigh_function_lower, (3, 3), complex),
    ("eigh-function-upper", eigh_function_upper, (3, 3), float),
    ("eigh-function-upper-stack", eigh_function_upper, (2, 3, 3), float),
    ("cholesky-lower", cholesky_lower, (3, 3), float),
    ("cholesky-lower-complex", cholesky_lower, (3, 3), complex),
    ("cholesky-lower-stack", cholesky_lower, (2, 4, 4), float),
    ("cholesky-upper", cholesky_upper, (3, 3), float),
    ("cholesky-upper-complex", cholesky_upper, (3, 3), complex),
    ("svd-hermitian-values", svd_hermitian_values, (3, 3), float),
    ("svd-hermitian-product", svd_hermitian_product, (3, 3), float),
]


@pytest.mark.parametrize(
    ("f", "shape", "dtype"), [pytest.param(*c[1:], id=c[0]) for c in TRIANGLE_READERS]
)
def test_triangle_readers_reverse_match_finite_differences(f: Any, shape: Any, dtype: Any) -> None:
    a = lopsided(shape, 0, dtype)
    assert not np.allclose(a, np.conj(a.swapaxes(-1, -2)))
    expected = finite_difference_vjp(f, (a,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(f)(a), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    ("f", "shape", "dtype"), [pytest.param(*c[1:], id=c[0]) for c in TRIANGLE_READERS]
)
def test_triangle_readers_forward_match_finite_differences(f: Any, shape: Any, dtype: Any) -> None:
    a = lopsided(shape, 0, dtype)
    a_dot = sample(shape, 5, dtype)
    _, y_dot = srcad.jvp(f, (a,), (a_dot,))
    expected = finite_difference_jvp(f, (a,), (a_dot,))
    np.testing.assert_allclose(y_dot, expected, rtol=1e-6, atol=1e-8)


def test_the_triangle_not_read_gets_a_zero_gradient() -> None:
    a = lopsided((4, 4), 3)
    lower, upper = srcad.grad(eigh_values_lower)(a), srcad.grad(eigh_values_upper)(a)
    assert np.all(np.triu(lower, 1) == 0.0) and np.any(np.tril(lower, -1) != 0.0)
    assert np.all(np.tril(upper, -1) == 0.0) and np.any(np.triu(upper, 1) != 0.0)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", [float, complex])
def test_cholesky_rules_on_a_matrix_that_is_not_hermitian(upper: bool, dtype: Any) -> None:
    """The factor is unique, so both rules are checked directly, entry by entry."""
    a = lopsided((3, 3), 7, dtype)
    check_rrule(np.linalg.cholesky, a, upper=upper)
    check_frule(np.linalg.cholesky, a, upper=upper)


def test_gradient_inside_a_loop_and_a_helper() -> None:
    def helper(m):
        return np.linalg.eigh(m, UPLO="U")[0]

    def f(a):
        total = 0.0
        for k in range(2):
            total = total + np.sum(helper(a + k * np.eye(3)) ** 2) + np.sum(np.linalg.cholesky(a))
        return total

    a = lopsided((3, 3), 11)
    np.testing.assert_allclose(
        srcad.grad(f)(a), finite_difference_vjp(f, (a,), 1.0, 0), rtol=1e-6, atol=1e-8
    )
    jac_fwd = srcad.jacobian(f, mode="forward")(a)
    np.testing.assert_allclose(jac_fwd, srcad.grad(f)(a), rtol=1e-9, atol=1e-12)

"""Second derivatives through the factorisations (`rules/numpy_factorisations.py`), whose
forward rules srcad compiles: through every part of each result, of complex matrices,
with each option, and refused (not guessed) at repeated eigenvalues or singular values."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from tests.rules.test_higher_order import check_second_order

M = np.array([[1.2, 0.3, -0.4], [0.1, 0.9, 0.5], [-0.3, 0.2, 1.6]])
WIDE = np.array([[1.2, 0.3, -0.4, 0.7], [0.1, 0.9, 0.5, -0.2], [-0.3, 0.2, 1.6, 0.4]])


def hermitian(m):
    """A complex Hermitian positive definite matrix made from `m`."""
    z = m + 0.4j * np.roll(m, 1, axis=1)
    return z @ np.conj(z.T) + np.eye(3)


def cholesky_both_triangles(m):
    s = m @ m.T + np.eye(3)
    lower = np.linalg.cholesky(s)
    upper = np.linalg.cholesky(s, upper=True)
    c = np.linalg.cholesky(hermitian(m))
    return np.sum(np.sin(lower)) + np.sum(upper**3) + np.sum(np.real(c * np.conj(c)) ** 2)


def eigh_vectors(m):
    """Through the eigenvectors' squares (their signs are a gauge), of both triangles, and
    of a complex Hermitian matrix (through the moduli of its eigenvectors' entries)."""
    w, v = np.linalg.eigh(m + m.T)
    upper = np.linalg.eigh(m, "U")
    c = np.linalg.eigh(hermitian(m))
    moduli = np.real(c[1] * np.conj(c[1]))
    return (
        np.sum(w * np.sum(v**2 * np.arange(3.0), 0))
        + np.sum(np.sin(upper[0]))
        + np.sum(moduli**2 * np.arange(3.0))
        + np.sum(c[0] ** 2)
    )


def qr_parts(m):
    """Both factors, of a tall, a square and a wide matrix, and `mode="r"`."""
    q, r = np.linalg.qr(m)
    tall = np.linalg.qr(np.concatenate([m, m * m]))
    wide = np.linalg.qr(np.concatenate([m, m[:, :1] ** 2], axis=1))
    r_only = np.linalg.qr(m, "r")
    return (np.sum(np.sin(q) * r) + np.sum(tall[0] ** 3) + np.sum(np.cos(wide[1]))
            + np.sum(r_only**2))  # fmt: skip


def svd_parts(m):
    """Every part: the singular vectors through products that fix their signs (`u s vh` of
    columns), of a square and a wide matrix, and the values alone."""
    u, s, vh = np.linalg.svd(m)
    wide = np.linalg.svd(np.concatenate([m, m[:, :1] ** 2], axis=1), full_matrices=False)
    values = np.linalg.svd(m * m, compute_uv=False)
    rank_one = u[:, :1] * vh[:1, :]
    return (np.sum(np.sin(s)) + np.sum(rank_one**3) + np.sum(wide[1] ** 2)
            + np.sum((wide[0][:, :1] * wide[2][:1, :]) ** 2) + np.sum(values**3))  # fmt: skip


def svd_hermitian_and_complex(m):
    """`hermitian=True` (of an indefinite matrix, whose `u` and `v` differ in sign), and a
    complex matrix through phase-free products of its singular vectors."""
    u, s, vh = np.linalg.svd(m + m.T - np.eye(3), hermitian=True)
    r = np.linalg.svd(m + 0.3j * m.T)
    rank_one = r[0][:, :1] * r[2][:1, :]
    return (np.sum((u[:, :1] * vh[:1, :]) ** 3) + np.sum(s**3) + np.sum(r[1] ** 3)
            + np.sum(np.real(rank_one * np.conj(rank_one)) ** 2))  # fmt: skip


@pytest.mark.parametrize(
    "objective",
    [cholesky_both_triangles, eigh_vectors, qr_parts, svd_parts, svd_hermitian_and_complex],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_second_derivatives_through_every_part(objective):
    check_second_order(objective, (M,))


def test_repeated_eigenvalues_are_refused():
    """At `a = I` the eigenvectors have no derivative, and the forward rule's tangent of
    them is infinite: a second derivative through `eigh` there is an error, even of the
    eigenvalues alone (whose would be NaN), never a number."""

    def through_vectors(m):
        w, v = np.linalg.eigh(m + m.T)
        return np.sum(w**2) + np.sum(v[:, 0] ** 4)

    def through_values(m):
        return np.sum(np.linalg.eigh(m)[0] ** 2)

    np.testing.assert_allclose(srcad.grad(through_values)(np.eye(3)), 2.0 * np.eye(3))
    for objective in (through_vectors, through_values):
        with pytest.raises(SrcadError, match="distinct"):
            srcad.hessian(objective)(np.eye(3))


def test_repeated_singular_values_are_refused():
    def through_vectors(m):
        u, _, vh = np.linalg.svd(m)
        return np.sum((u[:, :1] * vh[:1, :]) ** 4)

    with pytest.raises(SrcadError, match="distinct"):
        srcad.hessian(through_vectors)(2.0 * np.eye(3))

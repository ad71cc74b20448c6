"""Rules for `np.linalg`'s inverses, solves, determinants, matrix powers, factorisations
and least squares, checked against finite differences.

Factorisations whose factors are fixed only up to signs or phases (eigh, svd) are checked
through small functions below whose values do not depend on that choice; srcad compiles
them through the rules under test.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.rules.numpy_decompositions import (
    cholesky_rrule,
    det_rrule,
    eigh_rrule,
    inv_rrule,
    lstsq_rrule,
    matrix_power_rrule,
    qr_rrule,
    slogdet_rrule,
    solve_rrule,
    svd_rrule,
)
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent
from srcad.testing import check_rrule


def sample(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.standard_normal(shape)
    return np.asarray(values, dtype=dtype)


def invertible(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    """A random matrix (or stack) kept well away from singular by a multiple of I."""
    return np.asarray(sample(shape, seed, dtype) + 3.0 * np.eye(shape[-1]), dtype=dtype)


def spread(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    """A random matrix (or stack) whose Hermitian part has eigenvalues, and which itself
    has singular values, far apart: a small random matrix on a diagonal 2, 4, 6, ..."""
    steps = 2.0 * np.arange(1, min(shape[-2:]) + 1)
    diagonal = np.zeros(shape[-2:])
    diagonal[np.diag_indices(len(steps))] = steps
    return np.asarray(0.3 * sample(shape, seed, dtype) + diagonal, dtype=dtype)


def tuple_cotangent(result: tuple[Any, ...], seed: int) -> tuple[Any, ...]:
    """A random cotangent for a tuple of arrays (NumPy's named result tuples included)."""
    rng = np.random.default_rng(seed)
    return tuple(
        np.asarray(rng.standard_normal(np.shape(r)), dtype=np.asarray(r).dtype)
        + (1j * rng.standard_normal(np.shape(r)) if np.iscomplexobj(r) else 0)
        for r in result
    )


# (id, function, positional arguments, keyword arguments) in single precision.
FLOAT32_CALLS: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
    ("inv", np.linalg.inv, (invertible((3, 3), 0, np.float32),), {}),
    ("solve", np.linalg.solve, (invertible((3, 3), 0, np.float32), sample((3,), 1)), {}),
    ("det", np.linalg.det, (invertible((3, 3), 0, np.float32),), {}),
    ("qr-r", np.linalg.qr, (sample((4, 3), 0, np.float32), "r"), {}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in FLOAT32_CALLS]
)
def test_float32_stays_float32(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    check_rrule(f, *args, rtol=1e-3, atol=1e-4, **kwargs)


# --- inverses, solves, determinants and powers ------------------------------------------------

# (id, function, positional arguments, keyword arguments).
LINALG_CALLS: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
    ("inv-1x1", np.linalg.inv, (invertible((1, 1), 0),), {}),
    ("inv-3x3", np.linalg.inv, (invertible((3, 3), 0),), {}),
    ("inv-stack", np.linalg.inv, (invertible((2, 3, 3), 0),), {}),
    ("inv-complex", np.linalg.inv, (invertible((3, 3), 0, complex),), {}),
    ("solve-vector", np.linalg.solve, (invertible((3, 3), 0), sample((3,), 1)), {}),
    ("solve-matrix", np.linalg.solve, (invertible((3, 3), 0), sample((3, 2), 1)), {}),
    ("solve-1x1", np.linalg.solve, (invertible((1, 1), 0), sample((1,), 1)), {}),
    ("solve-stack-vector", np.linalg.solve, (invertible((2, 3, 3), 0), sample((3,), 1)), {}),
    ("solve-stack-matrix", np.linalg.solve, (invertible((2, 3, 3), 0), sample((3, 2), 1)), {}),
    ("solve-stacks", np.linalg.solve, (invertible((2, 3, 3), 0), sample((2, 3, 2), 1)), {}),
    ("solve-complex", np.linalg.solve, (invertible((3, 3), 0, complex), sample((3,), 1, complex)),
     {}),
    ("solve-real-complex", np.linalg.solve, (invertible((3, 3), 0), sample((3, 2), 1, complex)),
     {}),
    ("det-1x1", np.linalg.det, (sample((1, 1), 0),), {}),
    ("det-2x2", np.linalg.det, (sample((2, 2), 0),), {}),
    ("det-3x3", np.linalg.det, (sample((3, 3), 3),), {}),
    ("det-stack", np.linalg.det, (invertible((2, 3, 3), 0),), {}),
    ("det-complex", np.linalg.det, (sample((3, 3), 0, complex),), {}),
    ("power-0", np.linalg.matrix_power, (sample((3, 3), 0), 0), {}),
    ("power-1", np.linalg.matrix_power, (sample((3, 3), 0), 1), {}),
    ("power-2", np.linalg.matrix_power, (sample((3, 3), 0), 2), {}),
    ("power-5", np.linalg.matrix_power, (sample((3, 3), 0), 5), {}),
    ("power-keyword", np.linalg.matrix_power, (sample((2, 2), 0),), {"n": 3}),
    ("power-minus-1", np.linalg.matrix_power, (invertible((3, 3), 0), -1), {}),
    ("power-minus-3", np.linalg.matrix_power, (invertible((3, 3), 0), -3), {}),
    ("power-1x1", np.linalg.matrix_power, (sample((1, 1), 0), 3), {}),
    ("power-stack", np.linalg.matrix_power, (sample((2, 3, 3), 0), 3), {}),
    ("power-complex", np.linalg.matrix_power, (sample((3, 3), 0, complex), 3), {}),
    ("power-complex-negative", np.linalg.matrix_power, (invertible((2, 2), 0, complex), -2), {}),
    ("lstsq-tall-vector", np.linalg.lstsq, (sample((5, 3), 0), sample((5,), 1)), {}),
    ("lstsq-tall-matrix", np.linalg.lstsq, (sample((5, 3), 0), sample((5, 2), 1)), {}),
    ("lstsq-square", np.linalg.lstsq, (invertible((3, 3), 0), sample((3,), 1)), {}),
    ("lstsq-wide", np.linalg.lstsq, (sample((2, 4), 0), sample((2,), 1)), {}),
    ("lstsq-wide-matrix", np.linalg.lstsq, (sample((2, 4), 0), sample((2, 3), 1)), {}),
    ("lstsq-1x1", np.linalg.lstsq, (sample((1, 1), 0), sample((1,), 1)), {}),
    ("lstsq-rcond-positional", np.linalg.lstsq, (sample((4, 2), 0), sample((4,), 1), None), {}),
    ("lstsq-complex", np.linalg.lstsq, (sample((4, 2), 0, complex), sample((4,), 1, complex)), {}),
    ("qr-r-tall", np.linalg.qr, (sample((4, 3), 0), "r"), {}),
    ("qr-r-wide", np.linalg.qr, (sample((2, 4), 0),), {"mode": "r"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in LINALG_CALLS]
)
def test_linalg_matches_finite_differences(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)


# (id, function, argument): functions returning NumPy's named result tuples, checked with
# a random cotangent for every element (the sign of a real slogdet is piecewise constant,
# so its cotangent counts for nothing; a complex one is a smooth phase).
NAMED_RESULT_CALLS: list[tuple[str, Any, Any]] = [
    ("slogdet-1x1", np.linalg.slogdet, sample((1, 1), 0)),
    ("slogdet-3x3", np.linalg.slogdet, sample((3, 3), 3)),
    ("slogdet-negative-det", np.linalg.slogdet, -invertible((3, 3), 0)),
    ("slogdet-stack", np.linalg.slogdet, invertible((2, 3, 3), 0)),
    ("slogdet-complex", np.linalg.slogdet, sample((3, 3), 0, complex)),
    ("qr-square", np.linalg.qr, sample((3, 3), 0)),
    ("qr-tall", np.linalg.qr, sample((4, 2), 0)),
    ("qr-wide", np.linalg.qr, sample((2, 4), 0)),
    ("qr-1x1", np.linalg.qr, sample((1, 1), 0)),
    ("qr-vector-column", np.linalg.qr, sample((3, 1), 0)),
    ("qr-stack", np.linalg.qr, sample((2, 4, 3), 0)),
    ("qr-stack-wide", np.linalg.qr, sample((2, 2, 3), 0)),
    ("qr-complex-tall", np.linalg.qr, sample((4, 3), 0, complex)),
    ("qr-complex-wide", np.linalg.qr, sample((2, 3), 0, complex)),
]


@pytest.mark.parametrize(("f", "a"), [pytest.param(*c[1:], id=c[0]) for c in NAMED_RESULT_CALLS])
def test_named_result_matches_finite_differences(f: Any, a: np.ndarray) -> None:
    check_rrule(f, a, output_tangent=tuple_cotangent(f(a), seed=1))


@pytest.mark.parametrize(
    ("a", "cotangent"),
    [
        pytest.param(sample((4, 2), 0), (ZeroTangent(), sample((2, 2), 1)), id="tall-r-only"),
        pytest.param(sample((4, 2), 0), (sample((4, 2), 1), ZeroTangent()), id="tall-q-only"),
        pytest.param(sample((2, 4), 0), (ZeroTangent(), sample((2, 4), 1)), id="wide-r-only"),
        pytest.param(sample((2, 4), 0), (sample((2, 2), 1), ZeroTangent()), id="wide-q-only"),
    ],
)
def test_qr_with_one_factor_cotangent(a: np.ndarray, cotangent: tuple[Any, Any]) -> None:
    check_rrule(np.linalg.qr, a, output_tangent=cotangent)


# --- factorisations, through functions whose values do not depend on signs or phases ------


def conj_transpose(x):
    return np.einsum("...ij->...ji", np.conj(x))


def hermitian_part(x):
    return 0.5 * (x + conj_transpose(x))


def gram(x):
    return np.einsum("...ij,...kj->...ik", x, np.conj(x)) + 2.0 * np.eye(x.shape[-2])


def cholesky_of_gram(x):
    return np.linalg.cholesky(gram(x))


def cholesky_upper_of_gram(x):
    return np.linalg.cholesky(gram(x), upper=True)


def eigh_values(x):
    w, _v = np.linalg.eigh(hermitian_part(x))
    return w


def eigh_vector_weights(x):
    _w, v = np.linalg.eigh(hermitian_part(x))
    return v * np.conj(v)


def eigh_function_of_matrix(x):
    w, v = np.linalg.eigh(hermitian_part(x))
    return np.einsum("...ij,...j,...kj->...ik", v, np.sin(w), np.conj(v))


def eigh_upper_triangle(x):
    w, v = np.linalg.eigh(hermitian_part(x), "U")
    return (v * w) @ conj_transpose(v)


def svd_values(x):
    _u, s, _vh = np.linalg.svd(x, full_matrices=False)
    return s


def svd_values_only(x):
    return np.linalg.svd(x, compute_uv=False)


def svd_function_of_matrix(x):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return np.einsum("...ij,...j,...jk->...ik", u, np.sin(s), vh)


def svd_left_projector(x):
    u, _s, _vh = np.linalg.svd(x, False)
    return u @ conj_transpose(u)


def svd_right_projector(x):
    _u, _s, vh = np.linalg.svd(x, full_matrices=False)
    return conj_transpose(vh) @ vh


def svd_left_weighted(x):
    u, s, _vh = np.linalg.svd(x, full_matrices=False)
    return (u * s) @ conj_transpose(u)


def svd_square_full_matrices(x):
    u, s, vh = np.linalg.svd(x)
    return (u * np.exp(s)) @ vh


def svd_hermitian(x):
    u, s, vh = np.linalg.svd(hermitian_part(x), hermitian=True)
    return (u * s**2) @ vh


def svd_hermitian_values(x):
    return np.linalg.svd(hermitian_part(x), compute_uv=False, hermitian=True)


# (id, function, argument): each function's gradient, compiled through the rules.
FACTORISATION_CASES: list[tuple[str, Any, np.ndarray]] = [
    ("cholesky-1x1", cholesky_of_gram, sample((1, 1), 0)),
    ("cholesky-3x3", cholesky_of_gram, sample((3, 3), 0)),
    ("cholesky-from-wide", cholesky_of_gram, sample((3, 4), 0)),
    ("cholesky-stack", cholesky_of_gram, sample((2, 3, 3), 0)),
    ("cholesky-complex", cholesky_of_gram, sample((3, 3), 0, complex)),
    ("cholesky-upper", cholesky_upper_of_gram, sample((3, 3), 0)),
    ("cholesky-upper-complex", cholesky_upper_of_gram, sample((3, 2), 0, complex)),
    ("eigh-values-1x1", eigh_values, sample((1, 1), 0)),
    ("eigh-values-3x3", eigh_values, spread((3, 3), 0)),
    ("eigh-values-stack", eigh_values, spread((2, 3, 3), 0)),
    ("eigh-values-complex", eigh_values, spread((3, 3), 0, complex)),
    ("eigh-vectors-2x2", eigh_vector_weights, spread((2, 2), 0)),
    ("eigh-vectors-3x3", eigh_vector_weights, spread((3, 3), 0)),
    ("eigh-vectors-complex", eigh_vector_weights, spread((3, 3), 0, complex)),
    ("eigh-function-3x3", eigh_function_of_matrix, spread((3, 3), 0)),
    ("eigh-function-stack", eigh_function_of_matrix, spread((2, 3, 3), 1)),
    ("eigh-function-complex", eigh_function_of_matrix, spread((3, 3), 0, complex)),
    ("eigh-upper-triangle", eigh_upper_triangle, spread((3, 3), 0)),
    ("svd-values-1x1", svd_values, sample((1, 1), 0)),
    ("svd-values-square", svd_values, spread((3, 3), 0)),
    ("svd-values-tall", svd_values, spread((4, 2), 0)),
    ("svd-values-wide", svd_values, spread((2, 4), 0)),
    ("svd-values-complex", svd_values, spread((3, 2), 0, complex)),
    ("svd-values-only", svd_values_only, spread((3, 4), 0)),
    ("svd-function-1x1", svd_function_of_matrix, sample((1, 1), 0)),
    ("svd-function-square", svd_function_of_matrix, spread((3, 3), 0)),
    ("svd-function-tall", svd_function_of_matrix, spread((4, 2), 0)),
    ("svd-function-wide", svd_function_of_matrix, spread((2, 4), 0)),
    ("svd-function-stack", svd_function_of_matrix, spread((2, 3, 2), 0)),
    ("svd-function-complex-tall", svd_function_of_matrix, spread((4, 3), 0, complex)),
    ("svd-function-complex-wide", svd_function_of_matrix, spread((2, 3), 0, complex)),
    ("svd-left-projector-tall", svd_left_projector, spread((4, 2), 0)),
    ("svd-left-projector-complex", svd_left_projector, spread((4, 2), 0, complex)),
    ("svd-right-projector-wide", svd_right_projector, spread((2, 4), 0)),
    ("svd-right-projector-complex", svd_right_projector, spread((2, 4), 0, complex)),
    ("svd-left-weighted-square", svd_left_weighted, spread((3, 3), 0)),
    ("svd-left-weighted-complex", svd_left_weighted, spread((3, 2), 0, complex)),
    ("svd-square-full-matrices", svd_square_full_matrices, spread((3, 3), 0)),
    ("svd-hermitian", svd_hermitian, spread((3, 3), 0)),
    # Rows scaled by 1, -1, 1: eigenvalues near 2, -4, 6, singular values near 2, 4, 6.
    ("svd-hermitian-indefinite", svd_hermitian, spread((3, 3), 0) * [[1.0], [-1.0], [1.0]]),
    ("svd-hermitian-values", svd_hermitian_values, spread((3, 3), 0)),
]


@pytest.mark.parametrize(("f", "x"), [pytest.param(*c[1:], id=c[0]) for c in FACTORISATION_CASES])
def test_factorisation_matches_finite_differences(f: Any, x: np.ndarray) -> None:
    check_rrule(f, x, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize(
    ("rule", "a", "cotangent"),
    [
        pytest.param(cholesky_rrule, gram(sample((3, 3), 0)), sample((3, 3), 1), id="cholesky"),
        pytest.param(
            eigh_rrule, gram(sample((3, 3), 0)), (sample((3,), 1), sample((3, 3), 2)), id="eigh"
        ),
    ],
)
def test_cotangent_of_hermitian_input_is_hermitian(rule: Any, a: Any, cotangent: Any) -> None:
    _, a_bar = rule(a)[1](cotangent)
    np.testing.assert_allclose(a_bar, a_bar.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("f", "args", "kwargs", "message"),
    [
        pytest.param(np.linalg.qr, (sample((3, 2), 0),), {"mode": "complete"}, "mode", id="qr"),
        pytest.param(np.linalg.svd, (sample((3, 2), 0),), {}, "full_matrices", id="svd"),
    ],
)
def test_unsupported_options_are_refused(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        check_rrule(f, *args, **kwargs)


# (id, function, argument, fields): NumPy's result tuples are NamedTuples, whose cotangents
# may come by field name, the fields not named being zero. srcad.testing's finite
# differences take element tuples only, so each is compared with its tuple form, which the
# tests above check against finite differences.
A_4X3 = sample((4, 3), 0)
BY_FIELD_CASES: list[tuple[str, Any, np.ndarray, dict[str, Any]]] = [
    ("qr", np.linalg.qr, A_4X3, {"Q": sample((4, 3), 1), "R": sample((3, 3), 2)}),
    ("qr-r-only", np.linalg.qr, A_4X3, {"R": sample((3, 3), 2)}),
    ("slogdet-logabsdet-only", np.linalg.slogdet, sample((3, 3), 0, complex), {"logabsdet": 1.5}),
    ("svd-values-only", np.linalg.svd, spread((3, 3), 0), {"S": sample((3,), 1)}),
    ("eigh-vectors-only", np.linalg.eigh, gram(A_4X3), {"eigenvectors": sample((4, 4), 1)}),
]


@pytest.mark.parametrize(
    ("f", "a", "fields"), [pytest.param(*c[1:], id=c[0]) for c in BY_FIELD_CASES]
)
def test_named_result_cotangent_by_field(f: Any, a: np.ndarray, fields: dict[str, Any]) -> None:
    result, pullback = srcad.rrule(f, a)
    as_tuple = tuple(fields.get(name, ZeroTangent()) for name in result._fields)
    _, by_field = pullback(Tangent(type(result), **fields))
    _, by_element = pullback(as_tuple)
    np.testing.assert_allclose(by_field, by_element, rtol=1e-12, atol=1e-12)


# --- symbolic zeros ------------------------------------------------------------------------

A = invertible((3, 3), 0)
V = sample((3,), 1)


@pytest.mark.parametrize(
    ("pullback", "expected"),
    [
        pytest.param(inv_rrule(A)[1], 2, id="inv"),
        pytest.param(solve_rrule(A, V)[1], 3, id="solve"),
        pytest.param(det_rrule(A)[1], 2, id="det"),
        pytest.param(slogdet_rrule(A)[1], 2, id="slogdet"),
        pytest.param(matrix_power_rrule(A, 2)[1], 3, id="matrix_power"),
        pytest.param(cholesky_rrule(gram(A))[1], 2, id="cholesky"),
        pytest.param(eigh_rrule(gram(A))[1], 2, id="eigh"),
        pytest.param(qr_rrule(A)[1], 2, id="qr"),
        pytest.param(svd_rrule(A)[1], 2, id="svd"),
        pytest.param(lstsq_rrule(A, V)[1], 3, id="lstsq"),
    ],
)
def test_zero_cotangent_stays_symbolic(pullback: Any, expected: int) -> None:
    cotangents = pullback(ZeroTangent())
    assert len(cotangents) == expected
    assert cotangents[0] is NoTangent()
    assert all(isinstance(c, AbstractZero) for c in cotangents[1:])
    assert ZeroTangent() in cotangents

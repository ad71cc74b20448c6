"""Rules for `np.linalg`'s factorisations (Cholesky, eigh, QR, SVD), checked against finite
differences.

Factorisations whose factors are fixed only up to signs or phases (eigh, svd) have their
reverse rules checked through small functions below whose values do not depend on that
choice; srcad compiles them through the rules under test. Their forward rules are checked
directly: the finite differences of the factors are taken after turning each eigenvector
(each pair of singular vectors) back to the phase it has at the point, which is the gauge
the forward rules choose.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.rules import numpy_factorisations
from srcad.rules.numpy_factorisations import cholesky_rrule, eigh_rrule, qr_rrule, svd_rrule
from srcad.tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, unthunk
from srcad.testing import check_frule, check_rrule, finite_difference_jvp
from tests.conftest import sample


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


# (id, function, positional arguments, keyword arguments): QR's R alone, an array.
QR_R_CALLS: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
    ("qr-r-tall", np.linalg.qr, (sample((4, 3), 0), "r"), {}),
    ("qr-r-wide", np.linalg.qr, (sample((2, 4), 0),), {"mode": "r"}),
]


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in QR_R_CALLS]
)
def test_qr_r_matches_finite_differences(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)


def test_float32_stays_float32() -> None:
    check_rrule(np.linalg.qr, sample((4, 3), 0, np.float32), "r", rtol=1e-3, atol=1e-4)


# (id, argument) of np.linalg.qr, whose result (Q, R) is a NamedTuple: checked with a random
# cotangent for both factors.
QR_CASES: list[tuple[str, np.ndarray]] = [
    ("qr-square", sample((3, 3), 0)),
    ("qr-tall", sample((4, 2), 0)),
    ("qr-wide", sample((2, 4), 0)),
    ("qr-1x1", sample((1, 1), 0)),
    ("qr-vector-column", sample((3, 1), 0)),
    ("qr-stack", sample((2, 4, 3), 0)),
    ("qr-stack-wide", sample((2, 2, 3), 0)),
    ("qr-complex-tall", sample((4, 3), 0, complex)),
    ("qr-complex-wide", sample((2, 3), 0, complex)),
]


@pytest.mark.parametrize("a", [pytest.param(a, id=name) for name, a in QR_CASES])
def test_qr_matches_finite_differences(a: np.ndarray) -> None:
    check_rrule(np.linalg.qr, a, output_tangent=tuple_cotangent(np.linalg.qr(a), seed=1))


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
def test_cotangent_of_hermitian_input_lies_on_the_triangle_read(
    rule: Any, a: Any, cotangent: Any
) -> None:
    """NumPy reads the lower triangle: the upper one has a zero derivative (issue 17; this
    test used to ask for a Hermitian cotangent, the gradient along Hermitian perturbations
    only, which is wrong for a matrix that is not Hermitian)."""
    _, a_bar = rule(a)[1](cotangent)
    assert np.all(np.triu(a_bar, 1) == 0.0)
    assert np.any(np.tril(a_bar, -1) != 0.0)


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

A = sample((3, 3), 0) + 3.0 * np.eye(3)


@pytest.mark.parametrize(
    ("pullback", "expected"),
    [
        pytest.param(cholesky_rrule(gram(A))[1], 2, id="cholesky"),
        pytest.param(eigh_rrule(gram(A))[1], 2, id="eigh"),
        pytest.param(qr_rrule(A)[1], 2, id="qr"),
        pytest.param(svd_rrule(A)[1], 2, id="svd"),
    ],
)
def test_zero_cotangent_stays_symbolic(pullback: Any, expected: int) -> None:
    cotangents = pullback(ZeroTangent())
    assert len(cotangents) == expected
    assert cotangents[0] is NoTangent()
    assert all(isinstance(c, AbstractZero) for c in cotangents[1:])
    assert ZeroTangent() in cotangents


# --- forward rules --------------------------------------------------------------------------


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_factorisations.rules.rrules) <= set(numpy_factorisations.rules.frules)


def hermitian_tangent(a: np.ndarray, seed: int) -> np.ndarray:
    """A random tangent that keeps a Hermitian `a` Hermitian, the only kind eigh, cholesky
    and svd(hermitian=True) are defined along."""
    return hermitian_part(sample(a.shape, seed, a.dtype))


def as_computed(result: tuple[Any, ...], reference: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(result)


def eigh_aligned(result: tuple[Any, ...], reference: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each eigenvector turned by the phase (sign) that makes its overlap with the one at
    the point real and positive: the eigenvectors' tangents then have no component along
    themselves, as eigh_frule's do."""
    w, v = result
    overlap = np.sum(np.conj(reference[1]) * v, axis=-2)
    return w, v * (np.conj(overlap) / np.abs(overlap))[..., np.newaxis, :]


def svd_aligned(result: tuple[Any, ...], reference: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each pair of singular vectors turned by the phase (sign) that makes the right one's
    overlap with the one at the point real and positive (the pair turning together keeps
    u s vh): svd_frule's gauge, where `v^H v_dot` has a zero diagonal."""
    u, s, vh = result
    overlap = np.sum(reference[2] * np.conj(vh), axis=-1)
    phase = np.conj(overlap) / np.abs(overlap)
    return u * phase[..., np.newaxis, :], s, vh * np.conj(phase)[..., :, np.newaxis]


def check_factorisation_frule(
    f: Any,
    a: np.ndarray,
    a_dot: Any,
    *options: Any,
    align: Any = as_computed,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    **kwargs: Any,
) -> None:
    """`check_frule` for a factorisation returning a NamedTuple, which srcad.testing's finite
    differences cannot rebuild: each factor's tangent (shape, dtype, value) against finite
    differences of the factors as a plain tuple, after `align` has fixed their signs or
    phases to those at `a`; and a zero tangent giving `ZeroTangent()`."""
    no_dots = tuple(NoTangent() for _ in options)
    y, y_dot = srcad.frule((NoTangent(), a_dot, *no_dots), f, a, *options, **kwargs)
    expected_y = f(a, *options, **kwargs)
    expected = finite_difference_jvp(
        lambda x: align(f(x, *options, **kwargs), expected_y), (a,), (a_dot,)
    )
    y_dot = unthunk(y_dot)
    assert len(y_dot) == len(y)
    for index, (primal, tangent, want) in enumerate(zip(expected_y, y_dot, expected, strict=True)):
        np.testing.assert_allclose(y[index], primal, rtol=1e-12, atol=1e-12)
        assert np.shape(tangent) == np.shape(primal), f"factor {index}"
        assert np.asarray(tangent).dtype == primal.dtype, f"factor {index}"
        np.testing.assert_allclose(tangent, want, rtol=rtol, atol=atol, err_msg=f"factor {index}")
    _, zero_dot = srcad.frule((NoTangent(), ZeroTangent(), *no_dots), f, a, *options, **kwargs)
    assert zero_dot is ZeroTangent()


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in QR_R_CALLS]
)
def test_qr_r_frule_matches_finite_differences(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **kwargs)


def test_float32_frule_stays_float32() -> None:
    check_frule(np.linalg.qr, sample((4, 3), 0, np.float32), "r", rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("a", [pytest.param(a, id=name) for name, a in QR_CASES])
def test_qr_frule_matches_finite_differences(a: np.ndarray) -> None:
    check_factorisation_frule(np.linalg.qr, a, sample(a.shape, 7, a.dtype))


# (id, Hermitian positive definite argument, keyword arguments): the Gram matrices of the
# reverse-rule cases above.
CHOLESKY_CASES: list[tuple[str, np.ndarray, dict[str, Any]]] = [
    ("cholesky-1x1", gram(sample((1, 1), 0)), {}),
    ("cholesky-3x3", gram(sample((3, 3), 0)), {}),
    ("cholesky-from-wide", gram(sample((3, 4), 0)), {}),
    ("cholesky-stack", gram(sample((2, 3, 3), 0)), {}),
    ("cholesky-complex", gram(sample((3, 3), 0, complex)), {}),
    ("cholesky-upper", gram(sample((3, 3), 0)), {"upper": True}),
    ("cholesky-upper-complex", gram(sample((3, 2), 0, complex)), {"upper": True}),
]


@pytest.mark.parametrize(("a", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CHOLESKY_CASES])
def test_cholesky_frule_matches_finite_differences(a: np.ndarray, kwargs: dict[str, Any]) -> None:
    check_frule(np.linalg.cholesky, a, tangents=(hermitian_tangent(a, 7),), **kwargs)


# (id, Hermitian argument, options): the Hermitian parts of the reverse-rule cases above.
EIGH_CASES: list[tuple[str, np.ndarray, tuple[Any, ...]]] = [
    ("eigh-1x1", hermitian_part(sample((1, 1), 0)), ()),
    ("eigh-2x2", hermitian_part(spread((2, 2), 0)), ()),
    ("eigh-3x3", hermitian_part(spread((3, 3), 0)), ()),
    ("eigh-stack", hermitian_part(spread((2, 3, 3), 0)), ()),
    ("eigh-stack-1", hermitian_part(spread((2, 3, 3), 1)), ()),
    ("eigh-complex", hermitian_part(spread((3, 3), 0, complex)), ()),
    ("eigh-upper-triangle", hermitian_part(spread((3, 3), 0)), ("U",)),
]


@pytest.mark.parametrize(("a", "options"), [pytest.param(*c[1:], id=c[0]) for c in EIGH_CASES])
def test_eigh_frule_matches_finite_differences(a: np.ndarray, options: tuple[Any, ...]) -> None:
    tangent = hermitian_tangent(a, 7)
    check_factorisation_frule(np.linalg.eigh, a, tangent, *options, align=eigh_aligned)


# (id, argument, keyword arguments): the arguments of the reverse-rule cases above.
SVD_CASES: list[tuple[str, np.ndarray, dict[str, Any]]] = [
    ("svd-1x1", sample((1, 1), 0), {"full_matrices": False}),
    ("svd-square", spread((3, 3), 0), {"full_matrices": False}),
    ("svd-tall", spread((4, 2), 0), {"full_matrices": False}),
    ("svd-wide", spread((2, 4), 0), {"full_matrices": False}),
    ("svd-wide-3x4", spread((3, 4), 0), {"full_matrices": False}),
    ("svd-stack", spread((2, 3, 2), 0), {"full_matrices": False}),
    ("svd-complex", spread((3, 2), 0, complex), {"full_matrices": False}),
    ("svd-complex-tall", spread((4, 3), 0, complex), {"full_matrices": False}),
    ("svd-complex-wide", spread((2, 3), 0, complex), {"full_matrices": False}),
    ("svd-complex-wide-2x4", spread((2, 4), 0, complex), {"full_matrices": False}),
    ("svd-square-full-matrices", spread((3, 3), 0), {}),
    ("svd-hermitian", hermitian_part(spread((3, 3), 0)), {"hermitian": True}),
    # Rows scaled by 1, -1, 1: eigenvalues near 2, -4, 6, singular values near 2, 4, 6.
    ("svd-hermitian-indefinite", hermitian_part(spread((3, 3), 0) * [[1.0], [-1.0], [1.0]]),
     {"hermitian": True}),
]  # fmt: skip


@pytest.mark.parametrize(("a", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in SVD_CASES])
def test_svd_frule_matches_finite_differences(a: np.ndarray, kwargs: dict[str, Any]) -> None:
    tangent = hermitian_tangent(a, 7) if kwargs.get("hermitian") else sample(a.shape, 7, a.dtype)
    check_factorisation_frule(np.linalg.svd, a, tangent, align=svd_aligned, **kwargs)


@pytest.mark.parametrize(
    ("a", "tangent", "kwargs"),
    [
        pytest.param(spread((3, 4), 0), sample((3, 4), 7), {}, id="values-only"),
        pytest.param(spread((3, 2), 0, complex), sample((3, 2), 7, complex), {}, id="complex"),
        pytest.param(
            hermitian_part(spread((3, 3), 0)),
            hermitian_part(sample((3, 3), 7)),
            {"hermitian": True},
            id="hermitian-values",
        ),
    ],
)
def test_svd_values_only_frule_matches_finite_differences(
    a: np.ndarray, tangent: np.ndarray, kwargs: dict[str, Any]
) -> None:
    check_frule(np.linalg.svd, a, tangents=(tangent,), compute_uv=False, **kwargs)


# (id, function, Hermitian argument, keyword arguments) of the rules that read a Hermitian
# matrix from one triangle: a tangent is read through that triangle only, as NumPy reads
# the argument (issue 17: this test used to ask that it be read through its Hermitian
# part, which is wrong where the tangent is not Hermitian).
HERMITIAN_INPUT_CALLS: list[tuple[str, Any, np.ndarray, dict[str, Any]]] = [
    ("cholesky", np.linalg.cholesky, gram(sample((3, 3), 0)), {}),
    ("cholesky-upper-complex", np.linalg.cholesky, gram(sample((3, 3), 0, complex)),
     {"upper": True}),
    ("eigh", np.linalg.eigh, hermitian_part(spread((3, 3), 0)), {}),
    ("eigh-complex", np.linalg.eigh, hermitian_part(spread((3, 3), 0, complex)), {}),
    ("svd-hermitian", np.linalg.svd, hermitian_part(spread((3, 3), 0)), {"hermitian": True}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("f", "a", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in HERMITIAN_INPUT_CALLS]
)
def test_frule_reads_the_triangle_of_the_tangent(
    f: Any, a: np.ndarray, kwargs: dict[str, Any]
) -> None:
    tangent = sample(a.shape, 7, a.dtype)
    read = np.triu(tangent, 1) if kwargs.get("upper") else np.tril(tangent, -1)
    mirrored = read + read.conj().T + np.diag(np.diag(tangent).real)
    _, y_dot = srcad.frule((NoTangent(), tangent), f, a, **kwargs)
    _, from_hermitian = srcad.frule((NoTangent(), mirrored), f, a, **kwargs)
    for got, want in zip(*(d if isinstance(d, tuple) else (d,) for d in (y_dot, from_hermitian)),
                         strict=True):  # fmt: skip
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("f", "args", "kwargs", "message"),
    [
        pytest.param(np.linalg.qr, (sample((3, 2), 0),), {"mode": "complete"}, "mode", id="qr"),
        pytest.param(np.linalg.svd, (sample((3, 2), 0),), {}, "full_matrices", id="svd"),
    ],
)
def test_frule_unsupported_options_are_refused(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        srcad.frule((NoTangent(), sample((3, 2), 1)), f, *args, **kwargs)


# (id, function, argument, keyword arguments) of one call of each forward rule.
FORWARD_CALLS: list[tuple[str, Any, np.ndarray, dict[str, Any]]] = [
    ("cholesky", np.linalg.cholesky, gram(A), {}),
    ("eigh", np.linalg.eigh, gram(A), {}),
    ("qr", np.linalg.qr, A, {}),
    ("qr-r", np.linalg.qr, A, {"mode": "r"}),
    ("svd", np.linalg.svd, A, {}),
    ("svd-values", np.linalg.svd, A, {"compute_uv": False}),
]


@pytest.mark.parametrize(
    ("f", "a", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in FORWARD_CALLS]
)
def test_frule_zero_tangent_stays_symbolic(f: Any, a: np.ndarray, kwargs: dict[str, Any]) -> None:
    _, y_dot = srcad.frule((NoTangent(), ZeroTangent()), f, a, **kwargs)
    assert y_dot is ZeroTangent()


@pytest.mark.parametrize(
    ("f", "a", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in FORWARD_CALLS]
)
def test_frule_computes_a_thunked_tangent(f: Any, a: np.ndarray, kwargs: dict[str, Any]) -> None:
    tangent = hermitian_part(sample(a.shape, 5))
    _, y_dot = srcad.frule((NoTangent(), tangent), f, a, **kwargs)
    _, from_thunk = srcad.frule((NoTangent(), Thunk(lambda: tangent)), f, a, **kwargs)
    for got, want in zip(*(d if isinstance(d, tuple) else (d,) for d in (from_thunk, y_dot)),
                         strict=True):  # fmt: skip
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

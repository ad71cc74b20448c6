"""Rules for `np.linalg`'s inverses, solves, determinants, matrix powers and least squares,
checked against finite differences (the factorisations are in test_numpy_factorisations)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.primitives import logabsdet
from srcad.rules import numpy_decompositions
from srcad.rules.numpy_decompositions import (
    det_rrule,
    inv_rrule,
    lstsq_rrule,
    matrix_power_rrule,
    slogdet_rrule,
    solve_rrule,
)
from srcad.tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, unthunk
from srcad.testing import check_frule, check_rrule, finite_difference_jvp
from tests.conftest import sample


def invertible(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    """A random matrix (or stack) kept well away from singular by a multiple of I."""
    return np.asarray(sample(shape, seed, dtype) + 3.0 * np.eye(shape[-1]), dtype=dtype)


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
]  # fmt: skip


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in FLOAT32_CALLS]
)
def test_float32_stays_float32(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    check_rrule(f, *args, rtol=1e-3, atol=1e-4, **kwargs)


# --- inverses, solves, determinants, powers and least squares ---------------------------------

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
]  # fmt: skip


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in LINALG_CALLS]
)
def test_linalg_matches_finite_differences(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)


# (id, argument) of np.linalg.slogdet, whose result is a NamedTuple: checked with a random
# cotangent for both elements (the sign of a real slogdet is piecewise constant, so its
# cotangent counts for nothing; a complex one is a smooth phase).
SLOGDET_CASES: list[tuple[str, Any]] = [
    ("slogdet-1x1", sample((1, 1), 0)),
    ("slogdet-3x3", sample((3, 3), 3)),
    ("slogdet-negative-det", -invertible((3, 3), 0)),
    ("slogdet-stack", invertible((2, 3, 3), 0)),
    ("slogdet-complex", sample((3, 3), 0, complex)),
]


@pytest.mark.parametrize("a", [pytest.param(a, id=name) for name, a in SLOGDET_CASES])
def test_slogdet_matches_finite_differences(a: np.ndarray) -> None:
    check_rrule(np.linalg.slogdet, a, output_tangent=tuple_cotangent(np.linalg.slogdet(a), 1))


@pytest.mark.parametrize("a", [pytest.param(a, id=name) for name, a in SLOGDET_CASES])
def test_logabsdet_rules_match_finite_differences(a: np.ndarray) -> None:
    """`np.linalg.slogdet(a)[1]` alone (`srcad.primitives.logabsdet`, which the normal form
    calls for it): real, negative determinant, a stack, complex."""
    check_rrule(logabsdet, a)
    check_frule(logabsdet, a)


def _logabsdet_forms(a: Any) -> Any:
    return np.linalg.slogdet(a)[1] + 2.0 * np.linalg.slogdet(a)[-1] - np.linalg.slogdet(a).logabsdet


@pytest.mark.parametrize("a", [invertible((3, 3), 4), -invertible((3, 3), 5)])
def test_slogdet_elements_compile_to_logabsdet(a: np.ndarray) -> None:
    """Each form reads log |det a| alone: the gradient is `2 a^-T`, with and without the
    kinds, and the specialised gradient computes no determinant."""
    expected = 2.0 * np.linalg.inv(a).T
    np.testing.assert_allclose(srcad.grad(_logabsdet_forms)(a), expected, rtol=1e-10)
    _, pullback = srcad.rrule(_logabsdet_forms, a)
    np.testing.assert_allclose(pullback(1.0)[1], expected, rtol=1e-10)
    check_rrule(_logabsdet_forms, a)
    text = srcad.source(_logabsdet_forms, args=(a,))
    assert "slogdet" not in text.split("\n", 3)[3].replace("np.linalg.slogdet(a)", "")
    assert "logabsdet(a)" in text


def test_slogdet_elements_in_forward_mode() -> None:
    a, direction = invertible((3, 3), 6), sample((3, 3), 7)
    _, tangent = srcad.jvp(_logabsdet_forms, (a,), (direction,))
    step = 1e-6
    expected = (_logabsdet_forms(a + step * direction) - _logabsdet_forms(a - step * direction)) / (
        2 * step
    )
    assert tangent == pytest.approx(expected, rel=1e-6)


def test_logabsdet_gradient_of_a_singular_matrix_raises() -> None:
    """log |det a| is -inf there, with no derivative: the gradient raises, never a number."""
    with pytest.raises(np.linalg.LinAlgError):
        srcad.grad(_logabsdet_forms)(np.ones((3, 3)))


def test_slogdet_cotangent_by_field() -> None:
    """NumPy's result tuples are NamedTuples, whose cotangents may come by field name, the
    fields not named being zero: compared with the tuple form, checked above."""
    a = sample((3, 3), 0, complex)
    result, pullback = srcad.rrule(np.linalg.slogdet, a)
    _, by_field = pullback(Tangent(type(result), logabsdet=1.5))
    _, by_element = pullback((ZeroTangent(), 1.5))
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
        pytest.param(lstsq_rrule(A, V)[1], 3, id="lstsq"),
    ],
)
def test_zero_cotangent_stays_symbolic(pullback: Any, expected: int) -> None:
    cotangents = pullback(ZeroTangent())
    assert len(cotangents) == expected
    assert cotangents[0] is NoTangent()
    assert all(isinstance(c, AbstractZero) for c in cotangents[1:])
    assert ZeroTangent() in cotangents


# --- forward rules, on the same calls -------------------------------------------------------


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_decompositions.rules.rrules) <= set(numpy_decompositions.rules.frules)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in FLOAT32_CALLS]
)
def test_float32_frule_stays_float32(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    check_frule(f, *args, rtol=1e-3, atol=1e-4, **kwargs)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in LINALG_CALLS]
)
def test_linalg_frule_matches_finite_differences(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **kwargs)


def check_named_result_frule(f: Any, a: np.ndarray, a_dot: Any, rtol: float, atol: float) -> None:
    """`check_frule` for a function of one matrix returning a NamedTuple, which
    `srcad.testing`'s finite differences cannot rebuild element by element: each element's
    tangent (shape, dtype, value) against finite differences of the result as a plain tuple."""
    y, y_dot = srcad.frule((NoTangent(), a_dot), f, a)
    expected_y = f(a)
    expected = finite_difference_jvp(lambda x: tuple(f(x)), (a,), (a_dot,))
    y_dot = unthunk(y_dot)
    assert len(y_dot) == len(y)
    for index, (primal, tangent, want) in enumerate(zip(expected_y, y_dot, expected, strict=True)):
        np.testing.assert_allclose(y[index], primal, rtol=1e-12, atol=1e-12)
        if isinstance(tangent, AbstractZero):
            tangent = np.zeros_like(primal)
        assert np.shape(tangent) == np.shape(primal), f"element {index}"
        assert np.asarray(tangent).dtype == primal.dtype, f"element {index}"
        np.testing.assert_allclose(tangent, want, rtol=rtol, atol=atol, err_msg=f"element {index}")
    _, zero_dot = srcad.frule((NoTangent(), ZeroTangent()), f, a)
    assert zero_dot is ZeroTangent()


@pytest.mark.parametrize("a", [pytest.param(a, id=name) for name, a in SLOGDET_CASES])
def test_slogdet_frule_matches_finite_differences(a: np.ndarray) -> None:
    check_named_result_frule(np.linalg.slogdet, a, sample(a.shape, 7, a.dtype), 1e-6, 1e-9)


def test_slogdet_frule_of_real_matrix_gives_the_sign_a_zero_tangent() -> None:
    _, (sign_dot, _) = srcad.frule((NoTangent(), sample((3, 3), 1)), np.linalg.slogdet, A)
    assert sign_dot is ZeroTangent()


# (id, function, positional arguments, argument tangents): one tangent zero, the other
# random; the zero one stays fixed in the finite differences.
PARTLY_ZERO_CALLS: list[tuple[str, Any, tuple[Any, ...], tuple[Any, ...]]] = [
    ("solve-a", np.linalg.solve, (A, V), (sample((3, 3), 2), ZeroTangent())),
    ("solve-b", np.linalg.solve, (A, V), (ZeroTangent(), sample((3,), 2))),
    ("lstsq-tall-a", np.linalg.lstsq, (sample((5, 3), 0), sample((5,), 1)),
     (sample((5, 3), 2), ZeroTangent())),
    ("lstsq-tall-b", np.linalg.lstsq, (sample((5, 3), 0), sample((5, 2), 1)),
     (ZeroTangent(), sample((5, 2), 2))),
    ("lstsq-wide-b", np.linalg.lstsq, (sample((2, 4), 0), sample((2,), 1)),
     (NoTangent(), sample((2,), 2))),
]  # fmt: skip


@pytest.mark.parametrize(
    ("f", "args", "tangents"), [pytest.param(*c[1:], id=c[0]) for c in PARTLY_ZERO_CALLS]
)
def test_frule_with_some_zero_tangents(
    f: Any, args: tuple[Any, ...], tangents: tuple[Any, ...]
) -> None:
    check_frule(f, *args, tangents=tangents)


# (id, function, positional arguments) of one call with a tangent for each array argument.
FORWARD_CALLS: list[tuple[str, Any, tuple[Any, ...]]] = [
    ("inv", np.linalg.inv, (A,)),
    ("solve", np.linalg.solve, (A, V)),
    ("det", np.linalg.det, (A,)),
    ("slogdet", np.linalg.slogdet, (A,)),
    ("matrix_power", np.linalg.matrix_power, (A, 2)),
    ("lstsq", np.linalg.lstsq, (A, V)),
]


@pytest.mark.parametrize(("f", "args"), [pytest.param(*c[1:], id=c[0]) for c in FORWARD_CALLS])
def test_frule_zero_tangents_stay_symbolic(f: Any, args: tuple[Any, ...]) -> None:
    _, y_dot = srcad.frule((NoTangent(), *(ZeroTangent() for _ in args)), f, *args)
    assert y_dot is ZeroTangent()


@pytest.mark.parametrize(("f", "args"), [pytest.param(*c[1:], id=c[0]) for c in FORWARD_CALLS])
def test_frule_computes_thunked_tangents(f: Any, args: tuple[Any, ...]) -> None:
    tangents = tuple(
        sample(np.shape(a), 5 + k) if isinstance(a, np.ndarray) else NoTangent()
        for k, a in enumerate(args)
    )
    _, y_dot = srcad.frule((NoTangent(), *tangents), f, *args)
    thunks = tuple(Thunk(lambda t=t: t) for t in tangents)
    _, from_thunks = srcad.frule((NoTangent(), *thunks), f, *args)
    for plain, thunked in zip(*(d if isinstance(d, tuple) else (d,) for d in (y_dot, from_thunks)),
                              strict=True):  # fmt: skip
        if isinstance(plain, AbstractZero):
            assert thunked is plain
        else:
            np.testing.assert_allclose(thunked, plain, rtol=1e-12, atol=1e-12)

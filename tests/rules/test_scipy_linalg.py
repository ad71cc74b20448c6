"""Rules for `scipy.linalg` (rules/scipy_linalg.py), checked against finite differences:
each rule alone, in both modes, on inputs that are not symmetric (each routine reads part
of its input), then through the public API to second order. Skipped where SciPy is not
installed (an optional dependency)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

linalg = pytest.importorskip("scipy.linalg")

import srcad  # noqa: E402
from srcad.registry import REGISTRY  # noqa: E402
from srcad.testing import check_frule, check_rrule  # noqa: E402
from tests.rules.through_the_api import check_through_api  # noqa: E402

RNG = np.random.default_rng(21)
N = 4
A = RNG.standard_normal((N, N)) + 3.0 * np.eye(N)
VECTOR = RNG.standard_normal(N)
COLUMNS = RNG.standard_normal((N, 2))
GRAM = A @ A.T + N * np.eye(N)
# Positive definite in each triangle, and not symmetric: the triangle not read differs.
LOPSIDED = GRAM + np.triu(RNG.standard_normal((N, N)), 1)
COMPLEX = A + 0.5j * RNG.standard_normal((N, N))

BOTH_RULES = pytest.mark.parametrize(
    "check", [pytest.param(check_rrule, id="rrule"), pytest.param(check_frule, id="frule")]
)

SOLVES = [
    pytest.param({}, id="upper"),
    pytest.param({"lower": True}, id="lower"),
    pytest.param({"trans": 1}, id="transpose"),
    pytest.param({"trans": "T", "lower": True}, id="transpose-lower"),
    pytest.param({"trans": "C", "lower": True}, id="adjoint-lower"),
    pytest.param({"unit_diagonal": True}, id="unit-diagonal"),
    pytest.param({"trans": 2, "unit_diagonal": True, "lower": True}, id="adjoint-unit-lower"),
]


@pytest.mark.parametrize("b", [VECTOR, COLUMNS], ids=["vector", "columns"])
@pytest.mark.parametrize("options", SOLVES)
@BOTH_RULES
def test_solve_triangular_matches_finite_differences(b: Any, options: Any, check: Any) -> None:
    check(linalg.solve_triangular, A, b, **options)


@pytest.mark.parametrize("options", [(1, True), (2, False, True)], ids=["1-lower", "2-unit"])
@BOTH_RULES
def test_solve_triangular_options_by_position(options: Any, check: Any) -> None:
    check(linalg.solve_triangular, A, COLUMNS, *options)


@pytest.mark.parametrize("options", [{}, {"trans": 1}, {"trans": 2, "lower": True}])
@BOTH_RULES
def test_solve_triangular_of_complex_matrices(options: Any, check: Any) -> None:
    check(linalg.solve_triangular, COMPLEX, COLUMNS + 1j * VECTOR[:, None], **options)


def upper_factor(a: np.ndarray) -> Any:
    return linalg.cho_factor(a)[0]


def lower_factor(a: np.ndarray) -> Any:
    return linalg.cho_factor(a, lower=True)[0]


@pytest.mark.parametrize("f", [upper_factor, lower_factor])
@BOTH_RULES
def test_cho_factor_matches_finite_differences(f: Any, check: Any) -> None:
    check(f, LOPSIDED)
    check(f, LOPSIDED.T)


@pytest.mark.parametrize("lower", [False, True], ids=["upper", "lower"])
@pytest.mark.parametrize("b", [VECTOR, COLUMNS], ids=["vector", "columns"])
@BOTH_RULES
def test_cho_solve_matches_finite_differences(lower: bool, b: Any, check: Any) -> None:
    c, _ = linalg.cho_factor(GRAM, lower=lower)
    # The triangle `cho_solve` does not read holds other values: it gets no cotangent.
    noisy = c + (np.triu(A, 1) if lower else np.tril(A, -1))
    check(linalg.cho_solve, (noisy, lower), b)


@pytest.mark.parametrize(
    "a",
    [
        pytest.param(0.5 * RNG.standard_normal((3, 3)), id="matrix"),
        pytest.param(0.5 * RNG.standard_normal((2, 3, 3)), id="stack"),
        pytest.param(np.array([[0.3]]), id="1x1"),
        pytest.param(0.5 * COMPLEX[:3, :3] - np.eye(3), id="complex"),
    ],
)
@BOTH_RULES
def test_expm_matches_finite_differences(a: Any, check: Any) -> None:
    check(linalg.expm, a)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"),
    [
        (linalg.solve_triangular, (A, VECTOR.copy()), {"overwrite_b": True}),
        (linalg.cho_factor, (GRAM.copy(),), {"overwrite_a": True}),
        (linalg.cho_solve, (linalg.cho_factor(GRAM), VECTOR.copy()), {"overwrite_b": True}),
    ],
    ids=["solve_triangular", "cho_factor", "cho_solve"],
)
def test_overwriting_an_argument_is_refused(f: Any, args: Any, kwargs: Any) -> None:
    with pytest.raises(TypeError, match="overwrite"):
        srcad.rrule(f, *args, **kwargs)
    with pytest.raises(TypeError, match="overwrite"):
        srcad.frule((srcad.NoTangent(), *(srcad.ZeroTangent() for _ in args)), f, *args, **kwargs)


def triangular_model(x: np.ndarray) -> Any:
    a = np.reshape(x, (3, 3)) + 3.0 * np.eye(3)
    first = np.sum(linalg.solve_triangular(a, np.sin(x[:3]), lower=True) ** 2)
    return first + np.sum(linalg.solve_triangular(a, x[3:6], trans=1))


def cholesky_model(x: np.ndarray) -> Any:
    m = np.reshape(x, (3, 3))
    a = m @ np.transpose(m) + 3.0 * np.eye(3)
    return np.sum(linalg.cho_solve(linalg.cho_factor(a, lower=True), x[:3]) ** 2)


def cholesky_upper_model(x: np.ndarray) -> Any:
    m = np.reshape(x, (3, 3))
    a = m @ np.transpose(m) + 3.0 * np.eye(3)
    return np.sum(linalg.cho_solve(linalg.cho_factor(a), np.cos(x[3:6])))


def gaussian_log_likelihood(x: np.ndarray) -> Any:
    """A user's Gaussian-process marginal likelihood, written with SciPy's Cholesky pair."""
    points = np.linspace(0.0, 1.0, 4)
    y = np.sin(3.0 * points)
    length = x[0] ** 2 + 0.3
    kernel = np.exp(-((points[:, None] - points[None, :]) ** 2) / length) + 0.1 * np.eye(4)
    factor = linalg.cho_factor(kernel, lower=True)
    alpha = linalg.cho_solve(factor, y)
    return 0.5 * np.dot(y, alpha) + np.sum(np.log(np.diag(factor[0]))) + x[1] ** 2


def expm_model(x: np.ndarray) -> Any:
    return np.sum(linalg.expm(np.reshape(x, (3, 3))) ** 2)


@pytest.mark.parametrize(
    ("f", "x"),
    [
        pytest.param(triangular_model, RNG.standard_normal(9), id="solve_triangular"),
        pytest.param(cholesky_model, RNG.standard_normal(9), id="cho-lower"),
        pytest.param(cholesky_upper_model, RNG.standard_normal(9), id="cho-upper"),
        pytest.param(gaussian_log_likelihood, np.array([0.4, -0.3]), id="gaussian-process"),
        pytest.param(expm_model, 0.5 * RNG.standard_normal(9), id="expm"),
    ],
)
def test_through_the_api_to_second_order(f: Any, x: np.ndarray) -> None:
    check_through_api(f, x)


@pytest.mark.parametrize(
    "f", [linalg.solve_triangular, linalg.cho_factor, linalg.cho_solve, linalg.expm]
)
def test_issue_20s_functions_have_both_rules(f: Any) -> None:
    assert REGISTRY.rrule_for(f) is not None
    assert REGISTRY.frule_for(f) is not None

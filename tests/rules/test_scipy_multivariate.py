"""Rules for `scipy.stats.multivariate_normal` (rules/scipy_multivariate.py): `logpdf` in
the point, the mean and the covariance, on the distribution and frozen, checked against
finite differences alone, through the API, and to second order. Skipped where SciPy is not
installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import srcad  # noqa: E402
from srcad.testing import check_frule, check_rrule  # noqa: E402
from tests.conftest import difference  # noqa: E402
from tests.rules.through_the_api import check_through_api  # noqa: E402

RNG = np.random.default_rng(23)
BOTH_RULES = pytest.mark.parametrize(
    "check", [pytest.param(check_rrule, id="rrule"), pytest.param(check_frule, id="frule")]
)

N = 3
_M = RNG.standard_normal((N, N))
COV = _M @ _M.T + N * np.eye(N)
# SciPy reads the lower triangle of the covariance: the upper one here is something else.
LOPSIDED = COV + np.triu(RNG.standard_normal((N, N)), 1)
MEAN = RNG.standard_normal(N)
POINT = RNG.standard_normal(N)
POINTS = RNG.standard_normal((5, N))

MULTIVARIATE = [
    pytest.param((POINT, MEAN, COV), {}, id="point"),
    pytest.param((POINTS, MEAN, COV), {}, id="points"),
    pytest.param((POINTS, MEAN, LOPSIDED), {}, id="lower-triangle-read"),
    pytest.param((POINT, MEAN), {}, id="identity-covariance"),
    pytest.param((POINTS, MEAN, 2.0), {}, id="number-covariance"),
    pytest.param((POINTS, MEAN, np.array([1.0, 2.0, 0.5])), {}, id="diagonal-covariance"),
    pytest.param((POINTS,), {"mean": MEAN, "cov": COV}, id="keywords"),
    # SciPy's dimension is the mean's size, or without a mean the covariance matrix's, else
    # 1: then a vector is one point per element, and the result is squeezed (the rules
    # read a vector as one point of its length: derivatives wrong, or a crash, before).
    pytest.param((POINT, None, COV), {}, id="no-mean"),
    pytest.param((POINT, None, 1.7), {}, id="dimension-1-no-mean"),
    pytest.param((POINT,), {}, id="dimension-1-defaults"),
    pytest.param((POINT, 0.4, 1.7), {}, id="dimension-1-numbers"),
    pytest.param((POINT, np.array([0.4]), np.array([1.7])), {}, id="dimension-1-vectors"),
    pytest.param((POINTS[:, :1], 0.4, np.array([[1.7]])), {}, id="dimension-1-column"),
    pytest.param((0.3, 0.4, 1.7), {}, id="dimension-1-number-point"),
    pytest.param((POINTS[:, np.newaxis], MEAN, COV), {}, id="squeezed-result"),
]


@pytest.mark.parametrize(("args", "kwargs"), MULTIVARIATE)
@BOTH_RULES
def test_multivariate_normal_logpdf_matches_finite_differences(
    args: Any, kwargs: Any, check: Any
) -> None:
    check(stats.multivariate_normal.logpdf, *args, **kwargs)


def test_multivariate_normal_refuses_a_singular_covariance() -> None:
    with pytest.raises(TypeError, match="allow_singular"):
        srcad.rrule(stats.multivariate_normal.logpdf, POINT, MEAN, COV, True)


def gaussian_fit(p: np.ndarray) -> Any:
    return np.sum(stats.multivariate_normal.logpdf(POINTS, p[:3], COV * (p[3] ** 2 + 1.0)))


def test_multivariate_normal_through_the_api() -> None:
    check_through_api(gaussian_fit, np.array([0.1, 0.2, -0.3, 0.5]))


def frozen_gaussian_fit(p: np.ndarray) -> Any:
    """Frozen multivariate normals with a matrix, a number and a diagonal as covariance."""
    matrix = stats.multivariate_normal(p[:3], LOPSIDED * (p[3] ** 2 + 1.0))
    number = stats.multivariate_normal(p[:3] * 0.5, p[3] ** 2 + 1.0)
    diagonal = stats.multivariate_normal(p[:3], np.array([1.0, 2.0, 0.5]) * (1.0 + p[3] ** 2))
    total = np.sum(matrix.logpdf(POINTS * p[3])) + np.sum(number.logpdf(POINTS))
    return total + np.sum(diagonal.logpdf(POINT))


def test_frozen_multivariate_normals_through_the_api() -> None:
    check_through_api(frozen_gaussian_fit, np.array([0.1, 0.2, -0.3, 0.5]))


def one_dimensional_fit(p: np.ndarray) -> Any:
    """Dimension 1, as SciPy reads it: `p` is three points (no mean, a number or a vector
    of one as mean and covariance), on the distribution and frozen."""
    total = np.sum(stats.multivariate_normal.logpdf(p, None, p[0] ** 2 + 1.0))
    total = total + np.sum(stats.multivariate_normal.logpdf(p * 2.0, p[1], 1.5))
    total = total + np.sum(stats.multivariate_normal(p[1:2], p[2:] ** 2 + 0.5).logpdf(p))
    return total + np.sum(stats.multivariate_normal(None, p[0] ** 2 + 1.0).logpdf(p))


def test_dimension_one_through_the_api() -> None:
    check_through_api(one_dimensional_fit, np.array([0.3, -0.4, 0.8]))


MVN_LOGPDF = type(stats.multivariate_normal).logpdf


@pytest.mark.parametrize(("args", "kwargs"), MULTIVARIATE)
def test_second_derivatives_of_multivariate_normal_logpdf(args: Any, kwargs: Any) -> None:
    for position in range(len(args)):
        if args[position] is None:
            continue

        def objective(value: Any, position: int = position) -> Any:
            passed = (*args[:position], value, *args[position + 1 :])
            return np.sum(MVN_LOGPDF(stats.multivariate_normal, *passed, **kwargs) ** 2)

        at = np.asarray(args[position], dtype=float)
        expected = difference(srcad.grad(objective), (at,))
        np.testing.assert_allclose(srcad.hessian(objective)(at), expected, rtol=1e-5, atol=1e-6)

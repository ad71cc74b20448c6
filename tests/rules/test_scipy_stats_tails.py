"""The tails and quantiles of `scipy.stats` distributions (`rules/scipy_stats_tails.py`):
`sf`, `logsf`, `ppf`, `isf` and `multivariate_normal.pdf`, through the public API in both
modes and to second order (third where the neighbours have it) against central
differences; their edges (`q` at 0 and 1, points far in the tails); what stays refused.
Skipped where SciPy is not installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import srcad  # noqa: E402
import srcad.rules.scipy_stats_shape_rules as shape_rules  # noqa: E402
from srcad.testing import finite_difference_jvp  # noqa: E402
from tests.rules.through_the_api import check_through_api  # noqa: E402

norm, t, gamma, beta, poisson = stats.norm, stats.t, stats.gamma, stats.beta, stats.poisson
mvn = stats.multivariate_normal

POINTS = np.array([-1.2, 0.3, 2.5])
PROBABILITIES = np.array([0.05, 0.4, 0.93])
COVARIANCE = np.array([[1.0, 0.3], [0.3, 2.0]])


def normal_tails(v):
    """Black-Scholes' and a p-value's calls: every parameter moves."""
    loc, scale = v[3], 1.0 + v[4] ** 2
    x = v[:3]
    return np.sum(norm.sf(x, loc, scale) * x + norm.logsf(2.0 * x, loc, scale))


def normal_quantiles(v):
    """A value at risk: quantiles of probabilities that move, with moving loc and scale."""
    q = 0.5 + 0.4 * np.tanh(v[:3])
    return np.sum(norm.ppf(q, v[3], 1.0 + v[4] ** 2) * norm.isf(q / 3.0, v[4], 2.0))


def shape_tails(v):
    """`t`, `gamma`, `beta` in the point, loc, scale and their shapes."""
    student = t.sf(v[0], 2.5 + v[1] ** 2, 0.1, 1.3) + t.logsf(v[1], 4.0 + v[0])
    gamma_part = gamma.sf(1.0 + v[0] ** 2, 2.0 + v[1]) + gamma.logsf(0.5, 1.5 + v[2] ** 2)
    beta_part = beta.sf(0.3 + 0.1 * v[2], 2.0 + v[0] ** 2, 1.5)
    beta_part = beta_part + beta.logsf(0.6, 2.0, 1.0 + v[1] ** 2)
    return student + gamma_part + beta_part


def shape_quantiles(v):
    """Quantiles of `t`, `gamma`, `beta`: in `q` by `1 / pdf`, in a shape by the implicit
    function theorem on the cdf's shape partial."""
    q = 0.5 + 0.4 * np.tanh(v[0])
    student = t.ppf(q, 3.0 + v[1] ** 2, v[2], 1.2) + t.isf(0.2, 2.0 + v[2] ** 2)
    gamma_part = gamma.ppf(0.3, 1.5 + v[0] ** 2) + gamma.isf(q, 2.5)
    return student + gamma_part + beta.ppf(q, 2.0 + v[2] ** 2, 1.5 + v[1] ** 2)


def broadcast_parameters(v):
    """Vectors of parameters broadcast against the points (the cotangents summed back)."""
    x = np.reshape(v, (2, 3))
    return np.sum(norm.sf(x, x[0], 1.5) + norm.ppf(0.3, x[:, :1], 1.0 + x[1] ** 2))


def poisson_tails(v):
    return np.sum(poisson.sf(3, 1.0 + v**2) + poisson.logsf(np.array([0, 2, 5]), 2.0 + v))


def frozen_forms(v):
    """`norm(loc, scale).sf(x)` and the rest: the frozen object's arguments differentiated."""
    frozen = norm(v[0], 1.0 + v[1] ** 2)
    student = t(3.0 + v[2] ** 2)
    return (
        frozen.sf(v[2]) + frozen.logsf(v[1]) + frozen.ppf(0.3) + frozen.isf(0.1 + 0.05 * v[0])
        + student.sf(0.4) + student.isf(0.2)
    )  # fmt: skip


def keyword_parameters(v):
    """Parameters by keyword are passed by position where a global names the
    distribution (`scipy_stats._by_position`)."""
    return np.sum(norm.sf(v, loc=v[0], scale=2.0) + norm.ppf(0.2, scale=1.0 + v**2))


def multivariate_density(v):
    """`multivariate_normal.pdf(x, mean, cov)`: the exp of its `logpdf`."""
    cov = COVARIANCE + np.diag(v[4:] ** 2)
    return mvn.pdf(v[:2], v[2:4], cov) + np.sum(mvn.pdf(np.reshape(v[:4], (2, 2)), v[2:4]))


MODELS = [
    pytest.param(normal_tails, np.array([-1.2, 0.3, 2.5, 0.2, 0.4]), id="norm-sf-logsf"),
    pytest.param(normal_quantiles, np.array([-1.0, 0.2, 1.1, 0.3, 0.5]), id="norm-ppf-isf"),
    pytest.param(shape_tails, np.array([0.3, -0.4, 0.8]), id="shapes-sf-logsf"),
    pytest.param(shape_quantiles, np.array([0.3, -0.4, 0.8]), id="shapes-ppf-isf"),
    pytest.param(broadcast_parameters, np.linspace(-0.8, 0.9, 6), id="broadcast"),
    pytest.param(poisson_tails, np.array([0.3, 0.9, 1.4]), id="poisson"),
    pytest.param(frozen_forms, np.array([0.2, 0.5, -0.3]), id="frozen"),
    pytest.param(keyword_parameters, np.array([0.2, 0.5, -0.3]), id="keywords"),
    pytest.param(multivariate_density, np.array([0.3, 0.7, 0.1, -0.2, 0.4, 0.6]), id="mvn-pdf"),
]


@pytest.mark.parametrize(("f", "x"), MODELS)
def test_through_the_api_to_second_order(f: Any, x: np.ndarray) -> None:
    check_through_api(f, x)


def _third(f: Any, at: float) -> None:
    second = srcad.grad(srcad.grad(f))
    expected = float(finite_difference_jvp(second, (at,), (1.0,)))
    assert float(srcad.grad(second)(at)) == pytest.approx(expected, rel=2e-5, abs=1e-6)


@pytest.mark.parametrize(
    "f",
    [
        lambda s: norm.sf(2.0 * s, s, 1.0 + s * s) + norm.logsf(s) + norm.ppf(0.3, s, 1.0 + s * s),
        lambda s: norm.isf(0.2 + 0.1 * s, 0.5, 2.0 - s) + norm(s, 2.0).sf(0.3),
        lambda s: t.sf(s, 3.0) + gamma.ppf(0.4 + 0.1 * s, 2.0) + beta.logsf(0.3 * s + 0.4, 2, 3),
        lambda s: mvn.pdf(np.array([s, 0.2]), np.array([0.1, s * s]), COVARIANCE),
    ],
    ids=["norm", "norm-isf-frozen", "constant-shapes", "mvn-pdf"],
)
def test_third_derivatives_match_differences_of_the_second(f: Any) -> None:
    _third(f, 0.35)


def test_quantiles_at_zero_and_one() -> None:
    """`ppf` is -inf at 0 and inf at 1, where its partial in `q` (`1 / pdf`) is infinite;
    outside `[0, 1]` SciPy's NaN has NaN partials: no finite number where there is no
    derivative. `gamma`'s quantile at 0 is the support's end for every shape: its partial
    there is 0 in the shape, and in `q` 0 where the density is infinite (`a < 1`)."""

    def quantiles(q):
        return np.sum(norm.ppf(q))

    with np.errstate(invalid="ignore"):
        found = srcad.grad(quantiles)(np.array([0.0, 1.0, -0.1, 1.5]))
    assert found[0] == np.inf and found[1] == np.inf
    assert np.isnan(found[2]) and np.isnan(found[3])

    def gamma_quantiles(v):
        return np.sum(gamma.ppf(np.array([0.0, 0.5]), v[0]) + gamma.ppf(v[1:], 0.5))

    found = srcad.grad(gamma_quantiles)(np.array([2.5, 0.0, 0.5]))
    expected = finite_difference_jvp(lambda a: gamma.ppf(0.5, a), (2.5,), (1.0,))
    assert found[0] == pytest.approx(float(expected), rel=1e-6)
    assert found[1] == 0.0
    assert found[2] == pytest.approx(1.0 / gamma.pdf(gamma.ppf(0.5, 0.5), 0.5), rel=1e-9)


def test_tails_far_from_the_centre() -> None:
    """`norm.logsf` far in the upper tail (its `sf` ~1e-350, below the smallest float) has
    the hazard as its slope (through `log_ndtr` of the mirrored point), and `sf` there a
    slope of 0 (the density underflows), not NaN."""

    def log_tail(x):
        return np.sum(norm.logsf(x))

    x = np.array([40.0, -40.0, 3.0])
    found = srcad.grad(log_tail)(x)
    hazard = norm.pdf(3.0) / norm.sf(3.0)
    np.testing.assert_allclose(found, [-40.0249688, -0.0, -hazard], rtol=1e-7)
    assert srcad.jvp(log_tail, (x,), (np.array([1.0, 0.0, 0.0]),))[1] == pytest.approx(-40.0249688)

    def tail(x):
        return np.sum(norm.sf(x) + t.sf(x, 3.0))

    found = srcad.grad(tail)(np.array([40.0, 1e5]))
    np.testing.assert_allclose(found, [-t.pdf(40.0, 3.0), -t.pdf(1e5, 3.0)])


def test_outside_the_support() -> None:
    """Above the support `sf` is 0 and `logsf` `-inf`, constant: their partials are 0 there
    in both modes (NaN in reverse mode before), in the point and in the shapes; below it
    `sf` is 1."""

    def tails(x):
        return np.sum(beta.sf(x, 2.0, 3.0) + beta.logsf(x, 2.0, 3.0) + gamma.logsf(x, 2.0))

    def in_shape(a):
        return np.sum(beta.logsf(np.array([-0.5, 0.3, 1.5]), a, 3.0))

    x = np.array([-1.0, 0.5, 1.5])
    found = srcad.grad(tails)(x)
    assert found[0] == 0.0 and found[2] == pytest.approx(-gamma.pdf(1.5, 2.0) / gamma.sf(1.5, 2.0))
    tangents = srcad.jvp(tails, (x,), (np.array([1.0, 0.0, 1.0]),))[1]
    assert tangents == pytest.approx(found[2])
    expected = finite_difference_jvp(lambda a: beta.logsf(0.3, a, 3.0), (2.0,), (1.0,))
    assert srcad.grad(in_shape)(2.0) == pytest.approx(float(expected), rel=1e-6)
    assert srcad.jvp(in_shape, (2.0,), (1.0,))[1] == pytest.approx(float(expected), rel=1e-6)


def test_float32() -> None:
    """float32 points give float32 gradients (SciPy computes in float64 and casts)."""

    def f(q):
        return np.sum(norm.ppf(q) + norm.sf(q, 0.2, 1.5))

    q = np.array([0.2, 0.7], dtype=np.float32)
    found = srcad.grad(f)(q)
    expected = 1.0 / norm.pdf(norm.ppf(q.astype(float))) - norm.pdf(q.astype(float), 0.2, 1.5)
    assert found.dtype == np.float32
    np.testing.assert_allclose(found, expected, rtol=1e-5)


def test_constant_shapes_run_no_quadrature(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quantile's partial in a shape (by quadrature) is computed only where read."""

    def refused(*args: Any) -> Any:
        raise AssertionError("quadrature ran for a constant shape")

    monkeypatch.setattr(shape_rules, "shape_partial", refused)

    def f(q):
        return np.sum(t.ppf(q, 3.0) + gamma.isf(q, 2.0) + beta.ppf(q, 2.0, 3.0))

    q = np.array([0.2, 0.7])
    np.testing.assert_allclose(srcad.grad(f)(q), finite_difference_jvp_each(f, q), rtol=1e-6)
    check_through_api(f, q)


def finite_difference_jvp_each(f: Any, x: np.ndarray) -> np.ndarray:
    return np.array([float(finite_difference_jvp(f, (x,), (e,))) for e in np.eye(x.size)])


@pytest.mark.parametrize(
    ("f", "match"),
    [
        (lambda x: stats.lognorm.sf(x, 0.5), r"lognorm\.sf"),
        (lambda q: stats.lognorm.ppf(q, 0.5), r"lognorm\.ppf"),
        (lambda q: np.sum(stats.poisson.ppf(q, 2.0)), r"poisson\.ppf|rv_discrete\.ppf"),
    ],
    ids=["lognorm-sf", "lognorm-ppf", "poisson-ppf"],
)
def test_other_families_are_refused(f: Any, match: str) -> None:
    with pytest.raises(srcad.SrcadError, match=match):
        srcad.grad(f)(0.3)


def test_third_derivative_of_a_quantile_in_its_shape_is_refused() -> None:
    """The quantile's partial in a shape is the log cdf's (by quadrature), whose third
    derivative is not written: an error, not a number."""

    def f(a):
        return gamma.ppf(0.3, a)

    second = srcad.grad(srcad.grad(f))
    expected = float(finite_difference_jvp(srcad.grad(f), (2.0,), (1.0,)))
    assert float(second(2.0)) == pytest.approx(expected, rel=1e-5)
    with pytest.raises(srcad.SrcadError, match=r"third derivative"):
        srcad.grad(second)(2.0)

"""Third derivatives through the `scipy.stats` methods (`rules/scipy_stats.py`: each
method's forward rule has a forward rule of its own, srcad's forward rule of
`_value_and_tangent`, reached through `third_order_calls.method_frule_frule`), in the
point and the parameters, by `grad` three deep and `jacobian` three deep, against central
differences of the second derivatives; and what stays refused, an error rather than a
number. Skipped where SciPy is not installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import srcad  # noqa: E402
import srcad.rules.scipy_stats as scipy_stats  # noqa: E402
import srcad.rules.scipy_stats_shape_rules as shape_rules  # noqa: E402
from srcad.testing import finite_difference_jvp  # noqa: E402

T = 0.7


def normal(t):
    return (
        stats.norm.logpdf(t, 0.3, 1.5)
        + stats.norm.logcdf(t)
        + stats.norm.cdf(2.0 * t, t, 1.0 + t * t)
    )


def student_gamma_beta(t):
    student = stats.t.logpdf(t, 3.5, 0.1, 1.0 + t * t)
    gamma = stats.gamma.logpdf(1.0 + t, 2.0 + t) + stats.gamma.pdf(1.5, 1.0 + t)
    return student + gamma + stats.beta.logpdf(0.3 * t, 2.0, 1.0 + t)


def poisson(t):
    return (
        stats.poisson.logpmf(3, 1.0 + t * t)
        + stats.poisson.pmf(2, t)
        + stats.poisson.logcdf(2, 1.0 + t)
    )


def _check(lower: Any, higher: Any) -> None:
    expected = float(finite_difference_jvp(lower, (T,), (1.0,)))
    assert float(higher(T)) == pytest.approx(expected, rel=2e-5, abs=1e-6)


@pytest.mark.parametrize("f", [normal, student_gamma_beta, poisson], ids=lambda f: f.__name__)
def test_third_derivatives_match_differences_of_the_second(f: Any) -> None:
    second = srcad.grad(srcad.grad(f))
    _check(second, srcad.grad(second))
    twice = srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")
    _check(twice, srcad.jacobian(twice, mode="forward"))


def frozen(t):
    return (
        stats.norm(t, 2.0 + t * t).logpdf(0.5 * t)
        + stats.gamma(2.0, t).cdf(1.5 * t + 1.0)
        + stats.poisson(1.0 + t).logpmf(2)
        + stats.beta.freeze(2.0, 1.0 + t).logpdf(0.3 * t)
    )


def log_cdfs_with_constant_shapes(t):
    """The log cdf of `t`, `gamma` and `beta` has no third derivative in its shape
    parameter: a constant shape's cotangents (computed where read, by quadrature) are
    dropped unread, and its forward rule's rules are never reached."""
    return (
        stats.t.logcdf(t, 4.0)
        + stats.gamma.logcdf(t + 1.0, 2.0, 0.1 * t)
        + stats.beta.logcdf(0.3 * t, 2.0, 1.5, 0.0, 1.0 + t)
        + stats.t(4.0, t).logcdf(0.5 * t + 1.0)
    )


def multivariate(t):
    x = np.array([t, 0.5 * t])
    return stats.multivariate_normal.logpdf(x, np.array([0.1, t]), np.eye(2) * (1.0 + t * t))


def multivariate_frozen(t):
    x = np.array([t, 0.5 * t])
    return stats.multivariate_normal(np.array([0.1, t]), np.eye(2) * (1.0 + t * t)).logpdf(x)


def multivariate_by_lower_triangle(t):
    """A full covariance (its lower triangle read), a diagonal one, points in rows."""
    v = np.array([t, 0.5 * t, 1.0])
    cov = np.array([[2.0 + t * t, 0.3, 0.1], [0.0, 1.5, t * 0.2], [0.0, 0.0, 1.0 + t]])
    points = np.array([[t, 0.5], [1.0, t * t]])
    diagonal = np.array([1.0 + t * t, 2.0])
    rows = stats.multivariate_normal.logpdf(points, np.array([0.1, t]), diagonal)
    return stats.multivariate_normal.logpdf(v, np.array([0.1, t * t, 0.0]), cov) + np.sum(rows)


@pytest.mark.parametrize(
    "f",
    [frozen, log_cdfs_with_constant_shapes, multivariate, multivariate_frozen,
     multivariate_by_lower_triangle],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_third_derivatives_through_frozen_and_multivariate_distributions(f: Any) -> None:
    """Frozen distributions' and `multivariate_normal`'s forward rules' forward rules
    (`scipy_stats_third_order.frozen_frule_frule`, the frozen methods' through the distribution's,
    `scipy_multivariate.multivariate_normal_logpdf_frule_frule`, srcad's forward rule of
    `_mvn_value_and_tangent`), in both modes."""
    second = srcad.grad(srcad.grad(f))
    _check(second, srcad.grad(second))
    twice = srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")
    _check(twice, srcad.jacobian(twice, mode="forward"))


def test_constant_shapes_run_no_quadrature_at_third_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Their cotangents by quadrature (first and second order) are summed unread."""

    def refused(*args: Any) -> Any:
        raise AssertionError("quadrature ran for a constant shape")

    for name in ("shape_partial", "shape_second_partial", "shape_partial_in_point"):
        monkeypatch.setattr(shape_rules, name, refused)
    monkeypatch.setattr(scipy_stats, "shape_partial", refused)
    second = srcad.grad(srcad.grad(log_cdfs_with_constant_shapes))
    _check(second, srcad.grad(second))


@pytest.mark.parametrize(
    "f",
    [lambda t: stats.t.logcdf(0.3, 2.0 + t), lambda t: stats.gamma(1.0 + t).logcdf(2.0),
     lambda t: stats.beta.logcdf(0.4, 2.0, 1.0 + t * t) + t ** 3,
     lambda t: stats.beta.cdf(0.3 + 0.1 * t, 1.0 + t, 2.0 - t)],
    ids=["t", "gamma_frozen", "beta", "beta_cdf_both"],
)  # fmt: skip
@pytest.mark.parametrize("order", [1, 2, 3])
def test_log_cdfs_in_their_shape_parameters_twice_and_refused_beyond(f: Any, order: int) -> None:
    """Their first and second derivatives in the shape are computed by quadrature
    (central differences of the order below agree); their third is not written
    (docs/refusals.md): an error, never a number."""
    derivative, lower = f, f
    for _ in range(order):
        lower, derivative = derivative, srcad.grad(derivative)
    if order < 3:
        step = 1e-5
        expected = (lower(T + step) - lower(T - step)) / (2.0 * step)
        np.testing.assert_allclose(derivative(T), expected, rtol=1e-6)
        return
    with pytest.raises(srcad.SrcadError, match=r"third derivative of .* shape parameter"):
        derivative(T)

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
    return stats.norm(t, 2.0).logpdf(0.5 * t)


def log_cdf_with_a_shape(t):
    """The log cdf of `t` (`gamma`, `beta`) has no partial in its shape parameter: at
    third order its not-implemented cotangent is added, and refuses, even where the shape
    is a constant."""
    return stats.t.logcdf(t, 4.0)


def multivariate(t):
    x = np.array([t, 0.5 * t])
    return stats.multivariate_normal.logpdf(x, np.array([0.1, t]), np.eye(2) * (1.0 + t * t))


@pytest.mark.parametrize(
    "f", [frozen, multivariate, log_cdf_with_a_shape], ids=lambda f: f.__name__
)
def test_third_derivatives_through_frozen_and_multivariate_distributions_are_refused(
    f: Any,
) -> None:
    """Their forward rules' forward rules are not written (a gap, docs/higher_order.md):
    an error, never a number. `jacobian(jacobian(f))` still goes through, by rows."""
    with pytest.raises(srcad.SrcadError):
        srcad.grad(srcad.grad(srcad.grad(f)))(T)
    twice = srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")
    _check(srcad.grad(f), twice)

"""Rules for `scipy.stats` (rules/scipy_stats.py): the log densities of `norm`, `t`,
`gamma`, `beta` and `poisson`, in the point and each parameter, checked against finite
differences alone and through the API. Skipped where SciPy is not installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import srcad  # noqa: E402
from srcad.errors import MissingRuleError  # noqa: E402
from srcad.registry import REGISTRY  # noqa: E402
from srcad.testing import check_frule, check_rrule  # noqa: E402
from tests.conftest import difference  # noqa: E402
from tests.rules.through_the_api import check_through_api  # noqa: E402

RNG = np.random.default_rng(22)
X = RNG.standard_normal(4)
UNIT = RNG.uniform(0.1, 0.9, 4)
POSITIVE = RNG.uniform(0.5, 3.0, 4)
COUNTS = np.array([0, 2, 5, 1])

BOTH_RULES = pytest.mark.parametrize(
    "check", [pytest.param(check_rrule, id="rrule"), pytest.param(check_frule, id="frule")]
)

CALLS = [
    pytest.param(stats.norm.logpdf, (X,), {}, id="norm.logpdf"),
    pytest.param(stats.norm.logpdf, (X, 0.3, 1.7), {}, id="norm.logpdf-loc-scale"),
    pytest.param(stats.norm.logpdf, (X, POSITIVE, POSITIVE), {}, id="norm.logpdf-arrays"),
    pytest.param(stats.norm.logpdf, (X,), {"loc": 0.2, "scale": 2.0}, id="norm.logpdf-keywords"),
    pytest.param(stats.norm.logpdf, (0.4, X, 2.0), {}, id="norm.logpdf-broadcast"),
    pytest.param(stats.norm.logcdf, (X, 0.3, 1.7), {}, id="norm.logcdf"),
    pytest.param(stats.norm.logcdf, (4.0 * X - 3.0,), {}, id="norm.logcdf-tails"),
    pytest.param(stats.t.logpdf, (X, 3.5), {}, id="t.logpdf"),
    pytest.param(stats.t.logpdf, (X, POSITIVE, 0.2, 1.5), {}, id="t.logpdf-loc-scale"),
    pytest.param(stats.gamma.logpdf, (POSITIVE, 2.5), {}, id="gamma.logpdf"),
    pytest.param(stats.gamma.logpdf, (POSITIVE, 1.5, 0.1, 2.0), {}, id="gamma.logpdf-loc-scale"),
    pytest.param(stats.beta.logpdf, (UNIT, 2.0, 3.0), {}, id="beta.logpdf"),
    pytest.param(stats.beta.logpdf, (2 * UNIT - 0.5, 2.0, 3.0, -0.6, 2.2), {}, id="beta-loc-scale"),
    pytest.param(stats.poisson.logpmf, (COUNTS, 2.5), {}, id="poisson.logpmf"),
    pytest.param(stats.poisson.logpmf, (COUNTS + 1, POSITIVE, 1), {}, id="poisson.logpmf-loc"),
    pytest.param(stats.poisson.logcdf, (COUNTS, 2.5), {}, id="poisson.logcdf"),
    pytest.param(stats.norm.pdf, (X, 0.3, 1.7), {}, id="norm.pdf"),
    pytest.param(stats.norm.cdf, (X, 0.3, 1.7), {}, id="norm.cdf"),
    pytest.param(stats.t.pdf, (X, POSITIVE, 0.2, 1.5), {}, id="t.pdf"),
    pytest.param(stats.gamma.pdf, (POSITIVE, 1.5, 0.1, 2.0), {}, id="gamma.pdf"),
    pytest.param(stats.beta.pdf, (UNIT, 2.0, 3.0), {}, id="beta.pdf"),
    pytest.param(stats.poisson.pmf, (COUNTS, 2.5), {}, id="poisson.pmf"),
    pytest.param(stats.poisson.cdf, (COUNTS, POSITIVE), {}, id="poisson.cdf"),
]


@pytest.mark.parametrize(("f", "args", "kwargs"), CALLS)
@BOTH_RULES
def test_log_densities_match_finite_differences(f: Any, args: Any, kwargs: Any, check: Any) -> None:
    check(f, *args, **kwargs)


def test_outside_the_support_the_derivative_is_zero() -> None:
    x = np.array([-1.0, 0.5, 2.0])  # gamma's support is x > 0
    _, pullback = srcad.rrule(stats.gamma.logpdf, x, 2.0)
    _, x_bar, a_bar = pullback(np.ones(3))
    assert x_bar[0] == 0.0 and np.all(np.isfinite(x_bar)) and np.isfinite(a_bar)


def test_a_family_without_rules_is_refused_by_name() -> None:
    with pytest.raises(MissingRuleError, match=r"`lognorm\.logcdf`.*norm\.logpdf"):
        srcad.rrule(stats.lognorm.logcdf, X, 3.0)
    with pytest.raises(MissingRuleError, match=r"`lognorm\.logpdf`"):
        srcad.frule((srcad.NoTangent(),) * 3, stats.lognorm.logpdf, POSITIVE, 0.5)


def normal_fit(p: np.ndarray) -> Any:
    """A user's negative log likelihood, as written with SciPy."""
    return -np.sum(stats.norm.logpdf(X, p[0], p[1] ** 2 + 0.5)) - stats.norm.logcdf(p[0], 0.1, 1.3)


def robust_fit(p: np.ndarray) -> Any:
    t_part = np.sum(stats.t.logpdf(X, p[0] ** 2 + 2.0, p[1], 1.5))
    return t_part + np.sum(stats.gamma.logpdf(POSITIVE, p[0] ** 2 + 1.0, 0.0, p[1] ** 2 + 1.0))


def counts_fit(p: np.ndarray) -> Any:
    rate = p[0] ** 2 + 1.0
    counts = np.sum(stats.poisson.logpmf(COUNTS, rate)) + np.sum(stats.poisson.logcdf(COUNTS, rate))
    return counts + np.sum(stats.beta.logpdf(UNIT, p[0] ** 2 + 1.0, p[1] ** 2 + 1.0))


@pytest.mark.parametrize("f", [normal_fit, robust_fit, counts_fit])
def test_through_the_api(f: Any) -> None:
    # To second order: the forward rules' own rules (`_value_and_tangent`, compiled).
    check_through_api(f, np.array([0.3, 1.1]))


@pytest.mark.parametrize(
    ("distribution", "method"),
    [("rv_continuous", "logpdf"), ("rv_continuous", "logcdf"), ("rv_discrete", "logpmf"),
     ("rv_discrete", "logcdf")],
)  # fmt: skip
def test_the_shared_methods_have_both_rules(distribution: str, method: str) -> None:
    from scipy.stats import _distn_infrastructure

    function = getattr(getattr(_distn_infrastructure, distribution), method)
    assert REGISTRY.rrule_for(function) is not None
    assert REGISTRY.frule_for(function) is not None


# --- the log cdfs of t, gamma and beta: in x, loc and scale --------------------------------


def cdf_fit(p: np.ndarray) -> Any:
    t_part = np.sum(stats.t.logcdf(X * p[0], 3.5, p[1], 1.5 + p[0] ** 2))
    gamma_part = np.sum(stats.gamma.logcdf(POSITIVE, 2.5, 0.1 * p[1], p[0] ** 2 + 1.0))
    beta_part = np.sum(stats.beta.cdf(UNIT * 0.9, 2.0, 3.0, 0.05 * p[1], 1.0 + 0.1 * p[0]))
    return t_part + gamma_part + beta_part


def test_log_cdfs_in_the_point_and_location_and_scale() -> None:
    check_through_api(
        cdf_fit,
        np.array([0.3, 1.1]),
    )


# The log cdfs in their shape parameters (first order, by quadrature; the second refused):
# tests/rules/test_scipy_stats_shapes.py.


# --- frozen distributions ------------------------------------------------------------------


def frozen_fit(p: np.ndarray) -> Any:
    """A likelihood written with frozen distributions, every method and family with rules."""
    normal = stats.norm(p[0], p[1] ** 2 + 0.5)
    total = np.sum(normal.logpdf(X)) + np.sum(normal.logcdf(X)) + np.sum(normal.pdf(X))
    total = total + np.sum(stats.norm(p[1], scale=2.0).cdf(X))
    total = total + np.sum(stats.t(p[0] ** 2 + 2.0, p[1], 1.5).logpdf(X))
    total = total + np.sum(stats.t(3.0, p[1]).logcdf(X))
    total = total + np.sum(stats.gamma(p[0] ** 2 + 1.0, 0.0, p[1] ** 2 + 1.0).logpdf(POSITIVE))
    total = total + np.sum(stats.beta.freeze(p[0] ** 2 + 1.0, 2.0).pdf(UNIT))
    rate = stats.poisson(p[1] ** 2 + 1.0)
    return total + np.sum(rate.logpmf(COUNTS)) + np.sum(rate.pmf(COUNTS) + rate.cdf(COUNTS))


def test_frozen_distributions_through_the_api() -> None:
    check_through_api(
        frozen_fit,
        np.array([0.3, 1.1]),
    )


@pytest.mark.parametrize(
    ("frozen", "x"),
    [
        pytest.param(stats.norm(0.3, 1.7), X, id="norm"),
        pytest.param(stats.t(3.5, 0.2, 1.5), X, id="t"),
        pytest.param(stats.gamma(2.5), POSITIVE, id="gamma"),
        pytest.param(stats.poisson(2.5), COUNTS, id="poisson"),
    ],
)
@BOTH_RULES
def test_a_frozen_method_matches_finite_differences_in_the_point(frozen: Any, x: Any,
                                                                 check: Any) -> None:  # fmt: skip
    method = frozen.logpmf if hasattr(frozen, "logpmf") else frozen.logpdf
    check(method, x)
    check(frozen.logcdf, x)


def frozen_family_without_rules(p: np.ndarray) -> Any:
    return np.sum(stats.lognorm(p[0] ** 2 + 0.5).logpdf(POSITIVE))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_frozen_family_without_rules_is_refused_by_name(mode: str) -> None:
    p = np.array([0.3, 1.1])
    with pytest.raises(MissingRuleError, match=r"`lognorm\.logpdf`"):
        if mode == "reverse":
            srcad.grad(frozen_family_without_rules)(p)
        else:
            srcad.jvp(frozen_family_without_rules, (p,), (np.ones(2),))


# --- second derivatives: each method in the point and each parameter ------------------------


def _second_order_cases() -> list[Any]:
    """Each call of `CALLS` with respect to each float argument passed by position (the
    counts of `poisson` are integers; the log cdfs' shapes have no second derivative)."""
    cases = []
    for call in CALLS:
        f, args, kwargs = call.values
        for position, value in enumerate(args):
            if np.asarray(value).dtype.kind != "f" or (position == 0 and f.__name__ == "pmf"):
                continue
            shape = 0 < position <= len(getattr(f.__self__, "shapes", None) or "")
            if shape and f.__name__ in ("logcdf", "cdf") and f.__self__.name != "poisson":
                continue
            cases.append(pytest.param(f, args, kwargs, position, id=f"{call.id}-{position}"))
    return cases


@pytest.mark.parametrize(("f", "args", "kwargs", "position"), _second_order_cases())
def test_second_derivatives_of_each_method_match_finite_differences(
    f: Any, args: Any, kwargs: Any, position: int
) -> None:
    def objective(value: Any) -> Any:
        return np.sum(f(*args[:position], value, *args[position + 1 :], **kwargs) ** 2)

    at = np.asarray(args[position], dtype=float)
    expected = difference(srcad.grad(objective), (at,))
    np.testing.assert_allclose(srcad.hessian(objective)(at), expected, rtol=1e-5, atol=1e-7)
    forward = srcad.jacobian(srcad.grad(objective), mode="forward")(at)
    np.testing.assert_allclose(forward, expected, rtol=1e-5, atol=1e-7)


def test_the_probe_of_issue_20_second_order_through_norm_logpdf() -> None:
    x = np.array([0.3, 1.2, -0.7])
    hessian = srcad.hessian(lambda x: np.sum(stats.norm.logpdf(x, 0.5, 2.0)))(x)
    np.testing.assert_allclose(hessian, -np.eye(3) / 4.0, atol=1e-12)


# The forward rules with rules of their own (second derivatives: the tests above, and
# tests/rules/test_scipy_multivariate.py), by name.
DIFFERENTIATED_FORWARD_RULES = {
    "logpdf_frule", "logcdf_frule", "pdf_frule", "cdf_frule", "logpmf_frule", "pmf_frule",
    "frozen_frule", "frozen_logpdf_frule", "frozen_pdf_frule", "frozen_logpmf_frule",
    "frozen_pmf_frule", "frozen_logcdf_frule", "frozen_cdf_frule",
    "multivariate_normal_logpdf_frule", "multivariate_normal_frozen_frule",
    "multivariate_normal_frozen_logpdf_frule",
    # and their forward rules (third derivatives: tests/rules/test_scipy_third_order.py)
    "logpdf_frule_frule", "logcdf_frule_frule", "pdf_frule_frule", "cdf_frule_frule",
    "logpmf_frule_frule", "pmf_frule_frule", "frozen_frule_frule", "frozen_logpdf_frule_frule",
    "frozen_pdf_frule_frule", "frozen_logpmf_frule_frule", "frozen_pmf_frule_frule",
    "frozen_logcdf_frule_frule", "frozen_cdf_frule_frule",
    "multivariate_normal_logpdf_frule_frule", "multivariate_normal_frozen_frule_frule",
    "multivariate_normal_frozen_logpdf_frule_frule",
    # the log cdfs' first partials in a shape, whose forward rule's rules refuse (third
    # derivatives in a shape: tests/rules/test_scipy_stats_shapes.py)
    "logcdf_shape_partial_frule",
}  # fmt: skip


def test_the_forward_rules_have_reverse_rules_of_their_own() -> None:
    import srcad.rules.scipy_multivariate  # noqa: F401 (installed with scipy.stats)

    sets = ("scipy_stats", "scipy_multivariate")
    forward = {r.rrule for r in REGISTRY.forward_rules() if r.rule_set in sets}
    named = {f.__name__ for f in forward if REGISTRY.rrule_for(f) is not None}
    assert named == DIFFERENTIATED_FORWARD_RULES


def normal_density(p: np.ndarray) -> Any:
    return stats.norm.logpdf(POSITIVE * p[0], 0.2, p[1] ** 2 + 1.0)


def t_log_cdf(p: np.ndarray) -> Any:
    return stats.t.logcdf(POSITIVE * p[0], 3.0, p[1] ** 2)


def gamma_density(p: np.ndarray) -> Any:
    return stats.gamma.pdf(POSITIVE * p[0], p[1] ** 2 + 1.0)


def poisson_log_cdf(p: np.ndarray) -> Any:
    return stats.poisson.logcdf(COUNTS, p[1] ** 2 + p[0])


@pytest.mark.parametrize("f", [normal_density, t_log_cdf, gamma_density, poisson_log_cdf],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_forward_over_forward_through_a_method(f: Any) -> None:
    """`jacobian(jacobian(f))`, each element against differences of a row of the
    Jacobian."""
    p = np.array([0.8, 0.6])
    second = srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")(p)
    rows = [difference(lambda q, i=i: srcad.jacobian(f)(q)[i], (p,)) for i in range(4)]
    np.testing.assert_allclose(second, np.stack(rows), rtol=1e-5, atol=1e-7)


# A density whose factor `z**(a - 1)` or `(1 - z)**(b - 1)` is 1 at its support's end
# (`a == 1`, `b == 1`) is finite there with a finite slope, the one-sided one from inside.
# The slope `(a - 1) / z` was 0/0 there: NaN in grad, jvp and the Hessian.
SUPPORT_ENDS = [
    pytest.param(lambda x: stats.gamma.logpdf(x, 1.0), 0.0, 1, id="gamma.logpdf-a1"),
    pytest.param(lambda x: stats.gamma.pdf(x, 1.0, 0.5, 2.0), 0.5, 1, id="gamma.pdf-a1-loc-scale"),
    pytest.param(lambda x: stats.gamma(1.0, 0.0, 3.0).logpdf(x), 0.0, 1, id="gamma-frozen"),
    pytest.param(lambda x: stats.beta.logpdf(x, 1.0, 3.0), 0.0, 1, id="beta.logpdf-a1"),
    pytest.param(lambda x: stats.beta.pdf(x, 2.5, 1.0), 1.0, -1, id="beta.pdf-b1"),
    pytest.param(lambda x: stats.beta.logpdf(x, 1.0, 1.0), 1.0, -1, id="beta.logpdf-a1b1-upper"),
    pytest.param(lambda x: stats.beta.pdf(x, 1.0, 1.0, 1.0, 2.0), 1.0, 1, id="beta.pdf-loc-scale"),
    pytest.param(lambda x: stats.beta(3.0, 1.0).logpdf(x), 1.0, -1, id="beta-frozen-b1"),
]


@pytest.mark.parametrize(("density", "end", "inside"), SUPPORT_ENDS)
def test_at_the_end_of_the_support_where_the_density_is_finite(
    density: Any, end: float, inside: int
) -> None:
    """grad, jvp and the Hessian at the support's end `end` against one-sided differences
    from inside (`inside` the direction in), the points beside it against central ones."""

    def f(x: np.ndarray) -> Any:
        return np.sum(density(x))

    def one_sided(g: Any, x: np.ndarray, step: float = 1e-6) -> Any:
        # second order: (-3 g(x) + 4 g(x + h) - g(x + 2h)) / 2h, h pointing inside
        h = inside * step
        return (-3.0 * g(x) + 4.0 * g(x + h) - g(x + 2.0 * h)) / (2.0 * h)

    x = np.array([end])
    gradient = srcad.grad(f)(x)
    assert np.isfinite(f(x))
    np.testing.assert_allclose(gradient, one_sided(f, x), rtol=1e-6, atol=1e-8)
    _, x_dot = srcad.jvp(f, (x,), (np.ones(1),))
    np.testing.assert_allclose(x_dot, gradient[0], rtol=1e-12)
    second = srcad.hessian(f)(x)
    np.testing.assert_allclose(second[0], one_sided(srcad.grad(f), x), rtol=1e-5, atol=1e-7)
    near = np.array([end + inside * 0.25, end + inside * 0.6])
    check_through_api(f, near)


# Poisson at mu == 0, the end of its parameter's range: the log pmf of k == loc is 0 with
# slope -1 ((k - loc) / mu was 0/0: NaN); the pmf of k - loc == 1 is 0 with slope 1 (the
# log pmf's slope times the value, inf * 0, was taken as 0 outside the support: a wrong
# gradient); the log cdf's second derivative is the pmf's (it was 0 there).
POISSON_AT_ZERO = [
    pytest.param(lambda mu: stats.poisson.logpmf(np.array([0, 0]), mu), id="logpmf-k0"),
    pytest.param(lambda mu: stats.poisson.pmf(np.array([0, 1, 2, 3]), mu), id="pmf"),
    pytest.param(lambda mu: stats.poisson.pmf(np.array([2, 3]), mu, 2), id="pmf-loc"),
    pytest.param(lambda mu: stats.poisson(mu).pmf(np.array([0, 1, 4])), id="pmf-frozen"),
    pytest.param(lambda mu: stats.poisson.logcdf(np.array([0, 1, 2, 6]), mu), id="logcdf"),
    pytest.param(lambda mu: stats.poisson.cdf(np.array([0, 1, 2]), mu), id="cdf"),
    pytest.param(lambda mu: stats.poisson.logcdf(np.array([1.5, 3]), mu, 1), id="logcdf-loc"),
    pytest.param(lambda mu: stats.poisson(mu, 1).logpmf(np.array([1, 1])), id="logpmf-frozen"),
]


@pytest.mark.parametrize("method", POISSON_AT_ZERO)
def test_poisson_at_a_rate_of_zero(method: Any) -> None:
    def f(mu: np.ndarray) -> Any:
        return np.sum(method(mu) * np.array([1.0, 0.5, -0.7, 2.0])[: np.size(method(mu))])

    def one_sided(g: Any, x: np.ndarray, step: float = 1e-5) -> Any:
        return (-3.0 * g(x) + 4.0 * g(x + step) - g(x + 2.0 * step)) / (2.0 * step)

    mu = np.array([0.0])
    assert np.isfinite(f(mu))
    gradient = srcad.grad(f)(mu)
    np.testing.assert_allclose(gradient, one_sided(f, mu), rtol=1e-6, atol=1e-8)
    _, mu_dot = srcad.jvp(f, (mu,), (np.ones(1),))
    np.testing.assert_allclose(mu_dot, gradient[0], rtol=1e-12)
    second = srcad.hessian(f)(mu)
    np.testing.assert_allclose(second[0], one_sided(srcad.grad(f), mu), rtol=1e-5, atol=1e-7)
    check_through_api(f, np.array([0.3]))


def test_poisson_log_cdf_where_the_cdf_underflows() -> None:
    """Far in the lower tail (the cdf below 1e-200) the log cdf's partial is taken in log
    space: d/dmu log P(K <= 0) = -1, finite."""

    def f(mu: np.ndarray) -> Any:
        return np.sum(stats.poisson.logcdf(np.array([0, 2]), mu))

    mu = np.array([600.0])  # the cdf of 0 is e^-600, 1e-261
    assert np.all(np.isfinite(f(mu)))
    want = -2.0 + (1.0 + mu) / (1.0 + mu + mu * mu / 2.0)
    np.testing.assert_allclose(srcad.grad(f)(mu), want, rtol=1e-9)
    check_through_api(f, mu, second_order=False)

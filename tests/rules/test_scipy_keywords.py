"""Parameters passed by keyword to SciPy, as they usually are: `norm.logpdf(x, loc=m,
scale=s)`, `t(df=k, loc=m).logpdf(x)`, `logsumexp(a, b=w)`. srcad refused every such
differentiated keyword (E211: keyword arguments are options); they are now passed by
position, where the rules differentiate them (`ByPosition`, `rules.scipy_stats._by_position`).
Both modes and second order, against central differences."""

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")


def norm_location_and_scale(x):
    return np.sum(stats.norm.logpdf(x, loc=x[0], scale=x[1] + 1.0))


def norm_scale_only_and_point_by_name(x):
    return np.sum(stats.norm.logpdf(x=x, scale=x[1] + 1.0)) + stats.norm.cdf(x[2], x[0], scale=2.0)


def t_shape_by_name(x):
    return np.sum(stats.t.logpdf(x, df=3.0 + x[2], loc=x[0])) + stats.t.logcdf(x[3], df=4.0)


def gamma_and_beta_shapes_by_name(x):
    gamma = stats.gamma.logpdf(x + 2.0, a=x[2] + 1.0, scale=2.0)
    beta = stats.beta.logpdf(np.array([0.2, 0.6]), a=x[1] + 1.0, b=x[2] + 0.5)
    return np.sum(gamma) + np.sum(beta)


def poisson_rate_by_name(x):
    return np.sum(stats.poisson.logpmf(np.array([1, 3]), mu=x[1] + 1.0))


def frozen_by_name(x):
    return np.sum(stats.norm(loc=x[0], scale=2.0).logpdf(x)) + stats.t(df=x[2] + 2.0).logpdf(x[3])


def log_cdf_shapes_by_name(x):
    """A shape by keyword into a log cdf: its derivatives there by quadrature, to second order."""
    return stats.t.logcdf(0.7, df=x[0] + 2.0) + stats.gamma.logcdf(1.3, a=x[1] + 1.0)


def logsumexp_weights_by_name(x):
    return special.logsumexp(x, b=x**2 + 1.0) + np.sum(
        special.logsumexp(np.outer(x, x), axis=0, b=x[0] + 2.0)
    )


CASES = [
    norm_location_and_scale,
    norm_scale_only_and_point_by_name,
    t_shape_by_name,
    gamma_and_beta_shapes_by_name,
    poisson_rate_by_name,
    frozen_by_name,
    log_cdf_shapes_by_name,
    logsumexp_weights_by_name,
]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_parameters_by_keyword_are_differentiated(f):
    x = np.array([0.3, 0.7, 1.1, -0.4])
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    tangent = np.array([1.0, -0.5, 2.0, 0.3])
    close(srcad.jvp(f, (x,), (tangent,))[1], want @ tangent)
    np.testing.assert_allclose(
        srcad.hessian(f)(x), difference(srcad.grad(f), (x,)), rtol=1e-5, atol=1e-6
    )

"""The SciPy cases `tools/rule_audit.py` checks (`--group SCIPY`): every SciPy rule
(`scipy.special`, `scipy.stats` and its frozen distributions, `scipy.linalg`,
`scipy.integrate`) under float32 inputs, broadcasting shapes, keyword and positional
spellings, and edge points (zeros, ones, tails, negative non-integers, `-inf`). The calls
srcad has no rule for are here too: a located refusal is the right outcome there."""

from __future__ import annotations

import numpy as np
from rule_audit_cases import SPD, A, C, Case, F, N, P, c

F32 = np.float32


SPECIAL: list[Case] = [
    # broadcasting, Python numbers beside arrays, float32
    *c(
        "scipy.special.xlogy(x, y)",
        "scipy.special.xlog1py(x, y)",
        "scipy.special.xlogy(x, y) + scipy.special.xlogy(y, x * x)",
        args=(F(3, 1), P(4)),
    ),
    *c(
        "scipy.special.xlogy(2.0, x)",
        "scipy.special.xlogy(x, 2.0)",
        "scipy.special.xlogy(x, 2)",
        "scipy.special.xlog1py(x, 0.5)",
        "scipy.special.xlog1py(0.5, x)",
        "scipy.special.gammaln(x)",
        "scipy.special.psi(x)",
        "scipy.special.digamma(x)",
        "scipy.special.polygamma(0, x)",
        "scipy.special.polygamma(2, x)",
        "scipy.special.polygamma(np.array([0, 1, 2, 3]), x)",
        "scipy.special.polygamma([0, 1, 2, 3], x)",
        "scipy.special.polygamma([[0], [1]], x)",
        "scipy.special.polygamma(n=1, x=x)",
        "scipy.special.erf(x)",
        "scipy.special.erfc(x)",
        "scipy.special.expit(x)",
        "scipy.special.logit(x / 3)",
        "scipy.special.ndtr(x)",
        "scipy.special.log_ndtr(x)",
        args=(P(4),),
    ),
    *c(
        "scipy.special.xlogy(x, y)",
        "scipy.special.xlog1py(x, y)",
        "scipy.special.gammaln(y)",
        "scipy.special.psi(y)",
        "scipy.special.polygamma(1, y)",
        "scipy.special.erfc(x)",
        "scipy.special.logit(y / 3)",
        "scipy.special.log_ndtr(x)",
        "scipy.special.ndtr(x)",
        "scipy.special.log_softmax(x, axis=0)",
        "scipy.special.logsumexp(x, 0, y)",
        "scipy.special.logsumexp(x, axis=1, keepdims=True)",
        args=(F(3, 4, dtype=F32), P(3, 4, dtype=F32)),
    ),
    *c(  # float16 (SciPy's ufuncs compute it in float32)
        "scipy.special.expit(x)",
        "scipy.special.erf(x)",
        "scipy.special.gammaln(x * x + 1.0)",
        "scipy.special.logsumexp(x)",
        "scipy.special.softmax(x)",
        args=(F(3, dtype=np.float16),),
        second=False,
    ),
    *c(  # float32 beside float64 and Python numbers
        "scipy.special.xlogy(x, y)",
        "scipy.special.xlogy(y, 2.0)",
        "scipy.special.logsumexp(x, None, y)",
        args=(F(3, dtype=F32), P(3)),
    ),
    # gammaln and the digammas at negative non-integers (log |gamma|)
    *c(
        "scipy.special.gammaln(x)",
        "scipy.special.psi(x)",
        "scipy.special.polygamma(1, x)",
        "scipy.special.gammaln(x) * x",
        args=(A([-0.5, -1.5, -2.3, -7.7, 0.3, 5.0, 170.5]),),
    ),
    # tails and extremes
    *c(
        "scipy.special.expit(x)",
        "scipy.special.erf(x)",
        "scipy.special.erfc(x)",
        "scipy.special.ndtr(x)",
        "scipy.special.log_ndtr(x)",
        "scipy.special.log_ndtr(x) * 2.0",
        args=(A([-40.0, -27.0, -10.0, -1e-8, 0.0, 3.0, 10.0, 27.0, 40.0]),),
    ),
    *c(
        "scipy.special.expit(x)",
        args=(A([-800.0, -50.0, 0.0, 50.0, 800.0]),),
    ),
    *c("np.log(scipy.special.expit(x))", args=(A([-50.0, -5.0, 0.0, 50.0, 800.0]),)),
    *c(
        "scipy.special.logit(x)",
        args=(A([1e-12, 1e-6, 0.25, 0.5, 1.0 - 1e-6]),),
        kink=True,
    ),
    *c(
        "scipy.special.logit(x)",
        "scipy.special.logit(scipy.special.expit(x))",
        "scipy.special.expit(scipy.special.logit(x))",
        args=(A([0.05, 0.2, 0.5, 0.95]),),
    ),
    *c(  # logit at 0 and 1: infinite values, whose derivatives are not finite
        "scipy.special.logit(x)",
        args=(A([0.0, 0.5, 1.0]),),
        kink=True,
    ),
    # xlogy at x == 0 (the value 0 whatever y)
    *c(
        "scipy.special.xlogy(x, y)",
        "scipy.special.xlog1py(x, y - 1.0)",
        args=(A([0.0, 0.0, 0.0, 1.5, 2.0]), A([0.0, 1.0, 3.0, 2.0, 0.5])),
        kink=True,
    ),
    *c(
        "scipy.special.xlogy(x * x, y)",
        "scipy.special.xlogy(x, y * y + 1.0)",
        args=(A([0.0, 1.0, -2.0]), A([0.5, 0.0, 1.5])),
        kink=True,
    ),
    # logsumexp, softmax, log_softmax: -inf entries, b with zeros and signs, shapes
    *c(
        "scipy.special.logsumexp(x)",
        "scipy.special.logsumexp(x, axis=1)",
        "scipy.special.softmax(x, axis=1)",
        "scipy.special.log_softmax(x, axis=1)[:, 1:]",
        args=(A([[-np.inf, 0.0, 1.0], [2.0, -np.inf, -1.0]]),),
        kink=True,
    ),
    *c(
        "scipy.special.logsumexp(x, axis=0)",
        args=(A([[-np.inf, 0.0], [-np.inf, 1.0]]),),
        kink=True,
    ),
    *c(
        "scipy.special.logsumexp(x, -1, y)",
        "scipy.special.logsumexp(x, -1, y, True, True)[0]",
        "scipy.special.logsumexp(x, None, y, False, True)[0]",
        args=(F(2, 3), A([[1.0, 0.0, 2.0], [0.5, 0.0, 3.0]])),
        kink=True,
    ),
    *c(
        "scipy.special.logsumexp(x, 1, y, return_sign=True)[0]",
        "scipy.special.logsumexp(x, 1, y, False, True)[0]",
        "scipy.special.logsumexp(x, 1, y, False, True)[1] * x[:, 0]",
        args=(F(2, 3), A([[1.0, -0.5, 2.0], [-0.5, 2.0, 1.0]])),
    ),
    *c(
        "scipy.special.logsumexp(x, (0, 2))",
        "scipy.special.logsumexp(x, axis=(-1, 0), keepdims=True)",
        "scipy.special.logsumexp(x, 1, y)",
        "scipy.special.logsumexp(x, None, y)",
        "scipy.special.softmax(x, (0, 2))",
        "scipy.special.softmax(x, axis=-2)",
        "scipy.special.log_softmax(x, (1, 2))",
        "scipy.special.log_softmax(x, axis=-1)",
        args=(F(2, 3, 4), P(3, 1)),
    ),
    *c(  # b of a larger shape than a (the sum over their broadcast)
        "scipy.special.logsumexp(x, None, y)",
        "scipy.special.logsumexp(x, 1, y)",
        "scipy.special.logsumexp(x, -1, y, True)",
        "scipy.special.logsumexp(x, 0, y, False, True)[0]",
        args=(F(3), P(2, 3)),
    ),
    *c(
        "scipy.special.logsumexp(x, axis=0)",
        "scipy.special.softmax(x, 0)",
        "scipy.special.log_softmax(x)",
        args=(F(1),),
    ),
    *c(
        "scipy.special.logsumexp(x)",
        "scipy.special.softmax(x)",
        "scipy.special.log_softmax(x)",
        args=(A(np.float64(0.7)),),
    ),
    *c(  # large entries: no overflow
        "scipy.special.logsumexp(x)",
        "scipy.special.softmax(x)",
        "scipy.special.log_softmax(x)",
        args=(A([700.0, 710.0, 800.0]),),
    ),
    # integers: values only (nothing differentiated but the float arguments)
    *c(
        "scipy.special.gammaln(y) * x",
        "scipy.special.xlogy(y, x)",
        "scipy.special.polygamma(y, x)",
        "scipy.special.logsumexp(x, b=y)",
        args=(P(3), lambda rng: rng.integers(1, 4, 3)),
    ),
    # calls with no rule: a located refusal
    *c(
        "scipy.special.betainc(x, x, 0.5)",
        "scipy.special.gammainc(x, 1.0)",
        "scipy.special.ive(1.0, x)",
        "scipy.special.kve(1.0, x)",
        "scipy.special.expm1(x)",
        "scipy.special.log1p(x)",
        "scipy.special.gamma(x)",
        "scipy.special.beta(x, x)",
        "scipy.special.betaln(x, 2.0)",
        "scipy.special.i0(x)",
        "scipy.special.entr(x)",
        "scipy.special.rel_entr(x, 0.5)",
        "scipy.special.erfinv(x / 3)",
        "scipy.special.ndtri(x / 3)",
        "scipy.special.log_expit(x)",
        "scipy.special.logsumexp(x, b=x)",
        args=(P(3),),
    ),
    *c(
        "scipy.special.logsumexp(x)",
        "scipy.special.softmax(x)",
        "scipy.special.log_softmax(x)",
        args=(C(3),),
        second=False,
    ),
]

STATS: list[Case] = [
    # broadcasting: the point, loc and scale of different shapes
    *c(
        "scipy.stats.norm.logpdf(x, y, z)",
        "scipy.stats.norm.pdf(x, y, z)",
        "scipy.stats.norm.logcdf(x, y, z)",
        "scipy.stats.norm.cdf(x, y, z)",
        "scipy.stats.norm(y, z).logpdf(x)",
        "scipy.stats.norm(y, z).pdf(x)",
        "scipy.stats.norm(y, z).cdf(x)",
        "scipy.stats.norm(y, z).logcdf(x)",
        "scipy.stats.norm.freeze(y, z).logpdf(x)",
        "scipy.stats.t.logpdf(x, 3.0, y, z)",
        "scipy.stats.t.pdf(x, z + 1.0, y, z)",
        "scipy.stats.t.logpdf(x, z + 1.0)",
        "scipy.stats.t(z + 1.0, y, z).logpdf(x)",
        "scipy.stats.t.cdf(x, 4.0, y, z)",
        "scipy.stats.t.logcdf(x, 4.0, y)",
        "scipy.stats.gamma.logpdf(x * x + 0.5, z)",
        "scipy.stats.gamma.logpdf(x * x + 2.0, z, y, z)",
        "scipy.stats.gamma.pdf(x * x + 0.5, z + 1.0)",
        "scipy.stats.gamma(z + 1.0).logpdf(x * x + 0.5)",
        "scipy.stats.gamma.logcdf(x * x + 0.5, 2.0, 0.0, z)",
        "scipy.stats.beta.logpdf(scipy.special.expit(x), z, z + 1.0)",
        "scipy.stats.beta.pdf(scipy.special.expit(x), 2.0, z)",
        "scipy.stats.beta(z, 2.0).logpdf(scipy.special.expit(x))",
        "scipy.stats.beta.cdf(scipy.special.expit(x), 2.0, 3.0)",
        "scipy.stats.beta.logpdf(x * x + y * y + 0.5, 2.0, 3.0, 0.0, x * x + y * y + 1.0)",
        args=(F(3, 1), F(4), P(1)),
    ),
    *c(  # second order in the parameters (the first argument, `x`, is the one the Hessian
        # check differentiates)
        "scipy.stats.norm.logpdf(y, x, z)",
        "scipy.stats.norm.logpdf(y, 0.5, x * x + 0.5)",
        "scipy.stats.norm.logcdf(y, x, z)",
        "scipy.stats.norm.cdf(y, x, x * x + 0.5)",
        "scipy.stats.norm(x, z).logpdf(y)",
        "scipy.stats.norm(0.0, x * x + 0.5).cdf(y)",
        "scipy.stats.t.logpdf(y, x * x + 1.0)",
        "scipy.stats.t.logpdf(y, x * x + 1.0, x, z)",
        "scipy.stats.t(x * x + 1.0).pdf(y)",
        "scipy.stats.gamma.logpdf(z, x * x + 1.0)",
        "scipy.stats.gamma.pdf(z + 1.0, x * x + 0.5, 0.0, z)",
        "scipy.stats.gamma(x * x + 1.0, 0.0, z).logpdf(z)",
        "scipy.stats.beta.logpdf(scipy.special.expit(y), x * x + 0.5, z)",
        "scipy.stats.beta.pdf(scipy.special.expit(y), z, x * x + 0.5)",
        "scipy.stats.poisson.logpmf(np.array([0, 1, 5]), x * x + 0.5)",
        "scipy.stats.poisson.pmf(np.array([0, 1, 5]), x * x + 0.5)",
        "scipy.stats.poisson.logcdf(np.array([0, 1, 5]), x * x + 0.5)",
        "scipy.stats.poisson(x * x + 0.5).pmf(np.array([0, 1, 5]))",
        args=(F(3), F(3), P(3)),
    ),
    *c(  # keyword spellings of options that are not differentiated
        "scipy.stats.norm.logpdf(x, loc=0.5, scale=2.0)",
        "scipy.stats.norm.logpdf(x=x)",
        "scipy.stats.norm.logpdf(x, scale=2.0)",
        "scipy.stats.norm.cdf(x, 0.5, scale=2.0)",
        "scipy.stats.norm(loc=0.5, scale=2.0).logpdf(x)",
        "scipy.stats.norm(scale=2.0).cdf(x)",
        "scipy.stats.t.logpdf(x, df=3.0)",
        "scipy.stats.t(df=3.0, loc=1.0).logcdf(x)",
        "scipy.stats.t(3.0).pdf(x)",
        "scipy.stats.gamma.logpdf(x * x + 0.5, a=2.0)",
        "scipy.stats.gamma(a=2.0, scale=3.0).pdf(x * x + 0.5)",
        "scipy.stats.beta(a=2.0, b=3.0).logpdf(scipy.special.expit(x))",
        "scipy.stats.beta.logcdf(scipy.special.expit(x), a=2.0, b=3.0)",
        args=(F(4),),
    ),
    *c(  # float32 points and parameters
        "scipy.stats.norm.logpdf(x, y, z)",
        "scipy.stats.norm.cdf(x, y, z)",
        "scipy.stats.norm(y, z).logpdf(x)",
        "scipy.stats.t.logpdf(x, z + 1.0, y, z)",
        "scipy.stats.gamma.logpdf(z, z + 1.0)",
        args=(F(4, dtype=F32), F(4, dtype=F32), P(4, dtype=F32)),
    ),
    *c(  # Python floats
        "scipy.stats.norm.logpdf(x, y, z)",
        "scipy.stats.norm.logcdf(x, y, z)",
        "scipy.stats.norm(y, z).pdf(x)",
        "scipy.stats.t.logpdf(x, z + 1.0, y)",
        args=(N(0.3), N(-0.2), N(1.5)),
    ),
    # tails
    *c(
        "scipy.stats.norm.logcdf(x)",
        "scipy.stats.norm.logcdf(x, 1.0, 2.0)",
        "scipy.stats.norm.cdf(x)",
        "scipy.stats.norm.logpdf(x)",
        "scipy.stats.t.logcdf(x, 3.0)",
        "scipy.stats.t.logpdf(x, 3.0)",
        args=(A([-40.0, -12.0, -3.0, 0.0, 3.0, 12.0, 40.0]),),
    ),
    *c(
        "scipy.stats.t.logpdf(x, y)",
        "scipy.stats.t.logcdf(x, 2.5, 0.0, y)",
        args=(F(3), A([1e6, 1e3, 0.2])),
    ),
    # support bounds and outside the support
    *c(
        "scipy.stats.gamma.logpdf(x, 1.0)",
        "scipy.stats.gamma.logpdf(x, 1.0, 0.0, 2.0)",
        "scipy.stats.gamma.pdf(x, 1.0)",
        "scipy.stats.gamma.logpdf(x, 2.0)",
        "scipy.stats.gamma.cdf(x, 2.0)",
        "scipy.stats.gamma.logcdf(x, 2.0)",
        "scipy.stats.beta.logpdf(x, 1.0, 2.0)",
        "scipy.stats.beta.logpdf(x, 1.0, 1.0)",
        "scipy.stats.beta.pdf(x, 2.0, 1.0)",
        "scipy.stats.beta.logcdf(x, 2.0, 2.0)",
        args=(A([-0.5, 0.0, 0.3, 1.0, 1.5]),),
        kink=True,
    ),
    *c(
        "scipy.stats.gamma.logpdf(x, y)",
        "scipy.stats.beta.logpdf(0.4, x, y)",
        args=(P(3), A([1.0, 2.0, 1.0])),
    ),
    *c(  # a parameter out of range: NaN values, no derivative
        "scipy.stats.norm.logpdf(x, 0.0, y)",
        "scipy.stats.gamma.logpdf(x * x, y)",
        args=(F(3), A([-1.0, 0.0, 1.0])),
        kink=True,
    ),
    # the log cdfs in their shape parameters (first order, by quadrature): extremes
    *c(
        "scipy.stats.t.logcdf(x, y)",
        "scipy.stats.t.cdf(x, y)",
        "scipy.stats.t.logcdf(x, y, 0.5, 2.0)",
        args=(A([-30.0, -3.0, 0.0, 2.0, 30.0]), A([0.3, 1.0, 5.0, 50.0, 1e4])),
        second=False,
    ),
    *c(
        "scipy.stats.gamma.logcdf(x, y)",
        "scipy.stats.gamma.cdf(x, y)",
        "scipy.stats.gamma.logcdf(x, y, 0.0, 2.0)",
        args=(A([0.02, 0.5, 3.0, 40.0, 250.0]), A([0.05, 0.5, 2.0, 30.0, 200.0])),
        second=False,
    ),
    *c(
        "scipy.stats.beta.logcdf(x, y, z)",
        "scipy.stats.beta.cdf(x, y, z)",
        args=(
            A([0.01, 0.1, 0.5, 0.9, 0.99]),
            A([0.2, 5.0, 1.0, 0.5, 30.0]),
            A([3.0, 0.3, 1.0, 40.0, 0.7]),
        ),
        second=False,
    ),
    # poisson: integer and float counts, broadcasting, loc, frozen
    *c(
        "scipy.stats.poisson.logpmf(np.array([0, 1, 5]), x)",
        "scipy.stats.poisson.logpmf(np.array([[0], [3]]), x)",
        "scipy.stats.poisson.pmf(np.array([0, 1, 5]), x)",
        "scipy.stats.poisson.logcdf(np.array([0, 1, 5]), x)",
        "scipy.stats.poisson.logcdf(np.array([0.5, 1.7, 5.2]), x)",
        "scipy.stats.poisson.cdf(np.array([-1, 1, 5]), x)",
        "scipy.stats.poisson.logpmf(np.array([1, 2, 5]), x, 1)",
        "scipy.stats.poisson.logcdf(np.array([1, 2, 5]), x, 1)",
        "scipy.stats.poisson(x).logpmf(2)",
        "scipy.stats.poisson(x).pmf(np.array([0, 1, 5]))",
        "scipy.stats.poisson(x).cdf(3)",
        "scipy.stats.poisson(x).logcdf(np.array([0, 1, 5]))",
        "scipy.stats.poisson(x, 1).logpmf(np.array([1, 2, 5]))",
        "scipy.stats.poisson(mu=2.0).logpmf(np.array([0, 1, 5])) * x",
        args=(P(3),),
    ),
    *c(
        "scipy.stats.poisson.logpmf(np.array([0, 1, 5]), x)",
        "scipy.stats.poisson.logcdf(np.array([0, 1, 5]), x)",
        args=(P(3, dtype=F32),),
    ),
    *c(  # at mu == 0, the end of the rate's range (differences straddle it: read only)
        "scipy.stats.poisson.logpmf(np.array([0, 0, 1]), x)",
        "scipy.stats.poisson.pmf(np.array([0, 1, 2]), x)",
        "scipy.stats.poisson.logcdf(np.array([0, 1, 2]), x)",
        "scipy.stats.poisson(x, 1).pmf(np.array([1, 2, 3]))",
        args=(A([0.0, 0.0, 0.0]),),
        kink=True,
    ),
    *c(  # counts outside the support (a value of -inf or 0): derivatives 0
        "scipy.stats.poisson.logpmf(2.5, x)",
        "scipy.stats.poisson.logpmf(np.array([0, 1, 5]), x, 1)",
        "scipy.stats.poisson.pmf(np.array([-1, 1, 5]), x)",
        "scipy.stats.poisson.logcdf(np.array([-1, 1, 5]), x)",
        args=(P(3),),
        kink=True,
    ),
    # frozen distributions: frozen once, used twice; their methods through a name
    *c(
        "scipy.stats.norm(y, z).logpdf(x) + scipy.stats.norm(y, z).cdf(x)",
        "(lambda d: d.logpdf(x) + d.logcdf(x))(scipy.stats.norm(y, z))",
        "(lambda d: d.pdf(x) * d.cdf(x))(scipy.stats.t(z + 2.0, y, z))",
        "(lambda d: d.logpdf(np.abs(x) + 0.1))(scipy.stats.gamma(z + 1.0, 0.0, z))",
        "(lambda d: d.logpdf(scipy.special.expit(x)))(scipy.stats.beta(z, z + 1.0))",
        args=(F(4), F(4), P(4)),
    ),
    # methods with no rule: a located refusal
    *c(
        "scipy.stats.norm.sf(x)",
        "scipy.stats.norm.logsf(x)",
        "scipy.stats.norm.ppf(scipy.special.expit(x))",
        "scipy.stats.norm(0.0, 1.0).sf(x)",
        "scipy.stats.norm.entropy(1.0, x * x + 1.0)",
        "scipy.stats.expon.logpdf(x * x)",
        "scipy.stats.t.logcdf(x, x * x + 1.0)",
        args=(F(3),),
    ),
    # multivariate normal
    *c(
        "scipy.stats.multivariate_normal.logpdf(x, y, z)",
        "scipy.stats.multivariate_normal(y, z).logpdf(x)",
        "scipy.stats.multivariate_normal.logpdf(x, y, z, True)",
        "scipy.stats.multivariate_normal.logpdf(x, y)",
        "scipy.stats.multivariate_normal.logpdf(x, y, 2.0)",
        "scipy.stats.multivariate_normal.logpdf(x, y, np.array([1.0, 2.0, 3.0]))",
        "scipy.stats.multivariate_normal.logpdf(x, mean=np.zeros(3), cov=np.eye(3))",
        "scipy.stats.multivariate_normal.pdf(x, y, z)",
        "scipy.stats.multivariate_normal(y, z).pdf(x)",
        "scipy.stats.multivariate_normal.logpdf(x, y, z[0, 0])",
        "scipy.stats.multivariate_normal.logpdf(x, y, np.diag(z))",
        "scipy.stats.multivariate_normal.logpdf(x, None, z)",
        "scipy.stats.multivariate_normal(y, np.diag(z)).logpdf(x)",
        "scipy.stats.multivariate_normal(y, z[0, 0]).logpdf(x)",
        "scipy.stats.multivariate_normal.logpdf(x, y, (z + z.T) / 2)",
        "scipy.stats.multivariate_normal.logpdf(x, y, np.tril(z))",
        "scipy.stats.multivariate_normal.logpdf(x, y, np.triu(z))",
        args=(F(3), F(3), SPD(3)),
    ),
    *c(
        "scipy.stats.multivariate_normal.logpdf(x, y, z)",
        "scipy.stats.multivariate_normal(y, z).logpdf(x)",
        args=(F(5, 3), F(3), SPD(3)),
    ),
    *c(
        "scipy.stats.multivariate_normal.logpdf(x, y, z)",
        args=(F(5, 1), F(1), SPD(1)),
    ),
    *c(  # a number or no mean and a number or no covariance: SciPy's dimension is 1, and a
        # vector `x` is that many points (one per element)
        "scipy.stats.multivariate_normal.logpdf(x)",
        "scipy.stats.multivariate_normal.logpdf(x, None, 1.7)",
        "scipy.stats.multivariate_normal.logpdf(x, None, y[0] * y[0] + 0.5)",
        "scipy.stats.multivariate_normal.logpdf(x, y[1], 1.7)",
        "scipy.stats.multivariate_normal.logpdf(x, y[1], y[0] * y[0] + 0.5)",
        "scipy.stats.multivariate_normal.logpdf(x, y[1:2], y[0:1] * y[0:1] + 0.5)",
        "scipy.stats.multivariate_normal.logpdf(x, None, y[0:1] * y[0:1] + 0.5)",
        "scipy.stats.multivariate_normal.logpdf(x[0], y[1], 1.7)",
        "scipy.stats.multivariate_normal(y[1], y[0] * y[0] + 0.5).logpdf(x)",
        "scipy.stats.multivariate_normal(None, 1.7).logpdf(x)",
        "scipy.stats.multivariate_normal().logpdf(x)",
        "scipy.stats.multivariate_normal.logpdf(x, None, np.eye(3) * y[0] ** 2)",
        args=(F(3), F(3)),
    ),
    *c(
        "scipy.stats.multivariate_normal.logpdf(x, y, z)",
        args=(F(3, dtype=F32), F(3, dtype=F32), lambda rng: SPD(3)(rng).astype(F32)),
    ),
]

LINALG: list[Case] = [
    *c(
        "scipy.linalg.expm(x)",
        "scipy.linalg.expm(x * 0.0)",
        "scipy.linalg.expm(x - x.T)",
        args=(F(3, 3),),
    ),
    *c("scipy.linalg.expm(x)", args=(F(2, 3, 3),)),
    *c("scipy.linalg.expm(x)", args=(F(1, 1),)),
    *c("scipy.linalg.expm(x)", args=(F(3, 3, dtype=F32),), second=False),
    *c(
        "scipy.linalg.solve_triangular(x, y)",
        "scipy.linalg.solve_triangular(x, y, lower=True)",
        "scipy.linalg.solve_triangular(x, y, 1, True)",
        "scipy.linalg.solve_triangular(x, y, trans='C')",
        "scipy.linalg.solve_triangular(x, y, trans=2, lower=True)",
        "scipy.linalg.solve_triangular(x, y, unit_diagonal=True, lower=True)",
        "scipy.linalg.solve_triangular(x, y, check_finite=False)",
        "scipy.linalg.solve_triangular(x, y, overwrite_b=True)",
        "scipy.linalg.solve_triangular(x, y[:, 0])",
        "scipy.linalg.solve_triangular(np.triu(x), y)",
        "scipy.linalg.solve_triangular(a=x, b=y)",
        args=(SPD(3), F(3, 2)),
    ),
    *c(
        "scipy.linalg.solve_triangular(x, y)",
        "scipy.linalg.solve_triangular(x, y, lower=True)",
        args=(lambda rng: SPD(3)(rng).astype(F32), F(3, dtype=F32)),
        second=False,
    ),
    *c(
        "scipy.linalg.solve_triangular(x, y)",
        args=(SPD(3), F(3, dtype=F32)),
    ),
    *c(
        "scipy.linalg.cho_solve(scipy.linalg.cho_factor(x), y)",
        "scipy.linalg.cho_solve(scipy.linalg.cho_factor(x, True), y)",
        "scipy.linalg.cho_solve(scipy.linalg.cho_factor(x, lower=False), y[:, 0])",
        "scipy.linalg.cho_solve(scipy.linalg.cho_factor(x), y, check_finite=False)",
        "scipy.linalg.cho_solve((scipy.linalg.cho_factor(x)[0], False), y)",
        "np.triu(scipy.linalg.cho_factor(x)[0])",
        "np.tril(scipy.linalg.cho_factor(x, lower=True)[0])",
        "scipy.linalg.cho_factor(x)[0]",
        "scipy.linalg.cho_factor(x, lower=True)[0]",
        args=(SPD(3), F(3, 2)),
    ),
    *c(
        "scipy.linalg.cho_solve(scipy.linalg.cho_factor(x), y)",
        args=(lambda rng: SPD(3)(rng).astype(F32), F(3, dtype=F32)),
        second=False,
    ),
    # calls with no rule: a located refusal
    *c(
        "scipy.linalg.inv(x)",
        "scipy.linalg.solve(x, x[0])",
        "scipy.linalg.det(x)",
        "scipy.linalg.cholesky(x)",
        "scipy.linalg.logm(x)",
        "scipy.linalg.sqrtm(x)",
        "scipy.linalg.lu_factor(x)[0]",
        "scipy.linalg.eigh(x)[0]",
        args=(SPD(3),),
    ),
]

INTEGRATE: list[Case] = [
    *c(
        "scipy.integrate.odeint(lambda u, t: -x * u, y, np.linspace(0.0, 1.0, 3),"
        " rtol=1e-11, atol=1e-12)",
        "scipy.integrate.odeint(lambda u, t, k: -k * u * u, y, [0.0, 0.5], args=(x,),"
        " rtol=1e-11, atol=1e-12)",
        "scipy.integrate.solve_ivp(lambda t, u: -x * u, (0.0, 1.0), y, rtol=1e-11,"
        " atol=1e-12).y[:, -1]",
        "scipy.integrate.solve_ivp(lambda t, u: -x * np.sin(u), [0.0, 1.0], y,"
        " t_eval=[0.5, 1.0], rtol=1e-11, atol=1e-12).y",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * u, (0.0, 1.0), y, args=(x,),"
        " method='DOP853', rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * np.sin(u), [0.0, 1.0], y,"
        " t_eval=[0.5, 1.0], args=(x,), rtol=1e-11, atol=1e-12).y",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * u, (0.0, 1.0), y, method='Radau',"
        " args=(x,), rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * u, (0.0, 1.0), y, method='LSODA',"
        " args=(x,), rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * u * t, (0.0, x[0]), y, args=(x,),"
        " rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * u, (0.0, 1.0), y, args=(x,),"
        " dense_output=True, rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.solve_ivp(lambda t, u, k: [-k[0] * u[1], k[1] * u[0]], (0.0, 1.0), y,"
        " args=(x,), rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.odeint(lambda t, u, k: -k * u, y, [0.0, 1.0], args=(x,), tfirst=True,"
        " rtol=1e-11, atol=1e-12)",
        "scipy.integrate.odeint(lambda u, t, k: -k * u, y, np.array([0.0, 0.3, 1.0]),"
        " (x,), rtol=1e-11, atol=1e-12)[1:]",
        args=(P(2), P(2)),
        second=False,
    ),
    *c(  # backward in time, t_eval holding the start, a start time not 0, float32 states
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * u, (1.0, 0.0), y, args=(x,),"
        " rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * u * t, (0.5, 1.5), y, args=(x,),"
        " t_eval=[0.5, 1.0, 1.5], rtol=1e-11, atol=1e-12).y",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k[:, np.newaxis] * u, (0.0, 1.0), y,"
        " args=(x,), vectorized=True, rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.solve_ivp(lambda t, u, k: -(k * u.T).T, (0.0, 1.0), y, args=(x,),"
        " vectorized=True, method='Radau', rtol=1e-11, atol=1e-12).y[:, -1]",
        "scipy.integrate.odeint(lambda u, t, k: -k * u * t, y, [0.5, 0.8, 1.5], args=(x,),"
        " rtol=1e-11, atol=1e-12)",
        "scipy.integrate.solve_ivp(lambda t, u, k: -k * u, (0.0, 1.0), y, args=(x,),"
        " rtol=1e-11, atol=1e-12).t",
        args=(P(2), P(2)),
        second=False,
    ),
    *c(
        "scipy.integrate.quad(lambda t: x[0] * t, 0.0, 1.0)[0]",
        "scipy.integrate.trapezoid(x * x)",
        "scipy.integrate.simpson(x * x)",
        "scipy.integrate.cumulative_trapezoid(x * x)",
        args=(P(5),),
    ),
]

SCIPY: list[Case] = [*SPECIAL, *STATS, *LINALG, *INTEGRATE]

"""Second derivatives through every SciPy function srcad has a forward rule for: a walk
over the registry's SciPy rules, each reached by a user's scalar function here. Its Hessian
either matches central differences of `srcad.grad`, or is refused with a message that
names the user's code and none of srcad's own functions (`frule_...`, `..._rrule`, its
files). Skipped where SciPy is not installed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

special = pytest.importorskip("scipy.special")
linalg = pytest.importorskip("scipy.linalg")
integrate = pytest.importorskip("scipy.integrate")
stats = pytest.importorskip("scipy.stats")

import srcad  # noqa: E402
import srcad.rules  # noqa: E402
from srcad.registry import REGISTRY, Origin  # noqa: E402
from tests.conftest import difference  # noqa: E402

X = np.array([0.3, 0.7, 0.45])
SQUARE = np.array([0.2, -0.1, 0.3, 0.05, 0.4, -0.2, 0.1, 0.15, -0.3])
A = np.array([[-0.5, 0.2], [0.1, -0.3]])
TIMES = np.array([0.0, 0.5, 1.0])


def elementwise(x: Any) -> Any:
    total = np.sum(special.expit(x) * special.logit(x) + special.gammaln(x + 1.0))
    total = total + np.sum(special.digamma(x + 1.0) * special.erf(x) + special.erfc(x) ** 2)
    total = total + np.sum(special.ndtr(x) * special.log_ndtr(x) + special.polygamma(1, x + 1.0))
    return total + np.sum(special.xlogy(x, x + 1.0) + special.xlog1py(x, x))


def reductions(x: Any) -> Any:
    total = special.logsumexp(x * x) + np.sum(special.softmax(x) ** 2)
    return total + np.sum(special.log_softmax(x) * x)


def signed_logsumexp(x: Any) -> Any:
    value, sign = special.logsumexp(x, 0, x - 0.2, return_sign=True)
    return np.sum(value * sign)


def triangular(x: Any) -> Any:
    lower = np.tril(np.reshape(x, (3, 3))) + 3.0 * np.eye(3)
    return np.sum(linalg.solve_triangular(lower, np.ones(3), lower=True) ** 2)


def cholesky(x: Any) -> Any:
    m = np.reshape(x, (3, 3))
    spd = m @ m.T + 2.0 * np.eye(3)
    factor = linalg.cho_factor(spd, lower=True)
    return np.sum(linalg.cho_solve(factor, np.ones(3)) ** 2)


def numpy_routines(x: Any) -> Any:
    """`scipy.linalg`'s routines that NumPy computes too (`rules/scipy_linalg_numpy.py`)."""
    m = np.reshape(x, (3, 3)) + 3.0 * np.eye(3)
    spd = m @ m.T
    values, vectors = linalg.eigh(spd)
    u, s, vh = linalg.svd(m)
    total = np.sum(linalg.inv(m) ** 2) + linalg.det(m) + np.sum(linalg.solve(m, x[:3]) ** 2)
    total = total + np.sum(linalg.cholesky(spd) ** 2) + np.sum(values * vectors[0] ** 2)
    total = total + np.sum(linalg.eigvalsh(spd) ** 2) + np.sum(u[0] * s) + np.sum(vh[1] ** 3)
    return total + np.sum(linalg.svdvals(m)) + np.sum(linalg.pinv(m)) + linalg.norm(m)


def exponential(x: Any) -> Any:
    return np.sum(linalg.expm(np.reshape(x, (2, 2))) ** 2)


def linear(y: Any, t: float, a: Any) -> Any:
    return a @ y


def with_odeint(y0: Any) -> Any:
    ys = integrate.odeint(linear, y0, TIMES, args=(A,), rtol=1e-10, atol=1e-10)
    return np.sum(ys[-1] ** 2)


def with_solve_ivp(y0: Any) -> Any:
    found = integrate.solve_ivp(lambda t, y: A @ y, (0.0, 1.0), y0, t_eval=TIMES, rtol=1e-10,
                                atol=1e-10)  # fmt: skip
    return np.sum(found.y**2)


def densities(x: Any) -> Any:
    total = np.sum(stats.norm.logpdf(x, 0.2, x[0] ** 2 + 1.0) + stats.t.logcdf(x, 3.0, x[1]))
    total = total + np.sum(stats.gamma.pdf(x + 0.5, x[2] + 2.0) + stats.beta.cdf(x, 2.0, 3.0))
    counts = np.array([1, 0, 3])
    total = total + np.sum(stats.poisson.logpmf(counts, x + 1.0) + stats.poisson.pmf(counts, x[0]))
    total = total + np.sum(stats.poisson.logcdf(counts, x + 1.0) + stats.poisson.cdf(counts, x[1]))
    return total + np.sum(stats.norm.pdf(x) + stats.norm.cdf(x, x[2]))


def shaped(x: Any) -> Any:
    """Log cdfs and cdfs in their shape parameters (`logcdf_shape_partial`)."""
    total = np.sum(stats.t.logcdf(x, x[0] ** 2 + 2.0) + stats.gamma.cdf(x + 0.2, x[2] + 0.5))
    return total + np.sum(stats.beta.logcdf(x / 2.0 + 0.2, x[1] + 2.0, x[2] + 3.0))


def frozen(x: Any) -> Any:
    normal = stats.norm(x[0], x[1] ** 2 + 0.5)
    total = np.sum(normal.logpdf(x) + normal.pdf(x) + normal.logcdf(x) + normal.cdf(x))
    rate = stats.poisson.freeze(x[2] + 1.0)
    counts = np.array([1, 0, 3])
    return total + np.sum(rate.logpmf(counts) + rate.pmf(counts))


def multivariate(x: Any) -> Any:
    cov = np.eye(3) * (x[0] ** 2 + 1.0)
    total = stats.multivariate_normal.logpdf(x, x * 0.5, cov)
    return total + stats.multivariate_normal(x * 0.3, cov + 0.5).logpdf(x)


def special_functions(x: Any) -> Any:
    """`rules/scipy_special_functions.py`'s, each argument it differentiates moving."""
    q = 0.5 + 0.4 * np.tanh(x)
    total = special.ndtri(q) + special.erfinv(q - 0.5) + special.erfcinv(q) + special.erfcx(x)
    total = total + special.log1p(x) + special.expm1(x) + special.cosm1(x) + special.exp2(x)
    total = total + special.exp10(x) + special.log_expit(x) + special.gamma(x + 0.5)
    total = total + special.beta(x + 1.0, 2.0 - x) + special.betaln(x + 1.0, x + 0.5)
    total = total + special.gammainc(2.0, x) + special.gammaincc(1.5, x) + special.betainc(2, 3, q)
    total = total + special.iv(1.5, x) + special.ive(1, x) + special.kv(0.5, x) + special.kve(2, x)
    total = total + special.jv(2.5, x) + special.yv(1, x) + special.i0(x) + special.i1(x)
    total = total + special.yn(2, x) + special.rgamma(x)
    total = total + special.i0e(x) + special.i1e(x) + special.j0(x) + special.j1(x) + special.y0(x)
    total = total + special.y1(x) + special.entr(x) + special.rel_entr(x, q) + special.kl_div(q, x)
    total = total + special.huber(0.5, x - 0.4) + special.pseudo_huber(x + 0.5, x - 0.4)
    return np.sum(total + special.boxcox(x + 0.5, x - 0.2) + special.boxcox1p(x, 0.5 - x))


def tails(x: Any) -> Any:
    """`rules/scipy_stats_tails.py`'s: tails and quantiles, frozen too, and the
    multivariate normal's density."""
    q = 0.5 + 0.4 * np.tanh(x)
    total = stats.norm.sf(x, x[0], 1.0 + x[1] ** 2) + stats.t.logsf(x, 3.0 + x[2])
    total = total + stats.gamma.ppf(q, 2.0 + x[0] ** 2) + stats.beta.isf(q, 2.0, 3.0)
    total = total + stats.poisson.sf(np.array([1, 0, 3]), x + 1.0)
    total = total + stats.poisson.logsf(np.array([1, 0, 3]), x + 1.0)
    normal = stats.norm(x[0], x[1] ** 2 + 0.5)
    total = total + normal.sf(x) + normal.logsf(x) + normal.ppf(q) + normal.isf(q)
    return np.sum(total) + stats.multivariate_normal.pdf(x, x * 0.5, np.eye(3) * (x[0] ** 2 + 1))


def each(names: str, case: tuple[Any, np.ndarray]) -> dict[str, tuple[Any, np.ndarray]]:
    return dict.fromkeys(names.split(), case)


# The user's function that reaches each SciPy function, by the function's name.
OBJECTIVES: dict[str, tuple[Any, np.ndarray]] = {
    **each(
        "expit logit gammaln psi erf erfc ndtr log_ndtr xlogy xlog1py polygamma", (elementwise, X)
    ),
    **each("logsumexp softmax log_softmax", (reductions, X)),
    "solve_triangular": (triangular, SQUARE),
    **each("cho_factor cho_solve", (cholesky, SQUARE)),
    "expm": (exponential, SQUARE[:4]),
    **each("inv det solve cholesky eigh eigvalsh svd svdvals pinv norm", (numpy_routines, SQUARE)),
    "odeint": (with_odeint, np.array([1.0, 0.5])),
    **each("solve_ivp _RichResult.__getattr__", (with_solve_ivp, np.array([1.0, 0.5]))),
    **each(
        "rv_continuous.logpdf rv_continuous.logcdf rv_continuous.pdf rv_continuous.cdf "
        "rv_discrete.logpmf rv_discrete.logcdf rv_discrete.pmf rv_discrete.cdf",
        (densities, X),
    ),
    "logcdf_shape_partial": (shaped, X),
    **each(
        "rv_generic.__call__ rv_generic.freeze rv_continuous_frozen.logpdf "
        "rv_continuous_frozen.pdf rv_discrete_frozen.logpmf rv_discrete_frozen.pmf "
        "rv_frozen.logcdf rv_frozen.cdf",
        (frozen, X),
    ),
    **each(
        "ndtri erfinv erfcinv erfcx log1p expm1 cosm1 exp2 exp10 log_expit gamma beta betaln "
        "rgamma yn gammainc gammaincc betainc iv ive kv kve jv yv i0 i1 i0e i1e j0 j1 y0 y1 entr "
        "rel_entr kl_div huber pseudo_huber boxcox boxcox1p",
        (special_functions, X),
    ),
    **each(
        "rv_continuous.sf rv_continuous.logsf rv_continuous.ppf rv_continuous.isf "
        "rv_discrete.sf rv_discrete.logsf rv_frozen.sf rv_frozen.logsf rv_frozen.ppf "
        "rv_frozen.isf standard_quantile multivariate_normal_gen.pdf",
        (tails, X),
    ),
    **each(
        "multivariate_normal_gen.logpdf multivariate_normal_gen.__call__ "
        "multivariate_normal_frozen.logpdf",
        (multivariate, X),
    ),
}

# Second derivatives srcad refuses, with the reason (docs/higher_order.md): none now.
REFUSED: dict[Any, str] = {}

# What a message must not name: srcad's generated rules and its own files.
INTERNAL = re.compile(
    r"\w(_frule|_rrule|_pullback)\b|\b(frule|rrule)_\w|<srcad|"
    + "|".join(re.escape(str(Path(p))) for p in (*srcad.__path__, *srcad.rules.__path__))
)


def primal_name(primal: Any) -> str:
    return getattr(primal, "__qualname__", None) or primal.__name__


def scipy_primals() -> list[Any]:
    """The primals of the SciPy rule sets' forward rules (not those keyed on a forward rule
    of their own module: the rules of the forward rules)."""
    found = []
    for rule in REGISTRY.forward_rules():
        library = rule.rule_set.startswith("scipy_") and rule.origin is not Origin.USER
        if library and not primal_name(rule.primal).endswith("_frule"):
            found.append(rule.primal)
    return found


def test_every_scipy_forward_rule_is_walked() -> None:
    missing = [primal_name(p) for p in scipy_primals() if primal_name(p) not in OBJECTIVES]
    assert not missing, missing


@pytest.mark.parametrize(
    ("objective", "x"),
    list({objective: (objective, x) for objective, x in OBJECTIVES.values()}.values()),
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_second_derivatives_match_or_are_refused_naming_the_users_code(objective: Any,
                                                                       x: Any) -> None:  # fmt: skip
    if objective in REFUSED:
        with pytest.raises(srcad.SrcadError) as caught:
            srcad.hessian(objective)(x)
        message = str(caught.value)
        assert REFUSED[objective] in message
        assert f"{__file__}:" in message, message
        assert not INTERNAL.search(message), message
        return
    expected = difference(srcad.grad(objective), (x,))
    np.testing.assert_allclose(srcad.hessian(objective)(x), expected, rtol=1e-5, atol=1e-6)


def test_a_refusal_at_second_order_names_no_internal_function() -> None:
    """`logsumexp` with `return_sign=True` unpacked (`value, sign = ...`)."""
    try:
        hessian = srcad.hessian(signed_logsumexp)(X)
    except srcad.SrcadError as error:
        assert not INTERNAL.search(str(error)), str(error)
    else:
        np.testing.assert_allclose(
            hessian, difference(srcad.grad(signed_logsumexp), (X,)), rtol=1e-5, atol=1e-6
        )

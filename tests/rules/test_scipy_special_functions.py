"""More `scipy.special` rules (rules/scipy_special_functions.py), checked against central
differences: each rule alone in both modes, then through the public API to second order
(third for a few); edges of their domains; the parameters whose partials are not written,
refused. Skipped where SciPy is not installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

special = pytest.importorskip("scipy.special")

import srcad  # noqa: E402
from srcad.testing import check_frule, check_rrule, finite_difference_jvp  # noqa: E402
from tests.rules.through_the_api import check_through_api  # noqa: E402

RNG = np.random.default_rng(37)
X = RNG.standard_normal((2, 3))
P = RNG.uniform(0.1, 0.9, (2, 3))
POSITIVE = RNG.uniform(0.3, 3.0, (2, 3))

BOTH_RULES = pytest.mark.parametrize(
    "check", [pytest.param(check_rrule, id="rrule"), pytest.param(check_frule, id="frule")]
)

UNARY = [
    (special.ndtri, P),
    (special.erfinv, 2.0 * P - 1.0),
    (special.erfcinv, 2.0 * P),
    (special.erfcx, X),
    (special.log1p, POSITIVE - 0.2),
    (special.expm1, X),
    (special.cosm1, X),
    (special.exp2, X),
    (special.exp10, X),
    (special.log_expit, 3.0 * X),
    (special.gamma, POSITIVE),
    (special.gamma, -POSITIVE - 0.5),
    (special.rgamma, POSITIVE),
    (special.rgamma, -POSITIVE - 0.5),
    (special.i0, X),
    (special.i1, X),
    (special.i0e, 3.0 * X),
    (special.i1e, 3.0 * X),
    (special.j0, 3.0 * X),
    (special.j1, 3.0 * X),
    (special.y0, POSITIVE),
    (special.y1, POSITIVE),
    (special.entr, POSITIVE),
]


@pytest.mark.parametrize(
    ("f", "x"), [pytest.param(f, x, id=f"{f.__name__}-{k}") for k, (f, x) in enumerate(UNARY)]
)
@BOTH_RULES
def test_unary_rules_match_finite_differences(f: Any, x: Any, check: Any) -> None:
    check(f, x)


BINARY = [
    (special.betaln, POSITIVE, POSITIVE[::-1]),
    (special.beta, POSITIVE, 2.0),
    (special.rel_entr, POSITIVE, POSITIVE[0]),
    (special.kl_div, POSITIVE, POSITIVE[::-1]),
    (special.huber, 0.8, 2.0 * X),
    (special.pseudo_huber, POSITIVE, X),
    (special.boxcox, POSITIVE, X),
    (special.boxcox1p, POSITIVE, X),
]


@pytest.mark.parametrize(
    ("f", "a", "b"),
    [pytest.param(f, a, b, id=f"{f.__name__}-{k}") for k, (f, a, b) in enumerate(BINARY)],
)
@BOTH_RULES
def test_binary_rules_match_finite_differences(f: Any, a: Any, b: Any, check: Any) -> None:
    check(f, a, b)


def _with_constant_parameters(f: Any, *parameters: Any) -> Any:
    """`f(*parameters, x)` with the parameters' tangents zero (not written: refused)."""

    def in_point(x: Any) -> Any:
        return f(*parameters, x)

    return in_point


IN_THE_POINT = [
    (special.gammainc, (2.5,), POSITIVE),
    (special.gammaincc, (POSITIVE[0],), POSITIVE),
    (special.betainc, (2.0, 3.0), P),
    (special.iv, (1.5,), POSITIVE),
    (special.iv, (2,), X),
    (special.ive, (2,), X),
    (special.kv, (0.5,), POSITIVE),
    (special.kve, (np.array([1.0, 2.0, 2.5]),), POSITIVE),
    (special.jv, (2.5,), 3.0 * POSITIVE),
    (special.yv, (1,), POSITIVE),
    (special.yn, (2,), POSITIVE),
]


def in_the_point_model(v: np.ndarray) -> Any:
    """Each function of the table above, through the API (to second order)."""
    total = 0.0
    for f, parameters, _ in IN_THE_POINT:
        point = 0.2 + v * v if f in (special.kv, special.kve, special.yv) else v
        if f is special.betainc:
            point = 0.5 + 0.4 * np.tanh(v)
        total = total + np.sum(f(*parameters, point))
    return total


@pytest.mark.parametrize(
    ("f", "parameters", "x"),
    [pytest.param(f, p, x, id=f.__name__) for f, p, x in IN_THE_POINT],
)
def test_rules_in_the_point(f: Any, parameters: tuple[Any, ...], x: Any) -> None:
    y, pullback = srcad.rrule(f, *parameters, x)
    y_bar = RNG.standard_normal(np.shape(y))
    x_bar = pullback(y_bar)[-1]
    expected = np.sum(
        y_bar * finite_difference_jvp(lambda x: f(*parameters, x), (x,), (np.ones_like(x),))
    )
    x_dot = RNG.standard_normal(np.shape(x))
    assert np.sum(x_bar * np.ones_like(x)) == pytest.approx(float(expected), rel=1e-6)
    dargs = (srcad.NoTangent(), *(srcad.ZeroTangent() for _ in parameters), x_dot)
    _, y_dot = srcad.frule(dargs, f, *parameters, x)
    np.testing.assert_allclose(
        y_dot, finite_difference_jvp(lambda x: f(*parameters, x), (x,), (x_dot,)), rtol=1e-6
    )


@pytest.mark.parametrize(
    ("f", "position"),
    [(special.gammainc, 0), (special.betainc, 1), (special.iv, 0), (special.kv, 0)],
    ids=["gammainc-a", "betainc-b", "iv-order", "kv-order"],
)
def test_a_parameter_without_a_written_partial_is_refused(f: Any, position: int) -> None:
    """Its derivative in an incomplete function's parameter or a Bessel function's order
    has no closed form: an error naming it, in both modes, never a number."""
    count = 3 if f is special.betainc else 2
    base = [2.0, 3.0, 0.4][:count] if f is special.betainc else [1.5, 0.8]

    def f_of(p: Any) -> Any:
        args = list(base)
        args[position] = p
        return f(*args)

    with pytest.raises(srcad.SrcadError, match=rf"{f.__name__} in its parameter"):
        srcad.grad(f_of)(base[position])
    with pytest.raises(srcad.SrcadError, match=rf"{f.__name__} in its parameter"):
        srcad.jvp(f_of, (base[position],), (1.0,))


def elementary_model(v):
    inverses = special.ndtri(0.5 + 0.4 * np.tanh(v)) + special.erfinv(0.8 * np.tanh(v))
    inverses = inverses + special.erfcinv(1.0 + 0.8 * np.tanh(v)) + special.erfcx(v - 1.0)
    accurate = special.log1p(v * v) + special.expm1(v) + special.cosm1(v) + special.exp2(v)
    return np.sum(inverses + accurate + special.exp10(0.3 * v) + special.log_expit(2.0 * v))


def gamma_beta_model(v):
    total = special.gamma(v + 0.5) + special.betaln(v + 1.0, v * v + 0.5)
    total = total + special.rgamma(v + 0.2) * special.gammasgn(v - 1.0)
    return np.sum(total + special.beta(v + 0.2, 2.0 - v))


def bessel_model(v):
    first = special.i0(v) + special.i1(v - 1.0) + special.i0e(v - 0.5) + special.i1e(v - 1.0)
    return np.sum(first + special.j0(v) + special.j1(v) + special.y0(v) + special.y1(v))


def entropy_model(v):
    """The entropies and losses, every argument moving."""
    entropies = special.entr(v) + special.rel_entr(v, v * v + 0.5) + special.kl_div(v, 2.0 - v)
    losses = special.huber(0.5 + 0.1 * v, v - 0.9) + special.pseudo_huber(0.5 + v, v - 0.9)
    return np.sum(entropies + losses)


def boxcox_model(v):
    return np.sum(special.boxcox(v, v - 0.7) + special.boxcox1p(v, 0.5 - v))


MODELS = [
    pytest.param(elementary_model, id="inverses-log1p"),
    pytest.param(gamma_beta_model, id="gamma-beta"),
    pytest.param(in_the_point_model, id="incomplete-bessel-in-the-point"),
    pytest.param(bessel_model, id="bessel"),
    pytest.param(entropy_model, id="entropies-losses"),
    pytest.param(boxcox_model, id="boxcox"),
]


@pytest.mark.parametrize("f", MODELS)
def test_through_the_api_to_second_order(f: Any) -> None:
    check_through_api(f, np.array([0.3, 0.7, 1.6]))


@pytest.mark.parametrize(
    "f",
    [
        lambda s: special.ndtri(0.3 + 0.2 * s) * special.gamma(1.0 + s),
        lambda s: special.gammainc(2.0, 1.0 + s * s) + special.kv(1.5, 1.0 + s),
        lambda s: special.boxcox(1.0 + s, 0.5 * s) + special.pseudo_huber(1.0 + s, s),
    ],
    ids=["ndtri-gamma", "gammainc-kv", "boxcox-pseudo-huber"],
)
def test_third_derivatives_match_differences_of_the_second(f: Any) -> None:
    second = srcad.grad(srcad.grad(f))
    expected = float(finite_difference_jvp(second, (0.4,), (1.0,)))
    assert float(srcad.grad(second)(0.4)) == pytest.approx(expected, rel=2e-5, abs=1e-6)


def test_edges() -> None:
    """`ndtri` at 0 and 1 (infinite quantiles) has infinite partials, NaN outside [0, 1];
    `boxcox` at `lmbda == 0` (`log x`) has the limit `(log x)^2 / 2` in `lmbda`;
    `rel_entr` and `kl_div` at `x == 0` have 0 in `y`; `gammainc` at `x == 0` the
    density there (1 for `a == 1`)."""
    with np.errstate(invalid="ignore"):
        _, pullback = srcad.rrule(special.ndtri, np.array([0.0, 1.0, 1.5]))
        found = pullback(np.ones(3))[1]
    assert found[0] == np.inf and found[1] == np.inf and np.isnan(found[2])

    def boxcox_at_zero(lmbda):
        return special.boxcox(2.0, lmbda)

    assert srcad.grad(boxcox_at_zero)(0.0) == pytest.approx(0.5 * np.log(2.0) ** 2)
    check_through_api(lambda lmbda: special.boxcox(2.0, lmbda * lmbda), np.float64(0.3))
    with np.errstate(divide="ignore", invalid="ignore"):  # the partial in x: log(0 / y)
        _, pullback = srcad.rrule(special.rel_entr, np.array([0.0, 0.0]), np.array([0.0, 2.0]))
        np.testing.assert_array_equal(pullback(np.ones(2))[2], [0.0, 0.0])
    _, pullback = srcad.rrule(special.gammainc, 1.0, np.array([0.0, 1.0]))
    np.testing.assert_allclose(pullback(np.ones(2))[2], [1.0, np.exp(-1.0)])


def test_float32() -> None:
    def f(q):
        return np.sum(special.ndtri(q) + special.gammainc(2.0, q) + special.log1p(q))

    q = np.array([0.2, 0.7], dtype=np.float32)
    found = srcad.grad(f)(q)
    assert found.dtype == np.float32
    q64 = q.astype(float)
    expected = np.sqrt(2 * np.pi) * np.exp(0.5 * special.ndtri(q64) ** 2)
    expected = expected + q64 * np.exp(-q64) + 1.0 / (1.0 + q64)
    np.testing.assert_allclose(found, expected, rtol=1e-5)

"""Rules for `scipy.special` (rules/scipy_special.py), checked against finite differences:
each rule alone, in both modes, then through the public API to second order. Skipped
where SciPy is not installed (an optional dependency)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

special = pytest.importorskip("scipy.special")

import srcad  # noqa: E402
from srcad.registry import REGISTRY  # noqa: E402
from srcad.testing import check_frule, check_rrule  # noqa: E402
from tests.rules.through_the_api import check_through_api  # noqa: E402

RNG = np.random.default_rng(20)
X = RNG.standard_normal((3, 4))
P = RNG.uniform(0.1, 0.9, (3, 4))
POSITIVE = RNG.uniform(0.3, 3.0, (3, 4))

BOTH_RULES = pytest.mark.parametrize(
    "check", [pytest.param(check_rrule, id="rrule"), pytest.param(check_frule, id="frule")]
)

UNARY = [
    pytest.param(special.expit, X, id="expit"),
    pytest.param(special.expit, 0.3, id="expit-float"),
    pytest.param(special.logit, P, id="logit"),
    pytest.param(special.gammaln, POSITIVE, id="gammaln"),
    pytest.param(special.gammaln, -POSITIVE - 0.5, id="gammaln-negative"),
    pytest.param(special.digamma, POSITIVE, id="digamma"),
    pytest.param(special.digamma, -POSITIVE[0] - 0.5, id="digamma-negative"),
    pytest.param(special.erf, X, id="erf"),
    pytest.param(special.erfc, X, id="erfc"),
    pytest.param(special.erf, X[0] + 0.5j * X[1], id="erf-complex"),
    pytest.param(special.ndtr, 2.0 * X, id="ndtr"),
    pytest.param(special.log_ndtr, 4.0 * X, id="log_ndtr"),
]


@pytest.mark.parametrize(("f", "x"), UNARY)
@BOTH_RULES
def test_unary_rules_match_finite_differences(f: Any, x: Any, check: Any) -> None:
    check(f, x)


BINARY = [
    pytest.param(special.xlogy, X, POSITIVE, id="xlogy"),
    pytest.param(special.xlogy, X, POSITIVE[0], id="xlogy-broadcast"),
    pytest.param(special.xlogy, 0.7, 2.0, id="xlogy-floats"),
    pytest.param(special.xlog1py, X, P, id="xlog1py"),
    pytest.param(special.xlog1py, X[0], -P[0], id="xlog1py-negative"),
    pytest.param(special.polygamma, 2, POSITIVE, id="polygamma"),
    pytest.param(special.polygamma, np.array([0, 1, 3, 2]), POSITIVE, id="polygamma-orders"),
]


@pytest.mark.parametrize(("f", "a", "b"), BINARY)
@BOTH_RULES
def test_binary_rules_match_finite_differences(f: Any, a: Any, b: Any, check: Any) -> None:
    check(f, a, b)


@pytest.mark.parametrize(
    "orders",
    [[0, 1, 3, 2], (2, 0, 1, 1), [[0], [1], [2]], [3]],
    ids=["list", "tuple", "nested", "one"],
)
def test_polygamma_of_a_sequence_of_orders(orders: Any) -> None:
    """`polygamma`'s orders as a Python list or tuple (SciPy broadcasts them as an array):
    the partial's next orders are `np.add(n, 1)`; `n + 1` concatenated a list, or failed
    on a tuple (a crash, before)."""
    x = POSITIVE[0]
    check_rrule(special.polygamma, orders, x)
    check_frule(special.polygamma, orders, x, tangents=(srcad.NoTangent(), RNG.standard_normal(4)))


@pytest.mark.parametrize("f", [special.xlogy, special.xlog1py])
def test_x_log_y_at_x_zero(f: Any) -> None:
    """At `x == 0` the product is 0 for every `y`: its partial in `y` is 0, also where the
    logarithm is infinite; its partial in `x` is the logarithm. Along `x` from 0 the
    partial in `y` grows as `x / y`, which the second derivative sees."""
    edge = 0.0 if f is special.xlogy else -1.0
    x = np.array([0.0, 0.0, 0.0])
    y = np.array([0.5, 2.0, edge])
    with np.errstate(divide="ignore"):  # the logarithm of 0
        _, pullback = srcad.rrule(f, x, y)
        _, x_bar, y_bar = pullback(np.ones(3))
        logarithm = np.log(y) if f is special.xlogy else np.log1p(y)
    np.testing.assert_array_equal(y_bar, 0.0)
    np.testing.assert_array_equal(x_bar[:2], logarithm[:2])
    assert x_bar[2] == -np.inf
    check_rrule(f, x[:2], y[:2])  # away from the logarithm's pole
    check_frule(f, x[:2], y[:2])

    def mixed(x: np.ndarray) -> Any:
        return np.sum(f(x, y[:2] + x))

    check_through_api(mixed, x[:2])


LOGSUMEXP = [
    pytest.param((X,), {}, id="all"),
    pytest.param((X, 1), {}, id="axis-by-position"),
    pytest.param((X,), {"axis": 0}, id="axis"),
    pytest.param((X,), {"axis": (0, 1), "keepdims": True}, id="axes-keepdims"),
    pytest.param((X, 1, POSITIVE), {}, id="b-by-position"),
    pytest.param((X, None, POSITIVE[0]), {}, id="b-broadcast"),
    pytest.param((X[0], None, POSITIVE[0]), {"return_sign": True}, id="return-sign"),
    pytest.param((X, 0, -POSITIVE), {"return_sign": True}, id="negative-sum-sign"),
    pytest.param((X,), {"b": POSITIVE, "axis": -1}, id="b-keyword"),
    pytest.param((X[0] + 1j * X[1],), {}, id="complex"),
]


@pytest.mark.parametrize(("args", "kwargs"), LOGSUMEXP)
@BOTH_RULES
def test_logsumexp_matches_finite_differences(args: Any, kwargs: Any, check: Any) -> None:
    check(special.logsumexp, *args, **kwargs)


def test_logsumexp_refuses_the_sign_of_complex_numbers() -> None:
    with pytest.raises(TypeError, match="return_sign"):
        srcad.rrule(special.logsumexp, X[0] + 1j, return_sign=True)


SOFTMAX = [
    pytest.param((X,), {}, id="all"),
    pytest.param((X, 1), {}, id="axis-by-position"),
    pytest.param((X,), {"axis": 0}, id="axis"),
    pytest.param((X[0],), {}, id="vector"),
]


@pytest.mark.parametrize("f", [special.softmax, special.log_softmax])
@pytest.mark.parametrize(("args", "kwargs"), SOFTMAX)
@BOTH_RULES
def test_softmax_and_log_softmax_match_finite_differences(
    f: Any, args: Any, kwargs: Any, check: Any
) -> None:
    check(f, *args, **kwargs)


def orders_model(x: np.ndarray) -> Any:
    """`polygamma`'s orders as a Python list or tuple: the partial's next order is the
    list's elementwise sum with 1 (`n + 1` concatenated, a crash, before)."""
    total = special.polygamma([0, 1, 2], x * x + 1.0) + special.polygamma((1, 0, 3), x + 2.0)
    return np.sum(total * x) + np.sum(special.polygamma([[0], [1]], x * x + 0.5))


def elementwise_model(x: np.ndarray) -> Any:
    smooth = special.expit(x) * special.erf(x) + special.erfc(x) ** 2
    gamma = special.gammaln(x * x + 1.0) + special.digamma(x * x + 1.0)
    return np.sum(smooth + gamma + special.logit(special.expit(x)) ** 3)


def x_log_y_model(x: np.ndarray) -> Any:
    return np.sum(special.xlogy(x, x * x + 0.5) + special.xlog1py(x, x * x))


def reductions_model(x: np.ndarray) -> Any:
    total = special.logsumexp(x * x) + np.sum(special.logsumexp(x, axis=1))
    return total + np.sum(special.softmax(x, axis=0) * x) + np.sum(special.log_softmax(x, 1) ** 2)


def weighted_model(x: np.ndarray) -> Any:
    return np.sum(special.logsumexp(x, 1, x * x, True))


def signed_model(x: np.ndarray) -> Any:
    value, sign = special.logsumexp(x, 0, x - 0.2, return_sign=True)
    return np.sum(value * sign)


def classifier_loss(x: np.ndarray) -> Any:
    """A user's cross-entropy, as written with SciPy."""
    logits = np.reshape(x, (3, 4))
    labels = np.array([0, 3, 1])
    log_p = special.log_softmax(logits, axis=1)
    return -np.mean(log_p[np.arange(3), labels]) + 0.1 * np.sum(special.expit(logits))


MODELS: list[Any] = [
    pytest.param(elementwise_model, X[0], id="elementwise"),
    pytest.param(orders_model, X[0, :3], id="polygamma-orders"),
    pytest.param(x_log_y_model, X[0], id="xlogy"),
    pytest.param(reductions_model, X, id="logsumexp-softmax"),
    pytest.param(weighted_model, X, id="logsumexp-weights"),
    pytest.param(classifier_loss, X.reshape(-1), id="cross-entropy"),
]


@pytest.mark.parametrize(("f", "x"), MODELS)
def test_through_the_api_to_second_order(f: Callable[[np.ndarray], Any], x: np.ndarray) -> None:
    check_through_api(f, x)


def test_logsumexp_with_its_sign_through_the_api() -> None:
    # First order only: unpacking a tuple (`value, sign = ...`) in a function whose forward
    # rule is differentiated again needs `unpack`'s forward rule to be differentiable, which
    # is not this module's (srcad refuses it, with a located diagnostic).
    check_through_api(signed_model, X, second_order=False)


SCIPY_SPECIAL = [
    special.expit, special.logit, special.logsumexp, special.softmax, special.log_softmax,
    special.gammaln, special.digamma, special.erf, special.erfc, special.xlogy,
    special.xlog1py, special.polygamma, special.ndtr, special.log_ndtr,
]  # fmt: skip


def test_digamma_is_named_psi() -> None:
    """`digamma` is the ufunc `psi`, under which the table lists its rule."""
    assert special.digamma is special.psi
    assert REGISTRY.rrule_for(special.psi).rrule.__name__ == "psi_rrule"


@pytest.mark.parametrize("f", SCIPY_SPECIAL, ids=lambda f: f.__name__)
def test_issue_20s_functions_have_both_rules(f: Any) -> None:
    assert REGISTRY.rrule_for(f) is not None
    assert REGISTRY.frule_for(f) is not None


def logsumexp_along_axes(t):
    m = np.array([[t, 2.0 * t, 0.3], [t * t, -t, 1.0], [0.5, t, -0.2 * t]])
    rows = special.logsumexp(m, axis=1, keepdims=True)
    weighted = special.logsumexp(m, 0, np.array([1.0, 2.0, 0.5]) + t)
    return np.sum(rows**2) + np.sum(np.sin(weighted)) + special.logsumexp(m * t)


def test_third_derivatives_of_logsumexp_along_an_axis() -> None:
    """`logsumexp`'s forward rule is plain code srcad compiles again for third derivatives
    (its `np.sum` takes `keepdims` by position, as a keyword of no kind srcad knows would be
    a differentiated one): `grad` and forward `jacobian` three deep against central
    differences of the second derivative."""
    from srcad.testing import finite_difference_jvp

    t = 0.4
    second = srcad.grad(srcad.grad(logsumexp_along_axes))
    expected = float(finite_difference_jvp(second, (t,), (1.0,)))
    assert float(srcad.grad(second)(t)) == pytest.approx(expected, rel=2e-5, abs=1e-6)
    twice = srcad.jacobian(srcad.jacobian(logsumexp_along_axes, mode="forward"), mode="forward")
    third = srcad.jacobian(twice, mode="forward")(t)
    assert float(third) == pytest.approx(expected, rel=2e-5, abs=1e-6)

"""Issue 19, small arrays: the derivatives inlined where the kinds are known, beyond the
elementwise ones. Reductions over constant axes (`np.sum`, `np.mean`, `np.max`, `np.min`
with `axis=`, `keepdims=`), indexing by integer arrays that may repeat an element, and
`np.logaddexp`'s slopes taken from its operands (`srcad.partials.logistic`), so that a
gradient skips the costly result. Each against central differences in both modes, and to
second order where the function has one; the extrema at ties and NaNs against the library
rule, whose choice there (an equal share) finite differences cannot check."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.registry import REGISTRY
from srcad.testing import finite_difference_jvp, finite_difference_vjp


def row_softmax(x, c):
    shifted = x - np.max(x, axis=1, keepdims=True)
    e = np.exp(shifted)
    return np.sum(e / np.sum(e, axis=-1, keepdims=True) * c)


def column_extrema(x, c):
    return np.sum(np.sin(np.max(x, axis=0)) * c) + np.sum(np.cos(np.min(x, axis=1)))


def means_of_blocks(x, c):
    inner = np.mean(x, axis=2, keepdims=True) * c
    return np.sum(np.tanh(np.mean(x * inner, axis=-1))) + np.sum(np.sum(x, axis=1) ** 2)


def all_axes(x, c):
    return np.max(x) * np.min(x * c) + np.sum(x * x, axis=None) + np.mean(x, keepdims=True)[0, 0]


def softplus(z, c):
    return np.sum(np.logaddexp(0.0, z) * c) + np.sum(np.logaddexp(z, 0.0) ** 2)


def log_sum_of_two(a, b):
    return np.sum(np.logaddexp(a, b * 2.0) * np.logaddexp(b, a))


ROWS = np.array([0, 2, 0, 0])
COLUMNS = np.array([1, 0, 1, 3])
LABELS = np.array([1, 1, 0])


def picked_twice(x, c):
    return np.sum(np.sin(x[ROWS, COLUMNS]) * c)  # x[0, 1] twice


def picked_from_a_product(x, c):
    y = x * 2.0
    return np.sum(y[np.arange(3), LABELS] ** 2 * c) + np.sum(y[LABELS, 1] * 0.5)


def _args(shape: tuple[int, ...], other: Any, seed: int) -> tuple[Any, ...]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape), other(rng) if callable(other) else other


CASES = [
    (row_softmax, _args((4, 3), lambda r: r.random((4, 3)), 1), ["max_rrule", "sum_rrule"]),
    (column_extrema, _args((3, 5), lambda r: r.standard_normal(5), 2), ["max_rrule", "min_rrule"]),
    (means_of_blocks, _args((2, 3, 4), 0.7, 3), ["mean_rrule", "sum_rrule"]),
    (all_axes, _args((3, 4), 1.3, 4), ["max_rrule", "min_rrule", "sum_rrule", "mean_rrule"]),
    (softplus, _args((5,), lambda r: r.standard_normal(5), 5), ["logaddexp_rrule"]),
    (softplus, _args((2, 3), 0.4, 6), ["logaddexp_rrule"]),
    (log_sum_of_two, _args((4,), lambda r: r.standard_normal(4), 7), ["logaddexp_rrule"]),
    (picked_twice, _args((3, 4), lambda r: r.standard_normal(4), 8), ["getitem_rrule"]),
    (picked_from_a_product, _args((3, 2), lambda r: r.standard_normal(3), 9), ["getitem_rrule"]),
]  # fmt: skip
IDS = [f"{case[0].__name__}-{np.shape(case[1][1])}" for case in CASES]


@pytest.mark.parametrize(("f", "args", "rules"), CASES, ids=IDS)
def test_gradient_against_differences(f: Any, args: tuple[Any, ...], rules: list[str]) -> None:
    value, gradient = srcad.value_and_grad(f, wrt=(0, 1))(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    for position, got in enumerate(gradient):
        want = finite_difference_vjp(f, args, 1.0, position)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    alone = srcad.grad(f, wrt=(0, 1))(*args)  # the gradient without its value
    for got, want in zip(alone, gradient, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("f", "args", "rules"), CASES, ids=IDS)
def test_jvp_against_differences(f: Any, args: tuple[Any, ...], rules: list[str]) -> None:
    tangents = tuple(np.full(np.shape(a), 0.3) if np.ndim(a) else 0.3 for a in args)
    _, y_dot = srcad.jvp(f, args, tangents)
    np.testing.assert_allclose(y_dot, finite_difference_jvp(f, args, tangents), 1e-6, 1e-8)


@pytest.mark.parametrize(("f", "args", "rules"), CASES, ids=IDS)
def test_the_derivative_is_inlined(f: Any, args: tuple[Any, ...], rules: list[str]) -> None:
    """No rule call for what these cases test: a call left in would test the rule, not the
    inlined derivative."""
    text = srcad.source(f, wrt=(0, 1), args=args)
    for rule in rules:
        assert rule not in text, text


SMOOTH = [case for case in CASES if case[0] not in (column_extrema, all_axes)]


@pytest.mark.parametrize(("f", "args", "rules"), SMOOTH, ids=lambda c: getattr(c, "__name__", ""))
def test_second_order_against_differences(f: Any, args: tuple[Any, ...], rules: list[str]) -> None:
    """The Hessian in the first argument, column by column against differences of the
    gradient (the inlined gradient is the one differenced)."""
    x, c = args
    hessian = np.asarray(srcad.hessian(f, wrt=0)(x, c)).reshape(x.size, x.size)
    gradient = srcad.grad(f, wrt=0)
    for k in range(x.size):
        direction = np.zeros(x.size)
        direction[k] = 1e-4
        step = direction.reshape(x.shape)
        column = (gradient(x + step, c) - gradient(x - step, c)) / 2e-4
        np.testing.assert_allclose(hessian[:, k], column.reshape(-1), rtol=1e-4, atol=1e-6)


def take_max(x, c):
    return np.sum(np.max(x, axis=1) * c) + np.sum(np.min(x, axis=0, keepdims=True))


def _rule_cotangent(primal: Any, x: np.ndarray, y_bar: Any, **options: Any) -> np.ndarray:
    rule = REGISTRY.rrule_for(primal)
    assert rule is not None
    _, pullback = rule.rrule(x, **options)
    return np.asarray(pullback(y_bar)[1])


@pytest.mark.parametrize(
    "x",
    [
        np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [0.0, 5.0, -1.0]]),  # ties in rows, columns
        np.array([[1.0, np.nan, 3.0], [2.0, 4.0, 2.0], [np.nan, np.nan, 0.0]]),  # NaNs
        np.array([[0.0, -0.0, 1.0], [np.inf, 2.0, -np.inf], [-np.inf, 3.0, np.inf]]),
    ],
    ids=["ties", "nans", "signed zeros and infinities"],
)
def test_extrema_share_as_the_rule_does(x: np.ndarray) -> None:
    c = np.array([0.5, -2.0, 1.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = srcad.grad(take_max)(x, c)
    want = _rule_cotangent(np.max, x, c, axis=1)
    want = want + _rule_cotangent(np.min, x, np.ones((1, 3)), axis=0, keepdims=True)
    np.testing.assert_array_equal(got, want)
    assert "max_rrule" not in srcad.source(take_max, args=(x, c))


def softplus_of(t):
    return np.logaddexp(0.0, t)


def softplus_summed(z):
    return np.sum(np.logaddexp(z, 0.0))


@pytest.mark.parametrize("z", [-800.0, -40.0, -1.0, 0.0, 3.0, 40.0, 800.0])
def test_softplus_slope_in_the_tails(z: float) -> None:
    """The slope of `logaddexp(0, z)` to full relative precision, and no overflow warning
    where `exp(-z)` overflows (a Python float and an array)."""
    exact = 1.0 / (1.0 + np.exp(np.float64(-z))) if z > -700 else 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scalar = srcad.grad(softplus_of)(z)
        array = srcad.grad(softplus_summed)(np.array([z, z]))
    np.testing.assert_allclose(scalar, exact, rtol=1e-15, atol=0)
    np.testing.assert_allclose(array[0], exact, rtol=1e-15, atol=0)


def offset_from_a_dict(x, p):
    return np.mean(np.exp(x) * 2.0 + p["b"] * p["scale"])


def test_a_float_read_from_a_dict_takes_a_uniform_cotangent() -> None:
    """The mean's cotangent stays a float through `+ p["b"] * p["scale"]`, whose floats
    take it summed over the elements they stood for (no array filled with it)."""
    x, p = np.random.default_rng(10).standard_normal((3, 2)), {"b": 0.3, "scale": -1.7}
    x_bar, p_bar = srcad.grad(offset_from_a_dict, wrt=(0, 1))(x, p)
    np.testing.assert_allclose(x_bar, finite_difference_vjp(offset_from_a_dict, (x, p), 1.0, 0))
    np.testing.assert_allclose(p_bar["b"], -1.7, rtol=1e-12)
    np.testing.assert_allclose(p_bar["scale"], 0.3, rtol=1e-12)
    assert "fill_like" not in srcad.source(offset_from_a_dict, wrt=(0, 1), args=(x, p))

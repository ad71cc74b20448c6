"""Issue 19: kinds known after reductions over axes (`np.sum(x, axis=1, keepdims=True)`,
`np.max(x, axis=0)`), integer-array indexing (`log_probs[rows, labels]`), `np.arange`, and
the NumPy ufuncs called by name (`np.logaddexp`, `np.maximum`), so that the code after them
stays specialised (inlined derivatives, no rule calls). Each function's gradient and
Jacobian-vector product against central differences: a kind claimed wrongly (a wrong number
of dimensions) would give a wrong inlined derivative, which the differences would catch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp


def softmax_cross_entropy(w, b, x, labels):
    logits = x @ w + b
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(len(labels)), labels])


def stable_logistic(w, x, y):
    z = x @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)


def column_means(x, c):
    centred = x - np.mean(x, axis=0)
    return np.sum(np.tanh(centred) * c) + np.sum(np.sin(np.sum(x, axis=-1)))


def reduced_over_both(x, c):
    m = np.max(x * c, axis=(0, 1), keepdims=True)
    return np.sum(np.exp(x - m)) + np.min(np.sum(x, axis=(1, 0)) * c)


def rows_picked(x, c):
    picked = x[np.array([2, 0, 2])]
    return np.sum(np.sin(picked) * c)


def items_picked(x, c):
    rows = np.arange(3)
    cols = np.arange(3) % 2
    return np.sum(np.exp(x[rows, cols]) * c) + np.sum(np.cos(x[1, cols]))


def grid_picked(x, c):
    index = np.array([[0, 1], [2, 1]])
    return np.sum(np.square(x[index] - c))


def ufuncs_by_name(x, c):
    y = np.multiply(np.add(x, c), np.subtract(x, c)) + np.maximum(x, c) * np.minimum(x, 0.5)
    return np.sum(np.arctan2(y, 2.0) + np.hypot(x, c) + np.divide(np.logaddexp2(x, c), 3.0))


def scalar_ufunc_loop(a, c):
    s = 0.0
    for i in range(4):
        s = np.logaddexp(s, a * i) + np.maximum(s, c) * 0.1
    return s


def _classification():
    r = np.random.default_rng(3)
    x = r.standard_normal((6, 4))
    return (r.standard_normal((4, 3)), r.standard_normal(3), x, np.array([0, 2, 1, 1, 0, 2]))


r = np.random.default_rng(0)
CASES = [
    (softmax_cross_entropy, _classification(), (0, 1)),
    (stable_logistic, (r.standard_normal(4), r.standard_normal((5, 4)), r.random(5).round()), (0,)),
    (column_means, (r.standard_normal((3, 4)), r.standard_normal(4)), (0, 1)),
    (reduced_over_both, (r.standard_normal((3, 4)), 0.7), (0, 1)),
    (rows_picked, (r.standard_normal((3, 4)), r.standard_normal(4)), (0, 1)),
    (items_picked, (r.standard_normal((3, 4)), r.standard_normal(3)), (0, 1)),
    (grid_picked, (r.standard_normal((3, 4)), r.standard_normal(4)), (0, 1)),
    (ufuncs_by_name, (r.standard_normal(5), r.standard_normal(5)), (0, 1)),
    (ufuncs_by_name, (r.standard_normal((2, 3)), 0.4), (0, 1)),
    (scalar_ufunc_loop, (0.6, 0.2), (0, 1)),
]  # fmt: skip


@pytest.mark.parametrize(("f", "args", "wrt"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradient_and_jvp_against_differences(f: Any, args: tuple[Any, ...], wrt: Any) -> None:
    gradient = srcad.grad(f, wrt=wrt)(*args)
    for position, got in zip(wrt, gradient, strict=True):
        want = finite_difference_vjp(f, args, 1.0, position)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    tangents = tuple(
        np.full(np.shape(a), 0.3) if k in wrt else srcad.NoTangent() for k, a in enumerate(args)
    )
    _, y_dot = srcad.jvp(f, args, tangents)
    np.testing.assert_allclose(
        y_dot, finite_difference_jvp(f, args, tangents), rtol=1e-6, atol=1e-8
    )


@pytest.mark.parametrize(
    "f", [softmax_cross_entropy, stable_logistic, column_means, items_picked, ufuncs_by_name]
)
def test_the_code_after_them_is_specialised(f: Any) -> None:
    """Only the calls with options stay rule calls (`sum_rrule(x, axis=1, ...)`); what
    follows them, their results' kinds known, is inlined."""
    args = next(case[1] for case in CASES if case[0] is f)
    text = srcad.source(f, args=args)
    for general in ("sub_rrule", "mul_rrule", "neg_rrule", "exp_rrule", "logaddexp_rrule"):
        assert general not in text, text
    assert "tanh_rrule" not in text and "mean_rrule(log_probs" not in text

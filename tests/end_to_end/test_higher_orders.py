"""Issue 20: third, fourth and fifth derivatives, `grad` nested that deep, of functions
through the elementwise functions, powers, `math`, `@`, reductions, indexing, joining,
loops and branches. Each order is checked against central differences of the order below
it (itself checked so, down to the function). Reverse mode over the forward rule k - 2
deep: a linear primitive's forward rules are nested to `second_order.NESTING` deep."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp

A = np.array([[0.5, -0.3, 0.2], [0.1, 0.4, -0.6], [0.3, 0.2, 0.1]])
X0 = np.array([0.2, -0.4, 0.5])
V = np.array([0.3, 0.1, -0.2])
T = 0.7


def through_sin(t):
    return np.sin(t) * t


def through_exp(t):
    return np.exp(0.5 * t) / (1.0 + t * t)


def through_log(t):
    return np.log(1.0 + t * t) + np.log1p(t)


def through_tanh(t):
    return np.tanh(2.0 * t) ** 2


def through_powers(t):
    return t**3.5 + 2.0**t + t**t


def through_roots(t):
    return np.sqrt(1.0 + t) * np.cbrt(2.0 + t)


def through_math(t):
    return math.sin(t) * math.exp(t) + math.log(2.0 + t)


def through_matmul(t):
    x = X0 + t * V
    return np.sum(np.tanh(A @ x) ** 2)


def through_reductions(t):
    x = X0 + t * V
    return np.mean(x**2) * np.max(x * x + 1.0) + np.sum(x * x) ** 2


def through_a_loop(t):
    s = t
    for k in range(3):
        s = np.sin(s) + t * k
    return s


def through_a_branch(t):
    if t > 0:
        return np.cos(t) ** 3
    return t


def through_divisions(t):
    return 1.0 / (2.0 + np.sin(t)) - t / (3.0 + t)


def through_two_arguments(t):
    return np.arctan(t) + np.arcsinh(t) + np.hypot(t, 2.0) + np.logaddexp(t, 0.3)


def through_indexing(t):
    x = X0 + t * V
    return x[0] * np.exp(x[1]) + np.sum(np.sin(x[1:]) ** 3)


def through_joining(t):
    x = X0 + t * V
    y = np.concatenate([x, x**2])
    return np.sum(np.stack([y, np.sin(y)]) ** 2)


def through_a_transpose_attribute(t):
    m = A * np.cos(t) + A.T * t
    return np.sum(np.sin(m.T * m) * m.T)


FUNCTIONS = [
    through_sin, through_exp, through_log, through_tanh, through_powers, through_roots,
    through_math, through_matmul, through_reductions, through_a_loop, through_a_branch,
    through_divisions, through_two_arguments, through_indexing, through_joining,
    through_a_transpose_attribute,
]  # fmt: skip


def check_order(f: Any, order: int) -> None:
    lower = f
    for _ in range(order - 1):
        lower = srcad.grad(lower)
    expected = float(finite_difference_jvp(lower, (T,), (1.0,)))
    got = float(srcad.grad(lower)(T))
    assert got == pytest.approx(expected, rel=2e-5, abs=1e-6)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_third_and_fourth_derivatives_match_differences_of_the_order_below(f: Any) -> None:
    check_order(f, 3)
    check_order(f, 4)


@pytest.mark.parametrize("f", [through_sin, through_a_loop], ids=lambda f: f.__name__)
def test_fifth_derivatives_match_differences_of_the_fourth(f: Any) -> None:
    # (compiling the forward rules four deep takes seconds through `@` or indexing: kept
    # to functions of elementwise ones here; `benchmarks/` is the place to time it)
    check_order(f, 5)


def test_fourth_derivatives_of_a_vector_function_through_hessians() -> None:
    """`hessian` of `x -> sum(hessian(f)(x))`: f's fourth derivatives in the sum."""

    def f(x):
        return np.sum(np.tanh(A @ x) ** 2) + np.sum(x[:2] ** 4)

    def hessian_sum(x):
        return np.sum(srcad.hessian(f)(x))

    gradient = srcad.grad(hessian_sum)
    columns = [finite_difference_jvp(gradient, (X0,), (np.eye(3)[i],)) for i in range(3)]
    np.testing.assert_allclose(
        srcad.hessian(hessian_sum)(X0), np.stack(columns, -1), rtol=1e-5, atol=1e-6
    )


def through_a_product(t):
    x = X0 + t * V
    return np.prod(x + 2.0) * np.prod(np.sin(x) + 1.5)


def through_norms_and_moments(t):
    x = X0 + t * V
    return np.linalg.norm(x) * np.var(x) + np.std(x * x) + np.average(x, 0, x * x + 1.0)


def through_a_determinant(t):
    return np.linalg.det(A + t * np.eye(3)) ** 2


def through_a_cumulative_product(t):
    """`np.cumprod` along each axis and flattened; at T a product's first element is 0."""
    x = X0 + t * V
    m = np.stack([x, x * x - 0.1681, np.cos(x)])
    flat = np.sum(np.cumprod(x + 2.0) ** 2)
    return np.sum(np.sin(np.cumprod(m, axis=1))) + np.sum(np.cumprod(m, 0) ** 2) + flat


@pytest.mark.parametrize(
    "f",
    [through_a_product, through_norms_and_moments, through_a_determinant,
     through_a_cumulative_product],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_third_derivatives_through_primitives_with_definitions(f: Any) -> None:
    """Their second derivatives come from a plain-NumPy definition; their third from the
    forward rule of the definition's forward rule (`second_order.frule_frule_via_ad`).
    `np.cumprod`'s definition stacks its running products, never writes them into an
    array, so that srcad differentiates its forward rule in turn."""
    check_order(f, 3)


@pytest.mark.parametrize(
    "f", [through_a_product, through_a_determinant], ids=lambda f: f.__name__
)  # fmt: skip
def test_fourth_derivatives_through_primitives_with_definitions(f: Any) -> None:
    """Their fourth from the reverse rule of the definition's forward rule three deep
    (`second_order.definition_nested_rules`). (Compiling the rules that deep takes a
    second or two each: kept to two functions.)"""
    check_order(f, 4)


def through_products_of_varying_arrays(t):
    """Bilinear and multilinear products of two (three) arrays that both vary with `t`."""
    x = X0 + t * V
    y = np.sin(x)
    m = A * x  # (varies with t, as x and y do)
    dots = np.dot(x, y) * np.inner(y, x * x) + np.sum(np.tensordot(m, x, 1) ** 2 + np.outer(x, y))
    complex_dot = np.real(np.vdot(x + 1j * y, y * x))  # antilinear in its first operand
    einsums = np.einsum("i,ij,j->", x, m, y) + np.einsum(x, [0], y, [0])
    return dots + complex_dot + einsums + np.sum(m @ x)


@pytest.mark.parametrize("order", [3, 4])
def test_derivatives_through_products_of_varying_arrays(order: int) -> None:
    """Their forward rules' tangents are sums of products (`numpy_linalg.multilinear_sum`),
    whose forward rule is a sum of the same kind, compiled in turn."""
    check_order(through_products_of_varying_arrays, order)

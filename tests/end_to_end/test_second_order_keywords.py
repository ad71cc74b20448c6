"""Issue 20: helpers called by keyword (`h(b=2.0, a=x)`, `with_axis(axis=1, a=m)`) inside
helpers, two and three levels deep, to second order. Reverse mode differentiates the
forward rule generated for the outer function, which calls the forward rules of the
helpers by keyword in turn (`frule_h(dargs, b=2.0, a=x)`): each is compiled for the kinds
its keywords land on (an int `axis` is no derivative). Hessians, Hessian-vector products
and `jacobian(grad(f))` in both modes, against central differences of the gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import difference


def h(a, b=1.0):
    return np.sum(np.sin(a) * b + a**3 * b * b)


def g(x):
    return h(b=2.0, a=x)


def f(x):
    return g(x) * 2


def g_mixed(x):
    return h(x, b=x[0] + 1.0)


def f_mixed(x):
    return g_mixed(x) * np.cos(x[1])


def scaled(a, scale=1.0, *, shift=0.0):
    return np.sum(np.exp(a * scale) + shift * a**2)


def two_scales(x, s):
    return scaled(scale=s, a=x, shift=s * 0.5)


def both(x):
    return two_scales(x, x[0]) + two_scales(s=0.3, x=x * 2.0)


def three_deep(x):
    return both(x=x) ** 2


def with_axis(a, axis=0):
    return np.sum(np.sum(a * a, axis=axis) ** 2)


def axis_by_keyword(x):
    return with_axis(axis=1, a=np.reshape(x, (2, 2)))


def axis_from_a_name(x):
    k = 1
    return with_axis(a=np.reshape(x, (2, 2)), axis=k) + axis_by_keyword(x)


def axis_passed_on(x, axis):
    return with_axis(a=np.reshape(x, (2, 2)), axis=axis)


def axis_three_deep(x):
    return axis_passed_on(axis=0, x=np.tanh(x)) * axis_passed_on(x, axis=1)


def defaults(x, k=3.0, p=2.0):
    return np.sum(x**p) * k


def defaults_by_keyword(x):
    return defaults(x, p=3.0) + defaults(k=x[0], x=x)


def defaults_three_deep(x):
    return defaults_by_keyword(x=np.tanh(x))


FUNCTIONS = [
    f, g, f_mixed, three_deep, both, axis_by_keyword, axis_from_a_name, axis_three_deep,
    defaults_by_keyword, defaults_three_deep,
]  # fmt: skip
X = np.array([0.3, -0.6, 0.8, 0.2])


@pytest.mark.parametrize("objective", FUNCTIONS, ids=lambda f: f.__name__)
def test_second_derivatives_through_helpers_called_by_keyword(objective: Any) -> None:
    expected = difference(srcad.grad(objective), (X,))
    tolerance = {"rtol": 1e-5, "atol": 1e-6}
    np.testing.assert_allclose(srcad.hessian(objective)(X), expected, **tolerance)
    v = np.array([0.5, -1.0, 0.25, 2.0])
    product = srcad.hessian_vector_product(objective)(X, v)
    np.testing.assert_allclose(product, expected @ v, **tolerance)
    for mode in ("reverse", "forward"):
        jacobian = srcad.jacobian(srcad.grad(objective), mode=mode)(X)
        np.testing.assert_allclose(jacobian, expected, **tolerance)

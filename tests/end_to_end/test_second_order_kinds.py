"""Issue 20: what first order differentiates because the arguments' kinds prove it (an int
`axis` passed to a helper, `axis=x.ndim - 1`, `s += 1.0` on a float taken from an array,
`+=` on a float parameter) is differentiated to second order too: the forward rule that
reverse mode differentiates for a Hessian is compiled for the arguments' kinds, and so are
the forward rules of the helpers it calls. Hessians against central differences of the
gradient, which first order computes (itself checked against differences elsewhere)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp


def log_sum_exp(x, axis):
    return np.log(np.sum(np.exp(x), axis=axis))


def through_an_int_axis(x):
    return np.sum(log_sum_exp(x, 0) ** 2) + np.sum(log_sum_exp(x, 1))


def axis_from_ndim(x):
    return np.sum(np.sum(x * x, axis=x.ndim - 1) ** 2)


def float_item_incremented(x):
    s = x[0]
    s += 1.0
    s *= x[1]
    return s * s * x[1]


def float_parameter_incremented(x, c):
    c += x[0]
    return c * x[1] * x[1]


CASES = [
    (through_an_int_axis, (np.array([[0.3, 0.5, -0.2], [0.1, -0.4, 0.7]]),)),
    (axis_from_ndim, (np.array([[0.3, 0.5], [0.1, -0.4]]),)),
    (float_item_incremented, (np.array([0.3, 0.7]),)),
    (float_parameter_incremented, (np.array([0.3, 0.7]), 0.5)),
]


@pytest.mark.parametrize(("f", "args"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_hessian_against_differences_of_the_gradient(f: Any, args: tuple[Any, ...]) -> None:
    x = args[0]
    hessian = srcad.hessian(f)(*args)
    gradient = srcad.grad(f)
    rest = tuple(srcad.NoTangent() for _ in args[1:])
    for index in np.ndindex(x.shape):
        direction = np.zeros_like(x)
        direction[index] = 1.0
        column = finite_difference_jvp(gradient, args, (direction, *rest))
        np.testing.assert_allclose(hessian[(..., *index)], column, rtol=1e-6, atol=1e-7)
    v = np.linspace(0.2, 0.9, x.size).reshape(x.shape)
    product = srcad.hessian_vector_product(f)(*args, v)
    expected = finite_difference_jvp(gradient, args, (v, *rest))
    np.testing.assert_allclose(product, expected, rtol=1e-6, atol=1e-7)

"""Second derivatives through values whose tangent is a symbolic zero: the tangent of what
only an argument not differentiated reaches (`y` in `hessian(f, wrt=0)`), broadcast against
what moves. Reverse mode over the forward rule pulls a cotangent back to such a tangent in
the shape of the product it met (`(y * ones((5, 2))).T`'s, for a float `y`): it used to
reach `y`'s tangent unsummed, and the next use of that tangent could not be added to it
(fuzz seeds 90099, `np.minimum`, and 50041, `np.min(y) * x[3::2]`). A symbolic zero's
cotangent is now that zero (`srcad.projection.ProjectTo`). Hessian blocks against central
differences of the gradient, with respect to each argument and to both."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.projection import ProjectTo
from srcad.tangents import NoTangent, ZeroTangent
from tests.conftest import difference

TABLE = np.array([[0.3, -0.5, 0.7], [0.1, 0.9, -0.4]])


def minimum_of_a_transpose(x, y):  # seed 90099, reduced
    return np.sum(np.minimum(x, y - (y * np.ones((5, 2))).T))


def maximum_broadcast(x, y):
    return np.sum(np.maximum(y * np.ones((2, 3)), x) ** 2)


def minimum_times_a_slice(x, y):  # seed 50041, reduced: the slice has 0, 1 or 2 elements
    return np.sum(np.min(y) * x[3::2] ** 2)


def maximum_along_an_axis(x, y):
    return np.sum(np.max(y, axis=0) * x**2)


def absolute_times(x, y):
    return np.sum(np.abs(y) * x**2)


def clipped_between(x, y):
    return np.sum(np.clip(x * np.ones((2, 3)), y, 3.0) ** 2)


def chosen_where(x, y):
    return np.sum(np.where(TABLE > 0, y * np.ones((2, 3)), x) ** 2)


def matrix_product(x, y):
    return np.sum(((y * np.ones((2, 3))) @ x) ** 2)


def joined(x, y):
    return np.sum(np.concatenate([y * np.ones(2), x]) ** 3)


def stacked_transpose(x, y):
    return np.sum(np.stack([(y * np.ones((3, 2))).T, x * np.ones((2, 3))]) ** 3)


def sorted_transpose(x, y):
    return np.sum(np.sort(y * np.ones((2, 2)), axis=0).T * x**2)


def hypotenuse(x, y):
    return np.sum(np.hypot((y * np.ones((3, 2))).T, x))


def ratio_of_a_transpose(x, y):
    return np.sum((y * np.ones((5, 2))).T / x) * x


ARRAYS = (np.linspace(0.2, 1.1, 3), TABLE)
CASES = [
    (minimum_of_a_transpose, (0.3, 0.5)),
    (maximum_broadcast, (0.3, 0.5)),
    (minimum_times_a_slice, (np.linspace(0.2, 1.1, 3), TABLE)),
    (minimum_times_a_slice, (np.linspace(0.2, 1.1, 4), TABLE)),
    (minimum_times_a_slice, (np.linspace(0.2, 1.1, 6), TABLE)),
    (maximum_along_an_axis, ARRAYS),
    (absolute_times, (0.4, TABLE)),
    (clipped_between, (0.8, 0.5)),
    (chosen_where, (0.3, 0.5)),
    (matrix_product, (np.linspace(0.2, 1.1, 3), 0.5)),
    (joined, (np.linspace(0.2, 1.1, 3), 0.5)),
    (stacked_transpose, (0.3, 0.5)),
    (sorted_transpose, (0.3, 0.5)),
    (hypotenuse, (0.3, 0.5)),
    (ratio_of_a_transpose, (0.3, 0.5)),
]


@pytest.mark.parametrize("wrt", [0, 1, (0, 1)], ids=["x", "y", "both"])
@pytest.mark.parametrize(("f", "args"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_hessian_blocks_against_differences(f: Any, args: tuple[Any, ...], wrt: Any) -> None:
    positions = [wrt] if isinstance(wrt, int) else list(wrt)
    hessian = srcad.hessian(f, wrt=wrt)(*args)
    blocks = [[hessian]] if isinstance(wrt, int) else hessian
    for a, i in enumerate(positions):
        for b, j in enumerate(positions):
            expected = difference(srcad.grad(f, wrt=i), args, j)
            np.testing.assert_allclose(blocks[a][b], expected, rtol=1e-6, atol=1e-7)


def test_hessian_vector_product_with_the_other_argument_still() -> None:
    x, y = np.linspace(0.2, 1.1, 6), TABLE
    v = np.linspace(-0.4, 0.6, 6)
    product = srcad.hessian_vector_product(minimum_times_a_slice, 0)(x, y, v)
    gradient = srcad.grad(minimum_times_a_slice)
    expected = srcad.testing.finite_difference_jvp(gradient, (x, y), (v, NoTangent()))
    np.testing.assert_allclose(product, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("zero", [ZeroTangent(), NoTangent()], ids=["zero", "none"])
@pytest.mark.parametrize("cotangent", [np.ones((2, 5)), 2.0, np.ones(0)], ids=["2x5", "1", "0"])
def test_a_symbolic_zero_projects_any_cotangent_to_itself(zero: Any, cotangent: Any) -> None:
    assert type(ProjectTo(zero)(cotangent)) is type(zero)

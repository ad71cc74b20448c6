"""`x.item(i)` (a flat position, negative too), `x.item(i, j)` and `x.item((i, j))` of an
array of many elements: the reverse rule put the cotangent of the one element read into the
whole array's shape (a crash: "cannot reshape array of size 1"), where it belongs at the
element's place. Against central differences in both modes and to second order."""

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference


def flat_positions(x):
    return x.item(1) * x.item(-1) + np.sin(x.item(0)) + x[1:2].item() ** 2


def positions_in_a_matrix(x):
    m = x.reshape(2, 2)
    return m.item(1, 0) * m.item((0, 1)) + m.item(-1) ** 3 + m.item(3) * x.item(0)


CASES = [
    (flat_positions, np.array([0.3, -0.7, 1.2])),
    (flat_positions, np.array([1.1, 0.2, -0.4, 0.9])),
    (positions_in_a_matrix, np.array([0.3, -0.7, 1.2, 0.5])),
]


@pytest.mark.parametrize(("f", "x"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_item_of_one_element_among_many(f, x):
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, difference(f, (x,)))
    tangent = np.linspace(0.2, 1.0, x.size)
    y, y_dot = srcad.jvp(f, (x,), (tangent,))
    close(y, f(x))
    close(y_dot, difference(f, (x,)) @ tangent)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))

"""`x.item(i)` (a flat position, negative too), `x.item(i, j)` and `x.item((i, j))` of an
array of many elements: the reverse rule put the cotangent of the one element read into the
whole array's shape (a crash: "cannot reshape array of size 1"), where it belongs at the
element's place. And `x.tolist()`, the same numbers as (nested) lists of Python numbers,
which srcad took to have no derivative: `grad` of `sum(x.tolist())` was 0 with no error.
And `x.transpose()` with no axes, which crashed (passed on as `np.transpose(x, ())`).
Against central differences in both modes and to second order."""

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference


def flat_positions(x):
    return x.item(1) * x.item(-1) + np.sin(x.item(0)) + x[1:2].item() ** 2


def positions_in_a_matrix(x):
    m = x.reshape(2, 2)
    return m.item(1, 0) * m.item((0, 1)) + m.item(-1) ** 3 + m.item(3) * x.item(0)


def listed(x):
    return sum(x.tolist()) * x.tolist()[0]


def listed_rows(x):
    rows = (x.reshape(2, 2) * 1.0).tolist()
    return rows[0][1] * rows[1][0] + sum(rows[1]) ** 2


def listed_in_a_loop(x):
    s = 0.0
    for v in (2.0 * x).tolist():
        s = s + v * np.sin(v)
    return s + np.sum(x).tolist() + sum(x.astype(int).tolist())


def listed_then_an_array_again(x):
    return np.sum(np.array((x * 2.0).tolist()) ** 3)


def transposed(x):
    m = x.reshape(2, 2) * np.array([1.0, 2.0])
    return np.sum(m.transpose() @ m * m.transpose((1, 0))) + np.sum(m.transpose(1, 0)[0] ** 3)


CASES = [
    (listed, np.array([0.3, -0.7, 1.2])),
    (listed_rows, np.array([0.3, -0.7, 1.2, 0.5])),
    (listed_in_a_loop, np.array([0.3, -0.7, 1.2, 0.5])),
    (listed_then_an_array_again, np.array([0.3, -0.7, 1.2])),
    (flat_positions, np.array([0.3, -0.7, 1.2])),
    (flat_positions, np.array([1.1, 0.2, -0.4, 0.9])),
    (positions_in_a_matrix, np.array([0.3, -0.7, 1.2, 0.5])),
    (transposed, np.array([0.3, -0.7, 1.2, 0.5])),
]


@pytest.mark.parametrize(("f", "x"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_item_and_tolist(f, x):
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, difference(f, (x,)))
    tangent = np.linspace(0.2, 1.0, x.size)
    y, y_dot = srcad.jvp(f, (x,), (tangent,))
    close(y, f(x))
    close(y_dot, difference(f, (x,)) @ tangent)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))

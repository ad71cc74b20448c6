"""A gradient is a value of its own: never the caller's argument, a global, or a view of
one, which a gradient changed in place (`g *= lr`) would change too. `grad`'s fused code
drops products by the seed 1.0 (`passes/transforms/fuse.py`), which left `x` itself as the
gradient of `np.sum(x * y)` in `y`."""

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_vjp
from tests.conftest import close, sample

W = np.linspace(0.5, 1.5, 4)
PAIR = (np.linspace(-1.0, 1.0, 4), np.linspace(2.0, 3.0, 4))


def product(x, y):
    return np.sum(x * y)


def reversed_product(x, y):
    return np.sum(y * x)


def matrix_product(x, y):
    return np.sum(x @ y)


def with_an_alias(x, y):
    z = x
    return np.sum(z * y) + 0.0


def through_a_view(x, y):
    v = x[0:4]
    return np.sum(v * y)


def plus_an_element(x, y):
    return np.sum(x * y) + y[0] * 3.0


def summed(x, y):
    return np.sum(x * y) + np.sum(y)


def with_a_global(x, y):
    return np.sum(W * y) + np.sum(x * x)


def with_a_tuple_item(x, y):
    return np.sum(PAIR[0] * y) + np.sum(PAIR[1] * x)


def in_a_loop(x, y):
    s = 0.0
    for _ in range(2):
        s = s + np.sum(x * y)
    return s


FUNCTIONS = [
    product,
    reversed_product,
    matrix_product,
    with_an_alias,
    through_a_view,
    plus_an_element,
    summed,
    with_a_global,
    with_a_tuple_item,
    in_a_loop,
]


def _reachable(x, y):
    return [x, y, W, *PAIR]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradients_share_no_memory_with_what_the_caller_holds(f):
    x, y = sample((4,), 1), sample((4,), 2)
    kept = [a.copy() for a in _reachable(x, y)]
    for wrt in (0, 1, (0, 1)):
        positions = wrt if isinstance(wrt, tuple) else (wrt,)
        for gradients in (srcad.grad(f, wrt=wrt)(x, y), srcad.value_and_grad(f, wrt=wrt)(x, y)[1]):
            gradients = gradients if isinstance(wrt, tuple) else (gradients,)
            for g, position in zip(gradients, positions, strict=True):
                assert not any(np.shares_memory(g, held) for held in _reachable(x, y))
                close(g, finite_difference_vjp(f, (x, y), 1.0, position))
                g *= 2.0  # changing a gradient in place changes nothing the caller holds
            for held, before in zip(_reachable(x, y), kept, strict=True):
                np.testing.assert_array_equal(held, before)

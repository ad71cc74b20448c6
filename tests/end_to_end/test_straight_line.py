"""Straight-line functions: srcad's compiled gradients against central finite differences."""

import math

import numpy as np
import pytest

import srcad
from srcad.testing import check_rrule

SCALE = 1.5


def add(x, y):
    return x + y


def sub(x, y):
    return x - y


def mul(x, y):
    return x * y


def div(x, y):
    return x / y


def power(x, y):
    return x**y


def cube(x):
    return x**3


def negate(x, y):
    return -x * y


def polynomial(x):
    return 3.0 * x**3 - 2.0 * x**2 + x - 5.0


def math_mix(x, y):
    return math.sin(x) * math.exp(y) + math.log(x) + math.sqrt(y)


def math_tanh(x, y):
    return math.tanh(x * y) - math.cos(x) / math.cosh(y)


def np_sin(x):
    return np.sin(x)


def array_over_scalar(x, y):
    return x / y


def array_pow_scalar(x, y):
    return x**y


def broadcast_rows(x, y):
    return x + y


def broadcast_outer(x, y):
    return x * y


def sum_of_product(x, y):
    return np.sum(x * y)


def sum_axis_dot(x, w):
    column_sums = np.sum(x, axis=0)
    return np.dot(column_sums, w)


def mean_square(x):
    return np.mean(x**2)


def centered(x):
    return x - np.mean(x, axis=1, keepdims=True)


def vector_dot(w, x):
    return np.dot(w, x)


def matrix_vector(a, w):
    return a @ w


def matrix_matrix(a, b):
    return np.sum(a @ b)


def gram(x):
    return np.sum(x.T @ x)


def tuple_unpacking(x, y):
    a, b = x * 2.0, y + 1.0
    return a * b


def swap(x, y):
    x, y = y, x / y
    return x - y


def rebinding(x):
    x = x * 2.0
    x = x + 1.0
    x = x * x
    return x


def shape_use(x):
    return np.sum(x) / x.shape[0]


def indexing(x):
    return x[0] * x[1] + x[-1]


def slicing(x):
    return np.sum(x[1:3] * x[::2][:2])


def logistic_loss(w, x, y):
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def softplus(x):
    return np.sum(np.log1p(np.exp(x)))


def gaussian(x):
    return np.exp(-(x**2) / 2.0)


def tanh_layer(w, b, x):
    return np.sum(np.tanh(w @ x + b))


def unused_argument(x, y):
    return x * 2.0


def global_constant(x):
    return SCALE * x


def pack_then_unpack(x, y):
    t = (x, y)
    a, b = t
    return a * b


def tuple_result(x, y):
    return x * 2.0, x * y


def keyword_axis(x):
    return np.sum(np.sum(x, axis=1) ** 2)


def elementwise_mix(x, y):
    return np.sum(np.maximum(x, y) * np.abs(x) + np.sqrt(y))


def matmul_matrix_power(a):
    b = a @ a
    return np.mean(b @ a)


def transpose_product(x, y):
    return np.sum(x.T * y)


def scalar_array_mix(s, x):
    z = s * x + s**2
    return np.sum(np.exp(z * 0.1))


def float32_scale(x):
    return x * np.float32(2.0)


def make_closure():
    factor = 3.0

    def scaled_sin(x):
        return factor * np.sin(x)

    return scaled_sin


closure_function = make_closure()


# Sums of elementwise expressions: their cotangents are uniform floats until an array
# multiplies them in (passes/inlining.py), through broadcasting and into parameters.


def sum_of_shifted(x, c):
    return np.sum(x + c)


def sum_of_broadcast_rows(a, b):
    return np.sum(2.0 * (a - b))


def mean_of_negated(x):
    return np.mean(-x) + np.sum(x / 4.0)


def sum_of_outer_sum(u, v):
    return np.sum(u + v) * 3.0


def sum_through_slices(x):
    return np.sum(1.0 - x[1:] + 0.5 * x[:-1])


# Constant indices: each element's first cotangent is stored into the buffer, the next ones
# added (passes/transforms/stores.py), never where two indices may name one element.


def repeated_indices(x):
    return x[0] * x[1] + x[0] * x[2] + x[1]


def indices_from_both_ends(x):
    return x[0] * 2.0 + x[-4] * x[3] + x[-1]


def rows_and_elements(m):
    return np.sum(m[0] * m[1]) + m[0, 1] * 3.0 + m[1, -1] + m[-1, 0]


# Slices `x[a:-b]` with equal `a + b` have one shape whatever `len(x)` (transforms/shapes.py).


def slices_of_equal_length(x):
    return np.sum(x[2:] * x[:-2] + x[1:-1] ** 2 - x[:-2])


def row_slices(m):
    return np.sum(m[1:] * m[:-1]) + np.sum(np.exp(m[1:] - m[:-1]))


def inverse_products(a, b):
    inverse = np.linalg.inv(a)
    return np.sum(inverse @ b) + np.sum(np.linalg.inv(a * 2.0) * a)


rng = np.random.default_rng(0)


def negated_then_accumulated(x, y):
    """The cotangent of `x` starts negated (from `c - x`), more is added to it after other
    statements, and `y`'s gets a negated term: the pullback subtracts instead."""
    a = x * np.sin(y)
    b = np.cos(y) - x
    return a * b


def column_times_wide(x, z):
    """A column of `x` times an array wider than it: the uniform cotangent of the product
    stands for all of it (found by fuzzing: a broadcasting error)."""
    return np.sum(x[:, 0] * z)


def folded_negative_zero(y):
    """`0.0 * -1.0` folds to -0.0, which must be emitted as `-0.0` parses (found by
    fuzzing: an internal error)."""
    return np.sum((0.0 * -1.0 + y) * y)


def positive(*shape):
    return rng.uniform(0.5, 2.0, size=shape)


def normal(*shape):
    return rng.standard_normal(shape)


CASES = [
    (add, (1.3, -0.7)),
    (sub, (1.3, -0.7)),
    (mul, (1.3, -0.7)),
    (div, (1.3, -0.7)),
    (power, (1.3, 0.7)),
    (cube, (-1.2,)),
    (negate, (1.3, 2.0)),
    (polynomial, (0.4,)),
    (math_mix, (1.3, 0.7)),
    (math_tanh, (0.3, 0.9)),
    (np_sin, (normal(4),)),
    (array_over_scalar, (normal(3, 2), 1.7)),
    (array_pow_scalar, (positive(4), 1.7)),
    (broadcast_rows, (normal(3, 4), normal(4))),
    (broadcast_outer, (normal(3, 1), normal(1, 4))),
    (sum_of_product, (normal(5), normal(5))),
    (sum_axis_dot, (normal(3, 4), normal(4))),
    (mean_square, (normal(2, 3),)),
    (centered, (normal(2, 3),)),
    (vector_dot, (normal(4), normal(4))),
    (matrix_vector, (normal(3, 4), normal(4))),
    (matrix_matrix, (normal(2, 3), normal(3, 4))),
    (gram, (normal(3, 2),)),
    (tuple_unpacking, (0.6, -1.1)),
    (swap, (0.6, -1.1)),
    (rebinding, (normal(3),)),
    (shape_use, (normal(4),)),
    (indexing, (normal(5),)),
    (slicing, (normal(6),)),
    (logistic_loss, (normal(3), normal(6, 3), (normal(6) > 0).astype(float))),
    (softplus, (normal(4),)),
    (gaussian, (normal(4),)),
    (tanh_layer, (normal(3, 2), normal(3), normal(2))),
    (unused_argument, (0.5, 2.0)),
    (global_constant, (normal(3),)),
    (pack_then_unpack, (0.5, 2.0)),
    (tuple_result, (0.5, 2.0)),
    (keyword_axis, (normal(2, 3),)),
    (elementwise_mix, (normal(4), positive(4))),
    (matmul_matrix_power, (normal(3, 3),)),
    (transpose_product, (normal(2, 3), normal(3, 2))),
    (scalar_array_mix, (0.7, normal(4))),
    (closure_function, (normal(3),)),
    (sum_of_shifted, (normal(4), 0.3)),
    (sum_of_broadcast_rows, (normal(3, 4), normal(4))),
    (mean_of_negated, (normal(2, 3),)),
    (sum_of_outer_sum, (normal(3, 1), normal(1, 4))),
    (sum_through_slices, (normal(6),)),
    (repeated_indices, (normal(3),)),
    (indices_from_both_ends, (normal(4),)),
    (rows_and_elements, (normal(2, 3),)),
    (slices_of_equal_length, (normal(6),)),
    (row_slices, (normal(4, 3),)),
    (inverse_products, (3.0 * np.eye(3) + 0.3 * normal(3, 3), normal(3))),
    (negated_then_accumulated, (0.7, 1.3)),
    (column_times_wide, (normal(2, 3), normal(3, 1))),
    (folded_negative_zero, (normal(3),)),
]


@pytest.mark.parametrize(("function", "args"), CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient_matches_finite_differences(function, args):
    check_rrule(function, *args, rtol=1e-6, atol=1e-9)


def test_float32_stays_float32():
    x = np.arange(3, dtype=np.float32)
    check_rrule(float32_scale, x, rtol=1e-4, atol=1e-4)
    assert srcad.grad(mean_square)(x).dtype == np.float32


def test_array_over_scalar_gives_scalar_cotangent():
    _, pullback = srcad.rrule(array_over_scalar, normal(3, 2), 1.7)
    _, x_bar, y_bar = pullback(np.ones((3, 2)))
    assert x_bar.shape == (3, 2)
    assert isinstance(y_bar, float)


def test_array_pow_scalar_gives_scalar_cotangent():
    _, pullback = srcad.rrule(array_pow_scalar, positive(4), 1.7)
    _, _, y_bar = pullback(np.ones(4))
    assert isinstance(y_bar, float)


def test_unused_argument_gets_zero_tangent():
    _, pullback = srcad.rrule(unused_argument, 0.5, 2.0)
    assert pullback(1.0) == (srcad.NoTangent(), 2.0, srcad.ZeroTangent())
    assert srcad.grad(unused_argument, wrt=1)(0.5, 2.0) == 0.0


def test_closure_reads_the_live_cell():
    x = normal(3)
    factor_cell = closure_function.__closure__[0]
    np.testing.assert_allclose(srcad.rrule(closure_function, x)[1](np.ones(3))[1], 3 * np.cos(x))
    factor_cell.cell_contents = 5.0
    try:
        _, pullback = srcad.rrule(closure_function, x)
        np.testing.assert_allclose(pullback(np.ones(3))[1], 5 * np.cos(x))
    finally:
        factor_cell.cell_contents = 3.0

"""Functions that pass NumPy's ufuncs and broadcasting functions lists and tuples where they
take arrays (`test_list_operands.py`)."""

import numpy as np


def binary_of_displays(ufunc):
    """`ufunc` of two list displays, each holding `x` and a constant."""

    def of_displays(x):
        return np.sum(ufunc([x, 0.6 * x + 1.1], [1.3, x * x + 0.5]) * np.array([0.7, -1.2]))

    return of_displays


def binary_of_display_and_array(ufunc):
    """`ufunc` of a tuple display and an array, in both orders."""

    def of_display_and_array(x):
        v = np.array([0.4 * x + 1.2, 1.5])
        return np.sum(ufunc((x + 0.9, 1.4), v) - ufunc(v, (1.6, 0.3 * x + 1.0)) ** 2)

    return of_display_and_array


def nested_display_broadcast(x):
    """A (2, 2) nested list times a list of two: the second broadcast along rows."""
    return np.sum(np.multiply([[x, 1.0], [x * x, x]], [x, 3.0]) ** 2)


def mixed_list_of_array_and_list(x):
    """A list holding an array and a list, as a (2, 2) operand."""
    row = np.array([x, 2.0 * x])
    return np.sum(np.divide([row, [1.0, x * x]], [1.5, x + 2.0]) ** 2)


def unary_of_a_list(x):
    return np.sum(np.sin([x, x * x, 0.5]) * np.exp((x, 1.0, -x)))


def power_of_a_tuple(x):
    return np.sum(np.power((x, x + 1.0), [2.0, x]))


def float_power_of_lists(x):
    return np.sum(np.float_power([x, 3.0], [2.0, x]))


def matmul_of_nested_lists(x):
    return np.sum(np.matmul([[x, 2.0], [1.0, x * x]], [1.0, x]) ** 2)


def ufunc_of_a_list_variable(x):
    pair = [x * x, 1.0]
    other = (0.5, x)
    return np.sum(np.arctan2(pair, other) + np.hypot(pair, other) * np.logaddexp(pair, other))


def three_levels_nested(x):
    return np.sum(np.subtract([[[x, 1.0]], [[2.0, x * x]]], [[x], [0.5]]) ** 3)


W = np.array([0.3, -1.1, 0.7, 0.2])


# -- functions linear in their array, and reductions ---------------------------------------
def flip_of_a_list(x):
    return np.sum(np.flip([x * x, 1.0, x]) * W[:3]) ** 2


def cumsum_of_a_list(x):
    return np.sum(np.cumsum([x * x, 1.0, x]) * W[:3]) ** 2


def transpose_of_nested_lists(x):
    return np.sum(np.transpose([[x * x, 1.0], [2.0, x]]) * W.reshape(2, 2)) ** 2


def reshape_of_a_list(x):
    return np.sum(np.reshape([x * x, 1.0, 2.0, x], (2, 2)) * W.reshape(2, 2)) ** 2


def take_and_tile_of_lists(x):
    return np.sum(np.take([x * x, 1.0, x], [2, 0]) * np.tile((x, 1.0), 2)[:2]) ** 2


def real_of_a_list(x):
    return np.sum(np.real([x * x, 1.0]) * W[:2]) ** 2


def fft_of_a_list(x):
    return np.sum(np.real(np.fft.fft([x * x, 1.0, x])) * W[:3]) ** 2


def mean_and_max_of_nested_lists(x):
    rows = [[x, 2.0], [x * x, 1.0]]
    return np.mean(rows, axis=0)[1] ** 2 + np.max(rows, axis=0)[0] ** 2


# -- products of lists ---------------------------------------------------------------------
def outer_of_two_lists(x):
    return np.sum(np.outer([x, 2.0], (1.0, x)) ** 2)


def kron_of_two_lists(x):
    return np.sum(np.kron([x, 1.0], [2.0, x]) ** 2)


def cross_of_two_lists(x):
    return np.sum(np.cross([x, 1.0, 2.0], [1.0, x, x * x]) ** 2)


def dot_of_nested_lists(x):
    return np.sum(np.dot([[x, 2.0], [x * x, 1.0]], (1.0, x)) ** 2)


def tensordot_and_einsum_of_lists(x):
    m = [[x, 2.0], [x * x, 1.0]]
    return np.sum(np.tensordot(m, (1.0, x), 1) ** 2) + np.einsum("ij,j->", m, [1.0, x]) ** 2


# -- functions defined through others (second derivatives from a definition) ---------------
def norm_of_a_list(x):
    return np.linalg.norm([x, 2.0 * x, 1.0])


def var_and_prod_of_lists(x):
    return np.var([x, 2.0 * x * x, 1.0]) + np.prod([x, 2.0 * x, 1.0 + x])


# -- choices and orderings -----------------------------------------------------------------
def where_of_nested_lists(x):
    condition = [[True, False], [False, True]]
    return np.sum(np.where(condition, [[x, x * x], [1.0, x]], [1.0, x]) ** 2)


def clip_of_nested_lists(x):
    return np.sum(np.clip([[x, 2.0 * x], [0.1, x * x]], [0.2, 0.3], 1.0) ** 2)


def abs_and_maximum_of_nested_lists(x):
    return np.sum(
        np.abs([[x, -x * x], [1.0, -x]]) ** 3 + np.maximum([[x, 0.1], [x * x, 2.0]], [0.5, x]) ** 2
    )


def sort_of_a_list(x):
    return np.sum(np.sort([x * x, 1.0, x]) * W[:3]) ** 2


def mod_of_lists(x):
    return np.sum(np.mod([x, 3.0 * x], [1.0, 2.0]) ** 2)


# -- Python's operators on a list and an array (NumPy's operators) -------------------------
def operators_on_a_list_and_an_array(x):
    v = np.array([2.0, 3.0])
    added = [x, x * x] + v  # noqa: RUF005 (NumPy's elementwise `+`, not a concatenation)
    return np.sum(([x, x * x] * v) ** 2 + (v * (x, 1.0)) ** 2 + added**3)


def more_operators_on_a_list_and_an_array(x):
    v = np.array([2.0, 3.0])
    m = np.array([[1.0, 2.0], [3.0, x]])
    return np.sum(
        (v - [x, x * x]) ** 3 + (v / [x, x * x + 1.0]) ** 2 + v ** [x, 1.0] + m @ [x, x * x]
    )


def a_list_read_as_a_list_and_as_an_array(x):
    """The list's cotangent from its elements read one by one and from NumPy, added."""
    v = [x, x * x]
    a = v[0] * 3.0
    for e in v:
        a = a + e * e
    return a + np.sum(np.multiply(v, [2.0, 5.0])) + np.sum(np.sin(v))

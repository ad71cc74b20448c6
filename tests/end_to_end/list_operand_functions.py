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

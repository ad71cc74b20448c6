"""Calls of values known only at run time, three derivatives deep: `map`, `f(*args)`,
`functools.partial` (`test_third_order_calls.py`)."""

import functools

import numpy as np


def weighted(a, b):
    return np.sin(a) * b * b


def three(a, b, c):
    return a * np.cos(b) * c + a * a


class Scaled:
    def __init__(self, k):
        self.k = k

    def __call__(self, a):
        return self.k * a**3

    def twice(self, a, b):
        return self.k * np.exp(a) * b


def map_of_two_lists(x):
    return sum(map(weighted, [x, x * x], [1.0, x]))


def map_of_one_tuple_and_constants(x):
    return sum(map(np.tanh, (x, 0.5, 2.0 * x)))


def map_of_a_partial(x):
    return sum(map(functools.partial(three, x), [x, 1.0], (2.0, x * x)))


def map_of_a_callable_object(x):
    k = Scaled(x + 1.0)
    return sum(map(k, [x, 2.0]))


def map_over_rows_of_an_array(x):
    m = np.array([[x, 1.0], [2.0, x * x]])
    return sum(map(np.sum, map(np.sin, m)))


def map_of_unequal_lengths(x):
    return sum(map(weighted, [x, x * x, 3.0], (x, 2.0)))


def star_of_a_tuple(x):
    args = (x, x * x)
    return weighted(*args)


def star_of_a_list_after_an_argument(x):
    rest = [x * x, 0.5]
    return three(x, *rest)


def star_of_an_array(x):
    v = np.array([x, 2.0 * x, 0.3])
    return three(*v)


def star_into_a_method(x):
    k = Scaled(x)
    pair = (x * x, x)
    return k.twice(*pair)


def partial_of_a_variable(x):
    h = functools.partial(weighted, x)
    return h(x + 1.0) + h(2.0)


def partial_of_constants_and_variables(x):
    h = functools.partial(three, 2.0, x * x)
    return h(x)


def nested_partials(x):
    h = functools.partial(functools.partial(three, x), 0.5)
    return h(x * x)


def partial_called_with_a_star(x):
    h = functools.partial(three, x)
    args = (x, 3.0)
    return h(*args)


def partial_of_a_ufunc(x):
    return functools.partial(np.power, x)(3.0) + functools.partial(np.multiply, 2.0)(x**4)


def star_into_a_ufunc(x):
    pair = (x**3, x * x)
    return np.add(*pair) ** 2


def partials_in_a_star(x):
    h = functools.partial(functools.partial(three, x), x * x)
    return h(*[x]) + sum(map(functools.partial(np.multiply, x), [x, x**3]))


def _rows(x):
    return np.array([[x, 1.0 + x], [x * x, 2.0]])


def options_by_keyword(x):
    product = np.tensordot
    return np.sum(product(_rows(x), _rows(x), axes=1) ** 2)


def options_by_position(x):
    product = np.tensordot
    return np.sum(product(_rows(x), _rows(x), 1) ** 2)


def options_of_a_partial(x):
    product = functools.partial(np.tensordot, axes=1)
    return np.sum(product(_rows(x), _rows(x)) ** 2)


def options_after_a_star(x):
    product = np.tensordot
    operands = (_rows(x), np.array([[x, x**3], [1.0, x]]))
    return np.sum(product(*operands, axes=1) ** 3)

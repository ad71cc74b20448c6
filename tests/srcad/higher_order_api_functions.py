"""Functions `test_higher_order_api.py` composes srcad's transforms on."""

import numpy as np


def sin_cubed(x):
    return np.sin(x) * x**3


def exp_cos(x):
    return np.exp(0.5 * x) * np.cos(x) + x * x


def exp_power(x):
    return np.exp(0.5 * x) * x**2 + x**4 / (1.0 + x * x)


def two_scalars(x, y):
    return np.sin(x * y) + x**3 * y**2


def with_an_array(w, x):
    return np.sum(np.tanh(w * x)) * x


def vector_map(x):
    return np.sin(x) * x[0] + np.exp(x) * x[1]


def matrix_map(m):
    return np.tanh(m @ m) + m[0] * m[1]


def scalar_of_vector(x):
    return np.sum(np.sin(x) * x**2) + x[0] * x[1] ** 3


def of_a_dict(d):
    return d["a"] ** 2 * np.sum(np.sin(d["b"]) ** 2) + d["a"] * d["b"][0]


def of_a_list(xs):
    return xs[0] ** 2 * xs[1] + np.sum(xs[2] ** 3) * xs[1]


def with_an_int_item(xs):
    return xs[0] ** 2 * xs[2] * xs[1]


def cubes(x):
    return np.sum(x**3)


def indexed_scale(w, x):
    return np.sum(np.sin(w) * w[0] * x**3)

"""Functions for test_forward_refusals.py: ints that index and size (issue 20, "an `int`
argument given `NoTangent()` in forward mode"), and functions whose gradients srcad's own
`grad` and `value_and_grad` give, to differentiate in turn."""

import numpy as np


def slice_object(x, n):
    return np.sum(x[slice(0, n)] ** 2)


def slice_of_sum(x, n):
    m = n + 1
    window = slice(1, m, 1)
    return np.sum(np.sin(x[window]) * x[window])


def head(x, n):
    return np.sum(x[:n] ** 2)


def loop_to(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] * x[i + 1]
    return s


def picked(x, n):
    return x[n] * np.cos(x[0])


def reshaped(x, n):
    return np.sum(np.reshape(x, (n, -1)) ** 3)


def sized(x, n):
    return np.sum(np.ones(n) * x[0] ** 2) + np.sum(x[slice(n)])


def scalar_curve(x):
    return np.sin(x) * x**3


def vector_objective(x):
    return np.sum(np.sin(x) * x**2) + x[0] * x[1] ** 2


def two_argument(x, y):
    return np.sum(np.sin(x) * y**2) + np.dot(x, y) ** 2


def with_int(x, n):
    return np.sum(x[slice(0, n)] ** 3) * x[n]


def calls_with_ints(x):
    """Each helper above called with an int: a helper is compiled for any arguments, so at
    second order its int parameter is differentiated, and so is `slice(0, n)` of it."""
    return (
        slice_object(x, 2) + slice_of_sum(x, 3) + head(x, 4) * loop_to(x, 3) + picked(x, 1)
        + reshaped(x, 2) + sized(x, 3) + with_int(x, 2)
    )  # fmt: skip

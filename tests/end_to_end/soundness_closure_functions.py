"""Nested functions and lambdas reading the enclosing function's variables in every way
Python allows (an attribute, a method call, a subscript, a comprehension, a nested-nested
function, a default argument): `test_soundness_closure_attributes.py` checks that each read
carries its derivative."""

import numpy as np


def attribute_of_captured(x, y):
    def g(s):
        return x.T

    a = g(y)
    return np.mean(a)


def attribute_of_captured_times_parameter(x, y):
    def g(s):
        return x.T * s

    return np.sum(g(y) ** 2)


def lambda_reads_attribute(x, y):
    g = lambda s: x.T  # noqa: E731
    return np.sum(np.sin(g(y)))


def no_parameters_reads_attribute(x, y):
    def g():
        return x.T

    return np.sum(g() * y)


def real_part_of_captured(x, y):
    def g(s):
        return x.T.real * s

    return np.sum(g(y) ** 2)


def method_of_captured(x, y):
    def g(s):
        return x.sum() * s

    return np.sum(g(y) ** 2)


def method_with_axis_of_captured(x, y):
    def g(s):
        return x.sum(axis=1) + s

    return np.sum(np.cos(g(y)))


def shape_then_value_of_captured(x, y):
    def g(s):
        return np.reshape(x, x.shape).T * x.shape[0] * s

    return np.sum(g(y))


def subscript_of_captured(x, y):
    def g(s):
        return x[:, 0] * s

    return np.sum(g(y) ** 2)


def comprehension_over_captured(x, y):
    def g(s):
        return sum([v * s for v in x.T])

    return np.sum(g(y) ** 2)


def comprehension_reads_captured(x, y):
    def g(s):
        return [s * x.T for _ in range(2)]

    parts = g(y)
    return np.sum(parts[0] + parts[1] ** 2)


def nested_nested_reads_attribute(x, y):
    def g(s):
        def h(t):
            return x.T * t

        return h(s) + s

    return np.sum(g(y) ** 2)


def nested_nested_reads_middle_local(x, y):
    def g(s):
        z = x.T * 2.0

        def h(t):
            return z * t

        return h(s)

    return np.sum(np.sin(g(y)))


def default_argument_reads_attribute(x, y):
    def g(s, w=x.T):
        return w * s

    return np.sum(g(y) ** 2)


def captured_attribute_in_loop(x, y):
    total = 0.0
    for k in range(3):

        def g(s):
            return x.T * s + k  # noqa: B023 (called in the iteration defining it)

        total = total + np.sum(g(y))
    return total


def scalar_captured(x, y):
    def g(s):
        return x.real * s + x.imag

    return g(y) ** 2


def default_reads_only_constants(x, y):
    n = 2

    def g(s, p=n):
        return x.T * s**p

    return np.sum(g(y))


def three_deep_reads_attribute(x, y):
    def g(s):
        def h(t):
            def k(u):
                return x.T * u

            return k(t) * t

        return h(s)

    return np.sum(g(y))


def scalar_lambda_reads_attribute(x, y):
    g = lambda s: x.real * s + x.imag  # noqa: E731
    return np.sin(g(y))


def scalar_nested_nested(x, y):
    def g(s):
        def h():
            return x.real * s

        return h() + x.real

    return g(y) * x


def comprehension_variable_shadows_captured(x, y):
    def g(s):
        return sum([x * s for x in y]) + x.sum()

    return np.sum(g(2.0) * x)


def inner_parameter_shadows_captured(x, y):
    def g(s):
        def h(x):
            return x * s

        return h(s) + x.T.sum()

    return np.sum(g(y) ** 2)

"""Nested functions and lambdas that read differentiated values, passed as values to
functions that call them (issue 20, "closures passed as values"), and their neighbours that
stay refused. Read by `test_closure_values.py`."""

import functools
import itertools

import numpy as np


def apply(fn, v):
    return fn(v)


def apply_twice(fn, v):
    return fn(fn(v))


# -- passed with what they read (`passes/transforms/closure_values.py`) ------------------------


def mapped_with_a_captured_weight(x, y):
    w = x[0, 0]
    return sum(map(lambda v: v * w, [y[0], y[1], x[1, 2]]))


def mapped_reading_a_parameter(x, y):
    return sum(map(lambda v: v * x[0, 0] + np.sin(v), [y[0], y[1]])) + np.cos(y[0])


def reduced_with_a_captured_weight(x, y):
    w = y[1]
    return functools.reduce(lambda a, b: a + w * b * b, [x[0, 0], x[1, 1], y[0]], 0.5)


def accumulated_with_a_captured_sum(x, y):
    w = np.sum(x[1])
    steps = list(itertools.accumulate([y[0], y[1], x[0, 2]], lambda a, b: a * b + w))
    return steps[-1] * steps[1]


def helper_called_with_a_nested_function(x, y):
    w = x[0, 1]

    def f(v):
        return np.sin(v * w) + w * y[1]

    return apply(f, y[0]) * apply_twice(f, y[1]) + f(x[1, 1])


def array_captured_by_a_mapped_function(x, y):
    rows = x * y[0]

    def weighted(v):
        return np.sum(rows[1] * v) + np.sum(rows[0] ** 2)

    return sum(map(weighted, [x[0], x[1] * y[1]]))


# -- ordered by a key that reads a differentiated value (the key takes no derivative) -------


def sorted_by_distance_to_a_value(x, y):
    c = y[0]
    ordered = sorted([x[0, 0], x[0, 1], x[1, 2]], key=lambda v: (v - c) ** 2)
    return ordered[0] * c + ordered[2] ** 2


def nearest_by_min(x, y):
    c = x[1, 0]
    return min([y[0], y[1], x[0, 2]], key=lambda v: abs(v - c)) * c


def nearest_by_max_in_a_loop(x, y):
    total = 0.0
    for c in [y[0], y[1]]:
        total = total + max([x[0, 0], x[0, 1], x[0, 2]], key=lambda v: -((v - c) ** 2)) * c
    return total


PASSED = [
    mapped_with_a_captured_weight,
    mapped_reading_a_parameter,
    reduced_with_a_captured_weight,
    accumulated_with_a_captured_sum,
    helper_called_with_a_nested_function,
    array_captured_by_a_mapped_function,
    sorted_by_distance_to_a_value,
    nearest_by_min,
    nearest_by_max_in_a_loop,
]

# -- refused: srcad cannot follow where the function goes, or what it reads changes ----------


def stored_in_a_list(x, y):
    w = x[0, 0]
    functions = [lambda v: v * w]
    return apply(functions[0], y[0])


def read_again_after_a_rebinding(x, y):
    w = x[0, 0]
    scaled = lambda v: v * w  # noqa: E731
    w = x[0, 1]
    return sum(map(scaled, [y[0], y[1]]))


def captured_from_a_loop(x, y):
    total = 0.0
    for w in [x[0, 0], x[0, 1]]:
        total = total + sum(map(lambda v: v * w, [y[0], y[1]]))
    return total


def also_read_by_another_nested_function(x, y):
    w = x[0, 0]

    def f(v):
        return v * w

    def g(v):
        return f(v) + 1.0

    return sum(map(f, [y[0], y[1]])) + g(y[0])


def returned(x, y):
    w = x[0, 0]
    return apply(lambda v: v * w, y[0]), lambda v: v * w

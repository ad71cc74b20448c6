"""Functions calling `dict(a=x)`, `sorted` and `reversed` on lists of floats, lambdas used as
values and `functools.partial` (issue 20). Read by `test_call_values.py`."""

import functools

import numpy as np


def dict_of_keywords(x, y):
    d = dict(a=x * 2.0, b=np.sin(x))
    return np.sum(d["a"] * d["b"]) + y[0]


def dict_then_written(x, y):
    d = dict()
    d["a"] = x * y[1]
    e = dict(b=y[0], c=np.sum(x))
    return np.sum(d["a"]) * e["b"] + e["c"]


def sorted_floats(x, y):
    ys = sorted([x[0, 0] * 2.0, y[0], x[1, 2], y[1] * x[0, 1]])
    return ys[0] * 3.0 + ys[3] ** 2 + ys[1] * ys[2]


def sorted_reversed_with_a_key(x, y):
    ys = sorted([x[0, 0] - 0.4, y[1] - 0.1, -x[1, 2]], key=abs, reverse=True)
    return ys[0] * 3.0 + ys[2] ** 2 + ys[1]


def sorted_array(x, y):
    ys = sorted(x[1] * y[0])
    return ys[0] * 3.0 + ys[2] ** 2


def reversed_list(x, y):
    ys = list(reversed([x[0, 0] * 2.0, y[1], np.sin(x[1, 1])]))
    return ys[0] * 3.0 + ys[2] * ys[1]


def loop_over_reversed(x, y):
    total = y[0]
    for v in reversed([x[0, 1], y[1] * 2.0, np.sin(x[1, 0])]):
        total = total * 0.5 + v * v
    return total


def sorted_by_a_lambda(x, y):
    ys = sorted([x[0, 0], y[0] * 2.0, x[1, 2] - 1.0], key=lambda v: -v)
    return ys[0] * 3.0 + ys[2] * ys[1]


def mapped_by_a_lambda(x, y):
    ys = list(map(np.sin, [x[0, 1], y[1]]))
    return sum(map(lambda v: v * v, ys)) + y[0]


def two_lambdas_on_one_line(x, y):
    f, g = (lambda v: v * 2.0), (lambda v: np.sin(v))
    return np.sum(f(x) * g(x)) * y[0]


def two_lambdas_in_one_call(x, y):
    return np.sum(compose(lambda v: v * 2.0, lambda v: np.cos(v), x)) * y[0]


def compose(f, g, v):
    return f(g(v))


def lambda_called_at_once(x, y):
    return np.sum((lambda t: t * t)(x)) + y[1]


def lambda_passed_on_reads_x(x, y):
    return sum(map(lambda v: v * x[0, 0], [y[0], y[1]]))


def power(v, p):
    return v**p


def partial_with_a_keyword(x, y):
    square = functools.partial(power, p=2.0)
    return np.sum(square(x)) * y[0]


def partial_binding_a_differentiated_value(x, y):
    scaled = functools.partial(np.multiply, y[0] * 2.0)
    return np.sum(scaled(x))


def partial_of_a_partial(x, y):
    f = functools.partial(functools.partial(power, x[1, 1]), y[0] + 2.0)
    return f() * y[1]


def partial_binding_a_differentiated_keyword(x, y):
    p = functools.partial(power, p=y[0])
    return np.sum(p(x))


def mapped_by_a_partial_of_a_differentiated_value(x, y):
    # `map` gives the function its own cotangent: here, the bound x[0, 1]'s.
    return sum(map(functools.partial(power_of, x[0, 1]), [y[0], y[1], 2.0]))


def power_of(base, p):
    return base**p + p * base


def mapped_over_two_lists_by_a_partial(x, y):
    scaled = functools.partial(np.multiply, y[0] * 2.0)
    return sum(map(functools.partial(np.add, x[1, 2]), list(map(scaled, [x[0, 0], y[1]]))))


CALLS = [
    dict_of_keywords,
    dict_then_written,
    sorted_floats,
    sorted_reversed_with_a_key,
    sorted_array,
    reversed_list,
    loop_over_reversed,
    sorted_by_a_lambda,
    mapped_by_a_lambda,
    two_lambdas_on_one_line,
    two_lambdas_in_one_call,
    lambda_called_at_once,
    partial_with_a_keyword,
    partial_binding_a_differentiated_value,
    partial_of_a_partial,
    mapped_by_a_partial_of_a_differentiated_value,
    mapped_over_two_lists_by_a_partial,
]
# Every one is twice differentiable: dicts, lambdas called as values, partials and `map`
# have reverse rules of their forward rules (`rules/second_order_calls.py`).
SECOND_ORDER = CALLS

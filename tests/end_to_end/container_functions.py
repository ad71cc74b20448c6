"""Functions building, unpacking and indexing tuples, lists and dicts."""

import numpy as np


def squares(xs):
    return sum([x * x for x in xs])


def generator_sum(xs, w):
    return sum(w * x for x in xs if x > 0)


def build_list(x):
    out = []
    for i in range(4):
        out.append(x * i)
    return out[1] + out[3] * out[2]


def dict_use(x, y):
    d = {"a": x * 2.0, "b": y}
    return d["a"] * d["b"]


def list_display(x, y):
    items = [x, y, x * y]
    a, b, c = items
    return a + b * c + items[2]


def stack_rows(xs):
    rows = []
    for x in xs:
        rows.append(np.sin(x))
    return np.sum(np.array(rows) ** 2)


def nested_comprehension(m):
    return sum([sum([v * v for v in row]) for row in m])


def comprehension_variable_shadows(x, xs):
    total = sum([x * 2.0 for x in xs])
    return total * x


def two_generators(xs, ys):
    return sum([x * y for x in xs for y in ys if y > x])


def returns_list(x):
    values = [x, x * x]
    values.append(x * 3.0)
    return values


def tuple_of_results(x, y):
    pair = (x * y, x + y)
    return pair[0] * pair[1]


def sum_with_start(xs, s):
    return sum([x * x for x in xs], s)


def over_dict(x, y):
    d = {"a": x, "b": y * 2.0}
    s = 0.0
    for k in d:
        s = s + d[k] * d[k]
    return s

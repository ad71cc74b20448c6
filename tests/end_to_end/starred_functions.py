"""Functions that assign to starred targets (`first, *rest = xs`), for
`test_starred_targets.py`: each takes a float vector (or a matrix), or a list or tuple."""

import numpy as np


def first_and_rest(x):
    a, *rest = list(x)
    return a * sum(rest)


def init_and_last(x):
    *init, last = tuple(x)
    return np.sin(last) * sum(init)


def first_middle_last(x):
    first, *middle, last = x  # of an array: `middle` is a list of its items
    return first * last + sum([m * m for m in middle])


def nested_target(x):
    (a, *b), c = (x[0], x[1], x[2]), x[3]
    return a * c + b[0] * b[1] ** 2


def several_after(x):
    a, *b, c, d = x
    return a * np.cos(c) + d * b[-1] + c * d


def only_starred(x):
    (*items,) = x
    return items[0] * items[1] * items[2]


def empty_star(x):
    a, *rest, b = x[:2]
    return np.exp(a) * b + len(rest)


def star_of_a_call(x):
    *parts, last = np.split(x, 2)
    return np.sum(parts[0] * last) + np.sum(np.tanh(parts[0]))


def star_of_qr(x):
    m = np.reshape(x, (2, 2)) + np.eye(2) * 3.0
    q, *_ = np.linalg.qr(m)
    return np.sum(q[:, 0] * x[:2]) + np.sum(q * m)


def star_in_loop(x):
    total = 0.0
    for head, *tail in np.reshape(x, (2, 2)):
        total = total + head * np.sin(tail[0])
    return total


def star_in_comprehension(x):
    rows = np.reshape(x, (2, 2))
    return sum([h * h * np.sum(t) for h, *t in rows])


def star_twice(x):
    a, *b = x
    c, *d = b
    return a * c * np.sum(np.array(d))


def star_in_enumerate(x):
    total = 0.0
    for i, (h, *t) in enumerate(np.reshape(x, (2, 2))):
        total = total + (i + 1) * h * t[0] ** 2
    return total


def consumed_by_a_while_loop(x):
    rest = list(x)
    total = 0.0
    while rest:
        a, *rest = rest
        total = total * a + a
    return total


ARRAY_FUNCTIONS = [
    first_and_rest,
    init_and_last,
    first_middle_last,
    nested_target,
    several_after,
    only_starred,
    empty_star,
    star_of_a_call,
    star_of_qr,
    star_in_loop,
    star_in_comprehension,
    star_twice,
    star_in_enumerate,
    consumed_by_a_while_loop,
]


def star_of_list(xs):
    a, *rest = xs
    return a * sum(rest)


def star_of_tuple(t):
    first, *middle, last = t
    return first * last**2 + np.sin(middle[0])


def star_over_rows(rows):
    total = 0.0
    for head, *tail in rows:
        total = total + head * tail[-1] + np.sum(np.array(tail)) ** 2
    return total


CONTAINER_CASES = [
    (star_of_list, [1.0, 2.0, 3.0]),
    (star_of_tuple, (0.5, -1.2, 0.7, 2.0)),
    (star_over_rows, [(0.3, 0.5, -0.2), (1.1, -0.4, 0.6)]),
]


def scalar_items(x):
    a, *b = (x, x * x, np.sin(x))
    return a * b[0] * b[1]

"""Functions for test_sequence_operators.py: lists and tuples joined with `+` and repeated with
`*` (issue 17: reverse mode gave each operand the whole joined cotangent, a crash or, through
slices, a wrong gradient; forward mode gave `[2.0] + [x]` the tangent of `[x]` alone)."""

# ruff: noqa: RUF005 (the concatenations are what is tested)

import numpy as np


def concat_constant_left(x):
    lst = [2.0] + [x[0], x[1]]
    return lst[0] * lst[1] + lst[2] ** 2


def concat_constant_right(x):
    t = (x[0],) + (3.0, x[1])
    return t[0] * t[1] * t[2]


def concat_empty(x):
    lst = [] + [x[0]] + []
    return lst[0] ** 3


def repeat_left_int(x):
    lst = 3 * [x[0]]
    return lst[0] * lst[1] + lst[2]


def repeat_numpy_int(x):
    n = np.int64(2)
    lst = [x[0], x[1]] * n
    return lst[0] * lst[3] + lst[2]


def grow_list_in_loop(x):
    xs = []
    for i in range(3):
        xs = xs + [x[i] * x[0]]
    return sum(xs) ** 2


def grow_tuple_in_loop(x):
    t = ()
    for i in range(3):
        t = t + (np.sin(x[i]),)
    return t[0] * t[2] + t[1]


def concat_arrays(x):
    parts = [x * 2.0] + [np.sin(x)]
    return np.sum(parts[0] * parts[1])


def slices_of_lists(x):
    lst = [x[0], x[1], x[2]]
    head, tail = lst[:1], lst[1:]
    joined = tail + head
    return joined[0] * 2.0 + joined[2] * joined[1] + sum(lst[::-1][0:2])


def reversed_and_tuple(x):
    lst = [x[0], x[1] ** 2, x[2]]
    back = list(reversed(lst))
    t = tuple(back) + (x[0],)
    return t[0] * t[3] + t[1]


def nested_lists(x):
    rows = [[x[0], x[1]]] + [[x[2], 1.0]]
    return rows[0][1] * rows[1][0] + rows[1][1] * rows[0][0]


def sum_with_start(x):
    lst = [x[0], x[1]] + [x[2] * 2.0]
    return sum(lst, 1.0) * lst[-1]


def constant_joined_in_forward(x):
    lst = [2.0] + [x]
    return lst[0] * 3.0 + x


def constants_then_value(x):
    t = (2.0, 5.0) + (x,)
    return t[1] * t[0] + t[2] * 0.5


def repeated_constants_then_value(x):
    lst = [2.0] * 2 + [x]
    return lst[0] + lst[2] * 4.0


def grow_with_star(x):
    """The form ruff suggests instead: a list display that unpacks the old list."""
    xs = []
    for i in range(3):
        xs = [*xs, x[i] * x[-1]]
    return xs[0] * xs[1] + xs[2]


def tuple_unpacking_an_array(x):
    t = (*x, 1.0)
    return t[0] * t[3] + t[1] * t[2]


def list_unpacking_twice(x):
    rest = [x[1], x[2]]
    lst = [x[0] * 2.0, *rest, *rest]
    return lst[0] * lst[3] + lst[1] * lst[4]


def tuple_unpacking_tuples(x):
    t = (x[0],)
    u = (*t, *t, x[1])
    return u[0] * u[1] * u[2]

"""Functions for `test_grown_lists.py`: lists grown by appends (and comprehensions), some
that the reverse rule may grow in place (nothing reads them before their last append) and
some that it must copy (read, kept or passed on between appends). Compiled from this
file's source."""

import numpy as np


def appended_then_array(x):
    out = []
    y = x
    for _ in range(30):
        y = y * 0.9 + 0.1 * y * y
        out.append(y)
    return np.sum(np.array(out) ** 2)


def comprehension_then_sum(x):
    xs = [x * i for i in range(12)]
    return sum(v * v for v in xs)


def display_then_appends(x):
    xs = [x, 2.0 * x]
    for k in range(5):
        xs.append(xs_last(x, k))
    return np.sum(np.array(xs) * np.arange(7.0))


def xs_last(x, k):
    return np.sin(x * k)


def list_per_iteration(x):
    total = 0.0
    for j in range(4):
        row = []
        for i in range(3):
            row.append(x * i + j)
        total = total + sum(row) * x
    return total


def returned_list(x):
    out = []
    for k in range(4):
        out.append(x**k)
    return out


def list_of_arrays(x):
    rows = []
    for k in range(3):
        rows.append(np.sin(x * (k + 1)))
    return np.sum(np.stack(rows) ** 2)


def only_its_length_read(x):
    out = []
    for k in range(5):
        out.append(x * k)
    return x * len(out)


def copied_then_indexed(x):
    out = []
    for k in range(6):
        out.append(np.cos(x * k))
    ys = out
    return ys[3] * ys[-1] + ys[0]


def two_loops_then_read(x):
    out = []
    for k in range(3):
        out.append(x * k)
    for k in range(2):
        out.append(x * x * k)
    return np.prod(np.array(out) + 1.0)


def in_a_while_loop(x):
    out = []
    y = x
    while len(out) < 6:
        y = y * 1.1
        out.append(y)
    return np.mean(np.array(out))


# -- read between appends: the list must be copied --------------------------------------


def indexed_in_the_loop(x):
    thetas = [x]
    for _ in range(8):
        thetas.append(thetas[-1] + 0.1 * np.sin(thetas[-1]))
    return np.sum(np.array(thetas))


def array_of_it_in_the_loop(x):
    out = [x]
    total = 0.0
    for k in range(4):
        total = total + np.sum(np.array(out)) * x
        out.append(x * k)
    return total + sum(out)


def passed_to_a_helper_in_the_loop(x):
    out = [x]
    total = 0.0
    for k in range(4):
        total = total + helper_sum(out)
        out.append(x * x * k)
    return total + sum(out)


def helper_sum(items):
    return sum(items) * 2.0


def kept_in_a_tuple(x):
    out = [x]
    pair = (out, 1.0)
    out.append(2.0 * x)
    return sum(pair[0]) * pair[1] + out[0]


def summed_then_appended_again(x):
    out = []
    for k in range(3):
        out.append(x * k)
    s = sum(out)
    out.append(s * x)
    return s + np.sum(np.array(out))


def appended_to_itself_in_a_loop(x):
    out = [x]
    total = 0.0
    for k in range(3):
        out.append(out[k] * x)
        total = total + sum(out)
    return total


# -- lists of float64 scalars and of mixed floats, read whole ----------------------------


def array_of_float64s(x):
    values = [np.exp(-x * k) for k in range(8)]
    return np.sum(np.array(values) * np.arange(8.0))


def sum_of_float64s(x):
    return sum([np.sin(x * k) for k in range(6)])


def array_of_mixed_floats(x):
    values = [x, np.sin(x), 2.0 * x, np.float64(0.5) * x]
    return np.sum(np.array(values) ** 2)


# -- the kind of a list of numbers the function made (`kinds.list_of`) -------------------


def iterated_in_a_helper(x):
    values = [x * k for k in range(5)]
    return weighted(values, x)


def weighted(items, w):
    total = 0.0
    for v in items:
        total = total + v * v * w
    return total


def ints_and_floats(x):
    values = [k for k in range(4)]
    values.append(x)
    total = 0.0
    for v in values:
        total = total + v * x
    return total


def reversed_in_place(x):
    values = [x * k for k in range(4)]
    values.reverse()
    return values[0] * x + values[1]


def extended_with_ints(x):
    values = [x * k for k in range(3)]
    values.extend([2, 3])
    total = 0.0
    for v in values:
        total = total + v * x
    return total


def sorted_through_a_copy(x):
    values = [np.sin(x * k) for k in range(4)]
    alias = values
    alias.sort()
    return values[0] * x + values[3]


def indexed_by_an_int(x):
    values = [x, x * x]
    for k in range(3):
        values.append(values[k] * x + 1.0)
    return values[4] * values[2]


def array_of_float32s(x):
    values = [x * np.float32(k + 1) for k in range(4)]
    return np.sum(np.array(values) ** 2)


def constants_appended(x):
    out = [x, x * x]
    for k in range(3):
        out.append(1.0 * k)
    return np.sum(np.array(out) ** 2)


def made_in_the_first_iteration_only(x):
    total = 0.0
    for k in range(4):
        if k == 0:
            out = []
        out.append(x * (k + 1))
        total = total + sum(out) * x
    return total


def made_in_each_iteration_read_in_a_nested_loop(x):
    total = 0.0
    for j in range(3):
        row = []
        for i in range(3):
            row.append(x * i + j)
            total = total + sum(row)
    return total


def made_in_each_iteration_of_a_nested_loop(x):
    total = 0.0
    for j in range(2):
        for i in range(3):
            row = [x]
            row.append(x * i + j)
            total = total + sum(row) * x
    return total

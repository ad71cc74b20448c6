"""Functions for `test_soundness_list_append.py`: a list read whole (by `sum`, `len`,
`np.array`, `list`, a `for` loop, indexing) and then appended to, in straight-line code
and in loops. Compiled from this file's source."""

import numpy as np


def sum_then_append(x):
    lst = [1.0, x]
    lst.append(sum(lst))
    return lst[2]


def fuzz_4650(x):
    lst9 = [1.88]
    lst9.append(np.prod(x))
    lst9.append(sum(lst9))
    return lst9[2]


def sum_then_append_array(x):
    lst = [x, 2.0 * x]
    lst.append(sum(lst))
    lst.append(np.sin(lst[-1]))
    return np.sum(lst[2] * lst[3]) + np.sum(lst[0])


def len_then_append(x):
    lst = [x, x * x]
    n = len(lst)
    lst.append(x * n)
    return lst[2] + lst[1] * len(lst)


def array_then_append(x):
    lst = [x, 3.0 * x]
    a = np.array(lst)
    lst.append(np.sum(a * a))
    b = np.array(lst)
    return np.sum(b * np.arange(3.0)) + a[1]


def copy_then_append(x):
    lst = [x, np.cos(x)]
    b = list(lst)
    lst.append(x * x)
    lst.append(sum(b))
    return lst[2] * lst[3] + b[1]


def tuple_then_append(x):
    lst = [x]
    t = tuple(lst)
    lst.append(t[0] * x)
    return lst[1] + t[0]


def iterate_then_append(x):
    lst = [x, 2.0 * x]
    total = 0.0
    for v in lst:
        total = total + v * v
    lst.append(total)
    return lst[2] * lst[0]


def index_then_append_in_loop(x):
    lst = [x]
    for _ in range(3):
        lst.append(lst[-1] * x)
    return lst[-1] + lst[1]


def sum_then_append_in_loop(x):
    lst = [x, 1.0]
    for _ in range(3):
        lst.append(sum(lst))
    return lst[-1]


def mixed_reads_in_loop(x):
    lst = [np.sin(x)]
    for i in range(4):
        if i % 2 == 0:
            lst.append(sum(lst) * x)
        else:
            lst.append(np.sum(np.array(lst)) / len(lst))
    return lst[-1] + lst[2]


def append_in_while(x):
    lst = [x]
    while len(lst) < 4:
        lst.append(sum(lst) * x)
    return lst[3]


def max_then_append(x):
    lst = [x, 2.0 - x]
    lst.append(max(lst) * x)
    lst.append(min(lst))
    return lst[2] + lst[3]


def return_list_after_reads(x):
    lst = [x]
    lst.append(sum(lst) * x)
    lst.append(sum(lst) * x)
    return np.array(lst)


def append_while_iterating(x):
    lst = [x, 2.0 * x]
    for v in lst:
        if len(lst) < 5:
            lst.append(v * x)  # grows the list the loop walks
    return lst[-1]


def append_while_enumerating(x):
    lst = [x]
    for i, v in enumerate(lst):
        if i < 3:
            lst.append(v * x)  # grows the list the loop walks
    return lst[-1]


def append_while_zipping(x):
    lst = [x]
    other = [1.0, 2.0, 3.0]
    for v, w in zip(lst, other):
        lst.append(v * w * x)  # grows the list the loop walks
    return lst[-1]


def append_in_nested_loop_over_list(x):
    lst = [x]
    for _ in range(2):
        for v in lst:
            if len(lst) < 6:
                lst.append(v + x)  # grows the list the loop walks
    return lst[-1]


def append_while_iterating_a_copy(x):
    lst = [x, 2.0 * x]
    for v in list(lst):
        lst.append(v * x)
    return lst[-1] + lst[2]


def append_while_iterating_a_range_of_len(x):
    lst = [x, 0.5]
    for i in range(len(lst)):
        lst.append(lst[i] * x)
    return lst[-1] * lst[-2]


def append_after_iterating(x):
    lst = [x, 3.0]
    for v in lst:
        x = x * v
    lst.append(x)
    return lst[-1]

# ruff: noqa: RUF015, UP034 (written as a user writes them, not as a linter would)
"""Iterators and what consumes them: every producer of an iterable (`reversed`, `iter`,
`map`, a generator expression, `zip`, `enumerate`, `filter`) under every consumer (`sum`,
`max`, `min`, `sorted`, `list`, `tuple`, `np.array`, a `for` loop, `math.fsum`), for
`test_iterators.py`. Written out, not generated: srcad reads their source."""

import math

import numpy as np

FUNCTIONS = []


def sum_of_reversed(x):
    return sum(reversed(x))


FUNCTIONS.append(sum_of_reversed)


def sum_start_of_reversed(x):
    return sum(reversed(x), 1.5)


FUNCTIONS.append(sum_start_of_reversed)


def max_of_reversed(x):
    return max(reversed(x))


FUNCTIONS.append(max_of_reversed)


def min_of_reversed(x):
    return min(reversed(x))


FUNCTIONS.append(min_of_reversed)


def max_key_of_reversed(x):
    return max(reversed(x), key=lambda v: -v)


FUNCTIONS.append(max_key_of_reversed)


def sorted_of_reversed(x):
    return sorted(reversed(x))[0] * 2.0


FUNCTIONS.append(sorted_of_reversed)


def list_of_reversed(x):
    return list(reversed(x))[-1] * 3.0


FUNCTIONS.append(list_of_reversed)


def tuple_of_reversed(x):
    return tuple(reversed(x))[0] * 3.0


FUNCTIONS.append(tuple_of_reversed)


def array_of_reversed(x):
    return np.sum(np.array(list(reversed(x))) ** 2)


FUNCTIONS.append(array_of_reversed)


def for_of_reversed(x):
    s = 0.0
    for v in reversed(x):
        s = s + v * v
    return s


FUNCTIONS.append(for_of_reversed)


def fsum_of_reversed(x):
    return math.fsum(reversed(x))


FUNCTIONS.append(fsum_of_reversed)


def sum_of_iter(x):
    return sum(iter(x))


FUNCTIONS.append(sum_of_iter)


def sum_start_of_iter(x):
    return sum(iter(x), 1.5)


FUNCTIONS.append(sum_start_of_iter)


def max_of_iter(x):
    return max(iter(x))


FUNCTIONS.append(max_of_iter)


def min_of_iter(x):
    return min(iter(x))


FUNCTIONS.append(min_of_iter)


def max_key_of_iter(x):
    return max(iter(x), key=lambda v: -v)


FUNCTIONS.append(max_key_of_iter)


def sorted_of_iter(x):
    return sorted(iter(x))[0] * 2.0


FUNCTIONS.append(sorted_of_iter)


def list_of_iter(x):
    return list(iter(x))[-1] * 3.0


FUNCTIONS.append(list_of_iter)


def tuple_of_iter(x):
    return tuple(iter(x))[0] * 3.0


FUNCTIONS.append(tuple_of_iter)


def array_of_iter(x):
    return np.sum(np.array(list(iter(x))) ** 2)


FUNCTIONS.append(array_of_iter)


def for_of_iter(x):
    s = 0.0
    for v in iter(x):
        s = s + v * v
    return s


FUNCTIONS.append(for_of_iter)


def fsum_of_iter(x):
    return math.fsum(iter(x))


FUNCTIONS.append(fsum_of_iter)


def sum_of_map(x):
    return sum(map(np.sin, x))


FUNCTIONS.append(sum_of_map)


def sum_start_of_map(x):
    return sum(map(np.sin, x), 1.5)


FUNCTIONS.append(sum_start_of_map)


def max_of_map(x):
    return max(map(np.sin, x))


FUNCTIONS.append(max_of_map)


def min_of_map(x):
    return min(map(np.sin, x))


FUNCTIONS.append(min_of_map)


def max_key_of_map(x):
    return max(map(np.sin, x), key=lambda v: -v)


FUNCTIONS.append(max_key_of_map)


def sorted_of_map(x):
    return sorted(map(np.sin, x))[0] * 2.0


FUNCTIONS.append(sorted_of_map)


def list_of_map(x):
    return list(map(np.sin, x))[-1] * 3.0


FUNCTIONS.append(list_of_map)


def tuple_of_map(x):
    return tuple(map(np.sin, x))[0] * 3.0


FUNCTIONS.append(tuple_of_map)


def array_of_map(x):
    return np.sum(np.array(list(map(np.sin, x))) ** 2)


FUNCTIONS.append(array_of_map)


def for_of_map(x):
    s = 0.0
    for v in map(np.sin, x):
        s = s + v * v
    return s


FUNCTIONS.append(for_of_map)


def fsum_of_map(x):
    return math.fsum(map(np.sin, x))


FUNCTIONS.append(fsum_of_map)


def sum_of_map_lambda(x):
    return sum(map(lambda v: v * v, x))


FUNCTIONS.append(sum_of_map_lambda)


def sum_start_of_map_lambda(x):
    return sum(map(lambda v: v * v, x), 1.5)


FUNCTIONS.append(sum_start_of_map_lambda)


def max_of_map_lambda(x):
    return max(map(lambda v: v * v, x))


FUNCTIONS.append(max_of_map_lambda)


def min_of_map_lambda(x):
    return min(map(lambda v: v * v, x))


FUNCTIONS.append(min_of_map_lambda)


def max_key_of_map_lambda(x):
    return max(map(lambda v: v * v, x), key=lambda v: -v)


FUNCTIONS.append(max_key_of_map_lambda)


def sorted_of_map_lambda(x):
    return sorted(map(lambda v: v * v, x))[0] * 2.0


FUNCTIONS.append(sorted_of_map_lambda)


def list_of_map_lambda(x):
    return list(map(lambda v: v * v, x))[-1] * 3.0


FUNCTIONS.append(list_of_map_lambda)


def tuple_of_map_lambda(x):
    return tuple(map(lambda v: v * v, x))[0] * 3.0


FUNCTIONS.append(tuple_of_map_lambda)


def array_of_map_lambda(x):
    return np.sum(np.array(list(map(lambda v: v * v, x))) ** 2)


FUNCTIONS.append(array_of_map_lambda)


def for_of_map_lambda(x):
    s = 0.0
    for v in map(lambda v: v * v, x):
        s = s + v * v
    return s


FUNCTIONS.append(for_of_map_lambda)


def fsum_of_map_lambda(x):
    return math.fsum(map(lambda v: v * v, x))


FUNCTIONS.append(fsum_of_map_lambda)


def sum_of_genexp(x):
    return sum((v * 2.0 for v in x))


FUNCTIONS.append(sum_of_genexp)


def sum_start_of_genexp(x):
    return sum((v * 2.0 for v in x), 1.5)


FUNCTIONS.append(sum_start_of_genexp)


def max_of_genexp(x):
    return max((v * 2.0 for v in x))


FUNCTIONS.append(max_of_genexp)


def min_of_genexp(x):
    return min((v * 2.0 for v in x))


FUNCTIONS.append(min_of_genexp)


def max_key_of_genexp(x):
    return max((v * 2.0 for v in x), key=lambda v: -v)


FUNCTIONS.append(max_key_of_genexp)


def sorted_of_genexp(x):
    return sorted((v * 2.0 for v in x))[0] * 2.0


FUNCTIONS.append(sorted_of_genexp)


def list_of_genexp(x):
    return list((v * 2.0 for v in x))[-1] * 3.0


FUNCTIONS.append(list_of_genexp)


def tuple_of_genexp(x):
    return tuple((v * 2.0 for v in x))[0] * 3.0


FUNCTIONS.append(tuple_of_genexp)


def array_of_genexp(x):
    return np.sum(np.array(list((v * 2.0 for v in x))) ** 2)


FUNCTIONS.append(array_of_genexp)


def for_of_genexp(x):
    s = 0.0
    for v in (v * 2.0 for v in x):
        s = s + v * v
    return s


FUNCTIONS.append(for_of_genexp)


def fsum_of_genexp(x):
    return math.fsum((v * 2.0 for v in x))


FUNCTIONS.append(fsum_of_genexp)


def sum_of_zip(x):
    return sum((a * b for a, b in zip(x, reversed(x))))


FUNCTIONS.append(sum_of_zip)


def sum_start_of_zip(x):
    return sum((a * b for a, b in zip(x, reversed(x))), 1.5)


FUNCTIONS.append(sum_start_of_zip)


def max_of_zip(x):
    return max((a * b for a, b in zip(x, reversed(x))))


FUNCTIONS.append(max_of_zip)


def min_of_zip(x):
    return min((a * b for a, b in zip(x, reversed(x))))


FUNCTIONS.append(min_of_zip)


def max_key_of_zip(x):
    return max((a * b for a, b in zip(x, reversed(x))), key=lambda v: -v)


FUNCTIONS.append(max_key_of_zip)


def sorted_of_zip(x):
    return sorted((a * b for a, b in zip(x, reversed(x))))[0] * 2.0


FUNCTIONS.append(sorted_of_zip)


def list_of_zip(x):
    return list((a * b for a, b in zip(x, reversed(x))))[-1] * 3.0


FUNCTIONS.append(list_of_zip)


def tuple_of_zip(x):
    return tuple((a * b for a, b in zip(x, reversed(x))))[0] * 3.0


FUNCTIONS.append(tuple_of_zip)


def array_of_zip(x):
    return np.sum(np.array(list((a * b for a, b in zip(x, reversed(x))))) ** 2)


FUNCTIONS.append(array_of_zip)


def for_of_zip(x):
    s = 0.0
    for v in (a * b for a, b in zip(x, reversed(x))):
        s = s + v * v
    return s


FUNCTIONS.append(for_of_zip)


def fsum_of_zip(x):
    return math.fsum((a * b for a, b in zip(x, reversed(x))))


FUNCTIONS.append(fsum_of_zip)


def sum_of_enumerate(x):
    return sum((i * v for i, v in enumerate(reversed(x))))


FUNCTIONS.append(sum_of_enumerate)


def sum_start_of_enumerate(x):
    return sum((i * v for i, v in enumerate(reversed(x))), 1.5)


FUNCTIONS.append(sum_start_of_enumerate)


def max_of_enumerate(x):
    return max((i * v for i, v in enumerate(reversed(x))))


FUNCTIONS.append(max_of_enumerate)


def min_of_enumerate(x):
    return min((i * v for i, v in enumerate(reversed(x))))


FUNCTIONS.append(min_of_enumerate)


def max_key_of_enumerate(x):
    return max((i * v for i, v in enumerate(reversed(x))), key=lambda v: -v)


FUNCTIONS.append(max_key_of_enumerate)


def sorted_of_enumerate(x):
    return sorted((i * v for i, v in enumerate(reversed(x))))[0] * 2.0


FUNCTIONS.append(sorted_of_enumerate)


def list_of_enumerate(x):
    return list((i * v for i, v in enumerate(reversed(x))))[-1] * 3.0


FUNCTIONS.append(list_of_enumerate)


def tuple_of_enumerate(x):
    return tuple((i * v for i, v in enumerate(reversed(x))))[0] * 3.0


FUNCTIONS.append(tuple_of_enumerate)


def array_of_enumerate(x):
    return np.sum(np.array(list((i * v for i, v in enumerate(reversed(x))))) ** 2)


FUNCTIONS.append(array_of_enumerate)


def for_of_enumerate(x):
    s = 0.0
    for v in (i * v for i, v in enumerate(reversed(x))):
        s = s + v * v
    return s


FUNCTIONS.append(for_of_enumerate)


def fsum_of_enumerate(x):
    return math.fsum((i * v for i, v in enumerate(reversed(x))))


FUNCTIONS.append(fsum_of_enumerate)


def sum_of_filter(x):
    return sum(filter(lambda v: v > -5.0, x))


FUNCTIONS.append(sum_of_filter)


def sum_start_of_filter(x):
    return sum(filter(lambda v: v > -5.0, x), 1.5)


FUNCTIONS.append(sum_start_of_filter)


def max_of_filter(x):
    return max(filter(lambda v: v > -5.0, x))


FUNCTIONS.append(max_of_filter)


def min_of_filter(x):
    return min(filter(lambda v: v > -5.0, x))


FUNCTIONS.append(min_of_filter)


def max_key_of_filter(x):
    return max(filter(lambda v: v > -5.0, x), key=lambda v: -v)


FUNCTIONS.append(max_key_of_filter)


def sorted_of_filter(x):
    return sorted(filter(lambda v: v > -5.0, x))[0] * 2.0


FUNCTIONS.append(sorted_of_filter)


def list_of_filter(x):
    return list(filter(lambda v: v > -5.0, x))[-1] * 3.0


FUNCTIONS.append(list_of_filter)


def tuple_of_filter(x):
    return tuple(filter(lambda v: v > -5.0, x))[0] * 3.0


FUNCTIONS.append(tuple_of_filter)


def array_of_filter(x):
    return np.sum(np.array(list(filter(lambda v: v > -5.0, x))) ** 2)


FUNCTIONS.append(array_of_filter)


def for_of_filter(x):
    s = 0.0
    for v in filter(lambda v: v > -5.0, x):
        s = s + v * v
    return s


FUNCTIONS.append(for_of_filter)


def fsum_of_filter(x):
    return math.fsum(filter(lambda v: v > -5.0, x))


FUNCTIONS.append(fsum_of_filter)

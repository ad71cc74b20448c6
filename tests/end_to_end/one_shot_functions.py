"""Lazy iterators (generator expressions, generator functions' calls, `zip`, `map`,
`enumerate`, `reversed`, `filter`) read as Python reads them once only where they are made,
and read again or late where srcad's list of their items would give other values (E103).
Read by `test_one_shot_iterators.py`."""

import numpy as np


def squares_of(v):
    for item in v:
        yield item * item


# Refused: each gave a wrong value and derivative with no error before E103 (but
# `sum_twice` and `read_in_a_loop`, now read from a position: `iterator_positions`).


def sum_twice(s):
    g = (v * v for v in [s, 2.0 * s])
    a = sum(g)
    b = sum(g)  # Python: 0, the generator is spent
    return a + 10.0 * b


def generator_twice(s):
    g = squares_of([s, 3.0 * s])
    return max(g) + sum(g)


def map_twice(s):
    m = map(np.sin, [s, 2.0 * s])
    return sum(m) + 10.0 * sum(m)


def zip_of_one(s):
    g = (v * v for v in [s, 2.0 * s, 3.0 * s, 4.0 * s])
    return sum(a * b for a, b in zip(g, g))  # pairs of consecutive items


def rebound_before_read(s):
    k = 2.0
    g = (v * k for v in [s, s * s])
    k = s
    return sum(g)


def written_before_read(x):
    out = np.zeros(3)
    g = (out[i] * x[i] for i in range(3))
    out[1] = x[0]
    return sum(g)


def appended_before_read(s):
    xs = [s]
    e = enumerate(xs)
    xs.append(2.0 * s)
    return sum(i * v for i, v in e)


def loop_rebinds_what_it_reads(s):
    k = 1.0
    total = 0.0
    for a in (v * k for v in [s, 2.0 * s, 3.0 * s]):
        k = a
        total = total + a
    return total


def loop_target_is_read(s):
    k = 0.5
    total = 0.0
    for k in (v + k for v in [s, s * s]):
        total = total + k
    return total


def loop_writes_what_it_reads(x):
    out = np.zeros(3)
    total = 0.0
    for a in (out[i] + x[i] for i in range(3)):
        total = total + a
        out[2] = total
    return total


def remade_in_a_loop(s):
    k = 1.0
    total = 0.0
    for i in range(3):
        g = (v * k for v in [s, 2.0 * s])
        k = s * i
        total = total + sum(g)
    return total


def read_in_a_loop(s):
    g = (v * v for v in [s, 2.0 * s])
    total = 0.0
    for _ in range(2):
        total = total + sum(g)
    return total


def helper_reads_twice(values):
    return sum(values) + sum(values)


def passed_to_a_python_function(s):
    return helper_reads_twice(v * v for v in [s, 2.0 * s])


def seen_as_itself(s):
    g = (v * v for v in [s, 2.0 * s])
    return s * 2.0 if isinstance(g, list) else s * 3.0  # Python: a generator, no list


def passed_to_it_in_a_lambda(s):
    g = lambda h: helper_reads_twice(v * v for v in (h, 2.0))  # noqa: E731
    return g(s)


class Source:
    def __init__(self, k):
        self.k = k

    def items(self, s):
        for i in range(3):
            yield s * i * self.k


def method_generator_twice(s):
    g = Source(2.0).items(s)
    a = sum(g)
    return a + 10.0 * sum(g)


def generator_in_a_variable(s):
    make = squares_of
    g = make([s, 2.0 * s])
    return max(g) + sum(g)


# Taken: each lazy iterator read once, at once, with nothing it reads changed meanwhile.


def read_in_the_next_statement(s):
    k = 2.0
    g = (v * k for v in [s, s * s])
    total = sum(g)
    return total * s


def consumed_where_made(x):
    pairs = list(zip(x, squares_of(x)))
    total = sum(a * b for a, b in pairs) + max(np.sin(v) for v in x)
    for i, (a, b) in enumerate(zip(x, map(np.cos, x))):
        total = total + i * a * b
    e = enumerate(reversed(x))
    for i, v in e:
        total = total + i * v * v
    firsts, seconds = zip(*[(x[0], x[1]), (x[2], x[0])])
    return total + firsts[1] * seconds[0]


def loop_changes_only_other_names(x):
    total = 0.0
    scale = 1.0
    for a, b in zip(x, (v * v for v in x)):
        scale = scale * 1.5
        total = total + scale * a * b
    return total


def summed_in_a_lambda(s):
    g = lambda h: h * sum(np.tanh(v) for v in (s, 2.0))  # noqa: E731
    return g(s) + s

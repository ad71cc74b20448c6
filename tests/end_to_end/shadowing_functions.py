"""Functions for test_shadowing.py: names that a comprehension, a lambda or a nested function
binds for itself, spelled like a module global (issue 17: a comprehension's `fn` was called
as the global `fn`, a wrong value and derivative with no error)."""

import numpy as np

fn = np.tan
k = 3.0
w = np.array([10.0, 20.0, 30.0])
FUNCTIONS = (np.sin, np.cos)


def callee_in_generator(x):
    return sum(np.sum(fn(x)) for fn in (np.sin, np.cos))


def callee_in_list_comprehension(x):
    return sum([np.sum(fn(x) * x) for fn in FUNCTIONS])


def value_in_comprehension(x):
    return sum([np.sum(x**k) for k in (1.0, 2.0)])


def global_beside_comprehension(x):
    """`fn` is the global outside the comprehension and the comprehension's inside it."""
    return np.sum(fn(x)) + sum(np.sum(fn(x)) for fn in (np.sin,)) + k * x[0]


def nested_comprehensions(x):
    return sum(np.sum(fn(x * k)) for fn in FUNCTIONS for k in (1.0, 2.0))


def condition_in_comprehension(x):
    return sum(x[0] * k for k in (1.0, 2.0, 3.0) if k > 1.5)


def method_of_comprehension_variable(x):
    return sum(w.sum() * w[0] for w in (x, x * 2.0))


def iterable_reads_the_global(x):
    """The first iterable is read outside the comprehension: there `w` is the global."""
    return sum(x[0] * w for w in w)


def comprehension_in_loop(x):
    s = 0.0
    for i in range(2):
        s = s + sum(np.sum(fn(x + i)) for fn in FUNCTIONS)
    return s


def lambda_parameter(x):
    apply = lambda fn: np.sum(fn(x))  # noqa: E731
    return apply(np.sin) + apply(np.exp)


def nested_function_parameter(x):
    def apply(fn, k):
        return np.sum(fn(x) ** k)

    return apply(np.sin, 2.0) + apply(np.cos, 1.0)


def iterable_is_the_parameter(x):
    """The same for a parameter: the first iterable is `x` the argument, the rest its items."""
    return sum(x * x for x in x) + x[0]


def first_iterable_holds_the_global(x):
    """The tuple is read outside the generator: its `fn` is the global `np.tan`."""
    return sum(np.sum(fn(x)) for fn in (np.sin, fn))


def first_iterable_slices_the_parameter(x):
    return np.sum(np.array([x * 2.0 for x in x[1:]]) ** 2)

"""Functions srcad must refuse without a rule (the seeds' `addone` and `exception`), and
callers whose call graph reaches functions with neither rule nor source."""

import math

import numpy as np


def addone(a):
    b = np.empty_like(a)
    b[:] = a + 1.0
    return np.sum(b)


def addone_into(a, b):
    b[:] = a + 1.0
    return np.sum(b)


def exception(x):
    try:
        return x**2
    except TypeError:
        print("could not square input")
        raise


def gamma_of(x):
    return math.gamma(x)


def lgamma_of(x):
    return math.lgamma(x) * 2.0


def uses_both(x):
    return gamma_of(x) + lgamma_of(x) + math.gamma(x + 1.0)


def with_string_and_none(x, label, nothing, flag, count):
    if flag and nothing is None and label == "double":
        return x * 2.0 * count
    return x

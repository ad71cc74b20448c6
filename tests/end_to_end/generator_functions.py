"""Generator functions consumed by the function srcad differentiates, and `zip(*pairs)`.
Read by `test_generators.py`."""

import numpy as np


def unpack_layers(params):
    """Pairs of consecutive arrays: (weights, bias) of each layer."""
    for i in range(0, len(params), 2):
        yield params[i], params[i + 1]


def network(params, x):
    h = x
    for w, b in unpack_layers(params):
        h = np.tanh(w @ h + b)
    return np.sum(h * h)


def windows(v):
    """Slices of an array, with a filter and an early end."""
    for start in range(len(v)):
        if start + 2 > len(v):
            return
        if start % 2 == 1:
            continue
        yield v[start : start + 2]


def window_energy(v):
    total = 0.0
    for window in windows(v):
        total = total + np.sum(np.sin(window) * window)
    return total


def squares(v):
    for item in v:
        yield item * item
    yield np.sum(v)


def consumed_by_builtins(v):
    listed = list(squares(v))
    return sum(squares(v)) + np.sum(np.array(listed) * 2.0) + listed[-1]


def zipped_with(v):
    total = 0.0
    for i, (a, s) in enumerate(zip(v, squares(v))):
        total = total + a * s * (i + 1)
    return total


def zip_star(x, y):
    pairs = [(x, y * 2.0), (y, np.sin(x)), (x * y, 1.0)]
    firsts, seconds = zip(*pairs)
    return firsts[0] * seconds[1] + firsts[2] * seconds[0] + sum(seconds)


def zip_star_arrays(v):
    pairs = [(v[0], v[1]), (v[2] * v[0], v[1])]
    a, b = zip(*pairs)
    return np.sum(np.array(a) * np.array(b))


def countdown(x):
    while True:  # endless: its caller stops it
        yield x
        x = x * 0.5


def endless(x):
    total = 0.0
    for _i, value in zip(range(3), countdown(x)):
        total = total + value
    return total


def sends(x):
    received = yield x
    yield received


def uses_send(x):
    return sum(sends(x))

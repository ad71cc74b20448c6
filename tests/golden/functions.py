"""Functions whose emitted rules are kept as golden text beside this file."""

import math

import numpy as np


def sin_times(x, y):
    return np.sin(x) * y


def logistic(w, x, y):
    z = x @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def sum3(array):
    x = array[0]
    y = array[1]
    z = array[2]
    return x + y + z


def rebind_and_unpack(x, y):
    a, b = y, x
    a = a * math.exp(b)
    return a, b


def inactive_parts(x, n):
    scale = 2.0 * n
    return np.sum(x**2) / x.shape[0] * scale


def mse(y, yhat):
    N = len(y)
    s = 0.0
    for i in range(N):
        s += (y[i] - yhat[i]) ** 2.0
    return s / N


def sum_array(array):
    s = 0.0
    for a in array:
        s += a
    return s


def branches(x):
    if x > 0.0:
        y = np.sqrt(x)
    else:
        y = -x
    return y * 2.0


def square(x):
    return x * x


def calls_square(x, y):
    return square(x) + square(y) * 2.0


def dead_adjoints(x, y, t):
    u = x * y
    v = np.exp(y) * t  # only y's and t's cotangents need it: not kept, not differentiated
    w = np.sin(u) * v
    return w


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


DELTA = 1.0  # a module constant: read once on entry, its type guarded


def huber(r, delta):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


def robust_fit(w, xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total += huber(w[0] + w[1] * x - y, DELTA)
    return total / len(xs)


def guarded_log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(x > 0, np.log(x), 0.0)
    return np.sum(y * x)

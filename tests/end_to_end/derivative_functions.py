"""Functions for Jacobians, Hessians and second derivatives."""

import math

import numpy as np


def polynomial(x):
    return 3.0 * x**4 - 2.0 * x**3 + x * x - 5.0


def trig(x, y):
    return math.sin(x) * math.cos(y) + x * y * y


def rosenbrock(x, y):
    return 100.0 * (y - x * x) ** 2 + (1.0 - x) ** 2


def energy(x, a):
    return np.tanh(x) @ a @ np.exp(x) + x @ x


def quadratic_form(x, a):
    return x @ (a @ x)


def softplus_norm(x):
    s = np.log1p(np.exp(x))
    return s @ s


def gaussian_log_density(x, mu):
    d = x - mu
    return -0.5 * (d @ d) + np.sin(mu) @ x


def with_branch(x):
    if x > 0.0:
        return x**3
    return -(x**2)


def with_loop(x, w):
    s = 0.0
    for i in range(3):
        s = s + np.tanh(x * w + i) * x
    return s


def square(t):
    return t * t


def with_call(x):
    return square(np.exp(x)) + square(x) * x


def with_while(a):
    x = a
    n = 0
    while n < 4:
        x = 0.5 * (x + a / x)
        n += 1
    return x * x * a


def vector_output(x, w):
    return np.tanh(w * x) * np.sum(x)


def rnn_state(w, xs):
    h = np.zeros(2)
    for x in xs:
        h = np.tanh(w @ h + x)
    return h


def rosenbrock_vector(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def softplus_sum(x):
    return np.sum(np.log1p(np.exp(x)))


def mlp_loss(w, x):
    h = np.tanh(np.dot(x, w))
    return np.mean(np.reshape(h, -1) ** 2)

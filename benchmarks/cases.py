"""The benchmark cases: plain NumPy functions, as a scientist would write them, each with a
gradient written by hand.

Every case function uses NumPy only through the name `np`, so the peers run the very same
code with `np` bound to their own NumPy-like module (`jax.numpy`, `autograd.numpy`,
`torch`): see `written_with`. srcad and tangent-ad read the source of the functions below.

A hand-written gradient returns one array (or float) per differentiated argument, as a
tuple, in the order of the case's `wrt`. Where the function is a Python loop, the gradient
is written the way a person would write it: vectorised NumPy.
"""

# Written as a scientist writes: matrices in capitals, the seed's `N = len(y)`, if/else blocks.
# ruff: noqa: N803, N806, SIM108

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# --------------------------------------------------------------------------------------
# The functions to differentiate


def mse(y, yhat):
    N = len(y)
    s = 0.0
    for i in range(N):
        s += (y[i] - yhat[i]) ** 2.0
    return s / N


def sum3(a):
    x = a[0]
    y = a[1]
    z = a[2]
    return x + y + z


def polynomial(x):
    return 3.0 * x**5 - 2.0 * x**3 + x - 7.0


def rosenbrock_loop(x):
    s = 0.0
    for i in range(len(x) - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def logistic_loss(w, b, X, y):
    z = X @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def rnn_loss(W, U, xs, h0):
    h = h0
    for t in range(len(xs)):
        h = np.tanh(W @ h + U * xs[t])
    return np.sum(h**2)


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def inv_loss(A, b):
    return np.sum(np.linalg.inv(A) @ b)


def slogdet_loss(A):
    return np.linalg.slogdet(A)[1]


# --------------------------------------------------------------------------------------
# Their gradients, by hand


def mse_grad(y, yhat):
    d = 2.0 * (y - yhat) / len(y)
    return d, -d


def sum3_grad(a):
    g = np.zeros_like(a)
    g[:3] = 1.0
    return (g,)


def polynomial_grad(x):
    return (15.0 * x**4 - 6.0 * x**2 + 1.0,)


def rosenbrock_grad(x):
    r = x[1:] - x[:-1] ** 2
    g = np.zeros_like(x)
    g[:-1] = -400.0 * x[:-1] * r - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * r
    return (g,)


def logistic_loss_grad(w, b, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
    d = (p - y) / len(y)
    return X.T @ d, float(np.sum(d))


def mlp_loss_grad(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    out_bar = 2.0 * (h @ W2 + b2 - y) / len(y)
    pre_bar = np.outer(out_bar, W2) * (1.0 - h**2)
    return X.T @ pre_bar, pre_bar.sum(axis=0), h.T @ out_bar, float(out_bar.sum())


def rnn_loss_grad(W, U, xs, h0):
    hs = [h0]
    for t in range(len(xs)):
        hs.append(np.tanh(W @ hs[-1] + U * xs[t]))
    W_bar = np.zeros_like(W)
    U_bar = np.zeros_like(U)
    h_bar = 2.0 * hs[-1]
    for t in reversed(range(len(xs))):
        pre_bar = h_bar * (1.0 - hs[t + 1] ** 2)
        W_bar += np.outer(pre_bar, hs[t])
        U_bar += pre_bar * xs[t]
        h_bar = W.T @ pre_bar
    return W_bar, U_bar


def newton_sqrt_grad(a):
    # d sqrt(a) / da = 1 / (2 sqrt(a)), with sqrt(a) from the same iteration.
    return (0.5 / newton_sqrt(a),)


def inv_loss_grad(A, b):
    ones = np.ones(len(b))
    left = np.linalg.solve(A.T, ones)  # A^-T 1
    return -np.outer(left, np.linalg.solve(A, b)), left


def slogdet_loss_grad(A):
    return (np.linalg.inv(A).T,)


# --------------------------------------------------------------------------------------
# The cases


@dataclass(frozen=True)
class Case:
    name: str
    func: Callable[..., Any]
    hand_grad: Callable[..., tuple[Any, ...]]
    make_args: Callable[[np.random.Generator], tuple[Any, ...]]
    wrt: tuple[int, ...]


def _well_conditioned(rng, n):
    return 3.0 * np.eye(n) + 0.3 * rng.standard_normal((n, n))


def _logistic_args(rng, n=1000, d=10):
    X = rng.standard_normal((n, d))
    y = (rng.random(n) < 0.5).astype(float)
    return 0.1 * rng.standard_normal(d), 0.1, X, y


def _mlp_args(rng, n=64, d_in=32, d_hidden=16):
    W1 = rng.standard_normal((d_in, d_hidden)) / np.sqrt(d_in)
    b1 = 0.1 * rng.standard_normal(d_hidden)
    W2 = rng.standard_normal(d_hidden) / np.sqrt(d_hidden)
    X = rng.standard_normal((n, d_in))
    return W1, b1, W2, 0.1, X, rng.standard_normal(n)


def _rnn_args(rng, hidden=16, steps=20):
    W = 0.9 * rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)
    return W, rng.standard_normal(hidden), rng.standard_normal(steps), np.zeros(hidden)


CASES = [
    Case("mse loop, n=30", mse, mse_grad, lambda r: (r.random(30), r.random(30)), (0, 1)),
    Case("mse loop, n=1000", mse, mse_grad, lambda r: (r.random(1000), r.random(1000)), (0, 1)),
    Case("sum3, n=30", sum3, sum3_grad, lambda r: (r.random(30),), (0,)),
    Case("polynomial, scalar", polynomial, polynomial_grad, lambda r: (1.3,), (0,)),
    Case(
        "Rosenbrock loop, n=30",
        rosenbrock_loop,
        rosenbrock_grad,
        lambda r: (r.uniform(-1.5, 1.5, 30),),
        (0,),
    ),
    Case(
        "Rosenbrock NumPy, n=1e3",
        rosenbrock,
        rosenbrock_grad,
        lambda r: (r.uniform(-1.5, 1.5, 1000),),
        (0,),
    ),
    Case(
        "Rosenbrock NumPy, n=1e6",
        rosenbrock,
        rosenbrock_grad,
        lambda r: (r.uniform(-1.5, 1.5, 1_000_000),),
        (0,),
    ),
    Case(
        "logistic loss, 1000x10",
        logistic_loss,
        logistic_loss_grad,
        _logistic_args,
        (0, 1),
    ),
    Case("MLP 32x16x1, 64 samples", mlp_loss, mlp_loss_grad, _mlp_args, (0, 1, 2, 3)),
    Case("RNN, 20 steps, h=16", rnn_loss, rnn_loss_grad, _rnn_args, (0, 1)),
    Case("Newton sqrt (while)", newton_sqrt, newton_sqrt_grad, lambda r: (2.0,), (0,)),
    Case(
        "sum(inv(A) @ b), 10x10",
        inv_loss,
        inv_loss_grad,
        lambda r: (_well_conditioned(r, 10), r.standard_normal(10)),
        (0, 1),
    ),
    Case(
        "slogdet(A)[1], 10x10",
        slogdet_loss,
        slogdet_loss_grad,
        lambda r: (_well_conditioned(r, 10),),
        (0,),
    ),
]


def written_with(func: Callable[..., Any], np_like: Any) -> Callable[..., Any]:
    """`func` with the same code, but `np` bound to `np_like` (jax.numpy, autograd.numpy,
    torch): what a user of that library writes for the same function."""
    namespace = dict(func.__globals__)
    namespace["np"] = np_like
    return types.FunctionType(
        func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__
    )


# --------------------------------------------------------------------------------------
# For srcad's compile time: a 30-line function with loops and branches.


def robust_fit_loss(theta, x, y, delta, clip):
    a = theta[0]
    b = theta[1]
    c = theta[2]
    total = 0.0
    weights = 0.0
    for i in range(len(x)):
        xi = x[i]
        prediction = a * xi * xi + b * xi + c
        r = prediction - y[i]
        if r > clip:
            r = clip
        elif r < -clip:
            r = -clip
        if abs(r) <= delta:
            loss = 0.5 * r * r
        else:
            loss = delta * (abs(r) - 0.5 * delta)
        if xi < 0.0:
            loss = 2.0 * loss
        weight = 1.0 / (1.0 + 0.1 * xi * xi)
        total = total + weight * loss
        weights = weights + weight
    penalty = 0.0
    for t in range(3):
        penalty = penalty + theta[t] ** 2
    mean = total / weights
    if mean > 10.0:
        mean = 10.0 + np.log(mean - 9.0)
    return mean + 1e-3 * penalty

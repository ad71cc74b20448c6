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

import itertools
import math
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import as_written as aw
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


# The groups the table's rows fall into, each with the figure the benchmark's targets are
# stated in (a group's geometric mean): loop code against the primal, array code against
# the hand-written gradient, forward mode against the primal.
LOOPS = "scalar and loop code"
SMALL = "small arrays"
LARGE = "large arrays"
FORWARD = "forward mode, loop code"
SECOND = "Hessian-vector products"

# What a case differentiates: `srcad.grad`, `srcad.jvp` (one tangent per differentiated
# argument), `srcad.jacobian(mode="forward")`, `srcad.hessian_vector_product`.
GRAD, JVP, JACOBIAN_FORWARD, HVP = "grad", "jvp", "jacobian forward", "hvp"


@dataclass(frozen=True)
class Case:
    """One row of the table. `hand_grad` is the derivative written by hand, of the kind
    `mode` asks for: a gradient (called with the arguments, returning one value per
    position in `wrt`), a Jacobian-vector product (the arguments, then one tangent per
    position in `wrt`; returns the output's tangent), a Jacobian (the arguments), or a
    Hessian-vector product (the arguments, then the vector).

    `float64_twin` names the case a float32 case is the same as, in float64; `big_loop`
    marks a loop long enough that its peak memory is the point of the case."""

    name: str
    func: Callable[..., Any]
    hand_grad: Callable[..., Any]
    make_args: Callable[[np.random.Generator], tuple[Any, ...]]
    wrt: tuple[int, ...]
    group: str = SMALL
    mode: str = GRAD
    float64_twin: str | None = None
    big_loop: bool = False


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


def _pair(n, dtype=np.float64):
    return lambda r: (r.random(n).astype(dtype), r.random(n).astype(dtype))


SEED_CASES = [
    Case("mse loop, n=30", mse, mse_grad, _pair(30), (0, 1), LOOPS),
    Case("mse loop, n=1000", mse, mse_grad, _pair(1000), (0, 1), LOOPS),
    Case("sum3, n=30", sum3, sum3_grad, lambda r: (r.random(30),), (0,), LOOPS),
    Case("polynomial, scalar", polynomial, polynomial_grad, lambda r: (1.3,), (0,), LOOPS),
    Case(
        "Rosenbrock loop, n=30",
        rosenbrock_loop,
        rosenbrock_grad,
        lambda r: (r.uniform(-1.5, 1.5, 30),),
        (0,),
        LOOPS,
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
        LARGE,
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
    Case("Newton sqrt (while)", newton_sqrt, newton_sqrt_grad, lambda r: (2.0,), (0,), LOOPS),
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


# --------------------------------------------------------------------------------------
# Code as users write it (`as_written`): module constants, `math` calls, stable losses,
# parameter containers, float32, forward mode and Hessian-vector products.


def _classifier_args(rng, n, d_in=784, d_hidden=128, classes=10):
    params = (
        rng.standard_normal((d_in, d_hidden)) / np.sqrt(d_in),
        0.1 * rng.standard_normal(d_hidden),
        rng.standard_normal((d_hidden, classes)) / np.sqrt(d_hidden),
        0.1 * rng.standard_normal(classes),
    )
    return params, rng.standard_normal((n, d_in)), rng.integers(0, classes, n)


def _rnn_tuple_args(rng, batch, hidden=32, inputs=8, outputs=4, steps=20):
    weights = (
        0.9 * rng.standard_normal((hidden, hidden)) / np.sqrt(hidden),
        rng.standard_normal((inputs, hidden)) / np.sqrt(inputs),
        rng.standard_normal((hidden, outputs)) / np.sqrt(hidden),
    )
    xs = rng.standard_normal((steps, batch, inputs))
    return weights, np.zeros((batch, hidden)), xs, rng.standard_normal((steps, batch, outputs))


def _deep_mlp_args(rng, n=32, d_in=8, hidden=32, depth=3):
    widths = [d_in, *[hidden] * depth, 1]
    layers = [
        (rng.standard_normal((a, b)) / np.sqrt(a), 0.1 * rng.standard_normal(b))
        for a, b in itertools.pairwise(widths)
    ]
    return layers, rng.standard_normal((n, d_in)), rng.standard_normal((n, 1))


def _heteroscedastic_args(rng, n=200, d=5):
    params = {
        "w_mean": rng.standard_normal(d),
        "b_mean": 0.1,
        "w_log_var": 0.1 * rng.standard_normal(d),
        "b_log_var": -0.5,
    }
    X = rng.standard_normal((n, d))
    return params, X, X @ rng.standard_normal(d) + rng.standard_normal(n)


def _softmax_args(rng, n=64, d=20, classes=10):
    W = rng.standard_normal((d, classes)) / np.sqrt(d)
    return (
        W,
        0.1 * rng.standard_normal(classes),
        rng.standard_normal((n, d)),
        rng.integers(0, classes, n),
    )


def _robust_args(rng, n=100):
    xs = rng.standard_normal(n)
    return np.array([0.5, 1.5]), xs, 2.0 * xs + 0.3 + 1.5 * rng.standard_normal(n)


AS_WRITTEN_CASES = [
    # Scalar code and loops reading module constants, calling `math`, over float32.
    Case(
        "Newton sqrt, module-level tolerance",
        aw.newton_sqrt_tolerance,
        aw.newton_sqrt_tolerance_grad,
        lambda r: (2.0,),
        (0,),
        LOOPS,
    ),
    Case(
        "Kepler's equation (Newton, math.sin)",
        aw.kepler,
        aw.kepler_grad,
        lambda r: (1.2, 0.3),
        (0, 1),
        LOOPS,
    ),
    Case(
        "Kepler, module-level eccentricity",
        aw.eccentric_anomaly,
        aw.eccentric_anomaly_grad,
        lambda r: (1.2,),
        (0,),
        LOOPS,
    ),
    Case(
        "Horner over a module tuple, math.sin/exp",
        aw.horner_sin_exp,
        aw.horner_sin_exp_grad,
        lambda r: (0.7,),
        (0,),
        LOOPS,
    ),
    Case(
        "Gaussian NLL loop, math.exp/log, n=100",
        aw.gaussian_nll_loop,
        aw.gaussian_nll_loop_grad,
        lambda r: (0.3, -0.2, r.standard_normal(100)),
        (0, 1),
        LOOPS,
    ),
    Case(
        "pendulum, 300 steps, math.sin",
        aw.pendulum,
        aw.pendulum_grad,
        lambda r: (1.0, 0.0, 0.1),
        (0, 1, 2),
        LOOPS,
    ),
    Case(
        "robust regression, zip + huber, n=100",
        aw.robust_regression,
        aw.robust_regression_grad,
        _robust_args,
        (0,),
        LOOPS,
    ),
    Case(
        "Horner over a module list",
        aw.horner_list,
        aw.horner_list_grad,
        lambda r: (0.7,),
        (0,),
        LOOPS,
    ),
    Case(
        "relaxation, module dict of rates", aw.relax, aw.relax_grad, lambda r: (0.4,), (0,), LOOPS
    ),
    Case(
        "soft clip loop, min/max and math.pow, n=100",
        aw.soft_clipped,
        aw.soft_clipped_grad,
        lambda r: (r.uniform(-2.0, 2.0, 100),),
        (0,),
        LOOPS,
    ),
    Case(
        "trajectory, 1000 appends",
        aw.trajectory,
        aw.trajectory_grad,
        lambda r: (0.5, 0.8),
        (0, 1),
        LOOPS,
    ),
    Case(
        "mse loop, n=1000, float32",
        mse,
        mse_grad,
        _pair(1000, np.float32),
        (0, 1),
        LOOPS,
        float64_twin="mse loop, n=1000",
    ),
    Case("mse loop, n=1e6", mse, mse_grad, _pair(1_000_000), (0, 1), LOOPS, big_loop=True),
    Case(
        "mse loop, n=1e6, float32",
        mse,
        mse_grad,
        _pair(1_000_000, np.float32),
        (0, 1),
        LOOPS,
        float64_twin="mse loop, n=1e6",
        big_loop=True,
    ),
    # Stable losses and parameter containers.
    Case(
        "stable logistic loss, 1000x10",
        aw.logistic_loss_stable,
        aw.logistic_loss_stable_grad,
        _logistic_args,
        (0, 1),
    ),
    Case(
        "softmax cross-entropy, 64x20x10",
        aw.softmax_cross_entropy,
        aw.softmax_cross_entropy_grad,
        _softmax_args,
        (0, 1),
    ),
    Case(
        "MLP 784x128x10, tuple params, batch 8",
        aw.mlp_classifier,
        aw.mlp_classifier_grad,
        lambda r: _classifier_args(r, 8),
        (0,),
    ),
    Case(
        "tanh RNN, tuple weights, 20 steps, batch 1",
        aw.rnn_tuple,
        aw.rnn_tuple_grad,
        lambda r: _rnn_tuple_args(r, 1),
        (0,),
    ),
    Case(
        "tanh RNN, tuple weights, 20 steps, batch 64",
        aw.rnn_tuple,
        aw.rnn_tuple_grad,
        lambda r: _rnn_tuple_args(r, 64),
        (0,),
    ),
    Case(
        "MLP, list of (W, b) layers, 8x32x32x32x1",
        aw.deep_mlp,
        aw.deep_mlp_grad,
        _deep_mlp_args,
        (0,),
    ),
    Case(
        "heteroscedastic NLL, dict params, 200x5",
        aw.heteroscedastic_nll,
        aw.heteroscedastic_nll_grad,
        _heteroscedastic_args,
        (0,),
    ),
    Case(
        "stable logistic loss, 100000x100",
        aw.logistic_loss_stable,
        aw.logistic_loss_stable_grad,
        lambda r: _logistic_args(r, 100_000, 100),
        (0, 1),
        LARGE,
    ),
    Case(
        "MLP 784x128x10, tuple params, batch 64",
        aw.mlp_classifier,
        aw.mlp_classifier_grad,
        lambda r: _classifier_args(r, 64),
        (0,),
        LARGE,
    ),
    # Forward mode on loop code, against the primal.
    Case("jvp: mse loop, n=1000", mse, aw.mse_jvp, _pair(1000), (0, 1), FORWARD, JVP),
    Case(
        "jvp: Rosenbrock loop, n=30",
        rosenbrock_loop,
        aw.rosenbrock_jvp,
        lambda r: (r.uniform(-1.5, 1.5, 30),),
        (0,),
        FORWARD,
        JVP,
    ),
    Case(
        "jvp: Newton sqrt (while)",
        newton_sqrt,
        aw.newton_sqrt_jvp,
        lambda r: (2.0,),
        (0,),
        FORWARD,
        JVP,
    ),
    Case(
        "jvp: Newton sqrt, module-level tolerance",
        aw.newton_sqrt_tolerance,
        aw.newton_sqrt_tolerance_jvp,
        lambda r: (2.0,),
        (0,),
        FORWARD,
        JVP,
    ),
    Case(
        "jvp: Kepler's equation",
        aw.kepler,
        aw.kepler_jvp,
        lambda r: (1.2, 0.3),
        (0, 1),
        FORWARD,
        JVP,
    ),
    Case(
        "jvp: Horner, math.sin/exp",
        aw.horner_sin_exp,
        aw.horner_sin_exp_jvp,
        lambda r: (0.7,),
        (0,),
        FORWARD,
        JVP,
    ),
    Case(
        "jvp: pendulum, 300 steps",
        aw.pendulum,
        aw.pendulum_jvp,
        lambda r: (1.0, 0.0, 0.1),
        (0, 1, 2),
        FORWARD,
        JVP,
    ),
    Case(
        "jvp: robust regression, zip + huber",
        aw.robust_regression,
        aw.robust_regression_jvp,
        _robust_args,
        (0,),
        FORWARD,
        JVP,
    ),
    Case(
        "forward Jacobian: Lorenz, 200 steps, 3x3",
        aw.lorenz,
        aw.lorenz_jacobian,
        lambda r: (np.array([1.0, 1.0, 1.0]) + 0.1 * r.standard_normal(3),),
        (0,),
        FORWARD,
        JACOBIAN_FORWARD,
    ),
    # Hessian-vector products: forward over reverse.
    Case(
        "hvp: Rosenbrock NumPy, n=1e3",
        rosenbrock,
        aw.rosenbrock_hvp,
        lambda r: (r.uniform(-1.5, 1.5, 1000),),
        (0,),
        SECOND,
        HVP,
    ),
    Case(
        "hvp: stable logistic loss, 1000x10",
        aw.logistic_loss_stable,
        aw.logistic_loss_stable_hvp,
        _logistic_args,
        (0,),
        SECOND,
        HVP,
    ),
]

CASES = SEED_CASES + AS_WRITTEN_CASES


def written_with(func: Callable[..., Any], np_like: Any) -> Callable[..., Any]:
    """`func` with the same code, but `np` bound to `np_like` (jax.numpy, autograd.numpy,
    torch): what a user of that library writes for the same function. So are the helpers
    it calls from its own module (`huber`, `cross_entropy`); `math` becomes `math_like`."""
    namespace = dict(func.__globals__)
    namespace["np"] = np_like
    namespace["math"] = math_like(np_like)
    for name, value in func.__globals__.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is func.__globals__:
            namespace[name] = types.FunctionType(
                value.__code__, namespace, value.__name__, value.__defaults__, value.__closure__
            )
    return types.FunctionType(
        func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__
    )


def math_like(np_like: Any) -> types.SimpleNamespace:
    """`math` for a peer's user: on a plain number, `math`'s own function; on the peer's
    value (a tracer, a tensor), the peer's function of the same name, as its user writes
    `jnp.sin(x)` or `torch.sin(x)` where `math.sin(x)` would drop the derivative."""

    def either(name: str) -> Callable[[Any], Any]:
        own, theirs = getattr(math, name), getattr(np_like, name)
        return lambda x: own(x) if isinstance(x, int | float) else theirs(x)

    functions = {name: either(name) for name in MATH_FUNCTIONS if hasattr(np_like, name)}
    return types.SimpleNamespace(**{**vars(math), **functions})


MATH_FUNCTIONS = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "log1p", "expm1")


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

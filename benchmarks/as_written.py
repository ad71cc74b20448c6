"""Benchmark functions as users write them, where srcad's own cases did not: module-level
constants, coefficient tuples and lists, dicts of rates, `math` calls and `min`/`max` in
loops, a list grown by appends, the numerically stable losses
(`logaddexp`, a shifted log-sum-exp), parameters passed as tuples, lists and dicts, `for`
over `zip` calling a user helper with an `if`, and an ODE integrated in a loop.

Each function is followed by its derivative written by hand, in vectorised NumPy where the
function allows it (a time-stepping loop needs a loop in its adjoint too): a gradient (one
value per differentiated argument, shaped like it, a container of arrays for a container
of parameters), a Jacobian-vector product (`*_jvp`, taking the arguments and then one
tangent per differentiated argument), a forward Jacobian or a Hessian-vector product.

The functions are not written to suit any AD tool: if a natural formulation is slow, that
is what the benchmark is for. As in `cases.py`, NumPy is only reached through `np` and
`math` only through `math`, so that the peers run the same code (`cases.written_with`).
"""

# Written as a scientist writes: matrices in capitals, short physical names.
# ruff: noqa: N803, N806, B905

from __future__ import annotations

import math

import numpy as np

# --------------------------------------------------------------------------------------
# Module-level constants, read by the functions below as globals.

TOLERANCE = 1e-12  # Newton iterations stop below this residual
ECCENTRICITY = 0.2056  # Mercury's orbit
HORNER_COEFFICIENTS = (0.05, -0.3, 0.8, -1.1, 0.6, 0.2)  # highest degree first
GRAVITY = 9.81
LENGTH = 1.5
TIME_STEP = 0.01
PENDULUM_STEPS = 300
SIGMA, RHO, BETA = 10.0, 28.0, 8.0 / 3.0  # the Lorenz system's parameters
LORENZ_STEPS = 200


# --------------------------------------------------------------------------------------
# Scalar code and loops


def newton_sqrt_tolerance(a):
    x = a
    while abs(x * x - a) > TOLERANCE * a:
        x = 0.5 * (x + a / x)
    return x


def newton_sqrt_tolerance_grad(a):
    return (0.5 / newton_sqrt_tolerance(a),)


def newton_sqrt_tolerance_jvp(a, a_dot):
    return 0.5 * a_dot / newton_sqrt_tolerance(a)


def kepler(M, e):
    """The eccentric anomaly E solving Kepler's equation E - e sin E = M, by Newton."""
    E = M
    while abs(E - e * math.sin(E) - M) > TOLERANCE:
        E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    return E


def kepler_grad(M, e):
    # Implicit differentiation of E - e sin E = M.
    E = kepler(M, e)
    denominator = 1.0 - e * math.cos(E)
    return 1.0 / denominator, math.sin(E) / denominator


def kepler_jvp(M, e, M_dot, e_dot):
    E = kepler(M, e)
    return (M_dot + e_dot * math.sin(E)) / (1.0 - e * math.cos(E))


def eccentric_anomaly(M):
    """Kepler's equation for one orbit, its eccentricity a module constant."""
    E = M
    while abs(E - ECCENTRICITY * math.sin(E) - M) > TOLERANCE:
        E = E - (E - ECCENTRICITY * math.sin(E) - M) / (1.0 - ECCENTRICITY * math.cos(E))
    return E


def eccentric_anomaly_grad(M):
    return (1.0 / (1.0 - ECCENTRICITY * math.cos(eccentric_anomaly(M))),)


def horner_sin_exp(x):
    p = 0.0
    for c in HORNER_COEFFICIENTS:
        p = p * x + c
    return math.sin(p) + math.exp(-p * p)


def _horner_slope(x):
    p = np.polyval(HORNER_COEFFICIENTS, x)
    dp = np.polyval(np.polyder(HORNER_COEFFICIENTS), x)
    return float((math.cos(p) - 2.0 * p * math.exp(-p * p)) * dp)


def horner_sin_exp_grad(x):
    return (_horner_slope(x),)


def horner_sin_exp_jvp(x, x_dot):
    return _horner_slope(x) * x_dot


def gaussian_nll_loop(mu, log_sigma, x):
    total = 0.0
    for i in range(len(x)):
        z = (x[i] - mu) / math.exp(log_sigma)
        total += 0.5 * z * z + log_sigma + 0.5 * math.log(2.0 * math.pi)
    return total / len(x)


def gaussian_nll_loop_grad(mu, log_sigma, x):
    sigma = np.exp(log_sigma)
    z = (x - mu) / sigma
    return float(-np.mean(z) / sigma), float(np.mean(1.0 - z * z))


def pendulum(theta0, omega0, damping):
    """The angle of a damped pendulum after PENDULUM_STEPS semi-implicit Euler steps."""
    theta = theta0
    omega = omega0
    for _ in range(PENDULUM_STEPS):
        omega = omega - TIME_STEP * (GRAVITY / LENGTH * math.sin(theta) + damping * omega)
        theta = theta + TIME_STEP * omega
    return theta


def _pendulum_trajectory(theta0, omega0, damping):
    thetas, omegas = [theta0], [omega0]
    for _ in range(PENDULUM_STEPS):
        omegas.append(
            omegas[-1]
            - TIME_STEP * (GRAVITY / LENGTH * math.sin(thetas[-1]) + damping * omegas[-1])
        )
        thetas.append(thetas[-1] + TIME_STEP * omegas[-1])
    return thetas, omegas


def pendulum_grad(theta0, omega0, damping):
    # The adjoint recurrence, backwards through the steps.
    thetas, omegas = _pendulum_trajectory(theta0, omega0, damping)
    theta_bar, omega_bar, damping_bar = 1.0, 0.0, 0.0
    for k in reversed(range(PENDULUM_STEPS)):
        omega_bar += TIME_STEP * theta_bar  # theta' = theta + dt * omega'
        damping_bar -= TIME_STEP * omegas[k] * omega_bar
        theta_bar -= TIME_STEP * GRAVITY / LENGTH * math.cos(thetas[k]) * omega_bar
        omega_bar *= 1.0 - TIME_STEP * damping
    return theta_bar, omega_bar, damping_bar


def pendulum_jvp(theta0, omega0, damping, theta_dot, omega_dot, damping_dot):
    # The tangent-linear recurrence, alongside the steps.
    theta, omega = theta0, omega0
    for _ in range(PENDULUM_STEPS):
        omega_dot = omega_dot - TIME_STEP * (
            GRAVITY / LENGTH * math.cos(theta) * theta_dot
            + damping_dot * omega
            + damping * omega_dot
        )
        omega = omega - TIME_STEP * (GRAVITY / LENGTH * math.sin(theta) + damping * omega)
        theta_dot = theta_dot + TIME_STEP * omega_dot
        theta = theta + TIME_STEP * omega
    return theta_dot


def huber(r, delta):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


def robust_regression(w, xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total += huber(w[0] + w[1] * x - y, 1.0)
    return total / len(xs)


def robust_regression_grad(w, xs, ys):
    influence = np.clip(w[0] + w[1] * xs - ys, -1.0, 1.0)  # huber's derivative
    return (np.array([np.mean(influence), np.mean(influence * xs)]),)


def robust_regression_jvp(w, xs, ys, w_dot):
    influence = np.clip(w[0] + w[1] * xs - ys, -1.0, 1.0)
    return float(np.mean(influence * (w_dot[0] + w_dot[1] * xs)))


def lorenz(state):
    """The Lorenz system's state after LORENZ_STEPS explicit Euler steps from `state`."""
    x = state[0]
    y = state[1]
    z = state[2]
    for _ in range(LORENZ_STEPS):
        dx = SIGMA * (y - x)
        dy = x * (RHO - z) - y
        dz = x * y - BETA * z
        x = x + TIME_STEP * dx
        y = y + TIME_STEP * dy
        z = z + TIME_STEP * dz
    return np.array([x, y, z])


def lorenz_jacobian(state):
    # The tangent-linear model: the step's Jacobian, I + dt * A(state), applied to J.
    x, y, z = state
    J = np.eye(3)
    for _ in range(LORENZ_STEPS):
        A = np.array([[-SIGMA, SIGMA, 0.0], [RHO - z, -1.0, -x], [y, x, -BETA]])
        J = J + TIME_STEP * (A @ J)
        x, y, z = (
            x + TIME_STEP * SIGMA * (y - x),
            y + TIME_STEP * (x * (RHO - z) - y),
            z + TIME_STEP * (x * y - BETA * z),
        )
    return J


# --------------------------------------------------------------------------------------
# Settings in module-level lists and dicts, builtins in loops, a list grown in a loop

COEFFICIENT_LIST = [0.05, -0.3, 0.8, -1.1, 0.6, 0.2]  # highest degree first
RATES = {"decay": 0.05, "drive": -0.3, "relax": 0.9}
RELAX_STEPS = 40
TRAJECTORY_STEPS = 1000


def horner_list(x):
    p = 0.0
    for c in COEFFICIENT_LIST:
        p = p * x + c
    return p


def horner_list_grad(x):
    return (float(np.polyval(np.polyder(COEFFICIENT_LIST), x)),)


def relax(x):
    y = x
    for _ in range(RELAX_STEPS):
        y = RATES["relax"] * y - RATES["decay"] * (y * y + RATES["drive"])
    return y


def relax_grad(x):
    y, slope = x, 1.0
    for _ in range(RELAX_STEPS):
        slope *= RATES["relax"] - 2.0 * RATES["decay"] * y
        y = RATES["relax"] * y - RATES["decay"] * (y * y + RATES["drive"])
    return (slope,)


def soft_clipped(xs):
    total = 0.0
    for v in xs:
        total += min(max(v, -1.0), 1.0) ** 2 + math.pow(abs(v) + 1.0, 1.5)
    return total


def soft_clipped_grad(xs):
    inside = np.abs(xs) < 1.0
    return (2.0 * xs * inside + 1.5 * np.sqrt(np.abs(xs) + 1.0) * np.sign(xs),)


def trajectory(x0, rate):
    states = []
    x = x0
    for _ in range(TRAJECTORY_STEPS):
        x = x + TIME_STEP * (rate - x * x * x)
        states.append(x)
    return np.mean(np.array(states) ** 2)


def trajectory_grad(x0, rate):
    xs = [x0]
    for _ in range(TRAJECTORY_STEPS):
        xs.append(xs[-1] + TIME_STEP * (rate - xs[-1] ** 3))
    x_bar, rate_bar = 0.0, 0.0
    for k in reversed(range(TRAJECTORY_STEPS)):
        x_bar += 2.0 * xs[k + 1] / TRAJECTORY_STEPS  # each state's share of the mean
        rate_bar += TIME_STEP * x_bar
        x_bar *= 1.0 - 3.0 * TIME_STEP * xs[k] ** 2
    return x_bar, rate_bar


# --------------------------------------------------------------------------------------
# Mean-squared error loop: its forward-mode product (the gradient is `cases.mse_grad`)


def mse_jvp(y, yhat, y_dot, yhat_dot):
    return 2.0 * np.dot(y - yhat, y_dot - yhat_dot) / len(y)


def rosenbrock_jvp(x, x_dot):
    r = x[1:] - x[:-1] ** 2
    return np.sum(
        200.0 * r * (x_dot[1:] - 2.0 * x[:-1] * x_dot[:-1]) - 2.0 * (1.0 - x[:-1]) * x_dot[:-1]
    )


def rosenbrock_hvp(x, v):
    head = x[:-1]
    hv = np.zeros_like(x)
    hv[:-1] = (1200.0 * head**2 - 400.0 * x[1:] + 2.0) * v[:-1] - 400.0 * head * v[1:]
    hv[1:] += 200.0 * v[1:] - 400.0 * head * v[:-1]
    return hv


def newton_sqrt_jvp(a, a_dot):
    return 0.5 * a_dot / np.sqrt(a)


# --------------------------------------------------------------------------------------
# Numerically stable losses


def logistic_loss_stable(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def logistic_loss_stable_grad(w, b, X, y):
    d = (_sigmoid(X @ w + b) - y) / len(y)
    return X.T @ d, float(np.sum(d))


def logistic_loss_stable_hvp(w, b, X, y, v):
    p = _sigmoid(X @ w + b)
    return X.T @ (p * (1.0 - p) * (X @ v)) / len(y)


def softmax_cross_entropy(W, b, X, labels):
    logits = X @ W + b
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(len(labels)), labels])


def _softmax_minus_onehot(logits, labels):
    """d(mean cross-entropy)/d(logits): (softmax - one-hot) / batch."""
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    probs[np.arange(len(labels)), labels] -= 1.0
    return probs / len(labels)


def softmax_cross_entropy_grad(W, b, X, labels):
    logits_bar = _softmax_minus_onehot(X @ W + b, labels)
    return X.T @ logits_bar, logits_bar.sum(axis=0)


# --------------------------------------------------------------------------------------
# Parameters in tuples, lists and dicts


def cross_entropy(logits, labels):
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(len(labels)), labels])


def mlp_classifier(params, X, labels):
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1 + b1)
    return cross_entropy(h @ W2 + b2, labels)


def mlp_classifier_grad(params, X, labels):
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1 + b1)
    logits_bar = _softmax_minus_onehot(h @ W2 + b2, labels)
    pre_bar = (logits_bar @ W2.T) * (1.0 - h**2)
    return ((X.T @ pre_bar, pre_bar.sum(axis=0), h.T @ logits_bar, logits_bar.sum(axis=0)),)


def rnn_tuple(weights, h0, xs, targets):
    W_hh, W_xh, W_hy = weights
    h = h0
    loss = 0.0
    for t in range(len(xs)):
        h = np.tanh(h @ W_hh + xs[t] @ W_xh)
        loss = loss + np.sum((h @ W_hy - targets[t]) ** 2)
    return loss / len(xs)


def rnn_tuple_grad(weights, h0, xs, targets):
    W_hh, W_xh, W_hy = weights
    hs = [h0]
    for t in range(len(xs)):
        hs.append(np.tanh(hs[-1] @ W_hh + xs[t] @ W_xh))
    W_hh_bar, W_xh_bar, W_hy_bar = np.zeros_like(W_hh), np.zeros_like(W_xh), np.zeros_like(W_hy)
    h_bar = np.zeros_like(hs[-1])
    for t in reversed(range(len(xs))):
        out_bar = 2.0 * (hs[t + 1] @ W_hy - targets[t]) / len(xs)
        W_hy_bar += hs[t + 1].T @ out_bar
        pre_bar = (h_bar + out_bar @ W_hy.T) * (1.0 - hs[t + 1] ** 2)
        W_hh_bar += hs[t].T @ pre_bar
        W_xh_bar += xs[t].T @ pre_bar
        h_bar = pre_bar @ W_hh.T
    return ((W_hh_bar, W_xh_bar, W_hy_bar),)


def deep_mlp(layers, X, y):
    h = X
    for W, b in layers[:-1]:
        h = np.tanh(h @ W + b)
    W, b = layers[-1]
    return np.mean((h @ W + b - y) ** 2)


def deep_mlp_grad(layers, X, y):
    hs = [X]
    for W, b in layers[:-1]:
        hs.append(np.tanh(hs[-1] @ W + b))
    W, b = layers[-1]
    out_bar = 2.0 * (hs[-1] @ W + b - y) / y.size
    grads = [(hs[-1].T @ out_bar, out_bar.sum(axis=0))]
    h_bar = out_bar @ W.T
    for (W, _), h, below in zip(reversed(layers[:-1]), reversed(hs[1:]), reversed(hs[:-1])):
        pre_bar = h_bar * (1.0 - h**2)
        grads.append((below.T @ pre_bar, pre_bar.sum(axis=0)))
        h_bar = pre_bar @ W.T
    return (grads[::-1],)


def heteroscedastic_nll(params, X, y):
    mean = X @ params["w_mean"] + params["b_mean"]
    log_var = X @ params["w_log_var"] + params["b_log_var"]
    return 0.5 * np.mean(log_var + (y - mean) ** 2 / np.exp(log_var))


def heteroscedastic_nll_grad(params, X, y):
    mean = X @ params["w_mean"] + params["b_mean"]
    log_var = X @ params["w_log_var"] + params["b_log_var"]
    residual_scaled = (y - mean) * np.exp(-log_var)
    mean_bar = -residual_scaled / len(y)
    log_var_bar = 0.5 * (1.0 - (y - mean) * residual_scaled) / len(y)
    grad = {
        "w_mean": X.T @ mean_bar,
        "b_mean": float(mean_bar.sum()),
        "w_log_var": X.T @ log_var_bar,
        "b_log_var": float(log_var_bar.sum()),
    }
    return (grad,)

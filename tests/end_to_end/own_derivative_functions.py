"""Functions for `test_own_derivatives.py`: `f` (a loop and an `if`), a vector map `fv`, a
function of two arguments; the derivatives srcad returns of them, called by name from a
module global, made inside the function differentiated, or passed as a value; and, written
by hand, independently of srcad, the derivatives the tests check against (themselves
checked against central differences)."""

from __future__ import annotations

import numpy as np

import srcad

W = np.array([0.3, -0.7, 0.5])
W2 = np.array([[0.3, -0.7, 0.5], [0.2, 0.4, -0.6], [-0.1, 0.8, 0.9]])
W3 = np.arange(27.0).reshape(3, 3, 3) / 27.0 - 0.4
V = np.array([0.4, -1.1, 0.6])


def f(x):
    s = 0.5 * np.sum(x) ** 2
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + np.sin(x[i]) * x[i]
        else:
            s = s + x[i] ** 3
    return s


def fv(x):
    return np.sin(x) * x[0] + x**2


def f2(x, y):
    return np.sum(np.sin(x) * y[0]) + y[1] * np.sum(x**2) * y[0]


# -- the derivatives, by hand ------------------------------------------------------------------


def _phi(t, order):
    """The `order`-th derivative of f's elementwise part at `t`."""
    if t > 0.0:
        return [
            np.sin(t) * t,
            np.sin(t) + t * np.cos(t),
            2 * np.cos(t) - t * np.sin(t),
            -3 * np.sin(t) - t * np.cos(t),
        ][order]
    return [t**3, 3 * t**2, 6 * t, 6.0][order]


def grad_f(x):
    return np.sum(x) + np.array([_phi(t, 1) for t in x])


def hess_f(x):
    return np.ones((x.size, x.size)) + np.diag([_phi(t, 2) for t in x])


def third_f(x):
    n = x.size
    t = np.zeros((n, n, n))
    for i in range(n):
        t[i, i, i] = _phi(x[i], 3)
    return t


def jac_fv(x):
    n = x.size
    j = np.zeros((n, n))
    for i in range(n):
        j[i, i] += np.cos(x[i]) * x[0] + 2 * x[i]
        j[i, 0] += np.sin(x[i])
    return j


def second_fv(x):
    n = x.size
    t = np.zeros((n, n, n))
    for i in range(n):
        t[i, i, i] += -np.sin(x[i]) * x[0] + 2
        t[i, i, 0] += np.cos(x[i])
        t[i, 0, i] += np.cos(x[i])
    return t


def third_fv(x):
    n = x.size
    t = np.zeros((n, n, n, n))
    for i in range(n):
        t[i, i, i, i] += -np.cos(x[i]) * x[0]
        t[i, i, i, 0] += -np.sin(x[i])
        t[i, i, 0, i] += -np.sin(x[i])
        t[i, 0, i, i] += -np.sin(x[i])
    return t


def grad_f2_y(x, y):
    return np.array([np.sum(np.sin(x)) + y[1] * np.sum(x**2), np.sum(x**2) * y[0]])


def jac_grad_f2_y(x, y):
    """d(grad_f2_y)/dx and d(grad_f2_y)/dy."""
    dx = np.stack([np.cos(x) + 2 * y[1] * x, 2 * x * y[0]])
    dy = np.array([[0.0, np.sum(x**2)], [np.sum(x**2), 0.0]])
    return dx, dy


# -- the derivatives srcad returns, at module level --------------------------------------------

GRAD = srcad.grad(f)
VALUE_AND_GRAD = srcad.value_and_grad(f)
JACOBIAN = srcad.jacobian(fv)
JACOBIAN_FORWARD = srcad.jacobian(fv, mode="forward")
HESSIAN = srcad.hessian(f)
HVP = srcad.hessian_vector_product(f)
JACOBIAN_2 = srcad.jacobian(srcad.jacobian(fv))
GRAD_Y = srcad.grad(f2, wrt="y")


def make(kind):
    """The derivative of `kind`, made anew."""
    if kind == "grad":
        return srcad.grad(f)
    if kind == "jacobian":
        return srcad.jacobian(fv)
    if kind == "jacobian_forward":
        return srcad.jacobian(fv, mode="forward")
    if kind == "hessian":
        return srcad.hessian(f)
    return srcad.jacobian(srcad.jacobian(fv))


# -- functions that call them: sum(W * sin(D(x))) ------------------------------------------------


def global_grad(x):
    return np.sum(W * np.sin(GRAD(x)))


def global_value_and_grad(x):
    value, gradient = VALUE_AND_GRAD(x)
    return np.sin(value) + np.sum(W * np.sin(gradient))


def global_jacobian(x):
    return np.sum(W2 * np.sin(JACOBIAN(x)))


def global_jacobian_forward(x):
    return np.sum(W2 * np.sin(JACOBIAN_FORWARD(x)))


def global_hessian(x):
    return np.sum(W2 * np.sin(HESSIAN(x)))


def global_hvp(x):
    return np.sum(W * np.sin(HVP(x, V)))


def global_jacobian_2(x):
    return np.sum(W3 * np.sin(JACOBIAN_2(x)))


def inside_grad(x):
    g = srcad.grad(f)
    return np.sum(W * np.sin(g(x)))


def inside_value_and_grad(x):
    value, gradient = srcad.value_and_grad(f)(x)
    return np.sin(value) + np.sum(W * np.sin(gradient))


def inside_jacobian(x):
    j = srcad.jacobian(fv)
    return np.sum(W2 * np.sin(j(x)))


def inside_jacobian_forward(x):
    j = srcad.jacobian(fv, mode="forward")
    return np.sum(W2 * np.sin(j(x)))


def inside_hessian(x):
    h = srcad.hessian(f)
    return np.sum(W2 * np.sin(h(x)))


def inside_hvp(x):
    product = srcad.hessian_vector_product(f)
    return np.sum(W * np.sin(product(x, V)))


def inside_jacobian_2(x):
    j = srcad.jacobian(srcad.jacobian(fv))
    return np.sum(W3 * np.sin(j(x)))


def value_array(x, derivative, weights):
    return np.sum(weights * np.sin(derivative(x)))


def value_hvp(x, product):
    return np.sum(W * np.sin(product(x, V)))


def value_value_and_grad(x, both):
    value, gradient = both(x)
    return np.sin(value) + np.sum(W * np.sin(gradient))


def global_grad_y(x, y):
    return np.sum(np.sin(GRAD_Y(x, y)) * y)


@srcad.differentiate
def loss(x):
    return f(x)


def method_grad(x):
    return np.sum(W * np.sin(loss.grad(x)))


def tuple_wrt_jacobian(x, y):
    return np.sum(srcad.jacobian(f2, wrt=("x", "y"))(x, y)[0])


def fs(a):
    s = 0.0
    for k in range(3):
        if a > 0.0:
            s = s + np.sin(a * (k + 1))
        else:
            s = s + a ** (k + 2)
    return s


def fs_second(a):
    """fs'' by hand."""
    if a > 0.0:
        return sum(-((k + 1) ** 2) * np.sin(a * (k + 1)) for k in range(3))
    return sum((k + 2) * (k + 1) * a**k for k in range(3))


def fs_third(a):
    if a > 0.0:
        return sum(-((k + 1) ** 3) * np.cos(a * (k + 1)) for k in range(3))
    return sum((k + 2) * (k + 1) * k * a ** (k - 1) if k else 0.0 for k in range(3))


SECOND = srcad.grad(srcad.grad(fs))


def global_second(a):
    return np.sin(SECOND(a))


def value_hvp_of_v(x, v):
    return np.sum(W * np.sin(HVP(x, v)))


_, PULLBACK = srcad.vjp(fv, np.array([0.7, -0.4, 1.3]))


def global_pullback(s):
    return np.sum(PULLBACK(s)[0] ** 2)


def value_pullback(s, pullback):
    return np.sum(pullback(s)[0] ** 2)


def scaled(x, scale=1.0):
    return f(x) * scale


SCALED_GRAD = srcad.grad(scaled)


def global_scaled_grad(x):
    return np.sum(W * np.sin(SCALED_GRAD(x, scale=3.0)))


GRADS = srcad.grad(f2, wrt=("x", "y"))


def global_grads(x, y):
    gx, gy = GRADS(x, y)
    return np.sum(np.sin(gx)) + np.sum(gy**2)


def grads_by_hand(x, y):
    return np.cos(x) * y[0] + 2 * y[1] * y[0] * x, grad_f2_y(x, y)


def complex_map(x):
    return np.exp(1j * x) * x


def real_of_complex_jacobian(x):
    return np.real(np.sum(srcad.jacobian(complex_map)(x)))

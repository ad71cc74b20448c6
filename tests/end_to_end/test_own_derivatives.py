"""srcad differentiates its own output (issue 20): every derivative it returns (`grad`,
`value_and_grad`, `jacobian` in both modes, `hessian`, `hessian_vector_product`,
`grad` of a gradient, `jacobian` of a `jacobian`, the methods of an `@srcad.differentiate`
function) is differentiated again through its form's rules (`srcad/forms.py`), in both
modes and one order higher, wherever it is called: the target of a transform, a module
global called by name, made inside the function differentiated, or passed as a value.

Every value is checked against central finite differences of functions written by hand
(`own_derivative_functions`), whose own derivatives are checked against central
differences first."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp
from tests.conftest import difference
from tests.end_to_end import own_derivative_functions as m

X = np.array([0.7, -0.4, 1.3])  # away from f's kink at 0
T = np.array([0.5, 0.2, -0.9])
Y = np.array([0.8, -0.6])


def close(got, want, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=rtol, atol=atol)


# -- the derivatives written by hand, against central differences -----------------------------


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        (m.f, m.grad_f),
        (m.grad_f, m.hess_f),
        (m.hess_f, m.third_f),
        (m.fv, m.jac_fv),
        (m.jac_fv, m.second_fv),
        (m.second_fv, m.third_fv),
    ],
)
def test_the_derivatives_written_by_hand(lower, higher):
    close(higher(X), difference(lower, (X,)), rtol=1e-7, atol=1e-8)


def test_the_two_argument_derivatives_written_by_hand():
    close(m.grad_f2_y(X, Y), difference(m.f2, (X, Y), 1))
    dx, dy = m.jac_grad_f2_y(X, Y)
    close(dx, difference(m.grad_f2_y, (X, Y), 0))
    close(dy, difference(m.grad_f2_y, (X, Y), 1))
    close(m.fs_second(0.6), difference(lambda a: difference(m.fs, (a,)), (0.6,)))
    close(m.fs_third(0.6), difference(m.fs_second, (0.6,)))
    close(m.fs_third(-0.6), difference(m.fs_second, (-0.6,)))


# -- what each kind of derivative is, by hand: D(x), dD/dx, and h(x) = sum(W * sin(D(x))) ------

KINDS = {
    "grad": (m.grad_f, m.hess_f, m.W),
    "jacobian": (m.jac_fv, m.second_fv, m.W2),
    "jacobian_forward": (m.jac_fv, m.second_fv, m.W2),
    "hessian": (m.hess_f, m.third_f, m.W2),
    "hvp": (lambda x: m.hess_f(x) @ m.V, lambda x: np.einsum("ijk,j->ik", m.third_f(x), m.V), m.W),
    "jacobian_2": (m.second_fv, m.third_fv, m.W3),
}
RETURNED = {
    "grad": m.GRAD,
    "jacobian": m.JACOBIAN,
    "jacobian_forward": m.JACOBIAN_FORWARD,
    "hessian": m.HESSIAN,
    "hvp": m.HVP,
    "jacobian_2": m.JACOBIAN_2,
}


def h_by_hand(kind):
    value, _, weights = KINDS[kind]
    return lambda x: np.sum(weights * np.sin(value(x)))


def gradient_by_hand(kind):
    """The gradient of `h_by_hand(kind)`, written out: sum(W cos(D) dD/dx)."""
    value, derivative, weights = KINDS[kind]
    return lambda x: np.tensordot(weights * np.cos(value(x)), derivative(x), axes=weights.ndim)


def called(kind, way):
    """`(h, extra)`: the function calling the derivative of `kind` in `way`, and the
    arguments after `x` it takes."""
    if way == "value":
        if kind == "hvp":
            return m.value_hvp, (m.HVP,)
        return m.value_array, (RETURNED[kind], KINDS[kind][2])
    return getattr(m, f"{way}_{kind}"), ()


WAYS = ["global", "inside", "value"]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_grad_and_jvp_of_a_function_calling_a_derivative(kind, way):
    h, extra = called(kind, way)
    expected = difference(h_by_hand(kind), (X,))
    close(gradient_by_hand(kind)(X), expected, rtol=1e-6, atol=1e-7)  # the hand's own check
    close(srcad.grad(h)(X, *extra), expected)
    zeros = (srcad.ZeroTangent(),) * len(extra)
    value, tangent = srcad.jvp(h, (X, *extra), (T, *zeros))
    assert value == pytest.approx(h_by_hand(kind)(X))
    close(tangent, finite_difference_jvp(h_by_hand(kind), (X,), (T,)))


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_hessian_of_a_function_calling_a_derivative(kind, way):
    # (of "hessian", "hvp" and "jacobian_2": f's fourth derivatives, reverse mode over the
    # forward rule of the forward rule of f's forward rule: `second_order.NESTING`)
    h, extra = called(kind, way)
    expected = difference(gradient_by_hand(kind), (X,))
    close(srcad.hessian(h)(X, *extra), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_derivative_as_the_target_of_a_transform(kind):
    """`jacobian` (both modes), `jvp` and `vjp` of the derivative itself: one order up."""
    value, derivative, _ = KINDS[kind]
    returned = RETURNED[kind]
    args = (X, m.V) if kind == "hvp" else (X,)
    for mode in ("reverse", "forward"):
        close(srcad.jacobian(returned, mode=mode)(*args), derivative(X))
    y, tangent = srcad.jvp(returned, args, (T, *(srcad.ZeroTangent(),) * (len(args) - 1)))
    close(y, value(X))
    close(tangent, finite_difference_jvp(value, (X,), (T,)))
    seed = np.cos(np.arange(np.size(y), dtype=float)).reshape(np.shape(y))
    _, pullback = srcad.vjp(returned, *args)
    expected = np.tensordot(seed, difference(value, (X,)), axes=np.ndim(y))
    close(pullback(seed)[0], expected)


def test_the_vector_of_a_hessian_vector_product_is_differentiated():
    """Its vector `v` is an argument too: d(H v)/dv = H, in both modes and in a function
    that calls it."""
    close(srcad.jacobian(m.HVP, wrt="v")(X, m.V), m.hess_f(X))
    close(srcad.jacobian(m.HVP, wrt="v", mode="forward")(X, m.V), m.hess_f(X))

    def by_hand(v):
        return np.sum(m.W * np.sin(m.hess_f(X) @ v))

    close(srcad.grad(m.value_hvp_of_v, wrt="v")(X, m.V), difference(by_hand, (m.V,)))
    close(
        srcad.hessian(m.value_hvp_of_v, wrt="v")(X, m.V),
        difference(lambda v: difference(by_hand, (v,)), (m.V,)),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize("way", WAYS)
def test_value_and_grad_called_in_a_function(way):
    h = {"global": m.global_value_and_grad, "inside": m.inside_value_and_grad}.get(way)
    extra: tuple = ()
    if h is None:
        h, extra = m.value_value_and_grad, (m.VALUE_AND_GRAD,)

    def by_hand(x):
        return np.sin(m.f(x)) + np.sum(m.W * np.sin(m.grad_f(x)))

    def gradient_by_hand_(x):
        return np.cos(m.f(x)) * m.grad_f(x) + (m.W * np.cos(m.grad_f(x))) @ m.hess_f(x)

    close(gradient_by_hand_(X), difference(by_hand, (X,)))
    close(srcad.grad(h)(X, *extra), difference(by_hand, (X,)))
    zeros = (srcad.ZeroTangent(),) * len(extra)
    close(srcad.jvp(h, (X, *extra), (T, *zeros))[1], finite_difference_jvp(by_hand, (X,), (T,)))
    close(srcad.hessian(h)(X, *extra), difference(gradient_by_hand_, (X,)), rtol=1e-5, atol=1e-6)


def test_the_grad_method_of_a_differentiated_function():
    def by_hand(x):
        return np.sum(m.W * np.sin(m.grad_f(x)))

    def gradient_by_hand_(x):
        return (m.W * np.cos(m.grad_f(x))) @ m.hess_f(x)

    close(srcad.grad(m.method_grad)(X), difference(by_hand, (X,)))
    close(srcad.jvp(m.method_grad, (X,), (T,))[1], finite_difference_jvp(by_hand, (X,), (T,)))
    close(
        srcad.hessian(m.method_grad)(X), difference(gradient_by_hand_, (X,)), rtol=1e-5, atol=1e-6
    )
    close(srcad.jacobian(m.loss.grad)(X), m.hess_f(X))


def test_a_gradient_with_respect_to_the_second_of_two_arguments():
    def by_hand(x, y):
        return np.sum(np.sin(m.grad_f2_y(x, y)) * y)

    def gradient_by_hand_(x, y):
        g = m.grad_f2_y(x, y)
        dx, dy = m.jac_grad_f2_y(x, y)
        return (np.cos(g) * y) @ dx, (np.cos(g) * y) @ dy + np.sin(g)

    h = m.global_grad_y
    gx, gy = srcad.grad(h, wrt=("x", "y"))(X, Y)
    close(gx, difference(by_hand, (X, Y), 0))
    close(gy, difference(by_hand, (X, Y), 1))
    _, tangent = srcad.jvp(h, (X, Y), (T, np.array([0.3, -0.2])))
    close(tangent, finite_difference_jvp(by_hand, (X, Y), (T, np.array([0.3, -0.2]))))
    hx = srcad.hessian(h, wrt="x")(X, Y)
    close(hx, difference(lambda x, y: gradient_by_hand_(x, y)[0], (X, Y), 0), rtol=1e-5, atol=1e-6)
    hy = srcad.hessian(h, wrt="y")(X, Y)
    close(hy, difference(lambda x, y: gradient_by_hand_(x, y)[1], (X, Y), 1), rtol=1e-5, atol=1e-6)
    close(srcad.jacobian(m.GRAD_Y, wrt="x")(X, Y), m.jac_grad_f2_y(X, Y)[0])
    close(srcad.jacobian(m.GRAD_Y, wrt="y", mode="forward")(X, Y), m.jac_grad_f2_y(X, Y)[1])


@pytest.mark.parametrize("a", [0.6, -0.7])
def test_a_second_derivative_called_in_a_function(a):
    """`grad(grad(fs))`, fs with a loop and an `if`: third order in a function calling it."""
    expected = float(difference(lambda b: np.sin(m.fs_second(b)), (a,)))
    assert np.cos(m.fs_second(a)) * m.fs_third(a) == pytest.approx(expected, rel=1e-6)
    assert srcad.grad(m.global_second)(a) == pytest.approx(expected, rel=1e-6)
    assert srcad.jvp(m.global_second, (a,), (1.0,))[1] == pytest.approx(expected, rel=1e-6)
    assert srcad.grad(m.SECOND)(a) == pytest.approx(m.fs_third(a), rel=1e-6)


def test_a_derivative_with_respect_to_several_arguments_is_refused_when_differentiated():
    """`jacobian(f2, wrt=("x", "y"))` gives a tuple of blocks: its derivatives are
    refused, naming it, never a number."""
    with pytest.raises(srcad.SrcadError, match="several arguments"):
        srcad.grad(m.tuple_wrt_jacobian)(X, Y)
    with pytest.raises(srcad.SrcadError, match="several arguments"):
        srcad.jvp(m.tuple_wrt_jacobian, (X, Y), (T, srcad.ZeroTangent()))


def test_jvp_of_the_gradient_of_a_function_calling_a_derivative():
    """`jvp` of `grad(h)`, `h` calling `grad(f)`: the entry of `grad(h)` differentiated
    through its form, over the forward rule of `grad(f)`'s form."""
    g = srcad.grad(m.global_grad)

    def by_hand(x):
        return (m.W * np.cos(m.grad_f(x))) @ m.hess_f(x)

    _, tangent = srcad.jvp(g, (X,), (T,))
    close(tangent, finite_difference_jvp(by_hand, (X,), (T,)), rtol=1e-5, atol=1e-6)
    close(srcad.jacobian(g, mode="forward")(X), difference(by_hand, (X,)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("way", ["global", "value"])
def test_the_pullback_vjp_returns(way):
    """`vjp_fn(s) = J(x)ᵀ s` at the `x` given to `vjp`: linear in `s`; in a function,
    `k(s) = |Jᵀ s|²` has the gradient `2 J Jᵀ s` and the Hessian `2 J Jᵀ`."""
    jacobian = m.jac_fv(X)
    seed = np.array([0.3, -0.5, 0.8])
    k, extra = (m.global_pullback, ()) if way == "global" else (m.value_pullback, (m.PULLBACK,))

    def by_hand(s):
        return np.sum((jacobian.T @ s) ** 2)

    close(srcad.grad(k)(seed, *extra), difference(by_hand, (seed,)))
    zeros = (srcad.ZeroTangent(),) * len(extra)
    close(
        srcad.jvp(k, (seed, *extra), (T, *zeros))[1], finite_difference_jvp(by_hand, (seed,), (T,))
    )
    close(
        srcad.hessian(k)(seed, *extra),
        difference(lambda s: 2 * jacobian @ jacobian.T @ s, (seed,)),
    )
    for mode in ("reverse", "forward"):
        close(srcad.jacobian(lambda s: m.PULLBACK(s)[0], mode=mode)(seed), jacobian.T)


def test_a_derivative_called_with_a_keyword_argument():
    """The keyword goes to `f`, not differentiated, at every order."""

    def by_hand(x):
        return np.sum(m.W * np.sin(3.0 * m.grad_f(x)))

    def gradient_by_hand_(x):
        return (m.W * np.cos(3.0 * m.grad_f(x))) @ (3.0 * m.hess_f(x))

    h = m.global_scaled_grad
    close(srcad.grad(h)(X), difference(by_hand, (X,)))
    close(srcad.jvp(h, (X,), (T,))[1], finite_difference_jvp(by_hand, (X,), (T,)))
    close(srcad.hessian(h)(X), difference(gradient_by_hand_, (X,)), rtol=1e-5, atol=1e-6)


def test_a_gradient_with_respect_to_two_arguments_called_in_a_function():
    def by_hand(x, y):
        gx, gy = m.grads_by_hand(x, y)
        return np.sum(np.sin(gx)) + np.sum(gy**2)

    close(m.grads_by_hand(X, Y)[0], difference(m.f2, (X, Y), 0))
    h = m.global_grads
    gx, gy = srcad.grad(h, wrt=("x", "y"))(X, Y)
    close(gx, difference(by_hand, (X, Y), 0))
    close(gy, difference(by_hand, (X, Y), 1))
    zero = srcad.ZeroTangent()
    close(srcad.jvp(h, (X, Y), (T, zero))[1], finite_difference_jvp(by_hand, (X, Y), (T, zero)))
    gradient_y = srcad.grad(h, wrt="y")
    close(
        srcad.hessian(h, wrt="y")(X, Y),
        difference(lambda y: difference(by_hand, (X, y), 1), (Y,)),
        rtol=1e-4,
        atol=1e-6,
    )
    close(srcad.jacobian(gradient_y, wrt="x")(X, Y), difference(gradient_y, (X, Y), 0))


def test_the_array_of_derivatives_of_a_complex_function_is_refused_when_differentiated():
    """Its elements are stacked as real floats: differentiating it is refused, never a
    number that dropped the imaginary parts."""
    with pytest.raises(srcad.SrcadError, match="real float or array"):
        srcad.grad(m.real_of_complex_jacobian)(X)


@pytest.mark.parametrize("kind", ["grad", "jacobian"])
def test_forward_over_forward_of_a_function_calling_a_derivative(kind):
    """`jacobian(jacobian(h))`: the forward rule of the derivative's forward rule."""
    h, _ = called(kind, "global")
    expected = difference(gradient_by_hand(kind), (X,))
    close(srcad.jacobian(srcad.jacobian(h))(X), expected, rtol=1e-5, atol=1e-6)


def test_forward_over_forward_reads_an_attribute():
    """`x.shape` in `f` (its loop's bound): `getattr_frule`'s own forward rule, for
    `jacobian(jacobian(f))` and the third derivatives above."""
    close(srcad.jacobian(srcad.jacobian(m.f))(X), m.hess_f(X))
    close(srcad.jacobian(srcad.jacobian(srcad.jacobian(m.f)))(X), m.third_f(X))

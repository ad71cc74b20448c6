"""Issue 20, forward mode: two false refusals.

- An int argument (given `NoTangent()` or `ZeroTangent()`) carries no tangent, nor does
  any value computed only from it: `slice(0, n)` needs no forward rule
  (`callables.differentiated_parameters`).
- srcad differentiates its own output: the functions `grad` and `value_and_grad` return
  (`srcad/entry_rules.py`), in `jvp`, `frule`, `jacobian` (both modes), `vjp`, `rrule`,
  and called inside a function srcad differentiates. Second derivatives are checked
  against central finite differences of the first derivative.
"""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_jvp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "forward_refusal_functions", HERE / "forward_refusal_functions.py"
)
fr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fr)

X = np.array([0.3, -0.7, 1.1, 0.5, -0.2, 0.9])
INT_CASES = [fr.slice_object, fr.slice_of_sum, fr.head, fr.loop_to, fr.picked, fr.reshaped,
             fr.sized, fr.with_int]  # fmt: skip


def close(got, want):
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-6,
                               atol=1e-8)  # fmt: skip


def close_tree(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            close_tree(g, w)
    else:
        close(srcad.unthunk(got), want)


# -- an int argument with a zero tangent ---------------------------------------------------


@pytest.mark.parametrize("zero", [srcad.NoTangent(), srcad.ZeroTangent()], ids=["no", "zero"])
@pytest.mark.parametrize("function", INT_CASES, ids=lambda f: f.__name__)
def test_int_argument_with_zero_tangent(function, zero):
    tangent = np.linspace(-1.0, 1.0, X.size)
    check_frule(function, X, 2, tangents=(tangent, zero))
    y, y_dot = srcad.jvp(function, (X, 2), (tangent, zero))
    close(y, function(X, 2))
    close(y_dot, finite_difference_jvp(function, (X, 2), (tangent, zero)))


@pytest.mark.parametrize("function", INT_CASES, ids=lambda f: f.__name__)
def test_forward_jacobian_leaves_the_int_out(function):
    forward = srcad.jacobian(function, wrt=0, mode="forward")(X, 3)
    close(forward, srcad.jacobian(function, wrt=0)(X, 3))
    for i in range(X.size):
        basis = np.eye(X.size)[i]
        close(forward[i], finite_difference_jvp(function, (X, 3), (basis, srcad.NoTangent())))


def test_source_shows_the_forward_rule_for_an_int_argument():
    """`slice(0, n)` needs no rule of its own (its bounds carry no derivative), so the code
    for every parameter compiles, and `n`'s tangent is left unread."""
    text = srcad.source(fr.slice_object, mode="forward", args=(X, 2))
    assert "differentiated with respect to: x, n; for x: float[:], n: int\n" in text
    assert ", x, slice(0, n))\n" in text  # (read once: nested where it is read)
    assert "slice_frule" not in text


def test_hessian_with_an_int_argument():
    hessian = srcad.hessian(fr.with_int)(X, 2)
    gradient = srcad.grad(fr.with_int)
    for i in range(X.size):
        basis = np.eye(X.size)[i]
        close(hessian[:, i], finite_difference_jvp(gradient, (X, 2), (basis, srcad.NoTangent())))


def test_second_derivatives_through_helpers_called_with_ints():
    """A helper is compiled for any arguments, its int parameter differentiated too: at
    second order `slice(0, n)` of it asked for a rule of `slice` (E210), whose bounds are ints
    or None and carry no derivative."""
    gradient = srcad.grad(fr.calls_with_ints)
    columns = [finite_difference_jvp(gradient, (X,), (np.eye(X.size)[i],)) for i in range(X.size)]
    expected = np.stack(columns, axis=-1)
    close(srcad.hessian(fr.calls_with_ints)(X), expected)
    v = np.linspace(1.0, -1.0, X.size)
    close(srcad.hessian_vector_product(fr.calls_with_ints)(X, v), expected @ v)
    for mode in ("reverse", "forward"):
        close(srcad.jacobian(gradient, mode=mode)(X), expected)


# -- srcad differentiates its own output ------------------------------------------------


def second_order_cases():
    v = np.array([1.0, -0.5, 2.0])
    x = np.array([0.3, 0.7, 1.1])
    return [
        ("grad", srcad.grad(fr.vector_objective), (x,), (v,)),
        ("grad_wrt_1", srcad.grad(fr.two_argument, wrt=1), (x, v), (v, x)),
        ("grad_tuple", srcad.grad(fr.two_argument, wrt=(0, 1)), (x, v), (v, x)),
        ("value_and_grad", srcad.value_and_grad(fr.vector_objective), (x,), (v,)),
        ("grad_scalar", srcad.grad(fr.scalar_curve), (0.4,), (1.0,)),
        ("grad_with_int", srcad.grad(fr.with_int), (X, 2), (X[::-1].copy(), srcad.NoTangent())),
    ]


CASES = second_order_cases()


@pytest.mark.parametrize(("name", "gradient", "args", "tangents"), CASES, ids=[c[0] for c in CASES])
def test_jvp_of_a_gradient(name, gradient, args, tangents):
    check_frule(gradient, *args, tangents=tangents)
    y, y_dot = srcad.jvp(gradient, args, tangents)
    close_tree(y, gradient(*args))
    close_tree(y_dot, finite_difference_jvp(gradient, args, tangents))


@pytest.mark.parametrize(("name", "gradient", "args", "tangents"), CASES, ids=[c[0] for c in CASES])
def test_rrule_of_a_gradient(name, gradient, args, tangents):
    check_rrule(gradient, *args)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_grad_is_the_hessian(mode):
    x = np.array([0.3, 0.7, 1.1])
    gradient = srcad.grad(fr.vector_objective)
    jacobian = srcad.jacobian(gradient, mode=mode)(x)
    close(jacobian, srcad.hessian(fr.vector_objective)(x))
    for i in range(x.size):
        close(jacobian[:, i], finite_difference_jvp(gradient, (x,), (np.eye(3)[i],)))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_grad_with_respect_to_a_named_argument(mode):
    x, y = np.array([0.3, 0.7, 1.1]), np.array([1.0, -0.5, 2.0])
    gradient = srcad.grad(fr.two_argument, wrt="y")
    jacobian = srcad.jacobian(gradient, wrt="x", mode=mode)(x, y)
    for i in range(x.size):
        expected = finite_difference_jvp(gradient, (x, y), (np.eye(3)[i], srcad.ZeroTangent()))
        close(jacobian[:, i], expected)


def test_hessian_columns_by_jvp_of_grad():
    x = np.array([0.3, 0.7, 1.1])
    gradient = srcad.grad(fr.vector_objective)
    columns = [srcad.jvp(gradient, (x,), (e,))[1] for e in np.eye(3)]
    close(np.stack(columns, axis=-1), srcad.hessian(fr.vector_objective)(x))


def test_grad_of_a_function_calling_value_and_grad():
    x = np.array([0.3, 0.7, 1.1])
    value_and_grad = srcad.value_and_grad(fr.vector_objective)

    def norm_of_gradient(x):
        y, g = value_and_grad(x)
        return np.sum(g**2) + y

    got = srcad.grad(norm_of_gradient)(x)
    for i in range(x.size):
        close(got[i], finite_difference_jvp(norm_of_gradient, (x,), (np.eye(3)[i],)))
    check_frule(norm_of_gradient, x)


def test_grad_of_grad_of_a_scalar_function():
    second = srcad.grad(srcad.grad(fr.scalar_curve))
    for x in (0.4, -1.3):
        close(second(x), finite_difference_jvp(srcad.grad(fr.scalar_curve), (x,), (1.0,)))

"""The transforms compose, as in JAX: `grad(grad(grad(f)))`, `jacobian(jacobian(f))`,
`jvp(jacobian(f))`, `jacobian(grad(f))`, each against central differences of the
transform one order lower; the functions they return keep `f`'s signature, so that `wrt`
names its parameters; and such a function is never differentiated from its own source."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp
from tests.conftest import difference
from tests.srcad import higher_order_api_functions as functions

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("f", [functions.sin_cubed, functions.exp_power, functions.exp_cos])
@pytest.mark.parametrize("x", [0.7, -1.3, 2.1])
def test_third_derivative_of_a_scalar_function(f, x):
    second = srcad.grad(srcad.grad(f))
    third = srcad.grad(second)
    assert third(x) == pytest.approx(float(difference(second, (x,), 0)), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("order", ["xxx", "xyx", "yxy", "yyx"])
def test_mixed_third_derivatives_name_their_arguments(order):
    """Each `grad` takes `wrt` by name, on what the `grad` before it returned."""
    f = functions.two_scalars
    lower = srcad.grad(srcad.grad(f, order[0]), order[1])
    third = srcad.grad(lower, order[2])
    args = (0.6, -0.8)
    position = "xy".index(order[2])
    expected = float(difference(lower, args, position))
    assert third(*args) == pytest.approx(expected, rel=1e-6, abs=1e-8)


def test_grad_of_grad_of_a_function_of_an_array_and_a_scalar():
    w = RNG.standard_normal(3)
    second = srcad.grad(srcad.grad(functions.with_an_array, "x"), "x")
    mixed = srcad.grad(srcad.grad(functions.with_an_array, "x"), "w")
    np.testing.assert_allclose(
        mixed(w, 0.4),
        difference(srcad.grad(functions.with_an_array, "x"), (w, 0.4), 0),
        rtol=1e-6,
        atol=1e-8,
    )
    third = srcad.grad(second, "w")
    np.testing.assert_allclose(third(w, 0.4), difference(second, (w, 0.4), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    ("f", "x"),
    [
        (functions.vector_map, RNG.standard_normal(3)),
        (functions.matrix_map, RNG.standard_normal((2, 2))),
        (functions.sin_cubed, 0.8),
    ],
)
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_jacobian(f, x, mode):
    first = srcad.jacobian(f, mode=mode)
    second = srcad.jacobian(first)
    np.testing.assert_allclose(second(x), difference(first, (x,), 0), rtol=1e-6, atol=1e-8)


def test_jvp_of_a_jacobian_and_jacobian_of_a_hessian_vector():
    x = RNG.standard_normal(3)
    t = RNG.standard_normal(3)
    first = srcad.jacobian(functions.vector_map)
    _, tangent = srcad.jvp(first, (x,), (t,))
    expected = finite_difference_jvp(first, (x,), (t,))
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)
    hessian = srcad.hessian(functions.scalar_of_vector)
    np.testing.assert_allclose(
        hessian(x),
        difference(srcad.grad(functions.scalar_of_vector), (x,), 0),
        rtol=1e-6,
        atol=1e-8,
    )


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_grad_names_arguments(mode):
    f = functions.two_scalars
    block = srcad.jacobian(srcad.grad(f, "y"), "x", mode=mode)(0.6, -0.8)
    assert block == pytest.approx(float(difference(srcad.grad(f, "y"), (0.6, -0.8), 0)), rel=1e-6)


def test_the_functions_returned_keep_the_signature():
    f = functions.two_scalars
    expected = inspect.signature(f)
    for derivative in (
        srcad.grad(f),
        srcad.value_and_grad(f),
        srcad.jacobian(f),
        srcad.hessian(f),
        srcad.grad(srcad.grad(f)),
        srcad.jacobian(srcad.jacobian(f)),
    ):
        assert inspect.signature(derivative) == expected, derivative
    product = srcad.hessian_vector_product(f)
    assert list(inspect.signature(product).parameters) == ["x", "y", "v"]


def test_a_derivative_srcad_returned_is_never_differentiated_from_its_source():
    """Reverse mode of a `jacobian` goes through its form's rules (`srcad/forms.py`), never
    its own source: before its rules, its code read as constants gave 0."""
    jacobian = srcad.jacobian(functions.sin_cubed)
    expected = float(difference(jacobian, (0.7,), 0))
    assert expected != pytest.approx(0.0)
    assert srcad.grad(jacobian)(0.7) == pytest.approx(expected, rel=1e-6)
    _, pullback = srcad.vjp(jacobian, 0.7)
    assert pullback(1.0)[0] == pytest.approx(expected, rel=1e-6)


def test_third_derivative_through_an_element_of_an_array():
    """`w[0]` in `f`: the reverse rule of the forward rule of `getitem`'s forward rule, whose
    tangents along `x` alone leave `w`'s a symbolic zero (once pulled back with a cotangent
    shaped for nothing, a crash)."""
    w = np.array([0.7, -0.4, 1.3])
    second = srcad.grad(srcad.grad(functions.indexed_scale, "x"), "x")
    third = srcad.grad(second, "w")
    np.testing.assert_allclose(third(w, 0.5), difference(second, (w, 0.5), 0), rtol=1e-6, atol=1e-8)


def _structured_difference(f, x, direction, h=1e-4):
    """`f`'s derivative at `x` along `direction`, both of one structure (a dict, a list),
    by central differences, each leaf of `f`'s result on its own."""
    plus = f(srcad.tree_map(lambda p, d: p + h * d, x, direction))
    minus = f(srcad.tree_map(lambda p, d: p - h * d, x, direction))
    return srcad.tree_map(lambda a, b: (np.asarray(a) - np.asarray(b)) / (2 * h), plus, minus)


@pytest.mark.parametrize(
    ("f", "x"),
    [
        (functions.of_a_dict, {"a": 1.5, "b": np.array([0.4, -0.8])}),
        (functions.of_a_list, [0.7, -1.2, np.array([0.3, 0.5])]),
    ],
    ids=["dict", "list"],
)
def test_hessian_and_its_products_of_a_structured_argument(f, x):
    """Of a dict or list: the Hessian in the argument's structure twice, as JAX gives it
    (it crashed on a list), and the Hessian-vector product shaped like the argument."""
    gradient = srcad.grad(f)
    hessian = srcad.hessian(f)(x)
    parts = srcad.tree_map(lambda leaf: leaf, x)
    keys = list(x) if isinstance(x, dict) else list(range(len(x)))
    for j in keys:
        for index in range(int(np.size(x[j]))):
            basis = np.zeros(np.shape(x[j]))
            basis.reshape(-1)[index] = 1.0
            direction = srcad.tree_map(lambda leaf: 0.0 * np.asarray(leaf), parts)
            direction[j] = basis if isinstance(x[j], np.ndarray) else 1.0
            column = _structured_difference(gradient, x, direction)
            for i in keys:
                got = np.asarray(hessian[i][j]).reshape((*np.shape(x[i]), -1))[..., index]
                np.testing.assert_allclose(got, column[i], rtol=1e-6, atol=1e-7)
            product = srcad.hessian_vector_product(f)(x, direction)
            assert type(product) is type(x)
            for i in keys:
                np.testing.assert_allclose(product[i], column[i], rtol=1e-6, atol=1e-7)


def test_hessian_of_an_int_item_and_of_an_empty_array():
    """An item that cannot be perturbed (an int) has no second derivatives (`NoTangent()`,
    as its gradient has); an empty array's Hessian is empty."""
    hessian = srcad.hessian(functions.with_an_int_item)([1.0, 3, 2.0])
    assert all(isinstance(hessian[1][j], srcad.NoTangent) for j in range(3))
    assert all(isinstance(hessian[i][1], srcad.NoTangent) for i in range(3))
    np.testing.assert_allclose([[hessian[0][0], hessian[0][2]], [hessian[2][0], hessian[2][2]]],
                               [[12.0, 6.0], [6.0, 0.0]])  # fmt: skip
    assert srcad.hessian(functions.cubes)(np.zeros(0)).shape == (0, 0)

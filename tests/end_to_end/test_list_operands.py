"""NumPy's ufuncs and broadcasting functions given lists and tuples (displays, nested,
holding arrays, held in variables) read them as arrays (`projection.array_operand`), and
their tangents as arrays of the elements' tangents (`projection.operand_tangent`): the
forward mode raised a TypeError (`can't multiply sequence`), reverse mode raised in
partials such as `1.0 / b`, and a nested list broadcast against a list gave a wrong
gradient (an array for a float: the list's cotangent was not summed over the broadcast).
Every mode, second and third derivatives, against central differences of the order below."""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "list_operand_functions", HERE / "list_operand_functions.py"
)
lf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lf)

BINARY = [np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power,
          np.arctan2, np.hypot, np.logaddexp, np.logaddexp2, np.maximum, np.minimum, np.fmax,
          np.fmin]  # fmt: skip
FUNCTIONS = [
    *(lf.binary_of_displays(u) for u in BINARY),
    *(lf.binary_of_display_and_array(u) for u in BINARY),
    lf.nested_display_broadcast,
    lf.mixed_list_of_array_and_list,
    lf.unary_of_a_list,
    lf.power_of_a_tuple,
    lf.float_power_of_lists,
    lf.matmul_of_nested_lists,
    lf.ufunc_of_a_list_variable,
    lf.three_levels_nested,
    lf.flip_of_a_list,
    lf.cumsum_of_a_list,
    lf.transpose_of_nested_lists,
    lf.reshape_of_a_list,
    lf.take_and_tile_of_lists,
    lf.real_of_a_list,
    lf.fft_of_a_list,
    lf.mean_and_max_of_nested_lists,
    lf.outer_of_two_lists,
    lf.kron_of_two_lists,
    lf.cross_of_two_lists,
    lf.dot_of_nested_lists,
    lf.tensordot_and_einsum_of_lists,
    lf.norm_of_a_list,
    lf.var_and_prod_of_lists,
    lf.where_of_nested_lists,
    lf.clip_of_nested_lists,
    lf.abs_and_maximum_of_nested_lists,
    lf.sort_of_a_list,
    lf.mod_of_lists,
    lf.operators_on_a_list_and_an_array,
    lf.more_operators_on_a_list_and_an_array,
    lf.a_list_read_as_a_list_and_as_an_array,
]
NAMES = [
    *(f"displays-{u.__name__}" for u in BINARY),
    *(f"display_and_array-{u.__name__}" for u in BINARY),
    *(f.__name__ for f in FUNCTIONS[2 * len(BINARY) :]),
]


def close(got, want):
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), 1e-6, 1e-8)


def derivative(f):
    return lambda x: finite_difference_jvp(f, (x,), (1.0,))


@pytest.mark.parametrize("f", FUNCTIONS, ids=NAMES)
def test_first_and_second_derivatives(f):
    x = 0.7
    want = finite_difference_vjp(f, (x,), 1.0, 0)
    gradient = srcad.grad(f)(x)
    assert np.ndim(gradient) == 0
    close(gradient, want)
    close(srcad.jvp(f, (x,), (1.0,))[1], want)
    close(srcad.jacobian(f, mode="forward")(x), want)
    second = derivative(srcad.grad(f))(x)
    close(srcad.hessian(f)(x), second)
    close(srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")(x), second)


THIRD = [
    lf.binary_of_displays(np.divide),
    lf.binary_of_displays(np.hypot),
    lf.nested_display_broadcast,
    lf.mixed_list_of_array_and_list,
    lf.power_of_a_tuple,
    lf.matmul_of_nested_lists,
    lf.reshape_of_a_list,
    lf.outer_of_two_lists,
    lf.kron_of_two_lists,
    lf.tensordot_and_einsum_of_lists,
    lf.where_of_nested_lists,
    lf.operators_on_a_list_and_an_array,
    lf.more_operators_on_a_list_and_an_array,
]


@pytest.mark.parametrize("f", THIRD, ids=lambda f: f.__name__)
def test_third_derivatives(f):
    """Reverse mode over the forward rule of the forward rule (`grad` three deep), and
    forward over reverse over forward (`jacobian` of `hessian`)."""
    x = 0.7
    third = derivative(srcad.hessian(f))(x)
    close(srcad.grad(srcad.grad(srcad.grad(f)))(x), third)
    close(srcad.jacobian(srcad.hessian(f))(x), third)

"""Third derivatives through calls of values known only at run time: `map`, `f(*args)` and
`functools.partial` (`rules/third_order_calls.py`: `map_frule_frule`,
`unpacked_call_frule_frule`, and a partial's call through its function), with `grad` three
deep, `jacobian` three deep and `jacobian` of `hessian`, against central differences of
the Hessian; fourth derivatives against differences of the third."""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "third_order_call_functions", HERE / "third_order_call_functions.py"
)
tf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tf)

FUNCTIONS = [
    f for name, f in vars(tf).items() if name.startswith(("map_", "star_", "partial", "nested"))
]


def close(got, want):
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), 1e-6, 1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_third_derivatives_match_differences_of_the_hessian(f):
    x = 0.7
    third = finite_difference_jvp(srcad.hessian(f), (x,), (1.0,))
    close(srcad.grad(srcad.grad(srcad.grad(f)))(x), third)
    close(srcad.jacobian(srcad.jacobian(srcad.jacobian(f)))(x), third)
    close(srcad.jacobian(srcad.hessian(f))(x), third)
    close(srcad.jvp(srcad.hessian(f), (x,), (1.0,))[1], third)


FOURTH = [
    tf.map_of_one_tuple_and_constants, tf.map_of_a_partial, tf.map_over_rows_of_an_array,
    tf.star_of_a_tuple, tf.star_of_a_list_after_an_argument, tf.star_of_an_array,
    tf.star_into_a_method, tf.partial_of_a_variable, tf.partial_of_constants_and_variables,
    tf.partial_called_with_a_star, tf.partial_of_a_ufunc, tf.star_into_a_ufunc,
    tf.partials_in_a_star,
]  # fmt: skip


@pytest.mark.parametrize("f", FOURTH, ids=lambda f: f.__name__)
def test_fourth_derivatives_match_differences_of_the_third(f):
    """`f(*args)` and a partial four deep (`fourth_order_calls._unpacked_nested`, and
    `_call_nested` through a partial's function with the bound arguments in front), and a
    ufunc called as a value (through the registered forward rules nested, or the function
    that calls it, `primitive_callers`)."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    close(srcad.grad(third)(0.7), finite_difference_jvp(third, (0.7,), (1.0,)))


@pytest.mark.parametrize(
    "f", [tf.star_of_a_tuple, tf.partial_of_a_variable, tf.map_of_one_tuple_and_constants],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_fourth_derivatives_forward_over_forward(f):
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    four = f
    for _ in range(4):
        four = srcad.jacobian(four, mode="forward")
    close(four(0.7), finite_difference_jvp(third, (0.7,), (1.0,)))


OPTIONS = [
    tf.options_by_keyword, tf.options_by_position, tf.options_of_a_partial,
    tf.options_after_a_star,
]  # fmt: skip


@pytest.mark.parametrize("f", OPTIONS, ids=lambda f: f.__name__)
def test_fourth_derivatives_through_a_function_with_a_rule_given_options(f):
    """A function with a registered rule, called as a value with options, by keyword or by
    position (`np.tensordot`'s `axes`), in a partial or after a star:
    the function that calls it takes the call's positional arguments and keywords
    (`primitive_callers.primitive_caller`), the options by position in its nested forward
    rules, so that an int option is compiled as an int (was refused)."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    close(srcad.grad(third)(0.7), finite_difference_jvp(third, (0.7,), (1.0,)))


def test_fourth_derivatives_given_options_forward_over_forward():
    """Forward mode four deep through a partial of `np.tensordot` with `axes=1`."""
    f = tf.options_of_a_partial
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    four = f
    for _ in range(4):
        four = srcad.jacobian(four, mode="forward")
    close(four(0.7), finite_difference_jvp(third, (0.7,), (1.0,)))


@pytest.mark.parametrize(
    "f", [tf.map_of_two_lists, tf.map_of_a_callable_object], ids=lambda f: f.__name__
)
def test_fourth_derivatives_through_map_of_python_functions(f):
    """`map_frule_frule` is plain code over `call_frule_frule`, whose forward rules four
    deep a Python function has (`fourth_order_calls._call_nested`): srcad compiles it."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    close(srcad.grad(third)(0.7), finite_difference_jvp(third, (0.7,), (1.0,)))

"""Third derivatives through calls of values known only at run time: `map`, `f(*args)` and
`functools.partial` (`rules/third_order_calls.py`: `map_frule_frule`,
`unpacked_call_frule_frule`, and a partial's call through its function), with `grad` three
deep, `jacobian` three deep and `jacobian` of `hessian`, against central differences of
the Hessian; fourth derivatives through them are refused, never a number."""

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


@pytest.mark.parametrize(
    "f", [tf.map_of_one_tuple_and_constants, tf.star_of_a_tuple, tf.partial_of_a_variable],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_fourth_derivatives_are_refused(f):
    """`f(*args)` and a partial have no forward rules four deep, nor a ufunc called as a
    value (here by `map`): an error, never a number."""
    with pytest.raises(srcad.SrcadError):
        srcad.grad(srcad.grad(srcad.grad(srcad.grad(f))))(0.7)


@pytest.mark.parametrize(
    "f", [tf.map_of_two_lists, tf.map_of_a_callable_object], ids=lambda f: f.__name__
)
def test_fourth_derivatives_through_map_of_python_functions(f):
    """`map_frule_frule` is plain code over `call_frule_frule`, whose forward rules four
    deep a Python function has (`fourth_order_calls._call_nested`): srcad compiles it."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    close(srcad.grad(third)(0.7), finite_difference_jvp(third, (0.7,), (1.0,)))

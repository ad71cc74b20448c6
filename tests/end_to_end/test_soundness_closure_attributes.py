"""A nested function or lambda reading a variable of the enclosing function (fuzzer seed
1470: `def g(s): return x.T` gave zero derivatives in every mode). Each way Python allows
(an attribute, a method call, a subscript, a comprehension, a function nested two or three
deep, with names that an inner scope shadows) carries the derivative, checked against
central finite differences in every entry point; a default value reading a differentiated
value is refused with a located diagnostic.
"""

import importlib.util
import inspect
import pathlib

import numpy as np
import pytest

import srcad
from srcad.tangents import materialize
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "soundness_closure_functions", HERE / "soundness_closure_functions.py"
)
sc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sc)
FILE = str(HERE / "soundness_closure_functions.py")

X = np.arange(1.0, 7.0).reshape(2, 3) / 7 + 0.1
Y = np.array([0.4, -0.3])


def line_of(function, text):
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def close(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def tangent_like(x):
    return np.full(np.shape(x), 0.7) if isinstance(x, np.ndarray) else 0.7


def check_every_mode(f, args, position):
    """`grad` (twice: the second call takes the specialised branch), `value_and_grad`,
    `rrule`, `vjp`, `jacobian` in both modes, `jvp` and `frule`, for the argument at
    `position`, against finite differences."""
    y = f(*args)
    want = finite_difference_vjp(f, args, 1.0, position)
    # Every function here reads its first argument `x` only from a nested function: a
    # derivative with respect to it that is trivially zero would check nothing.
    assert position != 0 or np.any(want != 0)
    gradient = srcad.grad(f, wrt=position)
    close(gradient(*args), want)
    close(gradient(*args), want)
    value, got = srcad.value_and_grad(f, wrt=position)(*args)
    close(value, y)
    close(got, want)
    _, pullback = srcad.rrule(f, *args)
    close(materialize(pullback(1.0)[1 + position], args[position]), want)
    _, vjp_fn = srcad.vjp(f, *args)
    close(materialize(vjp_fn(1.0)[position], args[position]), want)
    close(srcad.jacobian(f, wrt=position)(*args), want)
    close(srcad.jacobian(f, wrt=position, mode="forward")(*args), want)
    tangents = tuple(
        tangent_like(a) if i == position else srcad.ZeroTangent() for i, a in enumerate(args)
    )
    want_dot = finite_difference_jvp(f, args, tangents)
    y_jvp, y_dot = srcad.jvp(f, args, tangents)
    close(y_jvp, y)
    close(y_dot, want_dot)
    _, y_dot = srcad.frule((srcad.NoTangent(), *tangents), f, *args)
    close(materialize(y_dot, y), want_dot)


ARRAY_READS = [
    sc.attribute_of_captured,
    sc.attribute_of_captured_times_parameter,
    sc.lambda_reads_attribute,
    sc.no_parameters_reads_attribute,
    sc.real_part_of_captured,
    sc.method_of_captured,
    sc.method_with_axis_of_captured,
    sc.shape_then_value_of_captured,
    sc.subscript_of_captured,
    sc.comprehension_over_captured,
    sc.comprehension_reads_captured,
    sc.nested_nested_reads_attribute,
    sc.nested_nested_reads_middle_local,
    sc.three_deep_reads_attribute,
    sc.captured_attribute_in_loop,
    sc.default_reads_only_constants,
    sc.comprehension_variable_shadows_captured,
    sc.inner_parameter_shadows_captured,
]
FLOAT_READS = [sc.scalar_captured, sc.scalar_lambda_reads_attribute, sc.scalar_nested_nested]


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", ARRAY_READS, ids=lambda f: f.__name__)
def test_a_nested_function_s_read_of_an_enclosing_array_carries_its_derivative(function, position):
    check_every_mode(function, (X, Y), position)


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", FLOAT_READS, ids=lambda f: f.__name__)
def test_a_nested_function_s_read_of_an_enclosing_float_carries_its_derivative(function, position):
    check_every_mode(function, (0.8, 1.3), position)


def test_the_fuzzer_s_seed_1470_has_the_mean_s_gradient():
    # mean(x.T) over 12 elements: each element's derivative is 1/12; y is not read.
    x, y = np.ones((3, 4)), np.ones(3)
    grad_x, grad_y = srcad.grad(sc.attribute_of_captured, wrt=(0, 1))(x, y)
    np.testing.assert_array_equal(grad_x, np.full((3, 4), 1 / 12))
    np.testing.assert_array_equal(grad_y, np.zeros(3))
    _, y_dot = srcad.jvp(sc.attribute_of_captured, (x, y), (np.ones((3, 4)), np.zeros(3)))
    assert y_dot == pytest.approx(1.0)


@pytest.mark.parametrize("position", [0, 1])
def test_a_default_value_reading_a_differentiated_value_carries_its_derivative(position):
    # Computed where the `def` runs and passed by the call (passes/transforms/nested_defaults.py).
    check_every_mode(sc.default_argument_reads_attribute, (X, Y), position)

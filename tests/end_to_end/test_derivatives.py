"""jvp, vjp, Jacobians (both modes), Hessians, Hessian-vector products and second
derivatives, against finite differences."""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("derivative_functions",
                                              HERE / "derivative_functions.py")  # fmt: skip
df = importlib.util.module_from_spec(spec)
spec.loader.exec_module(df)

rng = np.random.default_rng(9)
STEP = 1e-5


def numeric_jacobian(f, args, position):
    """Central differences, one input element at a time."""
    x = np.asarray(args[position], dtype=float)
    columns = []
    for index in range(x.size):
        shifted = []
        for sign in (1.0, -1.0):
            moved = x.copy()
            moved.reshape(-1)[index] += sign * STEP
            value = moved if np.ndim(args[position]) else float(moved)
            shifted.append(np.asarray(f(*args[:position], value, *args[position + 1 :])))
        columns.append((shifted[0] - shifted[1]) / (2 * STEP))
    out_shape = np.shape(f(*args))
    return np.stack(columns, axis=-1).reshape(out_shape + x.shape)


def numeric_hessian(f, args, position):
    def gradient(*a):
        return numeric_jacobian(f, a, position)

    return numeric_jacobian(gradient, args, position)


HESSIANS = [
    ("polynomial", df.polynomial, (0.7,), 0),
    ("trig_x", df.trig, (0.7, -0.4), 0),
    ("trig_y", df.trig, (0.7, -0.4), 1),
    ("rosenbrock_x", df.rosenbrock, (0.8, 1.3), 0),
    ("rosenbrock_y", df.rosenbrock, (0.8, 1.3), 1),
    ("energy", df.energy, (rng.standard_normal(3), rng.standard_normal((3, 3))), 0),
    ("quadratic_form", df.quadratic_form, (rng.standard_normal(3), rng.standard_normal((3, 3))), 0),
    ("softplus_norm", df.softplus_norm, (rng.standard_normal(3),), 0),
    ("gaussian_x", df.gaussian_log_density, (rng.standard_normal(3), rng.standard_normal(3)), 0),
    ("gaussian_mu", df.gaussian_log_density, (rng.standard_normal(3), rng.standard_normal(3)), 1),
    ("branch_positive", df.with_branch, (0.8,), 0),
    ("branch_negative", df.with_branch, (-0.8,), 0),
    ("loop", df.with_loop, (0.7, 1.3), 0),
    ("call", df.with_call, (0.4,), 0),
    ("while", df.with_while, (2.0,), 0),
    ("rosenbrock_vector", df.rosenbrock_vector, (rng.uniform(0.5, 1.5, 4),), 0),
    ("softplus_sum", df.softplus_sum, (rng.standard_normal(3),), 0),
    ("mlp_loss", df.mlp_loss, (rng.standard_normal((3, 2)), rng.standard_normal((4, 3))), 0),
]  # fmt: skip


@pytest.mark.parametrize(("function", "args", "position"), [c[1:] for c in HESSIANS],
                         ids=[c[0] for c in HESSIANS])  # fmt: skip
def test_hessian_matches_finite_differences(function, args, position):
    expected = numeric_hessian(function, args, position)
    actual = srcad.hessian(function, wrt=position)(*args)
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("function", "args", "position"),
                         [c[1:] for c in HESSIANS if np.ndim(c[2][c[3]]) == 0],
                         ids=[c[0] for c in HESSIANS if np.ndim(c[2][c[3]]) == 0])  # fmt: skip
def test_grad_of_grad_is_the_second_derivative(function, args, position):
    expected = numeric_hessian(function, args, position)
    first = srcad.grad(function, wrt=position)
    assert srcad.grad(first, wrt=position)(*args) == pytest.approx(float(expected), rel=1e-4)


def test_hessian_vector_product_is_a_hessian_column_combination():
    x, a = rng.standard_normal(3), rng.standard_normal((3, 3))
    v = rng.standard_normal(3)
    hv = srcad.hessian_vector_product(df.energy)(x, a, v)
    np.testing.assert_allclose(hv, srcad.hessian(df.energy)(x, a) @ v, rtol=1e-10)


def test_hessian_with_respect_to_two_arguments_gives_blocks():
    args = (0.7, -0.4)
    blocks = srcad.hessian(df.trig, wrt=(0, 1))(*args)
    assert float(blocks[0][1]) == pytest.approx(float(blocks[1][0]))
    expected = numeric_jacobian(lambda x, y: numeric_jacobian(df.trig, (x, y), 0), args, 1)
    assert float(blocks[0][1]) == pytest.approx(float(expected), rel=1e-4)


JACOBIANS = [
    ("vector_output_x", df.vector_output, (rng.standard_normal(3), rng.standard_normal(3)), 0),
    ("vector_output_w", df.vector_output, (rng.standard_normal(3), rng.standard_normal(3)), 1),
    ("rnn_state", df.rnn_state, (rng.standard_normal((2, 2)) * 0.5, rng.normal(size=(4, 2))), 0),
    ("scalar_output", df.energy, (rng.standard_normal(3), rng.standard_normal((3, 3))), 0),
]  # fmt: skip


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize(("function", "args", "position"), [c[1:] for c in JACOBIANS],
                         ids=[c[0] for c in JACOBIANS])  # fmt: skip
def test_jacobian_matches_finite_differences(function, args, position, mode):
    expected = numeric_jacobian(function, args, position)
    actual = srcad.jacobian(function, wrt=position, mode=mode)(*args)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-7)


def test_jvp_and_vjp_are_transposes():
    x, w = rng.standard_normal(3), rng.standard_normal(3)
    v, y_bar = rng.standard_normal(3), rng.standard_normal(3)
    _, y_dot = srcad.jvp(df.vector_output, (x, w), (v, srcad.ZeroTangent()))
    _, vjp_fn = srcad.vjp(df.vector_output, x, w)
    x_bar, _ = vjp_fn(y_bar)
    assert np.dot(y_bar, y_dot) == pytest.approx(np.dot(x_bar, v))


def test_frule_of_a_decorated_function_and_its_forward_source():
    decorated = srcad.differentiate(df.with_loop)
    _, y_dot = decorated.frule((srcad.NoTangent(), 1.0, 0.0), 0.7, 1.3)
    assert y_dot == pytest.approx(float(numeric_jacobian(df.with_loop, (0.7, 1.3), 0)))
    text = decorated.source(mode="forward")
    assert "def frule_with_loop(dargs, x, w):" in text
    assert "_dot" in text

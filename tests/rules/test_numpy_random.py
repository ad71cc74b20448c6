"""NumPy's random draws (`rules/numpy_random.py`): their values are NumPy's, bit for bit;
their derivatives, with the stream held, against central differences of functions that
draw from a seed they make (so both points draw the same numbers), in both modes and to
second order; draws with no float parameter are constants, even where srcad does not
know the kind of what their shape is read from (found on autograd's variational
autoencoder example, `rs.randn(*mean.shape)`); draws without a written derivative are
refused when a differentiated value may reach them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import MissingRuleError
from srcad.rules import numpy_random
from tests.conftest import close, difference

GENERATORS = [np.random.RandomState, np.random.default_rng]

PARAMETERS = [
    ((0.3, 2.0), None),
    ((np.array([0.1, -0.4, 0.9]), 1.5), None),
    ((np.array([[0.2], [1.0]]), np.array([0.5, 1.0, 2.0])), None),
    ((0.3, np.array([1.0, 2.0])), (4, 2)),
    ((1.0, 3.0), (2, 3)),
]


@pytest.mark.parametrize("make", GENERATORS, ids=["RandomState", "Generator"])
@pytest.mark.parametrize("name", ["normal", "lognormal", "uniform", "exponential"])
@pytest.mark.parametrize(("parameters", "size"), PARAMETERS)
def test_the_definitions_draw_numpys_values(make: Any, name: str, parameters: Any, size: Any
                                            ) -> None:  # fmt: skip
    """srcad computes a draw from the standard draw of the same stream, as NumPy does:
    the same numbers, the stream left where NumPy leaves it, and NumPy's errors."""
    if name == "exponential":
        parameters = (np.abs(parameters[1]),)
    ours, numpys = make(7), make(7)
    definition = getattr(numpy_random, name)
    try:
        want = getattr(numpys, name)(*parameters, size=size)
    except ValueError as error:  # `Generator.uniform` with high below low: refused alike
        with pytest.raises(ValueError, match=str(error)):
            definition(ours, *parameters, size)
        return
    got = definition(ours, *parameters, size)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ours.random(3) if hasattr(ours, "random") else ours.rand(3),
                                  numpys.random(3) if hasattr(numpys, "random")
                                  else numpys.rand(3))  # fmt: skip


def reparameterised(x):
    rng = np.random.default_rng(3)
    z = rng.normal(x[0], np.exp(x[1]), size=4)
    u = rng.uniform(x[2], x[2] + x[0] ** 2, size=4)
    return np.sum(z * u) + np.sum(rng.lognormal(x[1], 0.5 * x[2], size=2))


def legacy(x):
    rs = np.random.RandomState(5)
    w = rs.normal(x[:2], 0.3) + rs.exponential(np.exp(x[1]))
    return np.sum(np.sin(w) * rs.uniform(0.0, x[2], size=2))


def module_functions(x):
    np.random.seed(11)
    return np.sum(np.random.normal(x[0], x[1] ** 2, size=3) ** 2) + np.random.uniform(x[2])


def noise_of_an_unknown_shape(params, seed):
    """`rs.randn(*mean.shape)` with `mean` computed from a list of tuples, whose kind srcad
    does not know: the shape's read was taken as maybe differentiated, and the draw had no
    rule."""
    rs = np.random.RandomState(seed)
    w, b = params[0]
    mean = np.tanh(np.dot(np.ones((3, 2)), w) + b)
    return np.sum((rs.randn(*mean.shape) * np.exp(mean) + mean) ** 2)


POINT = np.array([0.4, -0.3, 0.8])


@pytest.mark.parametrize("f", [reparameterised, legacy, module_functions],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_pathwise_derivatives(f: Any) -> None:
    close(srcad.grad(f)(POINT), difference(f, (POINT,)))
    for v in np.eye(3):
        close(srcad.jvp(f, (POINT,), (v,))[1], difference(f, (POINT,)) @ v)
    close(srcad.hessian(f)(POINT), difference(srcad.grad(f), (POINT,)))
    close(srcad.jacobian(f, mode="forward")(POINT), difference(f, (POINT,)))


def test_draws_with_no_float_parameter_are_constants() -> None:
    params = [(np.array([[0.5, -1.0, 0.2], [0.3, 0.1, 0.4]]), np.array([0.1, 0.2, -0.3]))]
    gradient = srcad.grad(noise_of_an_unknown_shape)(params, 0)
    step = 1e-6
    w, b = params[0]
    for k in range(w.size):
        moved = w.copy().reshape(-1)
        moved[k] += step
        above = noise_of_an_unknown_shape([(moved.reshape(w.shape), b)], 0)
        moved[k] -= 2 * step
        below = noise_of_an_unknown_shape([(moved.reshape(w.shape), b)], 0)
        close(gradient[0][0].reshape(-1)[k], (above - below) / (2 * step))


def gamma_draw(k):
    return np.sum(np.random.default_rng(0).gamma(k, 1.0, size=3))


def chosen(xs):
    return np.random.default_rng(0).choice(xs) * 2.0


def constant_shape(k):
    return k * np.random.default_rng(0).gamma(2.0, 1.0)


@pytest.mark.parametrize("f", [gamma_draw, chosen], ids=lambda f: f.__name__)
def test_draws_without_a_written_derivative_are_refused(f: Any) -> None:
    with pytest.raises(MissingRuleError):
        srcad.grad(f)(np.array([1.5, 2.5]) if f is chosen else 1.5)


def test_a_draw_with_constant_parameters_is_a_constant() -> None:
    close(srcad.grad(constant_shape)(1.5), np.random.default_rng(0).gamma(2.0, 1.0))

"""Generator functions consumed in the same program, differentiated as the list of what they
yield (`passes/transforms/generators.py`), and `zip(*pairs)`: against central finite
differences in both modes, and to second order. A generator that may not end, or whose
`yield` is an expression, stays refused at its line."""

import inspect

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_jvp, finite_difference_vjp
from tests.end_to_end import generator_functions as m

RNG = np.random.default_rng(3)
PARAMS = [RNG.normal(size=(3, 2)), RNG.normal(size=3), RNG.normal(size=(2, 3)), RNG.normal(size=2)]
V = np.array([0.3, -0.7, 1.1, 0.4, -0.2])


def close(got, want):
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), 1e-6, 1e-8)


CASES = [
    (m.window_energy, (V,)),
    (m.window_energy, (V[:4],)),
    (m.consumed_by_builtins, (V,)),
    (m.zipped_with, (V,)),
    (m.zip_star, (0.7, -0.4)),
    (m.zip_star, (1.5, 2.0)),
    (m.zip_star_arrays, (V,)),
]


@pytest.mark.parametrize(("f", "args"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_both_modes(f, args):
    positions = tuple(range(len(args)))
    value, gradient = srcad.value_and_grad(f, wrt=positions)(*args)
    close(value, f(*args))
    for position, g in enumerate(gradient):
        close(g, finite_difference_vjp(f, args, 1.0, position))
    tangents = tuple(np.full(np.shape(a), 0.3) if np.ndim(a) else 0.3 for a in args)
    _, y_dot = srcad.jvp(f, args, tangents)
    close(y_dot, finite_difference_jvp(f, args, tangents))
    check_rrule(f, *args)
    check_frule(f, *args)


TWICE = CASES  # `zip(*pairs)` too: `unpacked_call`'s forward rule has a reverse rule


@pytest.mark.parametrize(("f", "args"), TWICE, ids=lambda v: getattr(v, "__name__", ""))
def test_second_order(f, args):
    """The Hessian with respect to the first argument, against central differences of the
    gradient (itself checked against differences of `f` above)."""
    x, rest = args[0], args[1:]
    hessian = np.asarray(srcad.hessian(f)(*args))
    gradient = srcad.grad(f)
    size = int(np.size(x))
    for index in range(size):
        basis = np.zeros(size)
        basis[index] = 1.0
        direction = basis.reshape(np.shape(x)) if np.ndim(x) else 1.0
        zero = tuple(srcad.ZeroTangent() for _ in rest)
        column = finite_difference_jvp(gradient, args, (direction, *zero))
        close(hessian.reshape(size, size)[:, index], np.reshape(column, size))


def test_a_network_of_layers_unpacked_by_a_generator():
    x = np.array([0.5, -1.0])
    gradient = srcad.grad(m.network)(PARAMS, x)
    assert isinstance(gradient, list)
    for position, g in enumerate(gradient):
        direction = [np.zeros_like(p) for p in PARAMS]
        direction[position] = np.ones_like(PARAMS[position])
        zero = np.zeros_like(x)
        want = finite_difference_jvp(m.network, (PARAMS, x), (direction, zero))
        close(np.sum(g), want)
    _, y_dot = srcad.jvp(m.network, (PARAMS, x), ([np.ones_like(p) for p in PARAMS], 0 * x))
    close(y_dot, sum(np.sum(g) for g in gradient))


def test_the_generator_itself_still_runs_lazily():
    """Only srcad's compiled code builds the list: a call of the function is untouched."""
    assert inspect.isgenerator(m.squares(V))
    assert inspect.isgenerator(m.countdown(1.0))


def _line(f, text):
    lines, start = inspect.getsourcelines(f)
    return start + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize(
    ("f", "generator", "text"),
    [(m.endless, m.countdown, "yield x"), (m.uses_send, m.sends, "received = yield x")],
)
def test_generators_that_may_not_end_or_receive_values_are_refused(f, generator, text):
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(f)(0.7)
    lines = {(d.code, d.line) for d in caught.value.diagnostics}
    assert ("E102", _line(generator, text)) in lines

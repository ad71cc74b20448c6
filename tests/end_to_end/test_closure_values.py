"""Nested functions and lambdas reading differentiated values, passed as values (issue 20):
to `map`, `functools.reduce`, `itertools.accumulate` and a Python function srcad compiles,
each is passed what it reads (`passes/transforms/closure_values.py`: `partial(f, w)`), and
a `key=` of `sorted`, `min` or `max` takes no derivative. Against central differences in
both modes and to second order; where the function escapes, or what it reads is bound
again, E212 stays, at the function."""

import importlib.util
import inspect
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "closure_value_functions", HERE / "closure_value_functions.py"
)
cf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cf)
FILE = str(HERE / "closure_value_functions.py")

X = np.arange(1.0, 7.0).reshape(2, 3) / 7 + 0.1
Y = np.array([0.4, -0.3])
ARGS = (X, Y)


def close(got, want, rtol=1e-6, atol=1e-8):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", cf.PASSED, ids=lambda f: f.__name__)
def test_both_modes(function, position):
    want = finite_difference_vjp(function, ARGS, 1.0, position)
    value, got = srcad.value_and_grad(function, wrt=position)(*ARGS)
    close(value, function(*ARGS))
    close(got, want)
    tangents = tuple(
        np.full(a.shape, 0.7) if i == position else srcad.ZeroTangent() for i, a in enumerate(ARGS)
    )
    y, y_dot = srcad.jvp(function, ARGS, tangents)
    close(y, function(*ARGS))
    close(y_dot, finite_difference_jvp(function, ARGS, tangents))


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", cf.PASSED, ids=lambda f: f.__name__)
def test_second_order(function, position):
    size = ARGS[position].size

    def gradient_element(k):
        return lambda *args: np.ravel(srcad.grad(function, wrt=position)(*args))[k]

    want = np.stack(
        [finite_difference_vjp(gradient_element(k), ARGS, 1.0, position).ravel()
         for k in range(size)]
    )  # fmt: skip
    got = srcad.hessian(function, wrt=position)(*ARGS)
    close(np.reshape(got, (size, size)), want, rtol=1e-5, atol=1e-6)


def test_the_function_passed_takes_what_it_reads():
    """The emitted code passes `w` to the lifted lambda through `partial`: the derivative
    through the calls `map` makes reaches it."""
    text = srcad.source(cf.mapped_with_a_captured_weight, args=ARGS)
    assert "partial_rrule(_lambda_" in text, text


def line_of(function, text):
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


REFUSED = [
    (cf.stored_in_a_list, "functions = [lambda v: v * w]"),
    (cf.read_again_after_a_rebinding, "return sum(map(scaled, [y[0], y[1]]))"),
    (cf.captured_from_a_loop, "total = total + sum(map(lambda v: v * w, [y[0], y[1]]))"),
    (cf.returned, "return apply(lambda v: v * w, y[0]), lambda v: v * w"),
    (cf.also_read_by_another_nested_function, "return sum(map(f, [y[0], y[1]])) + g(y[0])"),
]


@pytest.mark.parametrize("function, text", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_an_escaping_or_changing_closure_stays_refused(function, text):
    for call in (
        lambda: srcad.grad(function)(*ARGS),
        lambda: srcad.jvp(function, ARGS, ARGS),
    ):
        with pytest.raises(srcad.SrcadError) as caught:
            call()
        found = [(d.file, d.line, d.code) for d in caught.value.diagnostics]
        assert (FILE, line_of(function, text), "E212") in found, found

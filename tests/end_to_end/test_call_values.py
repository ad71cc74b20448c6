"""`dict(a=x)` (the display `{"a": x}` in the normal form), `sorted` and `reversed` of lists
of floats (rules that move each item's cotangent back to its place; a `key` only orders),
lambdas used as values (bound to names first: `passes/transforms/lambdas.py`) and partials
made in the function (their bound arguments' cotangents are the partial's own): against
central finite differences, reverse and forward, and to second order."""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "call_value_functions", HERE / "call_value_functions.py"
)
cv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cv)

X = np.arange(1.0, 7.0).reshape(2, 3) / 7 + 0.1
Y = np.array([0.4, -0.3])
ARGS = (X, Y)


def close(got, want, rtol=1e-6, atol=1e-8):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", cv.CALLS, ids=lambda f: f.__name__)
def test_both_modes(function, position):
    want = finite_difference_vjp(function, ARGS, 1.0, position)
    close(srcad.grad(function, wrt=position)(*ARGS), want)
    close(srcad.jacobian(function, wrt=position, mode="forward")(*ARGS), want)
    tangents = tuple(
        np.full(a.shape, 0.7) if i == position else srcad.ZeroTangent() for i, a in enumerate(ARGS)
    )
    _, y_dot = srcad.jvp(function, ARGS, tangents)
    close(y_dot, finite_difference_jvp(function, ARGS, tangents))


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", cv.SECOND_ORDER, ids=lambda f: f.__name__)
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


@pytest.mark.parametrize(
    "values",
    [[0.3, -1.2, 0.7, 2.0], np.array([0.5, -0.25, 1.5]), (2.0, 1.0)],
    ids=["list", "array", "tuple"],
)
def test_the_rules_alone(values):
    for options in ({}, {"reverse": True}, {"key": abs}):
        check_rrule(sorted, values, **options)
        check_frule(sorted, values, **options)
    check_rrule(lambda v: list(reversed(v)), values)
    check_frule(lambda v: list(reversed(v)), values)


def test_ties_keep_python_s_order():
    """The rule sorts positions by the same keys, so its order is `sorted`'s, ties too."""
    from srcad.rules.builtins import sorted_rrule

    values = [0.5, -0.5, 0.25, -0.25, 0.5]
    for options in ({"key": abs}, {"key": abs, "reverse": True}, {}):
        y, pullback = sorted_rrule(values, **options)
        assert y == sorted(values, **options)
        _, bars = pullback([1.0, 2.0, 3.0, 4.0, 5.0])
        moved = list(bars)
        assert sorted(moved) == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert [values[i] for i in np.argsort(moved)] == y


def test_a_lambda_passed_on_that_reads_a_differentiated_value_is_passed_it():
    """Its pullback sends a cotangent to `x` through the function value: the lambda is
    passed `x` (`partial`, `passes/transforms/closure_values.py`; once refused, E212)."""
    for position in (0, 1):
        want = finite_difference_vjp(cv.lambda_passed_on_reads_x, ARGS, 1.0, position)
        close(srcad.grad(cv.lambda_passed_on_reads_x, wrt=position)(*ARGS), want)
        tangents = tuple(np.full(a.shape, 0.7) if i == position else srcad.ZeroTangent()
                         for i, a in enumerate(ARGS))  # fmt: skip
        _, y_dot = srcad.jvp(cv.lambda_passed_on_reads_x, ARGS, tangents)
        close(y_dot, finite_difference_jvp(cv.lambda_passed_on_reads_x, ARGS, tangents))


def test_a_partial_binding_a_differentiated_keyword_stays_refused():
    """Keyword arguments are never differentiated: at the keyword (E211)."""
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(cv.partial_binding_a_differentiated_keyword, wrt=1)(*ARGS)
    assert [d.code for d in caught.value.diagnostics] == ["E211"]

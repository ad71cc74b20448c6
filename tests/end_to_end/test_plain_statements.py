"""Statements that do not touch the derivative (issue 20) run in the forward sweep:
`assert` (its test as an atom, its message only where it fails), `print` and logging calls,
f-strings (their formatted values atoms, the string carries nothing), and `for`/`while ...
else` (a flag that each `break` of the loop clears, tested after it: `to_anf._loop_else`).
Each against central finite differences, reverse and forward, and to second order."""

import importlib.util
import logging
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "plain_statement_functions", HERE / "plain_statement_functions.py"
)
ps = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ps)

X = np.arange(1.0, 7.0).reshape(2, 3) / 7 + 0.1
Y = np.array([0.4, -0.3])
ARGS = (X, Y)


def close(got, want, rtol=1e-6, atol=1e-8):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", ps.PLAIN, ids=lambda f: f.__name__)
def test_both_modes(function, position):
    want = finite_difference_vjp(function, ARGS, 1.0, position)
    close(srcad.grad(function, wrt=position)(*ARGS), want)
    value, got = srcad.value_and_grad(function, wrt=position)(*ARGS)
    close(value, function(*ARGS))
    close(got, want)
    close(srcad.jacobian(function, wrt=position, mode="forward")(*ARGS), want)
    tangents = tuple(
        np.full(a.shape, 0.7) if i == position else srcad.ZeroTangent() for i, a in enumerate(ARGS)
    )
    _, y_dot = srcad.jvp(function, ARGS, tangents)
    close(y_dot, finite_difference_jvp(function, ARGS, tangents))


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", ps.PLAIN, ids=lambda f: f.__name__)
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


def test_print_runs_once_in_the_forward_sweep(capsys):
    ps.prints(*ARGS)
    by_python = capsys.readouterr().out
    assert "total" in by_python
    srcad.grad(ps.prints)(*ARGS)
    assert capsys.readouterr().out == by_python
    srcad.jvp(ps.prints, ARGS, ARGS)
    assert capsys.readouterr().out == by_python


def test_logging_calls_run(caplog):
    with caplog.at_level(logging.DEBUG, logger="srcad.tests.plain_statements"):
        srcad.grad(ps.logs)(*ARGS)
        srcad.jvp(ps.logs, ARGS, ARGS)
    assert [r.getMessage().split()[0] for r in caplog.records] == ["sum", "mean"] * 2


def test_a_failing_assert_raises_its_own_error_in_both_modes():
    for call in (
        lambda: srcad.grad(ps.asserts_false)(*ARGS),
        lambda: srcad.jvp(ps.asserts_false, ARGS, ARGS),
        lambda: srcad.hessian(ps.asserts_false)(*ARGS),
    ):
        with pytest.raises(AssertionError, match=r"sum -?\d+\.\d\d is small"):
            call()

"""`scipy.integrate`'s ODE solvers are refused (rules/scipy_integrate.py): at the user's
line, with the reason, in both modes, never with the problems of SciPy's own source, and
never with a wrong or zero derivative. Skipped where SciPy is not installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")

import srcad  # noqa: E402
from srcad.errors import MissingRuleError  # noqa: E402

TIMES = np.linspace(0.0, 1.0, 5)


def decay(y: np.ndarray, t: float) -> Any:
    return -0.5 * y


def odeint_loss(y0: np.ndarray) -> Any:
    return np.sum(integrate.odeint(decay, y0, TIMES))


def decay_ivp(t: float, y: np.ndarray) -> Any:
    return -0.5 * y


def solve_ivp_loss(y0: np.ndarray) -> Any:
    solution = integrate.solve_ivp(decay_ivp, (0.0, 1.0), y0)
    return np.sum(solution.y[:, -1])


@pytest.mark.parametrize(("f", "name"), [(odeint_loss, "odeint"), (solve_ivp_loss, "solve_ivp")])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_ode_solvers_are_refused_at_the_users_line(f: Any, name: str, mode: str) -> None:
    y0 = np.array([1.0, 2.0])
    with pytest.raises(MissingRuleError) as refused:
        if mode == "reverse":
            srcad.grad(f)(y0)
        else:
            srcad.jvp(f, (y0,), (np.ones(2),))
    (diagnostic,) = refused.value.diagnostics
    assert diagnostic.code == "E210"
    assert diagnostic.file == __file__
    assert f"`integrate.{name}`" in diagnostic.message and "adjoint method" in diagnostic.message
    assert "site-packages" not in str(refused.value)


def test_a_constant_ode_solution_is_still_computed() -> None:
    """Refused only where differentiated: a solution that depends on no input is a constant."""

    def loss(x: np.ndarray) -> Any:
        return np.sum(x * integrate.odeint(decay, np.array([1.0, 2.0]), TIMES)[-1])

    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(srcad.grad(loss)(x), np.exp(-0.5) * np.array([1.0, 2.0]), 1e-6)


def test_a_solver_passed_to_the_api_is_refused_with_the_reason() -> None:
    with pytest.raises(MissingRuleError, match="adjoint method"):
        srcad.rrule(integrate.odeint, decay, np.array([1.0, 2.0]), TIMES)
    with pytest.raises(MissingRuleError, match="adjoint method"):
        dots = (srcad.NoTangent(), srcad.NoTangent(), np.ones(2), srcad.ZeroTangent())
        srcad.frule(dots, integrate.odeint, decay, np.array([1.0, 2.0]), TIMES)

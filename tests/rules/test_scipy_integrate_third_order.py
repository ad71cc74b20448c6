"""Third derivatives through `scipy.integrate.odeint` and `solve_ivp`
(`rules/scipy_integrate_third_order.py`: their forward rules' forward rules solve the tangent
equation of the tangent equation, whose right-hand side is
`third_order_calls.call_frule_frule`, and their reverse rules are the adjoint method on
that system): `grad` three deep, `jacobian` of `hessian` and `jacobian` three deep, in the
initial state, a parameter in `args`, a callable object's field and a partial's argument,
against central differences of the Hessian (the tolerances tight). What stays refused
(times that move, `solve_ivp`'s own interior steps) is an error, never a number. Skipped
where SciPy is not installed."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")

import srcad  # noqa: E402
from srcad.errors import MissingRuleError  # noqa: E402
from tests.conftest import difference  # noqa: E402
from tests.rules.test_scipy_integrate_second_order import (  # noqa: E402
    Decay,
    odeint_in_the_times,
    rhs,
    rhs_first,
)

# A short span and tight tolerances: each system is solved in few steps (each a call of
# the reverse rule of `call_frule_frule`, milliseconds), and differences of the Hessian
# resolve the third derivative.
Y0 = np.array([1.0, 0.5])
TIMES = np.array([0.0, 0.4])


def odeint_in_a_parameter(k):
    ys = integrate.odeint(rhs, Y0, TIMES, args=(k,), rtol=1e-9, atol=1e-9)
    return np.sum(ys**2) * k


def odeint_of_a_callable_object(r):
    """In the initial state and a callable object's field, beside a constant object (whose
    tangents' own tangents are zeros)."""
    ys = integrate.odeint(Decay(r * r), Y0 * r, TIMES, rtol=1e-9, atol=1e-9)
    still = integrate.odeint(Decay(0.5), Y0 * r, TIMES, rtol=1e-9, atol=1e-9)
    return np.sum(ys[-1] ** 3) + np.sum(still[-1] ** 2)


def _first_in_time(k, t, y, c):
    return rhs(y, t, k) * c


def odeint_of_a_partial_first_in_time(k):
    """`tfirst=True`, the parameter bound in a partial and one in `args`, `full_output`."""
    ys, _ = integrate.odeint(functools.partial(_first_in_time, k), Y0, TIMES, (1.0 + k * k,),
                             tfirst=True, full_output=True, rtol=1e-9, atol=1e-9)  # fmt: skip
    return np.sum(np.sin(ys))


SCALARS = [odeint_in_a_parameter, odeint_of_a_callable_object, odeint_of_a_partial_first_in_time]


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), 1e-5, 1e-6)


@pytest.mark.parametrize("f", SCALARS, ids=lambda f: f.__name__)
def test_third_derivatives_match_differences_of_the_second(f: Any) -> None:
    _close(srcad.grad(srcad.grad(srcad.grad(f)))(0.7), difference(srcad.hessian(f), (0.7,)))


def test_third_derivatives_as_derivatives_of_the_hessian_in_both_modes() -> None:
    """`jacobian` of `hessian`, and `jacobian` three deep (by rows: reverse mode over the
    forward rule's forward rule)."""
    f = odeint_in_a_parameter
    expected = difference(srcad.hessian(f), (0.7,))
    _close(srcad.jacobian(srcad.hessian(f))(0.7), expected)
    thrice = f
    for _ in range(3):
        thrice = srcad.jacobian(thrice, mode="forward")
    _close(thrice(0.7), expected)


def test_third_derivatives_where_the_times_move_are_refused_not_wrong() -> None:
    third = srcad.grad(srcad.grad(srcad.grad(odeint_in_the_times)))
    with pytest.raises(MissingRuleError, match="output times move"):
        third(0.8)


def solve_ivp_in_a_parameter(k):
    found = integrate.solve_ivp(rhs_first, (0.0, 0.4), Y0 * k, t_eval=TIMES, args=(k,),
                                method="DOP853", rtol=1e-10, atol=1e-10)  # fmt: skip
    return np.sum(found.y**2) * k


def solve_ivp_at_the_end(k):
    """No `t_eval`: the solution read at the end of the span only."""
    found = integrate.solve_ivp(rhs_first, (0.1, 0.4), Y0, args=(k,), method="DOP853",
                                rtol=1e-10, atol=1e-10)  # fmt: skip
    return np.sum(found.y[:, -1] ** 3)


@pytest.mark.parametrize("f", [solve_ivp_in_a_parameter, solve_ivp_at_the_end],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_third_derivatives_through_solve_ivp(f: Any) -> None:
    """`solve_ivp`'s forward rule's forward rule, and that of reading its result's `.y`
    (`ode_result_field_frule_frule`, reached through the result's `__getattr__`)."""
    _close(srcad.grad(srcad.grad(srcad.grad(f)))(0.7), difference(srcad.hessian(f), (0.7,)))


def test_third_derivatives_through_solve_ivp_where_they_are_unsound_are_refused() -> None:
    """At the solver's own interior steps (no `t_eval`), as at first order; and where the
    span moves (a gap)."""

    def interior(k):
        found = integrate.solve_ivp(rhs_first, (0.1, 0.4), Y0 * k, args=(k,), rtol=1e-8)
        return np.sum(found.y**3)

    def moving_end(k):
        found = integrate.solve_ivp(rhs_first, (0.0, k), Y0, t_eval=np.array([0.0, k]),
                                    args=(0.7,), rtol=1e-8)  # fmt: skip
        return np.sum(found.y**2)

    with pytest.raises(MissingRuleError, match="solver's own steps"):
        srcad.grad(srcad.grad(srcad.grad(interior)))(0.7)
    with pytest.raises(MissingRuleError, match="not where the times move"):
        srcad.grad(srcad.grad(srcad.grad(moving_end)))(0.7)

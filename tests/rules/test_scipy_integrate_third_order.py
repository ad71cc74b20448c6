"""Third derivatives through `scipy.integrate.odeint` and `solve_ivp`
(`rules/scipy_integrate_third_order.py`: their forward rules' forward rules solve the tangent
equation of the tangent equation, whose right-hand side is
`third_order_calls.call_frule_frule`, and their reverse rules are the adjoint method on
that system): `grad` three deep, `jacobian` of `hessian` and `jacobian` three deep, in the
initial state, a parameter in `args`, a callable object's field, a partial's argument and
the times (`rules/scipy_integrate_time_terms.py`), against central differences of the
Hessian (the tolerances tight), and the forward rules' forward rules where every time moves
against differences of the forward rules. What stays refused (`solve_ivp`'s own interior
steps) is an error, never a number. Skipped where SciPy is not installed."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")

import srcad  # noqa: E402
from srcad.errors import MissingRuleError  # noqa: E402
from srcad.tangents import NoTangent, ZeroTangent  # noqa: E402
from tests.conftest import difference  # noqa: E402
from tests.rules.test_scipy_integrate_second_order import (  # noqa: E402
    Decay,
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
    """At the solver's own interior steps (no `t_eval`), as at first order."""

    def interior(k):
        found = integrate.solve_ivp(rhs_first, (0.1, 0.4), Y0 * k, args=(k,), rtol=1e-8)
        return np.sum(found.y**3)

    with pytest.raises(MissingRuleError, match="solver's own steps"):
        srcad.grad(srcad.grad(srcad.grad(interior)))(0.7)


# --- where the times move: the times' terms (`rules/scipy_integrate_time_terms.py`) -------

TIGHT = {"rtol": 1e-10, "atol": 1e-10}


def odeint_to_two_moving_times(t1):
    """Two output times that move, the first fixed."""
    ys = integrate.odeint(
        rhs, Y0 * t1, np.array([0.2, t1, 1.5 * t1]), args=(0.7,), rtol=1e-10, atol=1e-10
    )
    return np.sum(ys**2)


def odeint_from_a_moving_start(t0):
    """The initial time moves (and is an output), the parameter with it."""
    ys = integrate.odeint(rhs, Y0, np.array([t0 * t0, 0.9]), args=(t0,), rtol=1e-10, atol=1e-10)
    return np.sum(ys**3)


def odeint_of_an_object_to_one_time(k):
    """One time that moves, a callable object's field, `tfirst=False`."""
    ys = integrate.odeint(Decay(k), Y0, np.array([0.1, 0.3 + k * k]), rtol=1e-10, atol=1e-10)
    return np.sum(np.sin(ys[-1]))


def odeint_every_time_first_in_time(k):
    """Every time moves, `tfirst=True`, with the state and the parameter."""
    times = np.array([0.1 * k, 0.5 * k, k])
    ys = integrate.odeint(rhs_first, Y0 * k, times, args=(k,), tfirst=True, rtol=1e-10, atol=1e-10)
    return np.sum(ys**2) * k


def solve_ivp_to_a_moving_end(k):
    """No `t_eval`: the span's end moves, the solution read there."""
    found = integrate.solve_ivp(rhs_first, (0.1, 0.2 + k), Y0, args=(0.8,), method="DOP853",
                                rtol=1e-10, atol=1e-10)  # fmt: skip
    return np.sum(found.y[:, -1] ** 3)


def solve_ivp_at_moving_times(k):
    """`t_eval` moves, not from the start, and the times themselves are read (`.t`)."""
    found = integrate.solve_ivp(rhs_first, (0.0, 2.0), Y0 * k, t_eval=np.array([0.3 * k, k]),
                                args=(k,), method="DOP853", rtol=1e-10, atol=1e-10)  # fmt: skip
    return np.sum(found.y**2) + np.sum(np.sin(found.t) * found.y[0])


def solve_ivp_from_a_moving_start(k):
    """The span's start moves, and `t_eval`'s first time with it."""
    found = integrate.solve_ivp(rhs_first, (0.1 * k, 1.0), Y0, t_eval=np.array([0.1 * k, 1.0]),
                                args=(k,), method="DOP853", rtol=1e-10, atol=1e-10)  # fmt: skip
    return np.sum(found.y**2)


MOVING = [
    odeint_to_two_moving_times, odeint_from_a_moving_start, odeint_of_an_object_to_one_time,
    odeint_every_time_first_in_time, solve_ivp_to_a_moving_end, solve_ivp_at_moving_times,
    solve_ivp_from_a_moving_start,
]  # fmt: skip


@pytest.mark.parametrize("f", MOVING, ids=lambda f: f.__name__)
def test_third_derivatives_where_the_times_move(f: Any) -> None:
    """The times' terms of the forward rules' forward rules and their adjoints (were
    refused): `grad` three deep against differences of the Hessian, whose own times' terms
    are second order's (`scipy_integrate_tangents`)."""
    _close(srcad.grad(srcad.grad(srcad.grad(f)))(0.7), difference(srcad.hessian(f), (0.7,)))


@pytest.mark.parametrize("f", [odeint_every_time_first_in_time, solve_ivp_at_moving_times],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_third_derivatives_where_the_times_move_in_both_modes(f: Any) -> None:
    expected = difference(srcad.hessian(f), (0.7,))
    _close(srcad.jacobian(srcad.hessian(f))(0.7), expected)
    thrice = f
    for _ in range(3):
        thrice = srcad.jacobian(thrice, mode="forward")
    _close(thrice(0.7), expected)


# The forward rules' forward rules themselves, in directions that move every time, against
# central differences of the forward rules along the second direction.

_FIRST = (np.array([0.3, -0.2]), np.array([0.2, -0.3, 0.5]), 0.4)  # y0's, the times', k's
_SECOND = (np.array([-0.1, 0.6]), np.array([-0.3, 0.2, -0.4]), -0.3)
_MOVED = (np.array([0.05, 0.2]), np.array([0.15, 0.3, 0.1]), 0.25)  # the first's tangents


def _along(eps: float, group: tuple[Any, ...]) -> tuple[Any, ...]:
    """The first direction's tangents moved `eps` along theirs (`_MOVED`), or the point
    moved `eps` along the second direction, `group` the point."""
    steps = _MOVED if group is _FIRST else _SECOND
    return tuple(a + eps * b for a, b in zip(group, steps, strict=True))


def _difference(frule: Any, tangents: Any, call: Any) -> tuple[Any, Any]:
    h = 1e-5
    ahead = frule((NoTangent(), *tangents(_along(h, _FIRST))), *call(_along(h, POINT)))
    behind = frule((NoTangent(), *tangents(_along(-h, _FIRST))), *call(_along(-h, POINT)))
    return ahead, behind


POINT = (Y0, np.array([0.1, 0.4, 0.9]), 0.7)  # y0, the times, k


def test_odeint_forward_rule_twice_where_the_times_move() -> None:
    """The tangents of odeint's result and of its tangent in the second direction, every
    time moving (the start too), against differences of the forward rule."""
    from srcad.rules.scipy_integrate import odeint_frule
    from srcad.rules.scipy_integrate_third_order import odeint_frule_frule

    def tangents(group: tuple[Any, ...]) -> tuple[Any, ...]:
        return (ZeroTangent(), group[0], group[1], (group[2],))

    def call(point: tuple[Any, ...]) -> tuple[Any, ...]:
        return (rhs, point[0], point[1], (point[2],))

    dargs2 = (NoTangent(), (NoTangent(), *tangents(_MOVED)), *tangents(_SECOND))
    _, (second, moved) = odeint_frule_frule(dargs2, (NoTangent(), *tangents(_FIRST)),
                                            *call(POINT), **TIGHT)  # fmt: skip
    ahead, behind = _difference(lambda d, *a: odeint_frule(d, *a, **TIGHT), tangents, call)
    h = 1e-5
    np.testing.assert_allclose(second, (ahead[0] - behind[0]) / (2 * h), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(moved, (ahead[1] - behind[1]) / (2 * h), rtol=1e-6, atol=1e-7)


def test_solve_ivp_forward_rule_twice_where_the_times_move() -> None:
    """The same for `solve_ivp`, `t_span`'s start and `t_eval` moving (its first time
    with the start), the result's `.y` and `.t`."""
    from srcad.rules.scipy_integrate import solve_ivp_frule
    from srcad.rules.scipy_integrate_third_order import solve_ivp_frule_frule

    def tangents(group: tuple[Any, ...]) -> tuple[Any, ...]:
        span = np.array([group[1][0], 0.0])
        return (ZeroTangent(), span, group[0], NoTangent(), group[1], NoTangent(), NoTangent(),
                NoTangent(), (group[2],))  # fmt: skip

    def call(point: tuple[Any, ...]) -> tuple[Any, ...]:
        span = np.array([point[1][0], 1.0])
        return (rhs_first, span, point[0], "DOP853", point[1], False, None, False, (point[2],))

    dargs2 = (NoTangent(), (NoTangent(), *tangents(_MOVED)), *tangents(_SECOND))
    _, (second, moved) = solve_ivp_frule_frule(dargs2, (NoTangent(), *tangents(_FIRST)),
                                               *call(POINT), **TIGHT)  # fmt: skip
    ahead, behind = _difference(lambda d, *a: solve_ivp_frule(d, *a, **TIGHT), tangents, call)
    h = 1e-5
    for name in ("y", "t"):
        want = (getattr(ahead[0], name) - getattr(behind[0], name)) / (2 * h)
        np.testing.assert_allclose(second.fields[name], want, rtol=1e-6, atol=1e-7)
        want = (ahead[1].fields[name] - behind[1].fields[name]) / (2 * h)
        np.testing.assert_allclose(moved.fields[name], want, rtol=1e-6, atol=1e-7)

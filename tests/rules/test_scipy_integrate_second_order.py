"""Second derivatives through `scipy.integrate`'s ODE solvers
(`rules/scipy_integrate_tangents.py`: the adjoint method on the tangent equation): the
Hessian, its product with a vector and `jacobian(grad(f))` in both modes, with respect to
the initial state, a parameter in `args`, a callable object's field and the output times,
against central differences of `srcad.grad` (the solvers' tolerances tight). Skipped where
SciPy is not installed."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")

import srcad  # noqa: E402
from srcad.errors import MissingRuleError  # noqa: E402
from tests.conftest import difference  # noqa: E402

Y0 = np.array([1.0, 0.5])
# The solvers' tolerances (by name: `**options` beside a differentiated `args=` is refused)
# are tight enough for differences of the gradient to resolve the Hessian; solve_ivp with
# a high-order method, in few steps.
TIMES = np.array([0.0, 0.5, 1.0])


def rhs(y, t, k):
    return -k * y + np.sin(t) * y[::-1] ** 2


def rhs_first(t, y, k):
    return -k * y + np.cos(t) * y[::-1] ** 2


class Decay:
    def __init__(self, rate):
        self.rate = rate

    def __call__(self, y, t):
        return -self.rate * y**3 + t


def odeint_in_the_state(y0):
    ys = integrate.odeint(rhs, y0, TIMES, args=(0.7,), rtol=1e-10, atol=1e-10)
    return np.sum(ys[1:] ** 3)


def odeint_in_a_parameter(k):
    ys = integrate.odeint(rhs, Y0, TIMES, args=(k,), rtol=1e-10, atol=1e-10)
    return np.sum(ys**2) * k


def odeint_in_the_times(t1):
    times = np.array([0.2, t1, 1.5 * t1])
    ys = integrate.odeint(rhs, Y0 * t1, times, args=(0.7,), rtol=1e-10, atol=1e-10)
    return np.sum(ys**2)


def odeint_of_a_callable_object(r):
    ys = integrate.odeint(Decay(r * r), Y0, TIMES, rtol=1e-10, atol=1e-10, tfirst=False)
    return np.sum(ys[-1] ** 2)


def odeint_of_constant_objects(y0):
    """A callable object and a partial whose scalar fields are constants: their tangents
    are zeros, given back in their own shapes (not the state's)."""
    decay = integrate.odeint(Decay(0.5), y0, TIMES[::2], rtol=1e-10, atol=1e-10)
    bound = functools.partial(rhs, k=0.3)
    return np.sum(decay[-1] ** 2) + np.sum(integrate.odeint(bound, y0, TIMES[::2], rtol=1e-10,
                                                            atol=1e-10)[-1] ** 3)  # fmt: skip


def solve_ivp_in_the_state(y0):
    found = integrate.solve_ivp(rhs_first, (0.0, 1.0), y0, t_eval=TIMES[1:], args=(0.7,),
                                method="DOP853", rtol=1e-10, atol=1e-10)  # fmt: skip
    return np.sum(found.y**2)


def solve_ivp_in_the_end_time(t1):
    found = integrate.solve_ivp(
        rhs_first, (0.1, t1), Y0, args=(0.7,), method="DOP853", rtol=1e-10, atol=1e-10
    )
    return np.sum(found.y[:, -1] ** 2) + found.t[-1] ** 2


def solve_ivp_in_a_parameter(k):
    found = integrate.solve_ivp(rhs_first, (0.0, 1.0), Y0 * k, t_eval=TIMES, args=(k,),
                                method="DOP853", rtol=1e-10, atol=1e-10)  # fmt: skip
    return np.sum(found.y**2)


CASES = [
    (odeint_in_the_state, Y0),
    (odeint_in_a_parameter, 0.7),
    (odeint_in_the_times, 0.8),
    (odeint_of_a_callable_object, 0.9),
    (odeint_of_constant_objects, Y0),
    (solve_ivp_in_the_state, Y0),
    (solve_ivp_in_the_end_time, 0.9),
    (solve_ivp_in_a_parameter, 0.7),
]


@pytest.mark.parametrize(("f", "x"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_second_derivatives_match_differences_of_the_gradient(f: Any, x: Any) -> None:
    expected = difference(srcad.grad(f), (x,))
    tolerance = {"rtol": 1e-5, "atol": 1e-6}
    np.testing.assert_allclose(srcad.hessian(f)(x), expected, **tolerance)
    for mode in ("reverse", "forward"):
        jacobian = srcad.jacobian(srcad.grad(f), mode=mode)(x)
        np.testing.assert_allclose(jacobian, expected, **tolerance)
    v = np.linspace(0.3, -0.4, np.size(x)).reshape(np.shape(x)) if np.ndim(x) else 0.3
    product = srcad.hessian_vector_product(f)(x, v)
    np.testing.assert_allclose(product, np.dot(expected, v), **tolerance)


def test_second_derivatives_at_the_solvers_own_steps_are_refused_not_wrong() -> None:
    """Without `t_eval`, the solution at the solver's interior steps moves with the inputs
    (its step-size control): refused at second order as at first."""

    def interior(y0):
        return np.sum(integrate.solve_ivp(rhs_first, (0.0, 1.0), y0, args=(0.7,)).y ** 2)

    with pytest.raises(MissingRuleError, match="solver's own steps"):
        srcad.hessian(interior)(Y0)


def test_forward_over_forward_matches_differences_of_the_gradient() -> None:
    """`jacobian(jacobian(f))`: the forward rule's forward rule is not written, so each
    element is taken row by row, reverse mode over the forward rule (this module's rule)."""
    for f, x in (CASES[0],):
        twice = srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")
        expected = difference(srcad.grad(f), (x,))
        np.testing.assert_allclose(twice(x), expected, rtol=1e-5, atol=1e-6)

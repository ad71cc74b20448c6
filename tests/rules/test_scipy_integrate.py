"""`scipy.integrate`'s ODE solvers (rules/scipy_integrate.py): `odeint` and `solve_ivp`
differentiated by the adjoint method (reverse) and the tangent equation (forward), with
respect to the initial state, the parameters in `args`, what a partial binds, and the
times, against central finite differences of the whole solver call (tight tolerances)
and an exact solution; and the refusals, each at the user's line or with its reason.
Skipped where SciPy is not installed."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")
linalg = pytest.importorskip("scipy.linalg")

import srcad  # noqa: E402
from srcad.errors import MissingRuleError, UnsupportedSyntaxError  # noqa: E402

TIMES = np.linspace(0.0, 1.0, 5)
TIGHT = {"rtol": 1e-10, "atol": 1e-10}
Y0 = np.array([1.0, 0.5])
A = np.array([[-0.4, 0.9], [-0.7, -0.2]])


def finite_differences(f: Any, args: tuple[Any, ...], h: float = 1e-6) -> list[Any]:
    """The gradient of the scalar `f` in each float argument, by central differences."""
    grads = []
    for i, x in enumerate(args):
        flat = np.array(x, dtype=float).ravel()
        g = np.zeros(flat.size)
        for j in range(flat.size):
            up, down = flat.copy(), flat.copy()
            up[j] += h
            down[j] -= h
            shaped = [u.reshape(np.shape(x)) if np.ndim(x) else float(u[0]) for u in (up, down)]
            plus = f(*args[:i], shaped[0], *args[i + 1 :])
            minus = f(*args[:i], shaped[1], *args[i + 1 :])
            g[j] = (plus - minus) / (2 * h)
        grads.append(g.reshape(np.shape(x)) if np.ndim(x) else g[0])
    return grads


def check_both_modes(f: Any, *args: Any, rtol: float = 1e-6) -> None:
    """`grad` (reverse) and `jacobian(mode="forward")` of `f` against finite differences."""
    expected = finite_differences(f, args)
    wrt = tuple(range(len(args)))
    reverse = srcad.grad(f, wrt=wrt)(*args)
    forward = srcad.jacobian(f, wrt=wrt, mode="forward")(*args)
    for e, r, fw in zip(expected, reverse, forward, strict=True):
        np.testing.assert_allclose(r, e, rtol=rtol, atol=1e-7)
        np.testing.assert_allclose(fw, e, rtol=rtol, atol=1e-7)


# --- odeint -------------------------------------------------------------------------------


def linear(y: np.ndarray, t: float, a: np.ndarray) -> Any:
    return a @ y


def linear_loss(y0: np.ndarray, a: np.ndarray, times: np.ndarray) -> Any:
    ys = integrate.odeint(linear, y0, times, args=(a,), rtol=1e-10, atol=1e-10)
    return np.sum(np.sin(ys))


def test_a_linear_ode_matches_its_exact_solution() -> None:
    """y(t) = expm(A t) y0: the gradient in y0 is exact, computed without the solver."""
    weights = np.arange(1.0, 1.0 + 2 * len(TIMES)).reshape(len(TIMES), 2)

    def loss(y0: np.ndarray) -> Any:
        ys = integrate.odeint(linear, y0, TIMES, args=(A,), rtol=1e-10, atol=1e-10)
        return np.sum(weights * ys)

    exact = sum(linalg.expm(A * t).T @ w for t, w in zip(TIMES, weights, strict=True))
    np.testing.assert_allclose(srcad.grad(loss)(Y0), exact, rtol=1e-7)
    np.testing.assert_allclose(srcad.jacobian(loss, mode="forward")(Y0), exact, rtol=1e-7)


@pytest.mark.parametrize(
    "times",
    [TIMES, np.array([0.3, 0.8, 2.0]), np.array([1.0, 0.4, -0.5])],
    ids=["from-0", "from-0.3", "backwards"],
)
def test_a_linear_ode_in_its_state_matrix_and_times(times: np.ndarray) -> None:
    check_both_modes(linear_loss, Y0, A, times)


def lotka_volterra(z: np.ndarray, t: float, a: float, b: float, c: float) -> Any:
    x, y = z[0], z[1]
    return np.array([a * x - b * x * y, c * x * y - y])


def predator_prey(z0: np.ndarray, a: float, b: float, c: float) -> Any:
    zs = integrate.odeint(lotka_volterra, z0, TIMES * 3, args=(a, b, c), rtol=1e-10, atol=1e-10)
    return np.sum(zs[:, 0] ** 2) + zs[-1, 1]


def test_a_nonlinear_ode_in_its_parameters() -> None:
    check_both_modes(predator_prey, np.array([1.0, 0.7]), 1.1, 0.6, 0.8)


def test_a_tolerance_per_component() -> None:
    def loss(y0: np.ndarray) -> Any:
        ys = integrate.odeint(linear, y0, TIMES, (A,), rtol=1e-10, atol=np.array([1e-10, 1e-11]))
        return np.sum(ys[-1] ** 2)

    def ivp_loss(y0: np.ndarray) -> Any:
        solution = integrate.solve_ivp(
            lambda t, y: A @ y, (0.0, 1.0), y0, rtol=1e-10, atol=np.array([1e-10, 1e-11])
        )
        return np.sum(solution.y[:, -1] ** 2)

    check_both_modes(loss, Y0)
    check_both_modes(ivp_loss, Y0)


def pendulum(t: float, state: np.ndarray, length: float) -> Any:
    return np.array([state[1], -9.81 / length * np.sin(state[0])])


def swing(theta0: float, length: float) -> Any:
    start = np.array([theta0, 0.0])
    states = integrate.odeint(pendulum, start, TIMES, (length,), tfirst=True, **TIGHT)
    return states[-1, 0]


def test_time_first_right_hand_sides_and_args_by_position() -> None:
    check_both_modes(swing, 0.4, 1.3)


def scaled(k: float, y: np.ndarray, t: float) -> Any:
    return -k * y * (1.0 + t)


def through_a_partial(y0: np.ndarray, k: float) -> Any:
    rhs = functools.partial(scaled, k)
    return np.sum(integrate.odeint(rhs, y0, TIMES, rtol=1e-10, atol=1e-10)[-1])


def test_a_partials_bound_arguments_are_parameters_too() -> None:
    check_both_modes(through_a_partial, Y0, 0.7)


def test_the_rules_alone_match_finite_differences() -> None:
    """`srcad.rrule` and `srcad.frule` of `odeint` itself: a cotangent for each of func,
    y0, t and args, by position."""
    weights = np.linspace(-1.0, 1.0, 10).reshape(5, 2)

    def loss(y0: np.ndarray, times: np.ndarray, a: np.ndarray) -> Any:
        return np.sum(weights * integrate.odeint(linear, y0, times, (a,), **TIGHT))

    y0_fd, times_fd, a_fd = finite_differences(loss, (Y0, TIMES, A))
    ys, pullback = srcad.rrule(integrate.odeint, linear, Y0, TIMES, (A,), **TIGHT)
    np.testing.assert_array_equal(ys, integrate.odeint(linear, Y0, TIMES, (A,), **TIGHT))
    _, func_bar, y0_bar, times_bar, args_bar = pullback(weights)
    assert isinstance(func_bar, srcad.NoTangent)
    for got, expected in [(y0_bar, y0_fd), (times_bar, times_fd), (args_bar[0], a_fd)]:
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    dots = (srcad.NoTangent(), srcad.NoTangent(), np.array([0.3, -1.0]), np.ones(5), (0.1 * A,))
    _, ys_dot = srcad.frule(dots, integrate.odeint, linear, Y0, TIMES, (A,), **TIGHT)
    expected = y0_fd @ dots[2] + times_fd @ dots[3] + np.sum(a_fd * 0.1 * A)
    np.testing.assert_allclose(np.sum(weights * ys_dot), expected, rtol=1e-6)


def test_full_output_differentiates_the_solution() -> None:
    def loss(y0: np.ndarray) -> Any:
        ys, _info = integrate.odeint(linear, y0, TIMES, (A,), full_output=True, **TIGHT)
        return np.sum(ys[-1])

    check_both_modes(loss, Y0)


def test_a_constant_ode_solution_is_still_computed() -> None:
    """Differentiated only where its arguments are: a solution of constants is a constant."""

    def decay(y: np.ndarray, t: float) -> Any:
        return -0.5 * y

    def loss(x: np.ndarray) -> Any:
        return np.sum(x * integrate.odeint(decay, np.array([1.0, 2.0]), TIMES)[-1])

    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(srcad.grad(loss)(x), np.exp(-0.5) * np.array([1.0, 2.0]), 1e-6)


def test_a_nested_right_hand_side_of_constants_is_taken() -> None:
    def loss(y0: np.ndarray) -> Any:
        rate = 0.3

        def decay(y: np.ndarray, t: float) -> Any:
            return -rate * y

        return np.sum(integrate.odeint(decay, y0, TIMES, **TIGHT)[-1])

    check_both_modes(loss, Y0)


def through_lambdas(y0: np.ndarray, k: float) -> Any:
    first = integrate.odeint(lambda y, t, c: -c * y, y0, TIMES, (k,), **TIGHT)
    rate = 0.25
    return np.sum(integrate.odeint(lambda y, t: -rate * y, first[-1], TIMES, **TIGHT)[-1])


def test_lambdas_as_right_hand_sides() -> None:
    check_both_modes(through_lambdas, Y0, 0.7)


def captured_rate(y0: np.ndarray, k: float) -> Any:
    def decay(y: np.ndarray, t: float) -> Any:
        return -k * y

    return np.sum(integrate.odeint(decay, y0, TIMES, **TIGHT)[-1])


def test_a_closure_over_a_differentiated_value_is_passed_it() -> None:
    """`decay` reads `k`: srcad passes it what it reads (`partial(decay, k)`,
    `passes/transforms/closure_values.py`), and odeint's rules give the partial's bound
    `k` its derivative, as they give `args`'."""
    check_both_modes(captured_rate, Y0, 0.5)


def rebound_rate(y0: np.ndarray, k: float) -> Any:
    rate = k

    def decay(y: np.ndarray, t: float) -> Any:
        return -rate * y

    rate = 2.0 * k
    return np.sum(integrate.odeint(decay, y0, TIMES)[-1])


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_closure_over_a_rebound_value_is_refused_at_the_users_line(mode: str) -> None:
    """`rate` is bound twice, so the value `decay` reads is the one when odeint calls it:
    srcad does not pass it, and the adjoint would miss the derivative through it: refused
    where `decay` is passed."""
    with pytest.raises(UnsupportedSyntaxError) as refused:
        if mode == "reverse":
            srcad.grad(rebound_rate, wrt=("y0", "k"))(Y0, 0.5)
        else:
            srcad.jvp(rebound_rate, (Y0, 0.5), (np.ones(2), 1.0))
    (diagnostic,) = refused.value.diagnostics
    assert diagnostic.code == "E212" and diagnostic.file == __file__
    assert "`rate`" in diagnostic.message


# --- solve_ivp ----------------------------------------------------------------------------


def lv_ivp(t: float, z: np.ndarray, a: float, b: float) -> Any:
    return np.array([a * z[0] - b * z[0] * z[1], b * z[0] * z[1] - z[1]])


def at_given_times(z0: np.ndarray, a: float, b: float, t0: float, t_eval: np.ndarray) -> Any:
    solution = integrate.solve_ivp(
        lv_ivp, (t0, 2.0), z0, t_eval=t_eval, args=(a, b), rtol=1e-10, atol=1e-10
    )
    return np.sum(solution.y**2) + np.sum(np.cos(solution.t))


@pytest.mark.parametrize("method", ["RK45", "DOP853", "LSODA"])
def test_solve_ivp_at_given_times(method: str) -> None:
    def loss(z0: np.ndarray, a: float, b: float, t_eval: np.ndarray) -> Any:
        solution = integrate.solve_ivp(
            lv_ivp, (0.0, 2.0), z0, method, t_eval, args=(a, b), rtol=1e-10, atol=1e-10
        )
        return np.sum(solution.y[0] * solution.y[1])

    check_both_modes(loss, np.array([1.0, 0.5]), 1.1, 0.7, np.array([0.5, 1.0, 1.7]))


def test_solve_ivp_takes_its_args_as_a_list() -> None:
    def loss(z0: np.ndarray, a: float) -> Any:
        solution = integrate.solve_ivp(
            lv_ivp, (0.0, 1.0), z0, args=[a, 0.7], rtol=1e-10, atol=1e-10
        )
        return np.sum(solution.y[:, -1] ** 2)

    check_both_modes(loss, np.array([1.0, 0.5]), 1.1)


def test_solve_ivp_in_its_initial_time_and_output_times() -> None:
    check_both_modes(at_given_times, np.array([1.0, 0.5]), 1.1, 0.7, 0.1, np.array([0.5, 1.9]))


def to_the_end(z0: np.ndarray, a: float, t1: float) -> Any:
    solution = integrate.solve_ivp(lv_ivp, (0.0, t1), z0, args=(a, 0.7), rtol=1e-10, atol=1e-10)
    return np.sum(solution.y[:, -1] ** 2) + solution.t[-1] ** 2 + solution.y[0, 0]


def test_solve_ivp_at_its_own_steps_reads_the_first_and_last() -> None:
    check_both_modes(to_the_end, np.array([1.0, 0.5]), 1.1, 1.5)


def interior_step(z0: np.ndarray) -> Any:
    solution = integrate.solve_ivp(lv_ivp, (0.0, 1.0), z0, args=(1.1, 0.7))
    return solution.y[0, 1]


def test_solve_ivp_at_its_own_interior_steps_is_refused_or_nan() -> None:
    """Those times move with the inputs (step-size control): reverse mode refuses a
    cotangent there, forward mode gives a NaN tangent, never a wrong number."""
    with pytest.raises(MissingRuleError, match="t_eval"):
        srcad.grad(interior_step)(Y0)
    _, tangent = srcad.jvp(interior_step, (Y0,), (np.ones(2),))
    assert np.isnan(tangent)


def test_solve_ivp_fields_without_a_derivative_are_refused() -> None:
    def dense(z0: np.ndarray) -> Any:
        solution = integrate.solve_ivp(lv_ivp, (0.0, 1.0), z0, args=(1.1, 0.7), dense_output=True)
        return solution.sol(0.5)[0]

    def events(z0: np.ndarray) -> Any:
        solution = integrate.solve_ivp(
            lv_ivp, (0.0, 1.0), z0, args=(1.1, 0.7), events=lambda t, z, a, b: z[0] - 1.0
        )
        return solution.y[0, -1]

    def counters(z0: np.ndarray) -> Any:
        solution = integrate.solve_ivp(lv_ivp, (0.0, 1.0), z0, args=(1.1, 0.7), **TIGHT)
        return solution.y[0, -1] * solution.success + solution.nfev * 0.0

    def interpolated(z0: np.ndarray) -> Any:
        solution = integrate.solve_ivp(lv_ivp, (0.0, 1.0), z0, args=(1.1, 0.7), dense_output=True)
        interpolant = solution.sol
        return interpolant(0.5)[0]

    for f in (dense, interpolated):
        with pytest.raises(MissingRuleError, match=r"\.sol"):
            srcad.grad(f)(Y0)
    with pytest.raises(MissingRuleError, match=r"only `\.y` and `\.t`"):
        srcad.jvp(interpolated, (Y0,), (np.ones(2),))
    with pytest.raises(MissingRuleError, match="events"):
        srcad.grad(events)(Y0)
    check_both_modes(counters, Y0)


def test_solve_ivp_rules_alone_match_finite_differences() -> None:
    def final(z0: np.ndarray, a: float, t_eval: np.ndarray) -> Any:
        return integrate.solve_ivp(lv_ivp, (0.0, 2.0), z0, "RK45", t_eval, False, None,
                                   False, (a, 0.7), **TIGHT).y  # fmt: skip

    check_both_modes(lambda z0, a, t: np.sum(final(z0, a, t) ** 3), Y0, 1.1, np.array([0.4, 1.2]))


# --- refused by name ----------------------------------------------------------------------


def integrand(x: float, k: float) -> Any:
    return np.exp(-k * x)


def quadrature_loss(k: float) -> Any:
    value, _error = integrate.quad(integrand, 0.0, 1.0, (k,))
    return value


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_quadrature_is_refused_at_the_users_line_with_the_reason(mode: str) -> None:
    with pytest.raises(MissingRuleError) as refused:
        if mode == "reverse":
            srcad.grad(quadrature_loss)(0.5)
        else:
            srcad.jvp(quadrature_loss, (0.5,), (1.0,))
    (diagnostic,) = refused.value.diagnostics
    assert diagnostic.code == "E210" and diagnostic.file == __file__
    assert "`integrate.quad`" in diagnostic.message and "quadrature" in diagnostic.message
    assert "site-packages" not in str(refused.value)


def both_shapes(t: float, z: np.ndarray, k: np.ndarray) -> Any:
    """A vectorized field that takes one state, (n,), as well as columns, (n, k)."""
    return -(k * z.T).T + 0.1 * np.sin(z)


def columns_only(t: float, z: np.ndarray, k: np.ndarray) -> Any:
    """A vectorized field written for (n, k) states only, as SciPy calls it."""
    return -k[:, np.newaxis] * z


@pytest.mark.parametrize("method", ["RK45", "Radau", "BDF"])
def test_solve_ivp_vectorized(method: str) -> None:
    """With `vectorized=True` SciPy calls the field with (n, k) states only; srcad's adjoint
    calls it with one (n,) state: a field that takes both is differentiated, one written
    for columns only is refused at the user's line (a NumPy broadcasting crash before)."""

    def loss(z0: np.ndarray, k: np.ndarray, field: Any = both_shapes) -> Any:
        solution = integrate.solve_ivp(field, (0.0, 1.0), z0, method, vectorized=True,
                                       args=(k,), rtol=1e-10, atol=1e-10)  # fmt: skip
        return np.sum(solution.y[:, -1] ** 2)

    check_both_modes(loss, np.array([1.0, 0.5]), np.array([0.8, 1.3]), rtol=1e-5)

    def refused(z0: np.ndarray, k: np.ndarray) -> Any:
        return loss(z0, k, columns_only)

    for derivative in (srcad.grad(refused), srcad.jacobian(refused, mode="forward")):
        with pytest.raises(MissingRuleError, match="vectorized") as raised:
            derivative(np.array([1.0, 0.5]), np.array([0.8, 1.3]))
        assert any("test_scipy_integrate.py" in note for note in raised.value.__notes__)

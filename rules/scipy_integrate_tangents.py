"""Second derivatives through `scipy.integrate`'s ODE solvers: the reverse rules of their
forward rules (`rules/scipy_integrate.py`), which reverse mode differentiates for a Hessian.

A solver's forward rule solves the tangent equation beside the ODE: `z = (y, w)` solves
`dz/dt = G(z, t) = (f(y, t), ∂f/∂y w + ∂f/∂θ θ̇)` from `z(t0) = (y0, ẏ0 - f(y0, t0) ṫ0)`, and
the tangent of the output at `T_i` is `w(T_i) + f(y(T_i), T_i) Ṫ_i` (at `t0` itself, `ẏ0`).
`G` is the right-hand side's forward rule, a function of `z` and of the parameters `(θ, θ̇)`
(`args` and what `f` holds, and their tangents); its vector-Jacobian product is the reverse
rule of that forward rule, which srcad has for any right-hand side it takes second
derivatives of (`second_order_calls.call_frule_rrule`: the reverse rule of the forward rule
srcad generates for `f`, or of `f`'s registered one). So the forward rule's reverse rule is
the adjoint method again (`scipy_integrate._adjoint`), on the augmented system
(`_TangentProblem`): the tangents' cotangents are the adjoint of `w`; the value's cotangent
goes through the solver's own adjoint; the terms in the times' tangents (`f(y(T_i), T_i)
Ṫ_i`, `f(y0, t0) ṫ0`) through `f`'s reverse rule (`_Problem.partials`). Each system is
solved with the user's method and tolerances, so a second derivative is as accurate as
they make it (`tests/rules/test_scipy_integrate_second_order.py` checks Hessians against
differences of the gradient with tight tolerances).

What the first derivatives refuse, the second refuse too, when the rule runs: `solve_ivp`'s
`events`, and a cotangent reaching the solution or its tangent at the solver's own steps
(no `t_eval`).

Installed with `scipy_integrate`'s rules, once the user imports `scipy.integrate`
(`rules/__init__.py: SCIPY_RULE_SETS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.primitives import call
from srcad.registry import CONFIG, RuleSet
from srcad.rules import calls
from srcad.rules._flat import cotangent_of, flat_cotangent, size
from srcad.rules.scipy_integrate import (
    _DIFFERENTIATED_FIELDS,
    ODEINT_PARAMETERS,
    SOLVE_IVP_PARAMETERS,
    Vector,
    _adjoint,
    _dots,
    _field_bar,
    _IvpCall,
    _moving_times,
    _odeint_call,
    _odeint_problem,
    _Problem,
    ivp_cotangents,
    ode_result_field_frule,
    odeint_frule,
    solve_ivp_frule,
)
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

# Keyed on the forward rules, as `second_order.build`'s are; a rule set of that name, which
# the docs' table leaves out.
rules = RuleSet("second_order")

Pullback = Any
# The forward rule of calling a value (`call(f, *args)`), whose reverse rule
# (`second_order_calls.call_frule_rrule`) is the reverse rule of `f`'s forward rule.
_CALL_FRULE = calls.rules.frules[call].rrule


class _TangentProblem(_Problem):
    """The tangent equation beside the ODE, `dz/dt = G(z, t)`, `z = (y, w)`, as
    `scipy_integrate._adjoint` solves it: `G`, and its vector-Jacobian product with respect
    to `z` and the parameters `(θ, θ̇)`, flat (θ's leaves, then θ̇'s)."""

    def __init__(self, problem: _Problem, func_dot: Any, arg_dots: list[Any]) -> None:
        super().__init__(problem.func, problem.args, problem.tfirst, problem.solve)
        self.problem = problem
        # A symbolic zero's cotangent would come back in the shape of what it multiplied,
        # not its argument's: zeros of the argument's own structure instead (of what the
        # right-hand side holds too: a callable object's fields, a partial's arguments).
        self.func_dot = _materialised(problem.func, func_dot)
        self.arg_dots = [_materialised(a, d) for a, d in zip(problem.args, arg_dots, strict=True)]
        self.parameters = (problem.parameters, problem.parameters)

    def f(self, z: Vector, t: float) -> Vector:
        n = z.size // 2
        return np.concatenate(self.problem.jvp(z[:n], t, z[n:], self.func_dot, self.arg_dots))

    def vjp(self, z: Vector, t: float, a: Vector) -> tuple[Vector, Vector, Vector]:
        n = z.size // 2
        y, w = z[:n], z[n:]
        dargs = (NoTangent(), self.func_dot, *self._ordered(w, ZeroTangent()), *self.arg_dots)
        (value, value_dot), pullback = CONFIG.rrule_via_ad(
            _CALL_FRULE, dargs, self.func, *self._ordered(y, t), *self.args
        )
        bars = (cotangent_of(value, a[:n]), cotangent_of(value, a[n:]))
        _, dargs_bar, func_bar, first, second, *arg_bars = pullback(bars)
        dot_bars = elements_of(unthunk(dargs_bar), len(dargs))
        y_bar = second if self.tfirst else first
        w_bar = dot_bars[3] if self.tfirst else dot_bars[2]
        theta_bar = Tangent(tuple, func_bar, Tangent(tuple, *arg_bars[: len(self.args)]))
        theta_dot_bar = Tangent(tuple, dot_bars[1], Tangent(tuple, *dot_bars[4:]))
        flat_value = np.concatenate(
            [np.ravel(np.asarray(value, dtype=float)), flat_cotangent(value, value_dot)]
        )
        z_bar = np.concatenate([flat_cotangent(y, y_bar), flat_cotangent(w, w_bar)])
        parameters = self.problem.parameters
        flat_theta = np.concatenate(
            [flat_cotangent(parameters, theta_bar), flat_cotangent(parameters, theta_dot_bar)]
        )
        return flat_value, z_bar, flat_theta


def _materialised(value: Any, tangent: Any) -> Any:
    """`tangent`, or zeros in `value`'s structure where it is a symbolic zero (a function
    with nothing to perturb keeps its own)."""
    if not isinstance(unthunk(tangent), AbstractZero) or not size(value):
        return tangent
    return cotangent_of(value, np.zeros(size(value)))


class _Bars:
    """The flat cotangents `_tangent_adjoint` finds: of `y0`, `ẏ0`, `t0`, `ṫ0`, the output
    times and their tangents, the solution at those times (added to its own), `θ`, `θ̇`."""

    def __init__(self, n: int, m: int, p: int) -> None:
        self.y0, self.y0_dot = np.zeros(n), np.zeros(n)
        self.t0, self.t0_dot = 0.0, 0.0
        self.times, self.times_dot = np.zeros(m), np.zeros(m)
        self.ys = np.zeros((m, n))
        self.theta, self.theta_dot = np.zeros(p), np.zeros(p)


def _tangent_adjoint(problem: _Problem, y0: Vector, y0_dot: Vector, t0: float, t0_dot: float,
                     times: Vector, times_dot: Vector, ys: np.ndarray, func_dot: Any,
                     arg_dots: list[Any], dots_bar: np.ndarray) -> _Bars:  # fmt: skip
    """The adjoint of `scipy_integrate._tangent` (the tangents of the outputs `ys[i] =
    y(times[i])`, `times[i] > t0`) for their cotangents `dots_bar` (see the docstring)."""
    n, m = y0.size, len(times)
    found = _Bars(n, m, size(problem.parameters))
    for i in range(m):  # the outputs' terms `f(y(T_i), T_i) Ṫ_i`
        if times_dot[i] and np.any(dots_bar[i]):
            cotangent = dots_bar[i] * times_dot[i]
            value, y_bar, t_bar, theta_bar = problem.partials(ys[i], times[i], cotangent)
            found.times_dot[i] = dots_bar[i] @ value
            found.ys[i] += y_bar
            found.times[i] += t_bar
            found.theta += theta_bar
    if not m or not np.any(dots_bar):
        return found
    tangent = _TangentProblem(problem, func_dot, arg_dots)
    z0 = np.concatenate([y0, y0_dot - problem.f(y0, t0) * t0_dot])

    def augmented(t: float, z: Vector) -> Vector:
        return tangent.f(z, t)

    zs = tangent.solve(augmented, z0, t0, times)
    zs_bar = np.concatenate([np.zeros((m, n)), dots_bar], axis=1)
    z0_bar, t0_bar, times_bar, parameters_bar = _adjoint(tangent, z0, t0, times, zs, zs_bar)
    p = found.theta.size
    w0_bar = z0_bar[n:]
    found.y0 += z0_bar[:n]
    found.y0_dot += w0_bar
    found.t0 += t0_bar
    found.times += times_bar
    found.theta += parameters_bar[:p]
    found.theta_dot += parameters_bar[p:]
    if t0_dot and np.any(w0_bar):  # the start's term `-f(y0, t0) ṫ0`
        value, y_bar, t_bar, theta_bar = problem.partials(y0, t0, -w0_bar * t0_dot)
        found.t0_dot -= float(w0_bar @ value)
        found.y0 += y_bar
        found.t0 += t_bar
        found.theta += theta_bar
    return found


def _parameter_bars(problem: _Problem, flat: Vector) -> tuple[Any, Any]:
    """The cotangents of the right-hand side and of `args` whose leaves are `flat`."""
    func_bar, args_bar = elements_of(cotangent_of(problem.parameters, flat), 2)
    return func_bar, args_bar


# --- odeint -------------------------------------------------------------------------------


def _dense(bar: Any, shape: tuple[int, ...], full_output: bool) -> np.ndarray:
    """A cotangent of odeint's result (its solution's, of a `full_output` pair) as a
    writable float array of the solution's shape."""
    bar = unthunk(bar)
    if full_output and not isinstance(bar, AbstractZero):
        bar = unthunk(elements_of(bar, 2)[0])
    if isinstance(bar, AbstractZero):
        return np.zeros(shape)
    return np.array(np.broadcast_to(np.asarray(bar, dtype=float), shape))


@rules.rrule(odeint_frule, parameters=("dargs", *ODEINT_PARAMETERS))
def odeint_frule_rrule(dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    """The reverse rule of `odeint`'s forward rule: the adjoint method on the ODE and on
    the tangent equation beside it (see the module's docstring)."""
    result = odeint_frule(dargs, *args, **kwargs)
    func, y0, t, ode_args, options = _odeint_call(args, kwargs)
    full_output = bool(options.get("full_output"))
    ys = np.asarray(result[0][0] if full_output else result[0], dtype=float)
    func_dot, y0_dot, t_dot, args_dot = _dots(dargs, 4)
    times = np.asarray(t, dtype=float)
    times_dot = flat_cotangent(t, t_dot) if np.size(times) else times
    arg_dots = list(elements_of(args_dot, len(ode_args)))
    problem = _odeint_problem(func, ode_args, options)
    y0_flat, y0_dot_flat = np.ravel(ys[0]), flat_cotangent(y0, y0_dot)
    t0 = float(times[0])

    def odeint_frule_pullback(bars: Any) -> tuple[Any, ...]:
        result_bar, dot_bar = elements_of(unthunk(bars), 2)
        ys_bar = _dense(result_bar, ys.shape, full_output)
        dots_bar = _dense(dot_bar, ys.shape, full_output)
        found = _tangent_adjoint(problem, y0_flat, y0_dot_flat, t0, float(times_dot[0]),
                                 times[1:], times_dot[1:], ys[1:], func_dot, arg_dots,
                                 dots_bar[1:])  # fmt: skip
        ys_bar[1:] += found.ys
        y0_bar, t0_bar, times_bar, theta_bar = _adjoint(problem, y0_flat, t0, times, ys, ys_bar)
        times_bar[0] += t0_bar + found.t0
        times_bar[1:] += found.times
        times_dot_bar = np.concatenate([[found.t0_dot], found.times_dot])
        func_bar, args_bar = _parameter_bars(problem, theta_bar + found.theta)
        func_dot_bar, args_dot_bar = _parameter_bars(problem, found.theta_dot)
        y0_dot_bar = dots_bar[0] + found.y0_dot
        tangent_bars = (func_dot_bar, cotangent_of(y0, y0_dot_bar),
                        cotangent_of(t, times_dot_bar), args_dot_bar)  # fmt: skip
        dargs_bar = Tangent(tuple, NoTangent(), *_padded(tangent_bars, len(dargs) - 1))
        primal_bars = (cotangent_of(y0, y0_bar + found.y0), cotangent_of(t, times_bar), args_bar)
        return (NoTangent(), dargs_bar, func_bar, *primal_bars)

    return result, odeint_frule_pullback


def _padded(bars: tuple[Any, ...], count: int) -> tuple[Any, ...]:
    """`bars` cut or padded with zeros to `count` (one per tangent the rule was given)."""
    return (*bars[:count], *(ZeroTangent(),) * (count - len(bars)))


# --- solve_ivp ----------------------------------------------------------------------------


def _ivp_bars(bar: Any, ys: np.ndarray, times: Vector) -> tuple[np.ndarray, Vector]:
    """A cotangent of `solve_ivp`'s result (or of its tangent) as those of the solution
    at the times (one row per time) and of the times."""
    bar = unthunk(bar)
    y_bar, t_bar = _field_bar(bar, "y"), _field_bar(bar, "t")
    ys_bar = np.zeros(ys.shape)
    if not isinstance(y_bar, AbstractZero):
        ys_bar = np.array(np.broadcast_to(np.asarray(y_bar, dtype=float), ys.T.shape).T)
    times_bar = np.zeros(len(times))
    if not isinstance(t_bar, AbstractZero):
        times_bar = np.array(np.broadcast_to(np.asarray(t_bar, dtype=float), times.shape))
    return ys_bar, times_bar


@rules.rrule(solve_ivp_frule, parameters=("dargs", *SOLVE_IVP_PARAMETERS))
def solve_ivp_frule_rrule(dargs: tuple[Any, ...], *args: Any,
                          **kwargs: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """The reverse rule of `solve_ivp`'s forward rule: the adjoint method on the ODE and
    on the tangent equation beside it, at the result's times (see the module's
    docstring). A cotangent reaching the solution or its tangent at the solver's own
    steps (no `t_eval`) is refused, as at first order."""
    result = solve_ivp_frule(dargs, *args, **kwargs)
    ivp = _IvpCall(args, kwargs)
    solution = result[0]
    times = np.asarray(solution.t, dtype=float)
    func_dot, arg_dots, span_dot, y0_dot, times_dot = ivp.tangents(dargs, times)
    problem = ivp.problem()
    y0 = np.ravel(np.asarray(ivp.y0, dtype=float))
    ys = solution.y.T
    starts = bool(len(times)) and times[0] == ivp.t0
    later = slice(1 if starts else 0, None)
    passed = max(len(args), len(SOLVE_IVP_PARAMETERS))
    interior = ivp.interior(len(times))

    def solve_ivp_frule_pullback(bars: Any) -> tuple[Any, ...]:
        result_bar, dot_bar = elements_of(unthunk(bars), 2)
        ys_bar, own_t_bar = _ivp_bars(result_bar, ys, times)
        dots_bar, own_t_dot_bar = _ivp_bars(dot_bar, ys, times)
        if np.any(dots_bar[interior]):
            raise _moving_times("the solution's tangent")
        if np.any(own_t_dot_bar[interior]):
            raise _moving_times("the times' tangent")
        found = _tangent_adjoint(problem, y0, y0_dot, ivp.t0, float(span_dot[0]), times[later],
                                 times_dot[later], ys[later], func_dot, arg_dots,
                                 dots_bar[later])  # fmt: skip
        ys_bar[later] += found.ys
        times_extra = np.zeros(len(times))
        times_extra[later] = found.times
        extra = (found.y0, found.t0, times_extra, found.theta)
        named = ivp_cotangents(ivp, problem, ys, times, ys_bar, own_t_bar, extra)
        times_dot_bar = own_t_dot_bar
        times_dot_bar[later] += found.times_dot
        dot_named = ivp.parameter_bars(None, found.t0_dot, times_dot_bar, len(times))
        y0_dot_bar = found.y0_dot + (dots_bar[0] if starts else 0.0)
        func_dot_bar, args_dot_bar = _parameter_bars(problem, found.theta_dot)
        dot_named.update(fun=func_dot_bar, y0=cotangent_of(ivp.y0, y0_dot_bar), args=args_dot_bar)
        tangent_bars = tuple(dot_named.get(p, NoTangent()) for p in SOLVE_IVP_PARAMETERS)
        dargs_bar = Tangent(tuple, NoTangent(), *_padded(tangent_bars, len(dargs) - 1))
        primal_bars = [named.get(p, NoTangent()) for p in SOLVE_IVP_PARAMETERS]
        rest = (NoTangent(),) * (passed - len(SOLVE_IVP_PARAMETERS))
        return (NoTangent(), dargs_bar, *primal_bars, *rest)

    return result, solve_ivp_frule_pullback


# --- the result's fields ------------------------------------------------------------------


def field_cotangent(result: Any, name: str) -> Callable[[Any], Any]:
    """The cotangent of `solve_ivp`'s `result` given that of its field `name` (a zero for
    a field that is not differentiated)."""
    kind = type(result)
    differentiated = name in _DIFFERENTIATED_FIELDS

    def back(bar: Any) -> Any:
        bar = unthunk(bar)
        if not differentiated or isinstance(bar, AbstractZero):
            return ZeroTangent()
        return Tangent.of_mapping(kind, {name: bar})

    return back


@rules.rrule(ode_result_field_frule)
def ode_result_field_frule_rrule(dargs: tuple[Any, ...], result: Any,
                                 name: str) -> tuple[Any, Pullback]:  # fmt: skip
    """The reverse rule of reading a field of `solve_ivp`'s result in forward mode: the
    field of the value and of its tangent, each cotangent given back to the field read
    (the read is linear in both)."""
    value, value_dot = ode_result_field_frule(dargs, result, name)
    back = field_cotangent(result, name)

    def ode_result_field_frule_pullback(bars: Any) -> tuple[Any, ...]:
        value_bar, dot_bar = elements_of(unthunk(bars), 2)
        dargs_bar = Tangent(tuple, NoTangent(), back(dot_bar), NoTangent())
        return (NoTangent(), dargs_bar, back(value_bar), NoTangent())

    return (value, value_dot), ode_result_field_frule_pullback

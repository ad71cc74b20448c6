"""Rules for `scipy.integrate`'s ODE solvers, `odeint` and `solve_ivp`: the adjoint method
in reverse mode, the tangent equation in forward mode.

The solution `y(t)` of `dy/dt = f(y, t, *args)`, `y(t0) = y0`, read at the output times
`T_i`, depends on `y0`, on `args` (and on what the right-hand side `f` itself holds: a
`functools.partial`'s bound arguments, a bound method's object, a callable object's
fields) and on the times. Its derivatives are those of the exact solution, computed by
solving other ODEs with the same solver and the user's tolerances:

- reverse (`_adjoint`): from the last output time back to `t0`, the adjoint `a` (the
  cotangent of `y(t)`, to which each output's cotangent is added at its time) solves
  `da/dt = -a ∂f/∂y`, and the parameters' cotangent `g` solves `dg/dt = -a ∂f/∂θ`, both
  read from the vector-Jacobian product of `f` that `RuleConfig.rrule_via_ad` gives
  (`f`'s rule, or the one srcad compiles from its source). `y` is integrated back beside
  them, restarted at each output time from the forward solution. Then `y0_bar = a(t0)`,
  `T_i_bar = Y_i_bar · f(y(T_i), T_i)` and `t0_bar = -a(t0) · f(y0, t0)`.
- forward (`_tangent`): `ẏ` solves `dẏ/dt = ∂f/∂y ẏ + ∂f/∂θ θ̇` (the right-hand side's
  forward rule, `RuleConfig.frule_via_ad`), from `ẏ(t0) = ẏ0 - f(y0, t0) ṫ0`, and each
  output's tangent adds `f(y(T_i), T_i) Ṫ_i`.

The value returned is the solver's own, from the user's call. A derivative is as accurate
as the solver's tolerances make it (`rtol`, `atol`, passed on). What is refused, each when
the rule runs with differentiated arguments, and why: `solve_ivp`'s `events` (a terminal
event's time moves with the inputs); without `t_eval`, the solution at the solver's own
interior steps (those times move with the inputs, by the step-size control, whose
derivative is no ODE's: pass `t_eval`; reverse mode raises where a cotangent reaches them,
forward mode gives them NaN tangents); complex ODEs; fields of the result other than `.y`
and `.t` (`.sol`, `.t_events`, `.y_events`). A right-hand side that is a nested function
reading differentiated values is passed them (`partial(f, k)`, whose bound arguments get
the derivative `args` get: `passes/transforms/closure_values.py`) where each has one value
from its binding on, and is refused where it is passed otherwise (E212): pass them in `args`.

Installed once the user imports `scipy.integrate` (`rules/__init__.py: SCIPY_RULE_SETS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.integrate as integrate
from scipy.integrate._ivp.ivp import OdeResult

from srcad.errors import MissingRuleError
from srcad.primitives import call
from srcad.registry import CONFIG, RuleSet
from srcad.rules._flat import cotangent_of, flat_cotangent, size
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("scipy_integrate")

# Refused by name (`DeferredRuleSet`): a call with a differentiated argument is refused at
# the caller's line with this reason, never with the problems of SciPy's own source.
_QUADRATURE = (
    "srcad has no rule for SciPy's adaptive quadrature (its derivative, the integral of the "
    "integrand's derivative plus the bounds' terms, is not written); integrate with a fixed "
    "rule (`np.trapezoid` over `np.linspace`) or register a rule"
)
_BOUNDARY_VALUE = (
    "srcad has no rule for `solve_bvp` (its derivative solves a linearised boundary value "
    "problem, which is not written); register a rule"
)
_QUADRATURES = (integrate.quad, integrate.dblquad, integrate.tplquad, integrate.nquad)
REFUSED = {
    **dict.fromkeys((*_QUADRATURES, integrate.quad_vec), _QUADRATURE),
    integrate.solve_bvp: _BOUNDARY_VALUE,
}

Pullback = Any
Vector = np.ndarray

# The parameters each solver's rule gives a (co)tangent for, passed by position or by name.
ODEINT_PARAMETERS = ("func", "y0", "t", "args")
SOLVE_IVP_PARAMETERS = ("fun", "t_span", "y0", "method", "t_eval", "dense_output", "events",
                        "vectorized", "args")  # fmt: skip
_ODEINT_TOLERANCE = 1.49012e-8  # odeint's default rtol and atol


class _Problem:
    """`dy/dt = func(y, t, *args)` (or `func(t, y, *args)`, `tfirst`) as the rules solve it:
    the right-hand side's value, vector-Jacobian and Jacobian-vector products on flat
    float vectors, and `solve(rhs, state, t0, times)`, the user's solver (its method and
    tolerances) applied to another system."""

    def __init__(self, func: Any, args: tuple[Any, ...] | list[Any], tfirst: bool,
                 solve: Callable[..., np.ndarray]) -> None:  # fmt: skip
        self.func, self.args, self.tfirst, self.solve = func, tuple(args), tfirst, solve
        self.parameters = (func, args)  # what the right-hand side reads besides y and t

    def _ordered(self, y: Any, t: Any) -> tuple[Any, Any]:
        return (t, y) if self.tfirst else (y, t)

    def f(self, y: Vector, t: float) -> Vector:
        return np.ravel(np.asarray(self.func(*self._ordered(y, t), *self.args), dtype=float))

    def vjp(self, y: Vector, t: float, a: Vector) -> tuple[Vector, Vector, Vector]:
        """`f(y, t)`, `a ∂f/∂y` and `a ∂f/∂θ` (θ flat)."""
        value, y_bar, _, theta_bar = self.partials(y, t, a)
        return value, y_bar, theta_bar

    def partials(self, y: Vector, t: float, a: Vector) -> tuple[Vector, Vector, float, Vector]:
        """`f(y, t)`, `a ∂f/∂y`, `a ∂f/∂t` and `a ∂f/∂θ` (θ flat)."""
        value, pullback = CONFIG.rrule_via_ad(call, self.func, *self._ordered(y, t), *self.args)
        _, func_bar, first, second, *arg_bars = pullback(cotangent_of(value, a))
        y_bar, t_bar = (second, first) if self.tfirst else (first, second)
        theta_bar = Tangent(tuple, func_bar, Tangent(tuple, *arg_bars))
        flat_value = np.ravel(np.asarray(value, dtype=float))
        t_bar = unthunk(t_bar)
        t_partial = 0.0 if isinstance(t_bar, AbstractZero) else float(np.real(np.sum(t_bar)))
        y_partial = flat_cotangent(y, y_bar)
        return flat_value, y_partial, t_partial, flat_cotangent(self.parameters, theta_bar)

    def jvp(self, y: Vector, t: float, y_dot: Vector, func_dot: Any,
            arg_dots: list[Any]) -> tuple[Vector, Vector]:  # fmt: skip
        """`f(y, t)` and `∂f/∂y ẏ + ∂f/∂θ θ̇`."""
        dots = self._ordered(y_dot, ZeroTangent())
        value, value_dot = CONFIG.frule_via_ad(
            (NoTangent(), func_dot, *dots, *arg_dots), call, self.func, *self._ordered(y, t),
            *self.args,
        )  # fmt: skip
        return np.ravel(np.asarray(value, dtype=float)), flat_cotangent(value, value_dot)


def _adjoint(problem: _Problem, y0: Vector, t0: float, times: Vector, ys: np.ndarray,
             ys_bar: np.ndarray) -> tuple[Vector, float, Vector, Vector]:  # fmt: skip
    """`(y0_bar, t0_bar, times_bar, theta_bar)` for the outputs `ys[i] = y(times[i])`
    with cotangents `ys_bar` (see the module's docstring)."""
    n, p = y0.size, size(problem.parameters)
    a, g = np.zeros(n), np.zeros(p)
    times_bar = np.zeros(len(times))

    def augmented(t: float, state: Vector) -> Vector:
        value, y_bar, theta_bar = problem.vjp(state[:n], t, state[n : 2 * n])
        return np.concatenate([value, -y_bar, -theta_bar])

    for i in range(len(times) - 1, -1, -1):
        if np.any(ys_bar[i]):
            times_bar[i] = ys_bar[i] @ problem.f(ys[i], times[i])
            a = a + ys_bar[i]
        earlier = times[i - 1] if i > 0 else t0
        if earlier != times[i] and np.any(a):  # (a zero adjoint stays zero)
            state = np.concatenate([ys[i], a, g])
            end = problem.solve(augmented, state, times[i], np.array([earlier]))[-1]
            a, g = end[n : 2 * n], end[2 * n :]
    t0_bar = -float(a @ problem.f(y0, t0))
    return a, t0_bar, times_bar, g


def _tangent(problem: _Problem, y0: Vector, y0_dot: Vector, t0: float, t0_dot: float,
             times: Vector, times_dot: Vector, ys: np.ndarray, func_dot: Any,
             arg_dots: list[Any]) -> np.ndarray:  # fmt: skip
    """The tangents of the outputs `ys[i] = y(times[i])` (see the module's docstring)."""
    n = y0.size

    def augmented(t: float, state: Vector) -> Vector:
        return np.concatenate(problem.jvp(state[:n], t, state[n:], func_dot, arg_dots))

    start = y0_dot - problem.f(y0, t0) * t0_dot
    state = np.concatenate([y0, start])
    tangents = problem.solve(augmented, state, t0, times)[:, n:]
    for i, t in enumerate(times):
        if times_dot[i]:
            tangents[i] = tangents[i] + problem.f(ys[i], t) * times_dot[i]
    return tangents


def _tolerance(value: Any, default: float) -> float:
    """A tolerance for the rules' own systems, which are longer than the user's: the
    smallest of a tolerance given per component."""
    return default if value is None else float(np.min(value))


def _dots(dargs: tuple[Any, ...], count: int) -> list[Any]:
    """The tangents of the first `count` parameters, zero for those not passed."""
    given = [unthunk(d) for d in dargs[1 : 1 + count]]
    return given + [ZeroTangent()] * (count - len(given))


def _extra_arguments(args: Any) -> tuple[Any, ...] | list[Any]:
    """`args` as the solver passes them on: a tuple or a list (`solve_ivp` takes both), as
    given, so that their cotangent has their type; anything else, alone."""
    if args is None:
        return ()
    return args if isinstance(args, tuple | list) else (args,)


# --- odeint -------------------------------------------------------------------------------


def _odeint_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    given = dict(zip(ODEINT_PARAMETERS, args, strict=False))
    given.update({k: v for k, v in kwargs.items() if k in ODEINT_PARAMETERS})
    if len(args) > len(ODEINT_PARAMETERS):
        raise MissingRuleError(
            "srcad differentiates odeint called with at most func, y0, t and args by "
            "position; pass its options by name"
        )
    options = {k: v for k, v in kwargs.items() if k not in ODEINT_PARAMETERS}
    func, y0, t = given["func"], given["y0"], given["t"]
    return func, y0, t, _extra_arguments(given.get("args")), options


def _odeint_problem(func: Any, args: tuple[Any, ...], options: dict[str, Any]) -> _Problem:
    rtol = _tolerance(options.get("rtol"), _ODEINT_TOLERANCE)
    atol = _tolerance(options.get("atol"), _ODEINT_TOLERANCE)
    steps = options.get("mxstep") or 0

    def solve(rhs: Callable[..., Vector], state: Vector, t0: float, times: Vector) -> np.ndarray:
        grid = np.concatenate([[t0], times])
        return integrate.odeint(rhs, state, grid, rtol=rtol, atol=atol, mxstep=steps,
                                tfirst=True)[1:]  # fmt: skip

    return _Problem(func, args, bool(options.get("tfirst", False)), solve)


@rules.rrule(integrate.odeint, parameters=ODEINT_PARAMETERS)
def odeint_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    """`odeint(func, y0, t, args=(), ...)`: the adjoint method, with odeint's tolerances."""
    func, y0, t, ode_args, options = _odeint_call(args, kwargs)
    result = integrate.odeint(*args, **kwargs)
    ys = result[0] if options.get("full_output") else result
    problem = _odeint_problem(func, ode_args, options)
    times = np.asarray(t, dtype=float)
    passed = max(len(args), len(ODEINT_PARAMETERS))

    def odeint_pullback(result_bar: Any) -> tuple[Any, ...]:
        result_bar = unthunk(result_bar)
        if options.get("full_output") and not isinstance(result_bar, AbstractZero):
            result_bar = unthunk(elements_of(result_bar, 2)[0])
        if isinstance(result_bar, AbstractZero):
            return (NoTangent(), NoTangent(), *(ZeroTangent(),) * (passed - 1))
        ys_bar = np.broadcast_to(np.asarray(result_bar, dtype=float), ys.shape)
        y0_bar, t0_bar, times_bar, theta_bar = _adjoint(
            problem, np.ravel(ys[0]), float(times[0]), times, ys, ys_bar
        )
        times_bar[0] += t0_bar
        func_bar, args_bar = elements_of(cotangent_of(problem.parameters, theta_bar), 2)
        bars = (cotangent_of(y0, y0_bar), cotangent_of(t, times_bar), args_bar)
        return (NoTangent(), func_bar, *bars)

    return result, odeint_pullback


@rules.frule(integrate.odeint, parameters=ODEINT_PARAMETERS)
def odeint_frule(dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """`odeint`'s forward rule: the tangent equation, solved by odeint beside the ODE."""
    func, y0, t, ode_args, options = _odeint_call(args, kwargs)
    result = integrate.odeint(*args, **kwargs)
    ys = result[0] if options.get("full_output") else result
    func_dot, y0_dot, t_dot, args_dot = _dots(dargs, 4)
    times = np.asarray(t, dtype=float)
    times_dot = flat_cotangent(t, t_dot) if np.size(times) else times
    arg_dots = list(elements_of(args_dot, len(ode_args)))
    if (isinstance(y0_dot, AbstractZero) and not np.any(times_dot)
            and all(isinstance(d, AbstractZero) for d in (func_dot, *arg_dots))):  # fmt: skip
        return result, ZeroTangent()
    problem = _odeint_problem(func, ode_args, options)
    y0_flat = np.ravel(ys[0])
    tangents = _tangent(problem, y0_flat, flat_cotangent(y0, y0_dot), float(times[0]),
                        float(times_dot[0]), times[1:], times_dot[1:], ys[1:], func_dot,
                        arg_dots)  # fmt: skip
    start = flat_cotangent(y0, y0_dot)  # the output at t0 is y0 itself
    ys_dot = np.concatenate([start[None, :], tangents]).reshape(ys.shape)
    if options.get("full_output"):
        return result, Tangent(tuple, ys_dot, NoTangent())
    return result, ys_dot


# --- solve_ivp ----------------------------------------------------------------------------


def _check_one_state(func: Any, t0: float, y0: Any, args: tuple[Any, ...] | list[Any]) -> None:
    """With `vectorized=True` SciPy calls the field with states of shape (n, k) only; the
    rules' adjoint calls it with one state, an (n,) array: refused where the field, at the
    start, does not take one state (an error, or another shape or value than the column's;
    its broadcasting, which decides this, is the same at every state)."""
    state = np.ravel(np.asarray(y0, dtype=float))
    try:
        one = np.asarray(func(t0, state, *args), dtype=float)
        column = np.asarray(func(t0, state[:, np.newaxis], *args), dtype=float)
        same = one.shape == state.shape and np.array_equal(one, np.ravel(column), equal_nan=True)
    except Exception:  # the field's own error for a state it was not written for
        same = False
    if not same:
        raise MissingRuleError(
            "srcad differentiates solve_ivp(vectorized=True) only where the right-hand side "
            "also takes one state, an (n,) array, as srcad's adjoint calls it (giving the "
            "(n,) values the (n, 1) column gives); this one does not: write it for (n,) "
            "states too, or pass vectorized=False"
        )


class _IvpCall:
    """A call of `solve_ivp`, read: its arguments by name, the initial time, and whether
    the output times are the solver's own steps (no `t_eval`)."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        given = dict(zip(SOLVE_IVP_PARAMETERS, args, strict=False))
        given.update(kwargs)
        self.given = given
        self.options = {k: v for k, v in kwargs.items() if k not in SOLVE_IVP_PARAMETERS}
        self.func, self.t_span, self.y0 = given["fun"], given["t_span"], given["y0"]
        self.t_eval = given.get("t_eval")
        self.ode_args = _extra_arguments(given.get("args"))
        self.t0 = float(self.t_span[0])
        if given.get("events") is not None:
            raise MissingRuleError(
                "srcad does not differentiate solve_ivp with `events` (a terminal event's "
                "time moves with the inputs); solve to fixed times and find the event "
                "yourself"
            )
        if np.iscomplexobj(self.y0):
            raise MissingRuleError("srcad differentiates solve_ivp of real ODEs only")
        if given.get("vectorized"):
            _check_one_state(self.func, self.t0, self.y0, self.ode_args)

    def tangents(self, dargs: Any, times: Vector) -> tuple[Any, list[Any], Any, Any, Any]:
        """The tangents of the call's function, extra arguments, span (flat), initial
        state (flat) and output times (flat; the span's ends at the first and last of the
        solver's own steps, where there is no `t_eval`)."""
        count = len(SOLVE_IVP_PARAMETERS)
        dots = dict(zip(SOLVE_IVP_PARAMETERS, _dots(dargs, count), strict=True))
        arg_dots = list(elements_of(dots["args"], len(self.ode_args)))
        span_dot = flat_cotangent(self.t_span, dots["t_span"])
        y0_dot = flat_cotangent(self.y0, dots["y0"])
        if self.t_eval is None:
            times_dot = np.zeros(len(times))
            times_dot[[0, -1]] = span_dot if len(times) > 1 else span_dot[:1]
        else:
            times_dot = flat_cotangent(self.t_eval, dots["t_eval"])
        return dots["fun"], arg_dots, span_dot, y0_dot, times_dot

    def problem(self) -> _Problem:
        method = self.given.get("method", "RK45")
        tolerances = {k: v for k, v in self.options.items() if k in ("rtol", "max_step")}
        if "atol" in self.options:
            tolerances["atol"] = _tolerance(self.options["atol"], 1e-6)

        def solve(rhs: Callable[..., Vector], state: Vector, t0: float, times: Vector) -> Any:
            if not len(times):
                return np.zeros((0, state.size))
            found = integrate.solve_ivp(rhs, (t0, times[-1]), state, method=method,
                                        t_eval=times, **tolerances)  # fmt: skip
            if not found.success:
                raise ArithmeticError(f"solve_ivp failed on srcad's adjoint: {found.message}")
            return found.y.T

        return _Problem(self.func, self.ode_args, True, solve)

    def interior(self, count: int) -> slice:
        """The output times that are the solver's own steps, which move with the inputs:
        without `t_eval`, every time but the first (`t0`) and the last (`t1`)."""
        return slice(1, count - 1) if self.t_eval is None else slice(0, 0)

    def parameter_bars(self, func_bar: Any, t0_bar: float, times_bar: Vector,
                       count: int) -> dict[str, Any]:  # fmt: skip
        """The cotangents of `t_span` and `t_eval` from those of `t0` and the outputs."""
        if self.t_eval is None:
            span_bar = np.array([t0_bar + times_bar[0], times_bar[-1]])
            if count == 1:
                span_bar = np.array([t0_bar + times_bar[0], 0.0])
            return {"t_span": cotangent_of(self.t_span, span_bar), "t_eval": NoTangent()}
        span_bar = np.array([t0_bar, 0.0])
        return {"t_span": cotangent_of(self.t_span, span_bar),
                "t_eval": cotangent_of(self.t_eval, times_bar)}  # fmt: skip


def _field_bar(result_bar: Any, name: str) -> Any:
    if isinstance(result_bar, Tangent):
        return unthunk(result_bar.fields.get(name, ZeroTangent()))
    return ZeroTangent()


def _moving_times(what: str) -> MissingRuleError:
    return MissingRuleError(
        f"srcad cannot differentiate {what} of solve_ivp at the solver's own steps: those "
        "times move with the inputs, by the step-size control; pass `t_eval=` the times "
        "you read the solution at"
    )


@rules.rrule(integrate.solve_ivp, parameters=SOLVE_IVP_PARAMETERS)
def solve_ivp_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    """`solve_ivp(fun, t_span, y0, ..., t_eval=..., args=...)`: the adjoint method, with
    the user's method and tolerances; the cotangent of its result's `.y` and `.t`."""
    ivp = _IvpCall(args, kwargs)
    result = integrate.solve_ivp(*args, **kwargs)
    problem = ivp.problem()
    ys, times = result.y.T, np.asarray(result.t, dtype=float)
    passed = max(len(args), len(SOLVE_IVP_PARAMETERS))

    def solve_ivp_pullback(result_bar: Any) -> tuple[Any, ...]:
        result_bar = unthunk(result_bar)
        y_bar, t_bar = _field_bar(result_bar, "y"), _field_bar(result_bar, "t")
        ys_bar = np.zeros(ys.shape)
        if not isinstance(y_bar, AbstractZero):
            ys_bar = np.broadcast_to(np.asarray(y_bar, dtype=float), result.y.shape).T
        own_t_bar = np.zeros(len(times))
        if not isinstance(t_bar, AbstractZero):
            own_t_bar = np.broadcast_to(np.asarray(t_bar, dtype=float), times.shape)
        named = ivp_cotangents(ivp, problem, ys, times, ys_bar, own_t_bar)
        bars = [named.get(p, NoTangent()) for p in SOLVE_IVP_PARAMETERS]
        return (NoTangent(), *bars, *(NoTangent(),) * (passed - len(SOLVE_IVP_PARAMETERS)))

    return result, solve_ivp_pullback


def ivp_cotangents(ivp: _IvpCall, problem: _Problem, ys: np.ndarray, times: Vector,
                   ys_bar: np.ndarray, own_t_bar: Vector, extra: Any = None
                   ) -> dict[str, Any]:  # fmt: skip
    """The cotangents of `solve_ivp`'s parameters, by name, for those `ys_bar` of the
    solution at `times` and `own_t_bar` of the times themselves: the adjoint method.
    `extra`: flat cotangents `(y0, t0, times, theta)` to add to the adjoint's (those the
    tangent equation's adjoint gives at second order)."""
    interior = ivp.interior(len(times))
    if np.any(ys_bar[interior]):
        raise _moving_times("the solution")
    if np.any(own_t_bar[interior]):
        raise _moving_times("the times")
    y0_bar, t0_bar, times_bar, theta_bar = _adjoint(
        problem, np.ravel(np.asarray(ivp.y0, dtype=float)), ivp.t0, times, ys, ys_bar
    )
    if extra is not None:
        y0_bar, t0_bar = y0_bar + extra[0], t0_bar + extra[1]
        times_bar, theta_bar = times_bar + extra[2], theta_bar + extra[3]
    times_bar = times_bar + own_t_bar
    func_bar, args_bar = elements_of(cotangent_of(problem.parameters, theta_bar), 2)
    named = ivp.parameter_bars(func_bar, t0_bar, times_bar, len(times))
    named.update(fun=func_bar, y0=cotangent_of(ivp.y0, y0_bar), args=args_bar)
    return named


@rules.frule(integrate.solve_ivp, parameters=SOLVE_IVP_PARAMETERS)
def solve_ivp_frule(dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """`solve_ivp`'s forward rule: the tangent equation, solved at the result's times. The
    tangents at the solver's own interior steps (no `t_eval`) are NaN: those times move
    with the inputs (see the module's docstring)."""
    ivp = _IvpCall(args, kwargs)
    result = integrate.solve_ivp(*args, **kwargs)
    times = np.asarray(result.t, dtype=float)
    func_dot, arg_dots, span_dot, y0_dot, times_dot = ivp.tangents(dargs, times)
    if (not np.any(y0_dot) and not np.any(span_dot) and not np.any(times_dot)
            and all(isinstance(d, AbstractZero) for d in (func_dot, *arg_dots))):  # fmt: skip
        return result, ZeroTangent()
    problem = ivp.problem()
    y0 = np.ravel(np.asarray(ivp.y0, dtype=float))
    ys = result.y.T
    starts = len(times) and times[0] == ivp.t0
    later = slice(1 if starts else 0, None)
    tangents = _tangent(problem, y0, y0_dot, ivp.t0, float(span_dot[0]), times[later],
                        times_dot[later], ys[later], func_dot, arg_dots)  # fmt: skip
    if starts:  # the output at t0 is y0 itself
        tangents = np.concatenate([y0_dot[None, :], tangents])
    tangents[ivp.interior(len(times))] = np.nan
    times_tangent = times_dot.copy()
    times_tangent[ivp.interior(len(times))] = np.nan
    return result, Tangent.of_mapping(type(result), {"y": tangents.T, "t": times_tangent})


# --- the result's fields ------------------------------------------------------------------

# `solve_ivp`'s result is an `OdeResult`, a dict read by attribute through its class's
# `__getattr__` (SciPy's `_RichResult`), which `rules/calls.py: getattr_rrule` calls the rule
# of. `.y` and `.t` have (co)tangents; the counters and messages have none; the others
# (`.sol`, `.t_events`, `.y_events`) are refused.
_DIFFERENTIATED_FIELDS = frozenset({"y", "t"})
_CONSTANT_FIELDS = frozenset({"nfev", "njev", "nlu", "status", "message", "success"})
_READ_FIELD = OdeResult.__getattr__


def _field(result: Any, name: str) -> Any:
    if not isinstance(result, OdeResult):
        raise MissingRuleError(
            f"srcad has no rule for reading `.{name}` of a differentiated {type(result).__name__}"
        )
    if name not in _DIFFERENTIATED_FIELDS | _CONSTANT_FIELDS:
        raise MissingRuleError(
            f"srcad differentiates only `.y` and `.t` of solve_ivp's result, not `.{name}`"
        )
    return result[name]


@rules.rrule(_READ_FIELD)
def ode_result_field_rrule(result: Any, name: str) -> tuple[Any, Pullback]:
    value = _field(result, name)
    kind = type(result)

    def ode_result_field_pullback(value_bar: Any) -> tuple[Any, Any, Any]:
        if name in _CONSTANT_FIELDS or isinstance(value_bar, AbstractZero):
            return NoTangent(), ZeroTangent(), NoTangent()
        return NoTangent(), Tangent.of_mapping(kind, {name: value_bar}), NoTangent()

    return value, ode_result_field_pullback


@rules.frule(_READ_FIELD)
def ode_result_field_frule(dargs: tuple[Any, ...], result: Any, name: str) -> tuple[Any, Any]:
    value = _field(result, name)
    result_dot = unthunk(dargs[1])
    if name in _CONSTANT_FIELDS or not isinstance(result_dot, Tangent):
        return value, ZeroTangent()
    return value, result_dot.fields.get(name, ZeroTangent())

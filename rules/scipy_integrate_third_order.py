"""Third derivatives through `scipy.integrate`'s ODE solvers: the forward rules of their
forward rules (`rules/scipy_integrate_tangents.py` has those forward rules' reverse rules),
with their reverse rules, which reverse mode differentiates for `grad` three deep.

A solver's forward rule solves the tangent equation beside the ODE, `z = (y, w)`; forward
mode over it solves the tangent equation of that system: `Z = (y, w, u, v)`, `u` the
tangent of `y` in the second direction and `v` that of `w`, whose right-hand side is the
forward rule of `f`'s forward rule (`third_order_calls.call_frule_frule`: the registered
one's, or srcad's of `f`'s source), `(f(y), ∂f w + ∂f θ̇, ∂f u + ∂f θ̇₂, the second
directional derivative)`, with the parameters `(θ, θ̇, θ̇₂, θ̈)`. Its reverse rule is the
adjoint method on that system (`scipy_integrate._adjoint`), its vector-Jacobian product the
reverse rule of `call_frule_frule` (`_SecondTangentProblem`). Each system is solved with the
user's method and tolerances. Where the times move (a tangent of `odeint`'s `t`, of
`solve_ivp`'s `t_span` or `t_eval`), the outputs and the start take the times' terms, first
order in `f` (`rules/scipy_integrate_time_terms.py`), with their adjoints. Refused when the
rules run (**unsound**, as at first order): a cotangent reaching `solve_ivp`'s own interior
steps.

Installed with `scipy_integrate`'s rules, once the user imports `scipy.integrate`
(`rules/__init__.py: SCIPY_RULE_SETS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.registry import RuleSet
from srcad.rules._flat import cotangent_of, flat_cotangent, size
from srcad.rules.scipy_integrate import (
    ODEINT_PARAMETERS,
    SOLVE_IVP_PARAMETERS,
    Vector,
    _adjoint,
    _dots,
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
from srcad.rules.scipy_integrate_tangents import (
    _dense,
    _ivp_bars,
    _materialised,
    _padded,
    _parameter_bars,
    field_cotangent,
)
from srcad.rules.scipy_integrate_time_terms import TimeBars, _Terms
from srcad.rules.third_order_calls import call_frule_frule, call_frule_frule_rrule
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

# Keyed on the forward rules' forward rules, as `scipy_integrate_tangents`' are on the
# forward rules; a rule set of that name, which the docs' table leaves out.
rules = RuleSet("second_order")

Pullback = Any


# --- third derivatives: odeint's forward rule's forward rule -------------------------------


class _SecondTangentProblem(_Problem):
    """The tangent equation of the tangent equation, `Z = (y, w, u, v)`: `w` the tangent of
    `y` in the first direction, `u` in the second, `v` that of `w` in the second, whose
    right-hand side is the forward rule of `f`'s forward rule
    (`third_order_calls.call_frule_frule`) and its vector-Jacobian product that rule's
    reverse rule; the parameters `(θ, θ̇, θ̇₂, θ̈)`, flat, in that order."""

    def __init__(self, problem: _Problem, func_dots: list[Any],
                 arg_dots: list[list[Any]]) -> None:  # fmt: skip
        super().__init__(problem.func, problem.args, problem.tfirst, problem.solve)
        # (zeros of the argument's structure for a symbolic zero, as `_TangentProblem`'s)
        self.func_dots = [_materialised(problem.func, d) for d in func_dots]
        self.arg_dots = [
            [_materialised(a, d) for a, d in zip(problem.args, dots, strict=True)]
            for dots in arg_dots
        ]
        self.parameters = (problem.parameters,) * 4

    def _groups(self, z: Vector, t: float) -> tuple[tuple[Any, ...], tuple[Any, ...], Any]:
        """`call_frule_frule`'s tangents, in both orders, and the arguments, at `z`."""
        n = z.size // 4
        y, w, u, v = z[:n], z[n : 2 * n], z[2 * n : 3 * n], z[3 * n :]
        inner = (NoTangent(), self.func_dots[0], *self._ordered(w, ZeroTangent()),
                 *self.arg_dots[0])  # fmt: skip
        moved = (NoTangent(), self.func_dots[2], *self._ordered(v, ZeroTangent()),
                 *self.arg_dots[2])  # fmt: skip
        outer = (NoTangent(), moved, self.func_dots[1], *self._ordered(u, ZeroTangent()),
                 *self.arg_dots[1])  # fmt: skip
        return outer, inner, (self.func, *self._ordered(y, t), *self.args)

    @staticmethod
    def _flat(value: Any, tangents: tuple[Any, ...]) -> Vector:
        return np.concatenate([np.ravel(np.asarray(value, dtype=float)),
                               *(flat_cotangent(value, d) for d in tangents)])  # fmt: skip

    def f(self, z: Vector, t: float) -> Vector:
        outer, inner, arguments = self._groups(z, t)
        (value, value_dot), tangent = call_frule_frule(outer, inner, *arguments)
        return self._flat(value, (value_dot, *elements_of(unthunk(tangent), 2)))

    def vjp(self, z: Vector, t: float, a: Vector) -> tuple[Vector, Vector, Vector]:
        n = z.size // 4
        outer, inner, arguments = self._groups(z, t)
        result, pullback = call_frule_frule_rrule(outer, inner, *arguments)
        (value, value_dot), tangent = result
        flat_value = self._flat(value, (value_dot, *elements_of(unthunk(tangent), 2)))
        a0, a1, a2, a3 = (cotangent_of(value, a[k * n : (k + 1) * n]) for k in range(4))
        _, outer_bar, inner_bar, func_bar, *argument_bars = pullback(((a0, a1), (a2, a3)))
        outer_bars = elements_of(unthunk(outer_bar), len(outer))
        moved_bars = elements_of(unthunk(outer_bars[1]), len(outer[1]))
        inner_bars = elements_of(unthunk(inner_bar), len(inner))
        place = 1 if self.tfirst else 0  # where y's (co)tangent is among (y, t)'s, or (t, y)'s

        def state(bars: tuple[Any, ...], start: int) -> Vector:
            return flat_cotangent(z[:n], bars[start + place])

        def theta(own: Any, bars: tuple[Any, ...]) -> Vector:
            found = Tangent(tuple, own, Tangent(tuple, *bars[: len(self.args)]))
            return flat_cotangent(self.problem_parameters, found)

        z_bar = np.concatenate([state(tuple(argument_bars), 0), state(inner_bars, 2),
                                state(outer_bars, 3), state(moved_bars, 2)])  # fmt: skip
        flat_theta = np.concatenate([
            theta(func_bar, tuple(argument_bars[2:])), theta(inner_bars[1], inner_bars[4:]),
            theta(outer_bars[2], outer_bars[5:]), theta(moved_bars[1], moved_bars[4:]),
        ])  # fmt: skip
        return flat_value, z_bar, flat_theta

    @property
    def problem_parameters(self) -> Any:
        return self.parameters[0]


class _OdeintTwice:
    """What odeint's forward rule's forward rule reads from its arguments: the problem,
    its solution `Z` at the times (one row per time), what it starts from and the times'
    terms (`scipy_integrate_time_terms`)."""

    def __init__(self, dargs2: tuple[Any, ...], dargs: tuple[Any, ...], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:  # fmt: skip
        self.func, self.y0, self.t, ode_args, self.options = _odeint_call(args, kwargs)
        self.count = len(ode_args)
        self.full_output = bool(self.options.get("full_output"))
        func_dot, y0_dot, t_dot, args_dot = _dots(dargs, 4)
        inner = unthunk(dargs2[1])
        moved = (ZeroTangent(),) * len(dargs) if isinstance(inner, AbstractZero) else inner
        func_dot_dot, y0_dot_dot, t_dot_dot, args_dot_dot = _dots(tuple(moved), 4)
        func_dot2, y0_dot2, t_dot2, args_dot2 = _dots(tuple(dargs2[1:]), 4)
        self.problem = _odeint_problem(self.func, ode_args, self.options)
        self.second = _SecondTangentProblem(
            self.problem, [func_dot, func_dot2, func_dot_dot],
            [list(elements_of(d, self.count)) for d in (args_dot, args_dot2, args_dot_dot)],
        )  # fmt: skip
        self.terms = _Terms(self.problem, self.second.func_dots, self.second.arg_dots)
        self.times = np.asarray(self.t, dtype=float)
        # The times' tangents (`Ṫ`, `T₂`, `Ṫ'`), flat; the first is the start's.
        self.moves = [flat_cotangent(self.t, d) for d in (t_dot, t_dot2, t_dot_dot)]
        self.y0_flat = np.ravel(np.asarray(self.y0, dtype=float))
        self.n = self.y0_flat.size
        self.starts = [flat_cotangent(self.y0, d) for d in (y0_dot, y0_dot2, y0_dot_dot)]
        self.z0 = self.terms.start(self.y0_flat, float(self.times[0]), self.starts,
                                   self.start_moves)  # fmt: skip

    @property
    def start_moves(self) -> tuple[float, float, float]:
        first, second, moved = (float(m[0]) for m in self.moves)
        return first, second, moved

    def solution(self) -> np.ndarray:
        """`Z` at the times (the first is the start, `t0`)."""
        second = self.second

        def augmented(t: float, z: Vector) -> Vector:
            return second.f(z, t)

        later = second.solve(augmented, self.z0, float(self.times[0]), self.times[1:])
        return np.concatenate([self.z0[None, :], later.reshape(-1, self.z0.size)])

    def outputs(self, zs: np.ndarray, shape: tuple[int, ...]) -> tuple[Any, Any]:
        """The tangents of odeint's result in the second direction and of its tangent, at
        the times, with the times' terms."""
        second, twice = self.terms.outputs(zs, self.times, self.moves)

        def output(rows: np.ndarray) -> Any:
            found = rows.reshape(shape)
            return Tangent(tuple, found, NoTangent()) if self.full_output else found

        return output(second), output(twice)


def odeint_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], *args: Any,
                       **kwargs: Any) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `odeint`'s forward rule (third derivatives): the tangent equation
    of the tangent equation (`_SecondTangentProblem`), solved with the user's tolerances,
    and the terms of the times that move (`scipy_integrate_time_terms`)."""
    value = odeint_frule(dargs, *args, **kwargs)
    twice = _OdeintTwice(dargs2, dargs, args, kwargs)
    ys = value[0][0] if twice.full_output else value[0]
    zs = twice.solution()
    return value, twice.outputs(zs, np.shape(ys))


def odeint_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], *args: Any,
                             **kwargs: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """`odeint_frule_frule`'s: the adjoint method on the tangent equation of the tangent
    equation, its vector-Jacobian product `call_frule_frule`'s reverse rule, and the
    adjoint of the times' terms."""
    twice = _OdeintTwice(dargs2, dargs, args, kwargs)
    value = odeint_frule(dargs, *args, **kwargs)
    ys = np.asarray(value[0][0] if twice.full_output else value[0], dtype=float)
    zs = twice.solution()
    shape = ys.shape
    result = (value, twice.outputs(zs, shape))
    n, p, m = twice.n, size(twice.problem.parameters), len(twice.times)

    def odeint_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        value_bar, tangent_bar = elements_of(unthunk(bars), 2)
        parts = (*elements_of(unthunk(value_bar), 2), *elements_of(unthunk(tangent_bar), 2))
        dense = [_dense(b, shape, twice.full_output).reshape(m, n) for b in parts]
        found = TimeBars(m, p)
        zs_bar = twice.terms.output_bars(zs, twice.times, twice.moves, dense, found)
        z0_bar, t0_bar, times_bar, theta_bar = _adjoint(
            twice.second, twice.z0, float(twice.times[0]), twice.times, zs, zs_bar
        )
        y0_bars, start_bar, move_bars = twice.terms.start_bars(
            twice.y0_flat, float(twice.times[0]), twice.starts, twice.start_moves, z0_bar, found
        )
        times_bar += found.times
        times_bar[0] += t0_bar + start_bar
        move_groups = [found.first, found.second, found.moved]
        for k in range(3):
            move_groups[k][0] += move_bars[k]
        theta_bar[:p] += found.theta
        theta_bar[p : 2 * p] += found.theta_first
        theta_bar[2 * p : 3 * p] += found.theta_second
        y0s = [cotangent_of(twice.y0, y0_bars[k]) for k in range(4)]
        thetas = [_parameter_bars(twice.problem, theta_bar[k * p : (k + 1) * p]) for k in range(4)]

        def group(k: int, *inner: Any) -> tuple[Any, ...]:
            t_bar = cotangent_of(twice.t, move_groups[k - 1])
            return (NoTangent(), *inner, thetas[k][0], y0s[k], t_bar, thetas[k][1])

        moved = Tangent(tuple, *_padded(group(3), len(dargs)))
        dargs2_bar = Tangent(tuple, *_padded(group(2, moved), len(dargs2)))
        dargs_bar = Tangent(tuple, *_padded(group(1), len(dargs)))
        primal_bars = (thetas[0][0], y0s[0], cotangent_of(twice.t, times_bar), thetas[0][1])
        passed = max(len(args), len(ODEINT_PARAMETERS))
        return (NoTangent(), dargs2_bar, dargs_bar, *_padded(primal_bars, passed))

    return result, odeint_frule_frule_pullback


rules.frule(odeint_frule, parameters=("dargs", *ODEINT_PARAMETERS))(odeint_frule_frule)
rules.rrule(odeint_frule_frule, parameters=("dargs2", "dargs", *ODEINT_PARAMETERS))(
    odeint_frule_frule_rrule
)


# --- third derivatives: solve_ivp's forward rule's forward rule ----------------------------


def _named_dots(group: Any, count: int) -> dict[str, Any]:
    """The tangents of `solve_ivp`'s parameters in a group of its forward rule's (its own,
    then one per parameter), by name: zeros for those not passed, or for a zero group."""
    group = unthunk(group)
    parts = (ZeroTangent(),) * count if isinstance(group, AbstractZero) else tuple(group)
    return dict(zip(SOLVE_IVP_PARAMETERS, _dots(parts, len(SOLVE_IVP_PARAMETERS)), strict=True))


class _IvpTwice:
    """What `solve_ivp`'s forward rule's forward rule reads from its arguments: the call,
    the tangent equation of the tangent equation (`_SecondTangentProblem`), its start and
    the times' terms (`scipy_integrate_time_terms`: `t_span`'s and `t_eval`'s tangents)."""

    def __init__(self, dargs2: tuple[Any, ...], dargs: tuple[Any, ...], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:  # fmt: skip
        self.ivp = _IvpCall(args, kwargs)
        # The tangents in the first direction, the second, and of the first's in the second.
        self.groups = [_named_dots(g, len(dargs)) for g in (dargs, dargs2[1:], dargs2[1])]
        groups = self.groups
        ode_args = self.ivp.ode_args
        self.problem = self.ivp.problem()
        self.second = _SecondTangentProblem(
            self.problem, [dots["fun"] for dots in groups],
            [list(elements_of(dots["args"], len(ode_args))) for dots in groups],
        )  # fmt: skip
        self.terms = _Terms(self.problem, self.second.func_dots, self.second.arg_dots)
        y0 = self.ivp.y0
        self.n = int(np.size(y0))
        self.y0_flat = np.ravel(np.asarray(y0, dtype=float))
        self.starts = [flat_cotangent(y0, dots["y0"]) for dots in groups]
        self.start_moves = tuple(
            float(flat_cotangent(self.ivp.t_span, dots["t_span"])[0]) for dots in groups
        )
        self.z0 = self.terms.start(self.y0_flat, self.ivp.t0, self.starts, self.start_moves)

    def moves(self, times: Vector) -> list[Vector]:
        """The output times' tangents in each direction (`ivp.tangents`: the span's ends
        where there is no `t_eval`)."""
        found = []
        for dots in self.groups:
            own = (NoTangent(), *(dots[name] for name in SOLVE_IVP_PARAMETERS))
            found.append(self.ivp.tangents(own, times)[4])
        return found

    def solution(self, times: Vector) -> np.ndarray:
        """`Z` at the result's times (the start itself where they begin at `t0`)."""
        second = self.second
        starts = bool(len(times)) and times[0] == self.ivp.t0
        later = times[1:] if starts else times

        def augmented(t: float, z: Vector) -> Vector:
            return second.f(z, t)

        found = second.solve(augmented, self.z0, self.ivp.t0, later).reshape(-1, self.z0.size)
        return np.concatenate([self.z0[None, :], found]) if starts else found

    def outputs(self, result: Any, zs: np.ndarray, moves: list[Vector]) -> tuple[Any, Any]:
        """The tangents of the result in the second direction and of its tangent, with the
        times' terms (NaN at the solver's own interior steps, which move with the inputs)."""
        times = np.asarray(result.t, dtype=float)
        rows = self.terms.outputs(zs, times, moves)
        interior = self.ivp.interior(len(times))

        def output(ys: np.ndarray, times_dot: Vector) -> Any:
            ys, times_dot = ys.copy(), np.array(times_dot, dtype=float)
            ys[interior] = np.nan
            times_dot[interior] = np.nan
            return Tangent.of_mapping(type(result), {"y": ys.T, "t": times_dot})

        return output(rows[0], moves[1]), output(rows[1], moves[2])


def solve_ivp_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], *args: Any,
                          **kwargs: Any) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of `solve_ivp`'s forward rule (third derivatives): the tangent
    equation of the tangent equation, solved at the result's times with the user's method
    and tolerances, and the terms of the times that move."""
    twice = _IvpTwice(dargs2, dargs, args, kwargs)
    value = solve_ivp_frule(dargs, *args, **kwargs)
    result = value[0]
    times = np.asarray(result.t, dtype=float)
    zs = twice.solution(times)
    return value, twice.outputs(result, zs, twice.moves(times))


def solve_ivp_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], *args: Any,
                                **kwargs: Any) -> tuple[Any, Pullback]:  # fmt: skip
    """`solve_ivp_frule_frule`'s: the adjoint method on the tangent equation of the tangent
    equation, and the adjoint of the times' terms; a cotangent reaching the solver's own
    interior steps is refused, as at first order."""
    twice = _IvpTwice(dargs2, dargs, args, kwargs)
    value = solve_ivp_frule(dargs, *args, **kwargs)
    result = value[0]
    times = np.asarray(result.t, dtype=float)
    zs = twice.solution(times)
    moves = twice.moves(times)
    found = (value, twice.outputs(result, zs, moves))
    ivp, p, m = twice.ivp, size(twice.problem.parameters), len(times)
    ys = result.y.T
    interior = ivp.interior(m)

    def solve_ivp_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        value_bar, tangent_bar = elements_of(unthunk(bars), 2)
        parts = (*elements_of(unthunk(value_bar), 2), *elements_of(unthunk(tangent_bar), 2))
        dense = [_ivp_bars(b, ys, times) for b in parts]
        if any(np.any(d[0][interior]) or np.any(d[1][interior]) for d in dense):
            raise _moving_times("a tangent of the solution or of the times")
        spent = TimeBars(m, p)
        zs_bar = twice.terms.output_bars(zs, times, moves, [d[0] for d in dense], spent)
        z0_bar, t0_bar, times_bar, theta_bar = _adjoint(
            twice.second, twice.z0, ivp.t0, times, zs, zs_bar
        )
        y0_bars, start_bar, move_bars = twice.terms.start_bars(
            twice.y0_flat, ivp.t0, twice.starts, twice.start_moves, z0_bar, spent
        )
        theta_bar[:p] += spent.theta
        theta_bar[p : 2 * p] += spent.theta_first
        theta_bar[2 * p : 3 * p] += spent.theta_second
        extra = (y0_bars[0], t0_bar + start_bar, times_bar + spent.times, theta_bar[:p])
        named = ivp_cotangents(ivp, twice.problem, ys, times, np.zeros(ys.shape), dense[0][1],
                               extra)  # fmt: skip
        move_groups = [spent.first, spent.second, spent.moved]

        def group(k: int, *inner: Any) -> tuple[Any, ...]:
            func_bar, args_bar = _parameter_bars(twice.problem, theta_bar[k * p : (k + 1) * p])
            own = ivp.parameter_bars(None, move_bars[k - 1], move_groups[k - 1] + dense[k][1], m)
            own.update(fun=func_bar, args=args_bar, y0=cotangent_of(ivp.y0, y0_bars[k]))
            bars = tuple(own.get(name, NoTangent()) for name in SOLVE_IVP_PARAMETERS)
            return (NoTangent(), *inner, *bars)

        moved = Tangent(tuple, *_padded(group(3), len(dargs)))
        dargs2_bar = Tangent(tuple, *_padded(group(2, moved), len(dargs2)))
        dargs_bar = Tangent(tuple, *_padded(group(1), len(dargs)))
        primal_bars = [named.get(name, NoTangent()) for name in SOLVE_IVP_PARAMETERS]
        rest = (NoTangent(),) * (max(len(args), len(SOLVE_IVP_PARAMETERS)) - len(primal_bars))
        return (NoTangent(), dargs2_bar, dargs_bar, *primal_bars, *rest)

    return found, solve_ivp_frule_frule_pullback


rules.frule(solve_ivp_frule, parameters=("dargs", *SOLVE_IVP_PARAMETERS))(solve_ivp_frule_frule)
rules.rrule(solve_ivp_frule_frule, parameters=("dargs2", "dargs", *SOLVE_IVP_PARAMETERS))(
    solve_ivp_frule_frule_rrule
)


def ode_result_field_frule_frule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...], result: Any,
                                 name: str) -> tuple[Any, Any]:  # fmt: skip
    """The forward rule of reading a field of `solve_ivp`'s result in forward mode (third
    derivatives), linear: the field of each tangent."""
    inner = unthunk(dargs2[1])
    dot_dot = ZeroTangent() if isinstance(inner, AbstractZero) else elements_of(inner, 3)[1]
    dots = [ode_result_field_frule((NoTangent(), d, NoTangent()), result, name)[1]
            for d in (dargs2[2], dot_dot)]  # fmt: skip
    return ode_result_field_frule(dargs, result, name), tuple(dots)


def ode_result_field_frule_frule_rrule(dargs2: tuple[Any, ...], dargs: tuple[Any, ...],
                                       result: Any, name: str) -> tuple[Any, Pullback]:  # fmt: skip
    found = ode_result_field_frule_frule(dargs2, dargs, result, name)
    back = field_cotangent(result, name)

    def ode_result_field_frule_frule_pullback(bars: Any) -> tuple[Any, ...]:
        value_bar, tangent_bar = elements_of(unthunk(bars), 2)
        field_bar, dot_bar = elements_of(unthunk(value_bar), 2)
        dot2_bar, dot_dot_bar = elements_of(unthunk(tangent_bar), 2)
        inner = Tangent(tuple, NoTangent(), back(dot_dot_bar), NoTangent())
        dargs2_bar = Tangent(tuple, NoTangent(), inner, back(dot2_bar), NoTangent())
        dargs_bar = Tangent(tuple, NoTangent(), back(dot_bar), NoTangent())
        return (NoTangent(), dargs2_bar, dargs_bar, back(field_bar), NoTangent())

    return found, ode_result_field_frule_frule_pullback


rules.frule(ode_result_field_frule)(ode_result_field_frule_frule)
rules.rrule(ode_result_field_frule_frule)(ode_result_field_frule_frule_rrule)

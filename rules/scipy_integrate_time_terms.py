"""The times' terms of the ODE solvers' forward rules' forward rules (third derivatives
where the output times or the initial time move), and their adjoints.

The forward rule's tangent of the output at `T` is `w(T) + f(y(T), T) Ṫ` (`w` the tangent
equation's solution, from `w(t0) = ẏ0 - f(y0, t0) ṫ0`). Its forward rule solves the
tangent equation of the tangent equation, `Z = (y, w, u, v)` (`_SecondTangentProblem`), for
the outputs at fixed times; where the times move, in the second direction (`T₂`, `t0₂`)
and as the first direction's tangents do (`Ṫ'`, `ṫ0'`), the outputs and the start take
first-order terms of `f` only (the second derivatives of `f` are in `v` already):

- at an output, the tangent of `y(T)` in the second direction is `D2 = u + f T₂`, and that
  of `w(T) + f Ṫ` is `DD = v + K + f Ṫ'`, with `K = f_y (T₂ w + Ṫ D2) + f_t Ṫ T₂ + f_θ (T₂
  θ̇ + Ṫ θ₂)` (the tangent of `w(T)` as `T` moves, `w'(T) T₂`, and that of `f(y(T), T)` in
  the second direction, times `Ṫ`): one forward rule of `f` (`_Terms.endpoint`);
- the start is `Z0 = (y0, ẏ0 - f0 ṫ0, y0₂ - f0 t0₂, ẏ0' - K0 - f0 ṫ0')`, `K0` the same term
  at `(y0, t0)` with `w0` and `y0₂` (the tangent of `Z` at a moving start).

Their adjoints are the reverse rule of `f`'s forward rule (`second_order_calls.
call_frule_rrule`, reached through `CONFIG.rrule_via_ad`) and `f`'s own
(`_Problem.partials`); the parameters' cotangents are flat, in `_SecondTangentProblem`'s
order (`θ`, `θ̇`, `θ₂`, `θ̇'`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.primitives import call
from srcad.registry import CONFIG
from srcad.rules._flat import cotangent_of, flat_cotangent, size
from srcad.rules.scipy_integrate import Vector, _Problem
from srcad.rules.scipy_integrate_tangents import _CALL_FRULE, _parameter_bars
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk


def _scalar(bar: Any) -> float:
    bar = unthunk(bar)
    return 0.0 if isinstance(bar, AbstractZero) else float(np.real(np.sum(bar)))


class _EndpointBars:
    """The cotangents `_Terms.endpoint_bars` finds: of `y`, `t` and `θ` (flat), and of the
    tangents `K` is the forward rule's in (`a_y`, `a_t`, `a_theta`)."""

    def __init__(self, y: Vector, t: float, theta: Vector, a_y: Vector, a_t: float,
                 a_theta: Vector) -> None:  # fmt: skip
        self.y, self.t, self.theta = y, t, theta
        self.a_y, self.a_t, self.a_theta = a_y, a_t, a_theta


class TimeBars:
    """What the adjoint of the times' terms gives besides `Z`'s cotangents: the primal
    times', the three directions' time tangents' (`first`: `Ṫ`, `second`: `T₂`, `moved`:
    `Ṫ'`), one per output, and the parameters' (flat: `θ`, `θ̇`, `θ₂`)."""

    def __init__(self, m: int, p: int) -> None:
        self.times, self.first, self.second, self.moved = (np.zeros(m) for _ in range(4))
        self.theta, self.theta_first, self.theta_second = (np.zeros(p) for _ in range(3))


class _Terms:
    """The times' terms for one problem and the parameters' tangents in the first and the
    second direction (`_SecondTangentProblem`'s `func_dots`, `arg_dots`)."""

    def __init__(self, problem: _Problem, func_dots: list[Any], arg_dots: list[list[Any]]
                 ) -> None:  # fmt: skip
        self.problem = problem
        self.p = size(problem.parameters)
        self.theta_first, self.theta_second = (
            flat_cotangent(problem.parameters, Tangent(tuple, func_dots[k],
                                                       Tangent(tuple, *arg_dots[k])))
            for k in range(2)
        )  # fmt: skip

    def _tangents(self, w: Vector, d2: Vector, t2: float, t1: float) -> tuple[Any, ...]:
        """The forward rule's tangents `K` is taken in (see the module's docstring)."""
        problem = self.problem
        func_dot, args_dot = _parameter_bars(
            problem, t2 * self.theta_first + t1 * self.theta_second
        )
        arg_dots = elements_of(unthunk(args_dot), len(problem.args)) if problem.args else ()
        dots = problem._ordered(t2 * w + t1 * d2, t1 * t2)
        return (NoTangent(), func_dot, *dots, *arg_dots)

    def endpoint(self, y: Vector, t: float, w: Vector, d2: Vector, t2: float, t1: float
                 ) -> tuple[Vector, Vector]:  # fmt: skip
        """`f(y, t)` and `K`."""
        problem = self.problem
        value, value_dot = CONFIG.frule_via_ad(
            self._tangents(w, d2, t2, t1), call, problem.func, *problem._ordered(y, t),
            *problem.args,
        )  # fmt: skip
        return np.ravel(np.asarray(value, dtype=float)), flat_cotangent(value, value_dot)

    def endpoint_bars(self, y: Vector, t: float, w: Vector, d2: Vector, t2: float, t1: float,
                      f_bar: Vector, k_bar: Vector) -> tuple[Vector, _EndpointBars]:  # fmt: skip
        """`f(y, t)`, and the cotangents of `endpoint`'s inputs for `f_bar` of `f` and
        `k_bar` of `K`."""
        problem = self.problem
        dargs = self._tangents(w, d2, t2, t1)
        (value, _), pullback = CONFIG.rrule_via_ad(
            _CALL_FRULE, dargs, problem.func, *problem._ordered(y, t), *problem.args
        )
        bars = (cotangent_of(value, f_bar), cotangent_of(value, k_bar))
        _, dargs_bar, func_bar, first, second, *arg_bars = pullback(bars)
        dargs_bar = unthunk(dargs_bar)
        dot_bars: tuple[Any, ...] = (ZeroTangent(),) * len(dargs)
        if not isinstance(dargs_bar, AbstractZero):
            dot_bars = tuple(elements_of(dargs_bar, len(dargs)))
        y_bar, t_bar = (second, first) if problem.tfirst else (first, second)
        a_y, a_t = (dot_bars[3], dot_bars[2]) if problem.tfirst else (dot_bars[2], dot_bars[3])
        count = len(problem.args)
        theta = Tangent(tuple, func_bar, Tangent(tuple, *arg_bars[:count]))
        a_theta = Tangent(tuple, dot_bars[1], Tangent(tuple, *dot_bars[4 : 4 + count]))
        found = _EndpointBars(
            flat_cotangent(y, y_bar), _scalar(t_bar),
            flat_cotangent(problem.parameters, theta), flat_cotangent(y, a_y), _scalar(a_t),
            flat_cotangent(problem.parameters, a_theta),
        )  # fmt: skip
        return np.ravel(np.asarray(value, dtype=float)), found

    # --- the start -------------------------------------------------------------------------

    def start(self, y0: Vector, t0: float, dots: list[Vector], moves: tuple[float, ...]
              ) -> Vector:  # fmt: skip
        """`Z0` from `y0` and its tangents `dots` (`ẏ0`, `y0₂`, `ẏ0'`), at `t0`, whose
        tangents are `moves` (`ṫ0`, `t0₂`, `ṫ0'`)."""
        y0_dot, y0_second, y0_moved = dots
        s1, s2, s12 = moves
        if not (s1 or s2 or s12):
            return np.concatenate([y0, y0_dot, y0_second, y0_moved])
        f0 = self.problem.f(y0, t0)
        w0 = y0_dot - f0 * s1
        k0 = self.endpoint(y0, t0, w0, y0_second, s2, s1)[1] if s1 or s2 else 0.0 * f0
        return np.concatenate([y0, w0, y0_second - f0 * s2, y0_moved - k0 - f0 * s12])

    def start_bars(
        self,
        y0: Vector,
        t0: float,
        dots: list[Vector],
        moves: tuple[float, ...],
        z0_bar: Vector,
        found: TimeBars,
    ) -> tuple[list[Vector], float, list[float]]:
        """The adjoint of `start`: the cotangents of `y0` and its tangents, of `t0` and of
        its tangents (`found` gets the parameters')."""
        n = y0.size
        y_bar, w_bar, u_bar, v_bar = (z0_bar[k * n : (k + 1) * n] for k in range(4))
        s1, s2, s12 = moves
        if not (s1 or s2 or s12):
            return [y_bar, w_bar, u_bar, v_bar], 0.0, [0.0, 0.0, 0.0]
        y0_dot, y0_second, _ = dots
        f0 = self.problem.f(y0, t0)
        w0 = y0_dot - f0 * s1
        y0_bar, t0_bar = y_bar.copy(), 0.0
        w0_bar, second_bar = w_bar.copy(), u_bar.copy()
        move_bars = [0.0, -float(u_bar @ f0), -float(v_bar @ f0)]
        if s1 or s2:  # `K0`, whose cotangent is `-v_bar`
            _, ends = self.endpoint_bars(y0, t0, w0, y0_second, s2, s1, np.zeros(n), -v_bar)
            w0_bar += s2 * ends.a_y
            second_bar += s1 * ends.a_y
            y0_bar += ends.y
            t0_bar += ends.t
            found.theta += ends.theta
            found.theta_first += s2 * ends.a_theta
            found.theta_second += s1 * ends.a_theta
            move_bars[0] += float(ends.a_y @ y0_second + ends.a_t * s2
                                  + ends.a_theta @ self.theta_second)  # fmt: skip
            move_bars[1] += float(ends.a_y @ w0 + ends.a_t * s1 + ends.a_theta @ self.theta_first)
        move_bars[0] -= float(w0_bar @ f0)
        f_bar = -s12 * v_bar - s1 * w0_bar - s2 * u_bar  # (`f0` in `w0`, `u0` and `v0`)
        if np.any(f_bar):
            _, partial_y, partial_t, partial_theta = self.problem.partials(y0, t0, f_bar)
            y0_bar += partial_y
            t0_bar += partial_t
            found.theta += partial_theta
        return [y0_bar, w0_bar, second_bar, v_bar], t0_bar, move_bars

    # --- the outputs -----------------------------------------------------------------------

    def outputs(self, zs: np.ndarray, times: Vector, moves: list[Vector]
                ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """`D2` and `DD` at each output (one row each) from `Z` there, the times' tangents
        `moves` (`Ṫ`, `T₂`, `Ṫ'`, one per output)."""
        n = zs.shape[1] // 4
        second, twice = zs[:, 2 * n : 3 * n].copy(), zs[:, 3 * n :].copy()
        for i, t in enumerate(times):
            t1, t2, t12 = (float(m[i]) for m in moves)
            if not (t1 or t2 or t12):
                continue
            y, w = zs[i, :n], zs[i, n : 2 * n]
            f = self.problem.f(y, float(t))
            second[i] += f * t2
            if t1 or t2:
                twice[i] += self.endpoint(y, float(t), w, second[i], t2, t1)[1]
            twice[i] += f * t12
        return second, twice

    def output_bars(self, zs: np.ndarray, times: Vector, moves: list[Vector],
                    bars: list[np.ndarray], found: TimeBars) -> np.ndarray:  # fmt: skip
        """The adjoint of the outputs (`y`, `D1 = w + f Ṫ`, `D2`, `DD`, whose cotangents
        are `bars`, one row per output): `Z`'s cotangents at the outputs (`found` gets the
        times', their tangents' and the parameters')."""
        n = zs.shape[1] // 4
        zs_bar = np.concatenate(bars, axis=1)
        for i, t in enumerate(times):
            t1, t2, t12 = (float(m[i]) for m in moves)
            if not (t1 or t2 or t12):
                continue
            d1_bar, d2_bar, dd_bar = (b[i] for b in bars[1:])
            y, w, u = zs[i, :n], zs[i, n : 2 * n], zs[i, 2 * n : 3 * n]
            time = float(t)
            f = self.problem.f(y, time)
            d2 = u + f * t2
            f_bar = t12 * dd_bar + t2 * d2_bar + t1 * d1_bar
            found.moved[i] += float(dd_bar @ f)
            found.first[i] += float(d1_bar @ f)
            if t1 or t2:
                _, ends = self.endpoint_bars(y, time, w, d2, t2, t1, np.zeros(n), dd_bar)
                d2_bar = d2_bar + t1 * ends.a_y
                f_bar = t12 * dd_bar + t2 * d2_bar + t1 * d1_bar
                zs_bar[i, :n] += ends.y
                zs_bar[i, n : 2 * n] += t2 * ends.a_y
                found.times[i] += ends.t
                found.theta += ends.theta
                found.theta_first += t2 * ends.a_theta
                found.theta_second += t1 * ends.a_theta
                found.second[i] += float(ends.a_y @ w + ends.a_t * t1
                                         + ends.a_theta @ self.theta_first)  # fmt: skip
                found.first[i] += float(ends.a_y @ d2 + ends.a_t * t2
                                        + ends.a_theta @ self.theta_second)  # fmt: skip
            zs_bar[i, 2 * n : 3 * n] = d2_bar
            found.second[i] += float(d2_bar @ f)
            if np.any(f_bar):
                _, partial_y, partial_t, partial_theta = self.problem.partials(y, time, f_bar)
                zs_bar[i, :n] += partial_y
                found.times[i] += partial_t
                found.theta += partial_theta
        return zs_bar

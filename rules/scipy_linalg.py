"""Rules for `scipy.linalg`: triangular solves, the Cholesky factor-and-solve pair and the
matrix exponential.

Installed once the user imports `scipy.linalg` (`rules/__init__.py: SCIPY_RULE_SETS`).
Each routine reads part of its input, and its cotangent lies on that part:
`solve_triangular` reads one triangle of `a` (without its diagonal, with
`unit_diagonal`), `cho_solve` the triangle of `c` its factor is in, and `cho_factor` the
triangle of `a` LAPACK reads (as `np.linalg.cholesky`, whose reverse rule it uses) and
copies the other triangle of `a` into its result unchanged, which is what its derivative
follows there. The forward rules are written with functions that have rules
(`solve_triangular`, `cho_solve`, `expm`, `np.tril`, matrix products), so that they are
differentiated in turn, for second derivatives. A call that lets SciPy overwrite an
argument (`overwrite_a=True`, `overwrite_b=True`) is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as linalg

from srcad.errors import UnsupportedCallError
from srcad.projection import ProjectTo, conj
from srcad.registry import RuleSet
from srcad.rules._support import conj_transpose, element_cotangents, options_by_name
from srcad.rules.numpy_factorisations import cholesky_rrule
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, unthunk

rules = RuleSet("scipy_linalg")

Pullback = Any

# `trans` as SciPy takes it: 0, 1, 2 or "N", "T", "C" (a, its transpose, its adjoint).
_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2, "n": 0, "t": 1, "c": 2}
_SOLVE_TRIANGULAR_PARAMETERS = ("trans", "lower", "unit_diagonal", "overwrite_b", "check_finite")


def _refuse_overwrite(overwrite: Any, name: str) -> None:
    if overwrite:
        raise UnsupportedCallError(
            f"srcad cannot differentiate a call with {name}=True, which lets SciPy change the "
            "argument in place"
        )


def _triangle(m: Any, lower: Any, unit_diagonal: Any) -> Any:
    """The part of `m` a triangular solve reads: one triangle, without the diagonal for a
    unit-diagonal solve."""
    offset = 1 if unit_diagonal else 0
    return np.tril(m, -offset) if lower else np.triu(m, offset)


def _transposed(m: Any, trans: int) -> Any:
    """`m`, its transpose or its conjugate transpose, for `trans` 0, 1 or 2."""
    if trans == 0:
        return m
    flipped = np.swapaxes(m, -1, -2)
    return np.conjugate(flipped) if trans == 2 else flipped


def _outer(u: Any, v: Any) -> Any:
    """`u v^H` for the right-hand sides of a solve (vectors, or matrices of columns)."""
    u, v = np.asarray(u), np.asarray(v)
    if u.ndim == 1:
        return u[:, np.newaxis] * np.conjugate(v)[np.newaxis, :]
    return u @ conj_transpose(v)


@rules.rrule(linalg.solve_triangular)
def solve_triangular_rrule(a: Any, b: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `x = solve_triangular(a, b, trans, lower, unit_diagonal)`, which
    solves `op(T) x = b`, `T` the triangle of `a` read and `op` given by `trans`:
    `b_bar = op(T)^-H x_bar`, and the cotangent of `op(T)` is `-b_bar x^H`, taken back
    through `op` and onto the triangle read."""
    given = options_by_name(_SOLVE_TRIANGULAR_PARAMETERS, options, keywords)
    _refuse_overwrite(given.get("overwrite_b"), "overwrite_b")
    trans = _TRANS[given.get("trans", 0)]
    lower, unit = bool(given.get("lower", False)), bool(given.get("unit_diagonal", False))
    check_finite = given.get("check_finite", True)
    x = linalg.solve_triangular(a, b, *options, **keywords)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    option_bars = (NoTangent(),) * len(options)

    def solve_triangular_pullback(x_bar: Any) -> tuple[Any, ...]:
        x_bar = unthunk(x_bar)
        if isinstance(x_bar, AbstractZero):
            return (NoTangent(), x_bar, x_bar, *option_bars)
        # op(T)^-H: T^-H for op = identity, conj(T)^-1 for the transpose, T^-1 for the adjoint.
        matrix = conj(a) if trans == 1 else a
        b_bar = linalg.solve_triangular(matrix, x_bar, 2 if trans == 0 else 0, lower, unit,
                                        check_finite=check_finite)  # fmt: skip
        op_bar = -_outer(b_bar, x)
        a_bar = _triangle(_transposed(op_bar, trans), lower, unit)
        return (NoTangent(), project_a(a_bar), project_b(b_bar), *option_bars)

    return x, solve_triangular_pullback


@rules.frule(linalg.solve_triangular)
def solve_triangular_frule(
    dargs: tuple[Any, ...],
    a: Any,
    b: Any,
    trans: Any = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> tuple[Any, Any]:
    """Forward rule for `solve_triangular`: `x_dot = op(T)^-1 (b_dot - op(T_dot) x)`."""
    _refuse_overwrite(overwrite_b, "overwrite_b")
    x = linalg.solve_triangular(a, b, trans, lower, unit_diagonal, False, check_finite)
    a_dot, b_dot = unthunk(dargs[1]), unthunk(dargs[2])
    if isinstance(a_dot, AbstractZero) and isinstance(b_dot, AbstractZero):
        return x, ZeroTangent()
    rhs = ZeroTangent() if isinstance(b_dot, AbstractZero) else b_dot
    if not isinstance(a_dot, AbstractZero):
        op_dot = _transposed(_triangle(a_dot, lower, unit_diagonal), _TRANS[trans])
        rhs = rhs - op_dot @ x
    x_dot = linalg.solve_triangular(a, rhs, trans, lower, unit_diagonal, False, check_finite)
    return x, x_dot


# --- cho_factor and cho_solve ---------------------------------------------------------------


def _factor_options(options: tuple[Any, ...], keywords: dict[str, Any]) -> tuple[bool, bool]:
    given = options_by_name(("lower", "overwrite_a", "check_finite"), options, keywords)
    _refuse_overwrite(given.get("overwrite_a"), "overwrite_a")
    return bool(given.get("lower", False)), given.get("check_finite", True)


@rules.rrule(linalg.cho_factor)
def cho_factor_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `c, lower = cho_factor(a, lower)`. The factor's triangle of `c` is
    `np.linalg.cholesky`'s factor of the triangle of `a` LAPACK reads (`upper=not lower`),
    whose rule gives its cotangent; the other strict triangle is `a`'s own entries, copied,
    whose cotangent passes straight through."""
    lower, _ = _factor_options(options, keywords)
    result = linalg.cho_factor(a, *options, **keywords)
    _, cholesky_pullback = cholesky_rrule(a, upper=not lower)
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)

    def cho_factor_pullback(result_bar: Any) -> tuple[Any, ...]:
        c_bar, _ = element_cotangents(result_bar, 2)
        if isinstance(c_bar, AbstractZero):
            return (NoTangent(), ZeroTangent(), *option_bars)
        c_bar = np.asarray(c_bar)
        factor_bar = np.tril(c_bar) if lower else np.triu(c_bar)
        copied_bar = np.triu(c_bar, 1) if lower else np.tril(c_bar, -1)
        a_bar = cholesky_pullback(factor_bar)[1] + copied_bar
        return (NoTangent(), project_a(a_bar), *option_bars)

    return result, cho_factor_pullback


def _hermitian_read(a_dot: Any, lower: Any) -> Any:
    """The tangent of the Hermitian matrix LAPACK factors, from the tangent of `a`: the
    triangle read, mirrored, with the real part of its diagonal."""
    strict = np.tril(a_dot, -1) if lower else np.triu(a_dot, 1)
    diagonal = np.real(a_dot) * np.eye(np.shape(a_dot)[-1])
    return strict + conj_transpose(strict) + diagonal


@rules.frule(linalg.cho_factor)
def cho_factor_frule(
    dargs: tuple[Any, ...],
    a: Any,
    lower: bool = False,
    overwrite_a: bool = False,
    check_finite: bool = True,
) -> tuple[Any, Any]:
    """Forward rule for `cho_factor`: with `A = L L^H` (`L` the factor, or `U^H`),
    `L_dot = L phi(L^-1 A_dot L^-H)`, phi the lower triangle with half the diagonal; the
    copied triangle's tangent is `a_dot`'s."""
    _refuse_overwrite(overwrite_a, "overwrite_a")
    result = linalg.cho_factor(a, lower, False, check_finite)
    a_dot = unthunk(dargs[1])
    if isinstance(a_dot, AbstractZero):
        return result, ZeroTangent()
    factor = np.tril(result[0]) if lower else conj_transpose(np.triu(result[0]))
    half = linalg.solve_triangular(factor, _hermitian_read(a_dot, lower), 0, True)
    middle = conj_transpose(linalg.solve_triangular(factor, conj_transpose(half), 0, True))
    phi = np.tril(middle) - 0.5 * middle * np.eye(np.shape(middle)[-1])
    factor_dot = factor @ phi
    if lower:
        c_dot = factor_dot + np.triu(a_dot, 1)
    else:
        c_dot = conj_transpose(factor_dot) + np.tril(a_dot, -1)
    return result, (c_dot, NoTangent())


def _lower_factor(c: Any, lower: Any) -> Any:
    """The lower-triangular `L` with `A = L L^H`, from `cho_factor`'s result."""
    return np.tril(c) if lower else conj_transpose(np.triu(c))


@rules.rrule(linalg.cho_solve)
def cho_solve_rrule(
    c_and_lower: Any, b: Any, *options: Any, **keywords: Any
) -> tuple[Any, Pullback]:
    """Reverse rule for `x = cho_solve((c, lower), b)`, `x = A^-1 b` with `A = L L^H` and
    `L` read from one triangle of `c`: `b_bar = A^-1 x_bar`, and with `A_bar = -b_bar x^H`,
    `L_bar = (A_bar + A_bar^H) L`, on the triangle of `c` read (transposed for `U = L^H`)."""
    given = options_by_name(("overwrite_b", "check_finite"), options, keywords)
    _refuse_overwrite(given.get("overwrite_b"), "overwrite_b")
    c, lower = c_and_lower
    x = linalg.cho_solve(c_and_lower, b, *options, **keywords)
    factor = _lower_factor(c, lower)
    project_c, project_b = ProjectTo(c), ProjectTo(b)
    option_bars = (NoTangent(),) * len(options)

    def cho_solve_pullback(x_bar: Any) -> tuple[Any, ...]:
        x_bar = unthunk(x_bar)
        if isinstance(x_bar, AbstractZero):
            return (NoTangent(), ZeroTangent(), x_bar, *option_bars)
        b_bar = linalg.cho_solve(c_and_lower, x_bar, check_finite=given.get("check_finite", True))
        a_bar = -_outer(b_bar, x)
        factor_bar = np.tril((a_bar + conj_transpose(a_bar)) @ factor)
        c_bar = factor_bar if lower else conj_transpose(factor_bar)
        c_and_lower_bar = Tangent(tuple, project_c(c_bar), NoTangent())
        return (NoTangent(), c_and_lower_bar, project_b(b_bar), *option_bars)

    return x, cho_solve_pullback


@rules.frule(linalg.cho_solve)
def cho_solve_frule(
    dargs: tuple[Any, ...],
    c_and_lower: Any,
    b: Any,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> tuple[Any, Any]:
    """Forward rule for `cho_solve`: `x_dot = A^-1 (b_dot - A_dot x)`, with
    `A_dot = L_dot L^H + L L_dot^H`."""
    _refuse_overwrite(overwrite_b, "overwrite_b")
    c, lower = c_and_lower
    x = linalg.cho_solve(c_and_lower, b, False, check_finite)
    pair_dot, b_dot = unthunk(dargs[1]), unthunk(dargs[2])
    c_dot = pair_dot if isinstance(pair_dot, AbstractZero) else unthunk(pair_dot[0])
    if isinstance(c_dot, AbstractZero) and isinstance(b_dot, AbstractZero):
        return x, ZeroTangent()
    rhs = ZeroTangent() if isinstance(b_dot, AbstractZero) else b_dot
    if not isinstance(c_dot, AbstractZero):
        factor, factor_dot = _lower_factor(c, lower), _lower_factor(c_dot, lower)
        rhs = rhs - factor_dot @ (conj_transpose(factor) @ x)
        rhs = rhs - factor @ (conj_transpose(factor_dot) @ x)
    return x, linalg.cho_solve(c_and_lower, rhs, False, check_finite)


# --- expm --------------------------------------------------------------------------------------


def _frechet(a: Any, e: Any) -> Any:
    """The Fréchet derivative of `expm` at `a` in the direction `e` (of a stack of
    matrices too): the upper right block of `expm([[a, e], [0, a]])`. Written with `expm`
    and `np.concatenate`, so that it is differentiated in turn."""
    n = np.shape(a)[-1]
    top = np.concatenate([a, e], axis=-1)
    bottom = np.concatenate([np.zeros_like(e), a], axis=-1)
    block = linalg.expm(np.concatenate([top, bottom], axis=-2))
    return block[..., :n, n:]


@rules.rrule(linalg.expm)
def expm_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `expm(a)`: the adjoint of the Fréchet derivative `L(a, .)` is
    `L(a^H, .)`, here `scipy.linalg.expm_frechet` (of each matrix in a stack)."""
    y = linalg.expm(a)
    project_a = ProjectTo(a)

    def expm_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        adjoint = conj_transpose(np.asarray(a))
        y_bar = np.broadcast_to(y_bar, np.shape(y))
        a_bar = np.empty(np.shape(y), dtype=np.result_type(y, y_bar))
        for index in np.ndindex(np.shape(y)[:-2]):
            a_bar[index] = linalg.expm_frechet(adjoint[index], y_bar[index], compute_expm=False)
        return NoTangent(), project_a(a_bar)

    return y, expm_pullback


@rules.frule(linalg.expm)
def expm_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    """Forward rule for `expm`: its Fréchet derivative along `a_dot` (`_frechet`)."""
    y = linalg.expm(a)
    a_dot = unthunk(dargs[1])
    if isinstance(a_dot, AbstractZero):
        return y, ZeroTangent()
    return y, _frechet(a, a_dot)

"""Rules for `np.linalg`'s inverses, solves, determinants, matrix powers and least
squares (the factorisations are in `numpy_factorisations`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.kinds import FLOAT_OF_MATRIX, MATRIX_OF_MATRIX
from srcad.primitives import logabsdet
from srcad.projection import ProjectTo
from srcad.registry import Inline, RuleSet
from srcad.rules._support import (
    argument_tangents,
    common_dtype,
    conj_transpose,
    element_cotangents,
    options_by_name,
    refuse_dropped_rank,
)
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    ZeroTangent,
    unthunk,
)

rules = RuleSet("numpy_decompositions")

Pullback = Any

# NumPy 2 reads `b` in `solve(a, b)` as a vector only when it is 1-d.
_NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


# --- np.linalg: inverses, solves and determinants -----------------------------------------


@rules.rrule(np.linalg.inv)
def inv_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.inv`, also of a stack of matrices."""
    y = np.linalg.inv(a)
    project_a = ProjectTo(a)
    y_h = conj_transpose(y)

    def inv_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_a(-(y_h @ y_bar @ y_h))

    return y, inv_pullback


rules.keywords_by_position(np.linalg.solve, "a", "b")


@rules.rrule(np.linalg.solve)
def solve_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `x = np.linalg.solve(a, b)`: `b` a vector (1-d in NumPy 2, one
    dimension less than `a` before) or a matrix, `a` a matrix or a stack broadcast with `b`.

    `b_bar` solves the conjugate-transposed system; `a_bar = -b_bar x^H`.
    """
    x = np.linalg.solve(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    vector = np.ndim(b) == 1 if _NUMPY_2 else np.ndim(b) == np.ndim(a) - 1
    a_h = conj_transpose(np.asarray(a))
    x_columns = x[..., np.newaxis] if vector else x

    def solve_pullback(x_bar: Any) -> tuple[Any, Any, Any]:
        x_bar = unthunk(x_bar)
        if isinstance(x_bar, AbstractZero):
            return NoTangent(), x_bar, x_bar
        x_bar = np.asarray(x_bar)
        b_bar = np.linalg.solve(a_h, x_bar[..., np.newaxis] if vector else x_bar)
        a_bar = -(b_bar @ conj_transpose(x_columns))
        return NoTangent(), project_a(a_bar), project_b(b_bar[..., 0] if vector else b_bar)

    return x, solve_pullback


def _adjugate(a: Any) -> Any:
    """The adjugate of each matrix in a stack, `d det(a) = tr(adj(a) da)`: `det(a) inv(a)`
    where `a` is invertible, and for a singular `a` (whose determinant still has this
    derivative) from the SVD `a = u s v^H`: `adj(a) = det(u) det(v^H) v adj(s) u^H`, with
    `adj(s)` the products of all singular values but one, formed without dividing."""
    a = np.asarray(a)
    try:
        return np.linalg.det(a)[..., np.newaxis, np.newaxis] * np.linalg.inv(a)
    except np.linalg.LinAlgError:
        pass
    u, s, vh = np.linalg.svd(a)
    ones = np.ones((*s.shape[:-1], 1), dtype=s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    phase = (np.linalg.det(u) * np.linalg.det(vh))[..., np.newaxis, np.newaxis]
    return phase * ((conj_transpose(vh) * (before * after)[..., np.newaxis, :]) @ conj_transpose(u))


@rules.rrule(np.linalg.det)
def det_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.det` (of a stack too): `a_bar = y_bar adj(a)^H`, which
    is `y_bar conj(det a) inv(a)^H` for an invertible `a`; a singular `a` goes through its
    SVD (see `_adjugate`), as its determinant has a derivative all the same."""
    y = np.linalg.det(a)
    project_a = ProjectTo(a)

    def det_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        scale = np.asarray(y_bar)[..., np.newaxis, np.newaxis]
        return NoTangent(), project_a(scale * conj_transpose(_adjugate(a)))

    return y, det_pullback


@rules.rrule(np.linalg.slogdet)
def slogdet_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `sign, logabsdet = np.linalg.slogdet(a)` (of a stack too).

    For real `a` the sign is piecewise constant and its cotangent is ignored. For complex
    `a` the sign is the phase `det / |det|`, which varies smoothly: its cotangent counts.
    """
    result = np.linalg.slogdet(a)
    project_a = ProjectTo(a)
    complex_a = np.iscomplexobj(a)
    real_matrix = type(a) is np.ndarray and a.dtype == np.float64 and a.ndim == 2

    def slogdet_pullback(y_bar: Any) -> tuple[Any, Any]:
        sign_bar, logabsdet_bar = element_cotangents(y_bar, 2)
        if real_matrix and type(logabsdet_bar) in (float, np.float64):
            # The common case, directly: d logabsdet = tr(a^-1 da).
            return NoTangent(), logabsdet_bar * np.linalg.inv(a).T
        if not complex_a or isinstance(sign_bar, AbstractZero):
            if isinstance(logabsdet_bar, AbstractZero):
                return NoTangent(), ZeroTangent()
            scale = np.asarray(logabsdet_bar)
        else:
            # d sign = i sign Im tr(a^-1 da), d logabsdet = Re tr(a^-1 da).
            phase = np.imag(np.asarray(sign_bar) * np.conj(result[0]))
            logabsdet_bar = 0.0 if isinstance(logabsdet_bar, AbstractZero) else logabsdet_bar
            scale = np.asarray(logabsdet_bar + 1j * phase)  # (a Python float's sum is no array)
        a_bar = scale[..., np.newaxis, np.newaxis] * conj_transpose(np.linalg.inv(a))
        return NoTangent(), project_a(a_bar)

    return result, slogdet_pullback


@rules.rrule(logabsdet)
def logabsdet_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.slogdet(a)[1]`: `slogdet`'s, with no sign cotangent."""
    (_, y), pullback = slogdet_rrule(a)

    def logabsdet_pullback(y_bar: Any) -> tuple[Any, Any]:
        return pullback((ZeroTangent(), y_bar))

    return y, logabsdet_pullback


@rules.rrule(np.linalg.matrix_power)
def matrix_power_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.matrix_power(a, n)`, any integer `n` (not differentiated).

    For n > 0, `a_bar = sum_k (a^H)^k y_bar (a^H)^(n-1-k)`, accumulated Horner-style in
    2(n-1) products; a negative power goes through the inverse, and `n = 0` gives zero.
    """
    y = np.linalg.matrix_power(a, *options, **keywords)
    n = int(options_by_name(("n",), options, keywords)["n"])
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)
    base = np.linalg.inv(a) if n < 0 else np.asarray(a)
    base_h = conj_transpose(base)

    def matrix_power_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero) or n == 0:
            return (NoTangent(), ZeroTangent(), *option_bars)
        y_bar = np.asarray(y_bar)
        total, power = y_bar, base_h  # after step j: sum over k < j, and (base^H)^j
        for _ in range(abs(n) - 1):
            total = base_h @ total + y_bar @ power
            power = power @ base_h
        if n < 0:  # through base = inv(a)
            total = -(base_h @ total @ base_h)
        return (NoTangent(), project_a(total), *option_bars)

    return y, matrix_power_pullback


# --- np.linalg: least squares ------------------------------------------------------------


rules.keywords_by_position(np.linalg.lstsq, "a", "b")


@rules.rrule(np.linalg.lstsq)
def lstsq_rrule(a: Any, b: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `x, residuals, rank, sv = np.linalg.lstsq(a, b, rcond=None)`.

    `x = pinv(a) b` with the rank lstsq found, differentiated at constant rank (the
    pseudo-inverse is rebuilt from an SVD in the pullback). `residuals` (present only at
    full column rank with more rows than columns) and the singular values `sv` are
    differentiable too; `rank` is an integer and gets nothing. `rcond` is not differentiated.
    """
    result = np.linalg.lstsq(a, b, *options, **keywords)
    x, residuals, rank, sv = result
    refuse_dropped_rank(sv[rank:], sv[:1], np.shape(a), "np.linalg.lstsq")
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    a_array, b_array = np.asarray(a), np.asarray(b)
    vector = b_array.ndim == 1
    option_bars = (NoTangent(),) * len(options)

    def lstsq_pullback(y_bar: Any) -> tuple[Any, ...]:
        x_bar, residuals_bar, _, sv_bar = element_cotangents(y_bar, 4)
        if residuals.size == 0:
            residuals_bar = ZeroTangent()
        if all(isinstance(t, AbstractZero) for t in (x_bar, residuals_bar, sv_bar)):
            return (NoTangent(), ZeroTangent(), ZeroTangent(), *option_bars)
        full_u, full_s, full_vh = np.linalg.svd(a_array, full_matrices=False)
        u, s, vh = full_u[:, :rank], full_s[:rank], full_vh[:rank]
        pinv_h = (u / s) @ vh  # the conjugate transpose of pinv(a)
        x_cols = x[:, np.newaxis] if vector else x
        r_cols = (b_array[:, np.newaxis] if vector else b_array) - a_array @ x_cols
        dtype = common_dtype(a_array, b_array, x_bar, residuals_bar, sv_bar)
        a_bar = np.zeros(a_array.shape, dtype=dtype)
        b_bar = np.zeros(r_cols.shape, dtype=dtype)
        if not isinstance(x_bar, AbstractZero):
            # d pinv = -P da P + P P^H da^H (I - a P) + (I - P a) da^H P^H P, with P = pinv(a).
            x_bar_cols = np.asarray(x_bar).reshape(x_cols.shape)
            b_bar += pinv_h @ x_bar_cols
            kernel_part = x_bar_cols - conj_transpose(vh) @ (vh @ x_bar_cols)
            a_bar += -b_bar @ conj_transpose(x_cols)
            a_bar += r_cols @ conj_transpose(conj_transpose(pinv_h) @ b_bar)
            a_bar += pinv_h @ x_cols @ conj_transpose(kernel_part)
        if not isinstance(residuals_bar, AbstractZero):
            # At the minimum a^H r = 0, so d residuals = 2 Re <r, db - da x> per column.
            weighted = 2.0 * r_cols * np.asarray(residuals_bar)
            b_bar += weighted
            a_bar -= weighted @ conj_transpose(x_cols)
        if not isinstance(sv_bar, AbstractZero):
            a_bar += (full_u * np.asarray(sv_bar)) @ full_vh
        b_bar_out = b_bar[:, 0] if vector else b_bar
        return (NoTangent(), project_a(a_bar), project_b(b_bar_out), *option_bars)

    return result, lstsq_pullback


# --- forward rules: `frule((f_dot, *arg_dots), *args) -> (y, y_dot)` ------------------------


def _trace_of_solve(a: Any, a_dot: Any) -> Any:
    """`tr(a^-1 a_dot)` of each matrix in a stack: the tangent of `log det a`."""
    return np.trace(np.linalg.solve(a, a_dot), axis1=-2, axis2=-1)


@rules.frule(np.linalg.inv)
def inv_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    """Forward rule for `np.linalg.inv`: `y_dot = -y a_dot y`."""
    y = np.linalg.inv(a)
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return y, ZeroTangent()
    return y, -(y @ a_dot @ y)


@rules.frule(np.linalg.solve)
def solve_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    """Forward rule for `x = np.linalg.solve(a, b)`: `x_dot = solve(a, b_dot - a_dot x)`,
    a vector `b` taken as one column (see `solve_rrule`)."""
    x = np.linalg.solve(a, b)
    a_dot, b_dot = argument_tangents(dargs, 2)
    if isinstance(a_dot, AbstractZero) and isinstance(b_dot, AbstractZero):
        return x, ZeroTangent()
    vector = np.ndim(b) == 1 if _NUMPY_2 else np.ndim(b) == np.ndim(a) - 1
    right: Any = ZeroTangent()
    if not isinstance(b_dot, AbstractZero):
        right = np.asarray(b_dot)[..., np.newaxis] if vector else b_dot
    if not isinstance(a_dot, AbstractZero):
        right = right - a_dot @ (x[..., np.newaxis] if vector else x)
    x_dot = np.linalg.solve(a, right)
    return x, x_dot[..., 0] if vector else x_dot


@rules.frule(np.linalg.det)
def det_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    """Forward rule for `np.linalg.det`: `y_dot = tr(adj(a) a_dot)`, which is `det(a)
    tr(a^-1 a_dot)` for an invertible `a` (see `_adjugate` for a singular one)."""
    y = np.linalg.det(a)
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return y, ZeroTangent()
    try:
        return y, y * _trace_of_solve(a, a_dot)
    except np.linalg.LinAlgError:
        return y, np.trace(_adjugate(a) @ a_dot, axis1=-2, axis2=-1)


@rules.frule(np.linalg.slogdet)
def slogdet_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    """Forward rule for `sign, logabsdet = np.linalg.slogdet(a)`.

    With `t = tr(a^-1 a_dot)`: `logabsdet_dot = Re t`, and for complex `a` the phase
    turns, `sign_dot = i Im(t) sign`; a real sign is piecewise constant (`ZeroTangent()`).
    """
    result = np.linalg.slogdet(a)
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return result, ZeroTangent()
    t = _trace_of_solve(a, a_dot)
    sign_dot = 1j * np.imag(t) * result[0] if np.iscomplexobj(a) else ZeroTangent()
    return result, (sign_dot, np.real(t))


@rules.frule(logabsdet)
def logabsdet_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    """Forward rule for `np.linalg.slogdet(a)[1]`: `Re tr(a^-1 a_dot)`."""
    (_, y), tangent = slogdet_frule(dargs, a)
    return y, tangent if isinstance(tangent, AbstractZero) else tangent[1]


def _power_of(options: tuple[Any, ...], keywords: dict[str, Any]) -> int:
    """The power `n` of a call `np.linalg.matrix_power(a, n)`, an integer: not
    differentiated (a helper of `matrix_power_frule`, which srcad compiles for second
    derivatives, marked non-differentiable below)."""
    return int(options_by_name(("n",), options, keywords)["n"])


@rules.frule(np.linalg.matrix_power)
def matrix_power_frule(
    dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.linalg.matrix_power(a, n)`, `n` not differentiated.

    For n > 0, `y_dot = sum_k a^k a_dot a^(n-1-k)`, accumulated Horner-style; a negative
    power goes through the inverse, and `n = 0` gives zero.
    """
    y = np.linalg.matrix_power(a, *options, **keywords)
    n = _power_of(options, keywords)
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero) or n == 0:
        return y, ZeroTangent()
    base, base_dot = np.asarray(a), a_dot
    if n < 0:
        base = np.linalg.inv(a)
        base_dot = -(base @ a_dot @ base)
    total, power = base_dot, base  # after step j: the tangent of base^j, and base^j
    for step in range(1, abs(n)):
        total = base @ total + base_dot @ power
        if step < abs(n) - 1:
            power = power @ base
    return y, total


@rules.frule(np.linalg.lstsq)
def lstsq_frule(
    dargs: tuple[Any, ...], a: Any, b: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `x, residuals, rank, sv = np.linalg.lstsq(a, b, rcond=None)`, at
    constant rank (see `lstsq_rrule`): `rank` gets `NoTangent()`, `residuals` a tangent
    only where lstsq computed them, `rcond` is not differentiated.
    """
    result = np.linalg.lstsq(a, b, *options, **keywords)
    x, residuals, rank, sv = result
    a_dot, b_dot = argument_tangents(dargs, 2)
    if isinstance(a_dot, AbstractZero) and isinstance(b_dot, AbstractZero):
        return result, ZeroTangent()
    refuse_dropped_rank(sv[rank:], sv[:1], np.shape(a), "np.linalg.lstsq")
    a_array, b_array = np.asarray(a), np.asarray(b)
    vector = b_array.ndim == 1
    full_u, full_s, full_vh = np.linalg.svd(a_array, full_matrices=False)
    u, s, vh = full_u[:, :rank], full_s[:rank], full_vh[:rank]
    pinv = conj_transpose(vh) @ (conj_transpose(u) / s[:, np.newaxis])
    x_cols = x[:, np.newaxis] if vector else x
    r_cols = (b_array[:, np.newaxis] if vector else b_array) - a_array @ x_cols
    x_dot: Any = ZeroTangent()
    r_dot: Any = ZeroTangent()  # the tangent of the residual vectors b - a x at fixed x
    sv_dot: Any = ZeroTangent()
    if not isinstance(b_dot, AbstractZero):
        b_dot_cols = np.asarray(b_dot).reshape(r_cols.shape)
        x_dot = pinv @ b_dot_cols
        r_dot = b_dot_cols
    if not isinstance(a_dot, AbstractZero):
        # d pinv = -P da P + P P^H da^H (I - a P) + (I - P a) da^H P^H P, with P = pinv(a).
        a_dot_h = conj_transpose(np.asarray(a_dot))
        kernel_part = a_dot_h @ (conj_transpose(pinv) @ x_cols)
        kernel_part = kernel_part - conj_transpose(vh) @ (vh @ kernel_part)
        x_dot = x_dot - pinv @ (a_dot @ x_cols)
        x_dot = x_dot + pinv @ (conj_transpose(pinv) @ (a_dot_h @ r_cols)) + kernel_part
        r_dot = r_dot - a_dot @ x_cols
        sv_dot = np.real(np.einsum("ij,ik,jk->j", np.conj(full_u), a_dot, np.conj(full_vh)))
    # At the minimum a^H r = 0, so d residuals = 2 Re <r, db - da x> per column.
    residuals_dot: Any = ZeroTangent()
    if residuals.size:
        residuals_dot = 2.0 * np.real(np.sum(np.conj(r_cols) * r_dot, axis=0))
    x_dot = x_dot[:, 0] if vector else x_dot
    return result, (x_dot, residuals_dot, NoTangent(), sv_dot)


# -- the facts of `inv` and `logabsdet` (their rules are above): kinds, inline derivatives --


def of_one_matrix(text: str) -> Any:
    """Cotangent templates for a function of one matrix (a 2-d float array, not a stack)."""

    def cotangents(kinds: Any, constants: Any) -> list[str | None] | None:
        return [text] if len(kinds) == 1 and kinds[0] == ("f", 2) else None

    return cotangents


rules.non_differentiable(_power_of)
rules.primitive(
    np.linalg.inv, result=MATRIX_OF_MATRIX, inline=Inline(of_one_matrix("-(y.T @ y_bar @ y.T)"))
)
rules.primitive(
    logabsdet,
    result=FLOAT_OF_MATRIX,
    inline=Inline(of_one_matrix("y_bar * inv(a).T"), inv=np.linalg.inv),
)

"""Rules for `np.linalg`'s factorisations: Cholesky, the Hermitian eigendecomposition,
QR and the singular value decomposition."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import SrcadError, UnsupportedCallError
from srcad.projection import ProjectTo
from srcad.registry import RuleSet
from srcad.rules._support import (
    argument_tangents,
    common_dtype,
    conj_transpose,
    element_cotangents,
    options_by_name,
)
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("numpy_factorisations")

Pullback = Any


def _diagonal_of(x: np.ndarray) -> np.ndarray:
    """A writable view of the main diagonal of each matrix in a stack."""
    return np.einsum("...ii->...i", x)


def _inverse_differences(values: np.ndarray) -> np.ndarray:
    """`F[..., i, j] = 1 / (values[j] - values[i])`, zero on the diagonal.

    Eigenvector and singular-vector derivatives divide by these gaps; equal values (a
    degenerate spectrum) give infinities, where the vectors themselves are not defined.
    (Its reverse rule, for second derivatives through the forward rules that call it, is
    `inverse_differences_rrule`, below.)
    """
    gaps = values[..., np.newaxis, :] - values[..., :, np.newaxis]
    identity = np.eye(np.shape(values)[-1])
    with np.errstate(divide="ignore"):
        return (1.0 - identity) / (gaps + identity)


def _distinct_differences(values: np.ndarray) -> np.ndarray:
    """`_inverse_differences(values)`, refused where two values are equal (see below)."""
    f = _inverse_differences(values)
    if np.any(np.isinf(f)):
        raise SrcadError(
            "srcad takes second derivatives of eigh and svd at distinct eigenvalues and "
            "singular values only; two of them are equal here"
        )
    return f


@rules.frule(_inverse_differences)
def inverse_differences_frule(dargs: tuple[Any, ...], values: np.ndarray) -> tuple[Any, Any]:
    """`dF_ij = -F_ij^2 (dv_j - dv_i)`; refused at equal values, as the reverse rule."""
    f = _distinct_differences(values)
    (values_dot,) = argument_tangents(dargs, 1)
    if isinstance(values_dot, AbstractZero):
        return f, ZeroTangent()
    values_dot = np.asarray(values_dot)
    return f, -(f * f) * (values_dot[..., np.newaxis, :] - values_dot[..., :, np.newaxis])


@rules.rrule(_inverse_differences)
def inverse_differences_rrule(values: np.ndarray) -> tuple[Any, Pullback]:
    """`dF_ij = -F_ij^2 (dv_j - dv_i)`, for second derivatives through the forward rules of
    `eigh` and `svd`. Where two values are equal, the vectors' tangents are infinite (or
    NaN) and have no derivative, and a second derivative through the forward rule would
    be NaN even where only the values are used: refused."""
    f = _distinct_differences(values)

    def inverse_differences_pullback(f_bar: Any) -> tuple[Any, Any]:
        f_bar = unthunk(f_bar)
        if isinstance(f_bar, AbstractZero):
            return NoTangent(), f_bar
        g = -(f * f) * np.asarray(f_bar)
        return NoTangent(), np.real(np.sum(g, axis=-2) - np.sum(g, axis=-1))

    return f, inverse_differences_pullback


# --- the triangle a Hermitian-input routine reads ------------------------------------------
#
# Cholesky, eigh and `svd(hermitian=True)` read one triangle of `a` (LAPACK's UPLO) and the
# real part of its diagonal, and factor the Hermitian matrix that triangle stands for:
# `H(a) = T + T^H + Re diag(a)`, `T` the strict triangle read. `a` itself need not be
# Hermitian; the entries not read have a zero derivative. The rules differentiate the
# factorisation at `H(a)` and then through `H`, which is real-linear.


def _reads_lower(uplo: Any) -> bool:
    """Whether LAPACK reads the lower triangle, for NumPy's `UPLO` ("L" or "U", any case)."""
    return str(uplo).upper() == "L"


def _cotangent_of_triangle(h_bar: Any, lower: bool) -> Any:
    """The cotangent of `a`, from the cotangent `h_bar` of the Hermitian matrix `H(a)` that
    the factorisation read: the triangle read gets `h_bar + h_bar^H` (each entry stands for
    itself and its mirror), its diagonal `Re diag(h_bar)`, and the other triangle zero."""
    h_bar = np.asarray(h_bar)
    both = h_bar + conj_transpose(h_bar)
    folded = np.tril(both, -1) if lower else np.triu(both, 1)
    _diagonal_of(folded)[...] = np.real(np.diagonal(h_bar, axis1=-2, axis2=-1))
    return folded


def _tangent_of_triangle(a_dot: Any, lower: bool) -> Any:
    """The tangent of the Hermitian matrix `H(a)` that the factorisation reads, from the
    tangent of `a`: the triangle read, mirrored, with the real part of its diagonal."""
    a_dot = np.asarray(a_dot)
    strict = np.tril(a_dot, -1) if lower else np.triu(a_dot, 1)
    return strict + conj_transpose(strict) + np.eye(np.shape(a_dot)[-1]) * np.real(a_dot)


@rules.rrule(np.linalg.cholesky)
def cholesky_rrule(a: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.cholesky(a, upper=False)`, also of a stack.

    NumPy reads one triangle of `a` (the lower, or the upper with `upper=True`) and
    factors the Hermitian matrix it stands for: the cotangent lies on that triangle (see
    `_cotangent_of_triangle`), whether or not `a` is Hermitian.
    """
    factor = np.linalg.cholesky(a, **keywords)
    upper = bool(keywords.get("upper", False))
    lower = conj_transpose(factor) if upper else factor
    lower_h = conj_transpose(lower)
    project_a = ProjectTo(a)

    def cholesky_pullback(factor_bar: Any) -> tuple[Any, Any]:
        factor_bar = unthunk(factor_bar)
        if isinstance(factor_bar, AbstractZero):
            return NoTangent(), factor_bar
        lower_bar = conj_transpose(np.asarray(factor_bar)) if upper else np.asarray(factor_bar)
        # With dL = L phi(L^-1 dA L^-H), phi taking the lower triangle and half the diagonal:
        # a_bar = L^-H phi(L^H L_bar) L^-1.
        middle = np.tril(lower_h @ lower_bar)
        _diagonal_of(middle)[...] *= 0.5
        left = np.linalg.solve(lower_h, middle)
        a_bar = conj_transpose(np.linalg.solve(lower_h, conj_transpose(left)))
        return NoTangent(), project_a(_cotangent_of_triangle(a_bar, lower=not upper))

    return factor, cholesky_pullback


@rules.rrule(np.linalg.eigh)
def eigh_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `w, v = np.linalg.eigh(a, UPLO="L")`, also of a stack.

    The eigenvalues must be distinct, and a loss must not depend on each eigenvector's
    sign (or phase): only such losses have a gradient. NumPy reads one triangle of `a`
    (`UPLO`), so the cotangent lies on that triangle (see `_cotangent_of_triangle`).
    """
    result = np.linalg.eigh(a, *options, **keywords)
    lower = _reads_lower(options_by_name(("UPLO",), options, keywords).get("UPLO", "L"))
    w, v = result
    v_h = conj_transpose(v)
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)

    def eigh_pullback(y_bar: Any) -> tuple[Any, ...]:
        w_bar, v_bar = element_cotangents(y_bar, 2)
        if isinstance(w_bar, AbstractZero) and isinstance(v_bar, AbstractZero):
            return (NoTangent(), ZeroTangent(), *option_bars)
        # a_bar = v (diag(w_bar) + F o (v^H v_bar)) v^H, F_ij = 1 / (w_j - w_i).
        middle = np.zeros(v.shape, dtype=common_dtype(v, w_bar, v_bar))
        if not isinstance(w_bar, AbstractZero):
            _diagonal_of(middle)[...] += w_bar
        if not isinstance(v_bar, AbstractZero):
            middle += _inverse_differences(w) * (v_h @ v_bar)
        a_bar = v @ middle @ v_h
        return (NoTangent(), project_a(_cotangent_of_triangle(a_bar, lower)), *option_bars)

    return result, eigh_pullback


def _qr_tall_cotangent(q: Any, r: Any, q_bar: Any, r_bar: Any) -> np.ndarray:
    """The cotangent of `a = q r` for reduced QR with at least as many rows as columns.

    With `m = r_bar r^H - q^H q_bar` and `h` its upper triangle (real diagonal) copied to a
    Hermitian matrix, `a_bar = (q_bar + q h) r^-H`.
    """
    mixed = np.zeros(r.shape, dtype=common_dtype(q, q_bar, r_bar))
    if not isinstance(r_bar, AbstractZero):
        mixed += r_bar @ conj_transpose(r)
    if not isinstance(q_bar, AbstractZero):
        mixed -= conj_transpose(q) @ q_bar
    strict_upper = np.triu(mixed, 1)
    hermitian = strict_upper + conj_transpose(strict_upper)
    _diagonal_of(hermitian)[...] = _diagonal_of(mixed).real
    b = q @ hermitian if isinstance(q_bar, AbstractZero) else q_bar + q @ hermitian
    return conj_transpose(np.linalg.solve(r, conj_transpose(b)))


@rules.rrule(np.linalg.qr)
def qr_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `q, r = np.linalg.qr(a)` (mode "reduced") and `r = qr(a, "r")`,
    also of a stack: tall, square and wide matrices.

    LAPACK's R has a real diagonal, which fixes the factors, so every loss has a gradient
    (where `a` has full rank). A wide `a = [x | y]` factors as `x = q r1`, `y = q r2`.
    """
    result = np.linalg.qr(a, *options, **keywords)
    mode = options_by_name(("mode",), options, keywords).get("mode", "reduced")
    if mode not in ("reduced", "r"):
        raise UnsupportedCallError(f"srcad has no rule for np.linalg.qr with mode={mode!r}")
    q, r = np.linalg.qr(a) if mode == "r" else result
    rows = q.shape[-2]
    a_array = np.asarray(a)
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)

    def qr_pullback(y_bar: Any) -> tuple[Any, ...]:
        if mode == "r":
            q_bar, r_bar = ZeroTangent(), unthunk(y_bar)
        else:
            q_bar, r_bar = element_cotangents(y_bar, 2)
        if isinstance(q_bar, AbstractZero) and isinstance(r_bar, AbstractZero):
            return (NoTangent(), ZeroTangent(), *option_bars)
        if a_array.shape[-1] <= rows:
            return (NoTangent(), project_a(_qr_tall_cotangent(q, r, q_bar, r_bar)), *option_bars)
        r1_bar, r2_bar = (
            (r_bar, r_bar) if isinstance(r_bar, AbstractZero) else np.split(r_bar, [rows], axis=-1)
        )
        y = a_array[..., rows:]
        if not isinstance(r2_bar, AbstractZero):
            q_bar = q_bar + y @ conj_transpose(r2_bar)
        x_bar = _qr_tall_cotangent(q, r[..., :rows], q_bar, r1_bar)
        y_bar_part = (
            np.zeros(y.shape, x_bar.dtype) if isinstance(r2_bar, AbstractZero) else (q @ r2_bar)
        )
        return (NoTangent(), project_a(np.concatenate([x_bar, y_bar_part], axis=-1)), *option_bars)

    return result, qr_pullback


@rules.rrule(np.linalg.svd)
def svd_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `u, s, vh = np.linalg.svd(a, full_matrices=False)` and for
    `s = svd(a, compute_uv=False)`, also of a stack.

    The singular values must be distinct and non-zero, and a loss must not depend on the
    sign (or phase) shared by a pair of singular vectors. `full_matrices=True` (NumPy's
    default) is supported for square matrices only, where it changes nothing. With
    `hermitian=True` NumPy goes through `eigh`, which reads the lower triangle of `a`: the
    cotangent lies on it (see `_cotangent_of_triangle`).
    """
    result = np.linalg.svd(a, *options, **keywords)
    given = options_by_name(("full_matrices", "compute_uv", "hermitian"), options, keywords)
    compute_uv, hermitian = given.get("compute_uv", True), given.get("hermitian", False)
    rows, columns = np.shape(a)[-2:]
    if compute_uv and given.get("full_matrices", True) and rows != columns:
        raise UnsupportedCallError(
            "srcad differentiates np.linalg.svd of a non-square matrix with "
            "full_matrices=False only: the extra singular vectors are not unique"
        )
    u, s, vh = result if compute_uv else np.linalg.svd(a, False, True, hermitian)
    u_h, v = conj_transpose(u), conj_transpose(vh)
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)
    size = s.shape[-1]

    def svd_pullback(y_bar: Any) -> tuple[Any, ...]:
        if compute_uv:
            u_bar, s_bar, vh_bar = element_cotangents(y_bar, 3)
        else:
            u_bar, s_bar, vh_bar = ZeroTangent(), unthunk(y_bar), ZeroTangent()
        if all(isinstance(t, AbstractZero) for t in (u_bar, s_bar, vh_bar)):
            return (NoTangent(), ZeroTangent(), *option_bars)
        # a = u s v^H. The cotangent of `u^H da v` (`middle`) gathers the singular values'
        # cotangent, the rotations of u and v among themselves (through F), and the phases
        # they share (split evenly); rotations out of their span come last.
        dtype = common_dtype(u, u_bar, s_bar, vh_bar)
        middle = np.zeros((*s.shape, size), dtype=dtype)
        extra = np.zeros(np.shape(a), dtype=dtype)
        diagonal = _diagonal_of(middle)
        if not isinstance(s_bar, AbstractZero):
            diagonal += s_bar
        f = _inverse_differences(s * s)
        if not isinstance(u_bar, AbstractZero):
            g = u_h @ u_bar
            middle += f * (g - conj_transpose(g)) * s[..., np.newaxis, :]
            if np.iscomplexobj(g):
                diagonal += 0.5j * _diagonal_of(g).imag / s
            if rows > size:
                extra += ((u_bar - u @ g) / s[..., np.newaxis, :]) @ vh
        if not isinstance(vh_bar, AbstractZero):
            v_bar = conj_transpose(vh_bar)
            h = vh @ v_bar
            middle += s[..., :, np.newaxis] * f * (h - conj_transpose(h))
            if np.iscomplexobj(h):
                diagonal -= 0.5j * _diagonal_of(h).imag / s
            if columns > size:
                extra += (u / s[..., np.newaxis, :]) @ conj_transpose(v_bar - v @ h)
        a_bar = u @ middle @ vh + extra
        if hermitian:
            a_bar = _cotangent_of_triangle(a_bar, lower=True)
        return (NoTangent(), project_a(a_bar), *option_bars)

    return result, svd_pullback


def _flags(
    parameters: tuple[str, ...], options: tuple[Any, ...], keywords: dict[str, Any]
) -> dict[str, Any]:
    """`options_by_name` for the forward rules below, whose options are all flags (`UPLO`,
    `mode`, `full_matrices`, ...): marked non-differentiable, so that srcad compiles the
    forward rules that read them, for second derivatives."""
    return options_by_name(parameters, options, keywords)


# --- forward rules: `frule((f_dot, *arg_dots), *args) -> (y, y_dot)` ------------------------


def _real_diagonal(x: np.ndarray) -> np.ndarray:
    """The real part of the main diagonal of each matrix in a stack, as a new array."""
    return np.real(np.diagonal(x, 0, -2, -1)) + 0.0


@rules.frule(np.linalg.cholesky)
def cholesky_frule(dargs: tuple[Any, ...], a: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.linalg.cholesky(a, upper=False)`: `dL = L phi(L^-1 dA L^-H)`,
    `phi` taking the lower triangle and half the diagonal, for the Hermitian part `dA` of
    the tangent of the Hermitian matrix the triangle read stands for (see
    `_tangent_of_triangle`)."""
    factor = np.linalg.cholesky(a, **keywords)
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return factor, ZeroTangent()
    upper = bool(keywords.get("upper", False))
    lower = conj_transpose(factor) if upper else factor
    left = np.linalg.solve(lower, _tangent_of_triangle(a_dot, lower=not upper))  # L^-1 dA
    middle = np.tril(conj_transpose(np.linalg.solve(lower, conj_transpose(left))))
    middle = middle - 0.5 * np.eye(np.shape(middle)[-1]) * middle
    lower_dot = lower @ middle
    return factor, conj_transpose(lower_dot) if upper else lower_dot


@rules.frule(np.linalg.eigh)
def eigh_frule(dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `w, v = np.linalg.eigh(a, UPLO="L")`, for distinct eigenvalues: the
    tangent is that of the Hermitian matrix the triangle `UPLO` stands for.

    With `m = v^H a_dot v`: `w_dot = Re diag(m)` and `v_dot = v (F o m)`, `F_ij = 1/(w_j -
    w_i)` off the diagonal: each eigenvector's tangent is orthogonal to it (the gauge that
    keeps its sign, or phase, fixed).
    """
    result = np.linalg.eigh(a, *options, **keywords)
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return result, ZeroTangent()
    w, v = result
    lower = _reads_lower(_flags(("UPLO",), options, keywords).get("UPLO", "L"))
    m = conj_transpose(v) @ _tangent_of_triangle(a_dot, lower) @ v
    return result, (_real_diagonal(m), v @ (_inverse_differences(w) * m))


def _qr_tall_tangent(q: Any, r: Any, a_dot: Any) -> tuple[Any, Any]:
    """The tangents of `q` and `r` in reduced QR with at least as many rows as columns.

    With `x = q^H a_dot r^-1 = q^H q_dot + r_dot r^-1`: the first is skew-Hermitian and the
    second upper triangular with a real diagonal (R's diagonal stays real), which splits x.
    """
    a_dot_r_inverse = conj_transpose(np.linalg.solve(conj_transpose(r), conj_transpose(a_dot)))
    x = conj_transpose(q) @ a_dot_r_inverse
    strict_lower = np.tril(x, -1)
    skew = strict_lower - conj_transpose(strict_lower)  # q^H q_dot
    if np.iscomplexobj(x):  # (the diagonal of `skew` is 0 until here)
        skew = skew + 1j * np.eye(np.shape(x)[-1]) * np.imag(x)
    upper = x - skew  # r_dot r^-1
    return a_dot_r_inverse - q @ upper, upper @ r


@rules.frule(np.linalg.qr)
def qr_frule(dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `q, r = np.linalg.qr(a)` (mode "reduced") and `r = qr(a, "r")`.

    A wide `a = [x | y]` factors as `x = q r1`, `y = q r2`: `r2_dot = q^H (y_dot - q_dot r2)`.
    """
    result = np.linalg.qr(a, *options, **keywords)
    mode = _flags(("mode",), options, keywords).get("mode", "reduced")
    if mode not in ("reduced", "r"):
        raise UnsupportedCallError(f"srcad has no rule for np.linalg.qr with mode={mode!r}")
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return result, ZeroTangent()
    q, r = np.linalg.qr(a) if mode == "r" else result
    rows = q.shape[-2]
    if np.shape(a)[-1] <= rows:
        q_dot, r_dot = _qr_tall_tangent(q, r, a_dot)
    else:
        a_dot = np.asarray(a_dot)
        q_dot, r1_dot = _qr_tall_tangent(q, r[..., :rows], a_dot[..., :rows])
        r2_dot = conj_transpose(q) @ (a_dot[..., rows:] - q_dot @ r[..., rows:])
        r_dot = np.concatenate([r1_dot, r2_dot], axis=-1)
    return result, r_dot if mode == "r" else (q_dot, r_dot)


@rules.frule(np.linalg.svd)
def svd_frule(dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `u, s, vh = np.linalg.svd(a, full_matrices=False)` and for
    `s = svd(a, compute_uv=False)`, under `svd_rrule`'s conditions.

    With `p = u^H a_dot v`: `s_dot = Re diag(p)`; u and v turn among themselves through
    `F_ij = 1/(s_j^2 - s_i^2)`, and out of their span as `a_dot` takes them. The phase a
    pair shares is fixed by keeping each `v^H v_dot` diagonal zero, so that `u`'s tangent
    carries the phase change `i Im(p_jj) / s_j` (zero for real `a`).
    """
    result = np.linalg.svd(a, *options, **keywords)
    given = _flags(("full_matrices", "compute_uv", "hermitian"), options, keywords)
    compute_uv, hermitian = given.get("compute_uv", True), given.get("hermitian", False)
    rows, columns = np.shape(a)[-2:]
    if compute_uv and given.get("full_matrices", True) and rows != columns:
        raise UnsupportedCallError(
            "srcad differentiates np.linalg.svd of a non-square matrix with "
            "full_matrices=False only: the extra singular vectors are not unique"
        )
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return result, ZeroTangent()
    u, s, vh = result if compute_uv else np.linalg.svd(a, False, True, hermitian)
    a_dot = _tangent_of_triangle(a_dot, lower=True) if hermitian else np.asarray(a_dot)
    u_h, v = conj_transpose(u), conj_transpose(vh)
    p = u_h @ a_dot @ v
    s_dot = _real_diagonal(p)
    if not compute_uv:
        return result, s_dot
    f = _inverse_differences(s * s)
    ps = p * s[..., np.newaxis, :]
    sp = s[..., :, np.newaxis] * p
    u_turn = f * (ps + conj_transpose(ps))
    if np.iscomplexobj(p):  # (the diagonal of `u_turn` is 0 until here)
        u_turn = u_turn + 1j * np.eye(np.shape(p)[-1]) * np.imag(p) / s[..., np.newaxis, :]
    u_dot = u @ u_turn
    v_dot = v @ (f * (sp + conj_transpose(sp)))
    size = s.shape[-1]
    if rows > size:
        a_dot_v = a_dot @ v
        u_dot = u_dot + (a_dot_v - u @ (u_h @ a_dot_v)) / s[..., np.newaxis, :]
    if columns > size:
        a_dot_h_u = conj_transpose(a_dot) @ u
        v_dot = v_dot + (a_dot_h_u - v @ (vh @ a_dot_h_u)) / s[..., np.newaxis, :]
    return result, (u_dot, s_dot, conj_transpose(v_dot))


rules.non_differentiable(_flags)

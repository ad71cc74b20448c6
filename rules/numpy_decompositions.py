"""Rules for `np.linalg`'s inverses, solves, determinants, matrix powers, factorisations
and least squares."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.projection import ProjectTo, conj
from srcad.registry import RuleSet
from srcad.rules.numpy_linalg import _given
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    elements_of,
    field_names,
    unthunk,
)

rules = RuleSet("numpy_decompositions")

Pullback = Any

# NumPy 2 reads `b` in `solve(a, b)` as a vector only when it is 1-d.
_NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def _elements(y_bar: Any, count: int) -> tuple[Any, ...]:
    """The cotangents of the elements of a tuple result, each computed if it was a thunk.

    NumPy's results (`EighResult`, `SVDResult`, ...) are NamedTuples, whose tangents may
    name their fields (`Tangent(SVDResult, S=s_bar)`); fields not named are zero.
    """
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, Tangent) and y_bar.fields:
        parts = tuple(y_bar[name] for name in field_names(y_bar.primal_type))
    else:
        parts = elements_of(y_bar, count)
    return tuple(unthunk(e) for e in parts)


def _common_dtype(*values: Any) -> np.dtype[Any]:
    """The dtype of arithmetic among `values`, leaving out symbolic zeros."""
    return np.result_type(*(v for v in values if not isinstance(v, AbstractZero)))


def _conj_transpose(x: Any) -> Any:
    """The conjugate transpose of a matrix, or of each matrix in a stack."""
    return conj(np.swapaxes(x, -1, -2))


def _diagonal_of(x: np.ndarray) -> np.ndarray:
    """A writable view of the main diagonal of each matrix in a stack."""
    return np.einsum("...ii->...i", x)


def _inverse_differences(values: np.ndarray) -> np.ndarray:
    """`F[..., i, j] = 1 / (values[j] - values[i])`, zero on the diagonal.

    Eigenvector and singular-vector derivatives divide by these gaps; equal values (a
    degenerate spectrum) give infinities, where the vectors themselves are not defined.
    """
    gaps = values[..., np.newaxis, :] - values[..., :, np.newaxis]
    _diagonal_of(gaps)[...] = 1.0
    inverse = 1.0 / gaps
    _diagonal_of(inverse)[...] = 0.0
    return inverse


# --- np.linalg: inverses, solves and determinants -----------------------------------------


@rules.rrule(np.linalg.inv)
def inv_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.inv`, also of a stack of matrices."""
    y = np.linalg.inv(a)
    project_a = ProjectTo(a)
    y_h = _conj_transpose(y)

    def inv_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_a(-(y_h @ y_bar @ y_h))

    return y, inv_pullback


@rules.rrule(np.linalg.solve)
def solve_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `x = np.linalg.solve(a, b)`: `b` a vector (1-d in NumPy 2, one
    dimension less than `a` before) or a matrix, `a` a matrix or a stack broadcast with `b`.

    `b_bar` solves the conjugate-transposed system; `a_bar = -b_bar x^H`.
    """
    x = np.linalg.solve(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    vector = np.ndim(b) == 1 if _NUMPY_2 else np.ndim(b) == np.ndim(a) - 1
    a_h = _conj_transpose(np.asarray(a))
    x_columns = x[..., np.newaxis] if vector else x

    def solve_pullback(x_bar: Any) -> tuple[Any, Any, Any]:
        x_bar = unthunk(x_bar)
        if isinstance(x_bar, AbstractZero):
            return NoTangent(), x_bar, x_bar
        x_bar = np.asarray(x_bar)
        b_bar = np.linalg.solve(a_h, x_bar[..., np.newaxis] if vector else x_bar)
        a_bar = -(b_bar @ _conj_transpose(x_columns))
        return NoTangent(), project_a(a_bar), project_b(b_bar[..., 0] if vector else b_bar)

    return x, solve_pullback


@rules.rrule(np.linalg.det)
def det_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.det` (of a stack too): `a_bar = y_bar conj(det a) inv(a)^H`.

    It needs `a` invertible, as the inverse is formed.
    """
    y = np.linalg.det(a)
    project_a = ProjectTo(a)

    def det_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        scale = (np.asarray(y_bar) * conj(np.asarray(y)))[..., np.newaxis, np.newaxis]
        return NoTangent(), project_a(scale * _conj_transpose(np.linalg.inv(a)))

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

    def slogdet_pullback(y_bar: Any) -> tuple[Any, Any]:
        sign_bar, logabsdet_bar = _elements(y_bar, 2)
        if not complex_a or isinstance(sign_bar, AbstractZero):
            if isinstance(logabsdet_bar, AbstractZero):
                return NoTangent(), ZeroTangent()
            scale = np.asarray(logabsdet_bar)
        else:
            # d sign = i sign Im tr(a^-1 da), d logabsdet = Re tr(a^-1 da).
            phase = np.imag(np.asarray(sign_bar) * np.conj(result[0]))
            scale = (0.0 if isinstance(logabsdet_bar, AbstractZero) else logabsdet_bar) + 1j * phase
        a_bar = scale[..., np.newaxis, np.newaxis] * _conj_transpose(np.linalg.inv(a))
        return NoTangent(), project_a(a_bar)

    return result, slogdet_pullback


@rules.rrule(np.linalg.matrix_power)
def matrix_power_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.matrix_power(a, n)`, any integer `n` (not differentiated).

    For n > 0, `a_bar = sum_k (a^H)^k y_bar (a^H)^(n-1-k)`, accumulated Horner-style in
    2(n-1) products; a negative power goes through the inverse, and `n = 0` gives zero.
    """
    y = np.linalg.matrix_power(a, *options, **keywords)
    n = int(_given(("n",), options, keywords)["n"])
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)
    base = np.linalg.inv(a) if n < 0 else np.asarray(a)
    base_h = _conj_transpose(base)

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


# --- np.linalg: factorisations --------------------------------------------------------------


@rules.rrule(np.linalg.cholesky)
def cholesky_rrule(a: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.cholesky(a, upper=False)`, also of a stack.

    NumPy reads only one triangle of `a`, which is taken to be Hermitian (symmetric): the
    cotangent is projected onto Hermitian matrices, so that it is the gradient for a
    perturbation that keeps `a` Hermitian, the only kind the factorisation is defined for.
    """
    factor = np.linalg.cholesky(a, **keywords)
    upper = bool(keywords.get("upper", False))
    lower = _conj_transpose(factor) if upper else factor
    lower_h = _conj_transpose(lower)
    project_a = ProjectTo(a)

    def cholesky_pullback(factor_bar: Any) -> tuple[Any, Any]:
        factor_bar = unthunk(factor_bar)
        if isinstance(factor_bar, AbstractZero):
            return NoTangent(), factor_bar
        lower_bar = _conj_transpose(np.asarray(factor_bar)) if upper else np.asarray(factor_bar)
        # With dL = L phi(L^-1 dA L^-H), phi taking the lower triangle and half the diagonal:
        # a_bar = L^-H phi(L^H L_bar) L^-1.
        middle = np.tril(lower_h @ lower_bar)
        _diagonal_of(middle)[...] *= 0.5
        left = np.linalg.solve(lower_h, middle)
        a_bar = _conj_transpose(np.linalg.solve(lower_h, _conj_transpose(left)))
        return NoTangent(), project_a(0.5 * (a_bar + _conj_transpose(a_bar)))

    return factor, cholesky_pullback


@rules.rrule(np.linalg.eigh)
def eigh_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `w, v = np.linalg.eigh(a, UPLO="L")`, also of a stack.

    The eigenvalues must be distinct, and a loss must not depend on each eigenvector's
    sign (or phase): only such losses have a gradient. As NumPy reads one triangle of `a`,
    the cotangent is projected onto Hermitian matrices (see `cholesky_rrule`).
    """
    result = np.linalg.eigh(a, *options, **keywords)
    w, v = result
    v_h = _conj_transpose(v)
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)

    def eigh_pullback(y_bar: Any) -> tuple[Any, ...]:
        w_bar, v_bar = _elements(y_bar, 2)
        if isinstance(w_bar, AbstractZero) and isinstance(v_bar, AbstractZero):
            return (NoTangent(), ZeroTangent(), *option_bars)
        # a_bar = v (diag(w_bar) + F o (v^H v_bar)) v^H, F_ij = 1 / (w_j - w_i).
        middle = np.zeros(v.shape, dtype=_common_dtype(v, w_bar, v_bar))
        if not isinstance(w_bar, AbstractZero):
            _diagonal_of(middle)[...] += w_bar
        if not isinstance(v_bar, AbstractZero):
            middle += _inverse_differences(w) * (v_h @ v_bar)
        a_bar = v @ middle @ v_h
        return (NoTangent(), project_a(0.5 * (a_bar + _conj_transpose(a_bar))), *option_bars)

    return result, eigh_pullback


def _qr_tall_cotangent(q: Any, r: Any, q_bar: Any, r_bar: Any) -> np.ndarray:
    """The cotangent of `a = q r` for reduced QR with at least as many rows as columns.

    With `m = r_bar r^H - q^H q_bar` and `h` its upper triangle (real diagonal) copied to a
    Hermitian matrix, `a_bar = (q_bar + q h) r^-H`.
    """
    mixed = np.zeros(r.shape, dtype=_common_dtype(q, q_bar, r_bar))
    if not isinstance(r_bar, AbstractZero):
        mixed += r_bar @ _conj_transpose(r)
    if not isinstance(q_bar, AbstractZero):
        mixed -= _conj_transpose(q) @ q_bar
    strict_upper = np.triu(mixed, 1)
    hermitian = strict_upper + _conj_transpose(strict_upper)
    _diagonal_of(hermitian)[...] = _diagonal_of(mixed).real
    b = q @ hermitian if isinstance(q_bar, AbstractZero) else q_bar + q @ hermitian
    return _conj_transpose(np.linalg.solve(r, _conj_transpose(b)))


@rules.rrule(np.linalg.qr)
def qr_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `q, r = np.linalg.qr(a)` (mode "reduced") and `r = qr(a, "r")`,
    also of a stack: tall, square and wide matrices.

    LAPACK's R has a real diagonal, which fixes the factors, so every loss has a gradient
    (where `a` has full rank). A wide `a = [x | y]` factors as `x = q r1`, `y = q r2`.
    """
    result = np.linalg.qr(a, *options, **keywords)
    mode = _given(("mode",), options, keywords).get("mode", "reduced")
    if mode not in ("reduced", "r"):
        raise TypeError(f"srcad has no rule for np.linalg.qr with mode={mode!r}")
    q, r = np.linalg.qr(a) if mode == "r" else result
    rows = q.shape[-2]
    a_array = np.asarray(a)
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)

    def qr_pullback(y_bar: Any) -> tuple[Any, ...]:
        q_bar, r_bar = (ZeroTangent(), unthunk(y_bar)) if mode == "r" else _elements(y_bar, 2)
        if isinstance(q_bar, AbstractZero) and isinstance(r_bar, AbstractZero):
            return (NoTangent(), ZeroTangent(), *option_bars)
        if a_array.shape[-1] <= rows:
            return (NoTangent(), project_a(_qr_tall_cotangent(q, r, q_bar, r_bar)), *option_bars)
        r1_bar, r2_bar = (
            (r_bar, r_bar) if isinstance(r_bar, AbstractZero) else np.split(r_bar, [rows], axis=-1)
        )
        y = a_array[..., rows:]
        if not isinstance(r2_bar, AbstractZero):
            q_bar = q_bar + y @ _conj_transpose(r2_bar)
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
    default) is supported for square matrices only, where it changes nothing; with
    `hermitian=True` the cotangent is projected onto Hermitian matrices.
    """
    result = np.linalg.svd(a, *options, **keywords)
    given = _given(("full_matrices", "compute_uv", "hermitian"), options, keywords)
    compute_uv, hermitian = given.get("compute_uv", True), given.get("hermitian", False)
    rows, columns = np.shape(a)[-2:]
    if compute_uv and given.get("full_matrices", True) and rows != columns:
        raise TypeError(
            "srcad differentiates np.linalg.svd of a non-square matrix with "
            "full_matrices=False only: the extra singular vectors are not unique"
        )
    u, s, vh = result if compute_uv else np.linalg.svd(a, False, True, hermitian)
    u_h, v = _conj_transpose(u), _conj_transpose(vh)
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)
    size = s.shape[-1]

    def svd_pullback(y_bar: Any) -> tuple[Any, ...]:
        if compute_uv:
            u_bar, s_bar, vh_bar = _elements(y_bar, 3)
        else:
            u_bar, s_bar, vh_bar = ZeroTangent(), unthunk(y_bar), ZeroTangent()
        if all(isinstance(t, AbstractZero) for t in (u_bar, s_bar, vh_bar)):
            return (NoTangent(), ZeroTangent(), *option_bars)
        # a = u s v^H. The cotangent of `u^H da v` (`middle`) gathers the singular values'
        # cotangent, the rotations of u and v among themselves (through F), and the phases
        # they share (split evenly); rotations out of their span come last.
        dtype = _common_dtype(u, u_bar, s_bar, vh_bar)
        middle = np.zeros((*s.shape, size), dtype=dtype)
        extra = np.zeros(np.shape(a), dtype=dtype)
        diagonal = _diagonal_of(middle)
        if not isinstance(s_bar, AbstractZero):
            diagonal += s_bar
        f = _inverse_differences(s * s)
        if not isinstance(u_bar, AbstractZero):
            g = u_h @ u_bar
            middle += f * (g - _conj_transpose(g)) * s[..., np.newaxis, :]
            if np.iscomplexobj(g):
                diagonal += 0.5j * _diagonal_of(g).imag / s
            if rows > size:
                extra += ((u_bar - u @ g) / s[..., np.newaxis, :]) @ vh
        if not isinstance(vh_bar, AbstractZero):
            v_bar = _conj_transpose(vh_bar)
            h = vh @ v_bar
            middle += s[..., :, np.newaxis] * f * (h - _conj_transpose(h))
            if np.iscomplexobj(h):
                diagonal -= 0.5j * _diagonal_of(h).imag / s
            if columns > size:
                extra += (u / s[..., np.newaxis, :]) @ _conj_transpose(v_bar - v @ h)
        a_bar = u @ middle @ vh + extra
        if hermitian:
            a_bar = 0.5 * (a_bar + _conj_transpose(a_bar))
        return (NoTangent(), project_a(a_bar), *option_bars)

    return result, svd_pullback


@rules.rrule(np.linalg.lstsq)
def lstsq_rrule(a: Any, b: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `x, residuals, rank, sv = np.linalg.lstsq(a, b, rcond=None)`.

    `x = pinv(a) b` with the rank lstsq found, differentiated at constant rank (the
    pseudo-inverse is rebuilt from an SVD in the pullback). `residuals` (present only at
    full column rank with more rows than columns) and the singular values `sv` are
    differentiable too; `rank` is an integer and gets nothing. `rcond` is not differentiated.
    """
    result = np.linalg.lstsq(a, b, *options, **keywords)
    x, residuals, rank, _ = result
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    a_array, b_array = np.asarray(a), np.asarray(b)
    vector = b_array.ndim == 1
    option_bars = (NoTangent(),) * len(options)

    def lstsq_pullback(y_bar: Any) -> tuple[Any, ...]:
        x_bar, residuals_bar, _, sv_bar = _elements(y_bar, 4)
        if residuals.size == 0:
            residuals_bar = ZeroTangent()
        if all(isinstance(t, AbstractZero) for t in (x_bar, residuals_bar, sv_bar)):
            return (NoTangent(), ZeroTangent(), ZeroTangent(), *option_bars)
        full_u, full_s, full_vh = np.linalg.svd(a_array, full_matrices=False)
        u, s, vh = full_u[:, :rank], full_s[:rank], full_vh[:rank]
        pinv_h = (u / s) @ vh  # the conjugate transpose of pinv(a)
        x_cols = x[:, np.newaxis] if vector else x
        r_cols = (b_array[:, np.newaxis] if vector else b_array) - a_array @ x_cols
        dtype = _common_dtype(a_array, b_array, x_bar, residuals_bar, sv_bar)
        a_bar = np.zeros(a_array.shape, dtype=dtype)
        b_bar = np.zeros(r_cols.shape, dtype=dtype)
        if not isinstance(x_bar, AbstractZero):
            # d pinv = -P da P + P P^H da^H (I - a P) + (I - P a) da^H P^H P, with P = pinv(a).
            x_bar_cols = np.asarray(x_bar).reshape(x_cols.shape)
            b_bar += pinv_h @ x_bar_cols
            kernel_part = x_bar_cols - _conj_transpose(vh) @ (vh @ x_bar_cols)
            a_bar += -b_bar @ _conj_transpose(x_cols)
            a_bar += r_cols @ _conj_transpose(_conj_transpose(pinv_h) @ b_bar)
            a_bar += pinv_h @ x_cols @ _conj_transpose(kernel_part)
        if not isinstance(residuals_bar, AbstractZero):
            # At the minimum a^H r = 0, so d residuals = 2 Re <r, db - da x> per column.
            weighted = 2.0 * r_cols * np.asarray(residuals_bar)
            b_bar += weighted
            a_bar -= weighted @ _conj_transpose(x_cols)
        if not isinstance(sv_bar, AbstractZero):
            a_bar += (full_u * np.asarray(sv_bar)) @ full_vh
        b_bar_out = b_bar[:, 0] if vector else b_bar
        return (NoTangent(), project_a(a_bar), project_b(b_bar_out), *option_bars)

    return result, lstsq_pullback

"""Rules for the general (non-Hermitian) eigendecomposition `np.linalg.eig`, its
eigenvalues `np.linalg.eigvals`, and the pseudo-inverse `np.linalg.pinv`.

`eig`'s gauge: an eigenvector is defined up to a complex factor, and NumPy (LAPACK's
`geev`) fixes it by returning each with Euclidean norm 1 and its component of largest
modulus real. The rules differentiate the eigenvectors *as NumPy returns them*: the
derivative of the unnormalised eigenvector is projected by the derivative of that
normalisation (`_normalised_tangent`), so a loss that reads the eigenvectors' phases gets
the gradient of what it computes. The eigenvalues must be distinct (the gaps
`w_j - w_i` divide), and the largest component must not be tied in modulus.

The results are complex where an eigenvalue is; a real matrix whose eigenvalues are all real
gives real results, and its tangents and cotangents are real too. Cotangents follow srcad's
convention for complex values (`Re <a_bar, da> = Re <y_bar, dy>`), as in
`numpy_factorisations`.

`pinv` is differentiated at constant rank (the rank its `rcond`/`rtol` cut decides), with
the formula for the derivative of a Moore-Penrose inverse.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.projection import ProjectTo
from srcad.registry import RuleSet
from srcad.rules._support import (
    argument_tangents,
    conj_transpose,
    element_cotangents,
    options_by_name,
    refuse_dropped_rank,
)
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("numpy_eig")

Pullback = Any


def _gap_inverses(w: np.ndarray) -> np.ndarray:
    """`F[..., i, j] = 1 / (w[j] - w[i])` off the diagonal, 0 on it."""
    gaps = w[..., np.newaxis, :] - w[..., :, np.newaxis]
    n = w.shape[-1]
    eye = np.eye(n, dtype=bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, gaps))


def _largest_components(v: np.ndarray) -> np.ndarray:
    """The row of each eigenvector's component of largest modulus, shaped `(..., 1, n)`."""
    return np.argmax(np.abs(v), axis=-2)[..., np.newaxis, :]


def _normalised_tangent(v: np.ndarray, dv: np.ndarray) -> np.ndarray:
    """The tangent of NumPy's normalised eigenvectors `v` (columns of norm 1, the largest
    component real) for the tangent `dv` of unnormalised ones: the change of norm and of
    the largest component's phase removed, `dv - v Re(v^H dv) - i v Im(dv_k / v_k)`."""
    stretch = np.real(np.sum(np.conj(v) * dv, axis=-2, keepdims=True))
    dn = dv - v * stretch
    if np.iscomplexobj(v) or np.iscomplexobj(dv):
        k = _largest_components(v)
        turn = np.imag(np.take_along_axis(dv, k, -2) / np.take_along_axis(v, k, -2))
        dn = dn - 1j * v * turn
    return dn


def _normalised_cotangent(v: np.ndarray, v_bar: np.ndarray) -> np.ndarray:
    """The adjoint of `_normalised_tangent` at `v`: the cotangent of the unnormalised
    eigenvectors, from that of NumPy's normalised ones."""
    stretch = np.real(np.sum(np.conj(v) * v_bar, axis=-2, keepdims=True))
    raw = v_bar - v * stretch
    if np.iscomplexobj(v) or np.iscomplexobj(v_bar):
        k = _largest_components(v)
        turn = np.real(1j * np.sum(np.conj(v_bar) * v, axis=-2, keepdims=True))
        v_k = np.take_along_axis(v, k, -2)
        correction = np.zeros(raw.shape, dtype=np.result_type(raw, 1j))
        np.put_along_axis(correction, k, turn * 1j / np.conj(v_k), -2)
        raw = raw - correction
    return raw


@rules.rrule(np.linalg.eig)
def eig_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `w, v = np.linalg.eig(a)`, also of a stack; see the module's
    docstring for the gauge.

    With `C = v^-1 da v`: `dw = diag C` and the unnormalised `dv = v (F o C)`, `F_ij =
    1 / (w_j - w_i)`. So `a_bar = v^-H (diag(w_bar) + conj(F) o (v^H v_raw_bar)) v^H`, with
    `v_raw_bar` the cotangent `v_bar` taken back through the normalisation.
    """
    result = np.linalg.eig(a)
    w, v = result
    v_h = conj_transpose(v)
    project_a = ProjectTo(a)

    def eig_pullback(y_bar: Any) -> tuple[Any, Any]:
        w_bar, v_bar = element_cotangents(y_bar, 2)
        if isinstance(w_bar, AbstractZero) and isinstance(v_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        middle = np.zeros(v.shape, dtype=np.result_type(v, 1j))
        if not isinstance(w_bar, AbstractZero):
            middle = middle + np.asarray(w_bar)[..., np.newaxis] * np.eye(w.shape[-1])
        if not isinstance(v_bar, AbstractZero):
            raw_bar = _normalised_cotangent(v, np.asarray(v_bar))
            middle = middle + np.conj(_gap_inverses(w)) * (v_h @ raw_bar)
        a_bar = np.linalg.solve(v_h, middle @ v_h)
        return NoTangent(), project_a(a_bar)

    return result, eig_pullback


@rules.frule(np.linalg.eig)
def eig_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    """Forward rule for `np.linalg.eig`: `dw = diag C`, `dv` the normalised `v (F o C)`,
    `C = v^-1 da v` (see `eig_rrule`)."""
    result = np.linalg.eig(a)
    w, v = result
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return result, ZeroTangent()
    c = np.linalg.solve(v, a_dot @ v)
    w_dot = np.diagonal(c, axis1=-2, axis2=-1)
    v_dot = _normalised_tangent(v, v @ (_gap_inverses(w) * c))
    if not np.iscomplexobj(w):  # all eigenvalues real: so are the tangents
        w_dot, v_dot = np.real(w_dot), np.real(v_dot)
    return result, (w_dot, v_dot)


@rules.rrule(np.linalg.eigvals)
def eigvals_rrule(a: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.linalg.eigvals`: `a_bar = v^-H diag(w_bar) v^H`, `v` the
    eigenvectors (eigenvalues distinct)."""
    w, v = np.linalg.eig(a)
    v_h = conj_transpose(v)
    project_a = ProjectTo(a)

    def eigvals_pullback(w_bar: Any) -> tuple[Any, Any]:
        w_bar = unthunk(w_bar)
        if isinstance(w_bar, AbstractZero):
            return NoTangent(), w_bar
        a_bar = np.linalg.solve(v_h, np.asarray(w_bar)[..., np.newaxis] * v_h)
        return NoTangent(), project_a(a_bar)

    return w, eigvals_pullback


@rules.frule(np.linalg.eigvals)
def eigvals_frule(dargs: tuple[Any, ...], a: Any) -> tuple[Any, Any]:
    """Forward rule for `np.linalg.eigvals`: `dw = diag(v^-1 da v)`."""
    w, v = np.linalg.eig(a)
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return w, ZeroTangent()
    w_dot = np.diagonal(np.linalg.solve(v, a_dot @ v), axis1=-2, axis2=-1)
    return w, w_dot if np.iscomplexobj(w) else np.real(w_dot)


# --- the pseudo-inverse ------------------------------------------------------------------------


def _refuse_truncation(a: Any, options: tuple[Any, ...], keywords: dict[str, Any]) -> None:
    """Raise where `np.linalg.pinv(a, rcond, hermitian, rtol=...)` was given a cutoff that
    drops singular values above rounding (`refuse_dropped_rank`); NumPy's default drops
    only rounding errors of zeros, and is not checked."""
    given = options_by_name(("rcond", "hermitian"), options, keywords)
    cutoff = given.get("rcond", keywords.get("rtol"))
    if cutoff is None:
        return
    a = np.asarray(a)
    if given.get("hermitian"):
        s = np.abs(np.linalg.eigvalsh(a))
    else:
        s = np.linalg.svd(a, compute_uv=False)
    if s.shape[-1] == 0:
        return
    largest = np.max(s, axis=-1, keepdims=True)
    dropped = np.where(s <= np.asarray(cutoff)[..., np.newaxis] * largest, s, 0.0)
    refuse_dropped_rank(dropped, largest, a.shape, "np.linalg.pinv")


rules.non_differentiable(_refuse_truncation)


@rules.rrule(np.linalg.pinv)
def pinv_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `p = np.linalg.pinv(a, rcond, hermitian, rtol)` at constant rank:

        a_bar = -p^H p_bar p^H + (I - a p) p_bar^H p p^H + p^H p p_bar^H (I - p a)

    (the adjoint of `dp = -p da p + p p^H da^H (I - a p) + (I - p a) da^H p^H p`).
    """
    p = np.linalg.pinv(a, *options, **keywords)
    _refuse_truncation(a, options, keywords)
    a_array = np.asarray(a)
    p_h = conj_transpose(p)
    left_null = np.eye(a_array.shape[-2]) - a_array @ p  # I - a p
    right_null = np.eye(a_array.shape[-1]) - p @ a_array  # I - p a
    project_a = ProjectTo(a)
    option_bars = (NoTangent(),) * len(options)

    def pinv_pullback(p_bar: Any) -> tuple[Any, ...]:
        p_bar = unthunk(p_bar)
        if isinstance(p_bar, AbstractZero):
            return (NoTangent(), p_bar, *option_bars)
        p_bar_h = conj_transpose(np.asarray(p_bar))
        a_bar = -(p_h @ p_bar @ p_h)
        a_bar = a_bar + left_null @ p_bar_h @ (p @ p_h) + (p_h @ p) @ p_bar_h @ right_null
        return (NoTangent(), project_a(a_bar), *option_bars)

    return p, pinv_pullback


@rules.frule(np.linalg.pinv)
def pinv_frule(dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.linalg.pinv` at constant rank (see `pinv_rrule`)."""
    p = np.linalg.pinv(a, *options, **keywords)
    (a_dot,) = argument_tangents(dargs, 1)
    if isinstance(a_dot, AbstractZero):
        return p, ZeroTangent()
    _refuse_truncation(a, options, keywords)
    a_array = np.asarray(a)
    p_h = np.conj(np.swapaxes(p, -1, -2))
    a_dot_h = np.conj(np.swapaxes(a_dot, -1, -2))
    left_null = np.eye(a_array.shape[-2]) - a_array @ p
    right_null = np.eye(a_array.shape[-1]) - p @ a_array
    p_dot = -(p @ a_dot @ p) + p @ p_h @ a_dot_h @ left_null + right_null @ a_dot_h @ p_h @ p
    return p, p_dot

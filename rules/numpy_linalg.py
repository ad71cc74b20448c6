"""Rules for NumPy's products and axis permutations: `np.dot` and `np.transpose`."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.projection import ProjectTo, conj
from srcad.registry import RuleSet
from srcad.tangents import AbstractZero, NoTangent

rules = RuleSet("numpy_linalg")

Pullback = Any


def _dot_cotangents(y_bar: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[Any, Any]:
    """The cotangents of `a` and `b` in `y = np.dot(a, b)`, before projection.

    np.dot contracts the last axis of `a` with the only axis of a 1-d `b`, or else with
    the second-to-last axis of `b`, giving `a.shape[:-1] + b.shape[:-2] + b.shape[-1:]`;
    each cotangent contracts `y_bar` with the conjugate of the other factor over the
    axes that factor brought into `y`. A 0-d factor makes it a plain product.
    """
    if a.ndim == 0 or b.ndim == 0:
        return y_bar * conj(b), conj(a) * y_bar
    kept_a = a.ndim - 1  # the axes of `a` that survive into `y`, which come first
    if b.ndim == 1:
        a_bar = np.multiply.outer(y_bar, conj(b))
        b_bar = np.tensordot(y_bar, conj(a), axes=kept_a)
        return a_bar, b_bar
    kept_b = b.ndim - 2  # `b`'s leading axes, which follow `a`'s in `y`, then its last one
    y_axes_from_b = [*range(kept_a, kept_a + kept_b + 1)]
    b_axes_in_y = [*range(kept_b), kept_b + 1]
    a_bar = np.tensordot(y_bar, conj(b), axes=(y_axes_from_b, b_axes_in_y))
    # Contracting `a`'s kept axes leaves (n, *b.shape[:-2], m); move n to its place in b.
    b_bar = np.tensordot(conj(a), y_bar, axes=(list(range(kept_a)), list(range(kept_a))))
    return a_bar, np.moveaxis(b_bar, 0, kept_b)


@rules.rrule(np.dot)
def dot_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.dot` in all its cases: a scalar factor, vectors, matrices,
    and N-d arrays (contracting `a`'s last axis with `b`'s second-to-last)."""
    y = np.dot(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    a_array, b_array = np.asarray(a), np.asarray(b)

    def dot_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, y_bar
        a_bar, b_bar = _dot_cotangents(np.asarray(y_bar), a_array, b_array)
        return NoTangent(), project_a(a_bar), project_b(b_bar)

    return y, dot_pullback


@rules.rrule(np.transpose)
def transpose_rrule(x: Any, *positional_axes: Any, axes: Any = None) -> tuple[Any, Pullback]:
    """Reverse rule for `np.transpose(x)` and `np.transpose(x, axes)`.

    The pullback permutes the cotangent back by the inverse permutation; `axes`, when
    passed by position, gets a `NoTangent()`.
    """
    if len(positional_axes) > 1:
        raise TypeError(f"np.transpose takes x and axes, not {1 + len(positional_axes)} arguments")
    if positional_axes:
        axes = positional_axes[0]
    y = np.transpose(x, axes)
    project_x = ProjectTo(x)
    ndim = np.ndim(x)
    inverse = None if axes is None else np.argsort([int(a) % ndim for a in axes])
    axes_bars = (NoTangent(),) * len(positional_axes)

    def transpose_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *axes_bars)
        return (NoTangent(), project_x(np.transpose(y_bar, inverse)), *axes_bars)

    return y, transpose_pullback

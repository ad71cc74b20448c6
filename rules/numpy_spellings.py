"""Rules for NumPy functions that spell others again: `np.linalg.eigvalsh`, `cond`,
`cross`, `matrix_norm`, `vector_norm`, `multi_dot` and `tensorsolve`, and NumPy 2.2's
`np.matvec` and `np.vecmat`, where this NumPy has them; the conversions that keep an
array's values (`np.copy`, `asanyarray`, `ascontiguousarray`, `asfortranarray`, `require`,
`asarray_chkfinite`) or take some of them (`trim_zeros`, `broadcast_arrays`); and, without
derivative, positions and predicates (`np.isneginf`, `flatnonzero`, `tril_indices`, ...).
(`rules/numpy_array_api.py` has NumPy 2's `vecdot`, `matrix_transpose` and `linalg.outer`.)

Each is srcad's own rule of a definition in functions it has rules for
(`rules/_support.by_definition`), so its derivatives to any order are theirs; its value is
NumPy's own. Refused when the rule runs (an `UnsupportedCallError`), each a gap:
`vector_norm` over several axes at once, `tensorsolve` with `axes=`, `trim_zeros` of other
than one axis; `multi_dot` with `out=` writes into an array (E304: unsound to follow).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("numpy_spellings")


def refused_option(condition: Any, what: str) -> None:
    """Raise, naming the option srcad does not differentiate, where `condition` holds."""
    if condition:
        raise UnsupportedCallError(f"srcad does not differentiate {what}")


rules.non_differentiable(refused_option)


def eigvalsh(a: Any, UPLO: Any = "L") -> Any:  # noqa: N803 (NumPy's name)
    """`np.linalg.eigvalsh`: the eigenvalues `eigh` gives."""
    return np.linalg.eigh(a, UPLO)[0]


def cond(x: Any, p: Any = None) -> Any:
    """`np.linalg.cond`: the ratio of the extreme singular values (`p` None, 2, -2), else
    the norm of `x` times the norm of its inverse."""
    if p is None or p == 2 or p == -2:
        values = np.linalg.svd(x, compute_uv=False)
        if p == -2:
            return values[..., -1] / values[..., 0]
        return values[..., 0] / values[..., -1]
    axes = (-2, -1)
    return np.linalg.norm(x, p, axes) * np.linalg.norm(np.linalg.inv(x), p, axes)


def cross(x1: Any, x2: Any, /, *, axis: Any = -1) -> Any:
    """`np.linalg.cross`: `np.cross` along `axis`."""
    return np.cross(x1, x2, axis=axis)


def matrix_norm(x: Any, /, *, keepdims: Any = False, ord: Any = "fro") -> Any:
    """`np.linalg.matrix_norm`: `np.linalg.norm` over the last two axes."""
    return np.linalg.norm(x, ord, (-2, -1), keepdims)


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: Any = False, ord: Any = 2) -> Any:
    """`np.linalg.vector_norm`: `np.linalg.norm` of the flattened array (axis None) or
    along one axis."""
    refused_option(isinstance(axis, tuple) and len(axis) > 1,
                   "np.linalg.vector_norm over several axes")  # fmt: skip
    if axis is None:
        found = np.linalg.norm(np.ravel(x), ord)
        return np.reshape(found, (1,) * np.ndim(x)) if keepdims else found
    return np.linalg.norm(x, ord, axis, keepdims)


def multi_dot(arrays: Any, *, out: Any = None) -> Any:
    """`np.linalg.multi_dot`: the matrix products in turn (a first or last vector a row or
    a column, as `@` takes it)."""
    refused_option(out is not None, "np.linalg.multi_dot with out=")
    product = arrays[0]
    for factor in arrays[1:]:
        product = product @ factor
    return product


def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """`np.linalg.tensorsolve`: `solve` of `a` reshaped square, `b` flattened."""
    refused_option(axes is not None, "np.linalg.tensorsolve with axes=")
    shape = np.shape(a)[np.ndim(b) :]
    size = math.prod(shape)
    return np.reshape(np.linalg.solve(np.reshape(a, (-1, size)), np.ravel(b)), shape)


def matvec(x1: Any, x2: Any, /) -> Any:
    """`np.matvec`: each matrix of `x1` times each vector of `x2`."""
    return np.sum(x1 * np.expand_dims(x2, -2), axis=-1)


def vecmat(x1: Any, x2: Any, /) -> Any:
    """`np.vecmat`: each conjugated vector of `x1` times each matrix of `x2`."""
    return np.sum(np.expand_dims(np.conj(x1), -1) * x2, axis=-2)


def copy(a: Any, order: Any = "K", subok: Any = False) -> Any:
    """`np.copy`: the same values, as a new array."""
    return np.array(a)


def converted(a: Any, dtype: Any = None, *options: Any, **keywords: Any) -> Any:
    """`np.asanyarray`, `np.ascontiguousarray`, `np.asfortranarray`, `np.require`: the
    same values as an array (in `dtype`), laid out as asked."""
    return np.asarray(a, dtype)


def finite_checked(a: Any) -> None:
    """Raise as `np.asarray_chkfinite` does where `a` holds an infinity or a NaN."""
    if not np.all(np.isfinite(a)):
        raise ValueError("array must not contain infs or NaNs")


def trimmed_bounds(filt: Any, trim: Any) -> tuple[int, int]:
    """Where `np.trim_zeros(filt, trim)` of a 1-d `filt` starts and stops."""
    nonzero = np.flatnonzero(filt)
    if nonzero.size == 0:
        return 0, 0
    first = int(nonzero[0]) if "f" in trim.lower() else 0
    last = int(nonzero[-1]) + 1 if "b" in trim.lower() else len(filt)
    return first, last


rules.non_differentiable(finite_checked, trimmed_bounds)


def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> Any:
    """`np.asarray_chkfinite`: `np.asarray`, refused where a value is not finite."""
    finite_checked(a)
    return np.asarray(a, dtype)


def trim_zeros(filt: Any, trim: Any = "fb", axis: Any = None) -> Any:
    """`np.trim_zeros` of a 1-d array: the slice between its first and last nonzero."""
    refused_option(np.ndim(filt) != 1 or axis is not None,
                   "np.trim_zeros of other than one axis")  # fmt: skip
    first, last = trimmed_bounds(filt, trim)
    return filt[first:last]


def broadcast_arrays(*args: Any, subok: Any = False) -> Any:
    """`np.broadcast_arrays`: each array broadcast to their common shape."""
    shape = np.broadcast_shapes(*[np.shape(a) for a in args])
    return tuple(np.broadcast_to(a, shape) for a in args)


_CONVERSIONS = (np.asanyarray, np.ascontiguousarray, np.asfortranarray, np.require)
by_definition(rules, np.copy, copy, "copy_of_array")
for _primal in _CONVERSIONS:
    by_definition(rules, _primal, converted, _primal.__name__)
_TAKEN: tuple[Any, ...] = (asarray_chkfinite, trim_zeros, broadcast_arrays)
for _taken in _TAKEN:
    by_definition(rules, getattr(np, _taken.__name__), _taken)

# Positions, predicates and piecewise constant values: no derivative.
rules.non_differentiable(
    np.isneginf, np.isposinf, np.iterable, np.isscalar, np.isfortran, np.flatnonzero,
    np.unravel_index, np.ravel_multi_index, np.tril_indices, np.triu_indices, np.indices,
    np.diag_indices, np.shares_memory, np.may_share_memory, np.can_cast,
)  # fmt: skip

_LINALG: tuple[Any, ...] = (eigvalsh, cond, cross, matrix_norm, vector_norm, multi_dot,
                            tensorsolve)  # fmt: skip
for _definition in _LINALG:
    by_definition(rules, getattr(np.linalg, _definition.__name__), _definition,
                  f"linalg_{_definition.__name__}")  # fmt: skip
for _product in (matvec, vecmat):
    if hasattr(np, _product.__name__):  # (NumPy 2.2 adds them)
        by_definition(rules, getattr(np, _product.__name__), _product)

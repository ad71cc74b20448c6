"""Rules for NumPy's linear-algebra functions that are new spellings of others (most from
the array API, NumPy 2): `np.linalg.eigvalsh`, `cond`, `cross`, `outer`, `vecdot`,
`matrix_norm`, `vector_norm`, `matrix_transpose`, `multi_dot`, `tensorsolve`, and
`np.vecdot`, `np.matrix_transpose`, `np.matvec`, `np.vecmat`, `np.cumulative_sum` and
`np.cumulative_prod` where this NumPy has them.

Each is srcad's own rule of a definition in functions it has rules for
(`rules/_support.by_definition`), so its derivatives to any order are theirs; its value is
NumPy's own. Refused when the rule runs (an `UnsupportedCallError`), each a gap:
`vector_norm` over several axes at once, `tensorsolve` with `axes=`, `multi_dot` with
`out=` (which writes into an array: unsound to follow).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("numpy_array_api")


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


def outer(x1: Any, x2: Any, /) -> Any:
    """`np.linalg.outer`: `np.outer`."""
    return np.outer(x1, x2)


def vecdot(x1: Any, x2: Any, /, *, axis: Any = -1) -> Any:
    """`vecdot`: the sum along `axis` of `conj(x1) * x2`."""
    return np.sum(np.conj(x1) * x2, axis=axis)


def matrix_transpose(x: Any, /) -> Any:
    """`matrix_transpose`: the last two axes swapped."""
    return np.swapaxes(x, -1, -2)


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


def cumulative_sum(x: Any, /, *, axis: Any = None, dtype: Any = None, out: Any = None,
                   include_initial: Any = False) -> Any:  # fmt: skip
    """`np.cumulative_sum`: `np.cumsum`, after a 0 where `include_initial`."""
    refused_option(dtype is not None or out is not None, "np.cumulative_sum with dtype= or out=")
    refused_option(axis is None and np.ndim(x) > 1, "np.cumulative_sum of an array of several "
                   "axes without axis= (NumPy refuses it too)")  # fmt: skip
    found = np.cumsum(x, axis=axis)
    if include_initial:
        where = -1 if axis is None else axis
        zero = np.zeros_like(np.take(found, [0], axis=where))
        found = np.concatenate([zero, found], axis=where)
    return found


def cumulative_prod(x: Any, /, *, axis: Any = None, dtype: Any = None, out: Any = None,
                    include_initial: Any = False) -> Any:  # fmt: skip
    """`np.cumulative_prod`: `np.cumprod`, after a 1 where `include_initial`."""
    refused_option(dtype is not None or out is not None, "np.cumulative_prod with dtype= or out=")
    refused_option(axis is None and np.ndim(x) > 1, "np.cumulative_prod of an array of several "
                   "axes without axis= (NumPy refuses it too)")  # fmt: skip
    found = np.cumprod(x, axis=axis)
    if include_initial:
        where = -1 if axis is None else axis
        one = np.ones_like(np.take(found, [0], axis=where))
        found = np.concatenate([one, found], axis=where)
    return found


_LINALG = (eigvalsh, cond, cross, outer, vecdot, matrix_transpose, matrix_norm, vector_norm,
           multi_dot, tensorsolve)  # fmt: skip
for _definition in _LINALG:
    by_definition(rules, getattr(np.linalg, _definition.__name__), _definition,
                  f"linalg_{_definition.__name__}")  # fmt: skip
for _definition in (vecdot, matrix_transpose, matvec, vecmat, cumulative_sum, cumulative_prod):
    if hasattr(np, _definition.__name__):  # (NumPy 2.0 to 2.2 add them)
        by_definition(rules, getattr(np, _definition.__name__), _definition)

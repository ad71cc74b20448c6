"""Rules for the functions NumPy 2 added for the array API standard that are not other
names of older ones: `np.vecdot` and `np.linalg.vecdot` (the sum over an axis of the first
argument's conjugate times the second: the axis of each, before they broadcast),
`np.matrix_transpose` and `np.linalg.matrix_transpose` (the last two axes swapped), and
`np.linalg.outer` (`np.outer` of two vectors).

Each is srcad's own rule of a plain-NumPy definition (`rules/_support.by_definition`), with
NumPy's own value and its checks: the definitions differentiate to any order. A `vecdot`
given a ufunc option other than `axis` (`out=`, `dtype=`, `axes=`, `keepdims=`...) is
refused by name. Registered where NumPy has them (2.0 on).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("numpy_array_api")


def refuse_options(name: str, options: dict[str, Any]) -> None:
    """Raise where a call passes options the definition does not compute."""
    if options:
        given = ", ".join(f"{k}=" for k in options)
        raise UnsupportedCallError(f"srcad has no rule for {name} with {given}")


rules.non_differentiable(refuse_options)


def vecdot(x1: Any, x2: Any, /, *, axis: Any = -1, **options: Any) -> Any:
    """`np.vecdot`: `sum(conj(x1) * x2)` over the axis `axis` of each operand (moved last
    in each before they broadcast, as a gufunc's core axis is)."""
    refuse_options("np.vecdot", options)
    return np.sum(np.moveaxis(np.conj(x1), axis, -1) * np.moveaxis(x2, axis, -1), -1)


def linalg_vecdot(x1: Any, x2: Any, /, *, axis: Any = -1) -> Any:
    """`np.linalg.vecdot`: as `np.vecdot`."""
    return np.sum(np.moveaxis(np.conj(x1), axis, -1) * np.moveaxis(x2, axis, -1), -1)


def matrix_transpose(x: Any, /) -> Any:
    """`np.matrix_transpose`: the last two axes swapped (NumPy refuses fewer than two)."""
    if np.ndim(x) < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return np.swapaxes(x, -1, -2)


def linalg_outer(x1: Any, x2: Any, /) -> Any:
    """`np.linalg.outer`: `np.outer` of two vectors (NumPy refuses other shapes)."""
    if np.ndim(x1) != 1 or np.ndim(x2) != 1:
        raise ValueError("Input arrays must be one-dimensional")
    return np.outer(x1, x2)


_FUNCTIONS = (
    (np, "vecdot", vecdot),
    (np, "matrix_transpose", matrix_transpose),
    (np.linalg, "vecdot", linalg_vecdot),
    (np.linalg, "matrix_transpose", matrix_transpose),
    (np.linalg, "outer", linalg_outer),
)
for _module, _name, _definition in _FUNCTIONS:
    if hasattr(_module, _name):
        _prefix = "linalg_" if _module is np.linalg else ""
        by_definition(rules, getattr(_module, _name), _definition, f"{_prefix}{_name}")

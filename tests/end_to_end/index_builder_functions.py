"""Functions that join arrays with NumPy's index builders (`np.r_`, `np.c_`), and index
with `np.s_` and `np.index_exp`, for `test_index_builders.py`."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy import r_ as joined


def r_two(x: Any) -> Any:
    return np.sum(np.r_[x, x**2] ** 2)


def r_numbers_and_slices(x: Any) -> Any:
    """A Python number, a slice's constants and an element among the pieces."""
    return np.sum(np.r_[x, 0.5, 1:4, x[0] * 2.0] ** 3)


def r_linspace_and_ints(x: Any) -> Any:
    """A complex step (`linspace`) and an integer array, which carry no derivative."""
    return np.sum(np.r_[0:1:4j, x, np.array([1, 2])] * np.arange(9.0) * x[1])


def r_directives(x: Any) -> Any:
    """`"0,2"` (rows of a matrix), `"1,2,0"` (columns) and `"-1"` (the last axis)."""
    m = np.outer(x, x)
    rows = np.r_["0,2", x, x**2]
    columns = np.r_["1,2,0", x, np.cos(x)]
    return np.sum(rows * columns.T) + np.sum(np.r_["-1", m, m * 2.0] ** 2)


def c_columns(x: Any) -> Any:
    return np.sum((np.c_[x, np.sin(x)] @ np.array([1.0, -2.0])) ** 2) + np.sum(np.c_[x, x] ** 3)


def c_matrix_and_vectors(x: Any) -> Any:
    m = np.outer(x, x[:2])
    return np.sum(np.c_[m, x, np.r_[x]] ** 2)


def single_pieces(x: Any) -> Any:
    return np.sum(np.c_[x] ** 3) + np.sum(np.r_[x] ** 2)


def by_another_name(x: Any) -> Any:
    return np.sum(joined[x, np.r_[x[0], x[1]] * 3.0] ** 2)


def complex_piece(x: Any) -> Any:
    z = np.r_[x + 1j * x**2, np.exp(1j * x)]
    return np.sum(np.abs(z) ** 2 * np.arange(6.0))


def index_expressions(x: Any) -> Any:
    return np.sum(x[np.s_[1:]] ** 2) + np.sum(x[np.index_exp[:2]] ** 3)


def matrix_directive(x: Any) -> Any:
    return np.sum(np.r_["r", x, x])


def directive_in_a_variable(x: Any, directive: str) -> Any:
    return np.sum(np.r_[directive, x, x])

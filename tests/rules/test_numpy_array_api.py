"""`np.vecdot`, `np.matrix_transpose` and their `np.linalg` twins, and `np.linalg.outer`
(`rules/numpy_array_api.py`, NumPy 2): each rule alone in both modes against finite
differences (broadcast operands, a chosen axis, complex operands, whose first is
conjugated), whole functions through the public API (second order too), and the shapes and
options refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedCallError
from srcad.testing import check_frule, check_rrule
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api

pytestmark = pytest.mark.skipif(not hasattr(np, "vecdot"), reason="NumPy 2.0 on")

M = sample((3, 4), 1)
X = sample((2, 3, 4), 2)
V = sample((4,), 3)
Z = M + 1j * sample((3, 4), 4)

CALLS = [
    ("vecdot", "vecdot", (M, V), {}),
    ("vecdot-axis", "vecdot", (X, M[:2]), {"axis": 0}),
    ("vecdot-axis-each", "vecdot", (X, M.T), {"axis": 1}),
    ("vecdot-complex", "vecdot", (Z, Z[::-1]), {}),
    ("linalg.vecdot", "linalg.vecdot", (X, V), {}),
    ("linalg.vecdot-axis", "linalg.vecdot", (M, M), {"axis": 0}),
    ("matrix_transpose", "matrix_transpose", (X,), {}),
    ("linalg.matrix_transpose", "linalg.matrix_transpose", (M,), {}),
    ("linalg.outer", "linalg.outer", (V, M[0, :3]), {}),
]


def function(name: str) -> Callable[..., Any]:
    module, _, attribute = name.rpartition(".")
    return getattr(np.linalg if module else np, attribute)


@pytest.mark.parametrize(("name", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_rules_match_finite_differences(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(function(name), *args, **kwargs)
    check_frule(function(name), *args, **kwargs, seed=5)


def array_api_loss(x: np.ndarray) -> Any:
    m = np.reshape(x, (2, 3))
    lengths = np.vecdot(m, np.sin(m)) + np.linalg.vecdot(m, m[::-1], axis=0)[:2]
    table = np.linalg.outer(x[:3], x[3:] ** 2) @ np.matrix_transpose(m)
    return np.sum(lengths**2) + np.sum(np.linalg.matrix_transpose(table) ** 2)


def test_through_the_api() -> None:
    check_through_api(array_api_loss, sample((6,), 6))


def vecdot_in_a_dtype(x):
    return np.vecdot(x, x, dtype=np.float64)


def transpose_of_a_vector(x):
    return np.sum(np.matrix_transpose(x))


def outer_of_matrices(x):
    return np.sum(np.linalg.outer(np.outer(x, x), x))


@pytest.mark.parametrize(
    ("f", "error"),
    [(vecdot_in_a_dtype, UnsupportedCallError), (transpose_of_a_vector, ValueError),
     (outer_of_matrices, ValueError)],
    ids=["dtype", "transpose-1d", "outer-2d"],
)  # fmt: skip
def test_refused(f: Callable[..., Any], error: type) -> None:
    with pytest.raises(error):
        srcad.grad(f)(V)

"""NumPy's new spellings of linear algebra (rules/numpy_array_api.py): `np.linalg.eigvalsh`,
`cond`, `cross`, `outer`, `vecdot`, `matrix_norm`, `vector_norm`, `matrix_transpose`,
`multi_dot`, `tensorsolve`, and `np.vecdot`, `np.matrix_transpose`, `np.matvec`,
`np.vecmat`, `np.cumulative_sum`, `np.cumulative_prod` where NumPy has them, through the
public API against finite differences in both modes and to second order. Each was refused
(no rule, or NumPy's source)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from tests.rules.through_the_api import check_through_api

RNG = np.random.default_rng(41)
B = RNG.standard_normal((3, 3))


def matrix_of(x):
    return np.reshape(x, (3, 3)) + 3.0 * np.eye(3)


def eigenvalues(x):
    m = matrix_of(x)
    return np.sum(np.linalg.eigvalsh(m + m.T) ** 3) + np.sum(np.linalg.eigvalsh(m, "U") * x[:3])


def condition(x):
    m = matrix_of(x)
    return np.linalg.cond(m) + np.linalg.cond(m, -2) + np.linalg.cond(m, "fro")


def products(x):
    m = matrix_of(x)
    crossed = np.linalg.cross(x[:3], x[3:6])
    return (np.sum(crossed**2) + np.sum(np.linalg.outer(x[:3], x[6:]) * B)
            + np.sum(np.linalg.vecdot(m, B) ** 2)
            + np.sum(np.linalg.multi_dot([x[:3], m, B, x[3:6]]) ** 2)
            + np.sum(np.linalg.matrix_transpose(m) * B))  # fmt: skip


def norms(x):
    m = matrix_of(x)
    return (np.linalg.matrix_norm(m) + np.sum(np.linalg.vector_norm(m, axis=0) ** 3)
            + np.linalg.vector_norm(x) * x[0])  # fmt: skip


def tensor_solved(x):
    a = np.reshape(matrix_of(x), (3, 3, 1))
    return np.sum(np.linalg.tensorsolve(np.reshape(a, (3, 3)), np.sin(x[:3])) ** 2)


def top_level(x):
    m = matrix_of(x)
    total = np.sum(np.cos(x[:3]) * x[3:6])
    for name in ("vecdot", "matvec"):
        if hasattr(np, name):
            total = total + np.sum(getattr(np, name)(m, x[:3]) ** 2)
    if hasattr(np, "vecmat"):
        total = total + np.sum(np.vecmat(x[:3], m) ** 2)
    if hasattr(np, "matrix_transpose"):
        total = total + np.sum(np.matrix_transpose(m) @ x[3:6])
    for name in ("cumulative_sum", "cumulative_prod"):
        if hasattr(np, name):
            total = total + np.sum(getattr(np, name)(x[:4], include_initial=True) ** 2)
            total = total + np.sum(getattr(np, name)(m, axis=1) * B)
    return total


MODELS = [eigenvalues, condition, products, norms, tensor_solved, top_level]


@pytest.mark.parametrize("f", MODELS, ids=lambda f: f.__name__)
def test_through_the_api_to_second_order(f: Any) -> None:
    check_through_api(f, 0.3 * RNG.standard_normal(9))


def test_other_orders_to_first_order() -> None:
    """`cond` in the 1-norm and infinity norm, whose second derivatives NumPy's norm rule
    does not take."""

    def other(x):
        return np.linalg.cond(matrix_of(x), 1) + np.linalg.cond(matrix_of(x), np.inf)

    check_through_api(other, 0.3 * RNG.standard_normal(9), second_order=False)


@pytest.mark.parametrize(
    "f",
    [
        lambda x: np.linalg.vector_norm(matrix_of(x), axis=(0, 1)),
        lambda x: np.sum(np.linalg.tensorsolve(matrix_of(x), x[:3], axes=(0,))),
        lambda x: np.sum(np.linalg.multi_dot([matrix_of(x), B], out=np.zeros((3, 3)))),
    ],
)
def test_options_not_differentiated_are_refused(f: Any) -> None:
    with pytest.raises((SrcadError, TypeError), match=r"does not differentiate|out="):
        srcad.grad(f)(0.3 * RNG.standard_normal(9))

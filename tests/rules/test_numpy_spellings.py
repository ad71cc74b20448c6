"""NumPy functions that spell others again (rules/numpy_spellings.py, with those of
rules/numpy_array_api.py, numpy_moves.py and numpy_polynomials.py used beside them), the
conversions that keep values, and positions without derivative, through the public API
against finite differences in both modes and to second order. Each was refused (no rule,
or NumPy's source), found sweeping NumPy's functions of one array."""

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


def conversions(x):
    m = matrix_of(x)
    kept = (
        np.copy(m) * np.asanyarray(x[:3])
        + np.ascontiguousarray(m.T) ** 2
        + np.asfortranarray(m) * np.require(m, dtype=float)
        + np.asarray_chkfinite(m)
    )
    trimmed = np.trim_zeros(np.concatenate([[0.0], x[:4], [0.0, 0.0]]))
    low, wide = np.broadcast_arrays(x[:3, None], x[None, 3:6])
    powers = np.vander(np.concatenate([[0.0], x[:2]]))
    rising = np.vander(x[:3], 4, increasing=True)
    return (np.sum(np.sin(kept)) + np.sum(trimmed**3) + np.sum(low * wide**2)
            + np.sum(np.diagflat(x[:3], 1) @ np.diagflat(m[:2])[:4, :4]) + np.sum(powers**2)
            + np.sum(rising * x[3]))  # fmt: skip


def flat_positions(x):
    """Positions and piecewise constant values: no derivative, and the values they pick."""
    picked = x[np.nanargmax(x)] * x[np.nanargmin(x)] + x[np.lexsort((x,))[0]]
    bins = np.digitize(x, [0.0, 0.2]) * x + np.fix(4.0 * x) * x
    rows, columns = np.tril_indices(3)
    return picked + np.sum(bins) + np.sum(matrix_of(x)[rows, columns] ** 2)


MODELS = [eigenvalues, condition, products, norms, tensor_solved, top_level, conversions,
          flat_positions]  # fmt: skip


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
        lambda x: np.sum(np.trim_zeros(matrix_of(x))),
    ],
)
def test_options_not_differentiated_are_refused(f: Any) -> None:
    with pytest.raises((SrcadError, TypeError), match=r"does not differentiate|out="):
        srcad.grad(f)(0.3 * RNG.standard_normal(9))


def test_asarray_chkfinite_raises_as_numpy_does() -> None:
    def f(x):
        return np.sum(np.asarray_chkfinite(x / x[0]))

    with pytest.raises(ValueError, match="infs or NaNs"):
        srcad.grad(f)(np.array([0.0, 1.0]))

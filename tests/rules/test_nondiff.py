"""Non-differentiable functions: gradients of functions that use them, against finite
differences. The functions sit at module level because srcad reads their source."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.registry import REGISTRY
from srcad.testing import check_rrule

# Away from every kink below: no zeros, nothing within 0.1 of -0.1 or 0.9 (`isclose`).
X = np.array([[-1.3, 0.4, 2.1], [0.7, -0.2, 1.6]])
GRID = np.array([-1.0, 0.0, 0.5, 1.5])


def times_sign(x: np.ndarray) -> Any:
    return np.sum(x * np.sign(x))


def times_around(x: np.ndarray) -> Any:
    return np.sum(x * np.around(x))


def masked_by_isclose(x: np.ndarray) -> Any:
    return np.sum(np.where(np.isclose(x, 0.4, atol=0.5), 0.0, x * x))


def branch_on_allclose(x: np.ndarray) -> Any:
    if np.allclose(x, 0.0):
        return np.sum(x)
    return np.sum(x * x)


def scaled_by_any(x: np.ndarray) -> Any:
    return np.sum(x) * np.any(x > 2.0)


def scaled_by_all(x: np.ndarray) -> Any:
    return np.sum(x * x) * np.all(x < 3.0)


def scaled_by_count_nonzero(x: np.ndarray) -> Any:
    return np.sum(x) * np.count_nonzero(x > 0.0)


def indexed_by_nonzero(x: np.ndarray) -> Any:
    return np.sum(x[np.nonzero(x > 0.0)] ** 2)


def indexed_by_argwhere(x: np.ndarray) -> Any:
    return np.sum(x[np.argwhere(x > 0.0)[:, 0]])


def indexed_by_searchsorted(x: np.ndarray) -> Any:
    return x[np.searchsorted(GRID, 0.2)] * np.sum(x)


def times_fix(x: np.ndarray) -> Any:
    return np.sum(x * np.fix(3.0 * x))


def indexed_by_nanargmax(x: np.ndarray) -> Any:
    holed = np.where(x > 2.0, np.nan, x)
    return x[np.nanargmax(holed)] * x[np.nanargmin(holed)] ** 2


def indexed_by_digitize(x: np.ndarray) -> Any:
    return np.sum(x * np.digitize(x, GRID)) + np.sum(np.digitize(GRID, x, right=True) * x[0])


def indexed_by_lexsort(x: np.ndarray) -> Any:
    order = np.lexsort((x, np.round(x)))
    return np.sum(x[order] * np.arange(np.size(x))) + x[np.argpartition(x, 1)[1]] ** 2


def masked_by_isin(x: np.ndarray) -> Any:
    return np.sum(np.where(np.isin(np.round(x), [0.0, 2.0]), x * x, x))


def scaled_by_ndim(x: np.ndarray) -> Any:
    return np.sum(x) * np.ndim(x)


def branch_on_iscomplexobj(x: np.ndarray) -> Any:
    if np.iscomplexobj(x):
        return np.sum(np.abs(x))
    return np.sum(x * x)


def masked_by_isreal(x: np.ndarray) -> Any:
    return np.sum(np.where(np.isreal(x), x, 0.0))


def masked_by_iscomplex(x: np.ndarray) -> Any:
    return np.sum(np.where(np.iscomplex(x), 0.0, x * x))


def absolute_by_signbit(x: np.ndarray) -> Any:
    return np.sum(np.where(np.signbit(x), -x, x))


@pytest.mark.parametrize(
    ("f", "x"),
    [
        pytest.param(times_sign, X, id="sign"),
        pytest.param(times_around, X, id="around"),
        pytest.param(masked_by_isclose, X, id="isclose"),
        pytest.param(branch_on_allclose, X, id="allclose"),
        pytest.param(scaled_by_any, X, id="any"),
        pytest.param(scaled_by_all, X, id="all"),
        pytest.param(scaled_by_count_nonzero, X, id="count_nonzero"),
        pytest.param(indexed_by_nonzero, X, id="nonzero"),
        pytest.param(indexed_by_argwhere, X[0], id="argwhere"),
        pytest.param(indexed_by_searchsorted, X[1], id="searchsorted"),
        pytest.param(times_fix, X, id="fix"),
        pytest.param(indexed_by_nanargmax, X[0], id="nanargmax"),
        pytest.param(indexed_by_digitize, np.sort(X[1]), id="digitize"),
        pytest.param(indexed_by_lexsort, X[0], id="lexsort"),
        pytest.param(masked_by_isin, X, id="isin"),
        pytest.param(scaled_by_ndim, X, id="ndim"),
        pytest.param(branch_on_iscomplexobj, X, id="iscomplexobj"),
        pytest.param(masked_by_isreal, X, id="isreal"),
        pytest.param(masked_by_iscomplex, X, id="iscomplex"),
        pytest.param(absolute_by_signbit, X, id="signbit"),
    ],
)
def test_gradient_through_non_differentiable_call_matches_finite_differences(
    f: Callable[..., Any], x: np.ndarray
) -> None:
    check_rrule(f, x)


MARKED = [
    np.isclose, np.allclose, np.isreal, np.iscomplex, np.iscomplexobj, np.signbit,
    np.any, np.all, np.count_nonzero, np.nonzero, np.argwhere, np.searchsorted,
    np.around, np.sign, np.ndim, np.shape, np.fix, np.nanargmax, np.nanargmin, np.digitize,
    np.lexsort, np.argpartition, np.isin,
]  # fmt: skip


@pytest.mark.parametrize("primal", [pytest.param(f, id=f.__name__) for f in MARKED])
def test_function_is_marked_non_differentiable(primal: Any) -> None:
    assert REGISTRY.is_non_differentiable(primal)


@pytest.mark.parametrize(
    "primal",
    [
        # Each varies with one of its arguments: marking it would drop that cotangent.
        pytest.param(f, id=f.__name__)
        for f in (np.heaviside, np.histogram, np.linspace, np.logspace, np.full_like)
    ],
)
def test_function_with_a_differentiable_argument_is_not_marked(primal: Any) -> None:
    assert not REGISTRY.is_non_differentiable(primal)

"""A conversion to integers or booleans (`x.astype(int)`, `np.sum(x, dtype=int)`,
`np.linspace(a, b, dtype=int)`) is piecewise constant: its derivative is 0. Forward rules
once cast the argument tangent to the result's integer type and passed it on (`x.astype(int)`
gave `x_dot` truncated; `np.sum(x, dtype=int)` the truncated sum of `x_dot`), so `jvp`,
`jacobian(mode="forward")` and `hessian` of `x * x.astype(int)` were wrong, with no error.
Each function below against central differences at points away from the jumps, in both modes
and to second order."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import srcad
from tests.conftest import difference, user_module

MODULE = """
import numpy as np


def method_cast(x):
    return np.sum(x * x.astype(int)) + np.sum(np.sin(x.astype(np.int8)) * x)


def named_cast(x):
    return np.sum(x * np.astype(x, np.int32)) + np.sum(x * x.astype(bool))


def summed(x):
    return np.sum(x * np.sum(x, dtype=np.int64)) + np.sum(x * np.sum(x, axis=0, dtype=int))


def reduced(x):
    return np.sum(x * np.cumsum(x, axis=1, dtype=int)) + np.sum(x * np.mean(x, dtype=np.int64))


def traced(x):
    total = np.einsum("ij->", x, dtype=int, casting="unsafe")
    return np.sum(x * np.trace(x, dtype=int)) + np.sum(x * total)


def joined(x):
    return np.sum(x * np.concatenate([x, x], dtype=np.int64, casting="unsafe")[:3])


def spaced(x):
    return np.sum(np.linspace(x[0, 0], x[1, 1], 3, dtype=int) * x[2])


def chained(x):
    twice = x.astype(np.float32).astype(int)
    return np.sum(x * np.ravel(x).astype(int).reshape(3, 3).T) + np.sum(x * twice)
"""

NAMES = ["method_cast", "named_cast", "summed", "reduced", "traced", "joined", "spaced", "chained"]
# Three points whose elements, their sums and their traces are at least 0.05 from an integer.
POINTS = [
    np.array([[0.3, 1.4, -2.6], [2.2, -0.7, 1.8], [-1.35, 0.6, 2.45]]),
    np.array([[2.7, -1.2, 0.4], [-0.3, 1.6, -2.2], [0.85, 2.3, -1.7]]),
    np.array([[-0.4, 2.6, 1.3], [1.7, 2.35, -0.6], [0.2, -1.8, 1.1]]),
]


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path: Path = tmp_path_factory.mktemp("integer_results")
    return user_module(path, "integer_results_module", MODULE)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("point", range(len(POINTS)))
def test_against_differences(module: ModuleType, name: str, point: int) -> None:
    f = getattr(module, name)
    x = POINTS[point]
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    assert value == f(x)
    np.testing.assert_allclose(gradient, want, rtol=1e-6, atol=1e-8)
    tangent = np.linspace(-1.0, 1.0, 9).reshape(3, 3)
    _, y_dot = srcad.jvp(f, (x,), (tangent,))
    np.testing.assert_allclose(y_dot, np.sum(want * tangent), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jacobian(f, mode="forward")(x), want, rtol=1e-6, atol=1e-8)
    hessian = srcad.hessian(f)(x).reshape(9, 9)
    expected = difference(srcad.grad(f), (x,)).reshape(9, 9)
    np.testing.assert_allclose(hessian, expected, rtol=1e-5, atol=1e-7)

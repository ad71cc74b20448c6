"""The tangent `jvp` gives has the result's float type, and the cotangent `grad` gives the
argument's, where a float32 argument meets float64 values only through operations whose
rules pass its tangent on unchanged (`x32 + c64`, `np.sum(x32) + c64`, `np.diff(x32,
prepend=0)`, `scipy.stats.norm.logpdf(x32)`, `np.float64(x32)`): `jvp` once gave a float32
tangent of a float64 result, and `grad` of `float(x32_scalar)` a Python float for a float32
argument. Values against central differences, dtypes against NumPy's."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import srcad
from tests.conftest import difference, user_module

MODULE = """
import contextlib

import numpy as np

with contextlib.suppress(ImportError):  # SciPy is optional: `log_density` needs it
    import scipy.stats

C = np.array([0.5, -1.0, 2.0])


def shifted(x):
    return x + C


def shifted_back(x):
    return C - np.sum(x) + np.float64(0.25)


def differenced(x):
    return np.diff(x, prepend=0) - np.diff(x, append=1.0)


def log_density(x):
    return scipy.stats.norm.logpdf(x, 1.0, 2.0)


def widened(x):
    return np.float64(x) - x.astype(np.float64)


def python_float(x):
    return float(x[0]) * 2.0 + float(np.sum(x))


def scalar_float(x):
    return float(x) * 2.0
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path: Path = tmp_path_factory.mktemp("tangent_dtypes")
    return user_module(path, "tangent_dtypes_module", MODULE)


POINTS = [np.array([0.3, -1.1, 0.7], np.float32), np.array([1.5, 0.2, -0.4], np.float16)]


@pytest.mark.parametrize(
    "name", ["shifted", "shifted_back", "differenced", "log_density", "widened"]
)
@pytest.mark.parametrize("x", POINTS, ids=lambda x: str(x.dtype))
def test_tangent_in_the_results_type(module: ModuleType, name: str, x: np.ndarray) -> None:
    if name == "log_density":
        pytest.importorskip("scipy")
    f = getattr(module, name)
    want = f(x)
    tangent = np.array([1.0, -0.5, 2.0], x.dtype)
    y, y_dot = srcad.jvp(f, (x,), (tangent,))
    assert y.dtype == want.dtype and y_dot.dtype == want.dtype
    expected = difference(f, (x.astype(np.float64),)) @ tangent.astype(np.float64)
    np.testing.assert_allclose(y_dot, expected, rtol=2e-3, atol=1e-5)
    _, pullback = srcad.vjp(f, x)
    (x_bar,) = pullback(np.ones_like(want))
    assert x_bar.dtype == x.dtype


@pytest.mark.parametrize("x", POINTS, ids=lambda x: str(x.dtype))
def test_cotangent_of_a_python_float(module: ModuleType, x: np.ndarray) -> None:
    gradient = srcad.grad(module.python_float)(x)
    assert gradient.dtype == x.dtype
    np.testing.assert_allclose(gradient, [3.0, 1.0, 1.0])
    scalar = x[0]
    for f in (module.widened, module.scalar_float):
        g = srcad.grad(f)(scalar)
        assert type(g) is type(scalar)

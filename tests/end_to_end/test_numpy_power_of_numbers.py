"""`np.power` and `np.mod` of Python numbers compute as NumPy does, not as Python's `**` and
`%`: `np.power(-2.0, 0.5)` is NaN where `(-2.0) ** 0.5` is complex, `np.mod(1.0, 0.0)` is
NaN where `1.0 % 0.0` raises. Their rules once computed with Python's operators, so `jvp`
and `rrule` returned a complex value for a real function, with no error. Every value
against NumPy's, every derivative against central differences, to third order."""

from __future__ import annotations

import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import srcad
from tests.conftest import difference, user_module

MODULE = """
import numpy as np


def root(x):
    return np.power(x, 0.5) + x


def power_of_both(x, p):
    return np.power(x, p) * 2.0


def cube_root(x):
    return np.power(x, 1.0 / 3.0)


def modulo(x, m):
    return np.mod(x, m) + x * x


def of_a_list(x):
    return np.sum(np.power([x, 2.0 * x], [0.5, 1.5]))
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path: Path = tmp_path_factory.mktemp("numpy_power_of_numbers")
    return user_module(path, "numpy_power_of_numbers_module", MODULE)


CASES = [
    ("root", (-2.0,)),
    ("root", (-0.5,)),
    ("power_of_both", (-2.0, 0.5)),
    ("power_of_both", (-8.0, 1.0 / 3.0)),
    ("cube_root", (-8.0,)),
    ("modulo", (1.0, 0.0)),
    ("of_a_list", (-1.0,)),
]


@pytest.mark.parametrize(("name", "args"), CASES)
def test_nan_where_numpy_gives_nan(module: ModuleType, name: str, args: tuple) -> None:
    f = getattr(module, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(f(*args))
        y, _ = srcad.rrule(f, *args)
        assert type(y) is not complex and np.isnan(y)
        y, y_dot = srcad.jvp(f, args, tuple(1.0 for _ in args))
        assert not np.iscomplexobj(y) and np.isnan(y)
        assert not np.iscomplexobj(y_dot)
        gradient = srcad.grad(f)(*args)
        assert not np.iscomplexobj(gradient)


DIFFERENTIABLE = [
    ("root", (2.0,)),
    ("power_of_both", (1.7, 0.5)),
    ("power_of_both", (0.6, -1.5)),
    ("cube_root", (8.0,)),
    ("modulo", (5.3, 2.0)),
    ("of_a_list", (1.3,)),
]


@pytest.mark.parametrize(("name", "args"), DIFFERENTIABLE)
def test_derivatives_where_real(module: ModuleType, name: str, args: tuple) -> None:
    f = getattr(module, name)
    assert srcad.value_and_grad(f)(*args)[0] == pytest.approx(f(*args), rel=1e-12)
    assert srcad.grad(f)(*args) == pytest.approx(difference(f, args, 0), rel=1e-6)
    _, y_dot = srcad.jvp(f, args, (1.0, *[0.0] * (len(args) - 1)))
    assert y_dot == pytest.approx(difference(f, args, 0), rel=1e-6)
    first = srcad.grad(f)
    second = srcad.grad(first)
    assert second(*args) == pytest.approx(difference(first, args, 0), rel=1e-5)
    third = srcad.grad(second)
    assert third(*args) == pytest.approx(difference(second, args, 0), rel=1e-4, abs=1e-6)


# A Python number beside an array or a NumPy scalar stays a Python number: NumPy's promotion
# reads it at the other operand's precision. The rules once made every Python number a
# float64 scalar, so `np.power(float32_array, 2.0)` came back float64 (values off NumPy's in
# the 8th digit, its tangent float64 too), with no error.
PROMOTING = """
import numpy as np


def square(x):
    return np.power(x, 2.0) * 3


def of_base(x):
    return np.power(2, x) - x


def int_power(x):
    return np.power(x, -1) + np.power(x, 3)


def remainder(x):
    return np.mod(x, 2) + np.mod(1.5, x)


def summed(x):
    return np.sum(np.power(x, 1.5) * np.mod(x, 0.75))
"""


@pytest.fixture(scope="module")
def promoting(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path: Path = tmp_path_factory.mktemp("numpy_power_promoting")
    return user_module(path, "numpy_power_promoting_module", PROMOTING)


POINTS = [
    np.array([0.7, 1.3, 2.1], np.float32),
    np.float32(1.6),
    np.array([1.1, 0.4], np.float16),
    np.array([[0.9, 1.7]]),
]


@pytest.mark.parametrize("name", ["square", "of_base", "int_power", "remainder", "summed"])
@pytest.mark.parametrize("x", POINTS, ids=lambda x: f"{type(x).__name__}-{x.dtype}")
def test_precision_of_the_array(promoting: ModuleType, name: str, x: np.ndarray) -> None:
    f = getattr(promoting, name)
    want = f(x)
    y, pullback = srcad.vjp(f, x)
    assert type(y) is type(want) and y.dtype == want.dtype
    np.testing.assert_array_equal(y, want)
    y_bar = np.full(np.shape(want), 0.5, want.dtype)
    (x_bar,) = pullback(y_bar)
    assert x_bar.dtype == x.dtype and np.shape(x_bar) == np.shape(x)
    wide = np.asarray(x, np.float64)
    jacobian = difference(f, (wide,), 0).reshape(np.size(want), np.size(x))
    rtol = 1e-6 if x.dtype == np.float64 else 4e-3
    expected = (np.ravel(y_bar) @ jacobian).reshape(np.shape(x))
    np.testing.assert_allclose(x_bar, expected, rtol=rtol)
    tangent = np.ones_like(x)
    y2, y_dot = srcad.jvp(f, (x,), (tangent,))
    assert y2.dtype == want.dtype and y_dot.dtype == want.dtype
    np.testing.assert_allclose(
        y_dot, (jacobian @ np.ravel(tangent)).reshape(np.shape(want)), rtol=rtol
    )


def test_second_derivative_in_float32(promoting: ModuleType) -> None:
    x = np.array([0.7, 1.3, 2.1], np.float32)
    hessian = srcad.hessian(promoting.summed)(x)
    wide = np.asarray(x, np.float64)
    expected = difference(srcad.grad(promoting.summed), (wide,), 0)
    np.testing.assert_allclose(hessian, expected, rtol=1e-3, atol=1e-4)

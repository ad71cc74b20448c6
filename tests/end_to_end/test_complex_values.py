"""Complex values in code srcad specialises for float arguments: they have complex kinds
(`srcad.kinds`), which take only the inline derivatives stated for complex operands (with
`conj`: ChainRules' convention, the cotangent of a complex value is conj-linear), else the
general rules (`tests/end_to_end/test_complex_kinds.py` checks the specialised path).
Holomorphic steps and not (`abs`, `np.conj`, `.real`, `.imag`), complex locals of real
arguments and complex arguments, in both modes and to second order, against central
differences (for a complex argument, in its real and its imaginary direction)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference


def complex_loop(x):
    z = x + 0.5j
    for _ in range(6):
        z = z * 0.9 + 0.1j * x
    return abs(z)


def conjugated(x):
    z = np.exp(1j * x) * (x + 2.0)
    return (z * np.conj(z)).real + np.conj(z).imag


def parts(x):
    z = x + 1j * (x * x)
    s = 0.0
    for k in range(1, 4):
        w = z**k
        s = s + w.real * x - w.imag / k
    return s


def absolute_values(x):
    s = 0.0
    for k in range(3):
        s = s + np.abs(x * (1.0 + 1j * k)) ** 2 + abs(x - 1j * k)
    return s


def mixed_with_floats(x):
    z = 1j * x
    y = x * 2.0 + (z * z).real
    return y * y + np.real(z / (1.0 + x * x)) + np.imag(z) * y


FUNCTIONS = [complex_loop, conjugated, parts, absolute_values, mixed_with_floats]


@pytest.mark.parametrize("x", [0.4, -1.3])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_complex_locals_of_a_float(f: Any, x: float) -> None:
    gradient = srcad.grad(f)
    close(gradient(x), difference(f, (x,)))
    close(gradient(x), difference(f, (x,)))  # through the entry's branch
    close(srcad.jvp(f, (x,), (1.0,))[1], difference(f, (x,)))
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


def of_a_complex(z):
    return abs(z) ** 2 + (z * z).real


def exponential(z):
    return np.abs(np.exp(z)) + np.conj(z).imag * 3.0


def product_of_parts(z):
    s = 0.0
    for k in range(1, 4):
        s = s + (z**k).imag * z.real
    return s


def _derivatives(f: Any, z: complex, step: float = 1e-6) -> tuple[float, float]:
    """The derivatives of real-valued `f` in `z`'s real and imaginary directions."""
    along_real = (f(z + step) - f(z - step)) / (2 * step)
    along_imaginary = (f(z + 1j * step) - f(z - 1j * step)) / (2 * step)
    return along_real, along_imaginary


@pytest.mark.parametrize("z", [0.6 - 0.8j, -1.1 + 0.3j])
@pytest.mark.parametrize("f", [of_a_complex, exponential, product_of_parts],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_complex_arguments(f: Any, z: complex) -> None:
    """The gradient of a real function of a complex `z` is `df/dx + i df/dy` (the
    conj-linear cotangent); the tangent along `dz` is `Re(conj(gradient) * dz)`."""
    along_real, along_imaginary = _derivatives(f, z)
    gradient = srcad.grad(f)(z)
    close(gradient.real, along_real)
    close(gradient.imag, along_imaginary)
    for dz in (1.0 + 0.0j, 0.3 - 2.0j):
        step = 1e-6
        expected = (f(z + step * dz) - f(z - step * dz)) / (2 * step)
        close(np.real(srcad.jvp(f, (z,), (dz,))[1]), expected)


def of_complex_array(z, w):
    return np.sum(np.abs(z) ** 2 * w) + (z[0] * z[1]).imag


def structured_of_complex(z, w):
    return {"energy": np.abs(z) ** 2 * w, "parts": (z.real * w, float(w))}


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f", [of_a_complex, exponential, product_of_parts],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_jacobian_of_a_real_function_of_a_complex_argument(f: Any, mode: str) -> None:
    """Both modes give the derivative along the argument's real direction, `df/dx`, the
    real part of the gradient: reverse mode once kept the gradient's `1j df/dy`, so the two
    modes gave different Jacobians of one function."""
    z = 0.6 - 0.8j
    along_real, _ = _derivatives(f, z)
    jacobian = srcad.jacobian(f, mode=mode)(z)
    assert not np.iscomplexobj(jacobian)
    close(jacobian, along_real)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_real_results_of_a_complex_array(mode: str) -> None:
    """An array and a structured result, real, of a complex array: each column is the
    derivative along one element's real direction, by central differences."""
    z = np.array([0.6 - 0.8j, -1.1 + 0.3j])
    step = 1e-6
    for f in (of_complex_array, structured_of_complex):
        jacobian = srcad.jacobian(f, mode=mode)(z, 1.5)
        srcad.tree_map(lambda block: np.testing.assert_(not np.iscomplexobj(block)), jacobian)
        for k in range(2):
            e = np.zeros(2)
            e[k] = step
            above, below = f(z + e, 1.5), f(z - e, 1.5)
            column = srcad.tree_map(lambda a, b: (np.asarray(a) - b) / (2 * step), above, below)
            if f is of_complex_array:
                close(jacobian[k], column)
                continue
            close(jacobian["energy"][:, k], column["energy"])
            close(jacobian["parts"][0][:, k], column["parts"][0])
            assert not np.any(jacobian["parts"][1])  # float(w) does not move with z

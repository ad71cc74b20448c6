"""Soundness review (session 32) of the mechanisms merged in session 31-32: each finding as
a class, its values checked against central differences."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import close, user_module


def _gradients(f: Any, args: tuple[float, ...], step: float = 1e-6) -> np.ndarray:
    """Central differences of a function of floats, by each argument."""
    out = []
    for i in range(len(args)):
        up, down = list(args), list(args)
        up[i] += step
        down[i] -= step
        out.append((f(*up) - f(*down)) / (2 * step))
    return np.array(out)


def _check(f: Any, args: tuple[float, ...], second: bool = True) -> None:
    """grad, jvp and (where `second`) the Hessian of `f` against central differences."""
    want = _gradients(f, args)
    wrt = tuple(range(len(args)))
    close(srcad.grad(f, wrt=wrt)(*args), want)
    direction = tuple(float(i + 1) for i in range(len(args)))
    close(srcad.jvp(f, args, direction)[1], want @ np.array(direction))
    if second:
        rows = [
            _gradients(lambda *a, i=i: _gradients(f, a, 1e-5)[i], args, 1e-4)
            for i in range(len(args))
        ]
        np.testing.assert_allclose(
            np.array(srcad.hessian(f, wrt=wrt)(*args), float).reshape(len(args), -1),
            np.array(rows),
            rtol=1e-4,
            atol=1e-4,
        )


# -- a helper written into a loop, with a default that is a negative or non-finite number --

DEFAULTS = """
import math

def shifted(r, c={default}, n=-2):
    if r > c:
        return r * r + n
    return r * 0.5

def f(x, a):
    s = 0.0
    for i in range(3):
        s += shifted(x * a - i) * a
    return s
"""


@pytest.mark.parametrize(
    "default", ["-1.5", "-0.0", "float('-inf')", "float('inf')", "float('nan')", "-3"]
)
def test_helper_defaults_negative_and_not_finite(tmp_path: Path, default: str) -> None:
    """A default of a helper written into its caller's loop is written as Python reads its
    text (`-1.5` a negation); NaN, which has none, leaves the helper called. (The code
    emitted for a negative default did not parse back: an internal error.)"""
    name = "review_defaults_" + str(abs(hash(default)))
    module = user_module(tmp_path, name, DEFAULTS.format(default=default))
    _check(module.f, (1.3, 2.1))

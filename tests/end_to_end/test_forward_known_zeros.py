"""Issue 19: a forward rule does not multiply a tangent it knows is zero. A name bound,
in the function's straight-line code, to a value that does not vary (`p = 0.0` before a
loop `Unroll` writes out) adds no term to the tangents that read it until it is bound
again (`ForwardAD.zero_now`), and its zero is left out where nothing reads it
(`_overwritten_zeros_dropped`). Every case against central differences, with float
tangents (the entry's branch), a zero among them, NumPy scalars (the general path), and
through `check_frule`; values exactly the primal's."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from srcad.tangents import ZeroTangent
from srcad.testing import check_frule
from tests.conftest import user_module

MODULE = """
import math

COEFFICIENTS = (0.5, -1.25, 2.0, 0.75)


def horner(x, y):
    p = 0.0
    for c in COEFFICIENTS:
        p = p * x + c
    return p * y


def weighted(x, y):
    total = 0.0
    for w in (1.5, -0.5, 2.0):
        total = total * y + w * x
    return math.sin(total)


def copied(x, y):
    p = 0.0
    q = p
    r = q * x + p * y
    return r + x * y


def all_terms_zero(x, y):
    p = 0.0
    z = p * 3.0
    for _ in range(4):
        z = z + x * y
    return z


def bound_again(x, y):
    p = 0.0
    p = p * x + y
    p = p * x + y
    return p


def branch_between(x, y):
    p = 0.0
    if x > 0.0:
        p = x
    return p * x + y


def read_by_a_nested_function(x, y):
    p = 0.0

    def scaled(t):
        return p * t

    p = p * x + y
    return scaled(x) + p
"""

NAMES = (
    "horner",
    "weighted",
    "copied",
    "all_terms_zero",
    "bound_again",
    "branch_between",
    "read_by_a_nested_function",
)
TANGENTS = [(0.7, -0.4), (ZeroTangent(), 1.3), (0.9, ZeroTangent()), (np.float64(0.7), -0.4)]


@pytest.fixture
def module(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"forward_known_zeros_{abs(hash(str(tmp_path)))}", MODULE)


def _dense(tangents: tuple[Any, ...]) -> list[float]:
    return [0.0 if isinstance(t, ZeroTangent) else float(t) for t in tangents]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("tangents", TANGENTS, ids=["floats", "x zero", "y zero", "numpy"])
@pytest.mark.parametrize("args", [(0.8, -1.1), (-1.3, 0.6)], ids=["positive x", "negative x"])
def test_known_zeros_leave_the_tangents_right(
    module: Any, name: str, tangents: tuple[Any, ...], args: tuple[float, float]
) -> None:
    func = getattr(module, name)
    check_frule(func, *args, tangents=tangents)
    h = 1e-6
    dense = _dense(tangents)
    for _ in range(2):  # the general path, then the entry's branch
        value, tangent = srcad.jvp(func, args, tangents)
        assert value == func(*args) and type(value) is type(func(*args))
        plus = func(*(a + h * t for a, t in zip(args, dense, strict=True)))
        minus = func(*(a - h * t for a, t in zip(args, dense, strict=True)))
        np.testing.assert_allclose(tangent, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-9)
        if not any(isinstance(t, np.float64) for t in tangents):
            assert type(tangent) is float


def _text(module: Any, name: str) -> str:
    func = getattr(module, name)
    return COMPILER.compiled(func, None, Request.frule(signature((0.8, -1.1)))).source


def test_the_first_step_does_not_multiply_the_zero(module: Any) -> None:
    text = _text(module, "horner")
    assert "p_dot = p * x_dot\n" in text and "ZERO" not in text, text
    text = _text(module, "bound_again")  # `p * x + y`: p's term left out, the zero too
    assert "p_dot = p * x_dot + y_dot\n" in text and "ZERO" not in text, text


def test_a_zero_read_later_is_kept(module: Any) -> None:
    # a loop adds to `z`, whose zero it reads: the float zero where tangents are floats
    assert "z_dot = 0.0 if type" in _text(module, "all_terms_zero")
    # after a branch, `p` may vary: its tangent is read, so its zero is bound
    assert "p_dot = 0.0 if type" in _text(module, "branch_between")
    # a nested function reads `p_dot` when called: the zero stays
    assert "p_dot = 0.0 if type" in _text(module, "read_by_a_nested_function")

"""Issue 19: a forward rule does not multiply a tangent it knows is zero. A name bound,
in the function's straight-line code, to a value that does not vary (`p = 0.0` before a
loop `Unroll` writes out) adds no term to the tangents that read it until it is bound
again (`ForwardAD.zero_now`), and its zero is left out where nothing reads it
(`forward_tidy.overwritten_zeros_dropped`). Every case against central differences, with float
tangents (the entry's branch), a zero among them, NumPy scalars (the general path), and
through `check_frule`; values exactly the primal's."""

from __future__ import annotations

import math
import re
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
    text = _text(module, "horner")  # (`p` is `0.0` there: `common_values` writes it)
    assert "p_dot = 0.0 * x_dot\n" in text and "ZERO" not in text, text
    text = _text(module, "bound_again")  # `p * x + y`: p's term left out, the zero too
    assert "p_dot = 0.0 * x_dot + y_dot\n" in text and "ZERO" not in text, text


def test_a_zero_read_later_is_kept(module: Any) -> None:
    # a loop adds to `z`, whose zero it reads: the float zero where tangents are floats
    assert "z_dot = 0.0 if type" in _text(module, "all_terms_zero")
    # after a branch, `p` may vary: its tangent is read, so its zero is bound
    assert "p_dot = 0.0 if type" in _text(module, "branch_between")
    # a nested function reads `p_dot` when called: the zero stays
    assert "p_dot = 0.0 if type" in _text(module, "read_by_a_nested_function")


# -- loop-invariant float arithmetic, computed before a `while` loop (`invariants.py`) ------

LOOPS = """
import math

TOLERANCE = 1e-12


def newton(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def module_tolerance(a, b):
    x = a
    while abs(x * x - a) > TOLERANCE * a + b * b:
        x = 0.5 * (x + a / x)
    return x * b


def bound_in_the_loop(a):
    x, s = a, a
    while abs(x * x - a) > 1e-12 * s:
        x = 0.5 * (x + a / x)
        s = s * 1.0
    return x


def divided(a):
    x = a
    while abs(x * x - a) > a / 1e12:
        x = 0.5 * (x + a / x)
    return x


def after_a_branch(a):
    x, n = a, 0
    while True:
        n = n + 1
        if n > 100:
            break
        if abs(x * x - a) <= 1e-12 * a:
            break
        x = 0.5 * (x + a / x)
    return x
"""


@pytest.fixture
def loops(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"forward_invariants_{abs(hash(str(tmp_path)))}", LOOPS)


LOOP_ARGUMENTS = {
    "newton": (2.0,),
    "module_tolerance": (3.0, 1e-4),
    "bound_in_the_loop": (2.0,),
    "divided": (5.0,),
    "after_a_branch": (2.0,),
}


@pytest.mark.parametrize("name", sorted(LOOP_ARGUMENTS))
def test_invariants_before_the_loop_leave_values_and_tangents_right(loops: Any, name: str) -> None:
    func, args = getattr(loops, name), LOOP_ARGUMENTS[name]
    tangents = tuple(0.7 - 0.2 * i for i in range(len(args)))
    check_frule(func, *args, tangents=tangents)
    h = 1e-6
    for _ in range(2):
        value, tangent = srcad.jvp(func, args, tangents)
        assert value == func(*args)
        plus = func(*(a + h * t for a, t in zip(args, tangents, strict=True)))
        minus = func(*(a - h * t for a, t in zip(args, tangents, strict=True)))
        np.testing.assert_allclose(tangent, (plus - minus) / (2 * h), rtol=1e-6)
    for edge in (np.inf, np.nan, 0.0, -1.0):  # values bit for bit, NaN where the primal's
        edge_args = (edge, *args[1:])
        with np.errstate(all="ignore"):
            try:
                expected = func(*edge_args)
            except ZeroDivisionError:
                with pytest.raises(ZeroDivisionError):
                    srcad.jvp(func, edge_args, tangents)
                continue
            value = srcad.jvp(func, edge_args, tangents)[0]
        assert value == expected or (math.isnan(value) and math.isnan(expected))


def test_only_what_every_pass_computes_alike_goes_before_the_loop(loops: Any) -> None:
    def text(name: str) -> str:
        func = getattr(loops, name)
        request = Request.frule(signature(LOOP_ARGUMENTS[name]))
        return COMPILER.compiled(func, None, request).source

    assert "    n1em12_times_a = 1e-12 * a\n    while True:" in text("newton")
    assert "> n1em12_times_a" in text("newton")
    # (`b * b` is a float too: both products go before the loop)
    assert re.search(r"= TOLERANCE(_2)? \* a\n", text("module_tolerance"))
    assert "1e-12 * s" in text("bound_in_the_loop").split("while True:")[1]
    assert "a / 1000000000000.0" in text("divided").split("while True:")[1]  # a division may raise
    assert "1e-12 * a" in text("after_a_branch").split("while True:")[1]  # after a branch

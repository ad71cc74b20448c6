"""A forward rule's tangent written as arithmetic reads the value of a pure call
(`math.cos(x)` in `sin(x)`'s tangent) that a later statement of the primal computes,
moved before the tangent where that changes nothing (`PrimalCallsReused._later`), and
computes it anew where something between binds what the call reads, mentions the name
it binds, or may have an effect. Every case against central differences, in both modes
and to second order."""

from __future__ import annotations

import re
import types
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import user_module

MODULE = """
import math


def effect(x):  # a call of another function: it may have an effect
    return x * 0.5


def hoisted(x, y):
    s = math.sin(x)
    u = s * y + 2.0
    c = math.cos(x)
    return u * c


def argument_rebound(x, y):
    s = math.sin(x)
    x = x * y
    c = math.cos(x)
    return s * c


def name_rebound(x, y):
    s = math.sin(x)
    c = 2.0 * y
    w = s * c
    c = math.cos(x)
    return w + c * y


def effect_between(x, y):
    s = math.sin(x)
    v = effect(y)
    c = math.cos(x)
    return s * c + v


def in_a_loop(x, y):
    total = 0.0
    for _ in range(3):
        s = math.sin(x)
        total = total + s * y
        c = math.cos(x)
        x = x * c + 0.1
    return total


def twice(x, y):
    a = math.sin(x) * y
    b = math.sin(x) + y
    return a * b


def twice_rebound(x, y):
    a = math.sin(x)
    x = x * y
    b = math.sin(x)
    return a * b


def twice_in_a_loop(x, y):
    e = x
    while abs(e - y * math.sin(e) - x) > 1e-12:
        e = e - (e - y * math.sin(e) - x) / (1.0 - y * math.cos(e))
    return e


def twice_in_a_branch(x, y):
    a = math.sin(x)
    if y > 0.0:
        a = a * math.sin(x)
    return a * y
"""

CASES = ["hoisted", "argument_rebound", "name_rebound", "effect_between", "in_a_loop",
         "twice", "twice_rebound", "twice_in_a_loop", "twice_in_a_branch"]  # fmt: skip
MOVED = {"hoisted": True, "argument_rebound": False, "name_rebound": False,
         "effect_between": False, "in_a_loop": True}  # fmt: skip
# How many times the primal's repeated `math.sin` is called in the forward rule.
SINES = {"twice": 1, "twice_rebound": 2, "twice_in_a_loop": 1, "twice_in_a_branch": 2}
POINTS = [(0.7, -0.4), (-1.3, 0.9)]


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_reuse")
    return user_module(path, "forward_reuse_module", MODULE)


def _difference(f: object, args: tuple[float, float], tangent: tuple[float, float]) -> float:
    h = 1e-6
    plus = f(*(a + h * t for a, t in zip(args, tangent, strict=True)))  # type: ignore[operator]
    minus = f(*(a - h * t for a, t in zip(args, tangent, strict=True)))  # type: ignore[operator]
    return float((plus - minus) / (2 * h))


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("name", CASES)
def test_reused_calls_against_differences(
    module: types.ModuleType, name: str, point: tuple[float, float]
) -> None:
    f = getattr(module, name)
    if name == "twice_in_a_loop":
        point = (abs(point[0]), 0.3)  # (Kepler's equation: an eccentricity below 1)
    for tangent in [(1.0, 0.0), (0.0, 1.0), (0.3, -0.8)]:
        y, y_dot = srcad.jvp(f, point, tangent)
        assert y == f(*point)  # the primal's value, bit for bit
        np.testing.assert_allclose(y_dot, _difference(f, point, tangent), rtol=1e-6, atol=1e-8)
    gradient = srcad.grad(f, wrt=(0, 1))
    hessian = np.array(srcad.hessian(f, wrt=(0, 1))(*point), dtype=float)
    for column, direction in enumerate([(1.0, 0.0), (0.0, 1.0)]):
        h = 1e-5
        plus = np.array(gradient(*(a + h * d for a, d in zip(point, direction, strict=True))))
        minus = np.array(gradient(*(a - h * d for a, d in zip(point, direction, strict=True))))
        np.testing.assert_allclose(hessian[:, column], (plus - minus) / (2 * h), atol=1e-5)


@pytest.mark.parametrize("name", sorted(MOVED))
def test_a_call_is_moved_only_where_nothing_changes(module: types.ModuleType, name: str) -> None:
    f = getattr(module, name)
    text = COMPILER.compiled(f, None, Request.frule(signature(POINTS[0]))).source
    repeated = re.search(r"(?<![.\w])cos\(x\)", text) is not None  # in `sin(x)`'s tangent
    assert repeated is not MOVED[name], text
    if MOVED[name]:
        assert text.index("c = math.cos(x)") < text.index("s = math.sin(x)"), text


@pytest.mark.parametrize("name", sorted(SINES))
def test_a_primal_call_repeated_reads_the_value_computed(
    module: types.ModuleType, name: str
) -> None:
    """A statement of the primal calling `math.sin(x)` again, where nothing bound `x`
    since in the same block, reads the value the first call gave (`PrimalCallsReused`)."""
    f = getattr(module, name)
    text = COMPILER.compiled(f, None, Request.frule(signature(POINTS[0]))).source
    assert len(re.findall(r"math\.sin\(", text)) == SINES[name], text

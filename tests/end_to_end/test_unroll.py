"""Loops over a short module constant whose length its guards prove (a tuple of floats, a
tuple or list of parameters) are written out (`passes/transforms/unroll.py`): the
derivative is straight-line code, with no tape. Each against central differences, in
both modes and to second order; and after the container changes between calls (the
guards send the call to code compiled for the new structure)."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import difference, user_module

MODULE = """
import math

TUPLE = (0.05, -0.3, 0.8, -1.1, 0.6, 0.2)
LIST = [0.05, -0.3, 0.8, -1.1]
PAIRS = [(0.5, 1.5), (-0.25, 2.0), (1.0, -0.5)]
NESTED = ((0.5, 1.5), (-0.25, 2.0))
SHORT = (0.7, -1.3)
EMPTY = []
LONG = [0.01 * k for k in range(20)]


def horner_tuple(x):
    p = 0.0
    for c in TUPLE:
        p = p * x + c
    return math.sin(p) + math.exp(-p * p)


def horner_list(x):
    p = 0.0
    for c in LIST:
        p = p * x + c
    return p * math.cos(x)


def pairs(x):
    total = 0.0
    for a, b in PAIRS:
        total = total + a * math.sin(b * x)
    return total


def tuple_pairs(x):
    total = x
    for a, b in NESTED:
        total = a * total * total + b * math.tanh(total)
    return total


def last(x):
    y = x
    for c in LIST:
        y = y * c + x
    return y * c


def nested(x):
    total = 0.0
    for a in SHORT:
        for b in LIST:
            total = total + a * b * math.cos(x * b + a)
    return total


def branches(x):
    for c in LIST:
        if c > 0.0:
            x = x * c + math.sin(x)
        else:
            x = x - c * x * x
    return x


def flagged(x):
    for c in LIST:
        positive = c > 0.0
        if positive:
            x = x * c + math.sin(x)
        else:
            x = x - c * x * x
    return x


def display(x, y):
    p = 0.0
    for c in (0.5, -0.3, y, 0.8):
        p = p * x + c
    return p * math.sin(y)


def listed(x, y):
    for a, b in [(0.5, y), (y, -1.5)]:
        x = a * math.sin(x) + b * x
    return x


def ranged(x):
    for k in range(4):
        x = x * (k + 1) * 0.25 + math.sin(x)
    return x + k


def steps(x):
    for _ in range(3):
        x = x * 0.5 + math.sin(x)
    return x


def rebound(x, y):
    for c in (0.5, y):
        y = y * c + math.sin(x)
    return y


def empty(x):
    c = 2.0
    for c in EMPTY:
        x = x * c
    return x * c


def long(x):
    for c in LONG:
        x = x * c + math.sin(x)
    return x


def early(x):
    for c in LIST:
        if x > 10.0:
            break
        x = x * c + math.sin(x)
    return x


def make_horner(coefficients):
    def horner(x):
        p = 0.0
        for c in coefficients:
            p = p * x + c
        return math.exp(p)

    return horner
"""

LOOP = re.compile(r"^ *for ", re.MULTILINE)  # a loop statement in emitted code
WRITTEN_OUT = ["horner_tuple", "horner_list", "pairs", "tuple_pairs", "last", "nested"]
WRITTEN_OUT += ["branches", "flagged", "display", "listed"]
TWO = ["display", "listed", "rebound"]  # of (x, y)
LEFT = ["long", "early", "empty", "rebound", "ranged", "steps"]  # (an empty list has no structure)


@pytest.fixture
def module(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"unroll_{abs(hash(str(tmp_path)))}", MODULE)


def check(func: Any, x: float = 0.4) -> None:
    """grad, jvp and the second derivative agree with central differences (of a function
    of two floats, with respect to both)."""
    if func.__name__ in TWO:
        args = (x, -0.7)
        for position in (0, 1):
            tangents = [srcad.ZeroTangent()] * 2
            tangents[position] = 1.0
            expected = difference(func, args, position)
            _, tangent = srcad.jvp(func, args, tuple(tangents))
            np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)
            gradient = srcad.grad(func, wrt=position)(*args)
            np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)
            second = difference(srcad.grad(func, wrt=position), args, position)
            hessian = srcad.hessian(func, wrt=position)(*args)
            np.testing.assert_allclose(hessian, second, rtol=1e-5, atol=1e-7)
        return
    expected = difference(func, (x,))
    np.testing.assert_allclose(srcad.grad(func)(x), expected, rtol=1e-6, atol=1e-8)
    _, tangent = srcad.jvp(func, (x,), (1.0,))
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)
    second = difference(srcad.grad(func), (x,))
    np.testing.assert_allclose(srcad.hessian(func)(x), second, rtol=1e-5, atol=1e-7)


def sources(func: Any) -> str:
    kinds = signature((0.4, -0.7) if func.__name__ in TWO else (0.4,))
    reverse = COMPILER.compiled(func, None, Request.grad(kinds)).source
    return reverse + COMPILER.sources(func, None, Request.frule(kinds))


@pytest.mark.parametrize("name", WRITTEN_OUT)
def test_a_loop_over_a_short_constant_is_written_out_and_right(module: Any, name: str) -> None:
    func = getattr(module, name)
    check(func)
    text = sources(func)
    assert not LOOP.search(text) and "tape" not in text, text


@pytest.mark.parametrize("name", LEFT)
def test_a_long_loop_or_one_that_breaks_is_left_and_right(module: Any, name: str) -> None:
    func = getattr(module, name)
    check(func)
    assert LOOP.search(sources(func))


def test_a_closure_cell_is_written_out(module: Any) -> None:
    horner = module.make_horner((0.3, -0.2, 0.5))
    check(horner)
    assert not LOOP.search(sources(horner))
    check(module.make_horner([0.3, -0.2, 0.5, 0.1]))


CHANGES = [
    ("horner_list", lambda m: m.LIST.append(0.25)),
    ("horner_list", lambda m: m.LIST.__setitem__(1, 2)),
    ("horner_list", lambda m: m.LIST.__setitem__(0, 0.9)),
    ("horner_list", lambda m: m.LIST.pop()),
    ("horner_list", lambda m: m.LIST.clear()),
    ("horner_list", lambda m: m.LIST.extend([0.1] * 20)),
    ("horner_tuple", lambda m: setattr(m, "TUPLE", (0.5, 0.25))),
    ("horner_tuple", lambda m: setattr(m, "TUPLE", (0.5, 2, 0.25))),
    ("horner_tuple", lambda m: setattr(m, "TUPLE", [0.5, 0.25, 1.5])),
    ("pairs", lambda m: m.PAIRS.append((2.0, 0.5))),
    ("pairs", lambda m: m.PAIRS.__setitem__(0, (1.0, 3.0))),
    ("nested", lambda m: m.LIST.insert(0, -0.5)),
    ("empty", lambda m: m.EMPTY.append(3.0)),
]


@pytest.mark.parametrize(("name", "change"), CHANGES)
def test_a_changed_container_gives_the_right_numbers(module: Any, name: str, change: Any) -> None:
    func = getattr(module, name)
    srcad.grad(func)(0.4)  # compiled for the container as it was
    srcad.jvp(func, (0.4,), (1.0,))
    change(module)
    check(func)


def test_an_emptied_list_leaves_the_loop_variable_unbound(module: Any) -> None:
    srcad.grad(module.last)(0.4)
    module.LIST.clear()
    with pytest.raises(UnboundLocalError):
        module.last(0.4)
    with pytest.raises(UnboundLocalError):
        srcad.grad(module.last)(0.4)
    with pytest.raises(UnboundLocalError):
        srcad.jvp(module.last, (0.4,), (1.0,))

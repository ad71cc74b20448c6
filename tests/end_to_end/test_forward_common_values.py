"""A forward rule reads arithmetic computed again from the same values from the name the
first computation bound (`passes/transforms/common_values.py`): Kepler's residual, in its
test and its step; the same numbers, against central differences, in `jvp`, the forward
Jacobian and second derivatives; not across a binding of an operand, a loop's passes,
or out of a branch; integers and float32."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp
from tests.conftest import close, difference, user_module

MODULE = """
import math

import numpy as np


def kepler(M, e):
    E = M
    while abs(E - e * math.sin(E) - M) > 1e-12:
        E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    return E


def twice(x, y):
    a = x * y + 1.0
    b = x * y + 1.0
    return a * b + math.sin(x * y + 1.0)


def rebound(x, y):
    a = x * y
    x = x + 1.0
    b = x * y
    return a - b


def in_branch(x, y):
    if x > 0.0:
        a = x * y
    else:
        a = x - y
    b = x * y
    return a * b


def passes(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * x
        x = x * 0.5
        s = s + x * x
    return s


def constants(x):
    c = 0.5
    y = x * c
    c = -2.0
    z = y * c + c ** 2
    return z * c


def constant_in_loop(x, n):
    c = 1.0
    s = 0.0
    for i in range(n):
        s = s + c * x
        c = c * 0.5
    return s + c * x


def shadowed(x):
    n = x * 3.0
    t = n
    return sum([t * n for n in (1.0, 2.0)]) + t


def integers(x, n):
    k = n * n + 1
    m = n * n + 1
    return x ** k + x * m
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_common_values")
    return user_module(path, "forward_common_values_module", MODULE)


def _jvp(f: Any, args: tuple[Any, ...]) -> None:
    for position, x in enumerate(args):
        if isinstance(x, int):
            continue
        direction = type(x)(0.7)
        tangents = tuple(direction if i == position else srcad.ZeroTangent()
                         for i in range(len(args)))  # fmt: skip
        value, tangent = srcad.jvp(f, args, tangents)
        assert value == f(*args)
        close(tangent, finite_difference_jvp(f, args, tangents))


def test_kepler_computes_its_residual_once(module: types.ModuleType) -> None:
    args = (0.9, 0.3)
    source = srcad.source(module.kepler, mode="forward", args=args)
    assert len(re.findall(r"- M\b", source)) == 1, source
    _jvp(module.kepler, args)
    for position in (0, 1):
        close(srcad.hessian(module.kepler, wrt=position)(*args),
              difference(srcad.grad(module.kepler, wrt=position), args, position))  # fmt: skip


@pytest.mark.parametrize("name", ["twice", "rebound", "in_branch"])
@pytest.mark.parametrize("kind", [float, np.float64, np.float32])
def test_straight_line_code(module: types.ModuleType, name: str, kind: Any) -> None:
    f = getattr(module, name)
    args = (kind(0.8), kind(-1.3))
    if kind is float:
        source = srcad.source(f, mode="forward", args=args)
        count = {"twice": 1, "rebound": 2, "in_branch": 2}[name]
        body = source.split("\n", 3)[3]
        assert len(re.findall(r"\bx \* y\b", body)) == count, source
    _jvp(f, args)
    if kind is float:
        jacobian = srcad.jacobian(f, wrt=(0, 1), mode="forward")(*args)
        close(jacobian, [difference(f, args, p) for p in (0, 1)])


def test_a_loops_passes_compute_anew(module: types.ModuleType) -> None:
    for n in (0, 1, 4):
        _jvp(module.passes, (0.7, n))
    close(srcad.hessian(module.passes)(0.7, 4), difference(srcad.grad(module.passes), (0.7, 4)))


def test_integers(module: types.ModuleType) -> None:
    _jvp(module.integers, (1.1, 2))


def test_constants_are_written_where_they_are_read(module: types.ModuleType) -> None:
    source = srcad.source(module.constants, mode="forward", args=(0.7,))
    assert "c = " not in source and "(-2.0) ** 2" in source, source
    _jvp(module.constants, (0.7,))
    close(srcad.hessian(module.constants)(0.7), difference(srcad.grad(module.constants), (0.7,)))
    for n in (0, 1, 3):
        _jvp(module.constant_in_loop, (0.7, n))


def test_a_comprehensions_own_names(module: types.ModuleType) -> None:
    """A copy's name read inside a comprehension whose variable has the name it copies
    is not read through (it would read the comprehension's)."""
    _jvp(module.shadowed, (0.7,))

"""Issue 19: `jacobian(f, mode="forward")` of a vector of fewer than `batched.FEWEST`
elements, through the forward rule written for that many directions, the primal computed
once (`passes/transforms/directions.py`), and through one call per direction where that
rule does not apply. Every case against central differences and reverse mode."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.batched import FEWEST
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import close, difference, sample, user_module

MODULE = """
import math
import numpy as np


def chain(v):
    a = 0.0
    b = 1.0
    for i in range(len(v)):
        a = a + math.sin(v[i]) * b
        b = b * 0.5 + v[i] * a
    return np.array([a, b])


def lorenz(state):
    x = state[0]
    y = state[1]
    z = state[2]
    for _ in range(20):
        dx = 10.0 * (y - x)
        dy = x * (28.0 - z) - y
        dz = x * y - 2.5 * z
        x = x + 0.01 * dx
        y = y + 0.01 * dy
        z = z + 0.01 * dz
    return np.array([x, y, z])


def newton_roots(v):
    total = 0.0
    for i in range(len(v)):
        a = v[i] * v[i] + 1.0
        x = a
        while abs(x * x - a) > 1e-12 * a:
            x = 0.5 * (x + a / x)
        if x > 1.2:
            total = total + x * v[0]
        else:
            total = total - math.exp(-x)
    return total


def matrix_entries(m):
    return np.array([m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0], m[0, 1] + math.tanh(m[1, 0])])


def rebuilt(v):
    w = v
    for _ in range(3):
        w = np.array([w[1] * w[0], w[0] - 0.5 * w[1]])
    return w


def names_taken(v):
    unused = v[0] * 2.0
    w = np.array([unused, v[1] * unused])
    return np.array([w[0] * unused, w[1]])


def colliding(v):
    a = v[0] * v[1]
    a_dot_0 = v[1] + 3.0
    return np.array([a * a_dot_0, v[1]])


def constant_branch(v):
    if v[0] > 0.0:
        return np.array([v[0] * v[1], v[1]])
    return np.array([1.0, 2.0])


def elementwise(v):
    return np.sin(v) * v
"""

# (name, size, whether the rule for `size` directions applies)
CASES = [
    ("chain", 2, True),
    ("chain", FEWEST - 1, True),
    ("lorenz", 3, True),
    ("newton_roots", 2, True),
    ("newton_roots", 5, True),
    ("rebuilt", 2, True),
    ("names_taken", 2, True),
    ("constant_branch", 2, True),
    ("colliding", 2, False),  # `a_dot_0` is the user's: one call per direction
    ("elementwise", 3, False),  # array arithmetic: one call per direction
]


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_directions")
    return user_module(path, "forward_directions_module", MODULE)


def _directions(f: object, args: tuple[object, ...], count: int) -> int:
    request = Request.frule(signature(args), count)
    return COMPILER.compiled(f, COMPILER.wrt_for(f, args, request), request).directions


@pytest.mark.parametrize(("name", "size", "applies"), CASES)
def test_few_directions_against_differences(
    module: types.ModuleType, name: str, size: int, applies: bool
) -> None:
    f = getattr(module, name)
    v = sample((size,), 30 + size) * 0.4 + (1.0 if name == "lorenz" else 0.0)
    assert _directions(f, (v,), size) == (size if applies else 0)
    for point in (v, -v):  # each branch
        jacobian = srcad.jacobian(f, mode="forward")(point)
        close(jacobian, difference(f, (point,)))
        close(jacobian, srcad.jacobian(f)(point))  # reverse mode agrees


def test_a_matrix_argument_in_its_shape(module: types.ModuleType) -> None:
    # Elements of a matrix are not allowed as a trailing axis of directions
    # (`ForwardAD._indexed`), so neither here: one call per direction.
    m = sample((2, 2), 40)
    assert _directions(module.matrix_entries, (m,), 4) == 0
    jacobian = srcad.jacobian(module.matrix_entries, mode="forward")(m)
    assert jacobian.shape == (2, 2, 2)
    close(jacobian, difference(module.matrix_entries, (m,)))


def test_the_rule_reads_as_one_statement_per_direction(module: types.ModuleType) -> None:
    v = sample((3,), 41) + 1.0
    request = Request.frule(signature((v,)), 3)
    text = COMPILER.compiled(module.lorenz, None, request).source
    assert "forward rule for 3 directions of lorenz" in text
    assert "(_, state_dot_0), (_, state_dot_1), (_, state_dot_2) = dargs" in text
    assert text.count("dy = x * ") == 1  # the primal once
    for i in range(3):
        assert f"dy_dot_{i} = x_dot_{i} * " in text
    assert "return (out, (out_dot_0, out_dot_1, out_dot_2))" in text
    # A value computed with its tangent by a collecting rule: bound last, once.
    assert "unused, list_dot_1 = make_list_frule(" in text


def test_a_users_name_unused_is_kept(module: types.ModuleType) -> None:
    v = sample((2,), 42)
    text = COMPILER.compiled(module.names_taken, None, Request.frule(signature((v,)), 2)).source
    assert "unused1, " in text


@pytest.mark.parametrize("size", [3, FEWEST + 1])
def test_a_registered_forward_rule_is_the_one_called(size: int) -> None:
    # Its columns come from `jvp`, which calls the user's rule, not from the source.
    calls = []

    def g(v):
        return np.array([v[0] * v[1], np.sin(v[1])])

    @srcad.frule.register(g)
    def g_frule(dargs, v):  # type: ignore[no-untyped-def]
        _, v_dot = dargs
        calls.append(1)
        return g(v), np.array([v_dot[0] * v[1] + v[0] * v_dot[1], np.cos(v[1]) * v_dot[1]])

    v = sample((size,), 43)
    close(srcad.jacobian(g, mode="forward")(v), difference(g, (v,)))
    assert len(calls) == size

"""The forward rule for a few directions computes its tangents of float64 numbers on
Python floats where every tangent statement is quiet arithmetic, an element of a tangent
array, a zero or a collecting rule's call (`passes/transforms/float_tangents.py`): the
same numbers, bit for bit, as one `jvp` per direction, and against central differences;
not where a tangent divides (which raises on a Python float where a float64 gives an
infinity), nor on float32."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import close, difference, sample, user_module

MODULE = """
import math
import numpy as np

RATE = 0.05


def oscillator(state, k):
    # a float parameter beside the array, its tangent a zero in `jacobian`'s directions
    x = state[0]
    v = state[1]
    for _ in range(30):
        a = -k * x - 0.1 * v
        v = v + RATE * a
        x = x + RATE * v
    return np.array([x, v])


def branches(state):
    x = state[0]
    y = state[1]
    for step in range(12):
        if x > y:
            x = x - 0.1 * x * y
        else:
            y = y + 0.2 * x
            x = x * 1.01
    return np.array([x * y, x - y])


def divides(state):
    x = state[0]
    y = state[1]
    for _ in range(5):
        x = x + 0.1 * y / (1.0 + x * x)
        y = y - 0.1 * x
    return np.array([x, y])


def read_in_the_loop(v):
    total = 0.0
    for i in range(len(v)):
        total = total * v[i] + v[i] * v[i]
    return np.array([total, total * v[0]])


def over_floats(state):
    x = state[0]
    y = state[1]
    for c in [0.5, -0.25, 1.5]:
        x = x * c + y
        y = y - c * x
    return np.array([x, y, x * y])


def collected_quotient(state):
    x = state[0]
    y = state[1]
    for _ in range(4):
        x = x + 0.1 * y
        y = y * 0.9 - 0.05 * x
    return np.array([x / y, x * y])


def energy(state):
    x = state[0]
    v = state[1]
    for _ in range(10):
        v = v - 0.1 * x * x * x
        x = x + 0.1 * v
    return x * x + v * v
"""

# (name, extra arguments, whether the tangents are floats)
CASES = [
    ("oscillator", (1.7,), True),
    ("branches", (), True),
    ("divides", (), False),
    ("read_in_the_loop", (), True),
    ("over_floats", (), True),
    ("collected_quotient", (), False),  # a quotient's tangent in a collecting call
]


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_float_tangents")
    return user_module(path, "forward_float_tangents_module", MODULE)


def _columns_by_jvp(f: object, args: tuple[object, ...]) -> np.ndarray:
    x = args[0]
    assert isinstance(x, np.ndarray)
    columns = []
    for direction in np.eye(x.size):
        tangents = (direction, *[srcad.ZeroTangent()] * (len(args) - 1))
        columns.append(np.asarray(srcad.jvp(f, args, tangents)[1]))
    return np.stack(columns, axis=-1)


@pytest.mark.parametrize(("name", "extra", "floats"), CASES)
@pytest.mark.parametrize("size_shift", [0.0, 0.7])
def test_the_same_numbers_as_one_direction_at_a_time(
    module: types.ModuleType, name: str, extra: tuple[float, ...], floats: bool, size_shift: float
) -> None:
    f = getattr(module, name)
    size = 3 if name == "read_in_the_loop" else 2
    state = sample((size,), 7) * 0.5 + size_shift
    args = (state, *extra)
    request = Request.frule(signature(args), size)
    rule = COMPILER.compiled(f, COMPILER.wrt_for(f, args, request), request)
    assert rule.directions == size
    assert ("real_float(" in rule.source or "_f = float(" in rule.source) is floats, rule.source
    jacobian = srcad.jacobian(f, wrt=0, mode="forward")(*args)
    assert np.array_equal(jacobian, _columns_by_jvp(f, args)), rule.source
    close(jacobian, difference(f, args))


def test_shadows_follow_each_binding(module: types.ModuleType) -> None:
    state = np.array([0.3, 0.9])
    request = Request.frule(signature((state,)), 2)
    text = COMPILER.compiled(module.branches, None, request).source
    assert "x_dot_0 = real_float(state_dot_0[0])" in text, text
    # `y` is bound before the loop and in a branch: its Python float after each
    assert text.count("y_f = float(y)") == 2, text
    assert "x_dot_0 * y_f" in text, text


def test_float32_is_left_as_it_is(module: types.ModuleType) -> None:
    state = np.array([0.3, 0.9], dtype=np.float32)
    request = Request.frule(signature((state,)), 2)
    rule = COMPILER.compiled(module.branches, None, request)
    assert "float(" not in rule.source, rule.source
    jacobian = srcad.jacobian(module.branches, mode="forward")(state)
    assert np.array_equal(jacobian, _columns_by_jvp(module.branches, (state,)))


def test_second_order_through_a_forward_jacobian(module: types.ModuleType) -> None:
    state = np.array([0.4, -0.8])
    hessian = srcad.hessian(module.energy)(state)
    gradient = srcad.grad(module.energy)
    h = 1e-5
    for column in range(2):
        step = np.eye(2)[column] * h
        want = (gradient(state + step) - gradient(state - step)) / (2 * h)
        np.testing.assert_allclose(hessian[:, column], want, atol=1e-6)
    jacobian = srcad.jacobian(srcad.grad(module.energy), mode="forward")(state)
    np.testing.assert_allclose(jacobian, hessian, atol=1e-9)

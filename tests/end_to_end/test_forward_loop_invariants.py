"""A forward rule computes the values a `for` loop over a `range` computes the same on
every pass once, before the loop, behind a test that the range is not empty
(`passes/transforms/loop_invariants.py`): the same numbers, against central differences,
in `jvp`, the forward Jacobian and second derivatives; no new exception where the loop
runs no pass (a Python float's division by zero, an item of an empty vector); the same
exception where it runs; names read after the loop bound as Python binds them; loops that
write what would be computed, rebind its operands, break, continue, nest, or step
backwards; float32 and complex kinds."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp
from tests.conftest import close, difference, sample, user_module

MODULE = """
import math

import numpy as np

GRAVITY = 9.81


def pendulum(theta, omega, length, steps):
    for _ in range(steps):
        over = GRAVITY / length
        omega = omega - 0.01 * over * math.sin(theta)
        theta = theta + 0.01 * omega
    return theta


def line(w, xs):
    total = 0.0
    for k in range(len(xs)):
        r = w[0] + w[1] * xs[k]
        if abs(r) <= 1.0:
            total = total + 0.5 * r * r
        else:
            total = total + abs(r) - 0.5
    return total


def read_after(a, b, x):
    s = 0.0
    for i in range(len(x)):
        k = a * b
        s = s + k * x[i]
    return s + k


def rebinds(a, x):
    s = 0.0
    for i in range(len(x)):
        c = a * 2.0
        s = s + c * x[i]
        a = a * 0.5
    return s


def writes(w, x):
    v = w.copy()
    s = 0.0
    for i in range(len(x)):
        s = s + v[0] * x[i]
        v[0] = v[0] * 0.5
    return s


def breaks(w, x):
    s = 0.0
    for i in range(len(x)):
        s = s + (w[0] / w[1]) * x[i]
        if s > 1.0:
            break
        if x[i] < 0.0:
            continue
        s = s * w[1]
    return s


def nested(w, x):
    s = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            s = s + w[0] * x[i] * x[j] + w[1] / w[2]
    return s


def stepped(w, x, start, stop, step):
    s = 0.0
    for i in range(start, stop, step):
        s = s + w[0] * w[1] * x[i]
    return s


def all_hoisted(x, y, z):
    for _ in range(1, 4):
        a = np.exp(z)
    return y * a  # (fuzz seed 590337: the loop kept no statement)


def odd_even(a, x):
    s = 0.0
    for i in range(len(x)):
        s = s + (a / 3.0 if i % 2 else a * a) * x[i]
        s = s + [a * 2.0 for _ in range(i)].count(0.0)
    return s
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_loop_invariants")
    return user_module(path, "forward_loop_invariants_module", MODULE)


def _jvp(f: Any, args: tuple[Any, ...], position: int, seed: int = 3) -> None:
    """`jvp` along a random direction of argument `position` against the primal and
    central differences."""
    x = args[position]
    direction = sample(np.shape(x), seed, np.asarray(x).dtype)
    if not isinstance(x, np.ndarray):
        direction = type(x)(direction)
    tangents = tuple(direction if i == position else srcad.ZeroTangent() for i in range(len(args)))
    value, tangent = srcad.jvp(f, args, tangents)
    close(value, f(*args))
    close(tangent, finite_difference_jvp(f, args, tangents))


def _hoists(f: Any, args: tuple[Any, ...], text: str) -> None:
    """The forward rule computes `text` before a loop, behind the test of its range."""
    source = srcad.source(f, mode="forward", args=args)
    lines = source.splitlines()
    for n, line in enumerate(lines):
        test = re.fullmatch(r" *if (\w+):", line)
        if test is None:
            continue
        loop = f" in {test.group(1)}:"
        end = next((m for m in range(n + 1, len(lines)) if lines[m].endswith(loop)), n)
        if any(text in line for line in lines[n + 1 : end]):
            return
    raise AssertionError(source)


def test_a_quotient_of_floats_is_computed_once(module: types.ModuleType) -> None:
    args = (0.3, -0.2, 1.5, 20)
    _hoists(module.pendulum, args, "GRAVITY")
    for position in range(3):
        _jvp(module.pendulum, args, position)
    close(srcad.grad(module.pendulum, wrt=(0, 2))(*args), [difference(module.pendulum, args, p)
                                                           for p in (0, 2)])  # fmt: skip


def test_no_pass_computes_nothing(module: types.ModuleType) -> None:
    """A float division by zero the loop would not run raises nothing; one it runs raises
    as Python does."""
    tangents = (1.0, 0.0, 0.0, srcad.ZeroTangent())
    assert srcad.jvp(module.pendulum, (0.3, -0.2, 0.0, 0), tangents) == (0.3, 1.0)
    with pytest.raises(ZeroDivisionError):
        module.pendulum(0.3, -0.2, 0.0, 2)
    with pytest.raises(ZeroDivisionError):
        srcad.jvp(module.pendulum, (0.3, -0.2, 0.0, 2), tangents)


def test_items_of_a_vector_read_once(module: types.ModuleType) -> None:
    args = (sample((2,), 1), sample((9,), 2))
    _hoists(module.line, args, "w[0]")
    _jvp(module.line, args, 0)
    _jvp(module.line, args, 1)
    jacobian = srcad.jacobian(module.line, wrt=0, mode="forward")(*args)
    close(jacobian, difference(module.line, args, 0))


def test_an_empty_vector_is_not_read_where_the_loop_runs_no_pass(
    module: types.ModuleType,
) -> None:
    w, xs = np.zeros(0), np.zeros(0)
    assert srcad.jvp(module.line, (w, xs), (np.zeros(0), srcad.ZeroTangent())) == (0.0, 0.0)
    w, xs = np.zeros(1), np.ones(3)
    with pytest.raises(IndexError):
        srcad.jvp(module.line, (w, xs), (np.ones(1), srcad.ZeroTangent()))


def test_names_read_after_the_loop(module: types.ModuleType) -> None:
    args = (0.7, -1.3, sample((4,), 1))
    _hoists(module.read_after, args, "a * b")
    for position in range(3):
        _jvp(module.read_after, args, position)
    empty = (0.7, -1.3, np.zeros(0))
    with pytest.raises(UnboundLocalError):
        module.read_after(*empty)
    with pytest.raises(UnboundLocalError):
        srcad.jvp(module.read_after, empty, (1.0, 0.0, np.zeros(0)))


@pytest.mark.parametrize("name", ["rebinds", "writes"])
def test_what_the_loop_changes_is_computed_on_each_pass(
    module: types.ModuleType, name: str
) -> None:
    f = getattr(module, name)
    first = 0.8 if name == "rebinds" else sample((2,), 4)

    def fresh() -> tuple[Any, ...]:
        return (first.copy() if isinstance(first, np.ndarray) else first, sample((5,), 5))

    source = srcad.source(f, mode="forward", args=fresh())
    assert "_range:" not in source, source
    for position in range(2):
        x = fresh()[position]
        direction = sample(np.shape(x), 6)
        if not isinstance(x, np.ndarray):
            direction = float(direction)
        tangents = tuple(direction if i == position else srcad.ZeroTangent() for i in range(2))
        value, tangent = srcad.jvp(f, fresh(), tangents)
        close(value, f(*fresh()))
        step = 1e-6
        moved = [
            f(*(a + s * step * t if i == position else a for i, (a, t) in
                enumerate(zip(fresh(), (direction, direction), strict=True))))
            for s in (1, -1)
        ]  # fmt: skip
        close(tangent, (moved[0] - moved[1]) / (2 * step))


@pytest.mark.parametrize("name", ["breaks", "nested"])
def test_loops_that_break_continue_and_nest(module: types.ModuleType, name: str) -> None:
    f = getattr(module, name)
    args = (sample((3,), 1) + 3.0, sample((6,), 2) * 0.3)
    _hoists(f, args, "w[0]")
    _jvp(f, args, 0)
    _jvp(f, args, 1)
    close(srcad.hessian(f, wrt=1)(*args), difference(srcad.grad(f, wrt=1), args, 1))


@pytest.mark.parametrize(
    ("start", "stop", "step"), [(0, 5, 1), (4, -1, -1), (1, 5, 2), (3, 3, 1), (4, 0, 1)]
)
def test_ranges_of_every_shape(module: types.ModuleType, start: int, stop: int, step: int) -> None:
    args = (sample((2,), 1), sample((5,), 2), start, stop, step)
    _jvp(module.stepped, args, 0)
    _jvp(module.stepped, args, 1)
    empty = (np.zeros(0), *args[1:])
    tangents = (np.zeros(0), *[srcad.ZeroTangent()] * 4)
    if len(range(start, stop, step)):
        with pytest.raises(IndexError):
            srcad.jvp(module.stepped, empty, tangents)
    else:
        assert srcad.jvp(module.stepped, empty, tangents) == (0.0, 0.0)


def test_branches_are_not_computed_before(module: types.ModuleType) -> None:
    """A conditional's branch is computed only where it runs; a comprehension's element
    before the comprehension's own loop, where that runs a pass (none where `i` is 0)."""
    args = (0.9, sample((5,), 2))
    source = srcad.source(module.odd_even, mode="forward", args=args)
    assert "a / 3.0" in source, source
    with pytest.raises(AssertionError):
        _hoists(module.odd_even, args, "a / 3.0")
    _hoists(module.odd_even, args, "a * 2.0")
    _jvp(module.odd_even, args, 0)
    _jvp(module.odd_even, args, 1)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_other_kinds(module: types.ModuleType, dtype: Any) -> None:
    args = (sample((3,), 1, dtype) + 3.0, sample((4,), 2, dtype))
    f = module.nested
    direction = sample((3,), 3, dtype)
    value, tangent = srcad.jvp(f, args, (direction, srcad.ZeroTangent()))
    want = finite_difference_jvp(f, args, (direction, srcad.ZeroTangent()))
    np.testing.assert_allclose(value, f(*args), rtol=1e-5)
    np.testing.assert_allclose(tangent, want, rtol=1e-3 if dtype == np.float32 else 1e-6)


def test_a_loop_whose_every_statement_is_hoisted(module: types.ModuleType) -> None:
    """Every statement of the loop's body is computed before it: the body is `pass`, not
    empty (fuzz seed 590337 gave emitted code Python could not parse)."""
    args = (np.array([0.3, 0.4]), 0.7, -0.2)
    for position in range(3):
        _jvp(module.all_hoisted, args, position)

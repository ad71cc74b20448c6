"""Issue 19, item 1: loops over arrays keep their elements' kinds (`passes/transforms/
iteration.py`), and a user function called with arguments of known kinds is compiled for
those kinds (`Services.callee_rule`), its result's kind known to the caller. Each case is
checked against central differences, and again after its callee or constant changed."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import user_module

MODULE = """
import math
import numpy as np

DELTA = 1.0


def huber(r, delta):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


def robust(w, xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total += huber(w[0] + w[1] * x - y, DELTA)
    return total / len(xs)


def over_elements(w, xs, ys):
    total = 0.0
    for x in xs:
        total += math.sin(w[0] * x)
    return total


def over_rows(w, X, ys):
    total = 0.0
    for row in X:
        total += np.sum(row * w) ** 2
    return total


def zipped_three(w, xs, ys):
    total = 0.0
    for x, y, z in zip(xs, ys, xs):
        total += w[0] * x * y + z
    return total


def enumerated(w, xs, ys):
    total = 0.0
    for i, x in enumerate(xs):
        total += w[1] * x * i + ys[i]
    return total


def enumerated_from_one(w, xs, ys):
    total = 0.0
    for i, x in enumerate(xs, 1):
        total += w[1] * x * i
    return total


def rebinding_inside(w, xs, ys):
    total = 0.0
    for x in xs:
        total += w[0] * x
        xs = ys
    return total


def broken(w, xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        if x > 0.5:
            break
        total += w[0] * x * y
    return total * w[1]


def nested(w, xs, ys):
    total = 0.0
    for x in xs:
        for y in ys:
            total += huber(w[0] * x - y, 0.5)
    return total


def scale(x, factor):
    return factor * x


def two_kinds(w, xs, ys):
    return np.sum(scale(xs, w[0])) + scale(w[1], 2.0) + scale(2, w[0])


def mixed(r):
    if r > 0.0:
        return r * r
    return np.array(r)


def mixed_caller(w, xs, ys):
    return float(np.sum(mixed(w[0]))) * w[1]


def ignores(r, s):
    if r > 0.0:
        return s * s
    return r * s


def ignoring_caller(w, xs, ys):
    total = 0.0
    for x in xs:
        total += ignores(x - 0.5, w[0]) * w[1]
    return total


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def recursive_caller(w, xs, ys):
    return power(w[0], 3) + power(w[1], 2)
"""


@pytest.fixture
def module(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"specialised_calls_{abs(hash(str(tmp_path)))}", MODULE)


def central(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def arguments(name: str, n: int = 7) -> tuple[Any, ...]:
    rng = np.random.default_rng(len(name))
    w = np.array([0.8, -1.3])
    if name == "over_rows":
        return np.array([0.3, -0.4, 0.5]), rng.standard_normal((n, 3)), rng.standard_normal(n)
    return w, rng.uniform(-1.0, 1.0, n), rng.standard_normal(n) * 2.0


def check(func: Any, args: tuple[Any, ...]) -> None:
    """The gradient with respect to every array argument, against central differences."""
    gradient = srcad.grad(func, wrt=(0, 1, 2))(*args)
    for position in range(3):

        def along(value: np.ndarray, position: int = position) -> float:
            changed = list(args)
            changed[position] = value
            return float(func(*changed))

        expected = central(along, np.asarray(args[position], dtype=float))
        np.testing.assert_allclose(gradient[position], expected, rtol=1e-6, atol=1e-7)


def text_of(func: Any, args: tuple[Any, ...]) -> str:
    return COMPILER.sources(func, None, Request.rrule(signature(args)))


REWRITTEN = ["robust", "over_elements", "over_rows", "zipped_three", "enumerated", "nested"]
KEPT = ["enumerated_from_one", "rebinding_inside"]


@pytest.mark.parametrize("name", [*REWRITTEN, *KEPT, "broken"])
def test_loops_over_arrays_give_the_right_gradient(module: Any, name: str) -> None:
    check(getattr(module, name), arguments(name))


@pytest.mark.parametrize("name", REWRITTEN)
def test_a_loop_over_arrays_is_a_loop_over_indices(module: Any, name: str) -> None:
    text = text_of(getattr(module, name), arguments(name))
    assert "iterate_rrule" not in text and "zip_rrule" not in text
    assert "enumerate_rrule" not in text and "unpack_rrule" not in text


@pytest.mark.parametrize("name", KEPT)
def test_a_loop_the_rewrite_cannot_prove_the_same_is_left(module: Any, name: str) -> None:
    assert "iterate_rrule" in text_of(getattr(module, name), arguments(name))


@pytest.mark.parametrize("lengths", [(7, 4), (4, 7), (0, 3)])
def test_zip_stops_at_the_shortest_array(module: Any, lengths: tuple[int, int]) -> None:
    rng = np.random.default_rng(3)
    args = (np.array([0.8, -1.3]), rng.uniform(-1, 1, lengths[0]), rng.uniform(-1, 1, lengths[1]))
    check(module.zipped_three, args)
    if min(lengths):
        check(module.robust, args)


def test_lists_and_other_kinds_afterwards_give_the_right_gradient(module: Any) -> None:
    w, xs, ys = arguments("robust")
    check(module.robust, (w, xs, ys))
    got = srcad.grad(module.robust)(list(w), list(xs), list(ys))
    np.testing.assert_allclose(got[0], srcad.grad(module.robust)(w, xs, ys)[0], rtol=1e-12)
    xs32 = xs.astype(np.float32)
    got32 = srcad.grad(module.robust)(w, xs32, ys)[0]
    np.testing.assert_allclose(got32, srcad.grad(module.robust)(w, xs, ys)[0], rtol=1e-5)


@pytest.mark.parametrize(
    "name", ["robust", "nested", "two_kinds", "mixed_caller", "ignoring_caller", "recursive_caller"]
)
def test_callees_compiled_for_their_argument_kinds_are_right(module: Any, name: str) -> None:
    check(getattr(module, name), arguments(name))


def test_a_helper_called_with_floats_is_compiled_for_floats(module: Any) -> None:
    text = text_of(module.robust, arguments("robust"))
    # Called in a loop, the helper is written into it (`passes/transforms/inline_callees.py`)
    assert "rrule_huber" not in text and "huber_r = " in text
    assert "add_rrule" not in text  # its result's kind is known: the sum is inlined
    two = text_of(module.two_kinds, arguments("two_kinds"))
    assert "for x: float[:], factor: float" in two and "for x: float, factor: float" in two
    assert "for x: int, factor: float" in two


def test_a_changed_helper_is_compiled_again(module: Any) -> None:
    args = arguments("robust")
    check(module.robust, args)

    def squared(r, delta):
        return r * r * delta

    module.huber.__code__ = squared.__code__  # as %autoreload does
    check(module.robust, args)
    module.huber = lambda r, delta: np.array(r * r * delta)  # rebound: a 0-d array
    check(module.robust, args)


def test_a_helpers_constant_rebound_to_another_kind_is_seen(module: Any) -> None:
    args = arguments("robust")
    check(module.robust, args)
    module.DELTA = 2  # an int now: the guard fails, compiled again
    check(module.robust, args)
    module.DELTA = np.float64(0.3)
    check(module.robust, args)

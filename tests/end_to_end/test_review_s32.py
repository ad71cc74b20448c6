"""Soundness review (session 32) of the mechanisms merged in session 31-32: each finding as
a class, its values checked against central differences."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.registry import REGISTRY
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


# -- values a loop's pullback computes again, where a name is bound again after the loop --

RECOMPUTED = """
import math

def parameter_after(x, a):
    for i in range(5):
        q = a / x
        x = 0.5 * (x + q)
    a = 7.0
    return x

def local_after(x, a):
    b = a * 1.0
    for i in range(4):
        q = b / x
        x = 0.5 * (x + q)
    b = 7.0
    return x * b

def leaving_early(x, a):
    s = 0.0
    for i in range(6):
        q = a / x
        if q < 0.9:
            break
        x = x + 0.25
        if i == 1:
            continue
        s = s + q * q
    return s + x

def sine_then_rebound(x, a):
    s = 0.0
    for i in range(3):
        sx = math.sin(x)
        x = x * a
        cx = math.cos(x)
        s = s + sx * cx
    return s
"""


@pytest.mark.parametrize(
    "name", ["parameter_after", "local_after", "leaving_early", "sine_then_rebound"]
)
def test_recomputed_values_read_the_iteration(tmp_path: Path, name: str) -> None:
    """A value the pullback computes again (`a / x_2`), or a sine it reads from the primal,
    reads what the iteration read, whatever binds the names after the loop or leaves an
    iteration early."""
    module = user_module(tmp_path, "review_recomputed", RECOMPUTED)
    _check(getattr(module, name), (1.3, 2.1))


# -- helpers written into a loop: keyword calls, defaults, early returns, rebinding --

HELPERS = """
G = 2.0

def huber(r, c=1.5):
    if abs(r) < c:
        return 0.5 * r * r
    return c * (abs(r) - 0.5 * c)

def early(r, c):
    if r > c:
        return r
    if r < -c:
        return -r
    q = r * r
    return q / c

def scaled(r):
    return G * r * r

def by_keyword(x, a):
    s = 0.0
    for i in range(3):
        s += huber(c=a, r=x * i) + huber(x - i)
    return s

def nested_returns(x, a):
    s = 0.0
    for i in range(5):
        s = s + early(x - i, a) * early(a, x)
    return s

def reads_global(x, a):
    s = 0.0
    for i in range(3):
        s = s + scaled(x + a * i)
    return s
"""


@pytest.mark.parametrize("name", ["by_keyword", "nested_returns", "reads_global"])
def test_written_helpers(tmp_path: Path, name: str) -> None:
    module = user_module(tmp_path, "review_helpers", HELPERS)
    _check(getattr(module, name), (0.7, 1.1))


def test_written_helpers_follow_their_globals_and_defaults(tmp_path: Path) -> None:
    """A helper written into its caller is guarded: its global, its defaults and the
    function its name holds are read as they are when the caller is called."""
    module = user_module(tmp_path, "review_helpers_changed", HELPERS)
    args = (0.7, 1.1)
    _check(module.reads_global, args, second=False)
    module.G = 3.0
    _check(module.reads_global, args, second=False)
    module.huber.__defaults__ = (0.2,)
    _check(module.by_keyword, args, second=False)

    def cubed(r: float) -> float:
        return r * r * r

    module.scaled = cubed
    _check(module.reads_global, args, second=False)


# -- an item of a module's container read once on entry, changed by a function srcad does
# not read (a rule covers it) while the function runs --

CHANGED_ITEMS = """
import srcad

RATES = {"a": 1.5, "b": 0.5}
SCALES = [1.5, 2.0]


def bump():
    RATES["a"] = RATES["a"] + 1.0
    SCALES[0] = SCALES[0] * 2.0
    return 0.0


srcad.non_differentiable(bump)


def through():
    return bump()


def with_rule(x):
    bump()
    return 2.0 * x


@srcad.rrule.register(with_rule)
def with_rule_rrule(x):
    return with_rule(x), lambda y_bar: (srcad.NoTangent(), 2.0 * y_bar)


def direct(x, a):
    y = x * RATES["a"] * SCALES[0]
    bump()
    return y + RATES["a"] * x * x * a * SCALES[0]


def in_loop(x, a):
    s = 0.0
    for i in range(3):
        s = s + x * RATES["a"] * a + SCALES[-2] * x
        through()
    return s


def by_rule(x, a):
    y = x * RATES["a"]
    z = with_rule(a)
    return y * z + RATES["a"] * SCALES[0] * x


def grow():
    if len(SCALES) < 4:
        SCALES.append(0.25)
    return 0.0


srcad.non_differentiable(grow)


def over_a_growing_list(x, a):
    p = a
    for c in SCALES:  # a short module list: written out, but `grow` lengthens it
        p = p * x + c
        grow()
    return p
"""


@pytest.mark.parametrize("name", ["direct", "in_loop", "by_rule", "over_a_growing_list"])
def test_items_changed_by_a_covered_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """An item of a module's list or dict that a function srcad does not read (marked
    non-differentiable, or covered by a rule; called directly or through a helper) may
    change is read where the code reads it: read once on entry, the value (not only the
    derivative) was the item's before the change. Such a list is not written out as a
    loop over its items either (`Unroll`): a call may change its length."""
    # The mark goes with the test (the table of supported functions lists every one).
    monkeypatch.setattr(REGISTRY, "_non_differentiables", set(REGISTRY._non_differentiables))
    module = user_module(tmp_path, "review_changed_items", CHANGED_ITEMS)

    def reset() -> None:
        module.RATES.update(a=1.5, b=0.5)
        module.SCALES[:] = [1.5, 2.0]

    f = getattr(module, name)

    def fresh(*args: float) -> Any:
        reset()
        return f(*args)

    args = (1.3, 2.1)
    want = _gradients(fresh, args)
    value = fresh(*args)
    reset()
    got_value, got = srcad.value_and_grad(f, wrt=(0, 1))(*args)
    close(got_value, value)
    close(got, want)
    reset()
    close(srcad.jvp(f, args, (1.0, 2.0))[1], want @ np.array([1.0, 2.0]))


# -- fourth derivatives through `f(*args)` (once refused) --

UNPACKED = """
import math

def h(u, v):
    return u * u * v + math.sin(u)

def f(x):
    args = (x, 2.0)
    return h(*args)
"""


def test_fourth_derivatives_through_unpacked_calls(tmp_path: Path) -> None:
    """Third and fourth derivatives through `f(*args)` (once refused naming srcad's own
    rule code as the user's problem: lists changed in place in
    `rules/third_order_calls.py`; four deep, `fourth_order_calls._unpacked_nested`)."""
    module = user_module(tmp_path, "review_unpacked", UNPACKED)
    third = srcad.grad(srcad.grad(srcad.grad(module.f)))
    second = srcad.grad(srcad.grad(module.f))
    close(third(0.7), (second(0.7 + 1e-5) - second(0.7 - 1e-5)) / 2e-5)
    fourth = srcad.grad(third)(0.7)
    close(fourth, (third(0.7 + 1e-5) - third(0.7 - 1e-5)) / 2e-5)

"""Issue 19: a derivative's call of a function its template names (`cos(E)` in the
derivative of `math.sin(E)`) reads the value the primal computed of the same call on the
same value, where the primal computes it in the same passes through the same block; and a
loop's tape keeps no value its reverse no longer reads. The class: both orders of the
calls, in `while` and `for` loops and outside them, NumPy's functions of floats, and the
cases where the value may not be the same (the argument or the value's name rebound
between the calls, a `break`, `continue` or `return` between them, the calls in different
branches or loops), each checked against central differences in both modes and to
second order."""

# Written as users write them: Kepler's names, `zip` without `strict`.
# ruff: noqa: N803, N806, B905

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import difference


def kepler(M, e):
    E = M
    while abs(E - e * math.sin(E) - M) > 1e-12:
        E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    return E


def cos_first(x, a):
    for _ in range(4):
        c = math.cos(x)
        s = math.sin(x)
        x = x + a * s * c
    return x


def straight_line(x, a):
    s = math.sin(x)
    c = math.cos(x)
    return a * s * c + s


def numpy_floats(x, a):
    for _ in range(3):
        s = np.sin(x)
        c = np.cos(x)
        x = x + a * s * c
    return x


def value_rebound(x, a):
    for _ in range(3):
        c = math.cos(x)
        c = c * a
        s = math.sin(x)
        x = x + s * c
    return x


def value_rebound_after(x, a):
    for _ in range(3):
        s = math.sin(x)
        c = math.cos(x)
        x = x + a * s * c
        c = c * a
        x = x + c
    return x


def argument_rebound(x, a):
    for _ in range(3):
        s = math.sin(x)
        x = x * a
        c = math.cos(x)
        x = x + s * c
    return x


def break_between(x, a):
    t = x
    for _ in range(6):
        s = math.sin(t)
        if s > 0.9:
            x = x * s
            break
        c = math.cos(t)
        t = t + a * s * c
    return t + x


def continue_between(x, a):
    t = x
    for k in range(4):
        s = math.sin(t)
        if k == 3:
            x = x * s
            continue
        c = math.cos(t)
        t = t + a * s * c
    return t + x


def return_between(x, a):
    t = x
    for k in range(4):
        s = math.sin(t)
        if k == 2:
            return x * s + t
        c = math.cos(t)
        t = t + a * s * c
    return t


def return_between_outside_loops(x, a):
    s = math.sin(x)
    if a > 1.0:
        return x + s * a
    c = math.cos(x)
    return a * s * c


def different_branches(x, a):
    for k in range(4):
        if k % 2:
            s = math.sin(x)
            x = x + a * s
        else:
            c = math.cos(x)
            x = x + a * c
    return x


def branches_reading_one_value(x, a):
    for k in range(4):
        u = x * 0.5 + k
        if k % 2 == 0:
            s = math.sin(u)
            x = x + a * s
        else:
            c = math.cos(u)
            x = x + a * c
    return x


def nested_loops(x, a):
    for _ in range(2):
        s = math.sin(x)
        for _ in range(3):
            c = math.cos(x)
            x = x + a * c * s
        x = x + math.cos(x) * s
    return x


def while_else(x, a):
    k = 0
    while k < 3:
        s = math.sin(x)
        c = math.cos(x)
        x = x + a * s * c
        if x > 10.0:
            break
        k += 1
    else:
        x = x * math.cos(x)
    return x


def zip_products(xs, ws):
    s = 0.5
    for x, w in zip(xs, ws):
        t = x * s
        s = s + w * t * t
    return s


def over_arrays(xs, ws):
    t = 0.3
    for x, w in zip(xs, ws):
        u = x * t + w
        t = t + math.sin(u) * math.cos(u)
    return t


# A value computed again by the pullback from the one value a record keeps (`a / x_2`).


def newton_for(x, a):
    for _ in range(5):
        x = 0.5 * (x + a / x)
    return x


def newton_break(x, a):
    while True:
        t = a / x
        if abs(t - x) < 1e-10:
            break
        x = 0.5 * (x + t)
    return x


def rebound_twice(x, a):
    for _ in range(3):
        t = a / x
        x = x + t
        t = t * x
        x = x - 0.1 * t
    return x


def operand_rebound(x, a):
    y = a
    for _ in range(3):
        t = a / x
        x = x * 1.1
        y = y + t * x
    return y


def varying_numerator(x, a):
    c = a
    for _ in range(3):
        t = c / x
        x = x + t
        c = c * 1.2
    return x


def invariant_local(x, a):
    c = a * 2.0
    for _ in range(4):
        x = x + 0.25 * (c / x - x)
    return x


def in_a_branch(x, a):
    t = a
    for k in range(4):
        if k % 2 == 0:
            t = a / x
        x = x + 0.5 * t * x
    return x


def nested_newton(x, a):
    for _ in range(2):
        for _ in range(3):
            x = 0.5 * (x + a / x)
        x = x * a
    return x


def shadowing(x, a):
    y = x
    for _ in range(3):
        x = a / y
        y = 0.5 * (y + x)
        x = x * y
    return x + y


def newton_while_else(x, a):
    n = 0
    while n < 6:
        x = 0.5 * (x + a / x)
        if x < 0.0:
            break
        n += 1
    else:
        x = x * 1.5
    return x


def squares(x, a):
    for _ in range(4):
        x = a * x - 0.1 * (x * x)
    return x * x


# A value each pass through the loop computes the same, read after the loop, not taped.


def invariant_in_loop(x, a):
    g = 2.0
    length = 1.5
    for _ in range(4):
        x = x - 0.1 * (g / length * math.sin(x) + a * x)
    return x


def invariant_of_parameter(x, a):
    for _ in range(3):
        x = x * (a / 3.0) + x
    return x


def rebound_after_the_loop(x, a):
    g = a
    for _ in range(3):
        x = x + 0.1 * (g / 1.5) * x
    g = g * 2.0
    return x * g


def no_iterations(x, a):
    for _ in range(0):
        x = x * (a / 2.0)
    return x * a


def invariant_in_nested_loops(x, a):
    for _ in range(2):
        for _ in range(2):
            x = x * (a * 0.5) + 0.1
        x = x + a
    return x


SCALAR = [
    kepler,
    cos_first,
    straight_line,
    numpy_floats,
    value_rebound,
    value_rebound_after,
    argument_rebound,
    break_between,
    continue_between,
    return_between,
    return_between_outside_loops,
    different_branches,
    branches_reading_one_value,
    nested_loops,
    while_else,
    newton_for,
    newton_break,
    rebound_twice,
    operand_rebound,
    invariant_local,
    varying_numerator,
    in_a_branch,
    nested_newton,
    shadowing,
    newton_while_else,
    squares,
    invariant_in_loop,
    invariant_of_parameter,
    rebound_after_the_loop,
    no_iterations,
    invariant_in_nested_loops,
]


def check(f: Any, args: tuple[Any, ...]) -> None:
    """Both gradients, a Jacobian-vector product and the Hessian's first block, against
    central differences."""
    gradient = srcad.grad(f, wrt=(0, 1))(*args)
    for position in (0, 1):
        expected = difference(f, args, position)
        np.testing.assert_allclose(gradient[position], expected, rtol=1e-6, atol=1e-8)
    tangents = tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in args)
    slope = srcad.jvp(f, args, tangents)[1]
    expected = sum(np.sum(difference(f, args, p)) for p in (0, 1))
    np.testing.assert_allclose(slope, expected, rtol=1e-6, atol=1e-8)
    hessian = srcad.hessian(f, wrt=0)(*args)
    expected = difference(srcad.grad(f, wrt=0), args, 0)
    np.testing.assert_allclose(hessian, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f.__name__)
@pytest.mark.parametrize("args", [(0.4, 0.3), (1.1, 0.7), (0.9, 0.6)])
def test_shared_calls_against_differences(f: Any, args: tuple[float, float]) -> None:
    check(f, args)


@pytest.mark.parametrize("f", [over_arrays, zip_products], ids=lambda f: f.__name__)
def test_over_arrays_against_differences(f: Any) -> None:
    rng = np.random.default_rng(3)
    check(f, (0.3 * rng.standard_normal(5), 0.3 * rng.standard_normal(5)))


def test_break_between_breaks() -> None:
    """The points `break_between` is checked at take the `break` at some iteration and
    not at others."""
    taken = []
    for x, a in [(0.4, 0.3), (1.1, 0.7), (0.9, 0.6)]:
        s = 0.0
        for _ in range(6):
            s = math.sin(x)
            if s > 0.9:
                break
            x = x + a * s * math.cos(x)
        taken.append(s > 0.9)
    assert any(taken) and not all(taken)


def _code(f: Any, args: tuple[Any, ...]) -> str:
    """The gradient function's text, comments left out."""
    text = COMPILER.compiled(f, None, Request.grad(signature(args))).source
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


@pytest.mark.parametrize("f", [kepler, cos_first, numpy_floats], ids=lambda f: f.__name__)
def test_a_loop_reverse_reads_the_calls_the_primal_made(f: Any) -> None:
    """No call of `sin` or `cos` in the reverse loop, and the argument's value, which only
    they read, is not on the tape."""
    text = _code(f, (0.4, 0.3))
    reverse = text.partition("reversed(")[2]
    assert reverse and "sin(" not in reverse and "cos(" not in reverse, text
    assert "_2 = E\n" not in text and "_2 = x\n" not in text, text


def test_straight_line_reads_the_calls_the_primal_made() -> None:
    text = _code(straight_line, (0.4, 0.3))
    assert text.count("sin(") == 1 and text.count("cos(") == 1, text


@pytest.mark.parametrize(
    ("f", "record"),
    [(newton_for, "x_2"), (invariant_local, "x_2"), (newton_break, "x_2")],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_records_keep_one_value_the_others_computed_again(f: Any, record: str) -> None:
    text = _code(f, (0.4, 0.3))
    assert f".append({record})" in text and f"for {record} in reversed(" in text, text


def test_a_square_adds_twice_one_product() -> None:
    """`x * x` passes `x` twice the one product of its cotangent and `x`: exactly the sum
    of the two (in a loop and outside one)."""
    text = _code(squares, (0.4, 0.3))
    assert text.count("2 * ") == 2, text


@pytest.mark.parametrize("f", [invariant_in_loop, invariant_of_parameter], ids=lambda f: f.__name__)
def test_a_value_the_same_in_every_pass_is_not_taped(f: Any) -> None:
    text = _code(f, (0.4, 0.3))
    assert ".append(x_2)" in text, text

"""Issue 19: lists of floats the function made (`kinds.list_of`: comprehensions, generator
expressions, appends) keep their derivatives on the specialised path. `sum`, `max`, `min`,
`np.array` and `np.asarray` of one, and a `for` loop over one, write their rules' pullback
work inline (`rules/_support.py`: `summed_cotangent`, `chosen_cotangent`, `rows_cotangent`;
`tangents.list_cotangent`), and `x ** n` of an int `n` known only when the code runs is
arithmetic from power 1 on (`rules/operators.py`). Each is checked against central finite
differences in both modes and to second order, with the variants a proof must not stretch
to (a list of mixed kinds, `default=`, an empty list, a tie)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import difference


def sum_of_a_generator(x):
    xs = [x * i for i in range(6)]
    return sum(v * v for v in xs)


def sum_of_a_list_display(x):
    return sum([math.sin(x * i) for i in range(5)])


def sum_of_appends(x):
    out = []
    y = x
    for _ in range(5):
        y = y * 0.9 + 0.1 * y * y
        out.append(y)
    return sum(out) + out[2]


def array_of_float64s(x):
    values = [np.exp(-x * k) for k in range(5)]
    return np.sum(np.array(values)) + np.mean(np.asarray(values) ** 2)


def max_of_a_generator(x):
    xs = [math.sin(x * i) for i in range(1, 6)]
    return max(v * v for v in xs) + min(xs)


def loop_over_a_comprehension(x):
    xs = [x * i + 1.0 for i in range(5)]
    t = 0.0
    for v in xs:
        if v > 2.5:
            break
        t = t + v * math.cos(v)
    return t


def nested_comprehensions(x):
    rows = [[x * i + j for j in range(3)] for i in range(3)]
    return sum(sum(r) * max(r) for r in rows)


def read_twice(x):
    xs = [x**2 * i for i in range(4)]
    return sum(xs) * max(xs) + np.sum(np.array(xs) * np.array(xs))


def mixed_kinds(x):
    xs = [1, x, 2 * x]  # an int among floats: no list kind, the general rules
    return sum(xs) * max(xs, default=0.0)


def runtime_int_powers(x):
    s = 0.0
    for i in range(6):
        s += x ** (i % 3) / (i + 1) + x ** (i - 3)
    return s


def powers_of_an_array(a):
    n = len(a)
    s = 0.0
    for k in range(-1, n):
        s = s + np.sum(a**k)
    return s


FUNCTIONS = [
    sum_of_a_generator,
    sum_of_a_list_display,
    sum_of_appends,
    array_of_float64s,
    max_of_a_generator,
    loop_over_a_comprehension,
    nested_comprehensions,
    read_twice,
    mixed_kinds,
    runtime_int_powers,
]


def direction(x: Any) -> Any:
    return np.ones_like(x) if isinstance(x, np.ndarray) else 1.0


@pytest.mark.parametrize("x", [0.7, 1.3, -0.6])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_both_modes_against_finite_differences(f: Any, x: float) -> None:
    expected = difference(f, (x,))
    gradient = srcad.grad(f)(x)
    assert type(gradient) in (float, np.float64)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)
    value, tangent = srcad.jvp(f, (x,), (1.0,))
    np.testing.assert_allclose(value, f(x), rtol=1e-15)
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_second_order(f: Any) -> None:
    x = 0.8
    expected = difference(srcad.grad(f), (x,))
    np.testing.assert_allclose(srcad.hessian(f)(x), expected, rtol=1e-5, atol=1e-7)


def float64_elements(a):
    squares = [v * v for v in a]  # float64 numbers: their cotangents are float64 too
    return sum(squares) + max(squares) * min(v - 1.0 for v in squares)


@pytest.mark.parametrize("f", [powers_of_an_array, float64_elements], ids=lambda f: f.__name__)
def test_functions_of_an_array(f: Any) -> None:
    a = np.array([0.5, 1.5, -0.7])
    expected = difference(f, (a,))
    np.testing.assert_allclose(srcad.grad(f)(a), expected, rtol=1e-6)
    _, tangent = srcad.jvp(f, (a,), (direction(a),))
    np.testing.assert_allclose(tangent, expected.sum(), rtol=1e-6)
    hessian = difference(srcad.grad(f), (a,))
    np.testing.assert_allclose(srcad.hessian(f)(a), hessian, rtol=1e-5, atol=1e-8)


def test_the_specialised_rules_call_no_list_rule() -> None:
    """What the kinds prove is written inline: no call of `sum`'s, `max`'s, `np.array`'s
    or iteration's rule, nor `power_slope` for an int power (but below power 1)."""
    for f in (sum_of_a_generator, array_of_float64s, max_of_a_generator, read_twice):
        text = srcad.source(f, args=(0.7,))
        for rule in ("builtin_sum_rrule", "max_rrule", "min_rrule", "array_rrule", "iterate_rrule"):
            assert rule not in text, (f.__name__, rule)
    text = srcad.source(runtime_int_powers, args=(0.7,))
    assert "if i_mod_3 > 0 else strong_product(power_slope(" in text
    assert "builtin_sum_rrule" in srcad.source(mixed_kinds, args=(0.7,))


def zero_power_at_zero(x):
    s = 0.0
    for i in range(3):
        s = s + x**i  # 1 + x + x * x: slope 1 at 0, where `0 * 0.0 ** -1` would raise
    return s


def test_int_powers_at_zero() -> None:
    assert srcad.grad(zero_power_at_zero)(0.0) == 1.0
    assert srcad.jvp(zero_power_at_zero, (0.0,), (1.0,))[1] == 1.0
    assert srcad.hessian(zero_power_at_zero)(0.0) == 2.0


def empty_sum(x, n):
    return sum([x * i for i in range(n)])


def test_an_empty_list_sums_to_the_int_zero() -> None:
    """`sum([])` is the int 0: no kind claims a float for it, and its derivative is 0."""
    assert srcad.grad(empty_sum)(0.7, 0) == 0.0
    np.testing.assert_allclose(srcad.grad(empty_sum)(0.7, 4), 6.0)


def tie(x):
    xs = [x * x, x * x, 0.5 * x]
    return max(xs) + min(v - 1.0 for v in xs)


def test_a_tie_goes_to_the_first_as_the_rule_gives_it() -> None:
    """At equal elements, the element the builtin returned gets the cotangent (the first
    of equal ones), as the general rule gives it."""
    _, pullback = srcad.rrule(tie, 0.9)
    np.testing.assert_allclose(srcad.grad(tie)(0.9), pullback(1.0)[1], rtol=1e-15)
    np.testing.assert_allclose(srcad.grad(tie)(0.9), 2 * 0.9 + 0.5, rtol=1e-12)


def squares_of_elements(a):
    out = []
    for v in a:
        out.append(v * v)
    out.append(1.0)  # a value that does not vary: a zero tangent among the others
    return np.array(out) * np.sum(a)


def test_a_forward_rule_grows_the_tangent_list_in_place() -> None:
    """Where the reverse rule may append in place (`GrownLists`) to a list made by `[]` in
    no loop, the forward rule appends each tangent beside its value, where `append_frule`
    would copy those before it; a list made anew in a loop keeps `append_frule`."""
    text = srcad.source(sum_of_appends, mode="forward", args=(0.7,))
    assert "out_dot = []" in text and "out_dot.append(" in text
    assert "append_frule" not in text
    nested = srcad.source(nested_comprehensions, mode="forward", args=(0.7,))
    assert "values_dot.append(" in nested and "append_frule" in nested
    a = np.array([0.5, -1.5, 0.7])
    expected = difference(squares_of_elements, (a,))
    for mode in ("forward", "reverse"):
        jacobian = srcad.jacobian(squares_of_elements, mode=mode)(a)
        np.testing.assert_allclose(jacobian, expected, rtol=1e-6, atol=1e-8)
    _, tangent = srcad.jvp(squares_of_elements, (a,), (direction(a),))
    np.testing.assert_allclose(tangent, expected.sum(axis=1), rtol=1e-6, atol=1e-8)
    hessian = difference(srcad.grad(lambda a: np.sum(squares_of_elements(a) ** 2)), (a,))
    got = srcad.hessian(lambda a: np.sum(squares_of_elements(a) ** 2))(a)
    np.testing.assert_allclose(got, hessian, rtol=1e-5, atol=1e-7)

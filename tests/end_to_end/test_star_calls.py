"""Calls that unpack arguments (`f(*args)`, `f(**options)`): the `functools.wraps`
decorator pattern and its relatives, in every mode, against finite differences; and the
unpackings still refused, located."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from srcad.testing import check_frule, check_rrule, finite_difference_vjp
from tests.conftest import difference
from tests.end_to_end import star_call_functions as m

X = np.array([1.0, 2.0, -0.5])
Y = np.array([0.5, -1.0, 2.0])

CASES: list[tuple[Any, tuple[Any, ...]]] = [
    (m.h, (3.0,)),
    (m.h, (X,)),
    (m.hcall, (3.0,)),
    (m.hcall, (X,)),
    (m.h_in_loop, (1.5,)),
    (m.scaled_sum, (X, Y)),
    (m.scaled_sum_call, (X, Y)),
    (m.product, (X, Y)),
    (m.product, (0.3, 1.7)),
    (m.pair_call, (1.2, 0.7)),
    (m.pair_call, (X, Y)),
    (m.rest_call, (1.2, 0.7)),
    (m.maximum_of_pair, (X, Y)),
    (m.maximum_of_pair, (X, 2.0)),
    (m.all_unpacked, (1.2, 0.7, 0.3)),
    (m.list_unpacked, (1.2, X)),
    (m.sine_product, (X, Y, 0.7)),
    (m.applies, (X, Y)),
    (m.applies, (0.4, Y)),
    (m.nested_star_parameter, (2.0, 5.0)),
    (m.nested_star_parameter, (X, Y)),
    (m.unpack_array, (X,)),
    (m.unpack_array, (np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.2]]),)),
    (m.method_unpacked, (np.array([1.0, 2.0, -0.5, 3.0]),)),
    (m.method_unpacked_values, (X, Y)),
    (m.method_unpacked_values, (0.3, 1.7)),
    # One `*` into a nested function's positional parameters: unpacked into names.
    (m.nested_unpacked, (2.0,)),
    (m.nested_unpacked, (X,)),
    (m.nested_unpacked_after, (0.7, 1.3)),
    (m.nested_unpacked_after, (X, Y)),
    (m.nested_lambda_unpacked, (0.7,)),
    (m.nested_unpacked_rows, (np.array([[1.0, 2.0], [0.5, -1.0]]),)),
]


def _scalar(f: Any) -> Any:
    return lambda *args: float(np.sum(f(*args)))


@pytest.mark.parametrize(("f", "args"), CASES)
def test_rrule_and_frule_against_finite_differences(f: Any, args: tuple[Any, ...]) -> None:
    check_rrule(f, *args)
    check_frule(f, *args)


@pytest.mark.parametrize(("f", "args"), CASES)
def test_specialised_gradient_against_finite_differences(f: Any, args: tuple[Any, ...]) -> None:
    """`grad` (the kind-specialised, fused path) and `value_and_grad`, every argument."""
    if f is m.all_unpacked:
        pytest.skip("grad takes named parameters; *args alone is reached through rrule")
    wrt = tuple(range(len(args)))
    scalar = _scalar(f)
    if np.ndim(f(*args)) != 0:
        pytest.skip("grad takes real scalars")
    value, gradient = srcad.value_and_grad(f, wrt)(*args)
    assert value == pytest.approx(f(*args))
    assert srcad.grad(f, wrt)(*args)[0] == pytest.approx(gradient[0])
    for position, g in enumerate(gradient):
        expected = finite_difference_vjp(scalar, args, 1.0, position)
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-9)


def test_wraps_decorator_values() -> None:
    assert srcad.grad(m.h)(3.0) == pytest.approx(60.0)
    assert srcad.grad(m.hcall)(3.0) == pytest.approx(61.0)
    assert srcad.grad(m.h_in_loop)(3.0) == pytest.approx(180.0)
    y, dy = srcad.jvp(m.h, (3.0,), (1.0,))
    assert (y, dy) == (pytest.approx(90.0), pytest.approx(60.0))
    y, pullback = srcad.vjp(m.h, X)
    np.testing.assert_allclose(pullback(np.ones(3))[0], 20 * X)


def test_wrt_names_the_wrapped_functions_parameters() -> None:
    """`wrt="c"` names the wrapped function's third parameter, which the wrapper receives
    in `*rest`: its gradient alone, not a zero for a name the wrapper does not have."""
    gradient = srcad.grad(m.sine_product, wrt="c")(X, Y, 0.7)
    assert gradient == pytest.approx(np.sum(np.sin(X) * Y))
    assert srcad.grad(m.first_cubed, wrt="x")(2.0, 5.0) == pytest.approx(12.0)
    assert srcad.grad(m.first_cubed, wrt=("x", "y"))(2.0, 5.0) == pytest.approx((12.0, 2.0))
    gx, gb = srcad.grad(m.sine_product, wrt=("a", "b"))(X, Y, 0.7)
    np.testing.assert_allclose(gx, np.cos(X) * Y * 0.7)
    np.testing.assert_allclose(gb, np.sin(X) * 0.7)


def test_keyword_arguments_pass_through_undifferentiated() -> None:
    gradient = srcad.grad(m.options_passed)(X, scale=0.5)
    np.testing.assert_allclose(gradient, 10 * 0.5 * 2 * X)
    np.testing.assert_allclose(srcad.grad(m.scaled_sum)(X, Y, scale=3.0), 30 * Y)
    check_rrule(m.options_passed, X, scale=0.5)
    check_frule(m.options_passed, X, scale=0.5)


def test_specialised_rule_agrees_with_the_general_one() -> None:
    for f, args in CASES:
        general = COMPILER.compiled(f, None, Request.rrule()).function
        specialised = COMPILER.compiled(f, None, Request.rrule(signature(args))).function
        y, general_pullback = general(*args)
        y2, specialised_pullback = specialised(*args)
        np.testing.assert_allclose(np.asarray(y2), np.asarray(y))
        seed = np.ones(np.shape(y)) if np.ndim(y) else 1.0
        for e, s in zip(general_pullback(seed)[1:], specialised_pullback(seed)[1:], strict=True):
            np.testing.assert_allclose(np.asarray(srcad.unthunk(s)), np.asarray(srcad.unthunk(e)))


def _refusal(f: Any, *args: Any) -> srcad.SrcadError:
    with pytest.raises(srcad.UnsupportedSyntaxError) as caught:
        srcad.grad(f)(*args)
    return caught.value


def _line(f: Any, text: str) -> int:
    import inspect

    lines, start = inspect.getsourcelines(f)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_active_double_star_arguments_are_refused() -> None:
    (diagnostic,) = _refusal(m.options_active, X).diagnostics
    assert diagnostic.code == "E211"
    assert diagnostic.line == _line(m.options_active, "**options")
    assert "`**` arguments depend on a differentiated input" in diagnostic.message


def test_unpacking_into_a_nested_function_with_defaults_is_refused() -> None:
    """How many items `*` gives depends on the call: where a default may fill a parameter."""
    (diagnostic,) = _refusal(m.nested_unpacked_default, 2.0).diagnostics
    assert diagnostic.code == "E102"
    assert diagnostic.line == _line(m.nested_unpacked_default, "inner(*(x,))")
    assert "into a nested function" in diagnostic.message


@pytest.mark.parametrize(("x", "y"), [(0.7, 1.3), (-0.4, 2.1)])
def test_hessian_through_unpacking_into_a_nested_function(x: float, y: float) -> None:
    """Against central differences of the gradient, in each argument."""
    f = m.nested_unpacked_after
    h = np.array(srcad.hessian(f, wrt=(0, 1))(x, y), dtype=float)
    for position in (0, 1):
        want = difference(lambda *a: np.array(srcad.grad(f, wrt=(0, 1))(*a)), (x, y), position)
        np.testing.assert_allclose(h[:, position], want, rtol=1e-6, atol=1e-8)


def test_a_shape_unpacked_into_a_method_of_a_runtime_object() -> None:
    """`rng.standard_normal(*x.shape)`: the method is found when the code runs; the shape
    carries no derivative, so the noise is a constant factor, in both modes and second
    order."""
    x = np.array([0.3, 1.2, -0.7])
    noise = np.random.default_rng(0).standard_normal(3)
    np.testing.assert_allclose(srcad.grad(m.noise_of_shape)(x), noise)
    _, pullback = srcad.rrule(m.noise_of_shape, x)
    np.testing.assert_allclose(pullback(1.0)[1], noise)
    assert srcad.jvp(m.noise_of_shape, (x,), (np.ones(3),))[1] == pytest.approx(np.sum(noise))
    np.testing.assert_allclose(srcad.hessian(m.noise_of_shape)(x), np.zeros((3, 3)))


def test_second_order_through_a_method_given_star_arguments() -> None:
    x = np.array([1.0, 2.0, -0.5, 3.0])
    np.testing.assert_allclose(srcad.hessian(m.method_unpacked)(x), 2 * np.eye(4))
    hessian = srcad.hessian(m.method_unpacked_values, wrt=(0, 1))(0.3, 1.7)
    expected = [[-np.sin(0.3) * 1.7, np.cos(0.3)], [np.cos(0.3), 0.0]]
    np.testing.assert_allclose(np.array(hessian, dtype=float), expected, atol=1e-12)


def test_a_method_given_star_arguments_is_checked_for_changes() -> None:
    """The method of a value is seen only when the code runs: a guard reads it and refuses
    one that changes its receiver, at the call."""
    with pytest.raises(srcad.MutationError) as caught:
        srcad.grad(m.mutating_method_unpacked)(np.ones(2), m.Box())
    first = caught.value.diagnostics[0]
    assert first.line == _line(m.mutating_method_unpacked, "box.push(*args)")
    assert "`box.push(...)` runs `Box.push`" in first.message


def test_star_in_a_list_display_is_a_joined_list() -> None:
    """`[*rest, x]` (refused until displays that unpack became joined sequences:
    `test_sequence_operators.py`): `sum` of three copies of `x`."""
    assert srcad.grad(m.starred_list_display)(1.5) == 3.0
    assert srcad.jvp(m.starred_list_display, (1.5,), (1.0,)) == (4.5, 3.0)


def test_a_function_passed_in_and_star_called_is_checked_for_changes() -> None:
    """Its function is seen only when the code runs: a guard reads it and refuses one that
    changes what its caller can see, at the call."""
    with pytest.raises(srcad.MutationError) as caught:
        srcad.grad(m.passes_a_mutating_function)(2.0, m.poke)
    lines = [d.line for d in caught.value.diagnostics]
    assert _line(m.passes_a_mutating_function, "f(*pair)") in lines

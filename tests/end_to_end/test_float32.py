"""float32 arrays and NumPy float scalars on the specialised path (`srcad.dtypes`):
gradients and Jacobian-vector products against finite differences, each derivative of
its argument's dtype, and every end-to-end case run again in float32 against the general
rule (which projects every cotangent, so it keeps each argument's dtype)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from srcad.testing import finite_difference_jvp, finite_difference_vjp
from tests.end_to_end import test_specialised as specialised

STRONG = np.float64(0.5)  # a NumPy float64: with a float32 array, a float64 (NEP 50)
WEAK = 0.5  # a Python float: with a float32 array, a float32


def mse(y, yhat):
    n = len(y)
    s = 0.0
    for i in range(n):
        s += (y[i] - yhat[i]) ** 2.0
    return s / n


def elementwise(x):
    return np.sum(np.sin(x) * 2.0 + x**2 / 3.0 - np.exp(-x) * WEAK)


def with_float64_array(x, w):
    return np.sum(x * w) + np.mean(np.tanh(x))


def with_float64_scalar(x):
    return np.sum(x * STRONG + x * x)


def scalars(a, b):
    return a * b + math.sin(a) - b / 3.0 + a**2


def scalar_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + math.exp(x[i] * 0.1) * x[i]
    return s


def matrix(a, x):
    return np.sum(np.tanh(a @ x)) + np.sum(a * a)


def _rng_args(*shapes, dtype=np.float32):
    rng = np.random.default_rng(3)
    return tuple(rng.uniform(0.2, 0.9, shape).astype(dtype) for shape in shapes)


CASES = [
    (mse, _rng_args(7, 7)),
    (elementwise, _rng_args(5)),
    (with_float64_array, (*_rng_args(5), *_rng_args(5, dtype=np.float64))),
    (with_float64_scalar, _rng_args(4)),
    (scalars, (np.float32(0.7), np.float32(1.3))),
    (scalars, (np.float32(0.7), 1.3)),
    (scalars, (np.float64(0.7), np.float64(1.3))),
    (scalar_loop, _rng_args(6)),
    (matrix, _rng_args((3, 4), 4)),
]
IDS = [
    f"{f.__name__}-{'-'.join(type(a).__name__ + str(np.ndim(a)) for a in args)}"
    for f, args in CASES
]


def _tolerance(args):
    """float32 rounds at about 1e-7 relative: the derivative of a sum of a few such terms."""
    single = any(np.asarray(a).dtype == np.float32 for a in args)
    return {"rtol": 2e-3, "atol": 2e-4} if single else {"rtol": 1e-6, "atol": 1e-9}


def _widened(args):
    return tuple(np.float64(a) if np.ndim(a) == 0 else np.asarray(a, np.float64) for a in args)


@pytest.mark.parametrize(("function", "args"), CASES, ids=IDS)
def test_gradient_against_finite_differences_in_the_arguments_dtype(function, args):
    positions = tuple(range(len(args)))
    found = srcad.grad(function, wrt=positions)(*args)
    again = srcad.grad(function, wrt=positions)(*args)  # the entry's own branch, this time
    for position, (gradient, repeated) in enumerate(zip(found, again, strict=True)):
        expected = finite_difference_vjp(function, _widened(args), 1.0, position)
        np.testing.assert_allclose(np.asarray(gradient, np.float64), expected, **_tolerance(args))
        arg = args[position]
        if isinstance(arg, np.ndarray | np.floating):
            assert np.asarray(gradient).dtype == arg.dtype, (position, type(gradient))
            assert np.shape(gradient) == np.shape(arg)
        assert type(repeated) is type(gradient)
        np.testing.assert_array_equal(repeated, gradient)


@pytest.mark.parametrize(("function", "args"), CASES, ids=IDS)
def test_jvp_against_finite_differences(function, args):
    rng = np.random.default_rng(8)
    tangents = tuple(
        (
            rng.standard_normal(np.shape(a)).astype(np.asarray(a).dtype)
            if np.ndim(a)
            else type(a)(0.3)
        )
        for a in args
    )
    y, y_dot = srcad.jvp(function, args, tangents)
    np.testing.assert_allclose(float(y), float(function(*args)), rtol=1e-6)
    expected = finite_difference_jvp(function, _widened(args), _widened(tangents))
    np.testing.assert_allclose(float(y_dot), expected, **_tolerance(args))


@pytest.mark.parametrize(("function", "args"), CASES, ids=IDS)
def test_float32_takes_the_specialised_path(function, args):
    """Every argument has a kind, so the gradient is compiled for them (its header names
    them: `float32[:]`), and the entry keeps a branch for them."""
    assert None not in signature(args)
    text = COMPILER.compiled(function, None, Request.grad(signature(args), False)).source
    if any(np.asarray(a).dtype == np.float32 for a in args):
        assert "float32" in text.splitlines()[2]


def test_float32_loop_keeps_float32_tape_and_buffers():
    """The mse loop's gradient records only the difference it reads (a float32), and
    accumulates into float32 buffers: no rule call inside the loop."""
    args = _rng_args(5, 5)
    text = COMPILER.compiled(mse, None, Request.grad(signature(args), False)).source
    assert "zeros(y.shape, y.dtype)" in text
    loops = [line for line in text.splitlines() if line.startswith(" " * 8)]  # their bodies
    assert loops and not any("_rrule" in line or "pullback" in line for line in loops)


def test_complex_arguments_have_a_kind_of_their_own():
    """Complex values have kinds of their own class (`tests/end_to_end/test_complex_kinds.py`),
    never a float's: the real inline derivatives (no `conj`) never see them."""
    x = np.array([1.0 + 2.0j, 0.5 - 1.0j])
    assert signature((x,)) == (("c", 1),)
    _, pullback = srcad.rrule(lambda z: np.sum(z * z.conj()).real, x)
    _, x_bar = pullback(1.0)
    np.testing.assert_allclose(x_bar, 2 * x)


def _float32_cases():
    for param in specialised._cases():
        function, args = param.values
        converted = tuple(
            a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a
            for a in args
        )
        if any(np.asarray(a).dtype == np.float32 for a in converted):
            yield pytest.param(function, converted, id=param.id)


@pytest.mark.parametrize(("function", "args"), list(_float32_cases()))
def test_every_case_in_float32_agrees_with_the_general_rule(function, args):
    """Each end-to-end case with its float64 arrays made float32: the rule specialised
    for their kinds against the general one, cotangents of the same dtype."""
    kinds = signature(args)
    general = COMPILER.compiled(function, None, Request.rrule()).function
    found = COMPILER.compiled(function, None, Request.rrule(kinds)).function
    with np.errstate(all="ignore"):
        try:
            function(*args)
        except Exception as error:  # the function itself: NumPy has no float32 version
            pytest.skip(f"the function itself fails on float32 arrays ({type(error).__name__})")
        y, general_pullback = general(*args)
        y_found, found_pullback = found(*args)
        seed = np.random.default_rng(5).standard_normal(np.shape(y)).astype(np.asarray(y).dtype)
        seed = seed[()] if np.ndim(y) == 0 else seed
        expected, cotangents = general_pullback(seed), found_pullback(seed)
    np.testing.assert_allclose(np.asarray(y_found), np.asarray(y), rtol=1e-5, atol=1e-6)
    for position, arg in enumerate(args):
        e = specialised._plain(expected[position + 1])
        f = specialised._plain(cotangents[position + 1])
        if not isinstance(arg, np.ndarray) or arg.dtype != np.float32:
            continue
        np.testing.assert_allclose(
            np.asarray(f, np.float64), np.asarray(e, np.float64), rtol=1e-4, atol=1e-5
        )

"""Forward mode on every end-to-end function of the reverse-mode tests: the compiled frule
against finite differences, and against the compiled rrule (<y_bar, J v> = <J^T y_bar, v>)."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import srcad
from srcad.testing import _random_like, check_frule, inner

HERE = pathlib.Path(__file__).parent


def load(name):
    spec = importlib.util.spec_from_file_location(f"forward_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"forward_{name}"] = module
    spec.loader.exec_module(module)
    return module


CASES = [
    *[(f"straight_{c[0].__name__}", *c) for c in load("test_straight_line").CASES],
    *[(f"control_{c[0]}", c[1], c[2]) for c in load("test_control_flow").CASES],
    *[(f"containers_{c[0]}", c[1], c[2]) for c in load("test_containers").CASES],
    *[(f"closures_{c[0]}", c[1], c[2]) for c in load("test_closures_and_calls").CASES],
]


def tangents_for(args, rng):
    return tuple(
        _random_like(a, rng) if isinstance(a, float | np.ndarray | list | tuple)
        and not isinstance(a, bool) else srcad.NoTangent()
        for a in args
    )  # fmt: skip


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_forward_matches_finite_differences(function, args):
    rng = np.random.default_rng(7)
    check_frule(function, *args, tangents=tangents_for(args, rng), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_forward_and_reverse_agree(function, args):
    rng = np.random.default_rng(8)
    tangents = tangents_for(args, rng)
    y, y_dot = srcad.frule((srcad.NoTangent(), *tangents), function, *args)
    y_bar = _random_like(y, rng)
    _, pullback = srcad.rrule(function, *args)
    cotangents = pullback(y_bar)[1:]
    forward = inner(y_bar, srcad.unthunk(y_dot))
    reverse = sum(inner(c, t) for c, t in zip(cotangents, tangents, strict=True))
    assert forward == pytest.approx(reverse, rel=1e-9, abs=1e-12)


# A float added to (or taken from) an array that has no tangent, `np.zeros_like(v)` here:
# the result's tangent is the float's, standing for the whole array. Summed, it counts
# once per element; indexed, it has elements.
def _sum_of_zeros_plus(x, v):
    return np.sum(np.zeros_like(v) + x)


def _element_of_float_minus_zeros(x, v):
    return (x - np.zeros_like(v))[2] * x


def _sum_of_np_add(x, v):
    return np.sum(np.add(np.zeros_like(v), x)) * x


def _sum_of_np_subtract(x, v):
    return np.sum(np.subtract(x, np.zeros_like(v)))


def _sum_of_float_mod_array(x, v):
    return np.sum(x % (np.zeros_like(v) + 5.0))


@pytest.mark.parametrize(
    "function",
    [
        _sum_of_zeros_plus,
        _element_of_float_minus_zeros,
        _sum_of_np_add,
        _sum_of_np_subtract,
        _sum_of_float_mod_array,
    ],
)
def test_a_float_tangent_broadcast_over_an_array_without_one(function):
    args = (0.7, np.array([1.0, -2.0, 0.5]))
    tangents = (1.0, np.array([0.3, 0.1, -0.2]))
    check_frule(function, *args, tangents=tangents, rtol=1e-6, atol=1e-9)
    _, y_dot = srcad.jvp(function, args, tangents)
    step = 1e-6
    plus = function(*(a + step * t for a, t in zip(args, tangents, strict=True)))
    minus = function(*(a - step * t for a, t in zip(args, tangents, strict=True)))
    assert y_dot == pytest.approx((plus - minus) / (2 * step), rel=1e-6)


def _unused_numpy_division_by_zero(x, v):
    unused = (np.sum(np.ones(3)) - x) / (v.size - 3)  # NumPy's division: inf, and no error
    return x * np.sum(v) + 0.0 * np.isfinite(unused)


def test_the_tangent_of_a_numpy_division_by_zero_does_not_raise():
    """The function divides a NumPy float by a Python zero (inf, with a warning); the
    tangent of that division, a Python float over the same zero, must not raise."""
    args = (0.5, np.array([1.0, 2.0, 3.0]))
    tangents = (1.0, np.array([0.1, -0.2, 0.3]))
    step = 1e-6
    with np.errstate(divide="ignore", invalid="ignore"):
        _, y_dot = srcad.jvp(_unused_numpy_division_by_zero, args, tangents)
        pairs = list(zip(args, tangents, strict=True))
        plus = _unused_numpy_division_by_zero(*(a + step * t for a, t in pairs))
        minus = _unused_numpy_division_by_zero(*(a - step * t for a, t in pairs))
    assert y_dot == pytest.approx((plus - minus) / (2 * step), rel=1e-6)

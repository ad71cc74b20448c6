"""The expressions issue 20 found refused as gaps (E102), taken now: dict comprehensions
(a loop writing a fresh dict), `**` in dict displays and `|` of dicts (a merge, whose
derivative `|` once lost: it was marked as having none), assignment expressions
(`passes/transforms/assignment_expressions.py`), the shifts and `^` (integers, no
derivative). Both modes and second order against finite differences; what stays
refused, located."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_vjp
from tests.conftest import close, difference
from tests.end_to_end import expression_functions as m

X = np.array([0.5, -1.0, 2.0])
PARAMS = {"a": 3.0, "b": 1.5, "w": np.array([0.2, -0.4])}

# (function, arguments, the positions differentiated)
CASES: list[tuple[Any, tuple[Any, ...], tuple[int, ...]]] = [
    (m.doubled_params, (PARAMS,), (0,)),
    (m.squares_but_one, (X,), (0,)),
    (m.nested_in_a_dict, (X,), (0,)),
    (m.dicts_in_a_loop, ((0.3, 1.1), 3), (0,)),
    (m.tanh_layer, ({"u": X, "v": 0.7, "skip": 0.4}, 1.3), (0, 1)),
    (m.from_keys, (0.7,), (0,)),
    (m.from_keys_then_set, (-1.3,), (0,)),
    (m.with_a_new_weight, ({"w": 3.0, "b": 1.5}, 0.5), (0, 1)),
    (m.defaults_overridden, ({"a": 2.0, "c": -1.0}, 0.6), (0, 1)),
    (m.merged, ({"a": 2.0, "b": 5.0}, 0.6), (0, 1)),
    (m.new_value_last, ({"a": 2.0, "b": 5.0}, 0.6), (0, 1)),
    (m.merged_sets, (0.6, 4), (0,)),
    (m.counted_in_sets, (X, 5), (0,)),
    (m.counted_in_sets, (X, 2), (0,)),
    (m.threshold_squared, (X,), (0,)),
    (m.threshold_squared, (X / 4.0,), (0,)),
    (m.kept_squares, (X,), (0,)),
    (m.kept_squares, (np.array([0.1, 2.0, 0.2]),), (0,)),
    (m.counted_powers, (0.7,), (0,)),
    (m.read_then_rebound, (0.7,), (0,)),
    (m.guarded_sine, (0.7,), (0,)),
    (m.guarded_sine, (0.05,), (0,)),
    (m.guarded_sine, (-0.7,), (0,)),
    (m.either_branch, (0.7,), (0,)),
    (m.either_branch, (-0.7,), (0,)),
    (m.in_a_call, (X,), (0,)),
    (m.walrus_elsewhere, (0.3,), (0,)),
    (m.walrus_elsewhere, (1.2,), (0,)),
    (m.walrus_elsewhere, (-0.4,), (0,)),
    (m.shifted, (0.7, 3), (0,)),
    (m.shifted, (-1.2, 5), (0,)),
    (m.xor_indices, (X,), (0,)),
]
IDS = [f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(CASES)]


def _numeric_gradient(f: Any, args: tuple[Any, ...], position: int) -> Any:
    """`finite_difference_vjp` of `f` in `args[position]`, leaf by leaf of a dict or tuple."""
    arg = args[position]
    if not isinstance(arg, dict | tuple):
        return finite_difference_vjp(f, args, 1.0, position)
    keys = list(arg) if isinstance(arg, dict) else list(range(len(arg)))

    def leaf(key: Any) -> Any:
        def moved(value: Any) -> Any:
            if isinstance(arg, dict):
                new: Any = {**arg, key: value}
            else:
                new = tuple(value if i == key else a for i, a in enumerate(arg))
            return f(*args[:position], new, *args[position + 1 :])

        return finite_difference_vjp(moved, (arg[key],), 1.0, 0)

    found = {key: leaf(key) for key in keys}
    return found if isinstance(arg, dict) else tuple(found.values())


@pytest.mark.parametrize(("f", "args", "wrt"), CASES, ids=IDS)
def test_gradient_against_finite_differences(f: Any, args: tuple[Any, ...], wrt: tuple[int, ...]):
    value, gradient = srcad.value_and_grad(f, wrt)(*args)
    close(value, f(*args))
    for position, g in zip(wrt, gradient, strict=True):
        want = _numeric_gradient(f, args, position)
        if isinstance(want, dict):
            assert set(g) == set(want)
            for key in want:
                close(g[key], want[key])
        else:
            close(g, want)


def _has_dict(args: tuple[Any, ...]) -> bool:
    return any(isinstance(a, dict) for a in args)


PLAIN = [case for case in CASES if not _has_dict(case[1])]


@pytest.mark.parametrize(("f", "args", "wrt"), PLAIN, ids=[f.__name__ for f, _, _ in PLAIN])
def test_rules_against_finite_differences(f: Any, args: tuple[Any, ...], wrt: tuple[int, ...]):
    """The general rules (`rrule`, `frule`: every argument, random directions)."""
    check_rrule(f, *args)
    check_frule(f, *args)


def _direction(value: Any, seed: int) -> Any:
    if isinstance(value, dict):
        return {k: _direction(v, seed + i) for i, (k, v) in enumerate(value.items())}
    if isinstance(value, int):
        return srcad.ZeroTangent()
    return np.random.default_rng(seed).standard_normal(np.shape(value)) + 0.0 * np.asarray(value)


def _moved(value: Any, tangent: Any, step: float) -> Any:
    if isinstance(value, dict):
        return {k: _moved(v, tangent[k], step) for k, v in value.items()}
    if isinstance(tangent, srcad.ZeroTangent):
        return value
    moved = value + step * tangent
    return float(moved) if isinstance(value, float) else moved


DICTS = [case for case in CASES if _has_dict(case[1])]


@pytest.mark.parametrize(("f", "args", "wrt"), DICTS, ids=[f.__name__ for f, _, _ in DICTS])
def test_jvp_with_dict_tangents(f: Any, args: tuple[Any, ...], wrt: tuple[int, ...]):
    """`jvp` with a dict's tangent a dict, against central differences along it."""
    tangents = tuple(_direction(a, 7 * i) for i, a in enumerate(args))
    y, y_dot = srcad.jvp(f, args, tangents)
    close(y, f(*args))

    def along(s: float) -> Any:
        return f(*(_moved(a, t, s) for a, t in zip(args, tangents, strict=True)))

    close(y_dot, finite_difference_vjp(along, (0.0,), 1.0, 0))


# Those of a float or array argument, twice differentiable where they are taken.
SECOND_ORDER = [
    (f, args) for f, args, wrt in CASES if wrt == (0,) and not isinstance(args[0], dict | tuple)
]


@pytest.mark.parametrize(("f", "args"), SECOND_ORDER, ids=[f.__name__ for f, _ in SECOND_ORDER])
def test_hessian_against_finite_differences_of_the_gradient(f: Any, args: tuple[Any, ...]):
    hessian = srcad.hessian(f)(*args)
    close(hessian, difference(lambda *a: srcad.grad(f)(*a), args))


def test_dict_tangent_through_a_comprehension_of_items() -> None:
    """`jvp` with a dict tangent: each value's tangent is carried to its key."""
    tangent = {"a": 1.0, "b": -2.0, "w": np.array([0.5, 0.0])}
    y, y_dot = srcad.jvp(m.doubled_params, (PARAMS,), (tangent,))
    close(y, m.doubled_params(PARAMS))
    w = PARAMS["w"]
    want = 4.0 * (1.0 * 1.5 + 3.0 * -2.0) + np.sum(8.0 * w * tangent["w"])
    close(y_dot, want)


def test_an_overridden_value_gets_no_cotangent() -> None:
    """`{"a": 1.0, "b": x, **params}`: `params`' `a` wins; `x` reaches `b` alone."""
    g_params, g_x = srcad.grad(m.defaults_overridden, wrt=(0, 1))({"a": 2.0, "c": -1.0}, 0.6)
    close(g_params["a"], 0.6)
    close(g_params["c"], 0.6)
    close(g_x, 2.0 + -1.0)


def test_a_float_key_of_a_dict_comprehension_is_refused_when_it_runs() -> None:
    with pytest.raises(srcad.SrcadError, match=r"key .* is a number that may be differentiated"):
        srcad.grad(m.float_keys)(X)


def test_or_of_an_object_with_its_own_or_is_refused() -> None:
    with pytest.raises(srcad.SrcadError, match=r"`\|` of a _Odd"):
        srcad.grad(m.odd_or)(0.5)


def test_a_walrus_python_runs_later_stays_refused_located() -> None:
    with pytest.raises(srcad.UnsupportedSyntaxError) as caught:
        srcad.grad(m.walrus_in_a_generator)(X)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E102"
    assert "y := v" in diagnostic.source_line
    assert "assign the value in a statement before it" in diagnostic.hint


@pytest.mark.parametrize("f", [m.set_of_floats, m.set_of_an_array])
def test_a_set_of_differentiated_values_is_refused_located(f: Any) -> None:
    """A set's members take no derivative, as a dict's keys (E215)."""
    with pytest.raises(srcad.UnsupportedSyntaxError) as caught:
        srcad.grad(f)(X if f is m.set_of_an_array else 0.5)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E215"
    assert "a set's member computed from a differentiated value" in diagnostic.message
    assert diagnostic.source_line.strip().startswith("return sum(")

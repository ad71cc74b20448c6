"""Primitives given to srcad's transforms directly (`srcad.grad(np.floor)`,
`grad(grad(grad(grad(np.sin))))`): each is differentiated through the Python function that
calls it (`srcad/primitive_callers.py`), to any order, in both modes.

The walk covers every ufunc and `math` function the rule registry knows (a rule in either
mode, or marked non-differentiable) and fails on one it can neither check nor names in
`SKIPPED` with the reason."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.registry import REGISTRY
from tests.conftest import difference

# A generic point of each function's domain, where it is smooth (or flat).
AT: dict[Any, tuple[float, ...]] = {
    np.arccosh: (1.6,),
    math.acosh: (1.6,),
    np.float_power: (0.6, 1.7),
    np.power: (0.6, 1.7),
    math.pow: (0.6, 1.7),
    np.ldexp: (0.6, 3),
    math.remainder: (0.7, 0.4),  # (0.6 / 0.4 is 1.5, where the nearest quotient jumps)
}

# Functions of scalars the walk does not check, and why.
SKIPPED = {
    "gcd": "of integers only",
    "lcm": "of integers only",
    "floor_divide": "its value at a float is a float, but it is a division's integer part; "
    "checked through `//` in tests/rules/test_operators.py",
    **dict.fromkeys(
        ("gammainc", "gammaincc", "iv", "ive", "kv", "kve", "jv", "yv", "yn"),
        "SciPy's, differentiated in its last argument only (its first is a parameter whose "
        "partial is not written, refused): tests/rules/test_scipy_special_functions.py",
    ),
}


# Functions with no signature to read (`math.hypot(*coordinates)`, `math.log(x[, base])`):
# srcad cannot choose the arguments to differentiate, and refuses them given directly
# (`test_a_function_without_a_signature_is_refused_cleanly`); called in a function, they are
# differentiated (tests/rules/test_math.py).
NO_SIGNATURE = {math.hypot, math.log}


def name(primal: Any) -> str:
    return f"{getattr(primal, '__module__', None) or 'numpy'}.{primal.__name__}"


def takes_scalars(primal: Any) -> bool:
    return (isinstance(primal, np.ufunc) and primal.nout == 1 and primal.nin in (1, 2)) or (
        getattr(primal, "__module__", None) == "math" and callable(primal)
    )


def arity(primal: Any) -> int:
    if isinstance(primal, np.ufunc):
        return int(primal.nin)
    try:
        return len(srcad.callables.positional_parameters(primal))
    except srcad.SrcadError:  # no signature: `math.hypot(*coordinates)`
        return 0


def point(primal: Any) -> tuple[Any, ...]:
    return AT.get(primal, (0.6, 0.4)[: arity(primal)])


def walked() -> list[Any]:
    known = {rule.primal for rule in REGISTRY.rules()} | {
        rule.primal for rule in REGISTRY.forward_rules()
    }
    known |= set(REGISTRY.non_differentiables())
    found = []
    for primal in known:
        if not takes_scalars(primal) or getattr(primal, "__name__", "") in SKIPPED:
            continue
        if arity(primal) not in (1, 2):
            assert primal in NO_SIGNATURE, f"{name(primal)} takes {arity(primal)} arguments"
            continue
        try:
            value = primal(*point(primal))
        except (TypeError, ValueError):
            continue  # takes no floats: an integer or boolean function
        if isinstance(value, float | np.floating):
            found.append(primal)
    return sorted(found, key=lambda p: (type(p).__name__, p.__name__))


PRIMITIVES = walked()


def test_the_walk_reaches_the_functions_it_is_about() -> None:
    names = {p.__name__ for p in PRIMITIVES}
    assert {"floor", "ceil", "sign", "rint", "trunc", "fabs", "sin", "hypot"} <= names
    assert len(PRIMITIVES) > 60


@pytest.mark.parametrize("primal", PRIMITIVES, ids=name)
def test_first_and_second_derivatives_of_a_primitive_given_directly(primal: Any) -> None:
    args = point(primal)
    rest = args[1:]

    def first(x: float) -> Any:
        return primal(x, *rest)

    gradient = srcad.grad(primal)(*args)
    np.testing.assert_allclose(gradient, difference(first, (args[0],)), rtol=1e-6, atol=1e-8)
    _, tangent = srcad.jvp(primal, args, (1.0, *(0.0 for _ in rest)))
    np.testing.assert_allclose(tangent, gradient, rtol=1e-12, atol=1e-14)
    second = srcad.grad(srcad.grad(primal))(*args)
    expected = difference(srcad.grad(primal), args)
    np.testing.assert_allclose(second, expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(srcad.hessian(primal)(*args), expected, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("primal", [np.sin, np.tanh, np.floor, np.exp, math.sqrt], ids=name)
def test_derivatives_of_a_primitive_given_directly_to_fourth_order(primal: Any) -> None:
    derivative = primal
    for _ in range(3):
        derivative = srcad.grad(derivative)
    expected = difference(derivative, (0.6,))
    fourth = srcad.grad(derivative)(0.6)
    np.testing.assert_allclose(fourth, expected, rtol=1e-5, atol=1e-7)
    # jvp of the third derivative: forward mode over it.
    np.testing.assert_allclose(srcad.jvp(derivative, (0.6,), (1.0,))[1], fourth, rtol=1e-10)


def test_a_primitive_with_options_given_directly_is_differentiated_in_its_arrays() -> None:
    x = np.array([0.3, -1.2, 0.7])
    np.testing.assert_allclose(srcad.hessian(np.sum)(x), np.zeros((3, 3)))
    np.testing.assert_allclose(srcad.grad(np.floor)(1.3), 0.0)
    np.testing.assert_allclose(srcad.jacobian(np.ceil)(x), np.zeros((3, 3)))
    np.testing.assert_allclose(srcad.jacobian(srcad.grad(np.sum))(x), np.zeros((3, 3)))


@pytest.mark.parametrize("primal", sorted(NO_SIGNATURE, key=name), ids=name)
def test_a_function_without_a_signature_is_refused_cleanly(primal: Any) -> None:
    for transform in (srcad.grad, srcad.hessian):
        with pytest.raises(srcad.SrcadError, match=f"{primal.__name__}.*wrap it"):
            transform(primal)(0.6)


def test_options_given_to_a_primitive_given_directly_are_refused_naming_it() -> None:
    with pytest.raises(srcad.SrcadError, match=r"differentiates sum given directly .*\(a\)"):
        srcad.hessian(np.sum)(np.ones(3), 0)

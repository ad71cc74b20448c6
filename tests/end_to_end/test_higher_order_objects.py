"""Issue 20: third derivatives through the fields and computed attributes (properties,
`__getattr__`, `functools.cached_property`) and the methods of objects: plain classes,
dataclasses, NamedTuples, dicts and arrays, in reverse mode over the forward rule of the
forward rule (`grad` three deep) and forward mode to third order (`jacobian` three deep).
Each against central differences of the order below.

A plain class's or a dict's tangent is a `Tangent` by field, which the linear rules of a
field read's forward rule of the forward rule once took for a zero: a third derivative
that dropped terms, with no error (`second_order._zeros_throughout`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp
from tests.end_to_end import higher_order_object_functions as functions

T = 0.7


def _check(lower: Any, higher: Any) -> None:
    expected = float(finite_difference_jvp(lower, (T,), (1.0,)))
    assert float(higher(T)) == pytest.approx(expected, rel=2e-5, abs=1e-6)


@pytest.mark.parametrize("f", functions.FUNCTIONS, ids=lambda f: f.__name__)
def test_third_derivatives_through_objects_match_differences(f: Any) -> None:
    second = srcad.grad(srcad.grad(f))
    _check(f, srcad.grad(f))
    _check(second, srcad.grad(second))
    twice = srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")
    _check(srcad.grad(f), twice)
    _check(twice, srcad.jacobian(twice, mode="forward"))


@pytest.mark.parametrize(
    "f",
    [functions.through_a_field, functions.through_dataclass_fields,
     functions.through_a_named_tuple],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_fourth_derivatives_through_fields_match_differences(f: Any) -> None:
    """Reading a field is linear: its forward rules are nested as a linear function's
    (`fourth_order_calls._field_nested`, to `second_order.NESTING` deep), so `grad` four
    deep goes through it (five deep too, which compiles for seconds: not run here)."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    _check(third, srcad.grad(third))


@pytest.mark.parametrize(
    "f", [*functions.METHODS, functions.calls_of_values], ids=lambda f: f.__name__
)
def test_fourth_derivatives_through_methods_match_differences(f: Any) -> None:
    """A user class's method, and calls of Python functions held as values: the forward
    rules srcad generates for the function's source, nested
    (`fourth_order_calls._method_nested`, `_call_nested`), the tangents moved at every
    depth."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    _check(third, srcad.grad(third))


def test_fourth_derivatives_through_a_ufunc_called_as_a_value() -> None:
    """A ufunc held by a local runs its registered rule: four deep, through the function
    that calls it (`primitive_callers`), whose call srcad resolves against the rules."""
    third = srcad.grad(srcad.grad(srcad.grad(functions.through_function_values)))
    _check(third, srcad.grad(third))


def _rows(t: Any) -> Any:
    return np.array([[t, 1.0 + t], [t * t, 2.0]])


@pytest.mark.parametrize(
    "f",
    [lambda t: np.array([t, t * t]).sum() ** 4,
     lambda t: np.sum(_rows(t).sum(axis=0) ** 3),
     lambda t: np.sum(_rows(t).prod(axis=0) ** 2),
     lambda t: _rows(t).var(ddof=1) ** 2,
     lambda t: np.sum(_rows(t).clip(0.1, 1.5) ** 4),
     lambda t: np.sum(_rows(t).reshape(4) ** 4),
     lambda t: np.array([t, 2.0]).dot(np.array([t * t, t])) ** 2],
    ids=["sum", "sum_axis", "prod_axis", "var_ddof", "clip", "reshape", "dot"],
)  # fmt: skip
def test_fourth_derivatives_through_array_methods(f: Any) -> None:
    """An array's method runs a function with a registered rule: its registered forward
    rules nested (`np.sum` is linear, `np.var` has a definition, `clip` is piecewise
    linear; a shape packed into one argument has no tangent), or the function that calls
    it (`np.dot`), four deep."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    _check(third, srcad.grad(third))


@pytest.mark.parametrize(
    "f",
    [functions.through_a_property, functions.through_a_dataclass_property,
     functions.through_getattr_hooks],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_fourth_derivatives_through_computed_attributes_match_differences(f: Any) -> None:
    """A property, `__getattr__`, `functools.cached_property`: the forward rules srcad
    generates for the getter's source, nested (`fourth_order_calls._field_nested`)."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    _check(third, srcad.grad(third))


def test_hessians_of_a_vector_function_through_properties_forward_over_forward() -> None:
    def f(x):
        box = functions.Box(x * x)
        return np.sum(box.energy**2) + np.sum(functions.Lazy(x).cube * x)

    x = np.array([0.3, -0.7, 0.55])
    twice = srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")
    gradient = srcad.grad(f)
    columns = [finite_difference_jvp(gradient, (x,), (e,)) for e in np.eye(3)]
    np.testing.assert_allclose(twice(x), np.stack(columns, -1), rtol=1e-5, atol=1e-6)

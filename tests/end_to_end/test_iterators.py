"""Every iterable a rule gives (`reversed`, `map`, `zip`, `enumerate`) may be read twice by
the rule of what consumes it (`sum`'s pullback, `max`'s choice of an item): a one-shot
iterator read again is empty, and `sum(reversed(x))` had a gradient of 0 with no error.
Each producer under each consumer (`iterator_functions.py`) either gives central
differences' numbers, in both modes, or is refused with a `SrcadError`: never a wrong
number, never another exception."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp
from tests.end_to_end.iterator_functions import FUNCTIONS

X = np.array([0.4, 1.3, -0.6])
V = np.array([0.3, -0.7, 1.1])
# Those that must be differentiated, not refused: the producers srcad has rules for.
DIFFERENTIATED = ("reversed", "map", "genexp", "zip", "enumerate")


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_right_or_refused(f: Any) -> None:
    must_work = f.__name__.endswith(DIFFERENTIATED) and not f.__name__.startswith("fsum")
    try:
        gradient = srcad.grad(f)(X)
        _, tangent = srcad.jvp(f, (X,), (V,))
    except srcad.SrcadError:
        assert not must_work, f"{f.__name__} was refused"
        return
    np.testing.assert_allclose(gradient, finite_difference_vjp(f, (X,), 1.0, 0), atol=1e-8)
    np.testing.assert_allclose(tangent, finite_difference_jvp(f, (X,), (V,)), atol=1e-8)


@pytest.mark.parametrize("name", ["sum_of_reversed", "max_of_reversed", "list_of_zip"])
def test_second_order_through_reversed(name: str) -> None:
    f = next(f for f in FUNCTIONS if f.__name__ == name)
    hessian = srcad.hessian(f)(X)
    gradient = srcad.grad(f)
    expected = np.stack([finite_difference_jvp(gradient, (X,), (e,)) for e in np.eye(3)], -1)
    np.testing.assert_allclose(hessian, expected, atol=1e-6)


def diagonal_method(m):
    return np.sum(np.sin(m.diagonal())) + np.sum(m.diagonal(1) ** 2) + np.sum(m.take([0, 3]))


def compressed(m):
    return np.sum(m.compress([True, False, True]))


def test_array_methods_diagonal_and_take() -> None:
    m = np.arange(9.0).reshape(3, 3) / 7.0
    np.testing.assert_allclose(
        srcad.grad(diagonal_method)(m), finite_difference_vjp(diagonal_method, (m,), 1.0, 0)
    )
    _, tangent = srcad.jvp(diagonal_method, (m,), (np.ones((3, 3)),))
    expected = finite_difference_jvp(diagonal_method, (m,), (np.ones((3, 3)),))
    np.testing.assert_allclose(tangent, expected)


def test_an_array_method_without_a_rule_is_a_srcad_error() -> None:
    with pytest.raises(srcad.SrcadError, match=r"array method \.compress"):
        srcad.grad(compressed)(np.array([3.0, 1.0, 2.0]))

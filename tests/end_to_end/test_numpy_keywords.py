"""Differentiated values passed by keyword to NumPy functions whose rules differentiate
them by position (`registry.ByPosition`: `np.average(x, weights=w)`, `np.clip(x, min=m)`,
the `initial=` of `np.sum`, `np.prod`, `np.max`, the builtin `sum`'s `start=`, ...; and
`math.prod(xs, start=s)`, which the normal form passes as `math.prod([s, *xs])`):
gradients, forward derivatives and Hessians against central finite differences, and the
keywords left as options where no differentiated one is moved."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_jvp, finite_difference_vjp
from tests.conftest import close, difference
from tests.end_to_end import numpy_keyword_functions as m

X = np.array([0.3, 1.2, -0.7])
X2 = np.array([0.8, -0.4, 1.5])
FUNCTIONS = [
    m.average_weights,
    m.average_weights_axis,
    m.select_default,
    m.select_by_name,
    m.trapezoid_x,
    m.trapezoid_dx,
    m.interp_keywords,
    m.interp_ends,
    m.clip_a_min_a_max,
    m.clip_min,
    m.clip_max,
    m.solve_keywords,
    m.lstsq_keyword,
    m.full_fill_value,
    m.nan_to_num_values,
    m.append_values,
    m.linspace_stop,
    m.dot_b,
    m.outer_b,
    m.kron_b,
    m.cross_b,
    m.tensordot_b,
    m.sum_initial,
    m.sum_initial_over_an_axis,
    m.sum_constant_initial,
    m.nansum_initial,
    m.prod_initial,
    m.prod_initial_keepdims,
    m.max_initial_in_some_rows,
    m.min_initial_winning,
    m.builtin_sum_start,
    m.math_prod_start,
    m.math_prod_start_of_a_generator,
]
CASES = [(f, x) for f in FUNCTIONS for x in (X, X2)]
IDS = [f"{f.__name__}-{i}" for f in FUNCTIONS for i in range(2)]


@pytest.mark.parametrize(("f", "x"), CASES, ids=IDS)
def test_gradient(f: Any, x: np.ndarray) -> None:
    close(srcad.grad(f)(x), finite_difference_vjp(f, (x,), 1.0, 0))
    check_rrule(f, x)


@pytest.mark.parametrize(("f", "x"), CASES, ids=IDS)
def test_forward(f: Any, x: np.ndarray) -> None:
    direction = np.array([0.5, -0.3, 0.8])
    _, y_dot = srcad.jvp(f, (x,), (direction,))
    close(y_dot, finite_difference_jvp(f, (x,), (direction,)))
    check_frule(f, x)


@pytest.mark.parametrize(("f", "x"), CASES, ids=IDS)
def test_hessian(f: Any, x: np.ndarray) -> None:
    gradient = srcad.grad(f)
    np.testing.assert_allclose(srcad.hessian(f)(x), difference(gradient, (x,)), 1e-5, 1e-6)


def test_the_keyword_is_passed_by_position() -> None:
    """The normal form passes `weights=` by position, the parameters before it their
    defaults; a keyword nothing differentiated needs stays a keyword."""
    text = srcad.source(m.average_weights_axis)
    assert "average_rrule(table, 0, x_pow_2_plus_1, returned=True)" in text


def test_a_keyword_no_rule_differentiates_is_refused() -> None:
    with pytest.raises(srcad.UnsupportedSyntaxError) as caught:
        srcad.grad(m.pad_constant_values)(X)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E211"
    assert "constant_values" in diagnostic.message


def test_the_constant_keywords_keep_their_values() -> None:
    """A keyword whose value carries no derivative is left where it is, or moved with its
    value: the primal is NumPy's."""
    w = np.array([1.0, 2.0, 3.0])
    f = lambda x: np.average(x, weights=w)  # noqa: E731
    close(srcad.grad(f)(X), w / np.sum(w))


def test_a_keyword_passed_twice_fails_as_python_does() -> None:
    with pytest.raises(TypeError):
        m.average_weights_and_axis_twice(X)
    with pytest.raises(TypeError):
        srcad.grad(m.average_weights_and_axis_twice)(X)

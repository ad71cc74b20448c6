"""`np.r_[...]` and `np.c_[...]` (lowered to `index_concatenate`, whose rules ask NumPy
where each element lands), and `np.s_`/`np.index_exp` as indices: gradients, forward
derivatives and Hessians against central finite differences; the matrix directives
refused, located."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_jvp, finite_difference_vjp
from tests.conftest import close
from tests.end_to_end import index_builder_functions as m

X = np.array([0.3, 1.2, -0.7])
V = np.array([0.4, -0.2, 0.9])
FUNCTIONS = [
    m.r_two,
    m.r_numbers_and_slices,
    m.r_linspace_and_ints,
    m.r_directives,
    m.c_columns,
    m.c_matrix_and_vectors,
    m.single_pieces,
    m.by_another_name,
    m.complex_piece,
    m.index_expressions,
]
IDS = [f.__name__ for f in FUNCTIONS]


@pytest.mark.parametrize("f", FUNCTIONS, ids=IDS)
def test_gradient(f: Any) -> None:
    close(srcad.grad(f)(X), finite_difference_vjp(f, (X,), 1.0, 0))
    check_rrule(f, X)


@pytest.mark.parametrize("f", FUNCTIONS, ids=IDS)
def test_forward(f: Any) -> None:
    _, y_dot = srcad.jvp(f, (X,), (V,))
    close(y_dot, finite_difference_jvp(f, (X,), (V,)))
    check_frule(f, X)


@pytest.mark.parametrize("f", FUNCTIONS, ids=IDS)
def test_hessian(f: Any) -> None:
    expected = finite_difference_jvp(srcad.grad(f), (X,), (V,))
    np.testing.assert_allclose(srcad.hessian(f)(X) @ V, expected, rtol=1e-5, atol=1e-7)


def test_the_rules_alone() -> None:
    """The rule of `index_concatenate` itself, complex pieces and a 2-d one included."""
    z = X + 1j * V
    check_rrule(srcad.primitives.index_concatenate, np.r_, z, 2.0, slice(0, 2), X)
    check_frule(srcad.primitives.index_concatenate, np.c_, np.outer(X, V), z)
    check_rrule(srcad.primitives.index_concatenate, np.r_, "0,2,1", X, np.outer(V, X))


def test_a_matrix_directive_is_refused_where_it_is_written() -> None:
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(m.matrix_directive)(X)
    (diagnostic,) = caught.value.diagnostics
    _, start = inspect.getsourcelines(m.matrix_directive)
    assert diagnostic.code == "E210"
    assert diagnostic.line == start + 1
    assert "np.concatenate" in diagnostic.hint


def test_a_matrix_directive_in_a_variable_is_refused_when_it_runs() -> None:
    close(srcad.grad(m.directive_in_a_variable)(X, "0"), 2 * np.ones(3))
    with pytest.raises(srcad.SrcadError, match=r"np\.matrix"):
        srcad.grad(m.directive_in_a_variable)(X, "c")

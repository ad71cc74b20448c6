"""Second derivatives (the Hessian, its products with a vector, and `jacobian(grad(f))` in
both modes) through the constructs whose forward rules call a function known only at run
time or move structural tangents (`rules/second_order_calls.py`, docs/higher_order.md),
against central differences of `srcad.grad`."""

import numpy as np
import pytest

import srcad
from tests.conftest import difference
from tests.end_to_end import second_order_object_functions as functions
from tests.end_to_end import test_bound_methods as bound_methods
from tests.end_to_end import test_classes as classes
from tests.end_to_end import test_closures_and_calls as closures
from tests.end_to_end import test_keywords as keywords
from tests.end_to_end import test_star_calls as star_calls
from tests.end_to_end import test_structs as structs
from tests.rules.test_higher_order import check_second_order

X = np.array([0.3, -0.7, 0.55])


@pytest.mark.parametrize("function", functions.FUNCTIONS, ids=lambda f: f.__name__)
def test_second_derivatives_match_differences_of_the_gradient(function):
    check_second_order(function, (X,))


def _hessian_by_differences(f, args, position):
    return difference(srcad.grad(f, wrt=position), args, position)


def _other_suites():
    """One point of each case of the first-order suites of these constructs (those of
    `test_call_values.py` are checked there, to second order)."""
    seen = set()
    for f, args in [
        *classes.CASES,
        *keywords.CASES,
        *bound_methods.CASES,
        *[(f, structs.ARGS) for f in structs.st.STRUCTS],
        *[case[1:] for case in closures.CASES],
        *[case for case in star_calls.CASES if np.ndim(case[0](*case[1])) == 0],
    ]:
        if f not in seen:
            seen.add(f)
            yield f, args


# Functions of `*args` alone have no argument to differentiate by position.
NO_POSITION = {closures.cf.total, star_calls.m.all_unpacked}


@pytest.mark.parametrize(
    ("f", "args"),
    [c for c in _other_suites() if c[0] not in NO_POSITION],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_the_first_order_suites_to_second_order(f, args):
    for position, value in enumerate(args):
        if not isinstance(value, float | np.ndarray):
            continue
        expected = _hessian_by_differences(f, args, position)
        got = srcad.hessian(f, wrt=position)(*args)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        for mode in ("reverse", "forward"):
            jacobian = srcad.jacobian(srcad.grad(f, wrt=position), wrt=position, mode=mode)
            np.testing.assert_allclose(jacobian(*args), expected, rtol=1e-5, atol=1e-6)


# Forward over forward (`jacobian(jacobian(f))`): these constructs' forward rules read
# srcad's machinery (`srcad/machinery.py`), so srcad generates no forward rule of them
# and takes each element row by row, reverse mode over the forward rule. A computed
# attribute goes through its getter's forward rule of the forward rule
# (`second_order_calls.getattr_frule_frule`).
@pytest.mark.parametrize("function", functions.FUNCTIONS, ids=lambda f: f.__name__)
def test_forward_over_forward_matches_differences_of_the_gradient(function):
    got = srcad.jacobian(srcad.jacobian(function, mode="forward"), mode="forward")(X)
    expected = _hessian_by_differences(function, (X,), 0)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("f", "args"),
    [c for c in star_calls.CASES if c[0] not in NO_POSITION and np.ndim(c[0](*c[1])) == 0],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_forward_over_forward_through_star_calls(f, args):
    """`f(*args)`, `obj.method(*args, **options)`: the generated forward rule calls the
    rule of `unpacked_call` with `**options`, a call srcad checks where it is compiled."""
    for position, value in enumerate(args):
        if isinstance(value, float) or (isinstance(value, np.ndarray) and value.ndim == 1):
            twice = srcad.jacobian(srcad.jacobian(f, wrt=position, mode="forward"),
                                   wrt=position, mode="forward")  # fmt: skip
            expected = _hessian_by_differences(f, args, position)
            np.testing.assert_allclose(twice(*args), expected, rtol=1e-5, atol=1e-6)

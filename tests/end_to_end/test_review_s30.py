"""Adversarial programs for the mechanisms of session 29 (`review_functions.py`): appends
done in place (`passes/analyses/grown_lists.py`, `tangents.pop_element`) under break,
continue, while, early returns, nested loops, closures and every reader of a list; list
element kinds of mixed elements (ints, complex numbers, arrays, booleans); known-zero
cotangents folded out of pullbacks (`passes/transforms/zero_cotangents.py`). Every mode
and the Hessian against central differences. Regressions of what the review found: an
append inside an expression is refused where it was a crash (a KeyError); a result's
cotangent given as plain lists and tuples adds where it joined end to end (a wrong
gradient); a list parameter's array cotangent and `np.maximum` of a list were TypeErrors."""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("review_functions", HERE / "review_functions.py")
rf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rf)

FUNCTIONS = [
    f for name, f in vars(rf).items() if name.startswith(("grown_", "zeros_")) and callable(f)
]


def close(got, want):
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), 1e-6, 1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_every_mode_matches_differences(f):
    x = 0.7
    want = finite_difference_vjp(f, (x,), 1.0, 0)
    close(srcad.grad(f)(x), want)
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    close(srcad.jacobian(f, mode="forward")(x), want)
    close(srcad.jvp(f, (x,), (1.0,))[1], want)
    close(srcad.hessian(f)(x), finite_difference_jvp(srcad.grad(f), (x,), (1.0,)))


@pytest.mark.parametrize(
    "f",
    [rf.appended_in_a_comprehension, rf.append_result_read, rf.appends_in_a_boolean_operation,
     rf.appended_in_a_differentiated_nested_comprehension],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_an_append_inside_an_expression_is_refused(f):
    """The normal form rewrites `xs.append(v)` written as a statement; one inside an
    expression was left a call with no callee (a KeyError in `OperationRules`)."""
    for derivative in (srcad.grad(f), lambda x: srcad.jvp(f, (x,), (1.0,))):
        with pytest.raises(srcad.MutationError) as raised:
            derivative(0.7)
        assert {d.code for d in raised.value.diagnostics} == {"E302"}
        assert "inside an expression, not a statement" in str(raised.value)


def test_a_nested_function_that_runs_as_it_is_may_append_inside_an_expression():
    f = rf.appended_in_a_constant_nested_comprehension
    close(srcad.grad(f)(0.7), 3.0)
    close(srcad.jvp(f, (0.7,), (1.0,))[1], 3.0)


def _weighted(f, cotangent):
    """`x -> <f(x), cotangent>` over the leaves of a result of lists, tuples and dicts."""

    def leaves(value, weights):
        if isinstance(value, dict):
            return sum(leaves(value[k], weights[k]) for k in value)
        if isinstance(value, list | tuple):
            return sum(leaves(v, w) for v, w in zip(value, weights, strict=True))
        return value * weights

    return lambda x: leaves(f(x), cotangent)


@pytest.mark.parametrize(
    "f, cotangent",
    [(rf.appended_list_returned_twice, ([1.0, 2.0, 3.0], [10.0, 20.0, 30.0])),
     (rf.list_returned_twice, ([1.0, 2.0], [10.0, 20.0])),
     (rf.tuple_returned_twice, ((1.0, 2.0), (10.0, 20.0))),
     (rf.list_returned_and_read, ([1.0, 2.0], 3.0)),
     (rf.list_in_a_dict_twice, {"p": [1.0, 2.0], "q": [10.0, 20.0]}),
     (rf.list_returned_nested, ([1.0, 2.0], ([10.0, 20.0], 3.0)))],
    ids=["grown", "list", "tuple", "list-and-read", "dict", "nested"],
)  # fmt: skip
def test_plain_list_and_tuple_cotangents_of_a_value_returned_twice_add(f, cotangent):
    """A cotangent given as plain lists and tuples: the two of a list returned twice were
    joined end to end by `+` (66 for `grown`'s came out 60, 6 before appends in place), or
    failed to unpack; they add (`tangents.structural`)."""
    want = finite_difference_vjp(_weighted(f, cotangent), (0.7,), 1.0, 0)
    close(srcad.vjp(f, 0.7)[1](cotangent)[0], want)
    close(srcad.rrule(f, 0.7)[1](cotangent)[1], want)


@pytest.mark.parametrize("a", [[0.3, -0.5, 0.8], (0.3, -0.5, 0.8)], ids=["list", "tuple"])
def test_gradient_of_a_list_parameter_through_array_functions(a):
    """A list parameter's cotangent an array (`np.dot`'s, `np.add`'s) is read by position
    into the list's structure (`trees.part`), where it raised a TypeError."""
    f = rf.ufunc_of_a_list_parameter
    gradient = srcad.grad(f)(a)
    assert type(gradient) is type(a)
    close(gradient, 12.0 * np.asarray(a))


def test_extrema_with_a_list_operand():
    """`np.maximum([x, -x], 0.1)`: the share of the cotangent at a tie took a list's dtype
    (a TypeError)."""
    f = rf.extrema_of_lists
    want = finite_difference_vjp(f, (0.7,), 1.0, 0)
    close(srcad.grad(f)(0.7), want)
    close(srcad.jvp(f, (0.7,), (1.0,))[1], want)
    close(srcad.hessian(f)(0.7), finite_difference_jvp(srcad.grad(f), (0.7,), (1.0,)))


def test_forward_mode_of_a_binary_ufunc_of_list_displays():
    """The forward rule multiplied its partial (1.0) by the list's tangent, a list (a
    TypeError); `test_list_operands.py` checks the class."""
    f = rf.ufunc_of_two_list_displays
    close(srcad.grad(f)(0.7), finite_difference_vjp(f, (0.7,), 1.0, 0))
    close(srcad.jvp(f, (0.7,), (1.0,))[1], finite_difference_vjp(f, (0.7,), 1.0, 0))

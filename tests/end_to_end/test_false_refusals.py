"""False refusals (issue 20): code whose derivative is sound, refused by a check that
resolved names by their text or could not see that a value has no derivative, or is never
changed in place. Each is checked against central finite differences in every entry point
(reverse and forward), in loops and helpers; what stays unprovable stays refused, with a
located diagnostic.

- A nested function's own local of the same name as an enclosing list (E302): names are
  resolved by Python's scope rules (`passes/analyses/scopes.py: variable_nodes`).
- An integer option passed through as `axis=` (E211): NumPy's integer options of library
  rules, and values proved integers by their kinds, need no derivative
  (`passes/analyses/operation_rules.py: _underivable`).
- `s += v` on a float (E306): a variable proved to hold an immutable number is rebound by
  Python too (`passes/checks/immutable_numbers.py`).
"""

import importlib.util
import inspect
import pathlib
import textwrap

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER
from srcad.passes.testing import context_for
from srcad.tangents import materialize
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "false_refusal_functions", HERE / "false_refusal_functions.py"
)
fr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fr)
FILE = str(HERE / "false_refusal_functions.py")

X = np.arange(1.0, 7.0).reshape(2, 3) / 7 + 0.1
Y = np.array([0.4, -0.3])
SQUARE = np.arange(1.0, 5.0).reshape(2, 2) / 5 - 0.2


def close(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def tangent_like(x):
    return np.full(np.shape(x), 0.7) if isinstance(x, np.ndarray) else 0.7


def check_reverse(f, args, position):
    """`grad` (twice: the second call takes the entry's fast path), `value_and_grad`,
    `rrule`, `vjp` and `jacobian`, for the argument at `position`, against finite
    differences."""
    y = f(*args)
    want = finite_difference_vjp(f, args, 1.0, position)
    assert np.any(want != 0)
    gradient = srcad.grad(f, wrt=position)
    close(gradient(*args), want)
    close(gradient(*args), want)
    value, got = srcad.value_and_grad(f, wrt=position)(*args)
    close(value, y)
    close(got, want)
    _, pullback = srcad.rrule(f, *args)
    close(materialize(pullback(1.0)[1 + position], args[position]), want)
    _, vjp_fn = srcad.vjp(f, *args)
    close(materialize(vjp_fn(1.0)[position], args[position]), want)
    close(srcad.jacobian(f, wrt=position)(*args), want)


def check_forward(f, args, position):
    """`jacobian(mode="forward")`, `jvp` and `frule` along the argument at `position`."""
    y = f(*args)
    want = finite_difference_vjp(f, args, 1.0, position)
    close(srcad.jacobian(f, wrt=position, mode="forward")(*args), want)
    tangents = tuple(
        tangent_like(a) if i == position else srcad.ZeroTangent() for i, a in enumerate(args)
    )
    want_dot = finite_difference_jvp(f, args, tangents)
    y_jvp, y_dot = srcad.jvp(f, args, tangents)
    close(y_jvp, y)
    close(y_dot, want_dot)
    _, y_dot = srcad.frule((srcad.NoTangent(), *tangents), f, *args)
    close(materialize(y_dot, y), want_dot)


def check_every_mode(f, args, position):
    check_reverse(f, args, position)
    check_forward(f, args, position)


def line_of(function, text):
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def refusal(call):
    with pytest.raises(srcad.SrcadError) as caught:
        call()
    return caught.value.diagnostics


def assert_refused_at(call, function, text, code):
    found = [(d.file, d.line, d.code) for d in refusal(call)]
    assert (FILE, line_of(function, text), code) in found, found


# -- 1. a nested function's own local shadows an outer list ------------------------------------

SHADOWING = [
    fr.outer_list_inner_local,
    fr.outer_list_lambda_parameter,
    fr.outer_list_comprehension_variable,
    fr.outer_list_nested_two_deep,
    fr.calls_shadowing_helper,
]


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", SHADOWING, ids=lambda f: f.__name__)
def test_an_inner_local_of_the_same_name_leaves_the_outer_list_fresh(function, position):
    check_every_mode(function, (X, Y), position)


@pytest.mark.parametrize(
    "function, text",
    [
        (fr.nested_function_appends_to_outer_list, "    out.append(v)"),
        (fr.nested_function_rebinds_outer_list, "out.append(x * 2.0)"),
        (fr.nested_function_returns_outer_list, "out.append(x * 2.0)"),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_a_list_a_nested_function_shares_stays_refused(function, text):
    for call in (
        lambda: srcad.grad(function)(X, Y),
        lambda: srcad.jvp(function, (X, Y), (X, Y)),
    ):
        assert_refused_at(call, function, text, "E302")


# -- 2. an integer option passed through as `axis=` --------------------------------------------

AXIS_THROUGH = [
    fr.uses_lse,
    fr.uses_lse_in_a_loop,
    fr.uses_lse_keepdims,
    fr.axis_from_ndim,
]


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", AXIS_THROUGH, ids=lambda f: f.__name__)
def test_an_axis_passed_through_by_keyword_needs_no_derivative(function, position):
    args = (X, np.array([0.4, -0.3, 0.2])) if function is fr.uses_lse_in_a_loop else (X, Y)
    check_every_mode(function, args, position)


@pytest.mark.parametrize("axis", [0, 1])
def test_the_axis_parameter_itself(axis):
    check_reverse(fr.lse_total, (X, axis), 0)
    _, pullback = srcad.rrule(fr.lse, X, axis)
    assert isinstance(pullback(np.ones(X.shape[1 - axis]))[2], srcad.NoTangent)


def test_a_differentiable_keyword_stays_refused():
    for call in (
        lambda: srcad.grad(fr.uses_p_norm, wrt=1)(X, Y),
        lambda: srcad.jvp(fr.uses_p_norm, (X, Y), (X, Y)),
    ):
        assert_refused_at(call, fr.p_norm, "ord=p", "E211")


# -- 3. `+=` on a float ----------------------------------------------------------------------

FLOATS = [
    fr.float_counter_kept,
    fr.float_alias_then_add,
    fr.math_and_len_counters,
    fr.float_counter_in_nested_function,
    fr.calls_counter_helper,
]


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", FLOATS, ids=lambda f: f.__name__)
def test_augmented_assignment_of_a_float_is_a_rebinding(function, position):
    args = (np.arange(1.0, 5.0) / 4, Y) if function is fr.float_counter_kept else (X, Y)
    check_every_mode(function, args, position)


KINDS_PROVE = [
    (fr.float_of_array_sum, (X, Y), "s += np.sum"),
    (fr.float_element, (X, Y), "s += y[1]"),
    (fr.float_parameter, (X, 0.7), "c += 1.0"),
]


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize(
    "function, args, text", KINDS_PROVE, ids=lambda v: getattr(v, "__name__", "")
)
def test_a_float_proved_by_the_argument_kinds(function, args, position, text):
    """Both modes specialise on the arguments' kinds (forward mode too since issue 19),
    which prove these floats; the rule for any kinds, where the value may be an array,
    still refuses them."""
    check_every_mode(function, args, position)
    source = inspect.getsource(function)
    tree, ctx = context_for(textwrap.dedent(source), mode="forward")
    with pytest.raises(srcad.SrcadError) as caught:
        COMPILER.transformed_tree(tree, ctx)
    assert "E306" in str(caught.value) and text in str(caught.value)


@pytest.mark.parametrize(
    "function, text",
    [
        (fr.array_parameter_plus_one, "s += 1.0"),
        (fr.float_becomes_a_shared_array, "s += 1.0"),
        (fr.array_element_row, "s += y[0]"),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_augmented_assignment_of_a_shared_array_stays_refused(function, text):
    for call in (
        lambda: srcad.grad(function)(X, Y),
        lambda: srcad.jvp(function, (X, Y), (X, Y)),
    ):
        assert_refused_at(call, function, text, "E306")

"""Issue 17, items 4 and 5 and three crashes, each checked against central finite
differences in every mode (or as an exact refusal):

- a branch decision made in a loop (`and`, `or`, conditional expressions, chained
  comparisons) is the pullback's for that iteration, not the last one's;
- a nested function defined more than once under one name (in sequence, in both arms of an
  `if`, again in a loop, as lambdas) is compiled once per definition, and each call calls
  the rule of the definition that ran; what cannot be differentiated so is refused;
- `jvp` of `def g(t)...; g = value`, defaults in every entry point, and `grad` of a
  function whose result is not a real scalar.
"""

import importlib.util
import inspect
import pathlib

import numpy as np
import pytest

import srcad
from srcad.tangents import materialize
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "soundness_control_functions", HERE / "soundness_control_functions.py"
)
sc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sc)
FILE = str(HERE / "soundness_control_functions.py")


def line_of(function, text):
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def close(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def tangent_like(x):
    return np.full(np.shape(x), 0.7) if isinstance(x, np.ndarray) else 0.7


def check_every_mode(f, args, position=0):
    """Every entry point against finite differences, for the argument at `position`:
    `grad` (twice: the second call takes the entry's specialised branch), `value_and_grad`,
    `rrule`, `vjp`, `jacobian` in both modes, `jvp` and `frule`."""
    y = f(*args)
    want = finite_difference_vjp(f, args, 1.0, position)
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


# -- item 4: branch decisions in loops -----------------------------------------------------

BRANCHES_IN_LOOPS = [
    ("or_in_for", sc.or_in_for, (2.0,)),
    ("and_in_for", sc.and_in_for, (2.0,)),
    ("nested_or_and", sc.nested_or_and, (0.7,)),
    ("conditional_in_for", sc.conditional_in_for, (1.3,)),
    ("data_dependent_conditional", sc.data_dependent_conditional, (0.7,)),
    ("chained_comparison_in_for", sc.chained_comparison_in_for, (0.9,)),
    ("or_in_while", sc.or_in_while, (1.1,)),
    ("or_in_nested_loops", sc.or_in_nested_loops, (0.8,)),
    ("or_with_break", sc.or_with_break, (1.2,)),
    ("or_with_continue", sc.or_with_continue, (0.9,)),
    ("or_with_early_return", sc.or_with_early_return, (1.4,)),
    ("conditional_with_early_return_taken", sc.conditional_with_early_return, (1.5, 6)),
    ("conditional_with_early_return_not_taken", sc.conditional_with_early_return, (0.5, 6)),
    ("or_over_loop_count", sc.or_over_loop_count, (1.3, 5)),
    ("or_operand_reassigned", sc.or_operand_reassigned, (0.5,)),
    ("or_of_arrays", sc.or_of_arrays, (np.array([0.3, -0.6, 1.1]),)),
    ("or_in_item_loop", sc.or_in_item_loop, (np.array([0.2, 0.9, 0.6]),)),
    ("or_in_for_0d_array", sc.or_in_for, (np.array(2.0),)),
    ("data_dependent_conditional_0d_array", sc.data_dependent_conditional, (np.array(0.7),)),
    ("or_in_nested_loops_0d_array", sc.or_in_nested_loops, (np.array(0.8),)),
]


@pytest.mark.parametrize(
    ("function", "args"), [c[1:] for c in BRANCHES_IN_LOOPS], ids=[c[0] for c in BRANCHES_IN_LOOPS]
)
def test_branch_decisions_in_loops(function, args):
    check_every_mode(function, args)


def test_or_in_loop_gives_the_issue_s_value():
    # s = 0 + (0 or x*x) + 0.5 + 1.0: the first iteration alone takes x * x.
    assert srcad.grad(sc.or_in_for)(2.0) == 4.0
    assert srcad.grad(sc.or_in_for)(2.0) == 4.0  # the specialised branch
    assert srcad.value_and_grad(sc.or_in_for)(2.0) == (5.5, 4.0)
    assert srcad.jvp(sc.or_in_for, (2.0,), (1.0,)) == (5.5, 4.0)


def test_conditional_of_arrays_has_the_jacobian_of_each_iteration_s_branch():
    a = np.array([0.3, -0.6])
    want = np.diag(2 * np.cos(a) + 4.0)  # sin(x) twice, x * 1 and x * 3
    close(srcad.jacobian(sc.conditional_of_arrays)(a), want)
    close(srcad.jacobian(sc.conditional_of_arrays, mode="forward")(a), want)


def test_the_pullback_keeps_each_iteration_s_test():
    text = srcad.source(sc.or_in_for)
    assert ".append((" in text  # each record holds the test's operand beside the pullbacks


# -- item 5: nested functions defined more than once -----------------------------------------

NESTED = [
    ("twice_if_then", sc.twice_if, (2.0,)),
    ("twice_if_else", sc.twice_if, (2.0, False)),
    ("twice_in_sequence", sc.twice_in_sequence, (2.0,)),
    ("twice_in_sequence_both_called", sc.twice_in_sequence_both_called, (1.3,)),
    ("lambdas_twice", sc.lambdas_twice, (1.3,)),
    ("lambdas_in_branches_then", sc.lambdas_in_branches, (1.3, True)),
    ("lambdas_in_branches_else", sc.lambdas_in_branches, (1.3, False)),
    ("def_rebound_in_loop", sc.def_rebound_in_loop, (0.7,)),
    ("def_in_loop_alternating", sc.def_in_loop_alternating, (0.7,)),
    ("def_then_value", sc.def_then_value, (2.0,)),
    ("value_then_def", sc.value_then_def, (1.2,)),
    ("arms_read_different_names_then", sc.arms_read_different_names, (0.7, 1.3, True)),
    ("arms_read_different_names_else", sc.arms_read_different_names, (0.7, 1.3, False)),
    ("def_called_before_its_redefinition", sc.def_called_before_its_redefinition, (0.8,)),
    ("def_and_call_in_one_arm_then", sc.def_and_call_in_one_arm, (0.8, True)),
    ("def_and_call_in_one_arm_else", sc.def_and_call_in_one_arm, (0.8, False)),
    ("nested_in_nested", sc.nested_in_nested, (0.9,)),
    ("defined_in_while", sc.defined_in_while, (1.1,)),
    ("parameter_then_def", sc.parameter_then_def, (0.9, abs)),
    ("redefined_in_a_loop_run", sc.redefined_in_a_loop_that_differentiates_nothing, (1.5, 2)),
    ("redefined_in_a_loop_not_run", sc.redefined_in_a_loop_that_differentiates_nothing, (1.5, 0)),
    ("redefined_in_one_arm_taken", sc.redefined_in_one_arm, (1.5, True)),
    ("redefined_in_one_arm_not_taken", sc.redefined_in_one_arm, (1.5, False)),
    ("parameters_named_differently_then", sc.arms_name_their_parameter_differently, (1.5, True)),
    ("parameters_named_differently_else", sc.arms_name_their_parameter_differently, (1.5, False)),
    ("twice_if_0d_array", sc.twice_if, (np.array(2.0),)),
    ("def_in_loop_alternating_0d_array", sc.def_in_loop_alternating, (np.array(0.7),)),
]


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in NESTED], ids=[c[0] for c in NESTED])
def test_each_definition_of_a_nested_function(function, args):
    check_every_mode(function, args)


def test_twice_if_gives_the_issue_s_value():
    assert srcad.grad(sc.twice_if)(2.0) == 1.5
    assert srcad.grad(sc.twice_if)(2.0, False) == 0.0
    assert srcad.jvp(sc.twice_if, (2.0,), (1.0,)) == (3.0, 1.5)


SECOND_ORDER = [
    ("or_in_for", sc.or_in_for, (2.0,)),
    ("nested_or_and", sc.nested_or_and, (0.7,)),
    ("or_in_nested_loops", sc.or_in_nested_loops, (0.8,)),
    ("twice_if", sc.twice_if, (2.0,)),
    ("lambdas_in_branches", sc.lambdas_in_branches, (1.3, True)),
    ("def_in_loop_alternating", sc.def_in_loop_alternating, (0.7,)),
    ("redefined_in_a_loop", sc.redefined_in_a_loop_that_differentiates_nothing, (1.5, 2)),
    ("keyword_only_defaults", sc.keyword_only_defaults, (1.5,)),
]


@pytest.mark.parametrize(
    ("function", "args"), [c[1:] for c in SECOND_ORDER], ids=[c[0] for c in SECOND_ORDER]
)
def test_second_derivatives_through_the_generated_frule(function, args):
    # The frule of each is differentiated in turn: its nested rules, in both arms, too.
    gradient = srcad.grad(function)
    h = 1e-4
    want = (gradient(args[0] + h, *args[1:]) - gradient(args[0] - h, *args[1:])) / (2 * h)
    np.testing.assert_allclose(srcad.hessian(function)(*args), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srcad.grad(gradient)(*args), want, rtol=1e-5, atol=1e-6)


def test_a_captured_name_another_definition_binds_itself():
    # The `else` definition's own `y` is not the enclosing `y`: its cotangent stays there.
    check_every_mode(sc.arms_read_different_names, (0.7, 1.3, False), position=1)
    check_every_mode(sc.arms_read_different_names, (0.7, 1.3, True), position=1)


REFUSED = [
    ("recursive_nested", sc.recursive_nested, (1.5,), "E212", "power(n - 1)",
     "read here inside a nested function"),
    ("def_or_value", sc.def_or_value, (1.5, True), "E212", "return g(2.0)",
     "may be the nested function defined at line"),
    ("arms_with_different_parameters", sc.arms_with_different_parameters, (1.5, True), "E213",
     "def g(t, u=1.0)", "take different parameters"),
    ("keyword_call_of_differently_named_parameters",
     sc.keyword_call_of_differently_named_parameters, (1.5, True), "E213", "def g(s):",
     "take different parameters: (t); (s)"),
    ("nested_called_from_nested", sc.nested_called_from_nested, (1.5,), "E212",
     "return a(t) + t", "read here inside a nested function"),
    ("def_value_and_differentiated_value", sc.def_value_and_differentiated_value,
     (1.5, False), "E212", "    return g", "names a nested function and a differentiated value"),
]  # fmt: skip


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize(
    ("function", "args", "code", "text", "message"),
    [c[1:] for c in REFUSED],
    ids=[c[0] for c in REFUSED],
)
def test_refused_where_a_call_cannot_know_its_definition(function, args, code, text, message,
                                                         mode):  # fmt: skip
    with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
        if mode == "reverse":
            srcad.grad(function)(*args)
        else:
            srcad.jvp(function, args, (1.0,) + (srcad.NoTangent(),) * (len(args) - 1))
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.file, diagnostic.line, diagnostic.code) == (
        FILE,
        line_of(function, text),
        code,
    )
    assert message in diagnostic.message
    assert diagnostic.hint


# -- crashes -------------------------------------------------------------------------------


def test_jvp_of_a_nested_function_name_bound_to_a_value_afterwards():
    # y = x * x, then g = 5 x: (4 + 10, 2 x + 5).
    assert srcad.jvp(sc.def_then_value, (2.0,), (1.0,)) == (14.0, 9.0)
    assert srcad.grad(sc.def_then_value)(2.0) == 9.0


DEFAULTS = [
    ("default_left_out", sc.defaults, (3.0,)),
    ("default_given", sc.defaults, (3.0, 1.5)),
    ("keyword_only_defaults", sc.keyword_only_defaults, (1.5,)),
    ("keyword_only_defaults_positional_given", sc.keyword_only_defaults, (1.5, 2.0)),
    ("default_left_out_array", sc.defaults, (np.array([3.0, -1.0]),)),
]


@pytest.mark.parametrize(
    ("function", "args"), [c[1:] for c in DEFAULTS], ids=[c[0] for c in DEFAULTS]
)
def test_defaults_in_every_entry_point(function, args):
    y = function(*args)
    if np.ndim(y) == 0:
        check_every_mode(function, args)
    tangents = tuple(tangent_like(a) for a in args)
    close(srcad.jvp(function, args, tangents)[1], finite_difference_jvp(function, args, tangents))
    x0 = args[0]
    rest = tuple(srcad.ZeroTangent() for _ in args[1:])
    directions = np.eye(np.size(x0)).reshape((-1, *np.shape(x0)))
    columns = [finite_difference_jvp(function, args, (d, *rest)) for d in directions]
    want = np.stack(columns, axis=-1).reshape(np.shape(y) + np.shape(x0))
    for mode in ("reverse", "forward"):
        close(srcad.jacobian(function, mode=mode)(*args), want)
    _, vjp_fn = srcad.vjp(function, *args)
    assert len(vjp_fn(np.ones_like(y))) == len(args)  # one per argument passed


def test_keyword_arguments_and_defaults_in_frule_and_vjp():
    # Keyword arguments are not differentiated: their tangents are zeros.
    y, y_dot = srcad.frule((srcad.NoTangent(), 1.0), sc.keyword_only_defaults, 1.5, power=3.0)
    assert y == sc.keyword_only_defaults(1.5, power=3.0)
    close(y_dot, 3 * 1.5**2 * 3.0 + 0.5)
    y, y_dot = srcad.frule((srcad.NoTangent(), 1.0), sc.defaults, 3.0, scale=4.0)
    assert (y, y_dot) == (12.0, 4.0)
    _, vjp_fn = srcad.vjp(sc.defaults, 3.0)
    assert vjp_fn(1.0) == (2.0,)


def test_hessian_with_defaults():
    # a ** 2 * b + 0.5 a: 2 b = 6 at the default b = 3.
    close(srcad.hessian(sc.keyword_only_defaults)(1.5), 6.0)
    close(srcad.hessian(sc.defaults)(3.0), 0.0)
    close(srcad.hessian(sc.keyword_only_defaults)(np.array(1.5)), 6.0)


NOT_SCALAR = [
    ("tuple", sc.tuple_result, 2.0),
    ("list", sc.list_result, 2.0),
    ("dict", sc.dict_result, 2.0),
    ("none", sc.none_result, 2.0),
    ("string", sc.string_result, 2.0),
    ("array", sc.array_result, np.array([2.0, 3.0])),
    ("one_element_array", sc.array_result, np.array([2.0])),
    ("tuple_of_array", sc.tuple_result, np.array([2.0, 3.0])),
    ("tuple_of_0d_array", sc.tuple_result, np.array(2.0)),
]


@pytest.mark.parametrize("entry", ["grad", "value_and_grad"])
@pytest.mark.parametrize(
    ("function", "x"), [c[1:] for c in NOT_SCALAR], ids=[c[0] for c in NOT_SCALAR]
)
def test_grad_of_a_result_that_is_not_a_real_scalar_is_refused(function, x, entry):
    gradient = getattr(srcad, entry)(function)
    for _ in range(2):  # the general path, then the entry's branch for these kinds
        with pytest.raises(srcad.SrcadError, match="to return a real scalar") as raised:
            gradient(x)
        assert type(raised.value.__cause__) is not TypeError
        assert "srcad" not in str(raised.value).split(";")[0]


def test_a_function_s_own_error_is_not_turned_into_a_refusal():
    def fails(x):
        return np.log(x) + [1.0, 2.0][int(x)]  # IndexError for x >= 2

    gradient = srcad.grad(fails)
    close(gradient(0.5), 2.0)
    with pytest.raises(IndexError):
        gradient(2.5)


def test_frule_with_a_tangent_missing_is_refused():
    # A tangent left out is not taken for a zero: only a parameter the call leaves to its
    # default, or passes by keyword, has a zero tangent.
    with pytest.raises(srcad.SrcadError, match="2 tangents for 2 arguments"):
        srcad.frule((srcad.NoTangent(), 1.0), sc.defaults, 3.0, 1.5)

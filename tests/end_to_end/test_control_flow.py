"""Branches, loops and calls: compiled gradients against central finite differences."""

import importlib.util
import pathlib
import traceback

import numpy as np
import pytest

import srcad
from srcad.testing import check_rrule

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "control_flow_functions", HERE / "control_flow_functions.py"
)
cf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cf)

rng = np.random.default_rng(2)


def normal(*shape):
    return rng.standard_normal(shape)


def uniform(*shape):
    return rng.uniform(0.1, 1.0, size=shape)


CASES = [
    ("mse", cf.mse, (normal(5), normal(5))),
    ("sum3", cf.sum3, (normal(6),)),
    ("sum_over", cf.sum_over, (normal(4),)),
    ("relu_like_positive", cf.relu_like, (0.7,)),
    ("relu_like_negative", cf.relu_like, (-0.7,)),
    ("piecewise_left", cf.piecewise, (-2.0,)),
    ("piecewise_middle", cf.piecewise, (0.3,)),
    ("piecewise_right", cf.piecewise, (2.5,)),
    ("conditional_expression_then", cf.conditional_expression, (2.0, 1.0)),
    ("conditional_expression_else", cf.conditional_expression, (1.0, 2.0)),
    ("boolean_values_a", cf.boolean_values, (1.0, 0.5)),
    ("boolean_values_b", cf.boolean_values, (-1.0, 3.0)),
    ("chained_comparison_inside", cf.chained_comparison, (0.5,)),
    ("chained_comparison_outside", cf.chained_comparison, (1.5,)),
    ("range_loop", cf.range_loop, (0.8,)),
    ("range_with_bounds", cf.range_with_bounds, (normal(7),)),
    ("rows_of_matrix", cf.rows_of_matrix, (normal(3, 2),)),
    ("list_argument", cf.list_argument, ([0.5, -1.5, 2.0],)),
    ("tuple_argument", cf.list_argument, ((0.5, -1.5),)),
    ("tuple_iteration", cf.tuple_iteration, (0.3, -0.4)),
    ("zip_loop", cf.zip_loop, (normal(4), normal(4))),
    ("zip_loop_lists", cf.zip_loop, ([0.1, 0.2], [0.3, 0.4, 0.5])),
    ("enumerate_loop", cf.enumerate_loop, (normal(4),)),
    ("while_newton", cf.while_newton, (2.0,)),
    ("while_data_dependent", cf.while_data_dependent, (0.7,)),
    ("loop_with_break", cf.loop_with_break, (np.array([0.5, 1.0, 2.0, 0.3]),)),
    ("loop_without_break", cf.loop_with_break, (np.array([0.5, 1.0, 0.3]),)),
    ("loop_with_continue", cf.loop_with_continue, (np.array([0.5, -1.0, 2.0, 0.3]),)),
    ("nested_loops", cf.nested_loops, (normal(2, 3),)),
    ("early_return_taken", cf.early_return, (2.0,)),
    ("early_return_not_taken", cf.early_return, (0.1,)),
    ("several_returns_first", cf.several_returns, (2.0, 1.0)),
    ("several_returns_second", cf.several_returns, (-2.0, 1.0)),
    ("several_returns_last", cf.several_returns, (0.5, 1.0)),
    ("branch_in_loop", cf.branch_in_loop, (np.array([0.2, 0.7, 0.9, 0.1]),)),
    ("loop_in_branch_loop", cf.loop_in_branch, (0.4, 3)),
    ("loop_in_branch_else", cf.loop_in_branch, (0.4, 1)),
    ("accumulate_array", cf.accumulate_array, (normal(4), normal(3))),
    ("rnn", cf.rnn, (normal(2, 2) * 0.5, normal(2), normal(5))),
    ("calls_with_defaults_and_keywords", cf.calls_with_defaults_and_keywords, (0.7, 1.3)),
    ("power_by_recursion", cf.power_by_recursion, (0.9, 4)),
    ("calls_in_loop", cf.calls_in_loop, (0.4,)),
    ("swap_in_loop", cf.swap_in_loop, (0.4, 0.9)),
    ("augmented_forms", cf.augmented_forms, (0.8, 0.3)),
    ("tuple_state_loop", cf.tuple_state_loop, (0.6,)),
    ("branch_on_integer_even", cf.branch_on_integer, (0.6, 4)),
    ("branch_on_integer_odd", cf.branch_on_integer, (0.6, 3)),
    ("max_of_loop", cf.max_of_loop, (np.array([0.3, 0.9, 0.5]),)),
    ("nested_calls", cf.nested_calls, (0.7,)),
    (
        "break_in_nested_loop",
        cf.break_in_nested_loop,
        (np.array([[0.2, 0.95, 0.4], [0.3, 0.1, 0.5]]),),
    ),
    ("return_inside_nested_loop", cf.return_inside_nested_loop, (uniform(3, 3),)),
    ("return_after_nested_loop", cf.return_inside_nested_loop, (uniform(2, 2) * 0.2,)),
    ("while_with_continue_and_break", cf.while_with_continue_and_break, (0.9,)),
    ("seed_talk_loop", cf.seed_talk_loop, (normal(5),)),
    ("while_break_after_work", cf.while_break_after_work, (1.7,)),
    ("range_loop_skipping_some", cf.range_loop_skipping_some, (np.array([0.3, -0.2, 0.5]),)),
    ("same_reverse_on_two_exits", cf.same_reverse_on_two_exits, (0.9, 7)),
    # A name assigned again, in a branch or a loop: the earlier value's cotangent is what
    # was read before the new assignment, and nothing after it.
    ("conditional_redefinition_taken", cf.conditional_redefinition, (0.7, 1.0)),
    ("conditional_redefinition_not_taken", cf.conditional_redefinition, (0.7, -1.0)),
    ("clip_to_constant_clipped", cf.clip_to_constant, (0.8,)),
    ("clip_to_constant_kept", cf.clip_to_constant, (0.3,)),
    ("clip_in_loop", cf.clip_in_loop, (np.array([0.2, 0.9, -0.8, 0.5, 0.05, -0.1]),)),
    ("loop_target_overwrites", cf.loop_target_overwrites, (0.7, 3)),
    ("loop_target_overwrites_no_iteration", cf.loop_target_overwrites, (0.7, 0)),
    ("reset_inside_while", cf.reset_inside_while, (0.7,)),
    ("reset_each_iteration", cf.reset_each_iteration, (normal(4),)),
    ("last_item", cf.last_item, (normal(3),)),
    ("last_item_after_a_value", cf.last_item_after_a_value, (0.6, normal(3))),
    ("last_item_after_a_value_no_item", cf.last_item_after_a_value, (0.6, np.zeros(0))),
    # A loop that differentiates nothing but returns from inside.
    ("return_parameter_from_loop", cf.return_parameter_from_loop, (0.6, 1.0)),
    ("return_parameter_after_loop", cf.return_parameter_from_loop, (0.6, -1.0)),
    ("return_from_inner_loop", cf.return_from_inner_loop, (0.6, 3.0)),
    ("return_after_inner_loops", cf.return_from_inner_loop, (0.6, 1.0)),
    # `or` gives an operand: the pullback tests the first one's value, not the result's.
    ("or_reassigns_its_operand_falsy", cf.or_reassigns_its_operand, (0.6, 0)),
    ("or_reassigns_its_operand_truthy", cf.or_reassigns_its_operand, (0.6, 2)),
    ("or_of_three_last", cf.or_of_three, (0.6, 0, 0)),
    ("or_of_three_second", cf.or_of_three, (0.6, 0, 3)),
    ("and_of_values_second", cf.and_of_values, (0.6, 0.0)),
    ("and_then_or_falsy", cf.and_then_or, (0.6, 1.3, 0)),
    ("and_then_or_truthy", cf.and_then_or, (0.6, 1.3, 1)),
    ("item_loop_with_inner_return_taken", cf.item_loop_with_inner_return, (normal(3), 3.0)),
    ("item_loop_with_inner_return_not_taken", cf.item_loop_with_inner_return, (normal(3), 1.0)),
    ("lambda_in_a_loop", cf.lambda_in_a_loop, (0.6,)),
    ("function_defined_in_an_item_loop", cf.function_defined_in_an_item_loop, (0.6, normal(3))),
]


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(function, args):
    check_rrule(function, *args, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", ["mse", "seed_talk_loop", "sum_over"])
def test_forward_sweep_keeps_one_record_per_iteration(name):
    text = srcad.source(getattr(cf, name))
    assert text.count(".append(") == 1
    assert "in reversed(" in text or "range(len(" in text


@pytest.mark.parametrize(
    ("name", "records"),
    [
        ("while_with_continue_and_break", ["append(None)", "append(None)"]),
        ("while_newton", ["append(x_2)"]),  # with `a / x_2` computed again
        ("while_break_after_work", ["append((0, y_2))", "append((1, y_2))"]),
    ],
)
def test_tape_records_only_what_tells_iterations_apart(name, records):
    """Exits whose reverse does nothing record nothing; exits with the same reverse share
    an id; with one id left, records carry none."""
    text = srcad.source(getattr(cf, name), args=(0.9,))
    assert [line.split(".")[-1] for line in text.splitlines() if ".append(" in line] == records
    assert ("record[0]" in text) == (len(set(records)) > 1)


def test_integer_loop_counters_and_conditions_get_no_tangent():
    _, pullback = srcad.rrule(cf.branch_on_integer, 0.6, 4)
    assert pullback(1.0)[2] == srcad.NoTangent()
    _, pullback = srcad.rrule(cf.power_by_recursion, 0.9, 4)
    assert isinstance(pullback(1.0)[2], srcad.NoTangent | srcad.ZeroTangent)


def test_callee_pullback_is_named_in_tracebacks():
    _, pullback = srcad.rrule(cf.nested_calls, 0.7)
    try:
        pullback("not a cotangent")
    except TypeError as error:
        frames = traceback.extract_tb(error.__traceback__)
    names = [frame.name for frame in frames]
    assert "nested_calls_pullback" in names
    assert "square_pullback" in names
    square_frame = frames[names.index("square_pullback")]
    assert square_frame.filename.startswith("<srcad rrule_square")
    assert square_frame.line


def test_show_prints_the_callees_rules():
    text = srcad.source(cf.calls_in_loop)
    assert "def rrule_calls_in_loop(" in text
    assert "def rrule_square(" in text and "def square_pullback(" in text
    assert "def rrule_scale(" in text and "def scale_pullback(" in text


def test_decorated_callee_is_compiled_through():
    decorated = srcad.differentiate(cf.square)

    def uses_decorated(x):
        return decorated(x) * 3.0

    assert srcad.grad(uses_decorated)(2.0) == pytest.approx(12.0)

"""Issue 17: `+` and `*` on lists and tuples, checked against central finite differences in
every mode, and to second order. Before the fix, reverse mode gave each operand of `a + b`
the cotangent of the whole joined sequence (`[x] + [y]` crashed, and through slices,
`lst[1:] + lst[:1]`, the gradient was wrong with no error), `lst * 3` scaled the cotangent by
3, and forward mode gave `[2.0] + [x]` the tangent of `[x]` alone: a wrong `jvp`. Displays
that unpack (`[*xs, v]`, `(*t, 1.0)`), refused before, are joined sequences too."""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad
from tests.end_to_end.test_soundness_control import check_every_mode
from tests.rules.test_higher_order import check_second_order

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("sequence_functions", HERE / "sequence_functions.py")
sq = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sq)

X = np.array([0.3, 0.6, 0.9])
VECTOR_CASES = [
    "concat_constant_left",
    "concat_constant_right",
    "concat_empty",
    "repeat_left_int",
    "repeat_numpy_int",
    "grow_list_in_loop",
    "grow_tuple_in_loop",
    "concat_arrays",
    "slices_of_lists",
    "reversed_and_tuple",
    "nested_lists",
    "sum_with_start",
    "grow_with_star",
    "tuple_unpacking_an_array",
    "list_unpacking_twice",
    "tuple_unpacking_tuples",
]
SCALAR_CASES = [
    "constant_joined_in_forward",
    "constants_then_value",
    "repeated_constants_then_value",
]


@pytest.mark.parametrize("name", VECTOR_CASES)
def test_sequence_operators_in_every_mode(name):
    check_every_mode(getattr(sq, name), (X.copy(),))


@pytest.mark.parametrize("name", VECTOR_CASES)
def test_sequence_operators_to_second_order(name):
    check_second_order(getattr(sq, name), (X.copy(),))


@pytest.mark.parametrize("name", SCALAR_CASES)
def test_a_constant_element_keeps_its_zero_tangent(name):
    check_every_mode(getattr(sq, name), (1.5,))


def test_the_forward_case_of_the_issue():
    # [2.0] + [x]: lst[0] is the constant, so the tangent is x's alone (it was 3 + 1).
    assert srcad.jvp(sq.constant_joined_in_forward, (1.5,), (1.0,)) == (7.5, 1.0)

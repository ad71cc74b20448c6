"""Lists grown by appends (`passes/analyses/grown_lists.py`): where nothing reads a list
before its last append, the reverse rule appends in place and its pullback pops the
element cotangents (`tangents.pop_element`); where something reads it between appends
(`np.array`, `sum`, indexing, a helper, a tuple holding it), each append makes a new list.
Either way the derivatives match central finite differences, in every mode and to second
order."""

import importlib.util
import pathlib
import re

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER
from srcad.requests import Request
from srcad.signatures import parse_signature
from srcad.tangents import ElementStack, Prefix, Tangent, ZeroTangent, materialize, pop_element
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "grown_list_functions", HERE / "grown_list_functions.py"
)
gl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gl)


def close(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def scalar(f):
    """`f` with a float result (a returned list: its elements weighted)."""
    if f is gl.returned_list:
        return lambda x: float(np.dot(f(x), np.arange(1.0, 5.0)))
    return f


IN_PLACE = [
    gl.appended_then_array,
    gl.comprehension_then_sum,
    gl.display_then_appends,
    gl.list_per_iteration,
    gl.returned_list,
    gl.list_of_arrays,
    gl.copied_then_indexed,
    gl.two_loops_then_read,
    gl.in_a_while_loop,
    gl.array_of_float64s,
    gl.sum_of_float64s,
    gl.constants_appended,
    gl.made_in_each_iteration_of_a_nested_loop,
]
COPIED = [
    gl.indexed_in_the_loop,
    gl.array_of_it_in_the_loop,
    gl.summed_then_appended_again,
    gl.appended_to_itself_in_a_loop,
    # Made in the first iteration only (in an `if`): later ones append to the list read.
    gl.made_in_the_first_iteration_only,
    gl.made_in_each_iteration_read_in_a_nested_loop,
    # Not differentiated (only its length is read): its loop runs as the function's does.
    gl.only_its_length_read,
]

# Lists read whole by `np.array` and `sum`, whose pullbacks take the element cotangents at
# once where every element is a Python float or every one a float64 scalar.
# Lists of numbers the function made, read element by element with their kind (one
# kind for all: `kinds.list_of`), or without one where a method changes the list.
KINDS = [gl.iterated_in_a_helper, gl.ints_and_floats, gl.indexed_by_an_int]
EVERY = [*IN_PLACE, *COPIED, gl.array_of_mixed_floats, *KINDS]


@pytest.mark.parametrize("f", IN_PLACE + COPIED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("kinds", [None, "float"], ids=["general", "specialised"])
def test_reverse_rule_appends_in_place_only_where_nothing_read_the_list(f, kinds):
    text = srcad.source(f) if kinds is None else _specialised_text(f)
    pops = "pop_element(" in text or re.search(r"\w+_bar\.pop\(\)", text) is not None
    assert pops == (f in IN_PLACE), text
    copies = re.search(r"= append(_rrule)?\(", text) is not None
    assert copies == (f not in IN_PLACE), text


def _specialised_text(f):
    return COMPILER.sources(f, ("x",), Request.rrule(parse_signature("float")))


@pytest.mark.parametrize("f", EVERY, ids=lambda f: f.__name__)
def test_gradient_of_a_grown_list(f):
    g = scalar(f)
    x = 0.7
    want = finite_difference_vjp(g, (x,), 1.0, 0)
    close(srcad.grad(g)(x), want)
    close(srcad.jacobian(g)(x), want)
    value, pullback = srcad.rrule(f, x)
    y = f(x)
    y_bar = [0.5 + k for k in range(len(y))] if isinstance(y, list) else 1.0
    if isinstance(y, list):
        want = finite_difference_vjp(lambda t: np.array(f(t)), (x,), np.array(y_bar), 0)
        close(value, y)
    close(materialize(pullback(y_bar)[1], x), want)
    close(materialize(pullback(y_bar)[1], x), want)  # a pullback runs again the same


@pytest.mark.parametrize("f", EVERY, ids=lambda f: f.__name__)
def test_forward_and_second_order_of_a_grown_list(f):
    g = scalar(f)
    x = 0.7
    _, y_dot = srcad.jvp(g, (x,), (1.0,))
    close(y_dot, finite_difference_jvp(g, (x,), (1.0,)))
    gradient = srcad.grad(g)
    close(srcad.hessian(g)(x), finite_difference_jvp(gradient, (x,), (1.0,)))


@pytest.mark.parametrize("f", [gl.passed_to_a_helper_in_the_loop, gl.kept_in_a_tuple],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_a_list_passed_on_or_held_then_appended_is_refused(f):
    """What a helper or a container does with the list is not followed: the append is
    refused (E302), never done in place or copied on a guess."""
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(f)(0.7)
    assert [d.code for d in raised.value.diagnostics] == ["E302"]


def test_the_rule_leaves_the_primal_list_as_python_makes_it():
    value, pullback = srcad.rrule(gl.returned_list, 0.5)
    assert value == gl.returned_list(0.5)
    value.append(99.0)  # the caller's to change: the pullback reads none of it
    close(materialize(pullback([1.0, 1.0, 1.0, 1.0])[1], 0.5), 1.0 + 2 * 0.5 + 3 * 0.25)


@pytest.mark.parametrize(
    "cotangent",
    [np.array([1.0, 2.0, 3.0]), Tangent(list, 1.0, 2.0, 3.0), Prefix((1.0, 2.0, 3.0, 4.0), 3),
     (1.0, 2.0, 3.0), [1.0, 2.0, 3.0]],
    ids=["array", "tangent", "prefix", "tuple", "list"],
)  # fmt: skip
def test_pop_element_takes_the_last_element_off_any_list_cotangent(cotangent):
    rest, last = pop_element(cotangent)
    assert type(rest) is ElementStack and list(rest) == [1.0, 2.0] and last == 3.0
    again, before = pop_element(rest)
    assert again is rest and before == 2.0
    assert not isinstance(cotangent, list) or cotangent == [1.0, 2.0, 3.0]  # not popped


def test_pop_element_of_a_zero_is_zero():
    assert pop_element(ZeroTangent()) == (ZeroTangent(), ZeroTangent())


@pytest.mark.parametrize(
    "f, inlined",
    [(gl.comprehension_then_sum, "v_times_v = v * v"),
     (gl.indexed_by_an_int, "values_k_times_x = values_k * x")],
    ids=["iterated", "indexed"],
)  # fmt: skip
def test_elements_of_a_list_of_floats_have_a_kind(f, inlined):
    """What iterating or indexing a list of floats the function made gives is a float:
    its arithmetic is inlined, not a rule call."""
    assert inlined in COMPILER.sources(f, ("x",), Request.rrule(parse_signature("float")))


@pytest.mark.parametrize("f", [gl.reversed_in_place, gl.extended_with_ints],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_a_list_a_method_changes_is_a_new_list(f):
    """A method that changes a list the function made and nothing else holds is a new list
    (`primitives.changed`), whose kind is not the old one's, in both modes."""
    step = 1e-6
    want = (f(0.7 + step) - f(0.7 - step)) / (2 * step)
    assert srcad.grad(f)(0.7) == pytest.approx(want, rel=1e-6)
    assert srcad.jvp(f, (0.7,), (1.0,))[1] == pytest.approx(want, rel=1e-6)


def test_a_list_a_method_changes_through_an_alias_is_refused():
    """The list a method changes through an alias is refused (E303): the alias shares it."""
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(gl.sorted_through_a_copy)(0.7)
    assert [d.code for d in raised.value.diagnostics] == ["E303"]


def test_a_list_of_ints_and_floats_has_no_element_kind():
    text = COMPILER.sources(gl.ints_and_floats, ("x",), Request.rrule(parse_signature("float")))
    assert "mul_rrule(v, x)" in text, text


@pytest.mark.parametrize(
    "values, kind",
    [([0.5, 1.5], ("f", 1)), ([np.float64(0.5), 2.0], ("f", 1)),
     ([np.float32(0.5), np.float32(2.0)], ("f4", 1)), ([], ("f", 1))],
    ids=["floats", "float64s", "float32s", "empty"],
)  # fmt: skip
def test_array_of_a_list_of_floats_has_numpys_dtype(values, kind):
    from srcad.kinds import FLOAT, PYTHON_FLOAT, kind_of, list_of
    from srcad.rules.containers import ARRAY_OF_FLOATS

    items = {kind_of(v) for v in values} or {PYTHON_FLOAT}
    if all(type(v) is float for v in values):
        items = {PYTHON_FLOAT}
    item = FLOAT if len(items) > 1 else items.pop()
    array = np.array(values)
    assert ARRAY_OF_FLOATS([list_of(item)]) == kind == kind_of(array) or (
        not values and array.dtype == np.float64
    )


def test_array_of_a_list_of_float32s():
    x = np.float32(0.7)
    got = srcad.grad(gl.array_of_float32s)(x)
    assert got.dtype == np.float32
    close(got, finite_difference_vjp(lambda t: gl.array_of_float32s(np.float64(t)), (0.7,), 1.0, 0))
    text = COMPILER.sources(gl.array_of_float32s, ("x",), Request.rrule(parse_signature("float32")))
    assert "pow = array_values ** 2" in text, text

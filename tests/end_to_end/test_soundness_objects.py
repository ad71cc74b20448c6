"""Issue 17: no object is a constant for lack of a rule, attributes that are computed are
differentiated through what computes them, and calls that pass compilation do not raise
`TypeError` from srcad's rules. Values against central finite differences, in both modes;
refusals by class, code and line."""

import importlib.util
import inspect
import pathlib

import numpy as np
import pytest

import srcad
from srcad.tangents import Tangent

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location(
    "soundness_objects_functions", HERE / "soundness_objects_functions.py"
)
so = importlib.util.module_from_spec(spec)
spec.loader.exec_module(so)

rng = np.random.default_rng(17)
H = 1e-6


def finite_difference_gradient(f, args, position=0):
    """Central differences of the scalar `f(*args)` in argument `position` (a float or a
    float array)."""
    x = np.asarray(args[position], dtype=float)
    gradient = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = H
        moved = [list(args), list(args)]
        for sign, row in zip((1, -1), moved, strict=True):
            row[position] = x + sign * step if x.ndim else float(x + sign * step)
        gradient[index] = (f(*moved[0]) - f(*moved[1])) / (2 * H)
    return gradient if x.ndim else float(gradient)


def assert_both_modes(f, args, position=0):
    """`grad` and `jvp` (one random direction) against finite differences."""
    expected = finite_difference_gradient(f, args, position)
    np.testing.assert_allclose(srcad.grad(f, wrt=position)(*args), expected, rtol=1e-6, atol=1e-6)
    direction = rng.standard_normal(np.shape(args[position]))
    direction = direction if np.ndim(args[position]) else float(direction)
    tangents = tuple(direction if i == position else None for i in range(len(args)))
    tangents = tuple(t if t is not None else srcad.ZeroTangent() for t in tangents)
    _, y_dot = srcad.jvp(f, tuple(args), tangents)
    np.testing.assert_allclose(y_dot, np.sum(expected * direction), rtol=1e-6, atol=1e-6)


def line_of(function, text):
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def assert_refused(call, function, text, code="E210", error=srcad.MissingRuleError):
    with pytest.raises(error) as caught:
        call()
    codes = [(d.code, d.line) for d in caught.value.diagnostics]
    assert (code, line_of(function, text)) in codes, codes
    return caught.value


# -- item 2: indexing an object srcad has no rule for -------------------------------------


@pytest.mark.parametrize(
    ("function", "text", "instead"),
    [
        (so.r_matrix, 'np.r_["r", x, x]', "np.concatenate"),
        (so.index_global_object, "SQUARER[x, x]", "operator.getitem"),
    ],
)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_indexing_an_object_with_its_own_getitem_is_refused(function, text, instead, mode):
    """(Issue 17, item 2: `np.r_[x, x]` gave exact zeros in both modes; it is now
    differentiated, below, but for the directives that make an `np.matrix`.)"""
    x = rng.standard_normal(3) if function is not so.index_global_object else 1.5
    if mode == "grad":
        error = assert_refused(lambda: srcad.grad(function)(x), function, text)
    else:
        error = assert_refused(lambda: srcad.jvp(function, (x,), (x,)), function, text)
    (diagnostic,) = [d for d in error.diagnostics if d.line == line_of(function, text)]
    assert "indexed with a differentiated value" in diagnostic.message
    assert instead in diagnostic.hint
    assert diagnostic.column == diagnostic.source_line.index(text)  # at the subscript itself


@pytest.mark.parametrize("function", [so.r_concat, so.c_stack, so.r_in_loop])
def test_numpys_index_builders_are_differentiated(function):
    """`np.r_` and `np.c_` (issue 20): no exact zeros, in both modes
    (`test_index_builders.py` checks them to second order)."""
    from srcad.testing import finite_difference_jvp, finite_difference_vjp

    x = rng.standard_normal(3)
    expected = finite_difference_vjp(function, (x,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(function)(x), expected, rtol=1e-6)
    assert np.all(expected != 0.0)
    _, y_dot = srcad.jvp(function, (x,), (x,))
    np.testing.assert_allclose(y_dot, finite_difference_jvp(function, (x,), (x,)), rtol=1e-6)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_indexing_a_local_object_with_its_own_getitem_is_refused_when_it_runs(mode):
    """Its type is known only when the code runs: the getitem rule refuses it then."""
    with pytest.raises(srcad.MissingRuleError, match="no rule for indexing a Squarer"):
        if mode == "grad":
            srcad.grad(so.index_local_object)(1.5)
        else:
            srcad.jvp(so.index_local_object, (1.5,), (1.0,))
    # Its index counts the items of `x`: of a list, with its kinds unknown, the counter is
    # read from the items `enumerate` gives, as a value that may vary with `x`...
    with pytest.raises(srcad.MissingRuleError, match="no rule for indexing a Squarer"):
        srcad.grad(so.index_parameter)([1.0, 2.0], so.SQUARER)
    # ... of an array, the loop is one over its indices (issue 19): the counter is an int
    # that does not vary, and `table[i]` a value computed from it alone.
    x = np.array([1.0, 2.0])
    h = 1e-6
    expected = [
        (so.index_parameter(x + h * e, so.SQUARER) - so.index_parameter(x - h * e, so.SQUARER))
        / (2 * h)
        for e in np.eye(2)
    ]
    np.testing.assert_allclose(srcad.grad(so.index_parameter)(x, so.SQUARER), expected, atol=1e-7)


@pytest.mark.parametrize(
    "table", [np.array([0.5, -1.5, 2.0]), [0.5, -1.5, 2.0], (0.5, -1.5, 2.0)], ids=type
)
def test_an_index_from_the_inputs_selects_from_a_parameter(table):
    assert_both_modes(so.index_parameter, (rng.standard_normal(3), table))


@pytest.mark.parametrize(
    "function",
    [so.index_global_array_and_list, so.index_global_dict, so.slice_builder],
    ids=lambda f: f.__name__,
)
def test_an_index_from_the_inputs_selects_from_a_global(function):
    x = rng.standard_normal(3) if function is not so.index_global_dict else 0.7
    assert_both_modes(function, (x,))


def test_an_array_indexed_by_an_index_from_the_inputs_calls_no_pullback():
    """The rule of `table[i]` is called (the table's type is known when the code runs),
    but nothing its pullback gives is differentiated, so the pullback is not called."""
    text = srcad.source(so.index_parameter, wrt=0)
    assert "getitem_rrule(table, i)" in text
    assert "table_i_pullback(" not in text


# -- item 9: attributes computed by descriptors -----------------------------------------


def field_gradient(f, p, names):
    """Central differences of `f(p)` in each named field of the dataclass `p`."""
    import dataclasses

    out = {}
    for name in names:
        up = dataclasses.replace(p, **{name: getattr(p, name) + H})
        down = dataclasses.replace(p, **{name: getattr(p, name) - H})
        out[name] = (f(up) - f(down)) / (2 * H)
    return out


@pytest.mark.parametrize(
    "function",
    [so.through_property, so.property_in_loop, so.property_through_helper,
     so.through_cached_property, so.class_attribute],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_a_property_is_differentiated_through_its_getter(function):
    """(Issue 17, item 9: `p.a2` was read as a field, so the gradient was Tangent(a2=1).)"""
    p = so.Point(1.3, -0.4)
    expected = field_gradient(function, p, ["a", "b"])
    gradient = srcad.grad(function)(p)  # shaped like the argument (issue 21): a Point
    assert isinstance(gradient, so.Point)
    for name, value in expected.items():
        np.testing.assert_allclose(getattr(gradient, name), value, atol=1e-6)
    # No tangent for a property or class attribute: `structured` refuses a field the
    assert vars(gradient).keys() == {"a", "b"}  # Point has not, so grad would have raised
    direction = so.Point(0.6, -1.1)
    _, y_dot = srcad.jvp(function, (p,), (Tangent(so.Point, a=0.6, b=-1.1),))
    np.testing.assert_allclose(
        y_dot, expected["a"] * direction.a + expected["b"] * direction.b, atol=1e-6
    )


def test_getattr_hook_is_differentiated():
    d = so.Lazy(1.7)
    expected = (
        so.through_getattr_hook(so.Lazy(1.7 + H)) - so.through_getattr_hook(so.Lazy(1.7 - H))
    ) / (2 * H)
    gradient = srcad.grad(so.through_getattr_hook)(d)
    np.testing.assert_allclose(vars(gradient)["v"], expected, atol=1e-6)  # a Lazy, as d is
    _, y_dot = srcad.jvp(so.through_getattr_hook, (d,), (Tangent(so.Lazy, v=1.0),))
    np.testing.assert_allclose(y_dot, expected, atol=1e-6)


@pytest.mark.parametrize(
    ("function", "argument", "why"),
    [
        (so.through_descriptor, so.WithDescriptor(1.5), "computed by a Twice descriptor"),
        (so.through_getattribute, so.Intercepting(1.5), "overrides `__getattribute__`"),
        (so.method_as_value, so.WithMethod(1.5), "a method, read as a value"),
    ],
    ids=["descriptor", "getattribute", "method"],
)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_other_computed_attributes_are_refused(function, argument, why, mode):
    with pytest.raises(srcad.MissingRuleError, match=why):
        if mode == "grad":
            srcad.grad(function)(argument)
        else:
            srcad.jvp(function, (argument,), (Tangent(type(argument), v=1.0),))


def test_plain_fields_stay_fields():
    p, s = so.Pair(1.5, -0.5), so.Slotted(0.7, 2.0)
    gp, gs = srcad.grad(so.plain_fields, wrt=(0, 1))(p, s)
    assert (gp.first, gp.second, type(gp)) == (-0.5, 1.5, so.Pair)
    assert (gs.u, gs.w, type(gs)) == (2.0, 0.7, so.Slotted)


# -- crashes: argument forms the rules did not take ----------------------------------------


@pytest.mark.parametrize(
    "function",
    [so.einsum_sublists, so.einsum_sublists_output, so.einsum_sublists_in_loop],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("position", [0, 1])
def test_einsum_interleaved_form(function, position):
    """(Issue 17: `np.einsum(a, [0, 1], b, [1, 2])` raised TypeError when it ran.)"""
    assert_both_modes(
        function, (rng.standard_normal((2, 3)), rng.standard_normal((3, 4))), position
    )


@pytest.mark.parametrize(
    "function",
    [so.dict_get, so.dict_views, so.list_methods],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("x", [0.7, -1.9])
def test_methods_of_dicts_and_lists(function, x):
    """(Issue 17: `d.get("a")` raised TypeError when it ran.) dict_get_rrule, dict_values_rrule,
    dict_items_rrule, dict_copy_rrule, list_copy_rrule and their forward rules."""
    assert_both_modes(function, (x,))


def test_keyword_forms_of_sum_enumerate_and_zip():
    assert_both_modes(so.keyword_forms, (rng.standard_normal(3),))


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_rule_that_cannot_take_the_call_is_refused_at_compile_time(mode):
    x = rng.standard_normal(3)
    call = (
        (lambda: srcad.grad(so.rule_without_the_keyword)(x))
        if mode == "grad"
        else (lambda: srcad.jvp(so.rule_without_the_keyword, (x,), (x,)))
    )
    error = assert_refused(
        call, so.rule_without_the_keyword, "np.power", code="E213", error=srcad.SrcadError
    )
    assert "`dtype`" in str(error)


def test_a_method_of_a_builtin_type_without_a_rule_is_a_srcad_error():
    def pops(x):
        return {"a": x}.__len__() * x

    with pytest.raises(srcad.SrcadError):
        srcad.grad(pops)(1.0)


def test_fields_named_like_numpy_attributes_are_fields():
    """`.T`, `.size` and `.shape` are NumPy's attributes only on NumPy's values: on a
    dataclass they are fields, differentiated as such (they were a transpose and a
    constant)."""
    g = so.Gas(1.5, -0.5, 2.0)
    gradient = srcad.grad(so.array_named_fields)(g)
    assert (gradient.T, gradient.size, gradient.shape) == (-0.5, 1.5, 4.0)
    _, y_dot = srcad.jvp(
        so.array_named_fields, (g,), (Tangent(so.Gas, T=1.0, size=2.0, shape=3.0),)
    )
    assert y_dot == -0.5 * 1.0 + 1.5 * 2.0 + 4.0 * 3.0


@pytest.mark.parametrize("x", [np.array([0.5, -1.0, 2.0]), np.array([[0.5, 1.0], [2.0, -3.0]])])
def test_numpy_attributes_of_arrays_carry_no_derivative(x):
    """Through a helper (compiled for any argument) and in forward mode, where the kinds
    of the values are not known."""
    assert_both_modes(so.calls_mean_square, (x,))


def test_a_callable_object_is_differentiated_through_its_call_method():
    assert_both_modes(so.callable_object_in_loop, (1.3,))
    assert_both_modes(so.index_expression, (rng.standard_normal(4),))


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_calling_or_indexing_other_objects_with_inputs_is_refused(mode):
    x = rng.standard_normal(3)
    for function, text in [
        (so.callable_without_rule, "DOUBLE(x)"),
        (so.mgrid_from_inputs, "np.mgrid"),
    ]:
        argument = x if function is so.callable_without_rule else 3.5
        if mode == "grad":
            assert_refused(lambda f=function, a=argument: srcad.grad(f)(a), function, text)
        else:
            call = lambda f=function, a=argument: srcad.jvp(f, (a,), (a,))  # noqa: E731
            assert_refused(call, function, text)

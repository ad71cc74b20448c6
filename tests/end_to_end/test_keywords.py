"""Differentiated values passed by keyword to keyword-only parameters and `**kwargs`, and
forwarded with `**` (`srcad.keywords`), of module-level and of nested functions: against
central finite differences in both modes (and to second order in
`test_second_order_objects.py`; third and fourth order here, against differences of the
order below), and a keyword passed twice fails as Python's call does."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, finite_difference_jvp
from tests.conftest import check_two_argument_gradient, close
from tests.end_to_end import keyword_functions as m

V = np.array([0.7, -1.3, 0.4])
W = np.array([0.6, 0.2, -0.9])
CASES = [
    (f, args)
    for f in (
        m.to_keyword_only,
        m.to_double_star,
        m.forwarded,
        m.forwarded_display,
        m.module_helper_keywords,
        m.nested_keyword_only,
        m.nested_keyword_required,
        m.nested_keyword_reads_the_closure,
        m.nested_keyword_in_a_loop,
        m.nested_keyword_to_module_keyword,
    )
    for args in ((0.7, 0.6), (-1.1, 0.3))
] + [(m.on_arrays, (V, W)), (m.nested_keyword_on_arrays, (V, W))]


@pytest.mark.parametrize(("f", "args"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_reverse_mode(f, args):
    check_two_argument_gradient(f, args)


@pytest.mark.parametrize(("f", "args"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode(f, args):
    tangents = tuple(np.full(np.shape(a), 0.3) if np.ndim(a) else -0.8 for a in args)
    _, y_dot = srcad.jvp(f, args, tangents)
    close(y_dot, finite_difference_jvp(f, args, tangents))
    check_frule(f, *args)


def test_the_callee_itself_takes_keywords_through_the_api():
    """`rrule` and `frule` of a function with keyword-only parameters and `**kwargs`,
    called with keywords: the keywords are not differentiated there (ChainRules' rules
    take cotangents for positional arguments), and the value is Python's."""
    y, pullback = srcad.rrule(m.keyword_only, 0.7, scale=2.0)
    close(y, m.keyword_only(0.7, scale=2.0))
    close(pullback(1.0)[1], 2.0 * np.cos(0.7) + 0.5)
    y, y_dot = srcad.frule((srcad.NoTangent(), 1.0), m.collects, 0.7, s=3.0)
    close(y_dot, 3.0 + 4.0 * 0.7)


def test_second_order():
    """Through the reverse rule of `keyword_call`'s forward rule (`rules/second_order_calls.py`);
    every case here to second order: `test_second_order_objects.py`."""
    gradient = srcad.grad(m.to_keyword_only)
    want = finite_difference_jvp(gradient, (0.7, 0.6), (1.0, 0.0))
    assert srcad.hessian(m.to_keyword_only)(0.7, 0.6) == pytest.approx(want, rel=1e-6)


def test_a_keyword_passed_twice_fails_as_in_python():
    with pytest.raises(TypeError, match="multiple values for keyword argument 'scale'"):
        m.passed_twice(0.7, 0.6)
    with pytest.raises(TypeError, match="multiple values for keyword argument 'scale'"):
        srcad.grad(m.passed_twice)(0.7, 0.6)


def test_second_order_of_nested_keyword_only_parameters():
    """Hessians through the keyword-only parameters of nested functions, against central
    differences of the gradient (the other cases: `test_second_order_objects.py`)."""
    for f in (m.nested_keyword_only, m.nested_keyword_required, m.nested_keyword_in_a_loop):
        gradient = srcad.grad(f, wrt=(0, 1))
        hessian = srcad.hessian(f, wrt=(0, 1))(0.7, 0.6)
        for j, direction in enumerate(((1.0, 0.0), (0.0, 1.0))):
            column = finite_difference_jvp(gradient, (0.7, 0.6), direction)
            for i in range(2):
                assert float(hessian[i][j]) == pytest.approx(column[i], rel=1e-6, abs=1e-9)


def test_a_nested_keyword_only_parameter_after_star_args_is_refused_at_the_call():
    """After `*args`, a keyword-only parameter of a nested function has no position a
    rule could give it a cotangent by: a computed value passed to it is refused (E211),
    located at the call."""
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(m.nested_keyword_after_star_args)(0.7, 0.6)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E211"
    assert "inner(x, y, scale=x * y)" in diagnostic.source_line


def test_third_order_and_forward_over_forward_through_a_nested_keyword_only_parameter():
    second = srcad.grad(srcad.grad(m.nested_keyword_only))
    want = finite_difference_jvp(second, (0.7, 0.6), (1.0, 0.0))
    assert srcad.grad(second)(0.7, 0.6) == pytest.approx(want, rel=1e-6)
    forward = srcad.jacobian(srcad.jacobian(m.nested_keyword_only, mode="forward"), mode="forward")
    gradient = srcad.grad(m.nested_keyword_only)
    want = finite_difference_jvp(gradient, (0.7, 0.6), (1.0, 0.0))
    assert forward(0.7, 0.6) == pytest.approx(want, rel=1e-6)


THIRD = [
    m.third_keyword_only, m.third_double_star, m.third_forwarded_dict, m.third_forwarded_twice,
    m.third_star_and_keywords, m.third_on_arrays,
]  # fmt: skip


@pytest.mark.parametrize("f", THIRD, ids=lambda f: f.__name__)
def test_third_order_through_keywords_into_keyword_only_parameters_and_kwargs(f):
    """Through the forward rule of `keyword_call_frule` (`third_order_calls.
    keyword_call_frule_frule`, and its reverse rule): `grad` three deep, `jacobian` of
    `hessian` and `jvp` of `hessian` (reverse over the forward rule's forward rule), and
    `jacobian` three deep, against central differences of the Hessian (was refused)."""
    third = finite_difference_jvp(srcad.hessian(f), (0.7,), (1.0,))
    assert third != pytest.approx(0.0, abs=1e-3)  # (every case has one to check)
    assert srcad.grad(srcad.grad(srcad.grad(f)))(0.7) == pytest.approx(third, rel=1e-6)
    assert srcad.jacobian(srcad.hessian(f))(0.7) == pytest.approx(third, rel=1e-6)
    assert srcad.jvp(srcad.hessian(f), (0.7,), (1.0,))[1] == pytest.approx(third, rel=1e-6)
    forward = f
    for _ in range(3):
        forward = srcad.jacobian(forward, mode="forward")
    assert forward(0.7) == pytest.approx(third, rel=1e-6)


@pytest.mark.parametrize(
    "f", [m.third_keyword_only, m.third_double_star, m.third_forwarded_dict],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_fourth_order_through_keywords(f):
    """`keyword_call`'s forward rules four deep (`fourth_order_calls._keyword_nested`: the
    nested forward rules of the positional form, the parts' tangents moved to the
    parameters' at every depth), reverse and forward, against differences of the third."""
    third = srcad.grad(srcad.grad(srcad.grad(f)))
    fourth = finite_difference_jvp(third, (0.7,), (1.0,))
    assert srcad.grad(third)(0.7) == pytest.approx(fourth, rel=1e-6)
    forward = f
    for _ in range(4):
        forward = srcad.jacobian(forward, mode="forward")
    assert forward(0.7) == pytest.approx(fourth, rel=1e-6)

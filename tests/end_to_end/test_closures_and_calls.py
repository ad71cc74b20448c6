"""Closures, nested functions, `*args`, recursion and calls into other modules."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import srcad
from srcad.testing import check_rrule

HERE = pathlib.Path(__file__).parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


helpers = load("helper_module")
cf = load("closure_functions")

rng = np.random.default_rng(4)

CASES = [
    ("element_of_unhashable_call", cf.element_of_unhashable_call, (1.5,)),
    ("nested_def", cf.nested_def, (0.7, 1.3)),
    ("assigned_lambda", cf.assigned_lambda, (0.7, 1.3)),
    ("nested_in_loop", cf.nested_in_loop, (rng.standard_normal(3), 0.9)),
    ("rebinding_after_def", cf.rebinding_after_def, (0.7, 1.3)),
    ("nested_without_capture", cf.nested_without_capture, (0.7,)),
    ("nested_with_docstring", cf.nested_with_docstring, (0.7, 1.3)),
    ("reads_global", cf.reads_global, (0.7,)),
    ("star_args_callee", cf.star_caller, (0.7, 1.3)),
    ("star_args_direct", cf.total, (0.7, 1.3, 2.0)),
    ("closure_from_a_factory", cf.calls_a_closure, (0.4,)),
    ("keyword_only_parameter", cf.calls_keyword_only, (0.8,)),
    ("other_module", helpers.weighted, (0.3, 1.7)),
]


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(function, args):
    check_rrule(function, *args, rtol=1e-6, atol=1e-9)


def test_gradient_of_a_function_whose_nested_function_has_a_docstring():
    """The emitted text holds the docstring over several lines, indented with the rest of
    the rule when compiled: it is still the tree srcad built."""
    x, w, step = 0.7, 1.3, 1e-6
    gradient = srcad.grad(cf.nested_with_docstring, wrt=(0, 1))(x, w)
    by_x = (cf.nested_with_docstring(x + step, w) - cf.nested_with_docstring(x - step, w)) / 2e-6
    by_w = (cf.nested_with_docstring(x, w + step) - cf.nested_with_docstring(x, w - step)) / 2e-6
    assert gradient == pytest.approx((by_x, by_w), rel=1e-6)


def test_nested_rule_returns_the_closure_tangent():
    text = srcad.source(cf.nested_def)
    assert "def rrule_g(t):" in text
    assert "Tangent(FunctionType, w=" in text


def test_captured_cell_is_read_live():
    cell = cf.scaled_by_three.__closure__[0]
    before = srcad.grad(cf.calls_a_closure)(0.4)
    cell.cell_contents = 6.0
    try:
        assert srcad.grad(cf.calls_a_closure)(0.4) == pytest.approx(2 * before)
    finally:
        cell.cell_contents = 3.0


def test_active_keyword_only_argument_is_differentiated():
    """(Refused before issue 20: `srcad.keywords` differentiates keyword-only parameters.)"""

    def passes_active_power(x):
        return cf.keyword_only(2.0, power=x)

    assert srcad.grad(passes_active_power)(1.5) == pytest.approx(2.0**1.5 * np.log(2.0))
    _, y_dot = srcad.jvp(passes_active_power, (1.5,), (1.0,))
    assert y_dot == pytest.approx(2.0**1.5 * np.log(2.0))


def test_lambda_that_is_not_assigned_is_refused_with_its_line():
    """A lambda used as a value is bound to a name first, but for one with a default value
    (evaluated where the lambda is), which stays refused."""

    def immediately_called(x):
        return (lambda t: t * 2.0)(x)

    def with_a_default(x):
        return (lambda t, s=2.0: t * s)(x)

    assert srcad.grad(immediately_called)(1.0) == 2.0
    with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
        srcad.grad(with_a_default)(1.0)
    assert {d.code for d in raised.value.diagnostics} == {"E102"}

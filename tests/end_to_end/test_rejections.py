"""What srcad refuses, where it says so, and how a registered rule lifts the refusal."""

import importlib.util
import inspect
import math
import pathlib
import sys

import numpy as np
import pytest

import srcad
from srcad.testing import check_rrule

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("rejected_functions", HERE / "rejected_functions.py")
rf = importlib.util.module_from_spec(spec)
sys.modules["rejected_functions"] = rf
spec.loader.exec_module(rf)
FILE = str(HERE / "rejected_functions.py")


def line_of(function, text):
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_addone_into_an_argument_is_refused_at_the_mutation():
    with pytest.raises(srcad.MutationError) as raised:
        srcad.grad(rf.addone_into)(np.ones(3), np.zeros(3))
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.code) == (
        FILE,
        line_of(rf.addone_into, "b[:] ="),
        4,
        "E301",
    )
    assert "@srcad.rrule.register(addone_into)" in diagnostic.hint


def test_addone_into_its_own_array_is_differentiated():
    """`addone`'s write goes into an array it made and shares with nothing: rewritten as a
    new value (`primitives.index_update`), it needs no rule."""
    check_rrule(rf.addone, np.array([0.5, 1.5, -2.0]))
    np.testing.assert_allclose(srcad.grad(rf.addone)(np.array([1.0, 2.0])), [1.0, 1.0])


def test_exception_is_refused_at_the_try():
    with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
        srcad.grad(rf.exception)(3.0)
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.code) == (
        FILE,
        line_of(rf.exception, "try:"),
        4,
        "E101",
    )
    assert diagnostic.hint == "register a rule with @srcad.rrule.register(exception)"


def test_the_seeds_rules_make_them_differentiable():
    def uses_addone(a):
        return 3.0 * rf.addone(a * a)

    def uses_addone_into(a):
        return 3.0 * rf.addone_into(a * a, np.zeros(3))

    def uses_exception(x):
        return rf.exception(x) * x

    with pytest.raises(srcad.MutationError):
        srcad.grad(uses_addone_into)(np.ones(3))

    @srcad.rrule.register(rf.addone)
    def addone_rrule(a):
        y = rf.addone(a)

        def addone_pullback(y_bar):
            return srcad.NoTangent(), np.ones_like(a) * y_bar

        return y, addone_pullback

    @srcad.rrule.register(rf.exception)
    def exception_rrule(x):
        y = rf.exception(x)

        def exception_pullback(y_bar):
            return srcad.NoTangent(), 2.0 * x * y_bar

        return y, exception_pullback

    check_rrule(rf.addone, np.array([0.5, 1.5, -2.0]))
    check_rrule(rf.exception, 3.0)
    check_rrule(uses_addone, np.array([0.5, 1.5, -2.0]))
    check_rrule(uses_exception, 1.5)
    np.testing.assert_allclose(srcad.grad(uses_addone)(np.array([1.0, 2.0])), [6.0, 12.0])


def test_every_missing_rule_of_the_call_graph_in_one_error():
    with pytest.raises(srcad.MissingRuleError) as raised:
        srcad.grad(rf.uses_both)(1.5)
    codes_and_lines = [(d.code, d.line) for d in raised.value.diagnostics]
    assert ("E210", line_of(rf.gamma_of, "math.gamma")) in codes_and_lines
    assert ("E210", line_of(rf.lgamma_of, "math.lgamma")) in codes_and_lines
    assert ("E210", line_of(rf.uses_both, "math.gamma")) in codes_and_lines
    hints = {d.hint for d in raised.value.diagnostics if d.code == "E210"}
    assert "register a rule with @srcad.rrule.register(gamma)" in hints


def test_strings_none_and_flags_are_fine_as_other_arguments():
    grad = srcad.grad(rf.with_string_and_none)
    assert grad(1.5, "double", None, True, 3) == pytest.approx(6.0)


@pytest.mark.parametrize("position", [1, 2, 3, 4], ids=["string", "none", "bool", "int"])
def test_gradient_with_respect_to_a_non_float_is_a_clear_error(position):
    with pytest.raises(srcad.SrcadError, match="cannot be perturbed"):
        srcad.grad(rf.with_string_and_none, wrt=position)(1.5, "double", None, True, 3)


def test_gamma_is_exercised():
    assert math.gamma(1.5) == pytest.approx(0.886226925)

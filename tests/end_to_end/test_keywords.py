"""Differentiated values passed by keyword to keyword-only parameters and `**kwargs`, and
forwarded with `**` (`srcad.keywords`): against central finite differences in both modes.
Second order is refused (the forward rule calls the function found when it runs), and a
keyword passed twice fails as Python's call does."""

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
    for f in (m.to_keyword_only, m.to_double_star, m.forwarded, m.forwarded_display)
    for args in ((0.7, 0.6), (-1.1, 0.3))
] + [(m.on_arrays, (V, W))]


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

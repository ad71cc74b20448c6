"""Thunks, in-place thunks, marked gaps, scalar rules from partials, and the checkers."""

import math

import numpy as np
import pytest

import srcad
from srcad.tangents import accumulate_into
from srcad.testing import check_frule, check_rrule, check_scalar


def test_thunk_computes_once_and_only_when_used():
    calls = []

    def compute():
        calls.append(1)
        return np.ones(2) * 3.0

    lazy = srcad.thunk(compute)
    assert calls == []
    np.testing.assert_array_equal(lazy + 1.0, [4.0, 4.0])
    np.testing.assert_array_equal(np.sum(lazy), 6.0)
    np.testing.assert_array_equal(srcad.unthunk(lazy), [3.0, 3.0])
    assert calls == [1]


def test_zero_plus_thunk_stays_lazy():
    lazy = srcad.thunk(lambda: 2.0)
    assert (srcad.ZeroTangent() + lazy) is lazy


def test_inplaceable_thunk_adds_into_a_buffer():
    buffer = np.zeros(3)
    lazy = srcad.InplaceableThunk(lambda b: np.add(b, 1.0, out=b), lambda: np.ones(3))
    result = accumulate_into(buffer, lazy)
    assert result is buffer
    np.testing.assert_array_equal(buffer, np.ones(3))
    np.testing.assert_array_equal(accumulate_into(1.0, lazy), np.full(3, 2.0))


def test_projection_of_a_thunk_stays_lazy():
    project = srcad.ProjectTo(np.zeros(3, dtype=np.float32))
    lazy = project(srcad.thunk(lambda: np.ones((2, 3))))
    assert isinstance(lazy, srcad.Thunk)
    result = srcad.unthunk(lazy)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, [2.0, 2.0, 2.0])


def test_not_implemented_is_kept_by_sums_and_raises_when_used():
    """A sum with an unknown term is unknown (as in ChainRules): adding anything keeps the
    gap, which raises wherever its value is read."""
    gap = srcad.not_implemented("why")
    assert (gap + srcad.ZeroTangent()) is gap
    assert (srcad.ZeroTangent() + gap) is gap
    assert (gap + 1.0) is gap and (np.ones(2) + gap) is gap
    assert srcad.ProjectTo(1.0)(gap) is gap
    with pytest.raises(srcad.SrcadError, match=r"test_thunks_and_checks.py:\d+: .*why"):
        gap * 1.0
    for use in (np.asarray, float, bool, lambda g: -g, lambda g: g - 1.0, lambda g: g / 2.0):
        with pytest.raises(srcad.SrcadError):
            use(gap)


def my_cube(x):
    return x * x * x


def uses_my_cube(x):
    return my_cube(x) + 1.0


def test_scalar_rule_gives_both_rules_with_named_pullbacks():
    srcad.scalar_rule(my_cube, lambda x, y: 3.0 * x * x)
    y, pullback = srcad.rrule(my_cube, 2.0)
    assert (y, pullback(1.0)[1]) == (8.0, 12.0)
    assert pullback.__code__.co_name == "my_cube_pullback"
    assert srcad.frule((srcad.NoTangent(), 1.0), my_cube, 2.0) == (8.0, 12.0)
    check_scalar(my_cube, 0.7)
    check_rrule(uses_my_cube, 0.7)


def test_frule_of_a_function_without_rule_or_source_is_refused():
    with pytest.raises(srcad.SourceUnavailableError, match="gamma"):
        srcad.frule((srcad.NoTangent(), 1.0), math.gamma, 1.0)


def test_frule_is_compiled_from_source_without_a_rule():
    def unregistered(x):
        return x * 3.0

    assert srcad.frule((srcad.NoTangent(), 2.0), unregistered, 1.0) == (3.0, 6.0)


@pytest.mark.parametrize(
    ("function", "args"),
    [(np.sin, (0.3,)), (np.arctan2, (np.array([0.3, 1.0]), np.array([1.5, -0.5]))),
     (math.exp, (0.3,)), (np.hypot, (np.ones((2, 1)), np.arange(1.0, 4.0)))],
    ids=["sin", "arctan2", "math.exp", "hypot_broadcast"],
)  # fmt: skip
def test_check_frule_on_library_scalar_rules(function, args):
    check_frule(function, *args)


def wrong_double(x):
    return 2.0 * x


def test_checkers_report_the_argument_and_the_error():
    srcad.scalar_rule(wrong_double, lambda x, y: 3.0)  # the partial is wrong on purpose
    with pytest.raises(AssertionError, match="argument 0 of wrong_double: cotangent differs"):
        check_rrule(wrong_double, 0.5)
    with pytest.raises(AssertionError, match="output tangent of wrong_double"):
        check_frule(wrong_double, 0.5)

"""Rules for the numeric builtins, against finite differences."""

import numpy as np
import pytest

import srcad
from srcad.rules import builtins
from srcad.tangents import NoTangent, Tangent, ZeroTangent
from srcad.testing import check_frule, check_rrule

# The seed of random tangents, apart from the data's: a tangent equal to its primal (both
# drawn from seed 0) would hide a rule that confuses the two.
TANGENT_SEED = 7

CASES = [
    ("abs_negative_float", abs, (-0.7,)),
    ("abs_positive_float", abs, (0.7,)),
    ("abs_array", abs, (np.array([1.0, -2.0, 0.5]),)),
    ("abs_complex", abs, (1.0 + 2.0j,)),
    ("pow_floats", pow, (1.3, 2.5)),
    ("pow_array_scalar", pow, (np.array([0.5, 1.5]), 3.0)),
    ("float_of_0d_array", float, (np.array(2.5),)),
    ("float_of_numpy_scalar", float, (np.float64(2.5),)),
    ("max_of_arguments", max, (0.3, 0.9, 0.5)),
    ("min_of_arguments", min, (0.3, 0.9, 0.5)),
    ("max_of_list", max, ([0.3, 0.9, 0.5],)),
    ("min_of_tuple", min, ((0.3, -0.9, 0.5),)),
    ("max_of_array", max, (np.array([0.3, 0.9, 0.5]),)),
]


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_builtin_matches_finite_differences(function, args):
    check_rrule(function, *args)


def test_max_with_key_gives_the_chosen_item_the_cotangent():
    check_rrule(max, [0.3, -0.9, 0.5], key=abs)


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_builtin_forward_rule_matches_finite_differences(function, args):
    if isinstance(args[0], list | tuple):  # check_frule leaves a list alone: by its items
        items = args[0]
        dots = [0.4 * i - 0.7 for i in range(len(items))]
        check_frule(function, *items, seed=TANGENT_SEED)
        for form in (dots, tuple(dots), Tangent(type(items), *dots)):
            expected = srcad.frule((NoTangent(), *dots), function, *items)
            assert srcad.frule((NoTangent(), form), function, items) == expected
        return
    check_frule(function, *args, seed=TANGENT_SEED)


def test_max_forward_rule_with_key_gives_the_chosen_items_tangent():
    check_frule(max, 0.3, -0.9, 0.5, key=abs, seed=TANGENT_SEED)
    _, y_dot = srcad.frule((NoTangent(), [1.0, 2.0, 3.0]), max, [0.3, -0.9, 0.5], key=abs)
    assert y_dot == srcad.frule((NoTangent(), 1.0, 2.0, 3.0), max, 0.3, -0.9, 0.5, key=abs)[1]


@pytest.mark.parametrize(
    ("function", "args", "kwargs", "dots"),
    [
        pytest.param(max, (0.3, 0.9), {}, (1.0, ZeroTangent()), id="chosen-zero"),
        pytest.param(min, ([0.3, 0.9],), {}, (ZeroTangent(),), id="list-zero"),
        pytest.param(max, ([],), {"default": 1.0}, (ZeroTangent(),), id="empty-default"),
        pytest.param(abs, (-0.7,), {}, (NoTangent(),), id="abs"),
        pytest.param(float, (np.array(2.5),), {}, (ZeroTangent(),), id="float"),
        pytest.param(pow, (1.3, 2.5), {}, (ZeroTangent(), ZeroTangent()), id="pow"),
    ],
)
def test_zero_tangent_stays_symbolic(function, args, kwargs, dots):
    assert srcad.frule((NoTangent(), *dots), function, *args, **kwargs)[1] is ZeroTangent()


def test_every_reverse_rule_has_a_forward_rule():
    # (but for the reverse rules of forward rules, which give second derivatives)
    forward = {rule.rrule for rule in builtins.rules.frules.values()}
    assert set(builtins.rules.rrules) - forward <= set(builtins.rules.frules)

"""Rules for the numeric builtins, against finite differences."""

import numpy as np
import pytest

from srcad.testing import check_rrule

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

"""Bound methods and classmethods held in globals, called by a bare name or an attribute:
both modes against central finite differences."""

from __future__ import annotations

import pytest

import srcad
from tests.end_to_end import bound_method_functions as functions


def central(f, args, position, step=1e-6):
    up = list(args)
    down = list(args)
    up[position] += step
    down[position] -= step
    return (f(*up) - f(*down)) / (2 * step)


CASES = [
    (functions.through_bound_method, (2.0,)),
    (functions.through_bound_method_twice, (2.0, 5.0)),
    (functions.through_classmethod_name, (1.5,)),
    (functions.through_classmethod_attribute, (-0.7,)),
]


@pytest.mark.parametrize(("f", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_both_modes_match_finite_differences(f, args):
    positions = tuple(range(len(args)))
    grads = srcad.grad(f, wrt=positions)(*args)
    for position in positions:
        want = central(f, args, position)
        assert grads[position] == pytest.approx(want, rel=1e-6)
        tangents = tuple(1.0 if p == position else 0.0 for p in positions)
        y, y_dot = srcad.jvp(f, args, tangents)
        assert y == pytest.approx(f(*args))
        assert y_dot == pytest.approx(want, rel=1e-6)

"""The rule specialised for the arguments' kinds (inlined derivatives, buffers) against the
general one (rule calls) on every end-to-end case: same primal, same cotangents. The
cases' own tests check the specialised rule against finite differences."""

import numpy as np
import pytest

from srcad import compiler
from srcad.kinds import signature
from srcad.tangents import AbstractZero, unthunk
from tests.end_to_end import test_closures_and_calls as calls
from tests.end_to_end import test_containers as containers
from tests.end_to_end import test_control_flow as control_flow
from tests.end_to_end import test_straight_line as straight_line


def _cases():
    for module in (straight_line, control_flow, containers, calls):
        for case in module.CASES:
            if len(case) == 3:
                name, function, args = case
            else:
                function, args = case
                name = function.__name__
            yield pytest.param(function, args, id=f"{module.__name__.rsplit('_', 1)[-1]}-{name}")


def _plain(value):
    value = unthunk(value)
    if isinstance(value, AbstractZero):
        return 0.0
    return value


@pytest.mark.parametrize(("function", "args"), list(_cases()))
def test_specialised_rule_agrees_with_the_general_one(function, args):
    kinds = signature(args)
    general = compiler.compiled(function, None, "reverse").function
    specialised = compiler.compiled(function, None, "reverse", kinds).function
    y, general_pullback = general(*args)
    y_specialised, specialised_pullback = specialised(*args)
    np.testing.assert_allclose(np.asarray(y_specialised), np.asarray(y), rtol=1e-12)
    seed = np.random.default_rng(5).standard_normal(np.shape(y))
    seed = float(seed) if np.ndim(y) == 0 else seed
    expected = general_pullback(seed)
    found = specialised_pullback(seed)
    assert len(found) == len(expected)
    for position, (e, f) in enumerate(zip(expected, found, strict=True)):
        if position == 0 or signature((args[position - 1],)) == (None,):
            continue  # no kind: the same rule calls in both, structural tangents and all
        if isinstance(args[position - 1], int):
            continue
        np.testing.assert_allclose(
            np.asarray(_plain(f), dtype=float),
            np.asarray(_plain(e), dtype=float),
            rtol=1e-10,
            atol=1e-12,
            err_msg=f"cotangent of argument {position - 1}",
        )

"""Cases of `test_api_shapes.py` that change what the whole process shares: `scalar_rule`
registers rules (the registry's version, which emitted entry code names, moves on), and
`clear_cache` empties every cache. `test_api_shapes.py` runs them in an interpreter of
their own; the file is not named `test_*`, so the suite itself does not collect it.

Checked against central finite differences, in both modes and to second order.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import sample
from tests.srcad.test_api_shapes import fd_gradient

# -- scalar_rule ---------------------------------------------------------------------------


def smooth1(x: Any) -> Any:
    return math.sinh(x)


def smooth2(a: Any, b: Any) -> Any:
    return a * np.exp(b)


def smooth3(a: Any, b: Any, c: Any) -> Any:
    return a * b * b + np.sin(c) * a


def smooth4(a: Any, b: Any, c: Any, d: Any) -> Any:
    return a * b + c * d * d + a * a * d


srcad.scalar_rule(smooth1, lambda x: math.cosh(x))  # of the inputs, as DESIGN.md has it
srcad.scalar_rule(smooth2, lambda a, b: np.exp(b), lambda a, b, y: y)  # inputs, and result
srcad.scalar_rule(
    smooth3,
    lambda a, b, c: b * b + np.sin(c),
    lambda a, b, c, y: 2 * a * b,
    lambda a, b, c: a * np.cos(c),
)
srcad.scalar_rule(
    smooth4,
    lambda a, b, c, d: b + 2 * a * d,
    lambda a, b, c, d: a,
    lambda a, b, c, d, y: d * d,
    lambda a, b, c, d: 2 * c * d + a * a,
)


def uses_the_rules(x: float, z: float) -> Any:
    return smooth1(x * z) + smooth2(x, z) + smooth3(x, z, x * z) + smooth4(x, z, x, z * z)


def test_scalar_rule_any_arity_in_both_modes_and_second_order() -> None:
    args = (0.7, -0.4)
    gx, gz = srcad.grad(uses_the_rules, wrt=(0, 1))(*args)
    assert gx == pytest.approx(fd_gradient(uses_the_rules, args, 0), rel=1e-6)
    assert gz == pytest.approx(fd_gradient(uses_the_rules, args, 1), rel=1e-6)
    _, forward = srcad.jvp(uses_the_rules, args, (1.0, 0.0))
    assert forward == pytest.approx(gx, rel=1e-9)
    _, forward = srcad.jvp(uses_the_rules, args, (0.0, 1.0))
    assert forward == pytest.approx(gz, rel=1e-9)
    # Second order: reverse mode over the forward rules the partials give.
    hessian = srcad.hessian(uses_the_rules, wrt=(0, 1))(*args)
    for i in range(2):
        for j in range(2):

            def partial_i(x: float, z: float, i: int = i) -> Any:
                return fd_gradient(uses_the_rules, (x, z), i)

            expected = fd_gradient(partial_i, args, j)
            assert float(hessian[i][j]) == pytest.approx(expected, rel=1e-4, abs=1e-6)


def test_scalar_rule_rules_checked_by_finite_differences() -> None:
    for primal, args in [
        (smooth1, (0.3,)),
        (smooth2, (0.3, 0.2)),
        (smooth3, (0.3, -1.2, 0.5)),
        (smooth4, (0.3, -1.2, 0.5, 0.9)),
    ]:
        srcad.testing.check_rrule(primal, *args)
        srcad.testing.check_frule(primal, *args)


def not_ruled(a: Any, b: Any) -> Any:
    return a * b


def test_scalar_rule_refuses_a_partial_of_another_arity() -> None:
    with pytest.raises(srcad.SrcadError, match="takes its 2 arguments, or those and the result"):
        srcad.scalar_rule(not_ruled, lambda a: a, lambda a, b: a)


# -- clear_cache ---------------------------------------------------------------------------


def cached(x: np.ndarray) -> Any:
    return np.sum(np.sin(x) * x)


def test_clear_cache_forgets_what_was_compiled() -> None:
    from srcad.defaults import COMPILER

    sources = sys.modules["srcad.source"]  # `srcad.source` names the API function

    x = sample((3,), 11)
    gradient = srcad.grad(cached)
    first = gradient(x)
    srcad.value_and_grad(cached)(x)
    assert COMPILER._attribute in cached.__dict__
    assert gradient.srcad_dispatcher.branches
    srcad.clear_cache()
    assert COMPILER._attribute not in cached.__dict__
    assert not gradient.srcad_dispatcher.branches
    assert not sources._parsed
    np.testing.assert_allclose(gradient(x), first)  # compiled again, the same
    np.testing.assert_allclose(first, fd_gradient(cached, (x,), 0), rtol=1e-6)
    assert gradient.srcad_dispatcher.branches

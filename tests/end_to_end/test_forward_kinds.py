"""Issue 19, item 3: forward rules specialised for their arguments' kinds, with module
constants read once on entry, loops over arrays by index, callees compiled for their
arguments' kinds and the tangents of numbers written as arithmetic (`ForwardAD._inlined`).
Every case against central differences, and again after a constant changed kind."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from srcad.tangents import ZeroTangent
from srcad.testing import check_frule
from tests.conftest import user_module

MODULE = """
import math
import numpy as np

SCALE = 0.2056
STEPS = 30
COEFFICIENTS = (0.05, -0.3, 0.8, -1.1, 0.6)


def kepler(M, e):
    E = M
    while abs(E - e * math.sin(E) - M) > 1e-12:
        E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    return E


def pendulum(theta, omega, damping):
    for _ in range(STEPS):
        omega = omega - 0.01 * (9.81 / 1.5 * math.sin(theta) + damping * omega)
        theta = theta + 0.01 * omega
    return theta


def horner(x, y):
    p = 0.0
    for c in COEFFICIENTS:
        p = p * x + c
    return math.sin(p) + math.exp(-p * p) * y


def rebinding(x, y):
    s = x * 1.0
    s += y
    s *= x
    s -= y / 2.0
    s /= 1.5
    s **= 2
    s = math.exp(s) * SCALE
    return s


def trig(x, y):
    s = math.sin(x)
    c = math.cos(x) * y
    x = x * 1.5 + c
    t = math.cos(x) + math.sin(y) * math.cos(y)
    return s * c + t * math.sin(x)


def helper(r, delta):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


def robust(w, xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total += helper(w[0] + w[1] * x - y, SCALE * 5.0)
    return total / len(xs)


def fit_first(w, xs, ys):
    return helper(w[0] + w[1] * xs[0] - ys[0], SCALE * 5.0) + robust(w, xs, ys)


def squared_error(y, yhat):
    s = 0.0
    for i in range(len(y)):
        s += (y[i] - yhat[i]) ** 2.0
    return s / len(y)
"""


@pytest.fixture
def module(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"forward_kinds_{abs(hash(str(tmp_path)))}", MODULE)


ARGUMENTS = {
    "kepler": (1.2, 0.3),
    "pendulum": (1.0, 0.2, 0.1),
    "horner": (0.7, -0.4),
    "rebinding": (0.6, 0.3),
    "trig": (0.8, -0.6),
}


def arrays(name: str) -> tuple[Any, ...]:
    rng = np.random.default_rng(5)
    if name in ("robust", "fit_first"):
        return np.array([0.5, 1.5]), rng.standard_normal(9), rng.standard_normal(9)
    return rng.standard_normal(9), rng.standard_normal(9)


def tangents_of(args: tuple[Any, ...]) -> tuple[Any, ...]:
    rng = np.random.default_rng(7)
    return tuple(rng.standard_normal(np.shape(a)) if np.ndim(a) else 0.7 - 0.3 * i
                 for i, a in enumerate(args))  # fmt: skip


def check(func: Any, args: tuple[Any, ...], h: float = 1e-6) -> None:
    """jvp against central differences along the tangents."""
    tangents = tangents_of(args)
    value, tangent = srcad.jvp(func, args, tangents)
    plus = func(*(a + h * t for a, t in zip(args, tangents, strict=True)))
    minus = func(*(a - h * t for a, t in zip(args, tangents, strict=True)))
    np.testing.assert_allclose(value, func(*args), rtol=1e-12)
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_scalar_code_is_inlined_and_right(module: Any, name: str) -> None:
    func, args = getattr(module, name), ARGUMENTS[name]
    check(func, args)
    text = COMPILER.compiled(func, None, Request.frule(signature(args))).source
    for rule in ("mul_frule", "add_frule", "sub_frule", "sin_frule", "truediv_frule"):
        assert rule not in text


@pytest.mark.parametrize("name", ["robust", "fit_first", "squared_error"])
def test_loops_over_arrays_and_callees_are_right(module: Any, name: str) -> None:
    check(getattr(module, name), arrays(name))


def test_arguments_of_other_kinds_afterwards(module: Any) -> None:
    check(module.rebinding, (0.6, 0.3))
    single = srcad.jvp(module.rebinding, (np.float32(0.6), 0.3), (0.7, 0.4))[1]
    double = srcad.jvp(module.rebinding, (0.6, 0.3), (0.7, 0.4))[1]
    np.testing.assert_allclose(single, double, rtol=1e-5)  # float32: to its precision
    check(module.squared_error, arrays("squared_error"))
    check(module.squared_error, tuple(list(a) for a in arrays("squared_error")))


@pytest.mark.parametrize("value", [0.9, 3, np.array(0.5), (1.0, 2.0)], ids=repr)
def test_a_rebound_constant_gives_the_right_tangent(module: Any, value: Any) -> None:
    check(module.horner, ARGUMENTS["horner"])
    check(module.robust, arrays("robust"))
    name = "COEFFICIENTS" if isinstance(value, tuple) else "SCALE"
    setattr(module, name, value)
    check(module.horner, ARGUMENTS["horner"])
    check(module.robust, arrays("robust"))


RECURSIVE = """
def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def outer(x, y):
    return power(x, 3) * y + power(y, 2)
"""


def _other_helper(r, delta):
    return delta * r * r * r


def test_a_callee_is_called_directly_and_rebinding_it_recompiles(module: Any) -> None:
    # The callee's forward rule is called as the function compiled, not through its
    # `CompiledCall`: its guards are the caller's, checked by the entry. (Called in
    # `robust`'s loop, the helper is written into it: `passes/transforms/inline_callees.py`.)
    args = arrays("fit_first")
    for func in (module.fit_first, module.robust):
        check(func, args)
    rule = COMPILER.compiled(module.fit_first, None, Request.frule(signature(args)))
    called = [v for v in rule.runtime.values() if getattr(v, "__name__", "") == "frule_helper"]
    assert called and all(type(v) is types.FunctionType for v in called)
    assert (module.helper, ("r",)) in [(callee, wrt) for callee, _, wrt in rule.callees]
    written = COMPILER.compiled(module.robust, None, Request.frule(signature(args)))
    assert "frule_helper(" not in written.source
    # Rebinding the helper, or changing its code in place, compiles again, where it is
    # called and where it is written in.
    module.helper = _other_helper
    for func in (module.fit_first, module.robust):
        check(func, args)
    module.helper = types.FunctionType(
        _other_helper.__code__.replace(co_name="helper"), vars(module), "helper"
    )
    for func in (module.fit_first, module.robust):
        check(func, args)
    module.helper.__code__ = (lambda r, delta: r * delta - r).__code__
    for func in (module.fit_first, module.robust):
        check(func, args)


def test_a_deleted_constant_fails_the_entry_guard(module: Any) -> None:
    check(module.robust, arrays("robust"))
    del module.SCALE
    with pytest.raises(NameError):
        srcad.jvp(module.robust, arrays("robust"), tangents_of(arrays("robust")))
    module.SCALE = 0.5
    check(module.robust, arrays("robust"))


def test_recursive_callees_are_right(tmp_path: Path) -> None:
    recursive = user_module(tmp_path, f"recursive_{abs(hash(str(tmp_path)))}", RECURSIVE)
    check(recursive.outer, (0.7, 1.3))


@pytest.mark.parametrize(
    "tangents",
    [(0.7, -0.4), (ZeroTangent(), -0.4), (0.7, ZeroTangent()), (np.float64(0.7), -0.4)],
    ids=["floats", "x zero", "y zero", "x numpy"],
)
def test_an_accumulator_starts_from_a_float_zero_only_for_float_tangents(
    module: Any, tangents: tuple[Any, ...]
) -> None:
    # `p = 0.0` before the loop: its tangent is a known zero, which the first step of the
    # loop `Unroll` wrote out does not multiply (`ForwardAD.zero_now`): `p * x_dot`, a
    # float where `x`'s tangent is one, the symbolic zero where every tangent is one
    # (`check_frule` asks that).
    args = ARGUMENTS["horner"]
    check_frule(module.horner, *args, tangents=tangents)
    _, tangent = srcad.jvp(module.horner, args, tangents)
    h = 1e-6
    dense = [0.0 if isinstance(t, ZeroTangent) else float(t) for t in tangents]
    plus = module.horner(*(a + h * t for a, t in zip(args, dense, strict=True)))
    minus = module.horner(*(a - h * t for a, t in zip(args, dense, strict=True)))
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * h), rtol=1e-6)
    text = COMPILER.compiled(module.horner, None, Request.frule(signature(args))).source
    # (`p` is `0.0` there: `common_values` writes the constant)
    assert "p_dot = 0.0 * x_dot\n" in text and "ZERO" not in text, text


def test_a_tangent_reads_the_value_of_a_call_computed_before(module: Any) -> None:
    # `cos(E)`'s tangent is `-E_dot * sin(E)`, and the loop computed `math.sin(E)` just
    # before: the tangent reads that value (`trig` checks values where `x` is rebound
    # between the two calls, in `test_scalar_code_is_inlined_and_right`). Its negation
    # is folded into the difference that reads it (`- -(...)`, `+ e * -(...)`).
    args = ARGUMENTS["kepler"]
    check(module.kepler, args)
    text = COMPILER.compiled(module.kepler, None, Request.frule(signature(args))).source
    assert "- e * (E_dot * sin_E)" in text and re.search(r"(?<![.\w])sin\(E\)", text) is None
    # the step's own `math.sin(E)` reads the value the test computed (`PrimalCallsReused`),
    # by its name (`common_values`: the copy `sin_E_2 = sin_E` is read through, and gone)
    assert text.count("math.sin(E)") == 1 and "sin_E_2" not in text
    assert "- -" not in text and "* -" not in text and "+ -" not in text
    text = COMPILER.compiled(module.trig, None, Request.frule(signature((0.8, -0.6)))).source
    assert "c_dot = -x_dot * s * y + " in text  # `s = math.sin(x)`, before
    # `x` rebound since: the value of `math.sin(x)` the return computes, of the new `x`,
    # moved before the tangent that repeats it (`PrimalCallsReused._later`)
    assert "sin_x = math.sin(x)\n" in text and "-x_dot * sin_x" in text
    assert "(x_dot * cos_x_2)" in text
    assert re.search(r"(?<![.\w])(sin|cos)\(", text) is None  # no call computed twice


def test_temporaries_are_nested_where_they_are_read(module: Any) -> None:
    # The normal form's names for intermediates, each read once, put back into the
    # expression reading them: the loop's test of `kepler` as written, but for the value
    # of `math.sin(E)` and the residual, which the step reads too (`common_values`).
    args = ARGUMENTS["kepler"]
    text = COMPILER.compiled(module.kepler, None, Request.frule(signature(args))).source
    assert (
        "sin_E = math.sin(E)\n        minus_minus_M = E - e * sin_E - M\n"
        "        if not abs(minus_minus_M) > 1e-12:"
    ) in text
    assert "over = minus_minus_M / " in text


ORDER = """
import math


def order(x, y):
    a = x / y
    b = math.log(x)
    return a + b
"""


@pytest.mark.parametrize(
    ("args", "error"), [((-1.0, 0.0), ZeroDivisionError), ((-1.0, 2.0), ValueError)]
)
def test_nesting_keeps_which_error_is_raised(tmp_path: Path, args: Any, error: Any) -> None:
    # `a = x / y` may raise, and so may `math.log(x)` between it and its reader: it is
    # not nested past it, so the forward rule raises what the function raises.
    ordered = user_module(tmp_path, f"order_{abs(hash(str(tmp_path)))}", ORDER)
    with pytest.raises(error):
        ordered.order(*args)
    with pytest.raises(error):
        srcad.jvp(ordered.order, args, (1.0, 1.0))
    check(ordered.order, (2.0, 3.0))

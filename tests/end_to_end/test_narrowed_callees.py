"""A user function called with arguments that carry no derivative (constants, values of
parameters not differentiated) is compiled with respect to the others alone
(`operation_rules.active_parameters`), and one called by a whole statement in a loop is
written into the loop (`passes/transforms/inline_callees.py`): the same helper called with
a constant at one site and a varying value at another, branching on the constant,
returning it, called by keyword or with a default, through a chain of helpers, by
recursion, returning early or at the end, with locals named as the caller's, in loops and
in straight code. Each is checked in both modes and to second order against central
differences."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from srcad.testing import finite_difference_jvp
from tests.conftest import difference, user_module

MODULE = """
import math
import numpy as np


def huber(r, delta):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


def affine(x, c):
    return c * x + c * c


def switch(x, mode):
    if mode > 0.0:
        return x * x * mode
    return math.sin(x) - mode


def outer(x, c):
    return inner(c, x) * c


def inner(c, x):
    return affine(x, c) + huber(x, c)


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def constant_then_active(w, xs):
    total = huber(w[0], 1.0) + huber(w[1], w[0] * w[0] + 0.5) + huber(0.3, w[1] * w[1] + 0.1)
    for x in xs:
        total += huber(w[0] * x - w[1], 0.7) + huber(x, w[1] * w[1] + 0.1)
    return total


def branch_on_the_constant(w, xs):
    total = switch(w[0], 2.0) + switch(w[1], -1.0)
    for x in xs:
        total += switch(w[0] * x, 0.5) + switch(w[1] * x, -0.25)
    return total


def constant_in_the_result(w, xs):
    total = affine(w[0], 3.0) * affine(1.5, w[1])
    for x in xs:
        total += affine(w[1] * x, x) + affine(x, w[0])
    return total


def by_keyword(w, xs):
    total = huber(delta=0.5, r=w[0]) + huber(w[1], delta=w[0] * w[0] + 0.2)
    for x in xs:
        total += huber(r=w[0] + w[1] * x, delta=1.0)
    return total


def chained(w, xs):
    total = outer(w[0], 0.6) + outer(0.3, w[1] * w[1] + 0.2)
    for x in xs:
        total += outer(w[1] * x, 1.2)
    return total


def recursive(w, xs):
    total = power(w[0], 3) + power(w[1], 2)
    for x in xs:
        total += power(w[0] * x, 2)
    return total


def scaled(x, factor=2.0):
    return factor * x


def accumulate(x, c):
    total = x * c
    total = total + c * c
    return total


def early(x):
    y = x * 3.0
    if x > 0.0:
        y = x * x
        return y
    if x < -0.5:
        return -y
    return y + 1.0


def pair(x, c):
    return x * c, x + c


def written_in(w, xs):
    total = 0.0
    for x in xs:
        a = switch(w[0] * x, 0.5)
        b = affine(x, w[1])
        t = huber(w[0] - x, delta=0.4)
        c = outer(w[1], x + 2.0)
        d = power(w[0] * x, 2)
        e = early(w[1] * x)
        s = scaled(w[0])
        u = accumulate(w[1], x)
        p, q = pair(w[0], x)
        total += a * b + t + c + d + e + s + u + p * q
        total += huber(w[1] * x, 0.3)
        total += huber(w[1] * x, 0.3) + 2.0 * huber(delta=x + 1.0, r=w[0])
        total = affine(w[0] * 2.0, min(x, 0.2)) + min(x, 0.5) * w[1] + total
    return total


def maybe(x):
    if x > 0.0:
        y = x * x
    return y + x


def unbound_local(w, xs):
    total = 0.0
    for x in xs:
        total += maybe(w[0] * x)
    return total


def kept_in_order(w, xs):
    total = 0.0
    for x in xs:
        total += w[0] * huber(x - w[1], 0.6)
    return total


def robust(w, xs):
    total = 0.0
    for x in xs:
        total += huber(w[0] * x - w[1], 0.5)
    return total


def shadowing(w, xs):
    total = 0.0
    abs = 0.5
    for x in xs:
        total += huber(w[0] * x - w[1], 1.0) * abs
    return total


def data_as_constant(w, xs):
    total = 0.0
    for x in xs:
        total += affine(w[0], x) + huber(w[1] - x, abs(x) + 0.3)
    return total


def neighbours(w, xs):
    total = 0.0
    for i in range(len(w)):
        r = w[i] * xs[i] - w[(i + 1) % len(w)]
        total += huber(r, 0.6)
    return total


SCALE = 0.75


def damped(x, k):
    return SCALE * x * x / (1.0 + k * x * x)


def counted(w, xs, n):
    total = 0.0
    i = 0
    while i < n:
        total += damped(w[0] * xs[i] - w[1], i + 0.5) + huber(w[1] * xs[i], 0.4)
        i += 1
    return total


def on_floats(a, b):
    total = 0.0
    for k in range(4):
        r = a * k - b
        s = a - b * k
        t = r * s
        total += switch(r, 0.5)
        total += huber(s, 0.8)
        total += early(t)
    return total
"""

NAMES = [
    "constant_then_active",
    "branch_on_the_constant",
    "constant_in_the_result",
    "by_keyword",
    "chained",
    "recursive",
    "data_as_constant",
    "written_in",
    "shadowing",
    "robust",
    "kept_in_order",
    "counted",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("narrowed")
    return user_module(path, "narrowed_callees_functions", MODULE)


def arguments(name: str) -> tuple[Any, ...]:
    rng = np.random.default_rng(len(name))
    if name == "counted":  # an int argument, which takes no tangent
        return np.array([0.8, -1.3]), rng.uniform(-1.5, 1.5, 5), 4
    return np.array([0.8, -1.3]), rng.uniform(-1.5, 1.5, 5)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("wrt", [0, (0, 1)])
def test_the_gradient_against_differences(module: Any, name: str, wrt: Any) -> None:
    f = getattr(module, name)
    args = arguments(name)
    gradient = srcad.grad(f, wrt=wrt)(*args)
    positions = [0] if wrt == 0 else [0, 1]
    gradients = [gradient] if wrt == 0 else list(gradient)
    for position, g in zip(positions, gradients, strict=True):
        np.testing.assert_allclose(g, difference(f, args, position), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
def test_the_jvp_against_differences(module: Any, name: str) -> None:
    f = getattr(module, name)
    args = arguments(name)
    tangents = (np.array([0.3, -0.7]), np.linspace(-0.5, 0.5, args[1].size))
    rest = (srcad.NoTangent(),) * (len(args) - 2)
    for seeds in [(*tangents, *rest), (tangents[0], srcad.ZeroTangent(), *rest)]:
        value, tangent = srcad.jvp(f, args, seeds)
        assert value == pytest.approx(f(*args))
        expected = finite_difference_jvp(f, args, seeds)
        np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
def test_the_hessian_against_differences_of_the_gradient(module: Any, name: str) -> None:
    f = getattr(module, name)
    args = arguments(name)
    hessian = srcad.hessian(f)(*args)
    gradient = srcad.grad(f)
    for index in range(2):
        direction = np.zeros(2)
        direction[index] = 1.0
        rest = (srcad.NoTangent(),) * (len(args) - 1)
        column = finite_difference_jvp(gradient, args, (direction, *rest))
        np.testing.assert_allclose(hessian[:, index], column, rtol=1e-6, atol=1e-7)


def test_a_constant_argument_gets_no_derivative_code(module: Any) -> None:
    """`huber(w[0], 1.0)` compiles `huber` with respect to `r` alone; `huber(0.3, w[1] *
    w[1] + 0.1)` with respect to `delta` alone; `huber(w[1], ...)` with respect to both
    (the calls in the loop are written in)."""
    args = arguments("constant_then_active")
    text = COMPILER.sources(module.constant_then_active, ("w",), Request.rrule(signature(args)))
    headers = [line for line in text.splitlines() if "rule of huber" in line]
    assert len(headers) == 3
    assert "differentiated with respect to: r; for r: float, delta: float" in text
    assert "differentiated with respect to: delta; for r: float, delta: float" in text
    assert "differentiated with respect to: r, delta; for r: float, delta: float" in text


def _other_huber(r, delta):
    return delta * r * r * r


def test_a_callee_is_called_directly_and_rebinding_it_recompiles(tmp_path: Path) -> None:
    """The gradient calls the helper's reverse rule as the function compiled, not through
    its `CompiledCall`: the helper's guards are the caller's, checked by `grad`'s entry,
    so that rebinding the helper or changing its code compiles again; so does a caller
    with the helper written in."""
    helpers = user_module(tmp_path, "narrowed_rebound", MODULE)
    args = arguments("constant_then_active")
    f = helpers.constant_then_active
    rule = COMPILER.compiled(f, ("w",), Request.grad(signature(args)))
    called = [v for v in rule.runtime.values() if getattr(v, "__name__", "") == "rrule_huber"]
    assert called and all(type(v) is types.FunctionType for v in called)
    gradients = [(f, srcad.grad(f)), (helpers.robust, srcad.grad(helpers.robust))]
    for change in range(3):
        for g, gradient in gradients:  # `robust` has the helper written in
            np.testing.assert_allclose(gradient(*args), difference(g, args), rtol=1e-6, atol=1e-7)
        if change == 0:
            helpers.huber = _other_huber
        else:
            helpers.huber.__code__ = (lambda r, delta: r * delta - r * r).__code__


def test_a_helper_called_in_a_loop_is_written_in(module: Any) -> None:
    """Each helper called in `written_in`'s loop is written into it, the calls before the
    last one taken out in their order; `huber` read by `shadowing`, whose caller binds
    `abs`, stays a call, as does a call after an item read."""
    args = arguments("written_in")
    rule = COMPILER.compiled(module.written_in, ("w",), Request.rrule(signature(args)))
    text = rule.source  # the caller's own text, not its callees'
    for helper in ["switch", "affine", "huber", "outer", "early", "scaled", "accumulate", "pair"]:
        assert f"rrule_{helper}(" not in text, helper
    assert "rrule_inner(" in text and "rrule_power(" in text  # called inside what is written
    kept = COMPILER.compiled(module.shadowing, ("w",), Request.rrule(signature(args)))
    assert "rrule_huber(" in kept.source
    # `w[0]` is read before the call: taking the call out first would change the order
    kept = COMPILER.compiled(module.kept_in_order, ("w",), Request.rrule(signature(args)))
    assert "rrule_huber(" in kept.source


def test_a_helper_reading_a_local_it_may_not_have_bound_stays_a_call(module: Any) -> None:
    """Written into a loop, `maybe` would read the `y` an earlier iteration left where the
    call raises `UnboundLocalError`: it stays a call, and raises as the function does."""
    xs = np.array([0.5, 1.5, 0.7])
    args = (np.array([0.8, -1.3]), xs)
    rule = COMPILER.compiled(module.unbound_local, ("w",), Request.rrule(signature(args)))
    assert "rrule_maybe(" in rule.source
    np.testing.assert_allclose(
        srcad.grad(module.unbound_local)(*args), difference(module.unbound_local, args),
        rtol=1e-6, atol=1e-7,
    )  # fmt: skip
    backwards = (args[0], np.array([0.5, -1.5, 0.7]))
    with pytest.raises(UnboundLocalError):
        module.unbound_local(*backwards)
    with pytest.raises(UnboundLocalError):
        srcad.grad(module.unbound_local)(*backwards)


@pytest.mark.parametrize("name", NAMES)
def test_the_forward_jacobian_and_hvp_against_differences(module: Any, name: str) -> None:
    """Forward mode writes the helpers in as reverse mode does (`Compiler.new_context`):
    the Jacobian by pushforwards, and the Hessian-vector product (forward over reverse)."""
    f = getattr(module, name)
    args = arguments(name)
    jacobian = srcad.jacobian(f, wrt=0, mode="forward")(*args)
    np.testing.assert_allclose(jacobian, difference(f, args, 0), rtol=1e-6, atol=1e-7)
    v = np.array([0.4, -0.9])
    hvp = srcad.hessian_vector_product(f)(*args, v)
    rest = (srcad.NoTangent(),) * (len(args) - 1)
    expected = finite_difference_jvp(srcad.grad(f), args, (v, *rest))
    np.testing.assert_allclose(hvp, expected, rtol=1e-6, atol=1e-7)


def test_the_forward_rule_has_the_helpers_written_in(module: Any) -> None:
    """The forward rule of `written_in` calls none of the helpers its loop calls; those
    `shadowing` and `kept_in_order` call stay calls, as in reverse mode."""
    args = arguments("written_in")
    rule = COMPILER.compiled(module.written_in, ("w",), Request.frule(signature(args)))
    for helper in ["switch", "affine", "huber", "outer", "early", "scaled", "accumulate", "pair"]:
        assert f"frule_{helper}(" not in rule.source, helper
    for name in ["shadowing", "kept_in_order"]:
        kept = COMPILER.compiled(getattr(module, name), ("w",), Request.frule(signature(args)))
        assert "frule_huber(" in kept.source, name
    floats = COMPILER.compiled(module.on_floats, None, Request.frule(signature((0.7, -0.4))))
    for helper in ["switch", "huber", "early"]:
        assert f"frule_{helper}(" not in floats.source, helper


def test_the_jvp_of_floats_with_helpers_written_in(module: Any) -> None:
    """Scalar loops over helpers (branches, an early return), with a float tangent or a
    symbolic zero for either argument."""
    f, args = module.on_floats, (0.7, -0.4)
    for seeds in [(1.0, 0.0), (0.3, -1.2), (srcad.ZeroTangent(), 0.5), (0.5, srcad.ZeroTangent())]:
        value, tangent = srcad.jvp(f, args, seeds)
        assert value == f(*args)
        expected = finite_difference_jvp(f, args, seeds)
        np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-7)


def test_a_rebound_helper_is_seen_by_the_jvp(tmp_path: Path) -> None:
    """A helper written into a forward rule is guarded as a called one: rebinding it or
    changing its code compiles again (the jvp entry's branch stops holding)."""
    helpers = user_module(tmp_path, "narrowed_rebound_forward", MODULE)
    args = arguments("robust")
    seeds = (np.array([0.3, -0.7]), srcad.ZeroTangent())
    for change in range(3):
        for g in [helpers.robust, helpers.constant_then_active]:
            expected = finite_difference_jvp(g, args, seeds)
            np.testing.assert_allclose(srcad.jvp(g, args, seeds)[1], expected, rtol=1e-6, atol=1e-7)
        if change == 0:
            helpers.huber = _other_huber
        else:
            helpers.huber.__code__ = (lambda r, delta: r * delta - r * r).__code__


def test_a_helper_that_may_leave_a_local_unbound_raises_in_forward_mode(module: Any) -> None:
    args = (np.array([0.8, -1.3]), np.array([0.5, 1.5, 0.7]))
    seeds = (np.array([0.3, -0.7]), srcad.ZeroTangent())
    expected = finite_difference_jvp(module.unbound_local, args, seeds)
    np.testing.assert_allclose(srcad.jvp(module.unbound_local, args, seeds)[1], expected)
    backwards = (args[0], np.array([0.5, -1.5, 0.7]))
    with pytest.raises(UnboundLocalError):
        srcad.jvp(module.unbound_local, backwards, seeds)


def test_a_forward_jacobian_of_many_directions_with_a_helper_written_in(module: Any) -> None:
    """Nine directions pushed forward in one call (`srcad/batched.py`) through a helper
    written into the loop, its branch taken both ways."""
    rng = np.random.default_rng(3)
    args = (rng.uniform(-2.0, 2.0, 9), rng.uniform(-1.5, 1.5, 9))
    f = module.neighbours
    jacobian = srcad.jacobian(f, wrt=0, mode="forward")(*args)
    np.testing.assert_allclose(jacobian, difference(f, args, 0), rtol=1e-6, atol=1e-7)
    rule = COMPILER.compiled(f, ("w",), Request.frule(signature(args), directions=9))
    assert "frule_huber(" not in rule.source and "w_dot_8" in rule.source

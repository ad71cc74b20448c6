"""A forward rule calling a helper compiled from source with a symbolic zero for some of
its parameters' tangents (a constant, a value that does not vary, a default, an int)
calls the helper's forward rule compiled with respect to the other parameters only
(`operation_rules.active_parameters`; a parameter left to its default is not among them:
its default is the same object whatever the caller's inputs): no zero is carried through
its arithmetic. The same helper
called from another place with other tangents varying gets a rule of its own. Every case
against central differences: `jvp`, `jacobian(mode="forward")`, Hessian-vector products
(forward over reverse), and gradients for good measure."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import close, difference, user_module

MODULE = """
import math
import numpy as np

SCALE = 1.5


def huber(r, delta):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


def weighted(a, b, c=2.0):
    return a * math.sin(b) + c * b * b


def powered(x, n):
    return x ** n * SCALE


def constant_delta(w, xs):
    total = 0.0
    for x in xs:
        total += huber(w[0] + w[1] * x, 1.0)
    return total


def inactive_delta(w, xs, delta):
    total = 0.0
    for x in xs:
        total += huber(w[0] * x - w[1], delta)
    return total


def both_ways(x, y):
    a = weighted(x, 0.3)
    b = weighted(0.7, y, c=x)
    c = weighted(x, y)
    return a + b * c


def in_a_while(x, y):
    n = 0
    total = 0.0
    while n < 4:
        total = total + weighted(total, x) + powered(y, n)
        n += 1
    return total


def keyword_only_first(x, y):
    return weighted(b=y, a=1.25) + huber(delta=x, r=0.4)
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_narrowed")
    return user_module(path, "forward_narrowed_module", MODULE)


XS = np.array([0.3, -1.2, 2.5, 0.05, -3.0])


def _check_jvp(f: object, args: tuple[object, ...], position: int) -> None:
    """`jvp` along random tangents of argument `position` (zeros for the others), and
    the forward Jacobian, against central differences."""
    want = difference(f, args, position)
    rng = np.random.default_rng(position)
    x = args[position]
    tangent = rng.standard_normal(np.shape(x)) if isinstance(x, np.ndarray) else 0.7
    tangents = tuple(tangent if i == position else srcad.ZeroTangent() for i in range(len(args)))
    y, y_dot = srcad.jvp(f, args, tangents)
    close(y, f(*args))  # type: ignore[operator]
    close(y_dot, want @ np.reshape(tangent, -1) if want.ndim else want * tangent)
    close(srcad.jacobian(f, wrt=position, mode="forward")(*args), want)


@pytest.mark.parametrize("w", [np.array([0.5, 1.5]), np.array([-0.2, 0.1])])
def test_a_constant_argument(module: types.ModuleType, w: np.ndarray) -> None:
    f = module.constant_delta
    _check_jvp(f, (w, XS), 0)
    kinds = signature((w, XS))
    sources = COMPILER.sources(f, ("w",), Request.frule(kinds))
    # Called in the loop, `huber` is written into it (`passes/transforms/inline_callees.py`):
    # its constant `delta` takes no tangent there either.
    assert "frule_huber(" not in sources, sources
    assert "delta_dot" not in sources, sources


@pytest.mark.parametrize("delta", [0.5, 2.0])
def test_an_argument_that_does_not_vary(module: types.ModuleType, delta: float) -> None:
    f = module.inactive_delta
    args = (np.array([0.8, -0.3]), XS, delta)
    _check_jvp(f, args, 0)
    _check_jvp(f, args, 2)  # the other way: `delta` varies, and the helper's rule is whole
    _, y_dot = srcad.jvp(f, args, (np.array([1.0, 0.5]), srcad.ZeroTangent(), 0.25))
    want = difference(f, args, 0) @ np.array([1.0, 0.5]) + difference(f, args, 2) * 0.25
    close(y_dot, want)


@pytest.mark.parametrize("point", [(0.7, -0.4), (-1.3, 0.9)])
@pytest.mark.parametrize("name", ["both_ways", "in_a_while", "keyword_only_first"])
def test_calls_varying_in_different_places(
    module: types.ModuleType, name: str, point: tuple[float, float]
) -> None:
    f = getattr(module, name)
    for position in (0, 1):
        _check_jvp(f, point, position)
    _, y_dot = srcad.jvp(f, point, (0.3, -0.8))
    close(y_dot, difference(f, point, 0) * 0.3 + difference(f, point, 1) * -0.8)
    gradient = srcad.grad(f, wrt=(0, 1))
    close(gradient(*point), [difference(f, point, 0), difference(f, point, 1)])
    # Second order: forward over reverse, against differences of the gradient.
    h = 1e-5
    for position in (0, 1):
        step = np.eye(2)[position] * h
        plus = gradient(*(np.array(point) + step))[position]
        minus = gradient(*(np.array(point) - step))[position]
        hvp = srcad.hessian_vector_product(f, wrt=position)(*point, 0.6)
        np.testing.assert_allclose(hvp, 0.6 * (plus - minus) / (2 * h), atol=1e-5)


def test_each_narrowing_is_listed_once(module: types.ModuleType) -> None:
    f = module.both_ways
    sources = COMPILER.sources(f, None, Request.frule(signature((0.7, -0.4))))
    # `weighted` three ways: with respect to `a` (b a constant, c left to its default),
    # to `b` and `c` (a a constant), and to `a` and `b` (c left to its default).
    for wrt in ("a;", "b, c;", "a, b;"):
        assert sources.count(f"with respect to: {wrt}") == 1, sources

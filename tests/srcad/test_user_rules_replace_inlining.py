"""A user's rule for a primitive is what every derivative of it calls, also where srcad
would inline the library's derivative (gradients specialised for known kinds write a
primitive's derivative out as arithmetic, `passes/inlining.py`): once a user's rule
replaces the library's, that arithmetic is no longer the rule's derivative.

Each primitive with an inline derivative is tried in a compiler of its own, where a user's
rule that calls the library's rule and scales its derivative by 7 replaces it (a
deliberately different derivative, so the test tells which one ran); the derivative
compiled for known kinds must be 7 times the central difference of the primal."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.compiler import Compiler
from srcad.defaults import REGISTRY, RULE_SETS
from srcad.registry import RuleConfig
from tests.conftest import user_module

SCALE = 7.0

# Each primitive with an inline derivative, with floats it is smooth at (and arrays of them).
PRIMITIVES = [p.function for p in REGISTRY.primitives() if p.inline is not None]


def _arguments(primal: Any) -> tuple[Any, ...] | None:
    """Float arguments `primal` takes and gives a finite float or array for, one or two of
    them, scalars or vectors; None where none of those fit."""
    for args in [(0.6,), (0.6, 0.35), (np.array([0.6, 0.3]),), (np.array([0.6, 0.3]),) * 2]:
        try:
            with warnings.catch_warnings(), np.errstate(all="raise"):
                warnings.simplefilter("error")
                y = primal(*args)
        except Exception:  # any arity or domain that does not fit
            continue
        if np.asarray(y).dtype.kind == "f" and np.all(np.isfinite(y)):
            return args
    return None


def _scaled_rules(compiler: Compiler, primal: Any) -> None:
    """Register for `primal` rules that call the library's and scale its derivative."""
    library_rrule = compiler.registry.rrule_for(primal)
    library_frule = compiler.registry.frule_for(primal)
    assert library_rrule is not None and library_frule is not None

    def scaled_rrule(*args: Any) -> Any:
        y, pullback = library_rrule.rrule(*args)

        def scaled_pullback(y_bar: Any) -> Any:
            return tuple(
                c if isinstance(c, srcad.NoTangent | srcad.ZeroTangent) else SCALE * c
                for c in pullback(y_bar)
            )

        return y, scaled_pullback

    def scaled_frule(dargs: Any, *args: Any) -> Any:
        y, y_dot = library_frule.rrule(dargs, *args)
        return y, SCALE * y_dot

    compiler.registry.register_rrule(primal, scaled_rrule)
    compiler.registry.register_frule(primal, scaled_frule)


def _central(f: Callable[..., Any], args: tuple[Any, ...], direction: tuple[Any, ...]) -> Any:
    h = 1e-6
    ahead = f(*(a + h * d for a, d in zip(args, direction, strict=True)))
    behind = f(*(a - h * d for a, d in zip(args, direction, strict=True)))
    return (np.sum(ahead) - np.sum(behind)) / (2 * h)


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A user module whose functions call `P` (bound per test) on their arguments:
    `one(a)`, `two(a, b)`."""
    path: Path = tmp_path_factory.mktemp("user_rules")
    return user_module(
        path,
        "calls_of_a_primitive",
        """
        P = None

        def one(a):
            return P(a)

        def two(a, b):
            return P(a, b)
        """,
    )


def test_every_inlined_primitive_is_tried() -> None:
    tried = [p for p in PRIMITIVES if _arguments(p) is not None]
    assert len(tried) >= 30, [getattr(p, "__name__", p) for p in tried]


@pytest.mark.parametrize("primal", PRIMITIVES, ids=lambda p: getattr(p, "__name__", repr(p)))
def test_user_rule_replaces_the_inlined_derivative(primal: Any, calls: Any) -> None:
    args = _arguments(primal)
    if args is None:
        pytest.skip("takes no one or two floats (or float vectors)")
    compiler = Compiler(config=RuleConfig(), rule_sets=RULE_SETS)
    _scaled_rules(compiler, primal)
    f = calls.one if len(args) == 1 else calls.two
    calls.P = primal
    try:
        direction = tuple(np.ones_like(a) * (0.5 + i) for i, a in enumerate(args))
        exact = _central(f, args, direction)
        y, pullback = compiler.rrule(f, *args)
        cotangents = pullback(np.ones_like(y))[1:]
        along = sum(
            np.sum(c * d)
            for c, d in zip(cotangents, direction, strict=True)
            if not isinstance(c, srcad.ZeroTangent)  # (`min`'s for the argument not returned)
        )
        assert along == pytest.approx(SCALE * exact, rel=1e-5, abs=1e-8)
        _, y_dot = compiler.frule((srcad.NoTangent(), *direction), f, *args)
        y_dot = 0.0 if isinstance(y_dot, srcad.ZeroTangent) else y_dot  # (`np.imag` of a real)
        assert np.sum(y_dot) == pytest.approx(SCALE * exact, rel=1e-5, abs=1e-8)
    finally:
        calls.P = None


def test_library_derivative_is_inlined_without_a_user_rule(calls: Any) -> None:
    """The other side: with no user rule, the same compilation inlines (so the test above
    tries what it means to)."""
    compiler = Compiler(config=RuleConfig(), rule_sets=RULE_SETS)
    calls.P = math.sin
    try:
        text = srcad.source(calls.one, args=(0.6,))
        assert "cos(a)" in text
        _, pullback = compiler.rrule(calls.one, 0.6)
        assert pullback(1.0)[1] == pytest.approx(math.cos(0.6), rel=1e-9)
    finally:
        calls.P = None

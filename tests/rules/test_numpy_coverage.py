"""Autograd's NumPy coverage is the floor of srcad's: every NumPy function autograd
differentiates (listed in `autograd_numpy_functions.txt`, written by
`tools/autograd_coverage.py`) has a rule in srcad, or compiles from NumPy's own source
and is checked here against finite differences."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.registry import REGISTRY
from srcad.testing import finite_difference_jvp, finite_difference_vjp

LISTED = Path(__file__).with_name("autograd_numpy_functions.txt")


def _listed_names() -> list[str]:
    lines = LISTED.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _function(qualified_name: str) -> Any:
    module, name = qualified_name.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


X = np.random.default_rng(4).standard_normal((4, 6, 2))


def hsplit_loss(x: np.ndarray) -> Any:
    left, right = np.hsplit(x, 2)
    return np.sum(np.sin(left) * right)


def vsplit_loss(x: np.ndarray) -> Any:
    return np.sum(np.vsplit(x, [1, 3])[1] ** 3)


def dsplit_loss(x: np.ndarray) -> Any:
    front, back = np.dsplit(x, 2)
    return np.sum(np.exp(front) * back)


# Functions srcad differentiates by compiling NumPy's own source (they call functions that
# have rules); each is checked through a user function that calls it.
COMPILED_FROM_SOURCE: dict[str, Callable[[np.ndarray], Any]] = {
    "numpy.hsplit": hsplit_loss,
    "numpy.vsplit": vsplit_loss,
    "numpy.dsplit": dsplit_loss,
}

# Functions srcad refuses on purpose, each with the reason it cannot be differentiated
# soundly. None of autograd's is.
REFUSED: dict[str, str] = {}

# Autograd's functions srcad does not cover yet: none.
MISSING: set[str] = set()


def test_the_list_names_numpy_functions() -> None:
    names = _listed_names()
    assert len(names) > 100
    for name in names:
        assert callable(_function(name)), name


@pytest.mark.parametrize("name", _listed_names())
def test_every_function_autograd_differentiates_is_covered(name: str) -> None:
    if name in MISSING or name in REFUSED or name in COMPILED_FROM_SOURCE:
        return
    function = _function(name)
    assert REGISTRY.rrule_for(function) is not None, f"{name} has no reverse rule"
    assert REGISTRY.frule_for(function) is not None, f"{name} has no forward rule"


def test_the_exceptions_are_functions_of_the_list() -> None:
    listed = set(_listed_names())
    assert set(COMPILED_FROM_SOURCE) | set(REFUSED) | MISSING <= listed


@pytest.mark.parametrize("name", sorted(MISSING))
def test_a_missing_function_that_gains_a_rule_leaves_the_missing_set(name: str) -> None:
    assert REGISTRY.rrule_for(_function(name)) is None


@pytest.mark.parametrize("name", sorted(COMPILED_FROM_SOURCE))
def test_functions_compiled_from_numpy_source_match_finite_differences(name: str) -> None:
    f = COMPILED_FROM_SOURCE[name]
    v = np.random.default_rng(1).standard_normal(X.shape)
    expected = finite_difference_vjp(f, (X,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(f)(X), expected, rtol=1e-6, atol=1e-8)
    _, y_dot = srcad.jvp(f, (X,), (v,))
    np.testing.assert_allclose(y_dot, finite_difference_jvp(f, (X,), (v,)), rtol=1e-6)


# Issue 20's list of NumPy functions refused or crashing before (besides autograd's), less
# the elementwise ones: each now has both rules (np.r_ and np.c_ through their primitive,
# `test_index_builders.py`).
BEYOND_AUTOGRAD = [
    np.linalg.eigvals, np.select, np.append, np.trapezoid, np.interp, np.average, np.sort,
    np.take_along_axis, np.einsum, np.trace, np.fft.hfft, np.fft.ihfft,
    srcad.primitives.index_concatenate,
]  # fmt: skip


@pytest.mark.parametrize("function", BEYOND_AUTOGRAD, ids=lambda f: f.__name__)
def test_the_functions_issue_20_names_have_rules(function: Any) -> None:
    assert REGISTRY.rrule_for(function) is not None
    assert REGISTRY.frule_for(function) is not None

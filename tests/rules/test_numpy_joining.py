"""Rules for NumPy's joining and splitting functions, checked against finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.rules import numpy_joining
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    Thunk,
    ZeroTangent,
)
from srcad.testing import check_frule, check_rrule

# The seed of random tangents, apart from the data's: a tangent equal to its primal (both
# drawn from seed 0) would hide a rule that confuses the two.
TANGENT_SEED = 7

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4))
M = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
A = RNG.standard_normal((2, 3))
B = RNG.standard_normal((2, 3))
ROW = RNG.standard_normal((1, 3))
Z = X + 1j * RNG.standard_normal((2, 3, 4))
M32 = M.astype(np.float32)

Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

# (id, function, positional arguments, keyword arguments) of one call.
JOINING: list[Call] = [
    ("concatenate", np.concatenate, ([A, B],), {}),
    ("concatenate-tuple", np.concatenate, ((A, ROW, B),), {}),
    ("concatenate-axis-1", np.concatenate, ([A, B[:, :1]], 1), {}),
    ("concatenate-negative-axis", np.concatenate, ([X, X[:, :, :1]],), {"axis": -1}),
    ("concatenate-axis-none", np.concatenate, ([A, V, X[0]], None), {}),
    ("concatenate-axis-none-keyword", np.concatenate, ((M, A),), {"axis": None}),
    ("concatenate-one", np.concatenate, ([V],), {}),
    ("concatenate-rows-of-array", np.concatenate, (X,), {}),
    ("concatenate-float32-and-float64", np.concatenate, ([M32, M],), {}),
    ("concatenate-complex-and-real", np.concatenate, ([Z[0], M],), {}),
    ("stack", np.stack, ([A, B],), {}),
    ("stack-axis-1", np.stack, ((A, B, A), 1), {}),
    ("stack-last-axis", np.stack, ([A, B],), {"axis": -1}),
    ("stack-floats", np.stack, ([1.5, -0.5, 2.0],), {}),
    ("stack-rows-of-array", np.stack, (M, 1), {}),
    ("stack-complex", np.stack, ([Z[0, 0], V],), {}),
    ("hstack-matrices", np.hstack, ([A, B[:, :1]],), {}),
    ("hstack-vectors", np.hstack, ((V, V[:2]),), {}),
    ("hstack-floats", np.hstack, ([1.5, V, np.array(2.0)],), {}),
    ("hstack-3d", np.hstack, ([X, X[:, :1]],), {}),
    ("vstack-matrices", np.vstack, ([A, ROW],), {}),
    ("vstack-vectors", np.vstack, ((V, M[0], M[1]),), {}),
    ("vstack-vector-and-matrix", np.vstack, ([V, M],), {}),
    ("vstack-floats", np.vstack, ([1.5, 2.0],), {}),
    ("vstack-float32", np.vstack, ([M32, M32[:1]],), {}),
    ("dstack-matrices", np.dstack, ([A, B],), {}),
    ("dstack-vectors", np.dstack, ((V, V),), {}),
    ("column-stack-vectors", np.column_stack, ((V, M[0]),), {}),
    ("column-stack-vector-and-matrix", np.column_stack, ([V, M.T.copy()],), {}),
]

SPLITTING: list[Call] = [
    ("split-sections", np.split, (X, 2), {}),
    ("split-sections-axis", np.split, (X, 2), {"axis": -1}),
    ("split-indices", np.split, (M, [1, 2]), {}),
    ("split-indices-axis-positional", np.split, (X, [1, 3], 2), {}),
    ("split-empty-piece", np.split, (V, [0, 3]), {}),
    ("split-vector", np.split, (V, 4), {}),
    ("split-complex", np.split, (Z, 3, 1), {}),
    ("split-float32", np.split, (M32, 2, 1), {}),
    ("array-split-unequal", np.array_split, (V, 3), {}),
    ("array-split-axis", np.array_split, (X, 3), {"axis": 2}),
]

CALLS = JOINING + SPLITTING


def _single_precision(args: tuple[Any, ...]) -> bool:
    flat = [e for a in args for e in (a if isinstance(a, list | tuple) else (a,))]
    return any(np.asarray(a).dtype == np.float32 for a in flat)


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if _single_precision(args) else {}
    check_rrule(f, *args, **tolerance, **kwargs)


# The pieces of np.split(M, [1, 3], axis=1): shapes (3, 1), (3, 2) and (3, 1).
PIECES = np.split(M, [1, 3], axis=1)


@pytest.mark.parametrize(
    "pieces_bar",
    [
        pytest.param((ZeroTangent(), np.ones((3, 2)), ZeroTangent()), id="tuple-with-zeros"),
        pytest.param([np.ones((3, 1)), ZeroTangent(), np.ones((3, 1))], id="list-with-zeros"),
        pytest.param(Tangent(tuple, ZeroTangent(), ZeroTangent(), -np.ones((3, 1))), id="tangent"),
        pytest.param(Tangent(list, *(p * 2 for p in PIECES)), id="list-tangent"),
    ],
)
def test_split_takes_partial_piece_cotangents(pieces_bar: Any) -> None:
    check_rrule(np.split, M, [1, 3], axis=1, output_tangent=pieces_bar)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"),
    [
        pytest.param(np.concatenate, ([A, B], 1), {}, id="concatenate"),
        pytest.param(np.stack, ([A, B],), {"axis": 1}, id="stack"),
        pytest.param(np.hstack, ([A, B],), {}, id="hstack"),
        pytest.param(np.split, (X, 3, 1), {}, id="split"),
    ],
)
def test_zero_cotangent_stays_symbolic(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    _, pullback = srcad.rrule(f, *args, **kwargs)
    cotangents = pullback(ZeroTangent())
    assert len(cotangents) == 1 + len(args)
    assert all(isinstance(c, AbstractZero) for c in cotangents)


@pytest.mark.parametrize(
    ("arrays", "primal_type"),
    [pytest.param([A, B], list, id="list"), pytest.param((A, B), tuple, id="tuple")],
)
def test_concatenate_gives_a_structural_tangent_of_the_sequence(
    arrays: Any, primal_type: type
) -> None:
    _, pullback = srcad.rrule(np.concatenate, arrays)
    arrays_bar = pullback(np.ones((4, 3)))[1]
    assert isinstance(arrays_bar, Tangent)
    assert arrays_bar.primal_type is primal_type


@pytest.mark.parametrize(
    "f", [pytest.param(np.concatenate, id="concatenate"), pytest.param(np.stack, id="stack")]
)
def test_join_refuses_out(f: Callable[..., Any]) -> None:
    out = np.empty((4, 3) if f is np.concatenate else (2, 2, 3))
    with pytest.raises(TypeError, match="out="):
        srcad.rrule(f, [A, B], out=out)


# -- forward rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_forward_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if _single_precision(args) else {}
    check_frule(f, *args, **tolerance, **kwargs, seed=TANGENT_SEED)


DA, DB = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))


@pytest.mark.parametrize(
    "arrays_dot",
    [
        pytest.param([DA, DB], id="list"),
        pytest.param((DA, DB), id="tuple"),
        pytest.param(Tangent(list, DA, DB), id="tangent"),
        pytest.param([ZeroTangent(), DB], id="one-zero"),
        pytest.param((DA, NoTangent()), id="one-no-tangent"),
        pytest.param([Thunk(lambda: DA), DB], id="thunk-element"),
        pytest.param(Thunk(lambda: [DA, DB]), id="thunk"),
    ],
)
@pytest.mark.parametrize(
    "f",
    [pytest.param(f, id=f.__name__) for f in (np.concatenate, np.stack, np.hstack, np.vstack)]
    + [pytest.param(np.dstack, id="dstack"), pytest.param(np.column_stack, id="column_stack")],
)
def test_forward_rule_takes_every_form_of_sequence_tangent(
    f: Callable[..., Any], arrays_dot: Any
) -> None:
    check_frule(f, [A, B], tangents=(arrays_dot,))


def test_forward_rule_keeps_float32_with_a_zero_among_the_tangents() -> None:
    dot = np.ones((1, 4), np.float32)
    check_frule(np.vstack, [M32, M32[:1]], tangents=([ZeroTangent(), dot],), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "f", [pytest.param(np.concatenate, id="concatenate"), pytest.param(np.stack, id="stack")]
)
def test_forward_rule_refuses_out(f: Callable[..., Any]) -> None:
    out = np.empty((4, 3) if f is np.concatenate else (2, 2, 3))
    with pytest.raises(TypeError, match="out="):
        srcad.frule((NoTangent(), [A, B]), f, [A, B], out=out)


@pytest.mark.parametrize("f", [np.split, np.array_split], ids=["split", "array_split"])
def test_pieces_get_a_list_of_tangents(f: Callable[..., Any]) -> None:
    pieces, pieces_dot = srcad.frule((NoTangent(), np.ones_like(X), NoTangent()), f, X, 2)
    assert isinstance(pieces_dot, list)
    assert len(pieces_dot) == len(pieces)
    assert srcad.frule((NoTangent(), ZeroTangent(), NoTangent()), f, X, 2)[1] == ZeroTangent()


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_joining.rules.rrules) <= set(numpy_joining.rules.frules)

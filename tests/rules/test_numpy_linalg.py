"""Rules for NumPy's products and axis permutations, checked against finite differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.rules import numpy_linalg
from srcad.rules.numpy_linalg import (
    diag_rrule,
    dot_rrule,
    einsum_rrule,
    inner_rrule,
    outer_rrule,
    tensordot_rrule,
    trace_rrule,
    transpose_rrule,
    vdot_rrule,
)
from srcad.tangents import AbstractZero, NoTangent, Thunk, ZeroTangent
from srcad.testing import check_frule, check_rrule
from tests.conftest import sample

# --- products --------------------------------------------------------------------------------

# (id, a, b): every case of np.dot, from a scalar factor to N-d with M-d.
DOT_CASES: list[tuple[str, Any, Any]] = [
    ("0d-with-matrix", np.array(1.5), sample((2, 3), 1)),
    ("float-with-vector", 1.5, sample((3,), 1)),
    ("matrix-with-float", sample((2, 3), 0), -0.7),
    ("floats", 1.5, -0.7),
    ("vector-vector", sample((3,), 0), sample((3,), 1)),
    ("matrix-vector", sample((2, 3), 0), sample((3,), 1)),
    ("vector-matrix", sample((3,), 0), sample((3, 2), 1)),
    ("matrix-matrix", sample((2, 3), 0), sample((3, 2), 1)),
    ("3d-vector", sample((2, 2, 3), 0), sample((3,), 1)),
    ("vector-3d", sample((3,), 0), sample((2, 3, 2), 1)),
    ("3d-matrix", sample((2, 2, 3), 0), sample((3, 2), 1)),
    ("matrix-3d", sample((2, 3), 0), sample((2, 3, 2), 1)),
    ("3d-3d", sample((2, 1, 3), 0), sample((2, 3, 2), 1)),
    ("complex-matrix-matrix", sample((2, 3), 0, complex), sample((3, 2), 1, complex)),
    ("real-vector-complex-matrix", sample((3,), 0), sample((3, 2), 1, complex)),
    ("complex-3d-real-vector", sample((2, 2, 3), 0, complex), sample((3,), 1)),
    ("complex-scalar-with-vector", 0.5 - 1.0j, sample((3,), 1)),
]


@pytest.mark.parametrize(("a", "b"), [pytest.param(a, b, id=name) for name, a, b in DOT_CASES])
def test_dot_matches_finite_differences(a: Any, b: Any) -> None:
    check_rrule(np.dot, a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param(
            sample((2, 3), 0, np.float32), sample((3, 2), 1, np.float32), id="matrix-matrix"
        ),
        pytest.param(
            sample((2, 3), 0, np.float32), sample((3,), 1, np.float32), id="matrix-vector"
        ),
        pytest.param(sample((3,), 0, np.float32), 1.5, id="vector-with-float"),
    ],
)
def test_dot_keeps_float32(a: Any, b: Any) -> None:
    check_rrule(np.dot, a, b, rtol=1e-4, atol=1e-5)


# (id, positional arguments, keyword arguments) of one np.transpose call.
TRANSPOSE_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("matrix", (sample((2, 3), 0),), {}),
    ("3d-reversed", (sample((2, 3, 2), 0),), {}),
    ("vector", (sample((3,), 0),), {}),
    ("0d", (np.array(1.5),), {}),
    ("axes-keyword", (sample((2, 3, 2), 0),), {"axes": (2, 0, 1)}),
    ("axes-positional", (sample((2, 3, 2), 0), (1, 2, 0)), {}),
    ("axes-negative", (sample((2, 3, 2), 0),), {"axes": (-1, 0, -2)}),
    ("axes-list", (sample((2, 3, 2), 0),), {"axes": [1, 0, 2]}),
    ("complex", (sample((2, 3), 0, complex),), {}),
]


@pytest.mark.parametrize(
    ("args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in TRANSPOSE_CALLS]
)
def test_transpose_matches_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(np.transpose, *args, **kwargs)


def test_transpose_keeps_float32() -> None:
    check_rrule(np.transpose, sample((2, 3, 2), 0, np.float32), (2, 0, 1), rtol=1e-4, atol=1e-5)


# (id, function, positional arguments, keyword arguments) of one call to a product rule,
# checked at the default tolerances.
PRODUCT_CALLS: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
    ("vdot-vectors", np.vdot, (sample((3,), 0), sample((3,), 1)), {}),
    ("vdot-matrices", np.vdot, (sample((2, 3), 0), sample((2, 3), 1)), {}),
    ("vdot-matrix-vector", np.vdot, (sample((2, 3), 0), sample((6,), 1)), {}),
    ("vdot-1x1", np.vdot, (sample((1, 1), 0), sample((1,), 1)), {}),
    ("vdot-complex", np.vdot, (sample((3,), 0, complex), sample((3,), 1, complex)), {}),
    ("vdot-real-complex", np.vdot, (sample((3,), 0), sample((3,), 1, complex)), {}),
    ("vdot-complex-real", np.vdot, (sample((2, 2), 0, complex), sample((4,), 1)), {}),
    ("inner-vectors", np.inner, (sample((3,), 0), sample((3,), 1)), {}),
    ("inner-matrix-vector", np.inner, (sample((2, 3), 0), sample((3,), 1)), {}),
    ("inner-matrices", np.inner, (sample((2, 3), 0), sample((4, 3), 1)), {}),
    ("inner-3d-matrix", np.inner, (sample((2, 1, 3), 0), sample((2, 3), 1)), {}),
    ("inner-0d-matrix", np.inner, (np.array(1.5), sample((2, 3), 1)), {}),
    ("inner-matrix-float", np.inner, (sample((2, 3), 0), -0.5), {}),
    ("inner-complex", np.inner, (sample((2, 3), 0, complex), sample((3,), 1, complex)), {}),
    ("outer-vectors", np.outer, (sample((2,), 0), sample((3,), 1)), {}),
    ("outer-matrix-vector", np.outer, (sample((2, 2), 0), sample((3,), 1)), {}),
    ("outer-0d-vector", np.outer, (np.array(1.5), sample((3,), 1)), {}),
    ("outer-1x1", np.outer, (sample((1,), 0), sample((1,), 1)), {}),
    ("outer-complex", np.outer, (sample((2,), 0, complex), sample((3,), 1, complex)), {}),
    ("outer-real-complex", np.outer, (sample((2,), 0), sample((3,), 1, complex)), {}),
    ("tensordot-default-2", np.tensordot, (sample((2, 3, 4), 0), sample((3, 4, 2), 1)), {}),
    ("tensordot-0", np.tensordot, (sample((2,), 0), sample((3, 2), 1)), {"axes": 0}),
    ("tensordot-1", np.tensordot, (sample((2, 3), 0), sample((3, 2), 1)), {"axes": 1}),
    ("tensordot-1-positional", np.tensordot, (sample((2, 3), 0), sample((3, 2), 1), 1), {}),
    (
        "tensordot-lists",
        np.tensordot,
        (sample((2, 3, 4), 0), sample((4, 2, 3), 1)),
        {"axes": ([1, 2], [2, 0])},
    ),
    (
        "tensordot-ints",
        np.tensordot,
        (sample((2, 3, 4), 0), sample((4, 2), 1)),
        {"axes": (0, 1)},
    ),
    (
        "tensordot-negative",
        np.tensordot,
        (sample((2, 3, 4), 0), sample((4, 2, 3), 1)),
        {"axes": ([-1, -2], [0, -1])},
    ),
    (
        "tensordot-complex",
        np.tensordot,
        (sample((2, 3), 0, complex), sample((3, 2), 1, complex)),
        {"axes": 1},
    ),
    ("trace-matrix", np.trace, (sample((3, 3), 0),), {}),
    ("trace-1x1", np.trace, (sample((1, 1), 0),), {}),
    ("trace-tall", np.trace, (sample((4, 2), 0),), {}),
    ("trace-offset", np.trace, (sample((3, 4), 0),), {"offset": 1}),
    ("trace-offset-negative", np.trace, (sample((3, 4), 0),), {"offset": -2}),
    ("trace-positional", np.trace, (sample((3, 4), 0), 1), {}),
    ("trace-3d", np.trace, (sample((2, 3, 3), 0),), {"axis1": 1, "axis2": 2}),
    ("trace-3d-swapped", np.trace, (sample((3, 2, 4), 0), -1, 2, 0), {}),
    ("trace-complex", np.trace, (sample((3, 3), 0, complex),), {}),
    ("diag-vector", np.diag, (sample((3,), 0),), {}),
    ("diag-vector-k", np.diag, (sample((3,), 0),), {"k": 1}),
    ("diag-vector-k-negative", np.diag, (sample((2,), 0), -2), {}),
    ("diag-matrix", np.diag, (sample((3, 3), 0),), {}),
    ("diag-1x1", np.diag, (sample((1, 1), 0),), {}),
    ("diag-wide-k", np.diag, (sample((2, 4), 0),), {"k": 1}),
    ("diag-tall-k-negative", np.diag, (sample((4, 2), 0), -1), {}),
    ("diag-complex", np.diag, (sample((3,), 0, complex),), {}),
]


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in PRODUCT_CALLS]
)
def test_product_matches_finite_differences(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)


# (id, subscripts, operands): einsum's forms, each operand's cotangent by finite differences.
EINSUM_CASES: list[tuple[str, str, tuple[Any, ...]]] = [
    ("matmul", "ij,jk->ik", (sample((2, 3), 0), sample((3, 4), 1))),
    ("matmul-implicit", "ij,jk", (sample((2, 3), 0), sample((3, 4), 1))),
    ("transpose", "ij->ji", (sample((2, 3), 0),)),
    ("transpose-implicit-case", "bA", (sample((2, 3), 0),)),
    ("sum", "ij->", (sample((2, 3), 0),)),
    ("row-sums", "ij->i", (sample((2, 3), 0),)),
    ("trace", "ii->", (sample((3, 3), 0),)),
    ("trace-implicit", "ii", (sample((3, 3), 0),)),
    ("diagonal", "ii->i", (sample((3, 3), 0),)),
    ("diagonal-of-3d", "iji->ji", (sample((2, 3, 2), 0),)),
    ("diagonal-times-vector", "ii,i->i", (sample((3, 3), 0), sample((3,), 1))),
    ("outer", "i,j->ij", (sample((2,), 0), sample((3,), 1))),
    ("scalar-times-matrix", ",ij->ij", (np.array(1.5), sample((2, 3), 1))),
    ("float-times-matrix", ",ij->ji", (1.5, sample((2, 3), 1))),
    ("label-only-in-one", "ij,jk->i", (sample((2, 3), 0), sample((3, 4), 1))),
    ("label-only-in-output", "i,j->j", (sample((2,), 0), sample((3,), 1))),
    ("chain-of-three", "ij,jk,kl->il", (sample((2, 3), 0), sample((3, 2), 1), sample((2, 2), 2))),
    ("same-label-three-ways", "i,i,i->", (sample((3,), 0), sample((3,), 1), sample((3,), 2))),
    ("batched-matmul", "...ij,...jk->...ik", (sample((2, 2, 3), 0), sample((3, 2), 1))),
    ("ellipsis-in-middle", "i...j,j->...i", (sample((2, 3, 4), 0), sample((4,), 1))),
    ("ellipsis-implicit", "...i,...i", (sample((2, 3), 0), sample((2, 3), 1))),
    ("ellipsis-broadcast-1", "...i,...i->...", (sample((1, 3), 0), sample((2, 3), 1))),
    ("label-broadcast-1", "ij,ij->ij", (sample((1, 3), 0), sample((2, 3), 1))),
    ("label-broadcast-1-and-own", "ijk,ij->i", (sample((1, 3, 2), 0), sample((2, 3), 1))),
    ("spaces", "ij, jk -> ik", (sample((2, 3), 0), sample((3, 4), 1))),
    ("1x1", "ij,jk->ik", (sample((1, 1), 0), sample((1, 1), 1))),
    ("complex", "ij,jk->ik", (sample((2, 3), 0, complex), sample((3, 4), 1, complex))),
    ("complex-trace", "ii->", (sample((3, 3), 0, complex),)),
    ("real-complex", "ij,j->i", (sample((2, 3), 0), sample((3,), 1, complex))),
]


@pytest.mark.parametrize(
    ("subscripts", "operands"), [pytest.param(*c[1:], id=c[0]) for c in EINSUM_CASES]
)
def test_einsum_matches_finite_differences(subscripts: str, operands: tuple[Any, ...]) -> None:
    check_rrule(np.einsum, subscripts, *operands)


def test_einsum_passes_optimize_through() -> None:
    operands = (sample((2, 3), 0), sample((3, 2), 1), sample((2, 2), 2))
    check_rrule(np.einsum, "ij,jk,kl->il", *operands, optimize="greedy")


@pytest.mark.parametrize(
    "sublists",
    [([0, 1], [1, 2]), ([0, 1], [1, 2], [2, 0]), ([Ellipsis, 1], [1, 2], [Ellipsis, 2])],
)
def test_einsum_interleaved_form_matches_the_string_form(sublists: tuple[Any, ...]) -> None:
    """(Issue 17: it passed compilation and raised `TypeError` when it ran.)"""
    a, b = sample((2, 2), 0), sample((2, 3), 1)
    arguments = (a, sublists[0], b, sublists[1], *sublists[2:])
    check_rrule(np.einsum, *arguments)
    check_frule(np.einsum, *arguments)
    y, pullback = einsum_rrule(*arguments)
    bars = pullback(np.ones_like(y))
    assert [type(bar) for bar in bars[2::2]] == [NoTangent] * (len(arguments) // 2)


# (id, function, positional arguments, keyword arguments) in single precision.
FLOAT32_CALLS: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
    ("vdot", np.vdot, (sample((3,), 0, np.float32), sample((3,), 1, np.float32)), {}),
    ("outer", np.outer, (sample((2,), 0, np.float32), sample((3,), 1, np.float32)), {}),
    ("einsum", np.einsum, ("ij,j->i", sample((2, 3), 0, np.float32), sample((3,), 1)), {}),
    ("tensordot", np.tensordot, (sample((2, 3), 0, np.float32), sample((3, 2), 1)), {"axes": 1}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in FLOAT32_CALLS]
)
def test_float32_stays_float32(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    check_rrule(f, *args, rtol=1e-3, atol=1e-4, **kwargs)


@pytest.mark.parametrize(
    ("f", "args", "kwargs", "message"),
    [
        pytest.param(np.trace, (sample((2, 2), 0),), {"out": np.zeros(())}, "out=", id="trace"),
    ],
)
def test_unsupported_options_are_refused(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        check_rrule(f, *args, **kwargs)


# --- symbolic zeros ------------------------------------------------------------------------

A = sample((3, 3), 0)
V = sample((3,), 1)


@pytest.mark.parametrize(
    ("pullback", "expected"),
    [
        pytest.param(dot_rrule(A, V)[1], 3, id="dot"),
        pytest.param(transpose_rrule(A)[1], 2, id="transpose"),
        pytest.param(transpose_rrule(A, (1, 0))[1], 3, id="transpose-axes"),
        pytest.param(vdot_rrule(V, V)[1], 3, id="vdot"),
        pytest.param(inner_rrule(A, V)[1], 3, id="inner"),
        pytest.param(outer_rrule(V, V)[1], 3, id="outer"),
        pytest.param(tensordot_rrule(A, A, 1)[1], 4, id="tensordot"),
        pytest.param(einsum_rrule("ij,j", A, V)[1], 4, id="einsum"),
        pytest.param(trace_rrule(A, 1)[1], 3, id="trace"),
        pytest.param(diag_rrule(V)[1], 2, id="diag"),
    ],
)
def test_zero_cotangent_stays_symbolic(pullback: Any, expected: int) -> None:
    cotangents = pullback(ZeroTangent())
    assert len(cotangents) == expected
    assert cotangents[0] is NoTangent()
    assert all(isinstance(c, AbstractZero) for c in cotangents[1:])
    assert ZeroTangent() in cotangents


# --- forward rules, on the same calls -------------------------------------------------------
# Subscripts strings and integer or tuple axes are not differentiable values, so
# check_frule gives them a NoTangent() and leaves them fixed.


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_linalg.rules.rrules) <= set(numpy_linalg.rules.frules)


@pytest.mark.parametrize(("a", "b"), [pytest.param(a, b, id=name) for name, a, b in DOT_CASES])
def test_dot_frule_matches_finite_differences(a: Any, b: Any) -> None:
    check_frule(np.dot, a, b)


@pytest.mark.parametrize(
    ("args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in TRANSPOSE_CALLS]
)
def test_transpose_frule_matches_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(np.transpose, *args, **kwargs)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in PRODUCT_CALLS]
)
def test_product_frule_matches_finite_differences(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **kwargs)


@pytest.mark.parametrize(
    ("subscripts", "operands"), [pytest.param(*c[1:], id=c[0]) for c in EINSUM_CASES]
)
def test_einsum_frule_matches_finite_differences(
    subscripts: str, operands: tuple[Any, ...]
) -> None:
    check_frule(np.einsum, subscripts, *operands)


def test_einsum_frule_passes_optimize_through() -> None:
    operands = (sample((2, 3), 0), sample((3, 2), 1), sample((2, 2), 2))
    check_frule(np.einsum, "ij,jk,kl->il", *operands, optimize="greedy")


@pytest.mark.parametrize(
    ("f", "args", "kwargs"),
    [pytest.param(*c[1:], id=c[0]) for c in FLOAT32_CALLS]
    + [
        pytest.param(np.dot, (sample((2, 3), 0, np.float32), sample((3, 2), 1, np.float32)), {},
                     id="dot-matrix-matrix"),
        pytest.param(np.dot, (sample((3,), 0, np.float32), 1.5), {}, id="dot-vector-with-float"),
        pytest.param(np.transpose, (sample((2, 3, 2), 0, np.float32), (2, 0, 1)), {},
                     id="transpose"),
    ],
)  # fmt: skip
def test_float32_frule_stays_float32(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    check_frule(f, *args, rtol=1e-3, atol=1e-4, **kwargs)


# (id, function, positional arguments, argument tangents): some tangents zero, the
# others random; the zero ones stay fixed in the finite differences.
PARTLY_ZERO_CALLS: list[tuple[str, Any, tuple[Any, ...], tuple[Any, ...]]] = [
    ("dot-a", np.dot, (A, V), (sample((3, 3), 2), ZeroTangent())),
    ("dot-b", np.dot, (A, V), (ZeroTangent(), sample((3,), 2))),
    ("vdot-complex-a", np.vdot, (sample((3,), 0, complex), sample((3,), 1, complex)),
     (sample((3,), 2, complex), NoTangent())),
    ("outer-b", np.outer, (V, V), (ZeroTangent(), sample((3,), 2))),
    ("tensordot-a", np.tensordot, (A, A, 1), (sample((3, 3), 2), ZeroTangent(), NoTangent())),
    ("einsum-middle", np.einsum, ("ij,jk,kl->il", A, A, A),
     (NoTangent(), ZeroTangent(), sample((3, 3), 2), ZeroTangent())),
]  # fmt: skip


@pytest.mark.parametrize(
    ("f", "args", "tangents"), [pytest.param(*c[1:], id=c[0]) for c in PARTLY_ZERO_CALLS]
)
def test_frule_with_some_zero_tangents(
    f: Any, args: tuple[Any, ...], tangents: tuple[Any, ...]
) -> None:
    check_frule(f, *args, tangents=tangents)


# (id, function, positional arguments) of one call with a tangent for each array argument.
FORWARD_CALLS: list[tuple[str, Any, tuple[Any, ...]]] = [
    ("dot", np.dot, (A, V)),
    ("transpose", np.transpose, (A,)),
    ("transpose-axes", np.transpose, (A, (1, 0))),
    ("vdot", np.vdot, (V, V)),
    ("inner", np.inner, (A, V)),
    ("outer", np.outer, (V, V)),
    ("tensordot", np.tensordot, (A, A, 1)),
    ("einsum", np.einsum, ("ij,j", A, V)),
    ("trace", np.trace, (A, 1)),
    ("diag", np.diag, (V,)),
]


def _tangents_for(args: tuple[Any, ...], seed: int) -> tuple[Any, ...]:
    return tuple(
        sample(np.shape(a), seed + k) if isinstance(a, np.ndarray) else NoTangent()
        for k, a in enumerate(args)
    )


@pytest.mark.parametrize(("f", "args"), [pytest.param(*c[1:], id=c[0]) for c in FORWARD_CALLS])
def test_frule_zero_tangents_stay_symbolic(f: Any, args: tuple[Any, ...]) -> None:
    _, y_dot = srcad.frule((NoTangent(), *(ZeroTangent() for _ in args)), f, *args)
    assert y_dot is ZeroTangent()


@pytest.mark.parametrize(("f", "args"), [pytest.param(*c[1:], id=c[0]) for c in FORWARD_CALLS])
def test_frule_computes_thunked_tangents(f: Any, args: tuple[Any, ...]) -> None:
    tangents = _tangents_for(args, seed=5)
    _, y_dot = srcad.frule((NoTangent(), *tangents), f, *args)
    thunks = tuple(Thunk(lambda t=t: t) for t in tangents)
    _, from_thunks = srcad.frule((NoTangent(), *thunks), f, *args)
    np.testing.assert_allclose(from_thunks, y_dot, rtol=1e-12, atol=1e-12)


def test_einsum_frule_interleaved_form_is_the_string_form() -> None:
    """(Issue 17: it raised `TypeError`.) Tangents of the operands only."""
    a_dot, v_dot = np.ones_like(A), np.ones_like(V)
    dargs = (NoTangent(), a_dot, NoTangent(), v_dot, NoTangent())
    y, y_dot = srcad.frule(dargs, np.einsum, A, [0, 1], V, [1])
    expected = srcad.frule((NoTangent(), NoTangent(), a_dot, v_dot), np.einsum, "ij,j", A, V)
    np.testing.assert_allclose(y, expected[0])
    np.testing.assert_allclose(y_dot, expected[1])
    _, zero = srcad.frule((NoTangent(),) * 5, np.einsum, A, [0, 1], V, [1])
    assert isinstance(zero, AbstractZero)

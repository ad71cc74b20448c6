"""Indexing (`x[index]`, `np.take`, `np.take_along_axis`) and `np.full`, checked against
finite differences."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.rules import numpy_indexing
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent
from srcad.testing import check_frule, check_rrule

# The seed of random tangents, apart from the data's: a tangent equal to its primal (both
# drawn from seed 0) would hide a rule that confuses the two.
TANGENT_SEED = 7

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4))
M = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
Z = M + 1j * RNG.standard_normal((3, 4))
M32 = M.astype(np.float32)

# (id, index) into the (2, 3, 4) array X.
INDICES: list[tuple[str, Any]] = [
    ("int", 1),
    ("negative-int", -1),
    ("numpy-int", np.int64(1)),
    ("element", (1, 2, 3)),
    ("negative-element", (-1, -3, -4)),
    ("slice", slice(0, 1)),
    ("slice-step", (slice(None), slice(None, None, 2))),
    ("slice-negative-step", (0, slice(None), slice(3, 0, -2))),
    ("slice-negative-bounds", (slice(-1, None), slice(-3, -1))),
    ("slice-empty", slice(2, 2)),
    ("ellipsis", (Ellipsis, 1)),
    ("ellipsis-between", (0, Ellipsis, -1)),
    ("ellipsis-alone", Ellipsis),
    ("empty-tuple", ()),
    ("none", None),
    ("none-in-tuple", (slice(None), None, 1)),
    ("none-and-ellipsis", (None, Ellipsis, None, 2)),
    ("int-array", np.array([1, 0])),
    ("int-array-repeats", np.array([0, 1, 0, 0])),
    ("int-array-negative", (slice(None), np.array([-1, 2, -1]))),
    ("int-array-2d", np.array([[0, 1], [1, 1]])),
    ("int-array-0d", np.array(1)),
    ("int-array-empty", np.array([], dtype=int)),
    ("list-of-ints", [1, 1, 0]),
    ("int-arrays-paired", (np.array([0, 1, 0]), np.array([2, 2, 2]))),
    ("int-arrays-broadcast", (np.array([[0], [1]]), slice(None), np.array([3, 3, 0]))),
    ("int-arrays-split-by-slice", (np.array([0, 1, 1]), slice(None), np.array([1, 1, 2]))),
    ("int-array-and-int", (1, np.array([2, 2]), 0)),
    ("int-array-and-slice", (slice(None, 1), np.array([0, 2, 0]))),
    ("int-array-and-none", (None, np.array([1, 1]))),
    ("bool-mask-full", X > 0),
    ("bool-mask-first-axis", np.array([False, True])),
    ("bool-mask-last-axes", (Ellipsis, M > 0)),
    ("bool-mask-and-int", (1, np.array([True, False, True]))),
    ("bool-mask-and-int-array", (np.array([True, True]), np.array([0, 0]))),
    ("bool-true", True),
    ("bool-false", False),
]


@pytest.mark.parametrize("index", [pytest.param(i, id=name) for name, i in INDICES])
def test_getitem_matches_finite_differences(index: Any) -> None:
    check_rrule(operator.getitem, X, index)


# (id, array, index): single precision, complex values and 0-d arrays.
TYPED_INDICES: list[tuple[str, np.ndarray, Any]] = [
    ("float32-repeats", M32, np.array([0, 0, 2])),
    ("float32-reversed", M32, (slice(None), slice(None, None, -1))),
    ("float32-mask", M32, M32 > 0),
    ("complex-repeats", Z, (np.array([2, 2]), slice(1, 3))),
    ("complex-column", Z, (Ellipsis, 0)),
    ("complex-mask", Z, Z.real > 0),
    ("0d-empty-tuple", np.array(1.5), ()),
    ("0d-none", np.array(1.5), None),
    ("0d-ellipsis", np.array(1.5), Ellipsis),
]


@pytest.mark.parametrize(("x", "index"), [pytest.param(*c[1:], id=c[0]) for c in TYPED_INDICES])
def test_getitem_keeps_precision_and_complex_values(x: np.ndarray, index: Any) -> None:
    float32 = x.dtype == np.float32
    check_rrule(operator.getitem, x, index, rtol=1e-5 if float32 else 1e-6, atol=1e-6)


# (id, tuple or list, index).
SEQUENCE_INDICES: list[tuple[str, Any, Any]] = [
    ("tuple-reversed", (M, 1.5, V), slice(None, None, -1)),
    ("tuple-step", (M, 1.5, V), slice(0, 3, 2)),
    ("tuple-negative", (M, 1.5, V), -2),
    ("list-negative-start", [V, 2.5, M, -1.0], slice(-3, None)),
    ("list-int", [V, 2.5], 0),
]


@pytest.mark.parametrize(("x", "index"), [pytest.param(*c[1:], id=c[0]) for c in SEQUENCE_INDICES])
def test_getitem_of_sequence_matches_finite_differences(x: Any, index: Any) -> None:
    check_rrule(operator.getitem, x, index)


def test_getitem_of_integer_array_has_no_tangent() -> None:
    _, pullback = srcad.rrule(operator.getitem, np.arange(6), np.array([1, 1]))
    assert pullback(np.ones(2)) == (NoTangent(), NoTangent(), NoTangent())


@pytest.mark.parametrize(
    "index", [pytest.param(1, id="basic"), pytest.param(np.array([1, 1]), id="advanced")]
)
def test_getitem_of_real_array_keeps_real_part_of_complex_cotangent(index: Any) -> None:
    # Compared with finite differences along the real directions of M, which is real.
    y = M[index]
    y_bar = np.ones(y.shape) + 1j * np.ones(y.shape)
    check_rrule(operator.getitem, M, index, output_tangent=y_bar)


Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

# (id, function, positional arguments, keyword arguments) of one call.
GATHERS: list[Call] = [
    ("take-flat", np.take, (X, [0, 23, 5]), {}),
    ("take-flat-repeats", np.take, (M, [1, 1, 1, 4]), {}),
    ("take-flat-negative", np.take, (M, np.array([-1, -12, 0])), {}),
    ("take-flat-scalar-index", np.take, (M, 7), {}),
    ("take-flat-2d-indices", np.take, (V, np.array([[0, 3], [3, 3]])), {}),
    ("take-axis-0", np.take, (X, [1, 0, 1], 0), {}),
    ("take-axis-1", np.take, (X, np.array([2, 2, 0]), 1), {}),
    ("take-negative-axis", np.take, (X, [3, -1]), {"axis": -1}),
    ("take-axis-scalar-index", np.take, (X, -2, 1), {}),
    ("take-axis-2d-indices", np.take, (M, np.array([[0, 1], [1, 1]]), 1), {}),
    ("take-mode-wrap", np.take, (V, [5, -6, 9]), {"mode": "wrap"}),
    ("take-mode-clip", np.take, (M, [7, -1, 2], 0, None, "clip"), {}),
    ("take-float32", np.take, (M32, [0, 0, 2], 1), {}),
    ("take-complex", np.take, (Z, [4, 4, 0]), {}),
    ("take-float", np.take, (1.5, [0, 0]), {}),
    ("take-along-axis-sorted", np.take_along_axis, (M, np.argsort(M, axis=1), 1), {}),
    ("take-along-axis-0", np.take_along_axis, (M, np.array([[2, 0, 0, 1]]), 0), {}),
    ("take-along-axis-repeats", np.take_along_axis, (X, np.zeros((2, 3, 3), int), -1), {}),
    ("take-along-axis-negative", np.take_along_axis, (M, np.array([[-1], [0], [-4]]), 1), {}),
    ("take-along-axis-keyword", np.take_along_axis, (X, np.ones((2, 1, 4), int)), {"axis": 1}),
    ("take-along-axis-none", np.take_along_axis, (M, np.array([11, 0, 11]), None), {}),
    ("take-along-axis-indices-broadcast", np.take_along_axis, (M, np.array([[1]]), 1), {}),
    ("take-along-axis-array-broadcast", np.take_along_axis, (M[:1], np.array([[0], [3]]), 1), {}),
    ("take-along-axis-vector", np.take_along_axis, (V, np.array([3, 3, 1]), 0), {}),
    ("take-along-axis-float32", np.take_along_axis, (M32, np.argsort(M32, 0), 0), {}),
    ("take-along-axis-complex", np.take_along_axis, (Z, np.array([[0], [0], [2]]), 1), {}),
]

CONSTRUCTIONS: list[Call] = [
    ("full-float", np.full, ((2, 3), 1.5), {}),
    ("full-int-shape", np.full, (4, -0.5), {}),
    ("full-0d-shape", np.full, ((), 2.5), {}),
    ("full-numpy-scalar", np.full, ((3,), np.float64(0.5)), {}),
    ("full-0d-array", np.full, ((2, 2), np.array(1.5)), {}),
    ("full-vector-broadcast", np.full, ((2, 4), V), {}),
    ("full-column-broadcast", np.full, ((3, 4), M[:, :1]), {}),
    ("full-same-shape", np.full, ((3, 4), M), {}),
    ("full-list-fill", np.full, ((2, 3), [1.5, -0.5, 2.0]), {}),
    ("full-dtype-positional", np.full, ((2, 3), 1.5, np.float64), {}),
    ("full-order-positional", np.full, ((2, 3), V[:3], None, "F"), {}),
    ("full-fill-keyword", np.full, ((2, 3),), {"fill_value": 1.5}),
    ("full-float32", np.full, ((2, 3), M32[0, :3]), {}),
    ("full-complex", np.full, ((2, 2), 1.5 - 0.5j), {}),
    ("full-complex-array", np.full, ((2, 3, 4), Z), {}),
]


def _single_precision(args: tuple[Any, ...]) -> bool:
    return any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in GATHERS + CONSTRUCTIONS]
)
def test_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if _single_precision(args) else {}
    check_rrule(f, *args, **tolerance, **kwargs)


@pytest.mark.parametrize(
    ("f", "args"),
    [
        pytest.param(operator.getitem, (M, np.array([1, 1])), id="getitem"),
        pytest.param(np.take, (M, [1, 1], 0), id="take"),
        pytest.param(np.take_along_axis, (M, np.array([[1], [0], [0]]), 1), id="take-along-axis"),
        pytest.param(np.full, ((2, 3), 1.5, float), id="full"),
    ],
)
def test_zero_cotangent_stays_symbolic(f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    _, pullback = srcad.rrule(f, *args)
    cotangents = pullback(ZeroTangent())
    assert len(cotangents) == 1 + len(args)
    assert all(isinstance(c, AbstractZero) for c in cotangents)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(((2,), 3), id="int-fill"),
        pytest.param(((2,), 3.7, int), id="int-dtype"),
    ],
)
def test_full_with_integer_result_gives_fill_value_a_zero(args: tuple[Any, ...]) -> None:
    # check_rrule cannot check these: it compares an integer result as if it were a tangent.
    _, pullback = srcad.rrule(np.full, *args)
    cotangents = pullback(np.ones(2))
    assert len(cotangents) == 1 + len(args)
    assert all(isinstance(c, AbstractZero) for c in cotangents)


def test_take_refuses_out() -> None:
    with pytest.raises(TypeError, match="out="):
        srcad.rrule(np.take, V, [0, 1], out=np.empty(2))


# -- forward rules -----------------------------------------------------------------------------


@pytest.mark.parametrize("index", [pytest.param(i, id=name) for name, i in INDICES])
def test_getitem_forward_rule_matches_finite_differences(index: Any) -> None:
    check_frule(operator.getitem, X, index, seed=TANGENT_SEED)


@pytest.mark.parametrize(("x", "index"), [pytest.param(*c[1:], id=c[0]) for c in TYPED_INDICES])
def test_getitem_forward_rule_keeps_precision_and_complex_values(x: np.ndarray, index: Any) -> None:
    float32 = x.dtype == np.float32
    check_frule(
        operator.getitem, x, index, rtol=1e-5 if float32 else 1e-6, atol=1e-6, seed=TANGENT_SEED
    )


@pytest.mark.parametrize(("x", "index"), [pytest.param(*c[1:], id=c[0]) for c in SEQUENCE_INDICES])
def test_getitem_forward_rule_of_sequence_matches_finite_differences(x: Any, index: Any) -> None:
    check_frule(operator.getitem, x, index, seed=TANGENT_SEED)


@pytest.mark.parametrize(
    "x_dot",
    [
        pytest.param((ZeroTangent(), 0.5, np.ones(4)), id="tuple-with-zero"),
        pytest.param(Tangent(tuple, ZeroTangent(), 0.5, np.ones(4)), id="tangent"),
        pytest.param(ZeroTangent(), id="zero"),
    ],
)
@pytest.mark.parametrize("index", [0, 1, slice(None, None, -1), slice(0, 1)])
def test_getitem_forward_rule_takes_every_form_of_sequence_tangent(x_dot: Any, index: Any) -> None:
    check_frule(operator.getitem, (M, 1.5, V), index, tangents=(x_dot, NoTangent()))


def test_getitem_forward_rule_of_integer_array_is_zero() -> None:
    _, y_dot = srcad.frule(
        (NoTangent(), NoTangent(), NoTangent()), operator.getitem, np.arange(6), 1
    )
    assert y_dot is ZeroTangent()


# check_frule perturbs arrays and numbers; a list of numbers gets its tangent as a list.
FORWARD_TANGENTS = {"full-list-fill": (NoTangent(), [0.3, -1.2, 0.5])}


@pytest.mark.parametrize(
    ("f", "args", "kwargs", "tangents"),
    [pytest.param(*c[1:], FORWARD_TANGENTS.get(c[0]), id=c[0]) for c in GATHERS + CONSTRUCTIONS],
)
def test_forward_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], tangents: Any
) -> None:
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if _single_precision(args) else {}
    check_frule(f, *args, tangents=tangents, **tolerance, **kwargs, seed=TANGENT_SEED)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(((2,), 3), id="int-fill"),
        pytest.param(((2,), 3.7, int), id="int-dtype"),
    ],
)
def test_full_forward_rule_with_integer_result_is_zero(args: tuple[Any, ...]) -> None:
    dots = (NoTangent(), NoTangent(), 1.0, *(NoTangent() for _ in args[2:]))
    assert srcad.frule(dots, np.full, *args)[1] is ZeroTangent()


def test_take_forward_rule_refuses_out() -> None:
    with pytest.raises(TypeError, match="out="):
        srcad.frule((NoTangent(), np.ones(4), NoTangent()), np.take, V, [0, 1], out=np.empty(2))


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_indexing.rules.rrules) <= set(numpy_indexing.rules.frules)

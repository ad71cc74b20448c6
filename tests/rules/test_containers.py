"""Rules for tuples, unpacking, indexing and `.T`, checked against finite differences."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.primitives import make_dict, make_list, make_tuple, unpack
from srcad.rules.containers import (
    getitem_rrule,
    make_tuple_rrule,
    transpose_attribute_rrule,
    unpack_rrule,
)
from srcad.tangents import NoTangent, Tangent, ZeroTangent
from srcad.testing import check_rrule, finite_difference_vjp

X = np.random.default_rng(0).standard_normal((3, 4))

# (id, index) into the (3, 4) array X.
ARRAY_INDICES: list[tuple[str, Any]] = [
    ("int", 1),
    ("negative-int", -1),
    ("element", (1, 2)),
    ("negative-element", (-1, -3)),
    ("slice", slice(1, 3)),
    ("strided-slice", slice(None, None, 2)),
    ("reversed-slice", slice(None, None, -1)),
    ("row-and-slice", (1, slice(1, None))),
    ("column", (slice(None), -2)),
    ("ellipsis", (Ellipsis, 0)),
    ("int-array", np.array([2, 0])),
    ("repeated-int-array", np.array([0, 2, 0, 0])),
    ("repeated-pairs", (np.array([0, 1, 0]), np.array([3, 2, 3]))),
    ("int-array-and-slice", (np.array([1, 1]), slice(0, 2))),
    ("boolean-mask", X > 0),
    ("list-of-ints", [0, 0, 2]),
]


@pytest.mark.parametrize("index", [pytest.param(i, id=name) for name, i in ARRAY_INDICES])
def test_getitem_on_array_matches_finite_differences(index: Any) -> None:
    check_rrule(operator.getitem, X, index)


@pytest.mark.parametrize(
    ("x", "index"),
    [
        pytest.param(X.astype(np.float32), np.array([0, 0, 1]), id="float32-repeated"),
        pytest.param(X + 1j * X[::-1], (slice(None), 1), id="complex-column"),
        pytest.param(np.arange(4.0), 2, id="vector-element"),
    ],
)
def test_getitem_keeps_dtype(x: np.ndarray, index: Any) -> None:
    check_rrule(operator.getitem, x, index, rtol=1e-5, atol=1e-6)


ELEMENTS = (X[0], 1.5, X[:2])


def _element_cotangent_through_tuple(index: Any, y_bar: Any, position: int) -> Any:
    """The cotangent of `ELEMENTS[position]` in `make_tuple(*ELEMENTS)[index]`, through
    the two rules' pullbacks."""
    built, make_tuple_pullback = make_tuple_rrule(*ELEMENTS)
    _, getitem_pullback = getitem_rrule(built, index)
    return make_tuple_pullback(getitem_pullback(y_bar)[1])[1 + position]


# (id, index, output cotangent) for indexing the tuple ELEMENTS.
TUPLE_INDICES: list[tuple[str, Any, Any]] = [
    ("first", 0, np.array([0.5, -1.0, 2.0, 0.3])),
    ("float", 1, 0.7),
    ("negative", -1, np.ones((2, 4))),
    ("slice", slice(0, 2), (np.array([0.5, -1.0, 2.0, 0.3]), 0.7)),
    ("reversed-slice", slice(None, None, -1), (np.ones((2, 4)), 0.7, np.arange(4.0))),
]


@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize(
    ("index", "y_bar"), [pytest.param(i, b, id=n) for n, i, b in TUPLE_INDICES]
)
def test_getitem_on_tuple_matches_finite_differences(index: Any, y_bar: Any, position: int) -> None:
    expected = finite_difference_vjp(
        lambda *elements: make_tuple(*elements)[index], ELEMENTS, y_bar, position
    )
    actual = _element_cotangent_through_tuple(index, y_bar, position)
    if isinstance(actual, ZeroTangent):
        actual = np.zeros_like(expected)
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-9)


def test_getitem_on_list_gives_list_tangent() -> None:
    _, pullback = getitem_rrule([1.5, X[0]], 1)
    x_bar = pullback(np.ones(4))[1]
    assert x_bar == Tangent(list, ZeroTangent(), np.ones(4))


@pytest.mark.parametrize(
    "elements",
    [
        pytest.param((X[0], X[1]), id="arrays"),
        pytest.param((1.5, -0.5, 2.0), id="floats"),
        pytest.param((X[0], 1.5, X), id="mixed-shapes"),
        pytest.param((X[0] + 1j * X[1],), id="complex"),
    ],
)
def test_make_tuple_matches_finite_differences(elements: tuple[Any, ...]) -> None:
    check_rrule(make_tuple, *elements)


@pytest.mark.parametrize(
    ("value", "count", "y_bar"),
    [
        pytest.param(X, 3, None, id="rows"),
        pytest.param(X[0], 4, None, id="vector"),
        pytest.param(X.astype(np.float32), 3, None, id="float32"),
        # Only some elements used: the others' cotangents are symbolic zeros.
        pytest.param(X, 3, (ZeroTangent(), np.ones(4), ZeroTangent()), id="partly-used"),
    ],
)
def test_unpack_array_matches_finite_differences(value: Any, count: int, y_bar: Any) -> None:
    check_rrule(unpack, value, count, output_tangent=y_bar, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("position", [0, 1, 2])
def test_unpack_tuple_matches_finite_differences(position: int) -> None:
    y_bar = (np.array([0.5, -1.0, 2.0, 0.3]), 0.7, np.ones((2, 4)))
    built, make_tuple_pullback = make_tuple_rrule(*ELEMENTS)
    _, unpack_pullback = unpack_rrule(built, 3)
    actual = make_tuple_pullback(unpack_pullback(y_bar)[1])[1 + position]
    expected = finite_difference_vjp(
        lambda *elements: unpack(make_tuple(*elements), 3), ELEMENTS, y_bar, position
    )
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-9)


def test_unpack_of_zero_cotangent_is_zero() -> None:
    _, pullback = unpack_rrule(X, 3)
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), NoTangent())


@pytest.mark.parametrize(
    "x",
    [
        pytest.param(X, id="matrix"),
        pytest.param(np.arange(12.0).reshape(2, 3, 2), id="3d"),
        pytest.param(X[0], id="vector"),
        pytest.param(X.astype(np.float32), id="float32"),
        pytest.param(X + 1j * X[::-1], id="complex"),
    ],
)
def test_transpose_attribute_matches_finite_differences(x: np.ndarray) -> None:
    y, pullback = transpose_attribute_rrule(x)
    np.testing.assert_array_equal(y, x.T)
    y_bar = np.random.default_rng(1).standard_normal(y.shape).astype(x.dtype)
    x_bar = pullback(y_bar)[1]
    assert x_bar.dtype == x.dtype
    expected = finite_difference_vjp(lambda x: x.T, (x,), y_bar, 0)
    np.testing.assert_allclose(x_bar, expected, rtol=1e-6, atol=1e-9)


def test_transpose_attribute_of_zero_cotangent_is_zero() -> None:
    assert transpose_attribute_rrule(X)[1](ZeroTangent()) == (NoTangent(), ZeroTangent())


DISPLAYS = [
    ("make_list", make_list, (0.5, np.array([1.0, 2.0]), -1.5)),
    ("make_tuple", make_tuple, (0.5, np.array([1.0, 2.0]))),
    ("make_dict", make_dict, (("a", "b"), 0.5, np.array([1.0, 2.0]))),
]


@pytest.mark.parametrize(
    ("primal", "args"), [d[1:] for d in DISPLAYS], ids=[d[0] for d in DISPLAYS]
)
def test_displays_match_finite_differences(primal, args):
    if primal is make_dict:
        from srcad.api import rrule

        keys, *values = args
        _, pullback = rrule(make_dict, keys, *values)
        bar = {"a": 2.0, "b": np.array([3.0, -1.0])}
        bars = pullback(srcad.Tangent.of_mapping(dict, bar))
        assert bars[1] == srcad.NoTangent()
        np.testing.assert_allclose(bars[3], bar["b"])
        assert bars[2] == 2.0
        return
    check_rrule(primal, *args)

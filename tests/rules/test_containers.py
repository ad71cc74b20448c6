"""Rules for tuples, unpacking, indexing and `.T`, checked against finite differences."""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np
import pytest

import srcad
from srcad.primitives import append, iterate, make_dict, make_list, make_tuple, unpack
from srcad.registry import REGISTRY
from srcad.rules import containers
from srcad.rules.containers import (
    getitem_rrule,
    make_tuple_rrule,
    transpose_attribute_frule,
    transpose_attribute_rrule,
    unpack_rrule,
)
from srcad.tangents import (
    NoTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    elements_of,
    materialize,
    unthunk,
)
from srcad.testing import (
    _random_tangent,
    check_frule,
    check_rrule,
    finite_difference_jvp,
    finite_difference_vjp,
)

# The seed of random tangents, apart from the data's: a tangent equal to its primal (both
# drawn from seed 0) would hide a rule that confuses the two.
TANGENT_SEED = 7

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


# -- forward rules -----------------------------------------------------------------------------


@pytest.mark.parametrize("index", [pytest.param(i, id=name) for name, i in ARRAY_INDICES])
def test_getitem_forward_rule_on_array_matches_finite_differences(index: Any) -> None:
    check_frule(operator.getitem, X, index, seed=TANGENT_SEED)


@pytest.mark.parametrize(
    ("x", "index"),
    [
        pytest.param(X.astype(np.float32), np.array([0, 0, 1]), id="float32-repeated"),
        pytest.param(X + 1j * X[::-1], (slice(None), 1), id="complex-column"),
        pytest.param(np.arange(4.0), 2, id="vector-element"),
    ],
)
def test_getitem_forward_rule_keeps_dtype(x: np.ndarray, index: Any) -> None:
    check_frule(operator.getitem, x, index, rtol=1e-5, atol=1e-6, seed=TANGENT_SEED)


@pytest.mark.parametrize("index", [pytest.param(i, id=n) for n, i, _ in TUPLE_INDICES])
@pytest.mark.parametrize("sequence", [tuple, list])
def test_getitem_forward_rule_on_sequence_matches_finite_differences(
    index: Any, sequence: type
) -> None:
    check_frule(operator.getitem, sequence(ELEMENTS), index, seed=TANGENT_SEED)


def test_getitem_forward_rule_on_list_slice_gives_a_list() -> None:
    _, y_dot = srcad.frule(
        (NoTangent(), [1.0, X[0]], NoTangent()), operator.getitem, [1.5, X[0]], slice(1, None)
    )
    assert isinstance(y_dot, list)


class Pair(NamedTuple):
    weight: np.ndarray
    scale: float


@pytest.mark.parametrize("index", [0, 1, -1, slice(None)])
def test_getitem_forward_rule_on_named_tuple_reads_fields_by_name(index: Any) -> None:
    pair = Pair(X[0], 1.5)
    check_frule(operator.getitem, pair, index, seed=TANGENT_SEED)
    dot = Tangent(Pair, scale=2.0)  # a field not given is zero
    check_frule(operator.getitem, pair, index, tangents=(dot, NoTangent()))


def test_getitem_forward_rule_on_dict_reads_the_key() -> None:
    values = {"a": 1.5, "b": X[0]}
    for dot in (Tangent.of_mapping(dict, {"b": X[1]}), {"a": 2.0, "b": X[1]}):
        _, b_dot = srcad.frule((NoTangent(), dot, NoTangent()), operator.getitem, values, "b")
        expected = finite_difference_jvp(lambda b: {"a": 1.5, "b": b}["b"], (X[0],), (X[1],))
        np.testing.assert_allclose(b_dot, expected)
    a_dot = srcad.frule((NoTangent(), Tangent.of_mapping(dict, {"b": X[1]}), NoTangent()),
                        operator.getitem, values, "a")[1]  # fmt: skip
    assert a_dot is ZeroTangent()


# (id, primal, arguments) of building and taking apart tuples and lists.
SEQUENCE_CALLS: list[tuple[str, Any, tuple[Any, ...]]] = [
    ("make-tuple-arrays", make_tuple, (X[0], X[1])),
    ("make-tuple-floats", make_tuple, (1.5, -0.5, 2.0)),
    ("make-tuple-mixed-shapes", make_tuple, (X[0], 1.5, X)),
    ("make-tuple-complex", make_tuple, (X[0] + 1j * X[1],)),
    ("make-list", make_list, (0.5, np.array([1.0, 2.0]), -1.5)),
    ("unpack-rows", unpack, (X, 3)),
    ("unpack-vector", unpack, (X[0], 4)),
    ("unpack-float32", unpack, (X.astype(np.float32), 3)),
    ("unpack-tuple", unpack, (ELEMENTS, 3)),
    ("iterate-rows", iterate, (X,)),
    ("iterate-list", iterate, ([1.5, X[0]],)),
    ("list-of-rows", list, (X,)),
    ("list-of-tuple", list, (ELEMENTS,)),
    ("tuple-of-list", tuple, ([X[0], 2.5],)),
    ("zip", zip, ([X[0], 1.5], (X, 2.0, -1.0))),
    ("zip-with-ints", zip, ([1, 2], [X[0], X[1]])),
    ("enumerate", enumerate, ([1.5, X[0], X],)),
    ("enumerate-start", enumerate, (X, 2)),
    ("sum-of-list", sum, ([1.5, X[0], X[1]],)),
    ("sum-with-start", sum, ([X[0], X[1]], X[2])),
    ("sum-of-rows", sum, (X,)),
    ("sum-of-ints", sum, ([1, 2],)),
    ("array-of-floats", np.array, ([1.5, -0.5, 2.0],)),
    ("array-of-rows", np.array, ([X[0], X[1]],)),
    ("array-nested", np.array, ([[1.5, 2.0], (0.5, -1.0)],)),
    ("array-with-ints", np.array, ([1, 2.5, 3],)),
    ("array-float32", np.array, ([1.5, X[0, 0]], np.float32)),
    ("array-of-array", np.array, (X,)),
    ("asarray-of-tuple", np.asarray, ((X[0], X[1]),)),
    ("asarray-complex", np.asarray, (X + 1j * X[::-1],)),
]


@pytest.mark.parametrize(
    ("primal", "args"), [pytest.param(*c[1:], id=c[0]) for c in SEQUENCE_CALLS]
)
def test_sequence_forward_rules_match_finite_differences(
    primal: Any, args: tuple[Any, ...]
) -> None:
    # np.array(..., np.float32) rounds its result: the finite differences too.
    single = any(a is np.float32 or getattr(a, "dtype", None) == np.float32 for a in args)
    tolerance = {"rtol": 1e-3, "atol": 1e-4} if single else {}
    check_frule(primal, *args, **tolerance, seed=TANGENT_SEED)


def test_array_forward_rule_keeps_keywords() -> None:
    check_frule(np.array, [1.5, 2.5], ndmin=2, seed=TANGENT_SEED)
    check_frule(np.asarray, [1.5, 2.5], dtype=complex, seed=TANGENT_SEED)


@pytest.mark.parametrize(
    ("primal", "args", "dots"),
    [
        pytest.param(make_tuple, (1.5, X[0]), (ZeroTangent(), X[1]), id="make-tuple-one-zero"),
        pytest.param(make_list, (1.5, X[0]), (Thunk(lambda: 2.0), NoTangent()), id="thunk"),
        pytest.param(
            unpack, (ELEMENTS, 3), (Tangent(tuple, X[1], 2.0, X[:2]), NoTangent()), id="unpack"
        ),
        pytest.param(iterate, ([1.5, X[0]],), (Tangent(list, ZeroTangent(), X[1]),), id="iterate"),
        pytest.param(zip, ([1.5, 2.5], [X[0], X[1]]), (ZeroTangent(), [X[1], X[2]]), id="zip"),
        pytest.param(sum, ([1.5, X[0]],), ((ZeroTangent(), X[1]),), id="sum-one-zero"),
        pytest.param(np.array, ([1.5, X[0, 0]],), ([ZeroTangent(), 2.0],), id="array-one-zero"),
        pytest.param(np.asarray, ([1.5, X[0, 0]],), (Thunk(lambda: [1.0, 2.0]),), id="asarray"),
    ],
)
def test_sequence_forward_rules_take_every_form_of_tangent(
    primal: Any, args: tuple[Any, ...], dots: tuple[Any, ...]
) -> None:
    check_frule(primal, *args, tangents=dots)


@pytest.mark.parametrize(
    ("primal", "args", "kind"),
    [
        pytest.param(make_tuple, (1.5, X[0]), tuple, id="make-tuple"),
        pytest.param(make_list, (1.5, X[0]), list, id="make-list"),
        pytest.param(unpack, (X, 3), tuple, id="unpack"),
        pytest.param(iterate, (X,), list, id="iterate"),
        pytest.param(list, ((1.5, 2.5),), list, id="list"),
        pytest.param(tuple, ([1.5, 2.5],), tuple, id="tuple"),
        pytest.param(zip, ([1.5], [2.5]), list, id="zip"),
        pytest.param(enumerate, ([1.5],), list, id="enumerate"),
    ],
)
def test_tuple_and_list_results_get_plain_tuples_and_lists(
    primal: Any, args: tuple[Any, ...], kind: type
) -> None:
    rng = np.random.default_rng(2)
    dots = tuple(_random_tangent(a, rng) for a in args)
    assert type(srcad.frule((NoTangent(), *dots), primal, *args)[1]) is kind


def test_enumerate_forward_rule_gives_the_counts_zero_tangents() -> None:
    _, pairs_dot = srcad.frule((NoTangent(), [1.0, 2.0]), enumerate, [1.5, 2.5])
    assert pairs_dot == [(ZeroTangent(), 1.0), (ZeroTangent(), 2.0)]


def test_iterating_a_dict_has_zero_tangent() -> None:
    dot = Tangent.of_mapping(dict, {"a": 1.0})
    for primal in (iterate, list, tuple):
        assert srcad.frule((NoTangent(), dot), primal, {"a": 1.5})[1] is ZeroTangent()


def test_make_dict_forward_rule_gives_a_tangent_of_the_dict() -> None:
    keys, values, dots = ("a", "b"), (0.5, X[0]), (2.0, X[1])
    y, y_dot = srcad.frule((NoTangent(), NoTangent(), *dots), make_dict, keys, *values)
    assert list(y) == ["a", "b"] and y["b"] is values[1]
    assert isinstance(y_dot, Tangent) and y_dot.primal_type is dict
    for key in keys:
        expected = finite_difference_jvp(lambda *v, key=key: make_dict(keys, *v)[key], values, dots)
        np.testing.assert_allclose(y_dot[key], expected)
    zeros = (ZeroTangent(), ZeroTangent())
    assert (
        srcad.frule((NoTangent(), NoTangent(), *zeros), make_dict, keys, *values)[1]
        is ZeroTangent()
    )


@pytest.mark.parametrize(
    "items_dot",
    [
        pytest.param([2.0, X[1]], id="list"),
        pytest.param(Tangent(list, ZeroTangent(), X[1]), id="tangent"),
        pytest.param(ZeroTangent(), id="zero"),
    ],
)
def test_append_forward_rule_appends_the_value_tangent(items_dot: Any) -> None:
    items = [1.5, X[0]]
    result, result_dot = srcad.frule((NoTangent(), items_dot, X[2]), append, items, X[1])
    # A new list, the given one unchanged: a rule that kept it sees what it was given.
    assert result is not items and len(items) == 2 and len(result) == 3
    assert isinstance(result_dot, list)
    before = elements_of(items_dot, 2)
    expected = finite_difference_jvp(
        lambda a, b, c: append([a, b], c), (1.5, X[0], X[1]), (*before, X[2])
    )
    for dot, want, primal in zip(result_dot, expected, result, strict=True):
        dot = materialize(unthunk(dot), primal)
        assert np.shape(dot) == np.shape(primal)
        np.testing.assert_allclose(dot, want, rtol=1e-6, atol=1e-9)
    zero = srcad.frule((NoTangent(), ZeroTangent(), ZeroTangent()), append, [1.5], 2.5)[1]
    assert zero is ZeroTangent()


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
def test_transpose_attribute_forward_rule_matches_finite_differences(x: np.ndarray) -> None:
    rule = REGISTRY.attribute_frule("T")
    assert rule is not None and rule.rrule is transpose_attribute_frule
    dot = _random_tangent(x, np.random.default_rng(1))
    y, y_dot = transpose_attribute_frule((NoTangent(), dot), x)
    np.testing.assert_array_equal(y, x.T)
    expected = finite_difference_jvp(lambda x: x.T, (x,), (dot,))
    assert y_dot.dtype == x.dtype and y_dot.shape == y.shape
    np.testing.assert_allclose(y_dot, expected, rtol=1e-6, atol=1e-9)
    assert transpose_attribute_frule((NoTangent(), ZeroTangent()), x)[1] is ZeroTangent()


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(containers.rules.rrules) <= set(containers.rules.frules)
    assert set(containers.rules.attribute_rrules) <= set(containers.rules.attribute_frules)

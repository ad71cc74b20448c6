"""Tests for srcad/tangents.py: the symbolic zeros, structural Tangent and materialize."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from srcad.tangents import NoTangent, Tangent, ZeroTangent, materialize


@dataclass
class Point:
    x: float
    y: float


ZEROS = [pytest.param(ZeroTangent, id="ZeroTangent"), pytest.param(NoTangent, id="NoTangent")]


# --- the zeros ---------------------------------------------------------------------------


@pytest.mark.parametrize("zero_type", ZEROS)
def test_zero_is_a_singleton(zero_type: type) -> None:
    assert zero_type() is zero_type()


@pytest.mark.parametrize("zero_type", ZEROS)
@pytest.mark.parametrize(
    "roundtrip",
    [
        pytest.param(copy.copy, id="copy"),
        pytest.param(copy.deepcopy, id="deepcopy"),
        pytest.param(lambda z: pickle.loads(pickle.dumps(z)), id="pickle"),
    ],
)
def test_zero_stays_a_singleton_when_copied(zero_type: type, roundtrip: Any) -> None:
    assert roundtrip(zero_type()) is zero_type()


def test_zero_kinds_are_distinct() -> None:
    assert ZeroTangent() != NoTangent()
    assert ZeroTangent() == ZeroTangent()
    assert hash(ZeroTangent()) == hash(ZeroTangent())


@pytest.mark.parametrize("zero_type", ZEROS)
def test_zero_is_falsy_and_repr_names_it(zero_type: type) -> None:
    assert not zero_type()
    assert repr(zero_type()) == f"{zero_type.__name__}()"


ARRAY = np.array([1.0, -2.0, 3.5])

# What adding a zero gives back: the other operand, the very same object.
ADDITIONS = [
    pytest.param(lambda z: z + ARRAY, ARRAY, id="zero+array"),
    pytest.param(lambda z: ARRAY + z, ARRAY, id="array+zero"),
    pytest.param(lambda z: z + 2.5, 2.5, id="zero+float"),
    pytest.param(lambda z: 2.5 + z, 2.5, id="float+zero"),
    pytest.param(lambda z: ARRAY - z, ARRAY, id="array-zero"),
]


@pytest.mark.parametrize("zero_type", ZEROS)
@pytest.mark.parametrize(("operation", "expected"), ADDITIONS)
def test_adding_a_zero_gives_the_other_operand(
    zero_type: type, operation: Any, expected: Any
) -> None:
    assert operation(zero_type()) is expected


def test_zero_minus_array_negates_the_array() -> None:
    np.testing.assert_array_equal(ZeroTangent() - ARRAY, -ARRAY)


# Operations whose result is the zero itself: nothing is ever allocated.
ABSORBING = [
    pytest.param(lambda z: -z, id="negate"),
    pytest.param(lambda z: +z, id="plus"),
    pytest.param(lambda z: z * ARRAY, id="zero*array"),
    pytest.param(lambda z: ARRAY * z, id="array*zero"),
    pytest.param(lambda z: z * 3.0, id="zero*float"),
    pytest.param(lambda z: 3.0 * z, id="float*zero"),
    pytest.param(lambda z: z / 2.0, id="zero/float"),
    pytest.param(lambda z: z @ np.eye(3), id="zero@matrix"),
    pytest.param(lambda z: np.eye(3) @ z, id="matrix@zero"),
    pytest.param(lambda z: z + z, id="zero+zero"),
    pytest.param(lambda z: z[1:], id="slice"),
    pytest.param(lambda z: z.conjugate(), id="conjugate"),
]


@pytest.mark.parametrize("zero_type", ZEROS)
@pytest.mark.parametrize("operation", ABSORBING)
def test_zero_absorbs_without_materialising(zero_type: type, operation: Any) -> None:
    assert operation(zero_type()) is zero_type()


def test_zero_cannot_be_iterated() -> None:
    with pytest.raises(TypeError, match="index it instead"):
        list(ZeroTangent())


# --- structural tangents -----------------------------------------------------------------

TANGENT_SUMS = [
    pytest.param(
        Tangent(tuple, 1.0, ZeroTangent()),
        Tangent(tuple, 2.0, 3.0),
        Tangent(tuple, 3.0, 3.0),
        id="tuple-with-zero-element",
    ),
    pytest.param(
        Tangent(Point, x=1.0),
        Tangent(Point, y=2.0),
        Tangent(Point, x=1.0, y=2.0),
        id="disjoint-fields",
    ),
    pytest.param(
        Tangent(Point, x=1.0, y=2.0),
        Tangent(Point, x=0.5),
        Tangent(Point, x=1.5, y=2.0),
        id="overlapping-fields",
    ),
    pytest.param(
        Tangent(tuple, 1.0, 2.0), (10.0, 20.0), Tangent(tuple, 11.0, 22.0), id="tangent+tuple"
    ),
    pytest.param(
        (10.0, 20.0), Tangent(tuple, 1.0, 2.0), Tangent(tuple, 11.0, 22.0), id="tuple+tangent"
    ),
    pytest.param(
        Tangent(tuple, np.ones(2), 1.0),
        Tangent(tuple, np.arange(2.0), 2.0),
        Tangent(tuple, np.array([1.0, 2.0]), 3.0),
        id="array-elements",
    ),
]


@pytest.mark.parametrize(("left", "right", "expected"), TANGENT_SUMS)
def test_tangent_addition(left: Any, right: Any, expected: Tangent) -> None:
    assert left + right == expected


@pytest.mark.parametrize(("left", "right", "expected"), TANGENT_SUMS)
def test_tangent_subtraction_adds_the_negation(left: Any, right: Any, expected: Tangent) -> None:
    """`a - b` is `a + -b` (emitted pullbacks subtract where they would add a negation):
    subtracting `right` from the sum gives `left` back, field by field."""
    difference = expected - right
    assert difference == left + 0.0 * expected  # `left` over the fields of the sum
    assert (-difference + expected) == right + 0.0 * expected


@pytest.mark.parametrize("zero_type", ZEROS)
def test_tangent_minus_zero_is_the_tangent(zero_type: type) -> None:
    tangent = Tangent(Point, x=1.0)
    assert tangent - zero_type() is tangent
    assert zero_type() - tangent == -tangent


@pytest.mark.parametrize("zero_type", ZEROS)
def test_tangent_plus_zero_is_the_tangent(zero_type: type) -> None:
    tangent = Tangent(Point, x=1.0)
    assert tangent + zero_type() is tangent
    assert zero_type() + tangent is tangent


def test_tangent_addition_rejects_different_lengths() -> None:
    with pytest.raises(ValueError, match="2 and 3 elements"):
        Tangent(tuple, 1.0, 2.0) + Tangent(tuple, 1.0, 2.0, 3.0)


SCALINGS = [
    pytest.param(lambda t: t * 2.0, Tangent(Point, x=2.0, y=-4.0), id="tangent*2"),
    pytest.param(lambda t: 2.0 * t, Tangent(Point, x=2.0, y=-4.0), id="2*tangent"),
    pytest.param(lambda t: -t, Tangent(Point, x=-1.0, y=2.0), id="negate"),
]


@pytest.mark.parametrize(("operation", "expected"), SCALINGS)
def test_tangent_scaling(operation: Any, expected: Tangent) -> None:
    assert operation(Tangent(Point, x=1.0, y=-2.0)) == expected


EQUALITIES = [
    pytest.param(Tangent(tuple, 1.0, 2.0), Tangent(tuple, 1.0, 2.0), True, id="same-elements"),
    pytest.param(Tangent(tuple, 1.0, 2.0), Tangent(tuple, 1.0, 2.5), False, id="other-element"),
    pytest.param(Tangent(tuple, 1.0), Tangent(tuple, 1.0, 0.0), False, id="other-length"),
    pytest.param(
        Tangent(tuple, ZeroTangent(), 1.0), Tangent(tuple, 0.0, 1.0), True, id="symbolic-zero"
    ),
    pytest.param(
        Tangent(Point, x=1.0), Tangent(Point, x=1.0, y=0.0), True, id="missing-field-is-zero"
    ),
    pytest.param(
        Tangent(Point, x=1.0), Tangent(Point, x=1.0, y=0.5), False, id="missing-field-nonzero"
    ),
    pytest.param(Tangent(Point, x=1.0), Tangent(tuple, 1.0), False, id="other-primal-type"),
    pytest.param(
        Tangent(tuple, np.array([1.0, 2.0])),
        Tangent(tuple, np.array([1.0, 2.0])),
        True,
        id="equal-arrays",
    ),
    pytest.param(
        Tangent(tuple, np.array([1.0, 2.0])),
        Tangent(tuple, np.array([1.0, 3.0])),
        False,
        id="different-arrays",
    ),
]


@pytest.mark.parametrize(("left", "right", "equal"), EQUALITIES)
def test_tangent_equality(left: Tangent, right: Tangent, equal: bool) -> None:
    assert (left == right) is equal
    assert (right == left) is equal


def test_tangent_is_unhashable() -> None:
    with pytest.raises(TypeError):
        hash(Tangent(tuple, 1.0))


ACCESSES = [
    pytest.param(lambda t: t[0], 1.0, id="element-0"),
    pytest.param(lambda t: t[-1], 3.0, id="element-last"),
    pytest.param(lambda t: len(t), 3, id="len"),
    pytest.param(lambda t: tuple(t), (1.0, 2.0, 3.0), id="iterate"),
]


@pytest.mark.parametrize(("access", "expected"), ACCESSES)
def test_tuple_tangent_access(access: Any, expected: Any) -> None:
    assert access(Tangent(tuple, 1.0, 2.0, 3.0)) == expected


FIELD_ACCESSES = [
    pytest.param(lambda t: t.x, 1.5, id="attribute-given"),
    pytest.param(lambda t: t["x"], 1.5, id="item-given"),
    pytest.param(lambda t: t.y, ZeroTangent(), id="attribute-default"),
    pytest.param(lambda t: t["y"], ZeroTangent(), id="item-default"),
    pytest.param(lambda t: len(t), 1, id="len"),
]


@pytest.mark.parametrize(("access", "expected"), FIELD_ACCESSES)
def test_field_tangent_access_defaults_to_zero(access: Any, expected: Any) -> None:
    result = access(Tangent(Point, x=1.5))
    assert result == expected
    assert type(result) is type(expected)


def test_tangent_holds_elements_or_fields_not_both() -> None:
    with pytest.raises(TypeError, match="not both"):
        Tangent(tuple, 1.0, x=2.0)


def test_tangent_dunder_lookup_is_not_a_field() -> None:
    with pytest.raises(AttributeError):
        Tangent(Point, x=1.0).__wrapped__  # noqa: B018


@pytest.mark.parametrize(
    ("tangent", "text"),
    [
        pytest.param(Tangent(tuple, 1.0, ZeroTangent()), "Tangent(tuple, 1.0, ZeroTangent())"),
        pytest.param(Tangent(Point, x=2.0), "Tangent(Point, x=2.0)"),
    ],
    ids=["elements", "fields"],
)
def test_tangent_repr(tangent: Tangent, text: str) -> None:
    assert repr(tangent) == text


# --- materialize -------------------------------------------------------------------------

MATERIALIZED = [
    pytest.param(ZeroTangent(), 2.5, 0.0, id="float"),
    pytest.param(ZeroTangent(), 3, 0.0, id="int-gets-float"),
    pytest.param(ZeroTangent(), 1 + 2j, 0j, id="complex"),
    pytest.param(NoTangent(), 2.5, 0.0, id="no-tangent-float"),
    pytest.param(ZeroTangent(), (1.0, 2), (0.0, 0.0), id="tuple"),
]


@pytest.mark.parametrize(("tangent", "primal", "expected"), MATERIALIZED)
def test_materialize_python_numbers(tangent: Any, primal: Any, expected: Any) -> None:
    result = materialize(tangent, primal)
    assert result == expected
    assert type(result) is type(expected)


MATERIALIZED_ARRAYS = [
    pytest.param(np.ones((2, 3)), np.zeros((2, 3)), id="float64-array"),
    pytest.param(np.ones(4, dtype=np.float32), np.zeros(4, dtype=np.float32), id="float32-array"),
    pytest.param(np.arange(3), np.zeros(3), id="int-array-gets-float64"),
    pytest.param(np.array(1.0), np.array(0.0), id="0d-array"),
    pytest.param(np.ones(2, dtype=complex), np.zeros(2, dtype=complex), id="complex-array"),
]


@pytest.mark.parametrize(("primal", "expected"), MATERIALIZED_ARRAYS)
def test_materialize_arrays(primal: np.ndarray, expected: np.ndarray) -> None:
    result = materialize(ZeroTangent(), primal)
    assert isinstance(result, np.ndarray)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize(
    ("primal", "dtype"),
    [
        pytest.param(np.float32(2.0), np.float32, id="float32"),
        pytest.param(np.int64(2), np.float64, id="int64-gets-float64"),
    ],
)
def test_materialize_numpy_scalar_stays_scalar(primal: np.generic, dtype: type) -> None:
    result = materialize(ZeroTangent(), primal)
    assert type(result) is dtype
    assert result == 0


@pytest.mark.parametrize(
    "tangent",
    [
        pytest.param(np.array([1.0, 2.0]), id="array"),
        pytest.param(2.0, id="float"),
        pytest.param(Tangent(tuple, 1.0), id="structural"),
    ],
)
def test_materialize_passes_real_tangents_through(tangent: Any) -> None:
    assert materialize(tangent, np.zeros(2)) is tangent


def test_materialize_leaves_zero_for_non_numeric_primal() -> None:
    assert materialize(ZeroTangent(), "text") is ZeroTangent()

"""`trees.shaper`: the code made once per structure of tuples, lists and dicts that rebuilds
a gradient in its argument's structure gives what the loop over its items gives, None
included (where `finish` must materialise or check the gradient)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest

from srcad.kinds import argument_kind
from srcad.tangents import Tangent, ZeroTangent, thunk
from srcad.trees import _shaped_by_parts, shaper


class Pair(NamedTuple):
    w: Any
    b: Any


def _tangent(value: Any) -> Any:
    """A structural cotangent of `value`: 2.0 times each leaf, as a `Tangent`."""
    if isinstance(value, dict):
        return Tangent.of_mapping(dict, {k: _tangent(v) for k, v in value.items()})
    if isinstance(value, tuple | list):
        return Tangent(type(value), *[_tangent(v) for v in value])
    return 2.0 * value


W, B = np.arange(6.0).reshape(2, 3), np.ones(3)
ARGUMENTS = [
    {"w": W, "b": 0.5},
    (W, B, 1.5),
    [(W, B), (W.T, np.zeros(2))],
    {"layers": [(W, B)], "scale": 0.1},
    [W, {"inner": (B, 2.0)}],
]


@pytest.mark.parametrize("argument", ARGUMENTS, ids=lambda a: type(a).__name__)
def test_rebuilt_as_the_loop_over_items_rebuilds(argument: Any) -> None:
    kind = argument_kind(argument)
    cotangent = _tangent(argument)
    got = shaper(kind)(cotangent, argument)
    want = _shaped_by_parts(cotangent, argument, kind)
    assert type(got) is type(want) is type(argument)
    assert repr(got) == repr(want)


def _spoiled(argument: Any, how: str) -> Any:
    """The cotangent of `argument` with its first leaf not of its plain type."""
    cotangent = _tangent(argument)
    parts = cotangent.fields if cotangent.fields else list(cotangent.elements)
    first = next(iter(parts)) if isinstance(parts, dict) else 0
    leaf = parts[first]
    spoiled = {
        "zero": ZeroTangent(),
        "thunk": thunk(lambda: leaf),
        "float32": np.asarray(leaf, np.float32),
        "shape": np.zeros(7),
        "int": 1,
    }[how]
    parts[first] = spoiled
    if isinstance(parts, list):
        return Tangent(type(argument), *parts)
    return cotangent


@pytest.mark.parametrize("how", ["zero", "thunk", "float32", "shape", "int"])
@pytest.mark.parametrize("argument", ARGUMENTS[:2], ids=lambda a: type(a).__name__)
def test_none_where_a_part_is_not_plain(argument: Any, how: str) -> None:
    kind = argument_kind(argument)
    cotangent = _spoiled(argument, how)
    assert shaper(kind)(cotangent, argument) is None
    assert _shaped_by_parts(cotangent, argument, kind) is None
    # One level down: the same part of a tuple inside a list.
    outer = [argument, (B, 1.0)]
    nested = Tangent(list, cotangent, _tangent((B, 1.0)))
    assert shaper(argument_kind(outer))(nested, outer) is None


def test_a_dict_comes_back_in_the_arguments_order() -> None:
    kind = argument_kind({"w": W, "b": 0.5})
    other_order = {"b": 0.25, "w": B[:2].copy() + W[0, :2]}
    got = shaper(kind)(_tangent(other_order), other_order)
    assert list(got) == ["b", "w"]
    np.testing.assert_array_equal(got["w"], 2.0 * other_order["w"])


def test_a_count_that_differs_gives_none() -> None:
    kind = argument_kind((W, B))
    assert shaper(kind)(Tangent(tuple, W, B, B), (W, B)) is None
    assert shaper(kind)(Tangent.of_mapping(dict, {0: W, 1: B}), (W, B)) is None
    assert shaper(kind)(2.0, (W, B)) is None


def test_named_tuples_take_the_loop() -> None:
    pair = Pair(W, B)
    got = shaper(argument_kind(pair))(Tangent(Pair, w=2.0 * W, b=2.0 * B), pair)
    assert type(got) is Pair
    np.testing.assert_array_equal(got.b, 2.0 * B)

"""Rules for building, unpacking and indexing tuples, lists and arrays, and for `.T`."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from srcad.primitives import make_tuple, unpack
from srcad.projection import ProjectTo
from srcad.registry import RuleSet
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent

rules = RuleSet("containers")

Pullback = Any


def _elements(bar: Any, count: int) -> tuple[Any, ...]:
    if isinstance(bar, AbstractZero):
        return (ZeroTangent(),) * count
    return tuple(bar)


@rules.rrule(make_tuple)
def make_tuple_rrule(*elements: Any) -> tuple[tuple[Any, ...], Pullback]:
    count = len(elements)

    def make_tuple_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *_elements(y_bar, count))

    return elements, make_tuple_pullback


def _cotangent_of_elements(value: Any, element_bars: tuple[Any, ...]) -> Any:
    """The cotangent of a sequence, given one cotangent per element."""
    if isinstance(value, np.ndarray):
        project = ProjectTo(value)
        if all(isinstance(b, AbstractZero) for b in element_bars):
            return ZeroTangent()
        rows = [
            np.zeros(value.shape[1:], value.dtype) if isinstance(b, AbstractZero) else b
            for b in element_bars
        ]
        return project(np.stack([np.asarray(r) for r in rows]))
    return Tangent(type(value) if isinstance(value, tuple) else tuple, *element_bars)


@rules.rrule(unpack)
def unpack_rrule(value: Any, count: int) -> tuple[tuple[Any, ...], Pullback]:
    elements = unpack(value, count)

    def unpack_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        element_bars = _elements(y_bar, count)
        return NoTangent(), _cotangent_of_elements(value, element_bars), NoTangent()

    return elements, unpack_pullback


@rules.rrule(operator.getitem)
def getitem_rrule(x: Any, index: Any) -> tuple[Any, Pullback]:
    y = x[index]
    if isinstance(x, np.ndarray):
        project_x = ProjectTo(x)

        def getitem_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent()
            x_bar = np.zeros(x.shape, dtype=project_x.dtype)
            # add.at accumulates repeated integer indices, where `x_bar[index] += y_bar`
            # would keep only one of them.
            np.add.at(x_bar, index, y_bar)
            return NoTangent(), x_bar, NoTangent()

        return y, getitem_pullback
    if isinstance(x, tuple | list):
        count = len(x)

        def getitem_sequence_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent()
            bars: list[Any] = [ZeroTangent()] * count
            if isinstance(index, slice):
                positions = range(count)[index]
                for position, bar in zip(positions, _elements(y_bar, count), strict=False):
                    bars[position] = bar
            else:
                bars[index] = y_bar
            return NoTangent(), _cotangent_of_elements(x, tuple(bars)), NoTangent()

        return y, getitem_sequence_pullback
    raise TypeError(
        f"srcad has no rule for indexing a {type(x).__name__}; "
        "register one with @srcad.rrule.register(operator.getitem)"
    )


@rules.attribute("T")
def transpose_attribute_rrule(x: Any) -> tuple[Any, Pullback]:
    y = x.T
    project_x = ProjectTo(x)

    def transpose_attribute_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.asarray(y_bar).T)

    return y, transpose_attribute_pullback

"""Rules for building, unpacking and indexing tuples, lists and arrays, and for `.T`."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from srcad.primitives import append, iterate, make_dict, make_list, make_tuple, unpack
from srcad.projection import ProjectTo
from srcad.registry import RuleSet
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("containers")

Pullback = Any


@rules.rrule(make_tuple)
def make_tuple_rrule(*elements: Any) -> tuple[tuple[Any, ...], Pullback]:
    count = len(elements)

    def make_tuple_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *elements_of(y_bar, count))

    return elements, make_tuple_pullback


@rules.rrule(make_list)
def make_list_rrule(*elements: Any) -> tuple[list[Any], Pullback]:
    count = len(elements)

    def make_list_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *elements_of(y_bar, count))

    return list(elements), make_list_pullback


@rules.rrule(make_dict)
def make_dict_rrule(keys: tuple[Any, ...], *values: Any) -> tuple[dict[Any, Any], Pullback]:
    def make_dict_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), NoTangent(), *(y_bar for _ in values))
        return (NoTangent(), NoTangent(), *(y_bar[key] for key in keys))

    return make_dict(keys, *values), make_dict_pullback


@rules.rrule(append)
def append_rrule(items: list[Any], value: Any) -> tuple[list[Any], Pullback]:
    """`items.append(value)` on a list only this function holds (the checks make sure)."""
    count = len(items) + 1
    result = append(items, value)

    def append_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        *before, last = elements_of(y_bar, count)
        return NoTangent(), Tangent(list, *before) if before else ZeroTangent(), last

    return result, append_pullback


@rules.rrule(sum)
def builtin_sum_rrule(values: Any, *start: Any) -> tuple[Any, Pullback]:
    """The builtin `sum` of a sequence (or of an array's rows), plus an optional start."""
    y = sum(values, *start)
    project_start = [ProjectTo(s) for s in start]

    def builtin_sum_pullback(y_bar: Any) -> tuple[Any, ...]:
        start_bars = [project(y_bar) for project in project_start]
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *start_bars)
        if isinstance(values, np.ndarray):
            rows = np.broadcast_to(y_bar, values.shape[1:])
            return (
                NoTangent(),
                ProjectTo(values)(np.broadcast_to(rows, values.shape)),
                *start_bars,
            )
        element_bars = tuple(ProjectTo(v)(y_bar) for v in values)
        return (NoTangent(), _cotangent_of_elements(values, element_bars), *start_bars)

    return y, builtin_sum_pullback


@rules.rrule(np.array, np.asarray)
def array_rrule(values: Any, *options: Any, **keywords: Any) -> tuple[np.ndarray, Pullback]:
    """An array built from a list or tuple of differentiable values (or from an array)."""
    y = np.array(values, *options, **keywords)
    option_bars = (NoTangent(),) * len(options)

    def array_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        y_bar = np.asarray(y_bar)
        if isinstance(values, list | tuple):
            rows = tuple(ProjectTo(v)(y_bar[i]) for i, v in enumerate(values))
            return (NoTangent(), _cotangent_of_elements(values, rows), *option_bars)
        return (NoTangent(), ProjectTo(values)(y_bar), *option_bars)

    return y, array_pullback


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
    fields = getattr(type(value), "_fields", None)
    if fields is not None:  # a NamedTuple: its tangent names its fields
        return Tangent(type(value), **dict(zip(fields, element_bars, strict=True)))
    return Tangent(type(value) if isinstance(value, tuple | list) else tuple, *element_bars)


@rules.rrule(unpack)
def unpack_rrule(value: Any, count: int) -> tuple[tuple[Any, ...], Pullback]:
    elements = unpack(value, count)

    def unpack_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        element_bars = elements_of(y_bar, count)
        return NoTangent(), _cotangent_of_elements(value, element_bars), NoTangent()

    return elements, unpack_pullback


@rules.rrule(iterate)
def iterate_rrule(value: Any) -> tuple[list[Any], Pullback]:
    """Iterating over a value in a `for` loop: the pullback takes one cotangent per item."""
    items = iterate(value)

    def iterate_pullback(items_bar: Any) -> tuple[Any, Any]:
        if isinstance(value, dict):  # iterating a dict walks its keys, which carry nothing
            return NoTangent(), ZeroTangent()
        return NoTangent(), _cotangent_of_elements(value, tuple(elements_of(items_bar, len(items))))

    return items, iterate_pullback


def _items_of(pairs_bar: Any, count: int, position: int) -> tuple[Any, ...]:
    """The cotangents of element `position` of each tuple in a list of tuples."""
    return tuple(
        bar if isinstance(bar, AbstractZero) else bar[position]
        for bar in elements_of(pairs_bar, count)
    )


@rules.rrule(zip)
def zip_rrule(*sequences: Any) -> tuple[list[tuple[Any, ...]], Pullback]:
    """`zip` of sequences, as the list of tuples a `for` loop walks."""
    pairs = list(zip(*sequences))  # noqa: B905 (the primal's own semantics: shortest wins)
    count = len(pairs)

    def zip_pullback(pairs_bar: Any) -> tuple[Any, ...]:
        bars = []
        for position, sequence in enumerate(sequences):
            element_bars = _items_of(pairs_bar, count, position)
            element_bars += (ZeroTangent(),) * (len(sequence) - count)
            bars.append(_cotangent_of_elements(sequence, element_bars))
        return (NoTangent(), *bars)

    return pairs, zip_pullback


@rules.rrule(enumerate)
def enumerate_rrule(sequence: Any, *start: int) -> tuple[list[tuple[int, Any]], Pullback]:
    """`enumerate` of a sequence, as the list of pairs a `for` loop walks."""
    pairs = list(enumerate(sequence, *start))
    count = len(pairs)
    start_bars = (NoTangent(),) * len(start)

    def enumerate_pullback(pairs_bar: Any) -> tuple[Any, ...]:
        element_bars = _items_of(pairs_bar, count, 1)
        return NoTangent(), _cotangent_of_elements(sequence, element_bars), *start_bars

    return pairs, enumerate_pullback


def _is_basic_index(index: Any) -> bool:
    """Integers, slices, `None` and `...` select each element at most once."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(
        isinstance(p, int | np.integer | slice) or p is None or p is Ellipsis
        for p in parts
        if not isinstance(p, bool)
    ) and not any(isinstance(p, bool) for p in parts)


@rules.rrule(operator.getitem)
def getitem_rrule(x: Any, index: Any) -> tuple[Any, Pullback]:
    y = x[index]
    if isinstance(x, np.ndarray):
        project_x = ProjectTo(x)
        basic = _is_basic_index(index)

        def getitem_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            y_bar = unthunk(y_bar)  # written into a buffer, so needed now
            if isinstance(y_bar, AbstractZero) or project_x.dtype is None:
                # A symbolic zero stays one; an integer or boolean array gets NoTangent().
                return NoTangent(), project_x(y_bar), NoTangent()
            x_bar = np.zeros(x.shape, dtype=project_x.dtype)
            if np.iscomplexobj(y_bar) and x_bar.dtype.kind != "c":
                y_bar = np.real(y_bar)  # the projection onto a real `x`, without a warning
            if basic:
                x_bar[index] = y_bar
            else:
                # add.at accumulates repeated integer indices, where `x_bar[index] += y_bar`
                # would keep only one of them.
                np.add.at(x_bar, index, y_bar)
            return NoTangent(), x_bar, NoTangent()

        return y, getitem_pullback
    if isinstance(x, dict):

        def getitem_dict_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent()
            return NoTangent(), Tangent.of_mapping(dict, {index: y_bar}), NoTangent()

        return y, getitem_dict_pullback
    if isinstance(x, tuple | list):
        count = len(x)

        def getitem_sequence_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent()
            fields = getattr(type(x), "_fields", None)
            if fields is not None and isinstance(index, int):  # a NamedTuple: by field name
                return NoTangent(), Tangent(type(x), **{fields[index]: y_bar}), NoTangent()
            bars: list[Any] = [ZeroTangent()] * count
            if isinstance(index, slice):
                positions = range(count)[index]
                for position, bar in zip(positions, elements_of(y_bar, count), strict=False):
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


@rules.rrule(list)
def list_rrule(iterable: Any) -> tuple[list[Any], Pullback]:
    """`list(values)`: the same elements in a new list."""
    items = list(iterable)
    count = len(items)

    def list_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), _cotangent_of_elements(iterable, elements_of(y_bar, count))

    return items, list_pullback


@rules.rrule(tuple)
def tuple_rrule(iterable: Any) -> tuple[tuple[Any, ...], Pullback]:
    """`tuple(values)`: the same elements in a tuple."""
    items = tuple(iterable)
    count = len(items)

    def tuple_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), _cotangent_of_elements(iterable, elements_of(y_bar, count))

    return items, tuple_pullback

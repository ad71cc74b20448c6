"""Rules for building, unpacking and indexing tuples, lists and arrays, and for `.T`.

Forward rules give a tuple or list result a plain tuple or list of its elements' tangents
(a symbolic zero where every one is zero), and a dict display a `Tangent` of the dict.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from srcad.errors import MissingRuleError
from srcad.kinds import FLOAT, PYTHON_FLOAT, ZERO_D, Kind, ResultKind, list_item
from srcad.primitives import (
    append,
    iterate,
    make_dict,
    make_list,
    make_tuple,
    selects,
    unpack,
)
from srcad.projection import ProjectTo
from srcad.registry import Inline, Linearity, RuleSet, named
from srcad.rules._support import (
    cotangent_of_elements,
    dense_tangent,
    items_of_pairs,
    joined_pullback,
    joined_tangent,
    of_float_list,
    rows_cotangent,
    structural_elements,
    summed_cotangent,
    zipped_columns,
)
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Prefix,
    Tangent,
    ZeroTangent,
    elements_of,
    real_numbers,
    refuse_own_iteration,
    unthunk,
)

rules = RuleSet("containers")

Pullback = Any


@rules.rrule(make_tuple)
def make_tuple_rrule(*elements: Any) -> tuple[tuple[Any, ...], Pullback]:
    count = len(elements)

    def make_tuple_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *structural_elements(elements_of(y_bar, count), elements))

    return elements, make_tuple_pullback


@rules.rrule(make_list)
def make_list_rrule(*elements: Any) -> tuple[list[Any], Pullback]:
    count = len(elements)

    def make_list_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(), *structural_elements(elements_of(y_bar, count), elements))

    return list(elements), make_list_pullback


@rules.rrule(make_dict)
def make_dict_rrule(keys: tuple[Any, ...], *values: Any) -> tuple[dict[Any, Any], Pullback]:
    def make_dict_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), NoTangent(), *(y_bar for _ in values))
        bars = tuple(y_bar[key] for key in keys)
        return (NoTangent(), NoTangent(), *structural_elements(bars, values))

    return make_dict(keys, *values), make_dict_pullback


@rules.rrule(append)
def append_rrule(items: list[Any], value: Any) -> tuple[list[Any], Pullback]:
    """`items.append(value)` on a list only this function holds (the checks make sure), as
    a new list: the cotangent of the old one is that of the new one less its last element,
    which goes to `value`."""
    count = len(items) + 1
    result = append(items, value)

    def append_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        # The list's element cotangents, read once for a list grown by appends: each
        # earlier append gets a `Prefix` of them (O(1), not a copy of those before it).
        grown = isinstance(y_bar, Prefix) and y_bar.length == count
        source = y_bar.source if grown else elements_of(y_bar, count)
        before = Prefix(source, count - 1) if count > 1 else ZeroTangent()
        return NoTangent(), before, source[count - 1]

    return result, append_pullback


@rules.rrule(sum)
def builtin_sum_rrule(values: Any, *start: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """The builtin `sum` of a sequence (or of an array's rows), plus an optional start
    (positional: the normal form passes `start=` so)."""
    y = sum(values, *start, **keywords)
    if (joined := joined_pullback(values, start, keywords)) is not None:  # of sequences
        return y, joined
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
        return (NoTangent(), summed_cotangent(values, y_bar), *start_bars)

    return y, builtin_sum_pullback


@rules.rrule(np.array, np.asarray)
def array_rrule(values: Any, *options: Any, **keywords: Any) -> tuple[np.ndarray, Pullback]:
    """An array built from a list or tuple of differentiable values (or from an array)."""
    refuse_own_iteration(type(values))
    y = np.array(values, *options, **keywords)
    option_bars = (NoTangent(),) * len(options)

    def array_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        if isinstance(values, list | tuple):
            return (NoTangent(), rows_cotangent(values, y_bar), *option_bars)
        return (NoTangent(), ProjectTo(values)(np.asarray(y_bar)), *option_bars)

    return y, array_pullback


@rules.rrule(unpack)
def unpack_rrule(value: Any, count: int) -> tuple[tuple[Any, ...], Pullback]:
    elements = unpack(value, count)

    def unpack_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        element_bars = elements_of(y_bar, count)
        return NoTangent(), cotangent_of_elements(value, element_bars), NoTangent()

    return elements, unpack_pullback


@rules.rrule(iterate)
def iterate_rrule(value: Any) -> tuple[list[Any], Pullback]:
    """Iterating over a value in a `for` loop: the pullback takes one cotangent per item."""
    items = iterate(value)

    def iterate_pullback(items_bar: Any) -> tuple[Any, Any]:
        if isinstance(value, dict):  # iterating a dict walks its keys, which carry nothing
            return NoTangent(), ZeroTangent()
        return NoTangent(), cotangent_of_elements(value, tuple(elements_of(items_bar, len(items))))

    return items, iterate_pullback


@rules.rrule(zip)
def zip_rrule(*sequences: Any, **keywords: Any) -> tuple[list[tuple[Any, ...]], Pullback]:
    """`zip` of sequences (`strict=` too), as the list of tuples a `for` loop walks."""
    pairs = list(zip(*sequences, **keywords))  # noqa: B905 (the primal's own semantics)
    count, sequences = len(pairs), zipped_columns(sequences, pairs)

    def zip_pullback(pairs_bar: Any) -> tuple[Any, ...]:
        bars = []
        for position, sequence in enumerate(sequences):
            element_bars = items_of_pairs(pairs_bar, count, position)
            element_bars += (ZeroTangent(),) * (len(sequence) - count)
            bars.append(cotangent_of_elements(sequence, element_bars))
        return (NoTangent(), *bars)

    return pairs, zip_pullback


@rules.rrule(enumerate)
def enumerate_rrule(
    sequence: Any, *start: int, **keywords: Any
) -> tuple[list[tuple[int, Any]], Pullback]:
    """`enumerate` of a sequence (from a `start`, positional or not), as the list of pairs
    a `for` loop walks."""
    pairs = list(enumerate(sequence, *start, **keywords))
    count = len(pairs)
    start_bars = (NoTangent(),) * len(start)

    def enumerate_pullback(pairs_bar: Any) -> tuple[Any, ...]:
        element_bars = items_of_pairs(pairs_bar, count, 1)
        return NoTangent(), cotangent_of_elements(sequence, element_bars), *start_bars

    return pairs, enumerate_pullback


def is_basic_index(index: Any) -> bool:
    """Integers, slices, `None` and `...` select each element at most once."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(
        isinstance(p, int | np.integer | slice) or p is None or p is Ellipsis
        for p in parts
        if not isinstance(p, bool)
    ) and not any(isinstance(p, bool) for p in parts)


def _tangent_key(x: Any, index: Any) -> tuple[Any] | None:
    """The field a structural `Tangent` of fields holds the item `x[index]` under: the key,
    of a dict's; the field at that position, of a NamedTuple's; None for any other (its
    indexing is refused, not read as a missing field's zero)."""
    if not isinstance(x, Tangent) or x.elements:
        return None
    if x.primal_type is dict:
        return (index,)
    fields = getattr(x.primal_type, "_fields", None)
    if fields is not None and isinstance(index, int | np.integer) and not isinstance(index, bool):
        return (fields[index],)
    return None


@rules.rrule(operator.getitem)
def getitem_rrule(x: Any, index: Any) -> tuple[Any, Pullback]:
    y = x[index]
    if isinstance(x, np.ndarray):
        project_x = ProjectTo(x)
        basic = is_basic_index(index)

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
            return NoTangent(), cotangent_of_elements(x, tuple(bars)), NoTangent()

        return y, getitem_sequence_pullback
    key = _tangent_key(x, index)
    if key is not None:
        # A dict's or a NamedTuple's tangent, read where reverse mode differentiates a
        # forward rule (`getitem_frule`): the cotangent holds that entry alone.
        kind, name = x.primal_type, key[0]
        y = x.fields.get(name, ZeroTangent())

        def getitem_tangent_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent()
            return NoTangent(), Tangent.of_mapping(kind, {name: y_bar}), NoTangent()

        return y, getitem_tangent_pullback
    # A string, a range, an index builder: an index picks what carries none. A symbolic
    # zero (a tangent indexed where reverse mode differentiates a forward rule, `x_dot[i]`):
    # its items are zeros, constant.
    if selects(x) or isinstance(x, AbstractZero):

        def getitem_no_derivative_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            return NoTangent(), ZeroTangent(), NoTangent()

        return y, getitem_no_derivative_pullback
    raise MissingRuleError(
        f"srcad has no rule for indexing a {type(x).__name__}; "
        "register one with @srcad.rrule.register(operator.getitem)"
    )


@rules.attribute("T")
def transpose_attribute_rrule(x: Any) -> tuple[Any, Pullback]:
    """`.T` of an array (or a NumPy scalar); of any other value, a field read (`getattr`)."""
    if not isinstance(x, np.ndarray | np.generic):
        from srcad.rules.calls import getattr_rrule  # (calls.py reads this module

        y, pullback = getattr_rrule(x, "T")

        def field_t_pullback(y_bar: Any) -> tuple[Any, Any]:
            return NoTangent(), pullback(y_bar)[1]

        return y, field_t_pullback
    y = x.T
    project_x = ProjectTo(x)

    def transpose_attribute_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.asarray(y_bar).T)

    return y, transpose_attribute_pullback


def element_tangents(dot: Any, values: Any) -> list[Any] | None:
    """The tangents of the elements of the sequence `values` (a list, tuple or array), as
    arrays; None where every one is a symbolic zero."""
    dots = [unthunk(d) for d in elements_of(unthunk(dot), len(values))]
    if all(isinstance(d, AbstractZero) for d in dots):
        return None
    return [dense_tangent(d, v) for d, v in zip(dots, values, strict=True)]


@rules.rrule(list)
def list_rrule(iterable: Any) -> tuple[list[Any], Pullback]:
    """`list(values)`: the same elements in a new list."""
    items = list(iterable)
    count = len(items)

    def list_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), cotangent_of_elements(iterable, elements_of(y_bar, count))

    return items, list_pullback


@rules.rrule(tuple)
def tuple_rrule(iterable: Any) -> tuple[tuple[Any, ...], Pullback]:
    """`tuple(values)`: the same elements in a tuple."""
    items = tuple(iterable)
    count = len(items)

    def tuple_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), cotangent_of_elements(iterable, elements_of(y_bar, count))

    return items, tuple_pullback


# -- forward rules: `frule((f_dot, *arg_dots), *args) -> (y, y_dot)` ---------------------------


def _all_zero(dots: Any) -> bool:
    return all(isinstance(d, AbstractZero) for d in dots)


def _items_dot(dot: Any, value: Any, count: int) -> tuple[Any, ...] | None:
    """The tangents of the first `count` items of iterating `value`, whose tangent is
    `dot`; None where all are zero (a dict's items, its keys, always are)."""
    dot = unthunk(dot)
    if isinstance(dot, AbstractZero) or isinstance(value, dict):
        return None
    dots = tuple(unthunk(d) for d in elements_of(dot, count)[:count])
    return None if _all_zero(dots) else dots


@rules.frule(make_tuple)
def make_tuple_frule(dargs: tuple[Any, ...], *elements: Any) -> tuple[Any, Any]:
    dots = tuple(unthunk(d) for d in dargs[1:])
    return elements, ZeroTangent() if _all_zero(dots) else dots


@rules.frule(make_list)
def make_list_frule(dargs: tuple[Any, ...], *elements: Any) -> tuple[Any, Any]:
    dots = list(dargs[1:])
    if real_numbers(dots, len(elements)):  # the common case, at a tenth of the cost
        return list(elements), dots
    dots = [unthunk(d) for d in dots]
    return list(elements), ZeroTangent() if _all_zero(dots) else dots


@rules.frule(make_dict)
def make_dict_frule(dargs: tuple[Any, ...], keys: tuple[Any, ...], *values: Any) -> tuple[Any, Any]:
    dots = [unthunk(d) for d in dargs[2:]]
    y = make_dict(keys, *values)
    if _all_zero(dots):
        return y, ZeroTangent()
    return y, Tangent.of_mapping(dict, dict(zip(keys, dots, strict=True)))


@rules.frule(append)
def append_frule(dargs: tuple[Any, ...], items: list[Any], value: Any) -> tuple[Any, Any]:
    """`items.append(value)`: the list's tangent, a list, gets the value's appended."""
    before = [unthunk(d) for d in elements_of(unthunk(dargs[1]), len(items))]
    dots = [*before, unthunk(dargs[2])]
    result = append(items, value)
    return result, ZeroTangent() if _all_zero(dots) else dots


@rules.frule(sum)
def builtin_sum_frule(
    dargs: tuple[Any, ...], values: Any, *start: Any, **keywords: Any
) -> tuple[Any, Any]:
    """The builtin `sum` of a sequence (or of an array's rows), plus an optional start."""
    y = sum(values, *start, **keywords)
    refuse_own_iteration(type(values))
    if (joined := joined_tangent(values, start, keywords, dargs[1:], y)) is not None:
        return y, joined
    total: Any = ZeroTangent()
    for dot in (*elements_of(unthunk(dargs[1]), len(values)), *dargs[2:]):
        dot = unthunk(dot)
        if not isinstance(dot, AbstractZero):
            total = total + dot
    return y, total


def _array_frule(primal: Any) -> Any:
    """The forward rule of `np.array` or `np.asarray`: the array of the tangents."""

    def array_frule(
        dargs: tuple[Any, ...], values: Any, *options: Any, **keywords: Any
    ) -> tuple[Any, Any]:
        refuse_own_iteration(type(values))
        y = primal(values, *options, **keywords)
        dot = dargs[1]
        if type(values) is list and real_numbers(dot, len(values)) and y.dtype.kind in "fc":
            return y, primal(dot, *options, **keywords)  # numbers (`make_list_frule`'s)
        dot = unthunk(dot)
        if isinstance(values, list | tuple):
            dots = element_tangents(dot, values)
            dot = ZeroTangent() if dots is None else dots
        if isinstance(dot, AbstractZero) or y.dtype.kind not in "fc":
            return y, ZeroTangent()
        return y, primal(dot, *options, **keywords)

    return named(array_frule, f"{primal.__name__}_frule")


array_frule = rules.frule(np.array)(_array_frule(np.array))
asarray_frule = rules.frule(np.asarray)(_array_frule(np.asarray))


@rules.frule(unpack)
def unpack_frule(dargs: tuple[Any, ...], value: Any, count: int) -> tuple[Any, Any]:
    elements = unpack(value, count)
    dots = _items_dot(dargs[1], value, count)
    return elements, ZeroTangent() if dots is None else dots


@rules.frule(iterate)
def iterate_frule(dargs: tuple[Any, ...], value: Any) -> tuple[Any, Any]:
    items = iterate(value)
    dots = _items_dot(dargs[1], value, len(items))
    return items, ZeroTangent() if dots is None else list(dots)


@rules.frule(list)
def list_frule(dargs: tuple[Any, ...], iterable: Any) -> tuple[Any, Any]:
    items = list(iterable)
    dots = _items_dot(dargs[1], iterable, len(items))
    return items, ZeroTangent() if dots is None else list(dots)


@rules.frule(tuple)
def tuple_frule(dargs: tuple[Any, ...], iterable: Any) -> tuple[Any, Any]:
    items = tuple(iterable)
    dots = _items_dot(dargs[1], iterable, len(items))
    return items, ZeroTangent() if dots is None else dots


@rules.frule(zip)
def zip_frule(dargs: tuple[Any, ...], *sequences: Any, **keywords: Any) -> tuple[Any, Any]:
    """`zip` of sequences, as the list of tuples a `for` loop walks: a list of tuples of
    tangents."""
    pairs = list(zip(*sequences, **keywords))  # noqa: B905 (the primal's own semantics)
    count = len(pairs)
    columns = [_items_dot(d, s, count) for d, s in zip(dargs[1:], sequences, strict=True)]
    if all(column is None for column in columns):
        return pairs, ZeroTangent()
    zeros = (ZeroTangent(),) * count
    full = [zeros if column is None else column for column in columns]
    return pairs, [tuple(column[i] for column in full) for i in range(count)]


@rules.frule(enumerate)
def enumerate_frule(
    dargs: tuple[Any, ...], sequence: Any, *start: int, **keywords: Any
) -> tuple[Any, Any]:
    """`enumerate` of a sequence, as the list of pairs a `for` loop walks; the counts get
    `ZeroTangent()`."""
    pairs = list(enumerate(sequence, *start, **keywords))
    dots = _items_dot(dargs[1], sequence, len(pairs))
    if dots is None:
        return pairs, ZeroTangent()
    return pairs, [(ZeroTangent(), dot) for dot in dots]


@rules.frule(operator.getitem)
def getitem_frule(dargs: tuple[Any, ...], x: Any, index: Any) -> tuple[Any, Any]:
    """`x[index]` of an array, a dict, or a tuple or list (a NamedTuple's tangent may give
    its fields by name): the same item of the tangent."""
    y = x[index]
    dot = unthunk(dargs[1])
    if not isinstance(x, np.ndarray | dict | tuple | list):
        if selects(x) or isinstance(x, AbstractZero):  # an index builder; a symbolic zero
            return y, ZeroTangent()
        raise MissingRuleError(
            f"srcad has no rule for indexing a {type(x).__name__}; "
            "register one with @srcad.frule.register(operator.getitem)"
        )
    if isinstance(dot, AbstractZero):
        return y, ZeroTangent()
    if isinstance(x, np.ndarray):
        return y, np.asarray(dot)[index]
    if isinstance(x, dict):
        return y, unthunk(dot.get(index, ZeroTangent()) if isinstance(dot, dict) else dot[index])
    dots = elements_of(dot, len(x))
    if not isinstance(index, slice):
        item = unthunk(dots[index])
        return y, ZeroTangent() if isinstance(item, AbstractZero) else item
    items = [unthunk(d) for d in dots[index]]
    return y, ZeroTangent() if _all_zero(items) else type(y)(items)


@rules.attribute_frule("T")
def transpose_attribute_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    if not isinstance(x, np.ndarray | np.generic):  # a field
        from srcad.rules.calls import getattr_frule  # (calls.py reads this module

        return getattr_frule((dargs[0], dargs[1], NoTangent()), x, "T")
    dot = unthunk(dargs[1])
    return x.T, ZeroTangent() if isinstance(dot, AbstractZero) else np.asarray(dot).T


# -- methods of dicts, lists and tuples that change nothing ----------------------------------
# (A method call on a value reaches these through `srcad.primitives.method`'s rule.)

rules.non_differentiable(dict.keys, list.index, list.count, tuple.index, tuple.count)


@rules.rrule(dict.get)
def dict_get_rrule(d: dict[Any, Any], key: Any, *default: Any) -> tuple[Any, Pullback]:
    """`d.get(key)` and `d.get(key, default)`: the cotangent goes to the entry read, or to
    the default where there is none."""
    present = key in d
    y = d[key] if present else (default[0] if default else None)

    def dict_get_pullback(y_bar: Any) -> tuple[Any, ...]:
        zero = isinstance(y_bar, AbstractZero)
        d_bar = Tangent.of_mapping(dict, {key: y_bar}) if present and not zero else ZeroTangent()
        default_bars = (ZeroTangent() if present else y_bar,) * len(default)
        return (NoTangent(), d_bar, NoTangent(), *default_bars)

    return y, dict_get_pullback


@rules.frule(dict.get)
def dict_get_frule(dargs: tuple[Any, ...], d: dict[Any, Any], key: Any, *default: Any) -> Any:
    if key not in d:
        y = default[0] if default else None
        return y, unthunk(dargs[3]) if default else ZeroTangent()
    dot = unthunk(dargs[1])
    if isinstance(dot, AbstractZero):
        return d[key], ZeroTangent()
    return d[key], unthunk(dot.get(key, ZeroTangent()) if isinstance(dot, dict) else dot[key])


@rules.rrule(dict.values)
def dict_values_rrule(d: dict[Any, Any]) -> tuple[list[Any], Pullback]:
    """`d.values()`, as the list of values a loop or a consumer walks."""
    keys = list(d)

    def dict_values_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        bars = elements_of(y_bar, len(keys))
        return NoTangent(), Tangent.of_mapping(dict, dict(zip(keys, bars, strict=True)))

    return list(d.values()), dict_values_pullback


@rules.frule(dict.values)
def dict_values_frule(dargs: tuple[Any, ...], d: dict[Any, Any]) -> tuple[Any, Any]:
    dot = unthunk(dargs[1])
    if isinstance(dot, AbstractZero):
        return list(d.values()), ZeroTangent()
    get = dot.get if isinstance(dot, dict) else dot.__getitem__
    return list(d.values()), [unthunk(get(key)) for key in d]


@rules.rrule(dict.items)
def dict_items_rrule(d: dict[Any, Any]) -> tuple[list[tuple[Any, Any]], Pullback]:
    """`d.items()`, as the list of (key, value) pairs a loop or a consumer walks."""
    keys = list(d)

    def dict_items_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        bars = items_of_pairs(y_bar, len(keys), 1)
        return NoTangent(), Tangent.of_mapping(dict, dict(zip(keys, bars, strict=True)))

    return list(d.items()), dict_items_pullback


@rules.frule(dict.items)
def dict_items_frule(dargs: tuple[Any, ...], d: dict[Any, Any]) -> tuple[Any, Any]:
    dot = unthunk(dargs[1])
    if isinstance(dot, AbstractZero):
        return list(d.items()), ZeroTangent()
    get = dot.get if isinstance(dot, dict) else dot.__getitem__
    return list(d.items()), [(ZeroTangent(), unthunk(get(key))) for key in d]


@rules.rrule(dict.copy)
def dict_copy_rrule(d: dict[Any, Any]) -> tuple[dict[Any, Any], Pullback]:
    """`d.copy()`: a new dict of the same entries."""

    def dict_copy_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), y_bar

    return d.copy(), dict_copy_pullback


@rules.rrule(list.copy)
def list_copy_rrule(items: list[Any]) -> tuple[list[Any], Pullback]:
    """`items.copy()`: a new list of the same elements."""

    def list_copy_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), y_bar

    return items.copy(), list_copy_pullback


@rules.frule(dict.copy)
def dict_copy_frule(dargs: tuple[Any, ...], d: dict[Any, Any]) -> tuple[Any, Any]:
    return d.copy(), unthunk(dargs[1])


@rules.frule(list.copy)
def list_copy_frule(dargs: tuple[Any, ...], items: list[Any]) -> tuple[Any, Any]:
    return items.copy(), unthunk(dargs[1])


# Indexing is linear in what it indexes (its rules are above).
rules.primitive(operator.getitem, linearity=Linearity.LINEAR)
# Building, reading and copying containers moves values and tangents alike: linear in
# every argument, so the forward rules' reverse rules pull the result and its tangent back
# through the same pullback (`second_order.linear_frule_rrule`), for second derivatives;
# with no pieces, so complex values pass (`w, v = np.linalg.eig(m)`).
for _moving in (make_tuple, make_list, make_dict, append, unpack, iterate, list, tuple,
                zip, enumerate, dict.get, dict.values, dict.items, dict.copy,
                list.copy):  # fmt: skip
    rules.primitive(_moving, linearity=Linearity.LINEAR_IN_ALL)


def _array_of_floats(args: Sequence[Kind | None]) -> Kind | None:
    """`np.array(values)` of a list of floats the function made (`kinds.list_of`): a float64
    vector of Python floats or float64 scalars, a float32 one of float32 scalars. Of one
    float64 number (`np.array(0.0)`), a 0-d array (`ZERO_D`: `np.asarray` gives it back)."""
    if len(args) == 1 and args[0] in (FLOAT, PYTHON_FLOAT, ZERO_D):
        return ZERO_D
    item = list_item(args[0]) if len(args) == 1 else None
    if item in (FLOAT, PYTHON_FLOAT):
        return (FLOAT[0], 1)
    return ("f4", 1) if item == ("f4", 0) else None


ARRAY_OF_FLOATS = ResultKind("array of a list of floats", _array_of_floats)
# Their pullbacks' work, without the call of the rule and of its pullback.
ROWS = Inline(of_float_list("rows_cotangent(a, y_bar)"), rows_cotangent=rows_cotangent)
for _building in (np.array, np.asarray):
    rules.primitive(
        _building, result=ARRAY_OF_FLOATS, inline=ROWS, linearity=Linearity.LINEAR_IN_ALL
    )
SUMMED = Inline(
    of_float_list("summed_cotangent(a, y_bar)"), summed_cotangent=summed_cotangent, moving=True
)
rules.primitive(sum, inline=SUMMED, linearity=Linearity.LINEAR_IN_ALL)

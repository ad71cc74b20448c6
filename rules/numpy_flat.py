"""Rules for reading an array element by element: its `.flat` attribute and
`np.ndenumerate` in C order, and `np.nditer` read-only in the order it takes.

srcad reads an array's `x.flat` as `np.ravel(x)`: its items, slices, fancy indices, length
and iteration are the flat iterator's (`x.flat[i]`, `x.flat[1:3]`, `for v in x.flat`), and
linear in `x`. A write through it (`x.flat[i] = v`) is a change in place, refused as any
other (E301); the iterator's own attributes (`.coords`, `.index`, `.base`) are not there.
`.flat` of any other value is a field read, as `getattr` does it.

`np.ndenumerate(x)`, like `enumerate` (`rules/containers.py`), is the list of pairs a `for`
loop walks: each index (a tuple of ints, no derivative) with the element there, from a
plain-NumPy definition (`rules/_support.by_definition`), so that it differentiates to any
order.

`np.nditer(x)` (`np.nditer([a, b])`: the operands broadcast together) is the list of its
items too, an element of `x` (a tuple of one element of each operand) for each step, in the
order NumPy iterates (by default `order="K"`, memory order: a transposed array's in its
columns, an axis with negative strides backwards), which NumPy itself gives, iterating the
operands with a multi-index: 0-d arrays of the elements, which move as the operands do
(NumPy's items are 0-d views of them). Refused when the code runs, naming the option, are
what it cannot read so (each a gap): items written through (`op_flags` `"readwrite"`,
`"writeonly"`, `"allocate"`, a copy written back), values cast (`op_dtypes`,
`"common_dtype"`), items that are not single elements (`"external_loop"`, `"buffered"`,
`op_axes`, `itershape`), and the iterator's own state (`"multi_index"`, `"c_index"`,
`"f_index"`, `"ranged"`: `np.ndenumerate` gives each element's index with it).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.projection import ProjectTo
from srcad.registry import RuleSet
from srcad.rules._support import by_definition
from srcad.rules.calls import getattr_frule, getattr_rrule
from srcad.rules.second_order import linear_frule_rrule
from srcad.rules.second_order_calls import getattr_frule_rrule
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_flat")

Pullback = Any


def _of_array(x: Any) -> bool:
    return isinstance(x, np.ndarray | np.generic)


@rules.attribute("flat")
def flat_attribute_rrule(x: Any) -> tuple[Any, Pullback]:
    """`x.flat` of an array, as `np.ravel(x)`: the cotangent is reshaped back."""
    if not _of_array(x):
        y, pullback = getattr_rrule(x, "flat")

        def field_flat_pullback(y_bar: Any) -> tuple[Any, Any]:
            return NoTangent(), pullback(y_bar)[1]

        return y, field_flat_pullback
    y = np.ravel(x)
    project_x = ProjectTo(x)

    def flat_attribute_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.reshape(y_bar, np.shape(x)))

    return y, flat_attribute_pullback


@rules.attribute_frule("flat")
def flat_attribute_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    """`x.flat` of an array, as `np.ravel(x)`: the tangent flattened too."""
    if not _of_array(x):
        return getattr_frule((dargs[0], dargs[1], NoTangent()), x, "flat")
    dot = unthunk(dargs[1])
    y = np.ravel(x)
    return y, ZeroTangent() if isinstance(dot, AbstractZero) else np.ravel(dot)


_LINEAR_FLAT = linear_frule_rrule(flat_attribute_rrule, flat_attribute_frule, "flat")


# Keyed on the forward rule, as `second_order_calls.rules` are: a rule set of their name.
second_order_rules = RuleSet("second_order")


@second_order_rules.rrule(flat_attribute_frule)
def flat_attribute_frule_rrule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Pullback]:
    """`.flat`'s forward rule's (second derivatives): of an array, a linear function's; of
    any other value, a field read's (`getattr_frule_rrule`)."""
    if _of_array(x):
        linear: tuple[Any, Pullback] = _LINEAR_FLAT(dargs, x)
        return linear
    result, pullback = getattr_frule_rrule((dargs[0], dargs[1], NoTangent()), x, "flat")

    def field_flat_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, dargs_bar, x_bar, _ = pullback(bars)
        return (NoTangent(), Tangent(tuple, *elements_of(dargs_bar, 3)[:2]), x_bar)

    return result, field_flat_frule_pullback


def indexed_elements(x: Any) -> Any:
    """`np.ndenumerate(x)` as the list of its pairs: each index, and the element there."""
    indices = list(np.ndindex(*np.shape(x)))
    return list(zip(indices, np.ravel(x), strict=True))


by_definition(rules, np.ndenumerate, indexed_elements, numpy_value=False)


# The flags and operand flags `np.nditer` takes that change none of the items it reads.
_READING_FLAGS = frozenset({"zerosize_ok", "refs_ok"})
_READING_OPERAND_FLAGS = frozenset(
    {"readonly", "contig", "aligned", "nbo", "no_broadcast", "no_subtype"}
)


def _operand_flags(op_flags: Any) -> set[str]:
    """Every operand flag given, for one operand (a list of names) or each (a list of lists)."""
    if op_flags is None:
        return set()
    listed = [op_flags] if isinstance(op_flags, str) else list(op_flags)
    return {str(f) for entry in listed for f in ([entry] if isinstance(entry, str) else entry)}


def iteration_order(op: Any, flags: Any = None, op_flags: Any = None, op_dtypes: Any = None,
                    order: Any = "K", casting: Any = "safe", op_axes: Any = None,
                    itershape: Any = None, buffersize: Any = 0) -> tuple[Any, Any]:  # fmt: skip
    """The shape the operands of `np.nditer(op, ...)` broadcast to, and the flat (C-order)
    positions in it of the elements the iterator reads, in its order: NumPy's own, read
    from the iterator with a multi-index (which changes which axes NumPy merges, not the
    order). A refusal for the options whose items are not the operands' elements."""
    kept: list[Any] = [flags] if isinstance(flags, str) else list(flags or ())
    given = [f for f in kept if f not in _READING_FLAGS]
    given += sorted(_operand_flags(op_flags) - _READING_OPERAND_FLAGS)
    given += [k for k, v in (("op_dtypes", op_dtypes), ("op_axes", op_axes),
                             ("itershape", itershape)) if v is not None]  # fmt: skip
    if given:
        raise UnsupportedCallError(
            f"srcad reads np.nditer's items as the operands' elements, read-only, not with "
            f"{', '.join(map(str, given))}: iterate np.ndenumerate(x) for each element's "
            f"index, and write a new array (np.where, a fresh array's items) for a write"
        )
    operands = list(op) if isinstance(op, list | tuple) else [op]
    reading: list[Any] = [["readonly"]] * len(operands)
    iterator = np.nditer(operands, [*kept, "multi_index"], reading, None, order, casting)
    shape = np.broadcast_shapes(*(np.shape(operand) for operand in operands))
    labels = np.arange(math.prod(shape)).reshape(shape)
    positions = np.array([labels[iterator.multi_index] for _ in iterator], dtype=np.intp)
    return shape, positions


def iterated_items(op: Any, flags: Any = None, op_flags: Any = None, op_dtypes: Any = None,
                   order: Any = "K", casting: Any = "safe", op_axes: Any = None,
                   itershape: Any = None, buffersize: Any = 0) -> Any:  # fmt: skip
    """`np.nditer(op, ...)` as the list of its items: the element of each operand (a tuple
    of them, for a list or tuple of operands) at each position `iteration_order` gives."""
    shape, positions = iteration_order(op, flags, op_flags, op_dtypes, order, casting,
                                       op_axes, itershape, buffersize)  # fmt: skip
    if isinstance(op, list | tuple):
        columns = [_items(operand, shape, positions) for operand in op]
        return list(zip(*columns, strict=True))
    return _items(op, shape, positions)


def _items(operand: Any, shape: Any, positions: Any) -> Any:
    """The elements of `operand`, broadcast to `shape`, at `positions`: each a 0-d array,
    as NumPy's items are (`v[()]`, `v.item()`, `v.shape` read as they do)."""
    read = np.ravel(np.broadcast_to(operand, shape))[positions]
    return [np.reshape(read[k : k + 1], ()) for k in range(len(positions))]


rules.non_differentiable(iteration_order)
by_definition(rules, np.nditer, iterated_items, numpy_value=False)

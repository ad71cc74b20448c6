"""Rules for NumPy's functions that join arrays (`np.concatenate`, `np.stack` and its
variants, `np.r_` and `np.c_`) or split one (`np.split`, `np.array_split`).

A joined sequence of arrays is one argument: its cotangent is a `Tangent` of its elements'
cotangents, and its tangent may come as a list or tuple of the elements' tangents, a
`Tangent`, or a symbolic zero. The pieces of a split are a list: their cotangent is one per
piece, symbolic zeros allowed, and their tangent a list. Options passed by position (axes,
sections) each get a `NoTangent()`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from srcad.errors import MissingRuleError, UnsupportedCallError
from srcad.primitives import index_concatenate
from srcad.projection import ProjectTo
from srcad.registry import Linearity, RuleFn, RuleSet, named
from srcad.rules._support import cotangent_of_elements, integer_valued
from srcad.rules.containers import element_tangents
from srcad.rules.numpy_shape import bind_options, linear_frule
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_joining")

Pullback = Any
Shape = tuple[int, ...]

# The parameters of each function after its first, in positional order.
_JOIN_PARAMETERS = ("axis", "out")  # np.concatenate and np.stack
_SPLIT_PARAMETERS = ("indices_or_sections", "axis")


def _refuse_out(given: dict[str, Any], name: str) -> None:
    if given.get("out") is not None:
        raise UnsupportedCallError(f"srcad cannot differentiate {name} writing into `out=`")


def _sequence_elements(arrays: Any) -> Any:
    """The elements of a sequence argument (a list, a tuple, or an array's rows)."""
    return arrays if isinstance(arrays, list | tuple | np.ndarray) else list(arrays)


def _joined_cotangent(
    y_bar: Any,
    arrays: Sequence[Any],
    projections: list[ProjectTo],
    joined_shapes: list[Shape],
    axis: int,
) -> Any:
    """The cotangent of the sequence `arrays`, whose elements, reshaped to `joined_shapes`,
    were concatenated along `axis` into the result whose cotangent is `y_bar`; each
    element's share is projected by its entry in `projections`."""
    lengths = [shape[axis] for shape in joined_shapes]
    pieces = np.split(np.asarray(y_bar), np.cumsum(lengths)[:-1], axis=axis)
    element_bars = tuple(
        project(np.reshape(piece, np.shape(a)))
        for a, project, piece in zip(arrays, projections, pieces, strict=True)
    )
    return cotangent_of_elements(arrays, element_bars)


@rules.rrule(np.concatenate)
def concatenate_rrule(arrays: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.concatenate`, `axis=None` (flatten first) included.

    `arrays` is one argument: its cotangent is a `Tangent` of the elements' cotangents.
    """
    arrays = _sequence_elements(arrays)
    y = np.concatenate(arrays, *options, **keywords)
    projections = [ProjectTo(a) for a in arrays]
    given = bind_options(_JOIN_PARAMETERS, options, keywords)
    _refuse_out(given, "np.concatenate")
    axis = given.get("axis", 0)
    joined_shapes: list[Shape]
    if axis is None:
        joined_shapes = [(math.prod(np.shape(a)),) for a in arrays]
        axis = 0
    else:
        joined_shapes = [np.shape(a) for a in arrays]
    option_bars = (NoTangent(),) * len(options)

    def concatenate_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        arrays_bar = _joined_cotangent(y_bar, arrays, projections, joined_shapes, axis)
        return (NoTangent(), arrays_bar, *option_bars)

    return y, concatenate_pullback


@rules.rrule(np.stack)
def stack_rrule(arrays: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.stack`: joining along a new axis, as concatenating the arrays
    each with a length-1 axis inserted there."""
    arrays = _sequence_elements(arrays)
    y = np.stack(arrays, *options, **keywords)
    projections = [ProjectTo(a) for a in arrays]
    given = bind_options(_JOIN_PARAMETERS, options, keywords)
    _refuse_out(given, "np.stack")
    axis = int(given.get("axis", 0)) % y.ndim
    joined_shapes = [(*y.shape[:axis], 1, *y.shape[axis + 1 :])] * len(arrays)
    option_bars = (NoTangent(),) * len(options)

    def stack_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (
            NoTangent(),
            _joined_cotangent(y_bar, arrays, projections, joined_shapes, axis),
            *option_bars,
        )

    return y, stack_pullback


@rules.rrule(np.hstack)
def hstack_rrule(arrays: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.hstack`: 1-d (and 0-d) arrays join along axis 0, others along 1."""
    arrays = _sequence_elements(arrays)
    y = np.hstack(arrays, **keywords)
    projections = [ProjectTo(a) for a in arrays]
    joined_shapes = [np.shape(np.atleast_1d(a)) for a in arrays]
    axis = 0 if joined_shapes and len(joined_shapes[0]) == 1 else 1

    def hstack_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), _joined_cotangent(y_bar, arrays, projections, joined_shapes, axis)

    return y, hstack_pullback


@rules.rrule(np.vstack)
def vstack_rrule(arrays: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.vstack`: arrays made at least 2-d, joined along axis 0."""
    arrays = _sequence_elements(arrays)
    y = np.vstack(arrays, **keywords)
    projections = [ProjectTo(a) for a in arrays]
    joined_shapes = [np.shape(np.atleast_2d(a)) for a in arrays]

    def vstack_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), _joined_cotangent(y_bar, arrays, projections, joined_shapes, 0)

    return y, vstack_pullback


@rules.rrule(np.dstack)
def dstack_rrule(arrays: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.dstack`: arrays made at least 3-d, joined along axis 2."""
    arrays = _sequence_elements(arrays)
    y = np.dstack(arrays)
    projections = [ProjectTo(a) for a in arrays]
    joined_shapes = [np.shape(np.atleast_3d(a)) for a in arrays]

    def dstack_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), _joined_cotangent(y_bar, arrays, projections, joined_shapes, 2)

    return y, dstack_pullback


@rules.rrule(np.column_stack)
def column_stack_rrule(arrays: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.column_stack`: 1-d arrays become columns, joined along axis 1."""
    arrays = _sequence_elements(arrays)
    y = np.column_stack(arrays)
    projections = [ProjectTo(a) for a in arrays]
    joined_shapes = [(np.size(a), 1) if np.ndim(a) < 2 else np.shape(a) for a in arrays]

    def column_stack_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), _joined_cotangent(y_bar, arrays, projections, joined_shapes, 1)

    return y, column_stack_pullback


def _split_cotangent(pieces_bar: Any, pieces: list[Any], axis: int) -> Any:
    """The cotangent of the array `np.split` cut into `pieces` along `axis`: the pieces'
    cotangents (symbolic zeros among them) joined again."""
    bars = tuple(unthunk(bar) for bar in elements_of(pieces_bar, len(pieces)))
    if all(isinstance(bar, AbstractZero) for bar in bars):
        return ZeroTangent()
    dtype = np.result_type(*(np.asarray(b) for b in bars if not isinstance(b, AbstractZero)))
    return np.concatenate(
        [
            np.zeros(piece.shape, dtype) if isinstance(bar, AbstractZero) else np.asarray(bar)
            for bar, piece in zip(bars, pieces, strict=True)
        ],
        axis=axis,
    )


@rules.rrule(np.split)
def split_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[list[Any], Pullback]:
    """Reverse rule for `np.split` into equal sections or at indices; the pullback takes one
    cotangent per piece (a list, tuple or `Tangent`; symbolic zeros allowed)."""
    pieces = np.split(x, *options, **keywords)
    axis = bind_options(_SPLIT_PARAMETERS, options, keywords).get("axis", 0)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def split_pullback(pieces_bar: Any) -> tuple[Any, ...]:
        pieces_bar = unthunk(pieces_bar)
        return (NoTangent(), project_x(_split_cotangent(pieces_bar, pieces, axis)), *option_bars)

    return pieces, split_pullback


@rules.rrule(np.array_split)
def array_split_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[list[Any], Pullback]:
    """Reverse rule for `np.array_split`, which allows sections of unequal lengths."""
    pieces = np.array_split(x, *options, **keywords)
    axis = bind_options(_SPLIT_PARAMETERS, options, keywords).get("axis", 0)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def array_split_pullback(pieces_bar: Any) -> tuple[Any, ...]:
        pieces_bar = unthunk(pieces_bar)
        return (NoTangent(), project_x(_split_cotangent(pieces_bar, pieces, axis)), *option_bars)

    return pieces, array_split_pullback


# --- Forward rules: `frule((f_dot, x_dot, *option_dots), x, *options) -> (y, y_dot)` -----------


def _joining_frule(primal: Any, name: str) -> RuleFn:
    """The forward rule of joining a sequence of arrays: the join of their tangents (a
    symbolic zero among them as zeros), with the same options."""

    def frule(
        dargs: tuple[Any, ...], arrays: Any, *options: Any, **keywords: Any
    ) -> tuple[Any, Any]:
        arrays = _sequence_elements(arrays)
        _refuse_out(bind_options(_JOIN_PARAMETERS, options, keywords), f"np.{name}")
        y = primal(arrays, *options, **keywords)
        dots = element_tangents(dargs[1], arrays)
        if dots is None or integer_valued(y):  # `dtype=int`: piecewise constant
            return y, ZeroTangent()
        return y, primal(dots, *options, **keywords)

    return named(frule, f"{name}_frule")


_JOINING = {
    "concatenate": np.concatenate,
    "stack": np.stack,
    "hstack": np.hstack,
    "vstack": np.vstack,
    "dstack": np.dstack,
    "column_stack": np.column_stack,
}
for _name, _primal in _JOINING.items():
    rules.frule(_primal)(_joining_frule(_primal, _name))

rules.frule(np.split)(linear_frule(np.split, "split"))
rules.frule(np.array_split)(linear_frule(np.array_split, "array_split"))

# Linear in their array (the other arguments are options): that fact gives their forward
# rules reverse rules, for second derivatives (`rules/second_order.py`).
for _linear in (np.split, np.array_split):
    rules.primitive(_linear, linearity=Linearity.LINEAR)
# Joining is linear in every array joined, with no pieces: its forward rule's reverse rule
# pulls both the result and its tangent back through the pullback
# (`second_order.linear_frule_rrule`), complex arrays too.
for _joining in _JOINING.values():
    rules.primitive(_joining, linearity=Linearity.LINEAR_IN_ALL)


# --- np.r_ and np.c_: concatenation written as an index -----------------------------------
#
# `np.r_[a, b, 1:3, "0,2"]` reaches its rules as `index_concatenate(np.r_, a, b, slice(1, 3),
# "0,2")` (`passes/transforms/anf_rewrites.py`). NumPy lays the pieces out by rules of its
# own (directives, `ndmin`, the axis a 1-d piece turns along for `np.c_`), which the rules
# do not copy: they ask NumPy where each element of each piece lands, indexing the builder
# with marks in place of the pieces, each element's number as an imaginary part (a slice's
# values and the directives stay as they are, and are real). Every element lands once, so
# the result is a linear map of the pieces' elements plus the slices' constants.

_MATRIX_DIRECTIVES = frozenset({"r", "c"})


def _marks(pieces: tuple[Any, ...]) -> tuple[list[Any], list[int]]:
    """The pieces with each array or number replaced by its elements' marks (`1j * (k + 1)`,
    `k` counted across the pieces; a Python number stays a Python number, as NumPy tells
    them apart), and where each piece's marks start (-1 for a slice or a directive)."""
    marked: list[Any] = []
    starts: list[int] = []
    count = 0
    for piece in pieces:
        if isinstance(piece, slice | str):
            if isinstance(piece, str) and piece in _MATRIX_DIRECTIVES:
                raise MissingRuleError(
                    f"srcad does not differentiate np.r_/np.c_ with the directive {piece!r}, "
                    "which makes an np.matrix; use np.concatenate or np.stack"
                )
            marked.append(piece)
            starts.append(-1)
            continue
        if isinstance(piece, tuple) and len(pieces) == 1:
            raise MissingRuleError(
                "srcad differentiates np.r_/np.c_ with the pieces written inside the brackets "
                "(np.r_[a, b]), not a tuple of them held in a variable"
            )
        size = int(np.size(piece))
        numbers = 1j * (count + 1 + np.arange(size, dtype=float))
        if type(piece) in np.ScalarType:
            marked.append(complex(numbers[0]))
        else:
            marked.append(np.reshape(numbers, np.shape(piece)))
        starts.append(count)
        count += size
    return marked, starts


def _layout(
    builder: Any, pieces: tuple[Any, ...], marked: list[Any], starts: list[int]
) -> tuple[np.ndarray, list[np.ndarray | None]]:
    """Where each element of each piece lands in `builder[pieces]` (`marked`, `starts`:
    `_marks(pieces)`): each element's mark, in the flattened result, and per piece the
    positions its elements take (None for a slice or a directive)."""
    numbers = np.rint(np.imag(np.ravel(index_concatenate(builder, *marked)))).astype(np.int64)
    owners: list[np.ndarray | None] = []
    for piece, start in zip(pieces, starts, strict=True):
        if start < 0:
            owners.append(None)
            continue
        taken = (numbers > start) & (numbers <= start + int(np.size(piece)))
        owners.append(np.flatnonzero(taken))
    return numbers, owners


@rules.rrule(index_concatenate)
def index_concatenate_rrule(builder: Any, *pieces: Any) -> tuple[Any, Pullback]:
    """`np.r_[...]` and `np.c_[...]`: each piece's elements get the cotangents of the result
    elements they became; slices and directives get `NoTangent()`."""
    marked, starts = _marks(pieces)  # first: it refuses the directives of `np.matrix`
    y = index_concatenate(builder, *pieces)
    numbers, owners = _layout(builder, pieces, marked, starts)
    projections = [None if o is None else ProjectTo(p) for p, o in zip(pieces, owners, strict=True)]

    def index_concatenate_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (
                NoTangent(),
                NoTangent(),
                *(NoTangent() if o is None else y_bar for o in owners),
            )
        flat = np.ravel(np.broadcast_to(np.asarray(y_bar), np.shape(y)))
        bars: list[Any] = []
        for piece, positions, start, project in zip(pieces, owners, starts, projections,
                                                    strict=True):  # fmt: skip
            if positions is None or project is None:
                bars.append(NoTangent())
                continue
            bar = np.zeros(int(np.size(piece)), dtype=flat.dtype)
            np.add.at(bar, numbers[positions] - start - 1, flat[positions])
            bars.append(project(np.reshape(bar, np.shape(piece))))
        return (NoTangent(), NoTangent(), *bars)

    return y, index_concatenate_pullback


@rules.frule(index_concatenate)
def index_concatenate_frule(dargs: tuple[Any, ...], builder: Any, *pieces: Any) -> tuple[Any, Any]:
    """The pieces' tangents laid out as their values are; zero where a slice's values are."""
    marked, starts = _marks(pieces)  # first: it refuses the directives of `np.matrix`
    y = index_concatenate(builder, *pieces)
    dots = [unthunk(d) for d in dargs[2:]]
    moving = [i for i, d in enumerate(dots) if not isinstance(d, AbstractZero | NoTangent)]
    if not moving:
        return y, ZeroTangent()
    numbers, owners = _layout(builder, pieces, marked, starts)
    dtype = np.result_type(y, *(np.asarray(dots[i]) for i in moving), 1.0)
    y_dot = np.zeros(np.size(y), dtype=dtype)
    for i in moving:
        positions = owners[i]
        if positions is not None:
            elements = np.ravel(np.broadcast_to(np.asarray(dots[i]), np.shape(pieces[i])))
            y_dot[positions] = elements[numbers[positions] - starts[i] - 1]
    return y, np.reshape(y_dot, np.shape(y))


# Linear in every piece, with no pieces of its own (the slices add constants): its forward
# rule's reverse rule pulls the result and its tangent back through the one pullback.
rules.primitive(index_concatenate, linearity=Linearity.LINEAR_IN_ALL)

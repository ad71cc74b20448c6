"""Rules for NumPy's shape functions: reshaping, joining, splitting, tiling, flipping, padding.

Each of these functions only moves, copies or drops its input's elements, so each pullback
moves the cotangent back: by the inverse rearrangement, or by summing the copies of each
element. Options passed by position (shapes, axes, counts, modes) each get a `NoTangent()`.
Every pullback needs the value of its output cotangent, so it computes a thunked one first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import RuleSet
from srcad.rules.containers import _cotangent_of_elements
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_shape")

Pullback = Any
Shape = tuple[int, ...]

# The parameters of each function after its first, in positional order.
_RESHAPE_PARAMETERS = ("shape", "order")
_RAVEL_PARAMETERS = ("order",)
_JOIN_PARAMETERS = ("axis", "out")  # np.concatenate and np.stack
_SPLIT_PARAMETERS = ("indices_or_sections", "axis")
_REPEAT_PARAMETERS = ("repeats", "axis")
_ROLL_PARAMETERS = ("shift", "axis")
_PAD_PARAMETERS = ("pad_width", "mode")

# np.pad's modes that only copy elements of the array (or write constants): their
# pullbacks add each padded element's cotangent to the element it copies.
PAD_MODES_WITH_RULES = ("constant", "edge", "reflect", "symmetric", "wrap")


def bind_options(
    parameters: tuple[str, ...], options: tuple[Any, ...], keywords: dict[str, Any]
) -> dict[str, Any]:
    """The arguments after the first of a call, by name: `options` (passed by position) fill
    `parameters` in order, then `keywords`. The primal runs first, so a call with too many
    or repeated arguments has already failed.

    >>> bind_options(("axis", "out"), (1,), {"dtype": float})
    {'axis': 1, 'dtype': <class 'float'>}
    """
    given = dict(zip(parameters, options, strict=False))
    given.update(keywords)
    return given


def _memory_order(x: Any, order: Any) -> Literal["C", "F"]:
    """The index order, "C" or "F", that reshaping `x` in `order` reads and writes in
    ("A" stands for "F" when `x` is Fortran-contiguous and not C-contiguous)."""
    if order in ("F", "f"):
        return "F"
    if order in ("A", "a") and isinstance(x, np.ndarray) and np.isfortran(x):
        return "F"
    return "C"


def _refuse_out(given: dict[str, Any], name: str) -> None:
    if given.get("out") is not None:
        raise TypeError(f"srcad cannot differentiate {name} writing into `out=`")


def _sequence_elements(arrays: Any) -> Any:
    """The elements of a sequence argument (a list, a tuple, or an array's rows)."""
    return arrays if isinstance(arrays, list | tuple | np.ndarray) else list(arrays)


# --- Reshaping --------------------------------------------------------------------------------


@rules.rrule(np.reshape)
def reshape_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.reshape`: the pullback reshapes back, reading in the same order."""
    y = np.reshape(x, *options, **keywords)
    given = bind_options(_RESHAPE_PARAMETERS, options, keywords)
    order = _memory_order(x, given.get("order"))
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def reshape_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_x(np.reshape(y_bar, shape, order=order)), *option_bars)

    return y, reshape_pullback


@rules.rrule(np.ravel)
def ravel_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.ravel` in every `order`, "K" (memory order) included."""
    y = np.ravel(x, *options, **keywords)
    given = bind_options(_RAVEL_PARAMETERS, options, keywords)
    order = _memory_order(x, given.get("order"))
    shape = np.shape(x)
    # For order "K", the position in `x` (counted in C order) that each element of `y` came
    # from: an array laid out like `x` (empty_like keeps the layout), raveled the same way.
    positions = None
    if given.get("order") in ("K", "k"):
        labels = np.empty_like(x, dtype=np.intp)
        labels[...] = np.arange(labels.size).reshape(shape)
        positions = np.ravel(labels, order="K")
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def ravel_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        if positions is None:
            return (NoTangent(), project_x(np.reshape(y_bar, shape, order=order)), *option_bars)
        y_bar = np.asarray(y_bar)
        x_bar = np.empty(y_bar.size, dtype=y_bar.dtype)
        x_bar[positions] = y_bar
        return (NoTangent(), project_x(x_bar.reshape(shape)), *option_bars)

    return y, ravel_pullback


@rules.rrule(np.expand_dims)
def expand_dims_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.expand_dims`: the pullback drops the new axes again."""
    y = np.expand_dims(x, *options, **keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def expand_dims_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_x(np.reshape(y_bar, shape)), *option_bars)

    return y, expand_dims_pullback


@rules.rrule(np.squeeze)
def squeeze_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.squeeze`: the pullback puts the length-1 axes back."""
    y = np.squeeze(x, *options, **keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def squeeze_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_x(np.reshape(y_bar, shape)), *option_bars)

    return y, squeeze_pullback


def _reshaped_back(
    y_bar: Any, shapes: list[Shape], projections: list[ProjectTo]
) -> tuple[Any, ...]:
    """The cotangents of the arguments of `np.atleast_1d(*arrays)` (and 2d, 3d): the result
    is one array for one argument and a tuple for several; each is a reshaped argument."""
    bars = (y_bar,) if len(shapes) == 1 else map(unthunk, elements_of(y_bar, len(shapes)))
    return tuple(
        bar if isinstance(bar, AbstractZero) else project(np.reshape(bar, shape))
        for bar, shape, project in zip(bars, shapes, projections, strict=True)
    )


@rules.rrule(np.atleast_1d)
def atleast_1d_rrule(*arrays: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.atleast_1d(*arrays)`; each argument gets its own cotangent."""
    y = np.atleast_1d(*arrays)
    shapes = [np.shape(a) for a in arrays]
    projections = [ProjectTo(a) for a in arrays]

    def atleast_1d_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        return (NoTangent(), *_reshaped_back(y_bar, shapes, projections))

    return y, atleast_1d_pullback


@rules.rrule(np.atleast_2d)
def atleast_2d_rrule(*arrays: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.atleast_2d(*arrays)`; each argument gets its own cotangent."""
    y = np.atleast_2d(*arrays)
    shapes = [np.shape(a) for a in arrays]
    projections = [ProjectTo(a) for a in arrays]

    def atleast_2d_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        return (NoTangent(), *_reshaped_back(y_bar, shapes, projections))

    return y, atleast_2d_pullback


@rules.rrule(np.atleast_3d)
def atleast_3d_rrule(*arrays: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.atleast_3d(*arrays)`; each argument gets its own cotangent."""
    y = np.atleast_3d(*arrays)
    shapes = [np.shape(a) for a in arrays]
    projections = [ProjectTo(a) for a in arrays]

    def atleast_3d_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        return (NoTangent(), *_reshaped_back(y_bar, shapes, projections))

    return y, atleast_3d_pullback


@rules.rrule(np.broadcast_to)
def broadcast_to_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.broadcast_to`: the pullback sums over the broadcast axes."""
    y = np.broadcast_to(x, *options, **keywords)
    shape = np.shape(x)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def broadcast_to_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_x(unbroadcast(np.asarray(y_bar), shape)), *option_bars)

    return y, broadcast_to_pullback


# --- Permuting axes and elements --------------------------------------------------------------


@rules.rrule(np.swapaxes)
def swapaxes_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.swapaxes`: swapping the same axes again undoes it."""
    y = np.swapaxes(x, *options, **keywords)
    given = bind_options(("axis1", "axis2"), options, keywords)
    axis1, axis2 = given["axis1"], given["axis2"]
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def swapaxes_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_x(np.swapaxes(y_bar, axis1, axis2)), *option_bars)

    return y, swapaxes_pullback


@rules.rrule(np.moveaxis)
def moveaxis_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.moveaxis`: the pullback moves the axes from where they went."""
    y = np.moveaxis(x, *options, **keywords)
    given = bind_options(("source", "destination"), options, keywords)
    source, destination = given["source"], given["destination"]
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def moveaxis_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_x(np.moveaxis(y_bar, destination, source)), *option_bars)

    return y, moveaxis_pullback


@rules.rrule(np.flip)
def flip_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.flip` (every axis, one, or several): flipping again undoes it."""
    y = np.flip(x, *options, **keywords)
    axis = bind_options(("axis",), options, keywords).get("axis")
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def flip_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_x(np.flip(y_bar, axis)), *option_bars)

    return y, flip_pullback


@rules.rrule(np.roll)
def roll_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.roll`: the pullback rolls the cotangent back by `-shift`."""
    y = np.roll(x, *options, **keywords)
    given = bind_options(_ROLL_PARAMETERS, options, keywords)
    back = np.negative(given["shift"])
    axis = given.get("axis")
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def roll_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_x(np.roll(y_bar, back, axis)), *option_bars)

    return y, roll_pullback


# --- Joining and splitting --------------------------------------------------------------------


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
    return _cotangent_of_elements(arrays, element_bars)


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


# --- Copying elements -------------------------------------------------------------------------


@rules.rrule(np.tile)
def tile_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.tile`: the pullback sums the cotangents of the tiles."""
    y = np.tile(x, *options, **keywords)
    reps = bind_options(("reps",), options, keywords)["reps"]
    reps = tuple(reps) if np.ndim(reps) else (int(reps),)
    shape = np.shape(x)
    ndim = max(len(shape), len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    padded_shape = (1,) * (ndim - len(shape)) + shape
    # Along each axis the result holds `rep` copies of the (padded) input one after another:
    # as shape (rep_0, n_0, rep_1, n_1, ...), the copies are the even axes.
    tiled_shape = tuple(d for rep_and_n in zip(reps, padded_shape, strict=True) for d in rep_and_n)
    copy_axes = tuple(range(0, 2 * ndim, 2))
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def tile_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        tiles_bar = np.reshape(y_bar, tiled_shape).sum(axis=copy_axes)
        return (NoTangent(), project_x(np.reshape(tiles_bar, shape)), *option_bars)

    return y, tile_pullback


@rules.rrule(np.repeat)
def repeat_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.repeat` with one count or a count per element, along an axis
    or (`axis=None`) over the flattened array; the pullback sums each element's copies."""
    y = np.repeat(x, *options, **keywords)
    given = bind_options(_REPEAT_PARAMETERS, options, keywords)
    repeats, axis = given["repeats"], given.get("axis")
    shape = np.shape(x)
    if axis is None:
        length, axis, before, after = math.prod(shape), 0, (), ()
    else:
        axis = int(axis) % len(shape)
        length, before, after = shape[axis], shape[:axis], shape[axis + 1 :]
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def repeat_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        y_bar = np.reshape(y_bar, (*before, -1, *after))
        if np.ndim(repeats) == 0:  # the copies of each element are neighbours
            copies = np.reshape(y_bar, (*before, length, int(repeats), *after))
            x_bar = copies.sum(axis=axis + 1)
        else:
            sources = np.repeat(np.arange(length), repeats)
            x_bar = np.zeros((*before, length, *after), dtype=y_bar.dtype)
            index: Any = (*(slice(None),) * axis, sources)
            np.add.at(x_bar, index, y_bar)
        return (NoTangent(), project_x(np.reshape(x_bar, shape)), *option_bars)

    return y, repeat_pullback


def _gathered(sources: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Sum `weights` into `size` slots by their `sources` (1 + the slot; 0 for none)."""
    # bincount is many times faster than np.add.at, but takes only real weights.
    total = np.bincount(sources, weights.real, minlength=size + 1)[1:]
    if np.iscomplexobj(weights):
        total = total + 1j * np.bincount(sources, weights.imag, minlength=size + 1)[1:]
    return total


@rules.rrule(np.pad)
def pad_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.pad` in the modes that copy elements or write constants
    (`PAD_MODES_WITH_RULES`); `constant_values` is a keyword, so it is not differentiated.

    The pullback adds each result element's cotangent to the element of `x` it copies: the
    map from one to the other is `np.pad` applied to the positions of `x`'s elements (padded
    with -1 where the mode writes a constant), so it covers every form `pad_width` takes.
    """
    given = bind_options(_PAD_PARAMETERS, options, keywords)
    mode = given.get("mode", "constant")
    # reflect_type "odd" computes 2 * edge - x: not a copy of an element.
    odd = mode in ("reflect", "symmetric") and given.get("reflect_type", "even") != "even"
    if mode not in PAD_MODES_WITH_RULES or odd:
        kind = f"mode {mode!r}" + (" and reflect_type 'odd'" if odd else "")
        raise TypeError(
            f"srcad has no rule for np.pad with {kind}; it has rules for the modes "
            f"{', '.join(map(repr, PAD_MODES_WITH_RULES))} (reflect_type 'even')"
        )
    y = np.pad(x, *options, **keywords)
    shape = np.shape(x)
    size = math.prod(shape)
    index_keywords = {"constant_values": -1} if mode == "constant" else {}
    pad_width = given["pad_width"]
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def pad_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        positions = np.arange(size).reshape(shape)
        sources = np.pad(positions, pad_width, mode, **index_keywords).ravel() + 1
        x_bar = _gathered(sources, np.ravel(y_bar), size)
        return (NoTangent(), project_x(x_bar.reshape(shape)), *option_bars)

    return y, pad_pullback

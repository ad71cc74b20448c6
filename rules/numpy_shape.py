"""Rules for NumPy's shape functions: reshaping, permuting axes, tiling, flipping, padding.

Each of these functions only moves, copies or drops its input's elements, so each pullback
moves the cotangent back: by the inverse rearrangement, or by summing the copies of each
element. Options passed by position (shapes, axes, counts, modes) each get a `NoTangent()`.
Every pullback needs the value of its output cotangent, so it computes a thunked one first.
Each function is linear, so its forward rule applies it to the tangent. Joining and
splitting are in `numpy_joining.py`.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.projection import ProjectTo, operand_tangent, unbroadcast
from srcad.registry import Linearity, RuleFn, RuleSet, named
from srcad.rules._support import by_definition
from srcad.rules.containers import dense_tangent
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_shape")

Pullback = Any
Shape = tuple[int, ...]

# The parameters of each function after its first, in positional order.
_RESHAPE_PARAMETERS = ("shape", "order")
_RAVEL_PARAMETERS = ("order",)
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


def _ravel_positions(x: Any, order: Any) -> np.ndarray | None:
    """For order "K", the position in `x` (counted in C order) that each element of
    `np.ravel(x, "K")` came from: an array laid out like `x` (empty_like keeps the layout),
    raveled the same way. None for other orders."""
    if order not in ("K", "k"):
        return None
    labels = np.empty_like(x, dtype=np.intp)
    labels[...] = np.arange(labels.size).reshape(np.shape(x))
    return np.ravel(labels, order="K")


@rules.rrule(np.ravel)
def ravel_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.ravel` in every `order`, "K" (memory order) included."""
    y = np.ravel(x, *options, **keywords)
    given = bind_options(_RAVEL_PARAMETERS, options, keywords)
    order = _memory_order(x, given.get("order"))
    shape = np.shape(x)
    positions = _ravel_positions(x, given.get("order"))
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


def _pad_mode(given: dict[str, Any]) -> Any:
    """The mode of a call of `np.pad` with arguments `given`; refuses those without rules."""
    mode = given.get("mode", "constant")
    # reflect_type "odd" computes 2 * edge - x: not a copy of an element.
    odd = mode in ("reflect", "symmetric") and given.get("reflect_type", "even") != "even"
    if mode not in PAD_MODES_WITH_RULES or odd:
        kind = f"mode {mode!r}" + (" and reflect_type 'odd'" if odd else "")
        raise UnsupportedCallError(
            f"srcad has no rule for np.pad with {kind}; it has rules for the modes "
            f"{', '.join(map(repr, PAD_MODES_WITH_RULES))} (reflect_type 'even')"
        )
    return mode


@rules.rrule(np.pad)
def pad_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.pad` in the modes that copy elements or write constants
    (`PAD_MODES_WITH_RULES`); `constant_values` is a keyword, so it is not differentiated.

    The pullback adds each result element's cotangent to the element of `x` it copies: the
    map from one to the other is `np.pad` applied to the positions of `x`'s elements (padded
    with -1 where the mode writes a constant), so it covers every form `pad_width` takes.
    """
    given = bind_options(_PAD_PARAMETERS, options, keywords)
    mode = _pad_mode(given)
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


# --- Forward rules: `frule((f_dot, x_dot, *option_dots), x, *options) -> (y, y_dot)` -----------
# Each function is linear: it applies itself to the tangent, with the same options.


def linear_frule(primal: Any, name: str) -> RuleFn:
    """The forward rule of `primal(x, *options)`, linear in `x`: `primal(x_dot, *options)`.
    The options (shapes, axes, counts, indices) get no tangent."""

    def frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
        y = primal(x, *options, **keywords)
        x_dot = operand_tangent(dargs[1], x)
        if isinstance(x_dot, AbstractZero):
            return y, ZeroTangent()
        return y, primal(dense_tangent(x_dot, x), *options, **keywords)

    return named(frule, f"{name}_frule")


_LINEAR = {
    "expand_dims": np.expand_dims,
    "squeeze": np.squeeze,
    "broadcast_to": np.broadcast_to,
    "swapaxes": np.swapaxes,
    "moveaxis": np.moveaxis,
    "flip": np.flip,
    "roll": np.roll,
    "tile": np.tile,
    "repeat": np.repeat,
}
for _name, _primal in _LINEAR.items():
    # Linear in `x`: their forward rules apply themselves to the tangent, and get reverse
    # rules for second derivatives (`rules/second_order.py`).
    rules.primitive(_primal, frule=linear_frule(_primal, _name), linearity=Linearity.LINEAR)


@rules.frule(np.reshape)
def reshape_frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> Any:
    """Forward rule for `np.reshape`: the tangent read in the order `x` was read in (for
    order "A", the layout of `x`, not of the tangent)."""
    y = np.reshape(x, *options, **keywords)
    x_dot = operand_tangent(dargs[1], x)
    if isinstance(x_dot, AbstractZero):
        return y, ZeroTangent()
    order = _memory_order(x, bind_options(_RESHAPE_PARAMETERS, options, keywords).get("order"))
    return y, np.reshape(np.ravel(x_dot, order), np.shape(y), order=order)


@rules.frule(np.ravel)
def ravel_frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> Any:
    """Forward rule for `np.ravel`: the tangent in the order of `x`'s elements (for orders
    "A" and "K", the layout of `x`, not of the tangent)."""
    y = np.ravel(x, *options, **keywords)
    x_dot = operand_tangent(dargs[1], x)
    if isinstance(x_dot, AbstractZero):
        return y, ZeroTangent()
    given_order = bind_options(_RAVEL_PARAMETERS, options, keywords).get("order")
    positions = _ravel_positions(x, given_order)
    if positions is not None:
        return y, np.ravel(x_dot)[positions]
    return y, np.ravel(x_dot, _memory_order(x, given_order))


def _atleast_frule(primal: Any, name: str) -> RuleFn:
    """The forward rule of `np.atleast_1d(*arrays)` (and 2d, 3d): one tangent for one
    argument, a tuple of them for several."""

    def frule(dargs: tuple[Any, ...], *arrays: Any) -> tuple[Any, Any]:
        y = primal(*arrays)
        dots = [unthunk(d) for d in dargs[1:]]
        if all(isinstance(d, AbstractZero) for d in dots):
            return y, ZeroTangent()
        y_dots = tuple(
            ZeroTangent() if isinstance(d, AbstractZero) else primal(dense_tangent(d, a))
            for d, a in zip(dots, arrays, strict=True)
        )
        return y, y_dots[0] if len(arrays) == 1 else type(y)(y_dots)

    return named(frule, f"{name}_frule")


_ATLEAST = {"atleast_1d": np.atleast_1d, "atleast_2d": np.atleast_2d, "atleast_3d": np.atleast_3d}
for _name, _primal in _ATLEAST.items():
    rules.frule(_primal)(_atleast_frule(_primal, _name))


@rules.frule(np.pad)
def pad_frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> Any:
    """Forward rule for `np.pad`: the tangent padded the same way, with zeros where the
    mode writes constants."""
    given = bind_options(_PAD_PARAMETERS, options, keywords)
    mode = _pad_mode(given)
    y = np.pad(x, *options, **keywords)
    x_dot = operand_tangent(dargs[1], x)
    if isinstance(x_dot, AbstractZero):
        return y, ZeroTangent()
    rest = {k: v for k, v in given.items() if k not in ("pad_width", "mode", "constant_values")}
    return y, np.pad(dense_tangent(x_dot, x), given["pad_width"], mode, **rest)


# Linear in `x` too (their rules are above).
rules.primitive(np.reshape, linearity=Linearity.LINEAR)
rules.primitive(np.ravel, linearity=Linearity.LINEAR)
# Linear in every array, not of the form `f(x_dot)` (padding writes constants, `atleast_*`
# takes several arrays): their forward rules' reverse rules pull back through the pullback.
# `atleast_*` only reshapes (complex arrays pass); `np.pad` has modes with pieces
# (`"maximum"`, `"median"`), so it takes real arrays only.
rules.primitive(np.pad, linearity=Linearity.PIECEWISE_LINEAR)
for _reshaping in _ATLEAST.values():
    rules.primitive(_reshaping, linearity=Linearity.LINEAR_IN_ALL)


# -- np.meshgrid: each vector along its own axis, broadcast to the grid -------------------------


def _grid_axis(k: int, count: int, indexing: str) -> int:
    """The axis of the grid along which `np.meshgrid` lays its `k`-th vector."""
    if indexing == "xy" and count > 1 and k < 2:
        return 1 - k
    return k


def mesh_grid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> Any:
    """`np.meshgrid`: the flattened `xi[k]` laid along its axis of the grid (the first two
    swapped where `indexing` is `"xy"`), broadcast to the whole grid unless `sparse`.
    `copy` changes no value."""
    count = len(xi)
    axes = [_grid_axis(k, count, indexing) for k in range(count)]
    grids = [
        np.reshape(xi[k], tuple(-1 if axis == axes[k] else 1 for axis in range(count)))
        for k in range(count)
    ]
    if sparse:
        return tuple(grids)
    sizes = tuple(np.size(xi[axes.index(axis)]) for axis in range(count))
    return tuple(np.broadcast_to(grid, sizes) for grid in grids)


rules.non_differentiable(_grid_axis)
by_definition(rules, np.meshgrid, mesh_grid)

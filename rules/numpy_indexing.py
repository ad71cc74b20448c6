"""Rules for NumPy's functions that gather elements by index (`np.take`,
`np.take_along_axis`) and for `np.full`, which spreads one value over an array.

The pullback of a gather adds each result element's cotangent to the element it was read
from, with `np.add.at`, so that indices that repeat accumulate. Every pullback needs the value
of its output cotangent, so it computes a thunked one first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.projection import ProjectTo, operand_tangent, unbroadcast
from srcad.registry import Linearity, RuleSet
from srcad.rules._support import dense_tangent
from srcad.rules.numpy_shape import bind_options, linear_frule
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("numpy_indexing")

Pullback = Any

# The parameters of each function after its first, in positional order.
_TAKE_PARAMETERS = ("indices", "axis", "out", "mode")
_TAKE_ALONG_AXIS_PARAMETERS = ("indices", "axis")


def _positions(indices: Any, length: int, mode: str) -> np.ndarray:
    """The positions along an axis of `length` that `np.take(..., mode=mode)` reads.

    >>> _positions([-1, 5], 4, "wrap"), _positions([-1, 5], 4, "clip")
    (array([3, 1]), array([0, 3]))
    """
    indices = np.asarray(indices)
    if mode == "wrap":
        return indices % length
    if mode == "clip":  # clipping disables negative indices: -1 reads position 0
        return np.clip(indices, 0, length - 1)
    return indices


def _refuse_out(given: dict[str, Any]) -> None:
    if given.get("out") is not None:
        raise UnsupportedCallError("srcad cannot differentiate np.take writing into `out=`")


@rules.rrule(np.take)
def take_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.take` over the flattened array or along an axis, in every
    `mode`; the indices get a `NoTangent()`, and repeated indices accumulate."""
    y = np.take(x, *options, **keywords)
    given = bind_options(_TAKE_PARAMETERS, options, keywords)
    _refuse_out(given)
    shape = np.shape(x)
    axis = given.get("axis")
    if axis is None:
        length, axis, gathered_shape = int(np.size(x)), 0, (int(np.size(x)),)
    else:
        axis = int(axis) % len(shape)
        length, gathered_shape = shape[axis], shape
    positions = _positions(given["indices"], length, given.get("mode", "raise"))
    index: Any = (*(slice(None),) * axis, positions)
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def take_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        y_bar = np.asarray(y_bar)
        x_bar = np.zeros(gathered_shape, dtype=y_bar.dtype)
        np.add.at(x_bar, index, y_bar)
        return (NoTangent(), project_x(x_bar.reshape(shape)), *option_bars)

    return y, take_pullback


def _along_axis_index(indices: np.ndarray, shape: tuple[int, ...], axis: int) -> tuple[Any, ...]:
    """The integer-array index with which `np.take_along_axis(x, indices, axis)` reads `x`
    (of `shape`): `indices` along `axis`, and along every other axis its own positions,
    shaped to broadcast against `indices`."""
    ndim = len(shape)
    index: list[Any] = [
        np.arange(n).reshape((1,) * dim + (n,) + (1,) * (ndim - dim - 1))
        for dim, n in enumerate(shape)
    ]
    index[axis] = indices
    return tuple(index)


@rules.rrule(np.take_along_axis)
def take_along_axis_rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.take_along_axis` (also with `axis=None`, over the flattened
    array); the indices get a `NoTangent()`, and repeated indices accumulate."""
    y = np.take_along_axis(x, *options, **keywords)
    given = bind_options(_TAKE_ALONG_AXIS_PARAMETERS, options, keywords)
    shape = np.shape(x)
    indices = np.asarray(given["indices"])
    axis = given.get("axis", -1)  # NumPy before 2.3 requires it; from 2.3 it defaults to -1
    if axis is None:
        gathered_shape: tuple[int, ...] = (int(np.size(x)),)
        index: Any = (indices,)
    else:
        gathered_shape = shape
        index = _along_axis_index(indices, shape, int(axis) % len(shape))
    project_x = ProjectTo(x)
    option_bars = (NoTangent(),) * len(options)

    def take_along_axis_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        y_bar = np.asarray(y_bar)
        x_bar = np.zeros(gathered_shape, dtype=y_bar.dtype)
        np.add.at(x_bar, index, y_bar)
        return (NoTangent(), project_x(x_bar.reshape(shape)), *option_bars)

    return y, take_along_axis_pullback


rules.keywords_by_position(np.full, "fill_value")


@rules.rrule(np.full)
def full_rrule(shape: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.full(shape, fill_value)`: a fill value passed by position gets
    the sum of the cotangent over the copies of it (over the broadcast axes, for an array
    fill value). The shape, `dtype` and `order` get `NoTangent()`.

    A call's `fill_value=` comes here by position (`keywords_by_position`); a fill value
    the result's integer `dtype` rounds is not differentiated.
    """
    y = np.full(shape, *options, **keywords)
    fill_value: Any = options[0] if options else 0.0  # a keyword's stand-in, never used
    differentiable = y.dtype.kind in "fc"
    fill_shape = np.shape(fill_value)
    project_fill = ProjectTo(fill_value)
    option_bars = (NoTangent(),) * (len(options) - 1)

    def full_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if not options:
            return NoTangent(), NoTangent()
        fill_bar: Any
        if isinstance(y_bar, AbstractZero):
            fill_bar = y_bar
        elif not differentiable:  # an integer result: the fill value was rounded away
            fill_bar = ZeroTangent()
        else:
            fill_bar = unbroadcast(np.asarray(y_bar), fill_shape)
        return (NoTangent(), NoTangent(), project_fill(fill_bar), *option_bars)

    return y, full_pullback


# --- Forward rules: `frule((f_dot, x_dot, *option_dots), x, *options) -> (y, y_dot)` -----------
# A gather reads the tangent where it reads the values.


@rules.frule(np.take)
def take_frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> Any:
    """Forward rule for `np.take`: the tangent taken at the same indices."""
    _refuse_out(bind_options(_TAKE_PARAMETERS, options, keywords))
    y = np.take(x, *options, **keywords)
    x_dot = operand_tangent(dargs[1], x)
    if isinstance(x_dot, AbstractZero):
        return y, ZeroTangent()
    return y, np.take(dense_tangent(x_dot, x), *options, **keywords)


rules.frule(np.take_along_axis)(linear_frule(np.take_along_axis, "take_along_axis"))


@rules.frule(np.full)
def full_frule(dargs: tuple[Any, ...], shape: Any, *options: Any, **keywords: Any) -> Any:
    """Forward rule for `np.full(shape, fill_value)`: the fill value's tangent spread the same
    way (a call's `fill_value=` comes here by position). A fill value an integer `dtype`
    rounds is not differentiated."""
    y = np.full(shape, *options, **keywords)
    fill_dot = unthunk(dargs[2]) if options else ZeroTangent()
    if isinstance(fill_dot, AbstractZero) or y.dtype.kind not in "fc":
        return y, ZeroTangent()
    return y, np.full(shape, dense_tangent(fill_dot, options[0]), *options[1:], **keywords)


# Linear in what it takes from (its rules are above).
rules.primitive(np.take, linearity=Linearity.LINEAR)
rules.primitive(np.take_along_axis, linearity=Linearity.LINEAR)
# Linear in its fill value (piecewise constant where an integer dtype rounds it).
rules.primitive(np.full, linearity=Linearity.PIECEWISE_LINEAR)

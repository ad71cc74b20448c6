"""Rules for NumPy functions that rearrange, mask or difference an array's elements:
`tril`, `triu`, `fliplr`, `flipud`, `rot90`, `rollaxis`, `diagonal`, `diff`, `append`,
`select`, `partition`, `kron` and `cross`; and the conversions `astype` and
`real_if_close`.

Most are linear in their array: the pullback applies the adjoint (`ADJOINTS`), the forward
rule applies the function to the tangent (`numpy_shape.linear_frule`). `append` and
`select` are linear in several arguments, `kron` and `cross` bilinear; `partition` moves
elements by the permutation NumPy's own `argpartition` finds, as `np.sort`'s rule does.

Second derivatives: the functions linear in one array get theirs from
`second_order.LINEAR`; those linear in all they differentiate but not of that form get a
reverse rule of their forward rule from `linear_frule_rrule`, and the permutations
(`partition`, and `sort` of `numpy_sorting`) from `_permutation_frule_rrule`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.kinds import TO_FLOAT32, TO_FLOAT64
from srcad.projection import ProjectTo, conj, operand_tangent, unbroadcast
from srcad.registry import Inline, Linearity, RuleFn, RuleSet, named
from srcad.rules import numpy_sorting
from srcad.rules._support import cotangent_of_elements, dense_tangent
from srcad.rules.numpy_shape import bind_options, linear_frule
from srcad.rules.second_order import linear_frule_rrule
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_arrangement")

Pullback = Any
Given = dict[str, Any]

# The parameters of each function after its first, in positional order.
PARAMETERS: dict[str, tuple[str, ...]] = {
    "tril": ("k",),
    "triu": ("k",),
    "fliplr": (),
    "flipud": (),
    "rot90": ("k", "axes"),
    "rollaxis": ("axis", "start"),
    "diagonal": ("offset", "axis1", "axis2"),
    "diff": ("n", "axis", "prepend", "append"),
}


def _rollaxis_destination(ndim: int, axis: int, start: int) -> tuple[int, int]:
    """`np.rollaxis(x, axis, start)` as `np.moveaxis(x, axis, destination)`: the normalised
    `(axis, destination)`, as NumPy's own implementation computes them."""
    axis = axis % ndim
    start = start + ndim if start < 0 else start
    return axis, start - 1 if axis < start else start


def _diagonal_adjoint(y_bar: np.ndarray, x: Any, given: Given) -> np.ndarray:
    """Scatter the cotangent of `np.diagonal(x, offset, axis1, axis2)` onto that diagonal."""
    offset = int(given.get("offset", 0))
    shape = np.shape(x)
    axis1, axis2 = int(given.get("axis1", 0)) % len(shape), int(given.get("axis2", 1)) % len(shape)
    x_bar = np.zeros(shape, dtype=np.result_type(y_bar, 1.0))
    planes = np.moveaxis(x_bar, (axis1, axis2), (-2, -1))  # a view: writes reach x_bar
    positions = np.arange(y_bar.shape[-1])
    planes[..., positions + max(-offset, 0), positions + max(offset, 0)] = y_bar
    return x_bar


def first_difference_adjoint(g: np.ndarray, axis: int) -> np.ndarray:
    """The adjoint of one `np.diff` along `axis`: `x_bar[i] = g[i - 1] - g[i]`, with `g` zero
    outside its range."""
    width = [(0, 0)] * g.ndim
    width[axis] = (1, 1)
    return -np.diff(np.pad(g, width), axis=axis)


def _diff_adjoint(y_bar: np.ndarray, x: Any, given: Given) -> np.ndarray:
    """The cotangent of `x` in `np.diff(x, n, axis, prepend, append)`: `n` first-difference
    adjoints, then the part of the joined array (`prepend`, `x`, `append`) that is `x`.
    `prepend` and `append` are not differentiated."""
    axis = int(given.get("axis", -1)) % max(np.ndim(x), 1)
    g = y_bar
    for _ in range(int(given.get("n", 1))):
        g = first_difference_adjoint(g, axis)
    before = 0
    if given.get("prepend", np._NoValue) is not np._NoValue:
        prepend = np.asarray(given["prepend"])
        before = 1 if prepend.ndim == 0 else prepend.shape[axis]
    return np.take(g, np.arange(before, before + np.shape(x)[axis]), axis=axis)


# The adjoint of each linear function: `adjoint(y_bar, x, given)` is the cotangent of `x`
# (before projection) for the output cotangent `y_bar` and the call's options by name.
ADJOINTS: dict[str, tuple[Any, Callable[[np.ndarray, Any, Given], np.ndarray]]] = {
    "tril": (np.tril, lambda g, x, o: unbroadcast(np.tril(g, o.get("k", 0)), np.shape(x))),
    "triu": (np.triu, lambda g, x, o: unbroadcast(np.triu(g, o.get("k", 0)), np.shape(x))),
    "fliplr": (np.fliplr, lambda g, x, o: np.fliplr(g)),
    "flipud": (np.flipud, lambda g, x, o: np.flipud(g)),
    "rot90": (np.rot90, lambda g, x, o: np.rot90(g, -o.get("k", 1), o.get("axes", (0, 1)))),
    "rollaxis": (
        np.rollaxis,
        lambda g, x, o: np.moveaxis(
            g, *reversed(_rollaxis_destination(np.ndim(x), o["axis"], o.get("start", 0)))
        ),
    ),
    "diagonal": (np.diagonal, _diagonal_adjoint),
    "diff": (np.diff, _diff_adjoint),
}


def _linear_rrule(primal: Any, name: str, adjoint: Callable[..., np.ndarray]) -> RuleFn:
    """The reverse rule of `primal(x, *options)`, linear in `x`: the pullback applies
    `adjoint` to the output cotangent. Options passed by position get `NoTangent()`."""

    def rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
        y = primal(x, *options, **keywords)
        given = bind_options(PARAMETERS[name], options, keywords)
        project_x = ProjectTo(x)
        option_bars = (NoTangent(),) * len(options)

        def linear_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), y_bar, *option_bars)
            x_bar = adjoint(np.asarray(y_bar), x, given)
            return (NoTangent(), project_x(x_bar), *option_bars)

        return y, linear_pullback

    return named(rrule, f"{name}_rrule", linear_pullback=f"{name}_pullback")


for _name, (_primal, _adjoint) in ADJOINTS.items():
    rules.rrule(_primal)(_linear_rrule(_primal, _name, _adjoint))
    if _primal is not np.diff:
        rules.frule(_primal)(linear_frule(_primal, _name))


@rules.frule(np.diff)
def diff_frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
    """Forward rule for `np.diff`: the tangent differenced the same way, with zeros where
    `prepend` and `append` (not differentiated) were joined."""
    y = np.diff(x, *options, **keywords)
    x_dot = operand_tangent(dargs[1], x)
    if isinstance(x_dot, AbstractZero):
        return y, ZeroTangent()
    given = bind_options(PARAMETERS["diff"], options, keywords)
    for joined in ("prepend", "append"):
        if given.get(joined, np._NoValue) is not np._NoValue:
            given[joined] = np.zeros_like(given[joined], dtype=np.result_type(x_dot))
    return y, np.diff(dense_tangent(x_dot, x), **given)


# --- append: linear in both arguments ----------------------------------------------------------


def _append_split(y_bar: np.ndarray, arr: Any, values: Any, axis: Any) -> tuple[Any, Any]:
    """The parts of `np.append(arr, values, axis)`'s cotangent that belong to each argument."""
    if axis is None:
        size = int(np.size(arr))
        flat = np.ravel(y_bar)
        return flat[:size].reshape(np.shape(arr)), flat[size:].reshape(np.shape(values))
    head, tail = np.split(y_bar, [np.shape(arr)[axis]], axis=axis)
    return head, tail


rules.keywords_by_position(np.append, "arr", "values")


@rules.rrule(np.append)
def append_rrule(arr: Any, values: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.append(arr, values, axis=None)`: both arguments are
    differentiated; the pullback splits the cotangent where the two were joined."""
    y = np.append(arr, values, *options, **keywords)
    axis = bind_options(("axis",), options, keywords).get("axis")
    project_arr, project_values = ProjectTo(arr), ProjectTo(values)
    option_bars = (NoTangent(),) * len(options)

    def append_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, y_bar, *option_bars)
        arr_bar, values_bar = _append_split(np.asarray(y_bar), arr, values, axis)
        return (NoTangent(), project_arr(arr_bar), project_values(values_bar), *option_bars)

    return y, append_pullback


@rules.frule(np.append)
def append_frule(
    dargs: tuple[Any, ...], arr: Any, values: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.append`: the two tangents appended the same way."""
    y = np.append(arr, values, *options, **keywords)
    arr_dot, values_dot = operand_tangent(dargs[1], arr), operand_tangent(dargs[2], values)
    if isinstance(arr_dot, AbstractZero) and isinstance(values_dot, AbstractZero):
        return y, ZeroTangent()
    dots = dense_tangent(arr_dot, arr), dense_tangent(values_dot, values)
    return y, np.append(*dots, *options, **keywords)


# --- select: linear in the choices and the default ---------------------------------------------


def _chosen_masks(condlist: Any, shape: tuple[int, ...]) -> tuple[list[np.ndarray], np.ndarray]:
    """Where `np.select` takes each choice (the first true condition wins), and where it
    takes the default, all broadcast to the result's `shape`."""
    taken = np.zeros(shape, dtype=bool)
    masks = []
    for condition in condlist:
        mask = np.broadcast_to(np.asarray(condition, dtype=bool), shape) & ~taken
        masks.append(mask)
        taken = taken | mask
    return masks, ~taken


rules.keywords_by_position(np.select, "choicelist", "default")


@rules.rrule(np.select)
def select_rrule(
    condlist: Any, choicelist: Any, *options: Any, **keywords: Any
) -> tuple[Any, Pullback]:
    """Reverse rule for `np.select(condlist, choicelist, default=0)`: each choice (and the
    default) gets the cotangent where it was taken; the conditions get `NoTangent()`."""
    y = np.select(condlist, choicelist, *options, **keywords)
    default = bind_options(("default",), options, keywords).get("default", 0)
    masks, rest = _chosen_masks(condlist, np.shape(y))
    choices = list(choicelist)
    projections = [ProjectTo(c) for c in choices]
    project_default = ProjectTo(default)
    default_position = len(options) > 0

    def select_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), NoTangent(), y_bar, *(y_bar for _ in options))
        y_bar = np.asarray(y_bar)
        choice_bars = tuple(
            project(unbroadcast(np.where(mask, y_bar, 0), np.shape(choice)))
            for choice, mask, project in zip(choices, masks, projections, strict=True)
        )
        choicelist_bar = cotangent_of_elements(choicelist, choice_bars)
        default_bars: tuple[Any, ...] = ()
        if default_position:
            default_bar = project_default(unbroadcast(np.where(rest, y_bar, 0), np.shape(default)))
            default_bars = (default_bar, *(NoTangent() for _ in options[1:]))
        return (NoTangent(), NoTangent(), choicelist_bar, *default_bars)

    return y, select_pullback


@rules.frule(np.select)
def select_frule(
    dargs: tuple[Any, ...], condlist: Any, choicelist: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.select`: the tangents selected as the values are (the default's
    tangent, when passed by position, where no condition holds)."""
    y = np.select(condlist, choicelist, *options, **keywords)
    choices = list(choicelist)
    choice_dots = [unthunk(d) for d in elements_of(unthunk(dargs[2]), len(choices))]
    default_dot = unthunk(dargs[3]) if options else ZeroTangent()
    if all(isinstance(d, AbstractZero) for d in (*choice_dots, default_dot)):
        return y, ZeroTangent()
    masks, rest = _chosen_masks(condlist, np.shape(y))
    y_dot = np.zeros(np.shape(y), dtype=np.result_type(y, 1.0))
    for mask, dot in zip(masks, choice_dots, strict=True):
        if not isinstance(dot, AbstractZero):
            y_dot = np.where(mask, dot, y_dot)
    if not isinstance(default_dot, AbstractZero):
        y_dot = np.where(rest, default_dot, y_dot)
    return y, y_dot


rules.rrule(select_frule)(linear_frule_rrule(select_rrule, select_frule, "select"))
rules.rrule(append_frule)(linear_frule_rrule(append_rrule, append_frule, "append"))
rules.rrule(diff_frule)(linear_frule_rrule(rules.rrules[np.diff].rrule, diff_frule, "diff"))


# --- partition: a permutation -------------------------------------------------------------------


def _partitioning_order(a: Any, options: tuple[Any, ...], keywords: Given) -> tuple[Any, Any]:
    """The permutation `np.partition(a, kth, axis, ...)` moves `a`'s elements by
    (`np.argpartition` takes the same options), and the axis (None: flattened)."""
    order = np.argpartition(a, *options, **keywords)
    return order, bind_options(("kth", "axis"), options, keywords).get("axis", -1)


def _permuted(x: Any, order: np.ndarray, axis: Any) -> np.ndarray:
    return np.take_along_axis(np.asarray(x), order, axis)


def _unpermuted(y_bar: np.ndarray, order: np.ndarray, axis: Any, shape: Any) -> np.ndarray:
    x_bar = np.zeros(shape, dtype=np.result_type(y_bar, 1.0))
    if axis is None:
        x_bar.reshape(-1)[order] = y_bar
    else:
        np.put_along_axis(x_bar, order, y_bar, axis)
    return x_bar


@rules.rrule(np.partition)
def partition_rrule(a: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.partition(a, kth, axis=-1, kind, order)`. Ties are kept apart by
    NumPy's permutation: each element gets the cotangent of the place it was moved to."""
    order, axis = _partitioning_order(a, options, keywords)
    y = _permuted(a, order, axis)
    project_a = ProjectTo(a)
    shape = np.shape(a)
    option_bars = (NoTangent(),) * len(options)

    def partition_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, *option_bars)
        return (NoTangent(), project_a(_unpermuted(np.asarray(y_bar), order, axis, shape)),
                *option_bars)  # fmt: skip

    return y, partition_pullback


@rules.frule(np.partition)
def partition_frule(
    dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.partition`: the tangent moved as the values are."""
    order, axis = _partitioning_order(a, options, keywords)
    y = _permuted(a, order, axis)
    a_dot = operand_tangent(dargs[1], a)
    if isinstance(a_dot, AbstractZero):
        return y, ZeroTangent()
    return y, _permuted(a_dot, order, axis)


def _permutation_frule_rrule(
    frule: RuleFn, permutation: Callable[..., tuple[np.ndarray, Any]], name: str
) -> RuleFn:
    """The reverse rule of the forward rule of a function that permutes `a` by
    `permutation(a, options, keywords) -> (order, axis)`: both results of the forward rule
    are the same permutation of `a` and of its tangent, so the pullback undoes it on each."""

    def frule_rrule(
        dargs: tuple[Any, ...], a: Any, *options: Any, **keywords: Any
    ) -> tuple[Any, Pullback]:
        y, y_dot = frule(dargs, a, *options, **keywords)
        order, axis = permutation(a, options, keywords)
        shape = np.shape(a)
        project_a = ProjectTo(a)
        option_bars = (NoTangent(),) * len(options)

        def permutation_frule_pullback(bars: Any) -> tuple[Any, ...]:
            y_bar, y_dot_bar = (unthunk(b) for b in elements_of(unthunk(bars), 2))
            back = [
                ZeroTangent() if isinstance(b, AbstractZero)
                else project_a(_unpermuted(np.asarray(b), order, axis, shape))
                for b in (y_bar, y_dot_bar)
            ]  # fmt: skip
            dargs_bar = Tangent(tuple, NoTangent(), back[1], *option_bars)
            return (NoTangent(), dargs_bar, back[0], *option_bars)

        return (y, y_dot), permutation_frule_pullback

    return named(
        frule_rrule, f"{name}_frule_rrule", permutation_frule_pullback=f"{name}_frule_pullback"
    )


def _sorting_order(a: Any, options: tuple[Any, ...], keywords: Given) -> tuple[Any, Any]:
    """The permutation `np.sort(a, axis, kind, order)` moves `a`'s elements by (`np.argsort`
    takes the same options, as `numpy_sorting.sort_rrule` relies on), and the axis."""
    order = np.argsort(a, *options, **keywords)
    return order, bind_options(("axis", "kind", "order"), options, keywords).get("axis", -1)


# Second derivatives through np.partition and np.sort (whose rules are in numpy_sorting).
rules.rrule(partition_frule)(
    _permutation_frule_rrule(partition_frule, _partitioning_order, "partition")
)
rules.rrule(numpy_sorting.sort_frule)(
    _permutation_frule_rrule(numpy_sorting.sort_frule, _sorting_order, "sort")
)


# --- kron and cross: bilinear ----------------------------------------------------------------


def _kron_blocks(y_bar: np.ndarray, a_shape: Any, b_shape: Any) -> tuple[np.ndarray, int]:
    """The cotangent of `np.kron(a, b)` with each axis split in two, `(a_0, b_0, a_1, b_1,
    ...)`, both shapes padded with leading 1s to the same length; and that length."""
    ndim = max(len(a_shape), len(b_shape))
    a_full = (1,) * (ndim - len(a_shape)) + tuple(a_shape)
    b_full = (1,) * (ndim - len(b_shape)) + tuple(b_shape)
    split = tuple(d for pair in zip(a_full, b_full, strict=True) for d in pair)
    return np.reshape(y_bar, split), ndim


rules.keywords_by_position(np.kron, "a", "b")


@rules.rrule(np.kron)
def kron_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.kron(a, b)`: `y[(i, j)] = a[i] b[j]` with the axes of each
    interleaved, so each cotangent contracts the split output cotangent with the other."""
    y = np.kron(a, b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def kron_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, y_bar)
        blocks, ndim = _kron_blocks(np.asarray(y_bar), a_shape, b_shape)
        # `a`'s axes are the even ones of the blocks, `b`'s the odd ones.
        a_axes, b_axes = tuple(range(0, 2 * ndim, 2)), tuple(range(1, 2 * ndim, 2))
        a_wide = np.expand_dims(np.reshape(conj(np.asarray(a)), blocks.shape[0::2]), b_axes)
        b_wide = np.expand_dims(np.reshape(conj(np.asarray(b)), blocks.shape[1::2]), a_axes)
        a_bar = np.sum(blocks * b_wide, axis=b_axes)
        b_bar = np.sum(blocks * a_wide, axis=a_axes)
        return (NoTangent(), project_a(np.reshape(a_bar, a_shape)),
                project_b(np.reshape(b_bar, b_shape)))  # fmt: skip

    return y, kron_pullback


@rules.frule(np.kron)
def kron_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    """Forward rule for `np.kron`: `kron(a_dot, b) + kron(a, b_dot)`."""
    y = np.kron(a, b)
    a_dot, b_dot = operand_tangent(dargs[1], a), operand_tangent(dargs[2], b)
    y_dot: Any = ZeroTangent()
    if not isinstance(a_dot, AbstractZero):
        y_dot = y_dot + np.kron(a_dot, b)
    if not isinstance(b_dot, AbstractZero):
        y_dot = y_dot + np.kron(a, b_dot)
    return y, y_dot


_CROSS_PARAMETERS = ("axisa", "axisb", "axisc", "axis")


def _cross_axes(given: Given) -> tuple[int, int, int]:
    """The vector axes of `a`, `b` and the result of `np.cross` (`axis` overrides all)."""
    if given.get("axis") is not None:
        return (given["axis"],) * 3
    return given.get("axisa", -1), given.get("axisb", -1), given.get("axisc", -1)


def _as_3_vectors(v: Any, axis: int) -> np.ndarray:
    """`v`'s vectors along `axis`, moved last and padded with a zero z-component when 2-d."""
    v = np.moveaxis(np.asarray(v), axis, -1)
    return v if v.shape[-1] == 3 else np.concatenate([v, np.zeros_like(v[..., :1])], -1)


rules.keywords_by_position(np.cross, "a", "b")


@rules.rrule(np.cross)
def cross_rrule(a: Any, b: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `np.cross` of 3- or 2-vectors (whose cross product is the z-component
    alone): with `a` and `b` padded to 3-vectors, `a_bar = conj(b) x y_bar` and
    `b_bar = y_bar x conj(a)`, each cut back to its own length and broadcast shape."""
    y = np.cross(a, b, *options, **keywords)
    axis_a, axis_b, axis_c = _cross_axes(bind_options(_CROSS_PARAMETERS, options, keywords))
    a3, b3 = _as_3_vectors(a, axis_a), _as_3_vectors(b, axis_b)
    a_length, b_length = np.shape(a)[axis_a], np.shape(b)[axis_b]
    a_moved = np.moveaxis(np.asarray(a), axis_a, -1).shape
    b_moved = np.moveaxis(np.asarray(b), axis_b, -1).shape
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    option_bars = (NoTangent(),) * len(options)

    def cross_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (NoTangent(), y_bar, y_bar, *option_bars)
        y_bar = np.asarray(y_bar)
        if a_length == 2 and b_length == 2:  # the result is the z-component
            g = np.stack([np.zeros_like(y_bar), np.zeros_like(y_bar), y_bar], axis=-1)
        else:
            g = np.moveaxis(y_bar, axis_c, -1)
        a_bar = unbroadcast(np.cross(conj(b3), g)[..., :a_length], a_moved)
        b_bar = unbroadcast(np.cross(g, conj(a3))[..., :b_length], b_moved)
        return (NoTangent(), project_a(np.moveaxis(a_bar, -1, axis_a)),
                project_b(np.moveaxis(b_bar, -1, axis_b)), *option_bars)  # fmt: skip

    return y, cross_pullback


@rules.frule(np.cross)
def cross_frule(
    dargs: tuple[Any, ...], a: Any, b: Any, *options: Any, **keywords: Any
) -> tuple[Any, Any]:
    """Forward rule for `np.cross`: `cross(a_dot, b) + cross(a, b_dot)`."""
    y = np.cross(a, b, *options, **keywords)
    a_dot, b_dot = operand_tangent(dargs[1], a), operand_tangent(dargs[2], b)
    y_dot: Any = ZeroTangent()
    if not isinstance(a_dot, AbstractZero):
        y_dot = y_dot + np.cross(a_dot, b, *options, **keywords)
    if not isinstance(b_dot, AbstractZero):
        y_dot = y_dot + np.cross(a, b_dot, *options, **keywords)
    return y, y_dot


# --- conversions: astype and real_if_close ----------------------------------------------------


def _converted_tangent(dot: Any, x: Any, y: Any) -> Any:
    """The tangent of `y`, a conversion of `x` (a cast, or the real part): the tangent cast
    the same way, its real part where a complex value became real; no tangent for a
    conversion to integers or booleans."""
    if not np.issubdtype(np.asarray(y).dtype, np.inexact):
        return ZeroTangent()
    dot = dense_tangent(dot, x)
    if np.iscomplexobj(dot) and not np.iscomplexobj(y):
        dot = np.real(dot)
    return np.asarray(dot).astype(np.asarray(y).dtype)


def _conversion_rrule(primal: Any, name: str) -> RuleFn:
    """The reverse rule of a conversion `primal(x, *options)`: the cotangent projected back
    onto `x` (cast to its dtype; a real cotangent of a complex `x` stays real)."""

    def rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
        y = primal(x, *options, **keywords)
        project_x = ProjectTo(x)
        differentiable = np.issubdtype(np.asarray(y).dtype, np.inexact)
        option_bars = (NoTangent(),) * len(options)

        def conversion_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero) or not differentiable:
                return (NoTangent(), ZeroTangent(), *option_bars)
            return (NoTangent(), project_x(np.asarray(y_bar)), *option_bars)

        return y, conversion_pullback

    return named(rrule, f"{name}_rrule", conversion_pullback=f"{name}_pullback")


def _conversion_frule(primal: Any, name: str) -> RuleFn:
    def frule(dargs: tuple[Any, ...], x: Any, *options: Any, **keywords: Any) -> tuple[Any, Any]:
        y = primal(x, *options, **keywords)
        x_dot = operand_tangent(dargs[1], x)
        if isinstance(x_dot, AbstractZero):
            return y, ZeroTangent()
        return y, _converted_tangent(x_dot, x, y)

    return named(frule, f"{name}_frule")


_CONVERSIONS = (
    ("astype", np.astype),
    ("real_if_close", np.real_if_close),
    ("float64", np.float64),
    ("float32", np.float32),
)
for _name, _primal in _CONVERSIONS:
    _rrule, _frule = _conversion_rrule(_primal, _name), _conversion_frule(_primal, _name)
    rules.rrule(_primal)(_rrule)
    rules.frule(_primal)(_frule)
    # Not `second_order.LINEAR`'s: converting the tangent alone may take another branch.
    rules.rrule(_frule)(linear_frule_rrule(_rrule, _frule, _name))
# Their kinds; a float64's cotangent is its argument's (a float32's is rounded: its rules).
rules.primitive(np.float64, result=TO_FLOAT64, inline=Inline("y_bar"))
rules.primitive(np.float32, result=TO_FLOAT32)

# Linear in their array (the other arguments are options): that fact gives their forward
# rules reverse rules, for second derivatives (`rules/second_order.py`).
for _linear in (np.tril, np.triu, np.fliplr, np.flipud, np.rot90, np.rollaxis, np.diagonal):
    rules.primitive(_linear, linearity=Linearity.LINEAR)
# Bilinear in their two arrays (their rules are above).
rules.primitive(np.kron, linearity=Linearity.BILINEAR)
rules.primitive(np.cross, linearity=Linearity.BILINEAR)

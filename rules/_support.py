"""Helpers the rule modules share: pure functions of values and (co)tangents, used by
rules on more than one topic."""

from __future__ import annotations

from collections.abc import Iterator, KeysView, Mapping, Sequence
from typing import Any

import numpy as np

from srcad.errors import SrcadError, UnsupportedCallError
from srcad.kinds import FLOAT, PYTHON_FLOAT, list_item
from srcad.projection import ProjectTo, conj, operand_tangent
from srcad.registry import CONFIG, RuleSet, named, primal_name
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    elements_of,
    field_names,
    refuse_own_iteration,
    structural,
    unthunk,
)


def cotangent_of_elements(value: Any, element_bars: tuple[Any, ...]) -> Any:
    """The cotangent of a sequence, given one cotangent per element. A mapping's elements
    are its keys, which take no derivative (`tangents.elements_of`): none."""
    kind = type(value)
    if kind is not list and kind is not tuple:  # (most: read no further)
        if isinstance(value, Mapping | KeysView):
            return ZeroTangent()
        refuse_own_iteration(kind)
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


def zipped_columns(sequences: tuple[Any, ...], pairs: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """The sequences `zip` read into `pairs`, each iterator of `itertools` (of constants,
    made where it is passed, read once: `zip(xs, itertools.repeat(c))`, `zip(count(), xs)`;
    one of differentiated values is made a list by its rule, or refused) as the items
    `zip` took of it, so that its cotangent has their length (an endless one has none)."""
    return tuple(
        [pair[k] for pair in pairs] if type(s).__module__ == "itertools" else s
        for k, s in enumerate(sequences)
    )


_PLAIN = frozenset([list, tuple, dict])


def structural_elements(bars: tuple[Any, ...], elements: tuple[Any, ...]) -> tuple[Any, ...]:
    """Element cotangents a caller gave as plain lists, tuples or dicts (a tuple result's
    `([1.0, 2.0], 3.0)`), as the `Tangent`s they stand for (`tangents.structural`): a
    list or tuple read twice adds two of them, where `+` would join them end to end."""
    if _PLAIN.isdisjoint(map(type, bars)):  # (the common case, in a tenth of a microsecond)
        return bars
    return tuple(structural(b, e) for b, e in zip(bars, elements, strict=True))


def float_rows(values: list[Any] | tuple[Any, ...], y_bar: np.ndarray) -> Any:
    """Each element's projected cotangent, at once, where `values` are all Python floats
    or all float64 scalars and `y_bar` a float64 vector of one element each: the element
    as a Python float, or as a float64 scalar, as projecting it one by one gives, a
    microsecond per element less (a list of floats grown in a loop). Else None."""
    if y_bar.dtype != np.float64 or y_bar.shape != (len(values),):
        return None
    types = {*map(type, values)}
    if types == {float}:
        return y_bar.tolist()
    return tuple(y_bar) if types == {np.float64} else None


def of_float_list(text: str) -> Any:
    """An inline derivative's choice (`srcad.templates.Choose`) of the template `text` for
    a function of one list of floats the function made (`kinds.list_of`: Python floats or
    float64 numbers, whose cotangents are floats), and of none for anything else."""

    def choose(kinds: Sequence[Any], constants: Sequence[Any]) -> list[str] | None:
        return [text] if len(kinds) == 1 and list_item(kinds[0]) in (FLOAT, PYTHON_FLOAT) else None

    return choose


def rows_cotangent(values: list[Any] | tuple[Any, ...], y_bar: Any) -> Any:
    """The cotangent of a list or tuple `values` from that of `np.array(values)`: each
    element's row, projected onto it (`array_rrule`'s pullback, which an inlined
    derivative calls where `values` is a list of floats: `kinds.list_of`)."""
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, AbstractZero):
        return y_bar
    y_bar = np.asarray(y_bar)
    rows = float_rows(values, y_bar)
    if rows is None:
        rows = tuple(ProjectTo(v)(y_bar[i]) for i, v in enumerate(values))
    return cotangent_of_elements(values, rows)


def array_of_elements(bar: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The array of shape `shape` whose `.tolist()` has the (nested) list cotangent `bar`:
    each element's, a zero where it is a symbolic one."""
    bar = unthunk(bar)
    if isinstance(bar, AbstractZero):
        return np.zeros(shape)
    if not shape or (isinstance(bar, np.ndarray) and bar.shape == shape):
        return np.asarray(bar)
    rows = [array_of_elements(part, shape[1:]) for part in elements_of(bar, shape[0])]
    return np.stack(rows) if rows else np.zeros(shape)


_FLOATS = (float, np.float64)


def summed_cotangent(values: Any, y_bar: Any) -> Any:
    """The cotangent of a list or tuple `values` from that of `sum(values)`: `y_bar`
    projected onto each element (`builtin_sum_rrule`'s pullback, which an inlined
    derivative calls where `values` is a list of floats: `kinds.list_of`)."""
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, AbstractZero):
        return y_bar
    refuse_own_iteration(type(values))
    types = {*map(type, values)}
    if type(y_bar) in _FLOATS and len(types) == 1 and types <= {*_FLOATS}:
        (kind,) = types  # Python floats, or float64 numbers: what projecting onto each gives
        element_bars = (y_bar if type(y_bar) is kind else kind(y_bar),) * len(values)
    else:
        element_bars = tuple(ProjectTo(v)(y_bar) for v in values)
    return cotangent_of_elements(values, element_bars)


def chosen_cotangent(values: list[Any], y: Any, y_bar: Any) -> Any:
    """The cotangent of a list `values` from that of `max(values)` or `min(values)`, the
    element `y`: `y_bar` projected onto it, zeros elsewhere (the builtins' rule's pullback,
    which an inlined derivative calls where `values` is a list of floats: `kinds.list_of`).
    `values.index(y)` is where the builtin took it from: `y` is that element, and an equal
    one before it would have been taken instead (the first of equal ones)."""
    y_bar = unthunk(y_bar)
    bars: list[Any] = [ZeroTangent()] * len(values)
    if not isinstance(y_bar, AbstractZero):
        bars[values.index(y)] = y_bar if type(y_bar) is type(y) else ProjectTo(y)(y_bar)
    return cotangent_of_elements(values, tuple(bars))


def options_by_name(
    parameters: tuple[str, ...], options: tuple[Any, ...], keywords: dict[str, Any]
) -> dict[str, Any]:
    """The options of a call by name: those passed by position fill `parameters` in order."""
    given = dict(zip(parameters, options, strict=False))
    given.update(keywords)
    if given.get("out") is not None:
        raise UnsupportedCallError("srcad cannot differentiate a call that writes into `out=`")
    return given


def argument_tangents(dargs: tuple[Any, ...], count: int, operands: tuple[Any, ...] = ()
                      ) -> list[Any]:  # fmt: skip
    """The first `count` argument tangents (after the function's), each computed if it was
    a thunk; the tangents of options that follow are not read. Given the arguments
    (`operands`, a NumPy function's), the tangent of a list or tuple is the array of its
    elements' tangents (`projection.operand_tangent`), as NumPy reads the list."""
    if operands:
        return [operand_tangent(d, x) for d, x in zip(dargs[1 : 1 + count], operands, strict=True)]
    return [unthunk(d) for d in dargs[1 : 1 + count]]


def reduced_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The non-negative axes a reduction over `axis` (None, an int or a tuple) removes.

    >>> reduced_axes(None, 3), reduced_axes(-1, 3), reduced_axes((0, -1), 3)
    ((0, 1, 2), (2,), (0, 2))
    """
    if axis is None or ndim == 0:  # NumPy lets axis 0 or -1 "reduce" a 0-d array
        return tuple(range(ndim))
    if type(axis) is int:
        return (axis % ndim,)
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(int(a) % ndim for a in axes))


def reduced_by_options(kinds: Any, options: Any) -> tuple[tuple[int, ...], bool] | None:
    """The axes (non-negative, in order) and `keepdims` of a reduction of one array of
    kind `kinds[0]` whose only constant options are `axis` and `keepdims`, as an inline
    derivative writes them in (`Inline.options`); None for any other call.

    >>> reduced_by_options([("f", 3)], {"axis": (-1, 0), "keepdims": True})
    ((0, 2), True)
    """
    if len(kinds) != 1 or kinds[0][1] == 0 or not set(options) <= {"axis", "keepdims"}:
        return None
    ndim, axis, keepdims = kinds[0][1], options.get("axis"), options.get("keepdims", False)
    axes = tuple(range(ndim)) if axis is None else (axis,) if type(axis) is int else axis
    if type(keepdims) is not bool or type(axes) is not tuple:
        return None
    if not all(type(a) is int and -ndim <= a < ndim for a in axes):
        return None
    normal = tuple(sorted({a % ndim for a in axes}))
    return (normal, keepdims) if len(normal) == len(axes) else None


def with_reduced_axes(y: Any, shape: tuple[int, ...], axis: Any, keepdims: bool) -> np.ndarray:
    """A reduction's result (or cotangent) with its reduced axes back as length-1 axes, so
    that it broadcasts against the reduced array."""
    y = np.asarray(y)
    if not keepdims:
        y = np.expand_dims(y, reduced_axes(axis, len(shape)))
    return y


def expand_reduced(y_bar: Any, shape: tuple[int, ...], axis: Any, keepdims: bool) -> np.ndarray:
    """Spread the cotangent of a reduction over `axis` back to the reduced array's `shape`.

    The reduced axes are put back (unless `keepdims` kept them) and the cotangent is
    repeated along them; the result is a fresh, writable array.

    >>> expand_reduced(np.array([1.0, 2.0]), (2, 3), 1, False)
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    kept = with_reduced_axes(y_bar, shape, axis, keepdims)
    out = np.empty(shape, dtype=kept.dtype)
    out[...] = kept
    return out


def divide_or_zero(a: Any, b: Any) -> np.ndarray:
    """a / b where b is not 0, and 0 where it is (the subgradient the norms choose at 0)."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    out = np.zeros(a.shape, dtype=np.result_type(a, b, 1.0))
    return np.divide(a, b, out=out, where=b != 0)


def tied_share(matches: np.ndarray, axes: Any) -> np.ndarray:
    """1 / (how many elements match) on each matching element of a reduced slice, 0 elsewhere:
    a tie shares the cotangent equally."""
    count = np.sum(matches, axis=axes, keepdims=True)
    return divide_or_zero(matches, count)


def extremum_share(x: Any, y: Any, axis: Any, keepdims: bool) -> np.ndarray:
    """The share of each element of `x` in a maximum or minimum `y` over `axis`: the
    elements equal to the result (NaNs, where the result is NaN) share it equally, so the
    cotangent is split equally among them and the tangent is their tangents' average.

    At a tie of two, that is what central differences give; at a tie of k > 2 they give
    1/2 to each, which sums to more than `y_bar`, while the equal split of 1/k is a
    subgradient (as in JAX and autograd). A constant `initial` that wins gets it all.
    """
    values = np.asarray(x)
    shape = values.shape
    axes = reduced_axes(axis, len(shape))
    y_kept = with_reduced_axes(y, shape, axis, keepdims)
    matches = np.asarray(values == y_kept)
    count = np.add.reduce(matches, axis=axes, keepdims=True)
    if count.item(count.argmin()):  # each slice holds its extremum: the common case
        return matches / count
    # A NaN result, which no element equals, or a constant `initial` that won.
    if values.dtype.kind in "fc":
        matches = matches | (np.isnan(values) & np.isnan(y_kept))
    return tied_share(matches, axes)


def spread_sum(y_bar: Any, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """The cotangent of a float array `x` from that of `np.sum(x, axis=axes,
    keepdims=keepdims)` (`axes` non-negative, in order), as inlined derivatives write it: a
    fresh array of `x`'s shape, in the cotangent's dtype. A symbolic zero stays one.

    >>> spread_sum(np.array([1.0, 2.0]), np.zeros((2, 3)), (1,), False)
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, AbstractZero):
        return y_bar
    if not keepdims:
        y_bar = np.expand_dims(y_bar, axes)
    out = np.empty(x.shape, dtype=np.result_type(y_bar))
    out[...] = y_bar
    return out


def spread_mean(y_bar: Any, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """`spread_sum` for `np.mean`: the cotangent over the number of elements each result
    averages (none, for an empty `x`, whose cotangent is empty).

    >>> spread_mean(np.array([[3.0]]), np.zeros((2, 3)), (0, 1), True)
    array([[0.5, 0.5, 0.5],
           [0.5, 0.5, 0.5]])
    """
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, AbstractZero):
        return y_bar
    count = 1
    for axis in axes:
        count *= x.shape[axis]
    return spread_sum(y_bar / count if count else y_bar, x, axes, keepdims)


def extremum_templates(kinds: Any, constants: Any, options: Any = None) -> list[str] | None:
    """The inline derivative of `np.max` and `np.min` of a float64 array, over all of it or
    over the constant options `axis` and `keepdims` (`extremum_cotangent`)."""
    found = reduced_by_options(kinds, options or {})
    if found is None or kinds[0][0] != "f":
        return None
    return [f"extremum_cotangent(y_bar, a, y, {found[0]!r}, {found[1]!r})"]


def extremum_cotangent(y_bar: Any, x: Any, y: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """The cotangent of a float array `x` from that of its maximum or minimum `y` over `axes`
    (non-negative, in order), as inlined derivatives write it: `y_bar` on the element that
    is the extremum of its slice; tied ones share it, as `extremum_share` says.

    Where each slice holds its extremum once (no ties, no NaN), the mask of matches is the
    share: one comparison and one count over `x`, and no sum per slice.

    >>> extremum_cotangent(np.array([2.0, 3.0]), np.array([[1.0, 5.0], [4.0, 4.0]]),
    ...                    np.array([5.0, 4.0]), (1,), False)
    array([[0. , 2. ],
           [1.5, 1.5]])
    """
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, AbstractZero):
        return y_bar
    if not keepdims:
        y, y_bar = np.expand_dims(y, axes), np.expand_dims(y_bar, axes)
    matches = x == y
    # No NaN in `y` (the sum of its elements is not NaN): every slice matches at least
    # once, so as many matches as slices means exactly one each.
    total = np.add.reduce(y, axis=None)
    if np.count_nonzero(matches) == y.size and total == total:
        return np.where(matches, y_bar, 0.0)
    return extremum_share(x, y, axes, True) * y_bar


def refuse_dropped_rank(dropped: Any, largest: Any, shape: tuple[int, ...], name: str) -> None:
    """Raise where a pseudo-inverse (`np.linalg.pinv`, `np.linalg.lstsq`) dropped singular
    values `dropped` (below its `rcond`/`rtol` times the `largest`) that are not rounding
    errors of a zero: its rules differentiate the pseudo-inverse at constant rank, where
    the dropped ones are zeros, and the derivative of the truncation itself (through the
    singular vectors, with the gaps between kept and dropped values) is not written."""
    dropped, largest = np.asarray(dropped), np.asarray(largest)
    if dropped.size == 0:
        return
    kind = dropped.dtype if np.issubdtype(dropped.dtype, np.inexact) else np.dtype(float)
    noise = 10.0 * max(shape[-2:]) * np.finfo(kind).eps * largest
    above = dropped > noise
    if np.any(above):
        worst = float(np.max(np.where(above, dropped, 0.0)))
        raise SrcadError(
            f"srcad differentiates {name} at constant rank: its rcond (or rtol) drops a "
            f"singular value of {worst:.3g}, which is no rounding error of a zero, and the "
            "derivative of that truncation is not written; pass an rcond below the smallest "
            "singular value to keep it, or zero the singular values yourself (np.linalg.svd)"
        )


def integer_valued(y: Any) -> bool:
    """Whether `y` is an integer or boolean value (a Python one, or a NumPy array or scalar
    of them): a result piecewise constant in the arguments (`x.astype(int)`, `np.sum(x,
    dtype=int)`), whose tangent is zero, never the argument tangent cast to integers."""
    if isinstance(y, np.ndarray | np.generic):
        return y.dtype.kind in "biu"
    return isinstance(y, int)  # bool too


def as_result(y_dot: Any, y: Any) -> Any:
    """`y_dot` as the tangent of the result `y`: broadcast to its shape, in its dtype (a
    complex tangent of a real result stays complex), an array only where `y` is one. A
    result of integers or booleans (`np.sum(x, dtype=int)`) is piecewise constant: its
    tangent is `ZeroTangent()`, never `y_dot` cast to integers."""
    if integer_valued(y):
        return ZeroTangent()
    out = np.asarray(y_dot)
    complex_tangent = np.iscomplexobj(out) and not np.iscomplexobj(y)
    dtype = np.result_type(y, out) if complex_tangent else np.result_type(y)
    if out.shape != np.shape(y):
        out = np.broadcast_to(out, np.shape(y)).astype(dtype)
    out = out.astype(dtype, copy=False)
    return out if isinstance(y, np.ndarray) else out[()]


def _definition_tangent(y_dot: Any, y: Any) -> Any:
    """`as_result` of a definition's tangent, element by element for a tuple result
    (`np.modf`, `divmod`), whose tangent is a plain tuple of theirs; a list's as the
    definition gives it (`np.ndenumerate`'s pairs), and a dict's (`primitives.changed`)."""
    if isinstance(y_dot, AbstractZero) or type(y) is list or isinstance(y, dict):
        return y_dot
    if type(y) is tuple:
        parts = elements_of(y_dot, len(y))
        return tuple(_definition_tangent(unthunk(d), v) for d, v in zip(parts, y, strict=True))
    return as_result(y_dot, y)


def element_cotangents(y_bar: Any, count: int) -> tuple[Any, ...]:
    """The cotangents of the elements of a tuple result, each computed if it was a thunk.

    NumPy's results (`EighResult`, `SVDResult`, ...) are NamedTuples, whose tangents may
    name their fields (`Tangent(SVDResult, S=s_bar)`); fields not named are zero.
    """
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, Tangent) and y_bar.fields:
        parts = tuple(y_bar[name] for name in field_names(y_bar.primal_type))
    else:
        parts = elements_of(y_bar, count)
    return tuple(unthunk(e) for e in parts)


def common_dtype(*values: Any) -> np.dtype[Any]:
    """The dtype of arithmetic among `values`, leaving out symbolic zeros."""
    return np.result_type(*(v for v in values if not isinstance(v, AbstractZero)))


def conj_transpose(x: Any) -> Any:
    """The conjugate transpose of a matrix, or of each matrix in a stack."""
    return conj(np.swapaxes(x, -1, -2))


def reusable(value: Any) -> Any:
    """`value`, or the list of its items where it is an iterator (`reversed(xs)`, a
    generator), which a second reading would find empty: a reverse rule of a forward rule
    reads its arguments twice, and both must see every item (else the second derivative
    through `list(reversed(xs))` is silently 0)."""
    return list(value) if isinstance(value, Iterator) else value


def dense_tangent(dot: Any, primal: Any) -> Any:
    """A tangent as an array: a symbolic zero becomes zeros shaped like `primal` (in its
    float precision), the tangent of a list or tuple the array of its elements' tangents.
    Other tangents pass."""
    dot = unthunk(dot)
    if isinstance(primal, list | tuple):
        dots = elements_of(dot, len(primal))
        return np.array([dense_tangent(d, p) for d, p in zip(dots, primal, strict=True)])
    if isinstance(dot, AbstractZero):
        return np.zeros(np.shape(primal), np.result_type(primal, 1.0))
    return dot


def by_definition(
    rules: RuleSet,
    primal: Any,
    definition: Any,
    name: str = "",
    *,
    numpy_value: bool = True,
    instance_call: bool = False,
) -> None:
    """Register in `rules` the rules of `primal` in both modes as srcad's own rules of the
    plain Python function `definition`, which takes the same arguments and computes the same
    values from functions srcad differentiates to any order: `primal`'s own value (the
    definition's, without `numpy_value`: one that calls the user's function, which runs
    once), the definition's pullback (one cotangent per argument passed) and tangent (in the
    value's dtype). Its second derivatives are the definition's too (`Primitive.definition`).
    The rules are named after `name` (default: `primal`'s name). A class's `__call__`
    (`instance_call`) gives the instance's cotangent in the function's place, as
    `calls.call_rrule` takes a registered one's."""
    name = name or primal_name(primal)

    def definition_rrule(*args: Any, **keywords: Any) -> tuple[Any, Any]:
        y, pullback = CONFIG.rrule_via_ad(definition, *args, **keywords)
        if numpy_value:
            y = primal(*args, **keywords)

        def definition_pullback(y_bar: Any) -> tuple[Any, ...]:
            _, *bars = pullback(y_bar)
            if instance_call:
                return tuple(bars[: len(args)])
            return (NoTangent(), *bars[: len(args)])

        return y, definition_pullback

    def definition_frule(dargs: tuple[Any, ...], *args: Any, **keywords: Any) -> Any:
        y, y_dot = CONFIG.frule_via_ad(dargs, definition, *args, **keywords)
        if numpy_value:
            y = primal(*args, **keywords)
        return y, _definition_tangent(unthunk(y_dot), y)

    rules.rrule(primal)(
        named(definition_rrule, f"{name}_rrule", definition_pullback=f"{name}_pullback")
    )
    rules.frule(primal)(named(definition_frule, f"{name}_frule"))
    rules.primitive(primal, definition=definition)


def items_of_pairs(pairs_bar: Any, count: int, position: int) -> tuple[Any, ...]:
    """The cotangents of element `position` of each tuple in a list of tuples."""
    return tuple(
        bar if isinstance(bar, AbstractZero) else bar[position]
        for bar in elements_of(pairs_bar, count)
    )


def _joins(values: Any, start: tuple[Any, ...], keywords: dict[str, Any]) -> bool:
    """Whether `sum(values, *start, **keywords)` joins lists or tuples end to end (its
    start and its values are: `sum(rows, [])`), where `+` is no addition."""
    first = start[0] if start else keywords.get("start", 0)
    return isinstance(first, list | tuple) and all(isinstance(v, list | tuple) for v in values)


def _pieces(values: Any, start: tuple[Any, ...], keywords: dict[str, Any]) -> list[Any]:
    """The sequences `sum` joins, in order: its start, then each of `values`."""
    return [*start, *([keywords["start"]] if "start" in keywords else []), *values]


def joined_pullback(values: Any, start: tuple[Any, ...], keywords: dict[str, Any]) -> Any:
    """The pullback of `sum(values, *start, **keywords)` where it joins lists or tuples end
    to end (`sum(rows, [])`): each piece gets its own elements' cotangents, never the whole
    sequence's, as `+` of numbers would give; None where the sum adds."""
    if not _joins(values, start, keywords):
        return None
    pieces = _pieces(values, start, keywords)
    total = sum(len(piece) for piece in pieces)

    def joined_sum_pullback(y_bar: Any) -> tuple[Any, ...]:
        bars = tuple(elements_of(unthunk(y_bar), total))
        if len(bars) != total:
            raise ValueError(f"the cotangent of a sequence of {total} has {len(bars)} elements")
        piece_bars, offset = [], 0
        for piece in pieces:
            own = bars[offset : offset + len(piece)]
            offset += len(piece)
            zero = all(isinstance(bar, AbstractZero) for bar in own)
            piece_bars.append(ZeroTangent() if zero else cotangent_of_elements(piece, own))
        values_bar = cotangent_of_elements(values, tuple(piece_bars[len(pieces) - len(values) :]))
        return (NoTangent(), values_bar, *piece_bars[: len(start)])

    return joined_sum_pullback


def joined_tangent(values: Any, start: tuple[Any, ...], keywords: dict[str, Any],
                   dots: tuple[Any, ...], y: Any) -> Any:  # fmt: skip
    """The tangent of `y = sum(values, *start, **keywords)` where it joins lists or tuples,
    from the tangents `dots` of `values` and of a positional start: the pieces' elements'
    in order (a keyword start is a constant); None where the sum adds."""
    if not _joins(values, start, keywords):
        return None
    piece_dots = [*dots[1 : 1 + len(start)], *((ZeroTangent(),) * ("start" in keywords))]
    piece_dots += elements_of(unthunk(dots[0]), len(values))
    element_dots: list[Any] = []
    for piece, dot in zip(_pieces(values, start, keywords), piece_dots, strict=True):
        element_dots += elements_of(unthunk(dot), len(piece))
    if all(isinstance(dot, AbstractZero) for dot in element_dots):
        return ZeroTangent()
    return tuple(element_dots) if isinstance(y, tuple) else element_dots

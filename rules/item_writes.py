"""Rules for `index_update`, the normal form of writing an item into a value the function
made and shares with nothing (`out[i] = v`, `out[:, j] += v`, `d["k"] = v`; see
`passes/checks/fresh_values.py` for the proof and `passes/transforms/to_anf.py` for the
rewrite).

The written item's cotangent goes to the value written (summed over the axes broadcasting
stretched it along); the old value's cotangent is the new one's with the written items
zeroed, as what was there is overwritten. An index that writes one element twice (`out[[0,
0]] = v`) keeps only the last write, which no such pullback can tell: it is refused when the
code runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import MissingRuleError, MutationError
from srcad.primitives import index_update
from srcad.projection import ProjectTo, unbroadcast
from srcad.registry import RuleSet
from srcad.rules._support import cotangent_of_elements, dense_tangent
from srcad.rules.containers import is_basic_index
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("item_writes")

Pullback = Any


def _refuse_repeats(shape: tuple[int, ...], index: Any) -> None:
    """Raise where `index` (integer arrays or lists) writes an element of an array of
    `shape` more than once: Python keeps the last write, which the rules cannot follow."""
    if is_basic_index(index):
        return  # integers, slices, `None` and `...` select each element at most once
    hits = np.zeros(shape, dtype=np.intp)
    np.add.at(hits, index, 1)
    if hits.max(initial=0) > 1:
        raise MutationError(
            "srcad cannot differentiate an item assignment whose index writes an element "
            "more than once (only the last write stays); write each element once, or "
            "accumulate with `np.add.at` into a new array"
        )


def _list_position(items: list[Any], index: Any) -> int:
    if not isinstance(index, int | np.integer) or isinstance(index, bool):
        raise MissingRuleError(
            f"srcad differentiates writing one item of a list (`items[i] = v`), not "
            f"`items[{index!r}] = ...`, which may change its length; build a new list instead"
        )
    return int(index)


def _mapping(tangent: Any) -> dict[Any, Any]:
    """The items of a dict's (co)tangent: a `Tangent` of its fields, or a plain dict."""
    if isinstance(tangent, Tangent):
        return dict(tangent.fields)
    return dict(tangent)


@rules.rrule(index_update)
def index_update_rrule(items: Any, index: Any, value: Any) -> tuple[Any, Pullback]:
    """Reverse rule for `items[index] = value` into an array, a list or a dict."""
    y = index_update(items, index, value)
    project_value = ProjectTo(value)
    if isinstance(items, np.ndarray):
        _refuse_repeats(items.shape, index)
        project_items = ProjectTo(items)
        value_shape = np.shape(value)
        rounded = items.dtype.kind not in "fc"  # an integer array rounds what it is given

        def index_update_pullback(y_bar: Any) -> tuple[Any, Any, Any, Any]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent(), y_bar
            if rounded:
                return NoTangent(), NoTangent(), NoTangent(), ZeroTangent()
            y_bar = np.asarray(y_bar)
            value_bar = np.array(unbroadcast(np.asarray(y_bar[index]), value_shape))
            items_bar = y_bar.copy()
            items_bar[index] = 0
            return NoTangent(), project_items(items_bar), NoTangent(), project_value(value_bar)

        return y, index_update_pullback
    if isinstance(items, list):
        position = _list_position(items, index)
        count = len(items)

        def index_update_list_pullback(y_bar: Any) -> tuple[Any, Any, Any, Any]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar, NoTangent(), y_bar
            bars = list(elements_of(unthunk(y_bar), count))
            value_bar, bars[position] = bars[position], ZeroTangent()
            items_bar = cotangent_of_elements(items, tuple(bars))
            return NoTangent(), items_bar, NoTangent(), project_value(value_bar)

        return y, index_update_list_pullback

    def index_update_dict_pullback(y_bar: Any) -> tuple[Any, Any, Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar, NoTangent(), y_bar
        bars = _mapping(unthunk(y_bar))
        value_bar = bars.pop(index, ZeroTangent())
        items_bar = Tangent.of_mapping(dict, bars) if bars else ZeroTangent()
        return NoTangent(), items_bar, NoTangent(), project_value(value_bar)

    return y, index_update_dict_pullback


@rules.frule(index_update)
def index_update_frule(
    dargs: tuple[Any, ...], items: Any, index: Any, value: Any
) -> tuple[Any, Any]:
    """Forward rule for `items[index] = value`: the same item of the tangent written."""
    y = index_update(items, index, value)
    items_dot, value_dot = unthunk(dargs[1]), unthunk(dargs[3])
    if isinstance(items_dot, AbstractZero) and isinstance(value_dot, AbstractZero):
        return y, ZeroTangent()
    if isinstance(items, np.ndarray):
        _refuse_repeats(items.shape, index)
        if y.dtype.kind not in "fc":
            return y, ZeroTangent()
        y_dot = np.array(dense_tangent(items_dot, items))
        written = dense_tangent(value_dot, value)
        if y_dot.dtype.kind != "c":
            written = np.real(written)  # a real array keeps the real part of what it is given
        y_dot[index] = written
        return y, y_dot
    if isinstance(items, list):
        dots = list(elements_of(items_dot, len(items)))
        dots[_list_position(items, index)] = value_dot
        return y, dots
    fields = {} if isinstance(items_dot, AbstractZero) else _mapping(items_dot)
    fields[index] = value_dot
    return y, Tangent.of_mapping(dict, fields)


def _dense(dot: Any, primal: Any) -> Any:
    """A tangent of `primal` in the form of a value like it: an array (zeros for a
    symbolic zero), a list of its items' tangents, or a dict of them."""
    dot = unthunk(dot)
    if isinstance(primal, list):
        return [_dense(d, p) for d, p in zip(elements_of(dot, len(primal)), primal, strict=True)]
    if isinstance(primal, dict):
        items = {} if isinstance(dot, AbstractZero) else _mapping(dot)
        return {key: _dense(items.get(key, ZeroTangent()), p) for key, p in primal.items()}
    return dense_tangent(dot, primal)


@rules.rrule(index_update_frule)
def index_update_frule_rrule(
    dargs: tuple[Any, ...], items: Any, index: Any, value: Any
) -> tuple[Any, Pullback]:
    """Reverse rule of the forward rule, for second derivatives: the forward rule is linear
    in the tangents, and is `index_update` of them, so both parts pull back through
    `index_update_rrule`."""
    y, y_dot = index_update_frule(dargs, items, index, value)
    _, pullback = index_update_rrule(items, index, value)
    dot_pullback = None
    if not isinstance(y_dot, AbstractZero):
        items_dot, value_dot = _dense(dargs[1], items), _dense(dargs[3], value)
        _, dot_pullback = index_update_rrule(items_dot, index, value_dot)

    def index_update_frule_pullback(bars: Any) -> tuple[Any, ...]:
        y_bar, y_dot_bar = elements_of(bars, 2)
        _, items_bar, _, value_bar = pullback(y_bar)
        items_dot_bar: Any = ZeroTangent()
        value_dot_bar: Any = ZeroTangent()
        if dot_pullback is not None and not isinstance(unthunk(y_dot_bar), AbstractZero):
            _, items_dot_bar, _, value_dot_bar = dot_pullback(y_dot_bar)
        dargs_bar = Tangent(tuple, NoTangent(), items_dot_bar, NoTangent(), value_dot_bar)
        return NoTangent(), dargs_bar, items_bar, NoTangent(), value_bar

    return (y, y_dot), index_update_frule_pullback

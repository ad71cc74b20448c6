"""The builtin `dict` called on a mapping (`dict(params)`, a copy) or on pairs
(`dict(zip(names, values))`): the values move, the keys take no derivative.

A dict's keys are its structure (`grad` and `jvp` perturb its values), so a key computed
from a differentiated value would lose its derivative: a display's is refused where the
function is compiled (E215), and pairs whose keys may be differentiated, floats or
arrays, are refused here, when the call runs (the rule cannot see which were). Where a
key comes twice among the pairs, its last value is the dict's, and the earlier ones get
no cotangent. Keyword entries (`dict(a=x)`) are not differentiated (E211).

The `|` operator (`operator.or_`) too: on two dicts it merges them (`p | {'b': x}`), each
key's value the right one's where both hold it, so that one's derivative moves and the
left one's gets no cotangent; on anything else (masks, ints, sets, a dict's keys) it has
no derivative. Anything else (a mapping of another type beside a dict, an `OrderedDict`,
a `Counter`, whose `|` takes the larger count; an object of a class's own `|`) is refused
where a value may be differentiated: its `|` may not merge so."""

from __future__ import annotations

import operator
import types
from collections.abc import ItemsView, KeysView, Mapping
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import Linearity, RuleSet
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("dicts")
Pullback = Any

_DIFFERENTIABLE_KEYS = (float, complex, np.inexact, np.ndarray)


def _pairs(values: Any) -> list[tuple[Any, Any]]:
    """The pairs `dict(values)` reads, refused where a key may be differentiated."""
    pairs = [tuple(pair) for pair in values]
    for pair in pairs:
        if len(pair) != 2:
            return pairs  # `dict` raises its own error
        if isinstance(pair[0], _DIFFERENTIABLE_KEYS):
            raise UnsupportedCallError(
                f"srcad cannot differentiate dict() of pairs whose key {pair[0]!r} is a "
                "number that may be differentiated: a dict's keys take no derivative; key "
                "it by something not differentiated (a name, a position)"
            )
    return pairs


def _last_places(pairs: list[tuple[Any, Any]]) -> dict[Any, int]:
    """Where each key's value comes from: its last pair."""
    return {pair[0]: position for position, pair in enumerate(pairs)}


@rules.rrule(dict)
def dict_rrule(values: Any = (), **entries: Any) -> tuple[dict[Any, Any], Pullback]:
    if isinstance(values, Mapping):
        y = dict(values, **entries)

        def dict_of_mapping_pullback(y_bar: Any) -> tuple[Any, Any]:
            if isinstance(y_bar, AbstractZero):
                return NoTangent(), y_bar
            bar = unthunk(y_bar)
            read = bar.fields if isinstance(bar, Tangent) else bar
            own = {key: b for key, b in read.items() if key in values and key not in entries}
            return NoTangent(), Tangent.of_mapping(type(values), own)

        return y, dict_of_mapping_pullback
    pairs = _pairs(values)
    y = dict(pairs, **entries)
    places = _last_places(pairs)

    def dict_of_pairs_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        bar = unthunk(y_bar)
        bars: list[Any] = [ZeroTangent()] * len(pairs)
        for key, position in places.items():
            if key not in entries:
                bars[position] = Tangent(tuple, ZeroTangent(), bar[key])
        kind = type(values) if isinstance(values, list | tuple) else tuple
        return NoTangent(), Tangent(kind, *bars)

    return y, dict_of_pairs_pullback


@rules.frule(dict)
def dict_frule(dargs: tuple[Any, ...], values: Any = (), **entries: Any) -> tuple[Any, Any]:
    dot = unthunk(dargs[1]) if len(dargs) > 1 else ZeroTangent()
    if isinstance(values, Mapping):
        y = dict(values, **entries)
        if isinstance(dot, AbstractZero):
            return y, ZeroTangent()
        read = dot.fields if isinstance(dot, Tangent) else dot
        own = {key: d for key, d in read.items() if key in values and key not in entries}
        return y, Tangent.of_mapping(dict, own)
    pairs = _pairs(values)
    y = dict(pairs, **entries)
    if isinstance(dot, AbstractZero):
        return y, ZeroTangent()
    pair_dots = elements_of(dot, len(pairs))
    own = {}
    for key, position in _last_places(pairs).items():
        if key not in entries:
            own[key] = unthunk(elements_of(unthunk(pair_dots[position]), 2)[1])
    return y, Tangent.of_mapping(dict, own)


# What `|` of which has no derivative: masks, ints, sets, a dict's keys, type unions.
_FLAT = (bool, int, np.integer, np.bool_, set, frozenset, KeysView, ItemsView, type,
         types.UnionType)  # fmt: skip


def _flat(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return type(value) is np.ndarray and value.dtype.kind in "biu"
    return isinstance(value, _FLAT)


def _merges(a: Any, b: Any) -> bool:
    """Whether `a | b` merges two dicts (the values of `b` win), or is of values with no
    derivative; refused for anything else (a mapping of another type, an object of a
    class's own `|`), which may do otherwise."""
    if type(a) is dict and type(b) is dict:
        return True
    if _flat(a) and _flat(b):
        return False
    raise UnsupportedCallError(
        f"srcad differentiates `|` of two dicts only (and takes it to have no derivative "
        f"between masks, ints and sets), not of {type(a).__name__} and {type(b).__name__}; "
        "make them dicts first (`dict(a) | dict(b)`)"
    )


def _fields(dot: Any) -> dict[Any, Any] | None:
    """A dict's tangent (or cotangent) as a dict of its values' (missing: zero), or None
    for a symbolic zero."""
    dot = unthunk(dot)
    if isinstance(dot, AbstractZero):
        return None
    return dot.fields if isinstance(dot, Tangent) else dot


@rules.rrule(operator.or_)
def or_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    y = a | b
    if not _merges(a, b):

        def or_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            return NoTangent(), NoTangent(), NoTangent()

        return y, or_pullback

    def merge_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        read = _fields(y_bar)
        if read is None:
            return NoTangent(), y_bar, y_bar
        a_bar = {key: read[key] for key in a if key not in b and key in read}
        b_bar = {key: read[key] for key in b if key in read}
        return NoTangent(), Tangent.of_mapping(dict, a_bar), Tangent.of_mapping(dict, b_bar)

    return y, merge_pullback


@rules.frule(operator.or_)
def or_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    y = a | b
    if not _merges(a, b):
        return y, ZeroTangent()
    a_dot, b_dot = _fields(dargs[1]), _fields(dargs[2])
    if a_dot is None and b_dot is None:
        return y, ZeroTangent()
    own = {}
    for key in y:
        dot = b_dot if key in b else a_dot
        if dot is not None and key in dot:
            own[key] = dot[key]
    return y, Tangent.of_mapping(dict, own)


# They move values: linear in their arguments, for second derivatives.
rules.primitive(dict, linearity=Linearity.LINEAR_IN_ALL)
rules.primitive(operator.or_, linearity=Linearity.LINEAR_IN_ALL)

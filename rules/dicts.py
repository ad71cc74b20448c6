"""The builtin `dict` called on a mapping (`dict(params)`, a copy) or on pairs
(`dict(zip(names, values))`): the values move, the keys take no derivative.

A dict's keys are its structure (`grad` and `jvp` perturb its values), so a key computed
from a differentiated value would lose its derivative: a display's is refused where the
function is compiled (E215), and pairs whose keys may be differentiated, floats or
arrays, are refused here, when the call runs (the rule cannot see which were). Where a
key comes twice among the pairs, its last value is the dict's, and the earlier ones get
no cotangent. Keyword entries (`dict(a=x)`) are not differentiated (E211).

The `|` operator (`operator.or_`) too: on two dicts (`dict`, `OrderedDict`,
`defaultdict`) it merges them (`p | {'b': x}`), each key's value the right one's where
both hold it, so that one's derivative moves and the left one's gets no cotangent; on
masks, ints, sets, types and a dict's keys or items it has no derivative. Anything else (a
`Counter`, whose `|` takes the larger count; an object of a class's own `|`) is refused
where the rule runs: its `|` may not merge so. `dict.fromkeys` (a value at each key) and
the sets and keys of dict comprehensions (no derivative) are here too."""

from __future__ import annotations

import collections
import operator
from collections.abc import ItemsView, KeysView, Mapping
from types import UnionType
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.primitives import dict_key, set_of
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


# It moves values: linear in its argument, for second derivatives.
rules.primitive(dict, linearity=Linearity.LINEAR_IN_ALL)
# A dict comprehension's key, checked (`primitives.dict_key`), and sets: no derivative (a
# set of differentiated values is refused, E215: `operation_rules._active_key`).
rules.non_differentiable(dict_key, set_of, set, frozenset)


def _keys(keys: Any) -> list[Any]:
    """The keys `dict.fromkeys` reads, refused where one may be differentiated."""
    listed = list(keys)
    for key in listed:
        if isinstance(key, _DIFFERENTIABLE_KEYS):
            raise UnsupportedCallError(
                f"srcad cannot differentiate dict.fromkeys of a key {key!r}, a number that "
                "may be differentiated: a dict's keys take no derivative; key it by "
                "something not differentiated (a name, a position)"
            )
    return listed


# One object for the rules and the entry (each read of `dict.fromkeys` makes a new bound
# method, equal to the others).
_FROMKEYS = dict.fromkeys


@rules.rrule(_FROMKEYS)
def fromkeys_rrule(keys: Any, *value: Any) -> tuple[dict[Any, Any], Pullback]:
    """`dict.fromkeys(keys, value)`: `value` at each key, so its cotangent is the sum of
    theirs; the keys take none."""
    y = dict.fromkeys(_keys(keys), *value)

    def fromkeys_pullback(y_bar: Any) -> tuple[Any, ...]:
        bar = unthunk(y_bar)
        total: Any = ZeroTangent()
        if not isinstance(bar, AbstractZero):
            read = bar.fields if isinstance(bar, Tangent) else bar
            for key in y:
                part = unthunk(read.get(key, ZeroTangent()))
                if not isinstance(part, AbstractZero):
                    total = part if isinstance(total, AbstractZero) else total + part
        return (NoTangent(), NoTangent(), *(total for _ in value))

    return y, fromkeys_pullback


@rules.frule(_FROMKEYS)
def fromkeys_frule(dargs: tuple[Any, ...], keys: Any, *value: Any) -> tuple[Any, Any]:
    y = dict.fromkeys(_keys(keys), *value)
    dot = unthunk(dargs[2]) if len(dargs) > 2 else ZeroTangent()
    if isinstance(dot, AbstractZero):
        return y, ZeroTangent()
    return y, Tangent.of_mapping(dict, dict.fromkeys(y, dot))


# It copies its value to each key: linear in it, for second derivatives.
rules.primitive(_FROMKEYS, linearity=Linearity.LINEAR_IN_ALL)

# What `|` takes besides dicts, giving a value with no derivative: booleans and integers
# (bitwise), sets (their union), types (a union type), a dict's keys and items (sets).
# (Not `None`: an exported module cannot import its type, and `|` of it raises anyway.)
_UNDIFFERENTIATED_OR = (bool, int, np.integer, np.bool_, set, frozenset, type, UnionType,
                        KeysView, ItemsView)  # fmt: skip


# The dicts whose `|` merges as a dict's does, the later value winning.
_MERGED = (dict, collections.OrderedDict, collections.defaultdict)


def _undifferentiated_operand(value: Any) -> bool:
    """Whether `|` of `value` has no derivative: an integer or boolean array, or one of
    `_UNDIFFERENTIATED_OR`."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biu"
    return isinstance(value, _UNDIFFERENTIATED_OR)


def _merged_dicts(a: Any, b: Any) -> bool:
    """Whether `a | b` merges two dicts (else it is refused, or has no derivative): dicts
    whose `|` is dict's (not a `Counter`'s, which keeps the larger count)."""
    if type(a) in _MERGED and type(b) in _MERGED:
        return True
    if _undifferentiated_operand(a) and _undifferentiated_operand(b):
        return False
    odd = a if not _undifferentiated_operand(a) else b
    raise UnsupportedCallError(
        f"srcad cannot differentiate `|` of a {type(odd).__name__}: it differentiates `|` of "
        "two dicts (a merge), and takes it as having no derivative for integers, booleans, "
        "sets and types only"
    )


def _mapping_tangent(kind: type, tangent: Any, keys: Any) -> Any:
    """The part of a dict's (co)tangent `tangent` at `keys`, a tangent of a `kind`."""
    if isinstance(tangent, AbstractZero):
        return tangent
    read = tangent.fields if isinstance(tangent, Tangent) else tangent
    return Tangent.of_mapping(kind, {key: t for key, t in read.items() if key in keys})


@rules.rrule(operator.or_)
def or_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    """`a | b`: of two dicts, their merge, whose value at a key is `b`'s where `b` has it,
    else `a`'s; of integers, booleans, sets or types, no derivative."""
    y = a | b
    if not _merged_dicts(a, b):

        def or_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
            return NoTangent(), NoTangent(), NoTangent()

        return y, or_pullback
    only_a = [key for key in a if key not in b]

    def merge_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        bar = unthunk(y_bar)
        a_bar = _mapping_tangent(type(a), bar, only_a)
        return NoTangent(), a_bar, _mapping_tangent(type(b), bar, b)

    return y, merge_pullback


@rules.frule(operator.or_)
def or_frule(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
    y = a | b
    if not _merged_dicts(a, b):
        return y, NoTangent()
    a_dot, b_dot = (unthunk(d) for d in dargs[1:3])
    own = {}
    for key in y:
        dot = b_dot if key in b else a_dot
        if not isinstance(dot, AbstractZero):
            read = dot.fields if isinstance(dot, Tangent) else dot
            own[key] = unthunk(read.get(key, ZeroTangent()))
    return y, Tangent.of_mapping(dict, own) if own else ZeroTangent()


# It moves values: linear in its arguments, for second derivatives.
rules.primitive(operator.or_, linearity=Linearity.LINEAR_IN_ALL)

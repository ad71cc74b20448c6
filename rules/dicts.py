"""The builtin `dict` called on a mapping (`dict(params)`, a copy) or on pairs
(`dict(zip(names, values))`): the values move, the keys take no derivative.

A dict's keys are its structure (`grad` and `jvp` perturb its values), so a key computed
from a differentiated value would lose its derivative: a display's is refused where the
function is compiled (E215), and pairs whose keys may be differentiated, floats or
arrays, are refused here, when the call runs (the rule cannot see which were). Where a
key comes twice among the pairs, its last value is the dict's, and the earlier ones get
no cotangent. Keyword entries (`dict(a=x)`) are not differentiated (E211)."""

from __future__ import annotations

from collections.abc import Mapping
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


# It moves values: linear in its argument, for second derivatives.
rules.primitive(dict, linearity=Linearity.LINEAR_IN_ALL)

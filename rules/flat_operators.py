"""The operators `//`, `&`, `~`, `^`, `<<` and `>>`, and the builtin `round` and
`math.floor`, `math.ceil` and `math.trunc`: piecewise constant on numbers and arrays (a
floor, a mask), so with no derivative there, but a class of the user's may define them
otherwise (`Interval(a, b) & Interval(c, d)` computing its bounds with `max` and `min`, a
`__round__` returning a float of its fields), where a derivative of 0 would be wrong with
no error.

Where activity proves their operands numbers or arrays (`srcad.kinds`), the code computes
them as the primal does, with no derivative (`passes/analyses/activity.py`); elsewhere
these rules run: Python's and NumPy's numbers, arrays, masks, ints, sets and a dict's keys
have a zero derivative, and any other operand is refused where it runs (differentiate
a method of the class, `a.intersection(b)`, which srcad compiles from its source)."""

from __future__ import annotations

import math
import operator
import types
from collections.abc import ItemsView, KeysView
from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.kinds import PROMOTED
from srcad.registry import Linearity, RuleSet
from srcad.tangents import NoTangent, ZeroTangent

rules = RuleSet("flat_operators")
Pullback = Any

FLAT_OPERATORS = (operator.floordiv, operator.and_, operator.invert, operator.xor,
                  operator.lshift, operator.rshift)  # fmt: skip
FLAT_FUNCTIONS = (round, math.floor, math.ceil, math.trunc)
_FLAT = (bool, int, float, np.number, np.bool_, set, frozenset, KeysView, ItemsView, type,
         types.UnionType)  # fmt: skip
_SYMBOLS = {operator.floordiv: "//", operator.and_: "&", operator.invert: "~", operator.xor: "^",
            operator.lshift: "<<", operator.rshift: ">>", round: "round",
            math.floor: "math.floor", math.ceil: "math.ceil", math.trunc: "math.trunc"}  # fmt: skip


def _flat(primal: Any, operands: tuple[Any, ...]) -> None:
    """Refuse operands whose operator may not be Python's or NumPy's own."""
    for value in operands:
        plain = type(value) is np.ndarray if isinstance(value, np.ndarray) else None
        if plain is None:
            plain = isinstance(value, _FLAT) and type(value).__module__ in ("builtins", "numpy")
        if not plain:
            raise UnsupportedCallError(
                f"srcad takes `{_SYMBOLS[primal]}` to have no derivative between numbers, "
                f"arrays, masks and sets, not with {type(value).__name__} operands, whose "
                "class may define it otherwise; call a method of the class that computes it"
            )


def _rules(primal: Any) -> None:
    def flat_rrule(*operands: Any) -> tuple[Any, Pullback]:
        _flat(primal, operands)

        def flat_pullback(y_bar: Any) -> tuple[Any, ...]:
            return (NoTangent(), *(NoTangent() for _ in operands))

        return primal(*operands), flat_pullback

    def flat_frule(dargs: tuple[Any, ...], *operands: Any) -> tuple[Any, Any]:
        _flat(primal, operands)
        return primal(*operands), ZeroTangent()

    if primal is round:  # (`round(x, ndigits)`: `ndigits` by name too)

        def round_rrule(number: Any, ndigits: Any = None) -> tuple[Any, Pullback]:
            _flat(round, (number,))

            def round_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
                return NoTangent(), NoTangent(), NoTangent()

            return round(number, ndigits), round_pullback

        def round_frule(dargs: tuple[Any, ...], number: Any, ndigits: Any = None) -> Any:
            _flat(round, (number,))
            return round(number, ndigits), ZeroTangent()

        rules.rrule(primal)(round_rrule)
        rules.frule(primal)(round_frule)
        return

    name = primal.__name__.strip("_")
    flat_rrule.__name__ = flat_rrule.__qualname__ = f"{name}_rrule"
    flat_frule.__name__ = flat_frule.__qualname__ = f"{name}_frule"
    rules.rrule(primal)(flat_rrule)
    rules.frule(primal)(flat_frule)


for _primal in (*FLAT_OPERATORS, *FLAT_FUNCTIONS):
    _rules(_primal)
# Piecewise constant: the second derivative is 0 too.
rules.primitive(operator.floordiv, result=PROMOTED, linearity=Linearity.PIECEWISE_LINEAR)
for _primal in (*FLAT_OPERATORS[1:], *FLAT_FUNCTIONS):
    rules.primitive(_primal, linearity=Linearity.PIECEWISE_LINEAR)

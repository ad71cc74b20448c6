"""Rules for reading an array element by element in C order: its `.flat` attribute and
`np.ndenumerate`.

srcad reads an array's `x.flat` as `np.ravel(x)`: its items, slices, fancy indices, length
and iteration are the flat iterator's (`x.flat[i]`, `x.flat[1:3]`, `for v in x.flat`), and
linear in `x`. A write through it (`x.flat[i] = v`) is a change in place, refused as any
other (E301); the iterator's own attributes (`.coords`, `.index`, `.base`) are not there.
`.flat` of any other value is a field read, as `getattr` does it.

`np.ndenumerate(x)`, like `enumerate` (`rules/containers.py`), is the list of pairs a `for`
loop walks: each index (a tuple of ints, no derivative) with the element there, from a
plain-NumPy definition (`rules/_support.by_definition`), so that it differentiates to any
order. (`np.nditer`, whose items are writable 0-d views and whose flags choose among
buffering, casting and writing back, has no rule: `docs/refusals.md`, E210.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.projection import ProjectTo
from srcad.registry import RuleSet
from srcad.rules._support import by_definition
from srcad.rules.calls import getattr_frule, getattr_rrule
from srcad.rules.second_order import linear_frule_rrule
from srcad.rules.second_order_calls import getattr_frule_rrule
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk

rules = RuleSet("numpy_flat")

Pullback = Any


def _of_array(x: Any) -> bool:
    return isinstance(x, np.ndarray | np.generic)


@rules.attribute("flat")
def flat_attribute_rrule(x: Any) -> tuple[Any, Pullback]:
    """`x.flat` of an array, as `np.ravel(x)`: the cotangent is reshaped back."""
    if not _of_array(x):
        y, pullback = getattr_rrule(x, "flat")

        def field_flat_pullback(y_bar: Any) -> tuple[Any, Any]:
            return NoTangent(), pullback(y_bar)[1]

        return y, field_flat_pullback
    y = np.ravel(x)
    project_x = ProjectTo(x)

    def flat_attribute_pullback(y_bar: Any) -> tuple[Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return NoTangent(), y_bar
        return NoTangent(), project_x(np.reshape(y_bar, np.shape(x)))

    return y, flat_attribute_pullback


@rules.attribute_frule("flat")
def flat_attribute_frule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
    """`x.flat` of an array, as `np.ravel(x)`: the tangent flattened too."""
    if not _of_array(x):
        return getattr_frule((dargs[0], dargs[1], NoTangent()), x, "flat")
    dot = unthunk(dargs[1])
    y = np.ravel(x)
    return y, ZeroTangent() if isinstance(dot, AbstractZero) else np.ravel(dot)


_LINEAR_FLAT = linear_frule_rrule(flat_attribute_rrule, flat_attribute_frule, "flat")


# Keyed on the forward rule, as `second_order_calls.rules` are: a rule set of their name.
second_order_rules = RuleSet("second_order")


@second_order_rules.rrule(flat_attribute_frule)
def flat_attribute_frule_rrule(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Pullback]:
    """`.flat`'s forward rule's (second derivatives): of an array, a linear function's; of
    any other value, a field read's (`getattr_frule_rrule`)."""
    if _of_array(x):
        linear: tuple[Any, Pullback] = _LINEAR_FLAT(dargs, x)
        return linear
    result, pullback = getattr_frule_rrule((dargs[0], dargs[1], NoTangent()), x, "flat")

    def field_flat_frule_pullback(bars: Any) -> tuple[Any, ...]:
        _, dargs_bar, x_bar, _ = pullback(bars)
        return (NoTangent(), Tangent(tuple, *elements_of(dargs_bar, 3)[:2]), x_bar)

    return result, field_flat_frule_pullback


def indexed_elements(x: Any) -> Any:
    """`np.ndenumerate(x)` as the list of its pairs: each index, and the element there."""
    indices = list(np.ndindex(*np.shape(x)))
    return list(zip(indices, np.ravel(x), strict=True))


by_definition(rules, np.ndenumerate, indexed_elements, numpy_value=False)

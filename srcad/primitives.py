"""Python's syntax-level operations as plain functions, so that rules can be keyed on them."""

from __future__ import annotations

from typing import Any


def make_tuple(*elements: Any) -> tuple[Any, ...]:
    """The primal of a tuple display `(a, b, ...)`."""
    return elements


def iterate(value: Any) -> list[Any]:
    """The primal of iterating in a `for` loop: the items, in order."""
    return list(value)


def unpack(value: Any, count: int) -> tuple[Any, ...]:
    """The primal of `a, b = value`: what Python's unpacking does, as a function."""
    elements = tuple(value)
    if len(elements) != count:
        raise ValueError(
            f"{'too many' if len(elements) > count else 'not enough'} values to unpack"
            f" (expected {count}, got {len(elements)})"
        )
    return elements

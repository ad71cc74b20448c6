"""Arguments and derivatives as lists of leaves, whatever tuples, lists and dicts hold
them: how the benchmark compares, perturbs and converts a case's parameters (a tuple of
weights, a list of layers, a dict) without knowing their structure."""

from __future__ import annotations

from typing import Any

import numpy as np


def leaves(value: Any) -> list[Any]:
    """The arrays and numbers in `value`, in order: tuples and lists in order, dicts by key
    order, anything else is a leaf."""
    if isinstance(value, tuple | list):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, dict):
        return [leaf for key in value for leaf in leaves(value[key])]
    return [value]


def rebuilt(like: Any, new_leaves: list[Any]) -> Any:
    """`like`'s containers holding `new_leaves` (consumed from the front)."""
    if isinstance(like, tuple | list):
        return type(like)(rebuilt(item, new_leaves) for item in like)
    if isinstance(like, dict):
        return {key: rebuilt(like[key], new_leaves) for key in like}
    return new_leaves.pop(0)


def shifted(value: Any, direction: Any, step: float) -> Any:
    """`value + step * direction`, leaf by leaf; a float stays a float, an array keeps its
    dtype."""
    moved = [
        leaf + step * d if isinstance(leaf, float) else (leaf + step * d).astype(leaf.dtype)
        for leaf, d in zip(leaves(value), leaves(direction), strict=True)
    ]
    return rebuilt(value, moved)


def random_like(value: Any, rng: np.random.Generator) -> Any:
    """A standard normal direction with `value`'s structure (floats for floats)."""
    drawn = [
        float(rng.standard_normal())
        if isinstance(leaf, float)
        else rng.standard_normal(np.shape(leaf)).astype(np.asarray(leaf).dtype)
        for leaf in leaves(value)
    ]
    return rebuilt(value, drawn)


def leaves_like(value: Any, like: Any) -> list[Any]:
    """The leaves of `value` read in `like`'s structure: element by element, key by key,
    so that a tool's own structural tangent (srcad's `Tangent`, indexed like the tuple or
    dict it is the tangent of) reads as the containers do; a leaf that is not a number or
    an array (a symbolic zero) reads as zeros shaped like `like`'s leaf."""
    if isinstance(like, tuple | list):
        return [leaf for i, item in enumerate(like) for leaf in leaves_like(value[i], item)]
    if isinstance(like, dict):
        return [leaf for key in like for leaf in leaves_like(value[key], like[key])]
    if isinstance(value, int | float | complex | np.number | np.ndarray):
        return [value]
    if hasattr(value, "__array__") or type(value).__module__.startswith(("torch", "jax")):
        return [value]
    return [np.zeros_like(like)]

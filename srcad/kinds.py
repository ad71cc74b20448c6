"""Kinds: what srcad knows about a value before the code runs, so that it can specialise.

A kind is `(dtype, ndim)`: `("f", 0)` a real float (a Python `float` or a NumPy float64
scalar), `("i", 0)` an int (Python or NumPy, never a bool), `("f", n)` and `("i", n)` a
float64 or integer `ndarray` with `n >= 1` dimensions. Everything else (complex numbers,
float32, bools, lists, 0-d arrays, objects) has no kind, written `None`: code touching it
calls the general rules, which handle any type.

Compiled rules are specialised on the kinds of the arguments they are called with (their
*signature*): where every operand of an operation has a kind, the emitted code can do the
operation's derivative as plain arithmetic, without the rule's projections. The kinds of
the sizes, never the sizes themselves, are part of the signature, so a loop's trip count or
an array's length never causes a recompilation.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

Kind = tuple[str, int]
Signature = tuple[Kind | None, ...]

FLOAT: Kind = ("f", 0)
INT: Kind = ("i", 0)

_SCALARS: dict[type, Kind] = {float: FLOAT, np.float64: FLOAT, int: INT}
_SCALARS.update({t: INT for t in (np.int8, np.int16, np.int32, np.int64, np.intp)})
_SCALARS.update({t: INT for t in (np.uint8, np.uint16, np.uint32, np.uint64)})


def kind_of(value: Any) -> Kind | None:
    """The kind of one value, or None.

    >>> kind_of(1.5), kind_of(np.zeros((2, 3))), kind_of(True), kind_of(np.float32(1))
    (('f', 0), ('f', 2), None, None)
    """
    kind = _SCALARS.get(type(value))
    if kind is not None or type(value) is not np.ndarray:
        return kind
    ndim = value.ndim
    if ndim == 0:
        return None
    code = value.dtype.char
    if code == "d":
        return ("f", ndim)
    if value.dtype.kind in "iu":
        return ("i", ndim)
    return None


def signature(args: tuple[Any, ...]) -> Signature:
    """The kinds of a call's positional arguments."""
    if len(args) == 1:  # the common case, without building a list
        return (kind_of(args[0]),)
    return tuple(map(kind_of, args))


def describe(kind: Kind | None) -> str:
    """A kind in the notation `srcad show --args` reads: `float`, `int[:, :]`, `?`."""
    if kind is None:
        return "?"
    dtype, ndim = kind
    base = "float" if dtype == "f" else "int"
    return base if ndim == 0 else f"{base}[{', '.join([':'] * ndim)}]"


_KIND = re.compile(r"\s*(float|int|\?)\s*(?:\[\s*(:(?:\s*,\s*:)*)\s*\])?\s*")


def parse_signature(text: str) -> Signature:
    """Read `float, float[:], int[:, :], ?` (one kind per positional argument).

    >>> parse_signature("float[:], ?, int")
    (('f', 1), None, ('i', 0))
    """
    kinds: list[Kind | None] = []
    for part in _split(text):
        match = _KIND.fullmatch(part)
        if match is None:
            raise ValueError(
                f"cannot read the argument kind {part.strip()!r}: write float, int, "
                "float[:] (one `:` per dimension), int[:, :], or ? for anything else"
            )
        base, dims = match.groups()
        if base == "?":
            if dims:
                raise ValueError(f"the kind `?` takes no dimensions: {part.strip()!r}")
            kinds.append(None)
            continue
        ndim = dims.count(":") if dims else 0
        kinds.append(("f" if base == "float" else "i", ndim))
    return tuple(kinds)


def _split(text: str) -> list[str]:
    """Split at the commas outside brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip() or parts:
        parts.append(current)
    return parts

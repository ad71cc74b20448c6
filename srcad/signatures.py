"""Argument kinds written as text (`srcad show --args "float[:], int"`): the notation
`srcad.kinds.describe` writes, read back."""

from __future__ import annotations

import re

from srcad.kinds import Kind, Signature

_CODES = {"float": "f", "float32": "f4", "int": "i", "complex": "c", "complex64": "c8"}
_KIND = re.compile(
    r"\s*(float32|float|int|complex64|complex|\?)\s*(?:\[\s*(:(?:\s*,\s*:)*)\s*\])?\s*"
)


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
                "float[:] (one `:` per dimension), int[:, :], float32[:], complex, complex64[:], "
                "or ? for anything else"
            )
        base, dims = match.groups()
        if base == "?":
            if dims:
                raise ValueError(f"the kind `?` takes no dimensions: {part.strip()!r}")
            kinds.append(None)
            continue
        ndim = dims.count(":") if dims else 0
        kinds.append((_CODES[base], ndim))
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

"""Argument kinds written as text (`srcad show --args "float[:], int"`): the notation
`srcad.kinds.describe` writes, read back."""

from __future__ import annotations

import re

from srcad.kinds import ZERO_DS, Kind, Signature

_CODES = {"float": "f", "float32": "f4", "int": "i", "complex": "c", "complex64": "c8"}
_KIND = re.compile(
    r"\s*(float32|float|int|complex64|complex|\?)\s*(?:\[\s*(:(?:\s*,\s*:)*|\(\s*\))\s*\])?\s*"
)
# `float[()]`, `float32[()]`: a 0-d array (`kinds.kind_of` an argument).
_ZERO_D = {(code, 0): kind for kind, (code, _) in ZERO_DS.items()}


def parse_signature(text: str) -> Signature:
    """Read `float, float[:], int[:, :], float[()], ?` (one kind per positional argument).

    >>> parse_signature("float[:], ?, int, float32[()]")
    (('f', 1), None, ('i', 0), ('f40', 0))
    """
    kinds: list[Kind | None] = []
    for part in _split(text):
        match = _KIND.fullmatch(part)
        if match is None:
            raise ValueError(
                f"cannot read the argument kind {part.strip()!r}: write float, int, "
                "float[:] (one `:` per dimension), int[:, :], float32[:], float[()] (a 0-d "
                "array), complex, complex64[:], or ? for anything else"
            )
        base, dims = match.groups()
        if base == "?":
            if dims:
                raise ValueError(f"the kind `?` takes no dimensions: {part.strip()!r}")
            kinds.append(None)
            continue
        if dims and dims.startswith("("):
            if (_CODES[base], 0) not in _ZERO_D:
                raise ValueError(f"no 0-d array of ints has a kind: {part.strip()!r}")
            kinds.append(_ZERO_D[(_CODES[base], 0)])
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

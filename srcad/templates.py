"""Inline derivatives as the rule library states them: per operand of a primitive, a
template of its cotangent, chosen from the operands' kinds (`passes/inlining.py` writes
them into emitted pullbacks)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from srcad.kinds import Kind

# An inline derivative's cotangent templates, chosen from the operands' kinds and their
# values where they are literal numbers (else None); None: none for these operands.
Choose = Callable[[Sequence[Kind], Sequence[Any]], Sequence[str | None] | None]
# The same for a call with constant keyword options (`np.sum(x, axis=1, keepdims=True)`),
# by name: the templates may write the options' values in as literals.
ChooseWithOptions = Callable[
    [Sequence[Kind], Sequence[Any], Mapping[str, Any]], Sequence[str | None] | None
]


@dataclass(frozen=True, init=False)
class Inline:
    """A primitive's derivative as arithmetic that the emitted pullback holds in place of a
    call of its rule's pullback (`passes/inlining.py`), for operands of known kinds (real
    floats and float arrays: no `conj`).

    Per operand, the template of its cotangent (None: it gets none), written with the
    operands `a` and `b` (by position), the result `y` and its cotangent `y_bar`; every
    other name is one of `functions`, which emitted code binds under that name. Where the
    templates depend on the operands, `cotangents` is a function of their kinds and
    constant values (`Choose`). A reduction of an array to a float says by `uniform` what the
    cotangent of `a` is when `y_bar` stands for an array filled with it. `options`, where
    given, chooses the templates of a call with constant keyword options (`axis=1`); a
    call with keywords and no `options` is not inlined. `moving`: the templates only
    hand cotangents between a container and its elements, with no arithmetic on the
    values, so they hold whatever the result's kind (`sum([])` is the int 0, where
    `sum` of floats is a float); the operands' kinds the template is chosen for say what
    the elements are.

    >>> import numpy as np
    >>> Inline("y_bar * cos(a)", cos=np.cos).texts([("f", 1)], [None])
    ['y_bar * cos(a)']
    """

    cotangents: tuple[str | None, ...] | Choose
    functions: Mapping[str, Any]
    uniform: str | None
    options: ChooseWithOptions | None
    moving: bool

    def __init__(self, *cotangents: str | Choose | None, uniform: str | None = None,
                 options: ChooseWithOptions | None = None, moving: bool = False,
                 **functions: Any) -> None:  # fmt: skip
        chosen = cotangents[0] if len(cotangents) == 1 and callable(cotangents[0]) else None
        texts = tuple(c for c in cotangents if c is None or isinstance(c, str))
        object.__setattr__(self, "cotangents", chosen if chosen is not None else texts)
        object.__setattr__(self, "functions", functions)
        object.__setattr__(self, "uniform", uniform)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "moving", moving)

    def texts(self, kinds: Sequence[Kind], constants: Sequence[Any],
              options: Mapping[str, Any] | None = None) -> list[str | None] | None:  # fmt: skip
        """Each operand's cotangent template, for operands of these kinds and (where they
        are literal numbers) values, and the call's constant keyword `options`; or None."""
        if options:
            found = None if self.options is None else self.options(kinds, constants, options)
        elif callable(self.cotangents):
            found = self.cotangents(kinds, constants)
        else:
            found = self.cotangents
        return None if found is None else list(found)

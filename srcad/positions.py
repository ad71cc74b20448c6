"""Keyword arguments that a primitive's rules differentiate where they are passed by
position, and how a call is arranged to pass them so (`ByPosition`)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from srcad.scalar_rules import primal_name

# The defaults `ByPosition` reads from a primal's signature: constants the normal form can
# write (`_NoValue`, NumPy's mark of a parameter left out, is none of them).
_PLAIN_DEFAULTS = (type(None), bool, int, float, str)


@dataclass(frozen=True)
class ByPosition:
    """Keyword arguments of a primitive that its rules differentiate where they are passed
    by position (a library rule's positional arguments are its differentiated ones, its
    keywords options): the normal form passes them so (`np.average(a, weights=w)` is
    called as `np.average(a, None, w)`, `passes/transforms/anf_rewrites.py`), and they
    get cotangents and tangents, in both modes and to second order.

    `parameters`: the primal's positional parameters in order (its positional-only ones
    too: `sum`'s `iterable`), up to the last one differentiated; `differentiated`: those
    a keyword is moved into position for;
    `defaults`: what a parameter before it that the call leaves out is passed as;
    `aliases`: keyword names of positional parameters (`np.clip`'s `min=` for `a_min`);
    `complete`: every one of `parameters` is passed where one is moved (`np.clip(a,
    a_min)` is refused by NumPy: its `a_max` must be passed too).

    >>> import numpy as np
    >>> np_average = ByPosition.of(np.average, "weights")
    >>> np_average.arrangement(1, ["weights", "returned"])
    [(None, None), ('weights', None)]
    >>> np_average.arrangement(1, ["axis"]) is None  # nothing differentiated is moved
    True
    """

    parameters: tuple[str, ...]
    differentiated: frozenset[str]
    defaults: Mapping[str, Any]
    aliases: Mapping[str, str]
    complete: bool = False

    @classmethod
    def of(
        cls,
        function: Any,
        *differentiated: str,
        defaults: Mapping[str, Any] | None = None,
        aliases: Mapping[str, str] | None = None,
        complete: bool = False,
        leading: tuple[str, ...] = (),
    ) -> ByPosition:
        """The entry for `function`, whose keywords `differentiated` its rules take by
        position: its parameters and plain defaults read from its signature, `defaults`
        given for the others (`np.clip`'s bounds, whose default is NumPy's `_NoValue`).
        A builtin whose signature Python cannot read (`np.dot` under NumPy 2.2) takes
        `differentiated` for its first parameters, in order, after the positional-only ones
        named `leading` (`np.bincount`'s `x`)."""
        try:
            parameters = list(inspect.signature(function).parameters.values())
        except ValueError:
            only, kind = inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
            parameters = [inspect.Parameter(name, only) for name in leading]
            parameters += [inspect.Parameter(name, kind) for name in differentiated]
        # (A positional-only parameter, `np.bincount`'s `x`, takes its place too.)
        by_place = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        positional = [p for p in parameters if p.kind in by_place]
        names = [p.name for p in positional]
        missing = [d for d in differentiated if d not in names]
        if missing:
            raise ValueError(f"{primal_name(function)} takes no {missing} by position")
        last = max(names.index(d) for d in differentiated)
        found = {
            p.name: p.default
            for p in positional[: last + 1]
            if p.default is not inspect.Parameter.empty and isinstance(p.default, _PLAIN_DEFAULTS)
        }
        found.update(defaults or {})
        return cls(tuple(names[: last + 1]), frozenset(differentiated), found,
                   dict(aliases or {}), complete)  # fmt: skip

    def arrangement(
        self, count: int, keywords: Sequence[str | None]
    ) -> list[tuple[str | None, Any]] | None:
        """For a call with `count` positional arguments and these keywords (None: `**`),
        the arguments to pass by position after those: per position, the keyword moved
        there, or None and the default passed; None where no differentiated keyword is
        moved, or the call cannot be so arranged (`**`, a name given twice, a parameter
        with no default to pass)."""
        if None in keywords:
            return None
        named = {self.aliases.get(k, k): k for k in keywords if k is not None}
        if len(named) < len(keywords):
            return None
        moved = [self.parameters.index(p) for p in named if p in self.differentiated]
        if not moved or min(moved) < count:
            return None
        arranged: list[tuple[str | None, Any]] = []
        end = len(self.parameters) if self.complete else max(moved) + 1
        for parameter in self.parameters[count:end]:
            if parameter in named:
                arranged.append((named[parameter], None))
            elif parameter in self.defaults:
                arranged.append((None, self.defaults[parameter]))
            else:
                return None
        return arranged

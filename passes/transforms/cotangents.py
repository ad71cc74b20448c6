"""Cotangents: the cotangent variables of the pullbacks ReverseAD writes, and which of them
are bound at the point of the pullback being written.

Each name's cotangent lives in one variable, `<name>_bar` (`bar`), in every pullback of
the function. Written from the last statement back, a pullback knows at each point which
of these variables hold a value (`seen`): the others' cotangents are symbolic zeros, so
the first contribution binds the variable instead of adding to it, and a pullback that
never reaches a name passes a zero on. Inside a branch or a loop that is not known when
the code is written, since it depends on what ran: a region (`region`) binds its
cotangents before it starts and resets them where their values are made (`runtime`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import gast

from srcad.kinds import is_real_scalar
from srcad.passes import naming
from srcad.passes.analyses.reverse_index import ReverseIndex
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Context
from srcad.passes.rule_calls import assign, constant
from srcad.syntax import ADD, load, make, store
from srcad.tangents import ZeroTangent


class Cotangents:
    """The cotangent variables of one function's pullbacks (see the module).

    `steps` says where the reverse reads each cotangent again; `kinds` (None where the
    rule is not specialised) which names hold floats, whose cotangents start from 0.0;
    `zero` is the call emitted for a symbolic zero of a tangent type.

    >>> from srcad import syntax
    >>> from srcad.passes.testing import context_for
    >>> from srcad.passes.analyses.reverse_index import ReverseSteps
    >>> tree, ctx = context_for("def f(x):\\n    return x")
    >>> zero = lambda kind: make(gast.Call, func=load(kind.__name__), args=[], keywords=[])
    >>> cotangents = Cotangents(ctx, ctx.analysis(ReverseSteps, tree), {"x"}, None, zero)
    >>> cotangents.start()
    >>> code = []
    >>> cotangents.accumulate("x", load("a"), code)
    >>> cotangents.accumulate("x", load("b"), code)
    >>> print("".join(syntax.unparse(c) for c in code), end="")
    x_bar = a
    x_bar = x_bar + b
    >>> syntax.unparse(cotangents.seed("y")).strip(), cotangents.seen
    ('ZeroTangent()', {'x'})
    """

    def __init__(
        self,
        ctx: Context,
        steps: ReverseIndex,
        active: set[str],
        kinds: ValueKinds | None,
        zero: Callable[[type[Any]], gast.expr],
    ) -> None:
        self.ctx, self.steps, self.active, self.kinds, self.zero = ctx, steps, active, kinds, zero
        self.bars: dict[str, str] = {}
        self.seen: set[str] = set()  # names whose `_bar` holds their cotangent here
        self.runtime: list[set[str]] = []  # per enclosing region: cotangents bound at run time

    def start(self) -> None:
        """At the end of a new pullback: no cotangent is bound yet."""
        self.seen = set()
        self.runtime = []

    def read_later(self, name: str, statement: gast.stmt) -> bool:
        """Whether the reverse may read `name`'s cotangent after reaching `statement`: it
        is a parameter's, or `ReverseIndex.read_later`."""
        return name in self.ctx.request.wrt or self.steps.read_later(name, statement)

    def bar(self, name: str) -> str:
        bar = self.bars.get(name)
        if bar is None:
            bar = self.bars[name] = self.ctx.namer.fresh(naming.bar(name))
        return bar

    def seed(self, name: str) -> gast.expr:
        return load(self.bar(name)) if name in self.seen else self.zero(ZeroTangent)

    def forget(self, names: list[str], statement: gast.stmt) -> list[gast.stmt]:
        """Cotangents of values assigned before `statement` start from zero."""
        code: list[gast.stmt] = []
        for name in names:
            if name in self.seen and name in self.active:
                if not self.is_runtime(name):
                    self.seen.discard(name)
                elif self.read_later(name, statement):
                    code.append(assign(store(self.bar(name)), self.zero_for(name)))
        return code

    @contextmanager
    def region(self, runtime: list[str], out: list[gast.stmt]) -> Iterator[None]:
        """Inside a branch or a loop a cotangent may or may not have been set when the
        reverse reaches a point: the region binds each of `runtime` first (to zero if
        nothing has), accumulates into them, and resets them where their values are made."""
        for name in runtime:
            if name not in self.seen:
                out.append(assign(store(self.bar(name)), self.zero_for(name)))
                self.seen.add(name)
        self.runtime.append(set(runtime))
        yield
        self.runtime.pop()
        self.seen |= set(runtime)

    def is_runtime(self, name: str) -> bool:
        return any(name in names for names in self.runtime)

    def accumulate(self, name: str, value: gast.expr, after: list[gast.stmt]) -> None:
        """Add `value` to `name`'s cotangent (binding it the first time)."""
        bar = self.bar(name)
        if name in self.seen:
            value = make(gast.BinOp, left=load(bar), op=ADD, right=value)
        self.seen.add(name)
        after.append(assign(store(bar), value))

    def contribution(self, name: str, after: list[gast.stmt]) -> gast.expr:
        """Where a pullback's cotangent for `name` goes: its `_bar` the first time, else a
        partial that `after` adds to it."""
        if name not in self.active:
            return store("_")
        if name not in self.seen:
            self.seen.add(name)
            return store(self.bar(name))
        partial = self.ctx.namer.fresh(naming.bar(name))
        total = self.bar(name)
        after.append(
            assign(
                store(total),
                make(gast.BinOp, left=load(total), op=ADD, right=load(partial)),
            )
        )
        return store(partial)

    def zero_for(self, name: str) -> gast.expr:
        """The cotangent `name` starts from: 0.0 where its kind is a float (adding to it is
        then a float addition), else the symbolic zero."""
        if self.kinds is not None and is_real_scalar(self.kinds.kinds.get(name)):
            return constant(0.0)
        return self.zero(ZeroTangent)

    def restart(self, defined: list[str], statement: gast.stmt) -> list[gast.stmt]:
        """Inside a region, an earlier value of a name `statement` assigns starts from zero."""
        code: list[gast.stmt] = []
        for name in defined:
            if name not in self.seen and self.is_runtime(name):
                if self.read_later(name, statement):
                    code.append(assign(store(self.bar(name)), self.zero_for(name)))
                self.seen.add(name)
        return code

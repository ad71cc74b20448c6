"""Unroll: a loop over a short sequence whose length is known when compiling, written out."""

from __future__ import annotations

import copy
import math
from typing import Any

import gast

from srcad import syntax
from srcad.kinds import FLOATS
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.normal_form import COMPOUND, bound_names, walk_statements
from srcad.passes.transforms.constants import reached_by_unread_code, value_of

# The most items a loop written out may have, and the most statements it may then take.
MOST_ITEMS = 8
MOST_STATEMENTS = 64

# The statements a body written out may hold: none that leaves the loop early (`break`,
# `continue`, `return`) or defines a function or class (which reads the loop variable
# when called, not when defined).
_PLAIN = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.If, gast.For, gast.Pass)
# Nor an expression that makes a function, or suspends the function.
_AWAY = (gast.Lambda, gast.Yield, gast.YieldFrom, gast.Await)


class Unroll(Transform):
    """Write out a `for` over a global or closure cell holding a short tuple of floats or
    a tuple or list of parameters, as its body once per item, the loop variable bound to
    the item by its index:

        for c in COEFFICIENTS:          c = COEFFICIENTS[0]
            p = p * x + c         ->    p = p * x + c
                                        c = COEFFICIENTS[1]
                                        p = p * x + c
                                        ...

    The length is a fact the rule's guards prove on entry (`_length`: a tuple of floats
    by its identity, a tuple or list of parameters by its structure, which a list's guard
    reads on every entry), and the function cannot change the container while it runs
    (`Mutations`). `Constants`, next, reads each item once on entry; the items of a tuple
    of finite Python floats, fixed with its identity, are written as literals instead
    (`c = 0.05`: a read and an index fewer per item, `_item`). Likewise a loop over
    a tuple or list display that ToANF bound just before it (`c = 0.5`, `c = y`: its
    elements constants, or names the loop does not bind, so each still holds what the
    display read). The loop's derivative is then straight-line code: no tape, no loop
    back. Each copy of the body gets its own ToANF temporaries (`_temporaries`). As
    Python's `for`, the variable keeps the last item after the loop, and no item binds
    nothing; a variable never read (`for _ in`) is not bound at all.

    Only a loop with no `else`, whose body has no `break`, `continue`, `return`, nested
    function, lambda or `yield`, of at most `MOST_ITEMS` items and `MOST_STATEMENTS`
    statements written out; others are left as they are. Inner loops are written out
    first, so a loop nest over two short constants becomes straight-line code.
    """

    requires = (Scopes,)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        self.ctx = ctx
        self.bindings = ctx.analysis_result(Scopes).bindings
        self.function = function_of(tree)
        code = ctx.source.func.__code__
        self.own = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
        self.loads: dict[str, int] = {}  # how often each name is read in the function
        for node in syntax.walk(self.function):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                self.loads[node.id] = self.loads.get(node.id, 0) + 1
        return self._block(self.function.body)

    def _block(self, body: list[gast.stmt]) -> bool:
        """Write out the loops of `body`, those of the blocks inside it first."""
        changed = False
        index = 0
        while index < len(body):
            statement: Any = body[index]
            if type(statement) in COMPOUND:
                for block in (statement.body, getattr(statement, "orelse", [])):
                    changed |= self._block(block)
            before = body[index - 1] if index else None
            written = None
            if isinstance(statement, gast.For):
                written = self._written_out(statement, before)
            if written is None:
                index += 1
                continue
            replaces_before, statements = written
            start = index - 1 if replaces_before else index
            body[start : index + 1] = statements
            index = start + len(statements)
            changed = True
        return changed

    def _written_out(
        self, loop: gast.For, before: gast.stmt | None
    ) -> tuple[bool, list[gast.stmt]] | None:
        """The statements replacing `loop` (and the statement before it, where that made
        the tuple or list display it iterates over), or None to leave it."""
        iterated = loop.iter
        if loop.orelse or not isinstance(iterated, gast.Name) or not _plain(loop.body):
            return None
        made = self._made(iterated.id, before, loop)
        if made is not None:
            items: list[gast.expr] | None = made
        elif self.bindings.get(iterated) in ("global", "closure"):
            length = self._length(iterated.id)
            items = None if length is None else [self._item(iterated.id, k) for k in range(length)]
        else:
            return None
        size = sum(1 for _ in walk_statements(loop.body))
        if items is None or len(items) > MOST_ITEMS or len(items) * (size + 1) > MOST_STATEMENTS:
            return None
        temporaries = self._temporaries(loop)
        written: list[gast.stmt] = []
        target = loop.target
        unread = isinstance(target, gast.Name) and target.id not in self.loads  # `for _ in`
        for item in items:
            read = gast.Assign(targets=[target], value=item, type_comment=None)
            gast.copy_location(read, loop)  # where the pullback's comments point
            copied = copy.deepcopy(loop.body if unread else [read, *loop.body])
            fresh = {name: self.ctx.namer.fresh(name) for name in temporaries}
            for statement in copied:
                for node in syntax.walk(statement):
                    if isinstance(node, gast.Name) and node.id in fresh:
                        node.id = fresh[node.id]
            written += copied
        return made is not None, written

    def _made(self, name: str, before: gast.stmt | None, loop: gast.For) -> Any:
        """The items of the tuple or list display (`(0.5, -1.0, a)`: constants and names
        the loop binds none of) that `before` binds to `name`, read by the loop alone; or
        None. (Not yet `range` of a constant: the tests of loop tapes use such loops.)"""
        if not (
            isinstance(before, gast.Assign)
            and isinstance(before.targets[0], gast.Name)
            and before.targets[0].id == name
            and self.loads.get(name) == 1
        ):
            return None
        value = before.value
        if isinstance(value, gast.Tuple | gast.List):
            bound = {n for st in walk_statements([loop]) for n in bound_names(st)}
            for element in value.elts:
                if isinstance(element, gast.Name) and element.id not in bound:
                    continue
                negated = isinstance(element, gast.UnaryOp) and isinstance(element.op, gast.USub)
                if not isinstance(element.operand if negated else element, gast.Constant):
                    return None
            return [copy.deepcopy(element) for element in value.elts]
        return None

    def _length(self, name: str) -> int | None:
        """The length of the tuple of floats (`constant_kind`: guarded by its identity) or
        tuple or list of parameters (`constant_structure`: guarded by its structure, on
        every entry) that the global or closure cell `name` holds, or None."""
        source = self.ctx.source
        kind = source.constant_kind([name])
        if kind == FLOATS:  # (`resolve` records the same fact, its identity, again)
            return len(source.resolve([name])[1])
        structure = source.constant_structure([name]) if kind is None else None
        if structure is None or not structure.positional:
            return None
        if structure.container is not tuple and self._changed_elsewhere(name):
            return None
        return len(structure.items)

    def _item(self, name: str, index: int) -> gast.expr:
        """Item `index` of the global or closure cell `name`: the float itself where it
        holds a tuple of Python floats, whose identity the rule's guards prove on entry
        (a tuple's items never change, nor does a float), finite (written as a literal);
        else `name[index]`, read on entry."""
        source = self.ctx.source
        if source.constant_kind([name]) == FLOATS:
            value = source.resolve([name])[1][index]
            if type(value) is float and math.isfinite(value):
                if math.copysign(1.0, value) > 0.0:
                    return gast.Constant(value=value, kind=None)
                literal = gast.Constant(value=-value, kind=None)  # (`-0.3` parses so)
                return gast.UnaryOp(op=gast.USub(), operand=literal)
        return _item(name, index)

    def _changed_elsewhere(self, name: str) -> bool:
        """Whether a function srcad does not read (a rule covers it, or it is marked
        non-differentiable) names the list `name` holds: a call of it could change its
        length while the loop runs, as `Constants` finds for its items."""
        covered = self.ctx.services.registry.covered()
        return id(value_of(self.ctx, [name])) in reached_by_unread_code(covered)

    def _temporaries(self, loop: gast.For) -> set[str]:
        """The names `ToANF` made that the loop binds and nothing outside it reads: each
        copy of the body gets its own (ReverseAD takes such a name to be bound once,
        outside a loop: an `if`'s condition is read again in the pullback)."""
        bound = {n for statement in walk_statements([loop]) for n in bound_names(statement)}
        inside = {id(node) for node in syntax.walk(loop)}
        outside = {
            node.id
            for node in syntax.walk(self.function)
            if isinstance(node, gast.Name) and id(node) not in inside
        }
        return bound - self.own - outside


def _item(name: str, index: int) -> gast.Subscript:
    """`name[index]`."""
    read = gast.Name(name, gast.Load(), None, None)
    return gast.Subscript(read, gast.Constant(value=index, kind=None), gast.Load())


def _plain(body: list[gast.stmt]) -> bool:
    """Whether `body` can be written out once per item (see `_PLAIN`, `_AWAY`)."""
    for statement in walk_statements(body):
        if not isinstance(statement, _PLAIN):
            return False
        if isinstance(statement, gast.For) and statement.orelse:
            return False
        if any(isinstance(node, _AWAY) for node in syntax.walk(statement)):
            return False
    return True

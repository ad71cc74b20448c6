"""Statements: every statement of a normal-form function in source order, where each one
sits (the branches and the loop around it, the statements nested in it), and where each
name is assigned.

ReverseAD asks these questions of every statement, many times over: whether two
statements can both run in one pass through an `if`, which loop a `break` leaves, whether
a value the pullback reads is assigned again before the pullback reads it. Read off one
index, built in one walk of the tree, each answer is a lookup rather than a walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from srcad.passes.analyses.activity import target_names
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.normal_form import COMPOUND

_LOOPS = (gast.For, gast.While)  # a tuple: a union would be built anew on each test


@dataclass
class StatementIndex:
    """The index `Statements` builds. Positions are indices into `statements`, which lists
    every statement of the function (not of functions nested in it) as `walk_statements`
    gives them: a statement and those nested in it are consecutive."""

    statements: list[gast.stmt] = field(default_factory=list)
    order: dict[int, int] = field(default_factory=dict)  # a statement's id -> its position
    # Per statement, the branch of each `if` around it (by the `if`'s id): two statements
    # in different branches of one `if` never both run in one pass through it.
    branches: list[dict[int, str]] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)  # per statement, its last nested one's position
    loop_around: dict[int, gast.stmt | None] = field(default_factory=dict)  # by statement id
    # The span of each loop, by its position: the loop's, and its body's last statement's.
    loop_spans: dict[int, tuple[int, int]] = field(default_factory=dict)
    # name -> (position, the loop around) of each assignment; a parameter's value counts
    # as an assignment at position -1, outside loops.
    definitions: dict[str, list[tuple[int, gast.stmt | None]]] = field(default_factory=dict)
    # The statements assigning each name.
    defining: dict[str, list[gast.stmt]] = field(default_factory=dict)
    targets: dict[gast.stmt, list[str]] = field(default_factory=dict)  # each `Assign`'s and `For`'s
    returns: list[gast.Return] = field(default_factory=list)

    def position(self, statement: gast.stmt) -> int:
        return self.order[id(statement)]

    def nested(self, block: list[gast.stmt]) -> list[gast.stmt]:
        """`walk_statements(block)`, read off the index."""
        if len(block) == 1:
            k = self.order[id(block[0])]
            return self.statements[k : self.ends[k] + 1]
        out: list[gast.stmt] = []
        for statement in block:
            k = self.order[id(statement)]
            out += self.statements[k : self.ends[k] + 1]
        return out

    def exclusive(self, one: int, other: int) -> bool:
        """Whether the statements at these positions are in different branches of an `if`."""
        mine, theirs = self.branches[one], self.branches[other]
        return any(theirs.get(node, side) != side for node, side in mine.items())

    def span(self, loop: gast.stmt) -> tuple[int, int]:
        """The positions of a loop and of the last statement in it."""
        return self.loop_spans[self.order[id(loop)]]

    def is_parameter(self, name: str) -> bool:
        """Whether `name` is a parameter that no statement assigns."""
        return self.definitions.get(name) == [(-1, None)]


class Statements(Analysis[StatementIndex]):
    """Index the statements of the function (see `StatementIndex`).

    >>> from srcad.passes.testing import context_for
    >>> tree, ctx = context_for('''
    ... def f(x):
    ...     y = x
    ...     for i in range(3):
    ...         if i:
    ...             y = y * x
    ...     return y
    ... ''')
    >>> index = ctx.analysis(Statements, tree)
    >>> [type(s).__name__ for s in index.statements]
    ['Assign', 'For', 'If', 'Assign', 'Return']
    >>> [(k, type(loop).__name__) for k, loop in index.definitions["y"]]
    [(0, 'NoneType'), (3, 'For')]
    >>> index.nested([index.statements[1]]) == index.statements[1:4]
    True
    """

    def run(self, tree: gast.Module, ctx: Context) -> StatementIndex:
        function = function_of(tree)
        index = StatementIndex()
        for arg in function.args.posonlyargs + function.args.args:
            index.definitions.setdefault(arg.id, []).append((-1, None))
        _walk(index, function.body, {}, None)
        return index


def _walk(index: StatementIndex, block: list[gast.stmt], branches: dict[int, str],
          loop: gast.stmt | None) -> None:  # fmt: skip
    """Index the statements of `block`, and those of the blocks they hold, in order.

    A function of its own, not a closure: a closure that calls itself is a reference
    cycle, which kept the index, and the statements it lists, alive until the cycle
    collector ran (`benchmarks/profile_compile.py --phases` of robust_fit_loss: the
    collector's time is counted in whichever phase it interrupts)."""
    statements, order, ends = index.statements, index.order, index.ends
    definitions, defining, targets = index.definitions, index.defining, index.targets
    for statement in block:
        k = len(statements)
        statements.append(statement)
        order[id(statement)] = k
        index.branches.append(branches)
        ends.append(k)
        index.loop_around[id(statement)] = loop
        if isinstance(statement, gast.Assign):
            names = targets[statement] = target_names(statement.targets[0])
            place = (k, loop)
        elif isinstance(statement, gast.For):  # assigned by each iteration
            names = targets[statement] = target_names(statement.target)
            place = (k, statement)
        else:
            names = []
            if isinstance(statement, gast.Return):
                index.returns.append(statement)
        for name in names:
            definitions.setdefault(name, []).append(place)
            defining.setdefault(name, []).append(statement)
        if type(statement) not in COMPOUND:
            continue  # nothing nested, or a function's own statements
        if isinstance(statement, gast.If):
            _walk(index, statement.body, {**branches, id(statement): "body"}, loop)
            _walk(index, statement.orelse, {**branches, id(statement): "orelse"}, loop)
        elif isinstance(statement, _LOOPS):
            _walk(index, statement.body, branches, statement)
            index.loop_spans[k] = (k, len(statements) - 1)
            _walk(index, statement.orelse, branches, statement)
        else:
            _walk(index, getattr(statement, "body", []), branches, loop)
            _walk(index, getattr(statement, "orelse", []), branches, loop)
        ends[k] = len(statements) - 1

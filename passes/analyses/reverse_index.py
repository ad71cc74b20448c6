"""ReverseSteps: what the reverse sweep does at each statement, found in one pass in
source order.

Writing a pullback, ReverseAD asks of whole blocks whether their reverse does anything
(an empty branch or loop is left out), which cotangents it reads or writes (those are
bound before a branch or a loop, since either may not run), and, at a reset, whether any
earlier statement reads a name's cotangent again. Counting and listing these per
statement once lets each question be read off by position, without walking the block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from srcad.passes.analyses.activity import Activity
from srcad.passes.analyses.needed_cotangents import NeededCotangents
from srcad.passes.analyses.operation_rules import OperationRules
from srcad.passes.analyses.statement_index import StatementIndex, Statements
from srcad.passes.base import Analysis, Context

_BINDING = (gast.Assign, gast.For)  # a tuple: a union would be built anew on each test


@dataclass
class ReverseIndex:
    """What `ReverseSteps` finds, per statement of `index` (a list is by position)."""

    index: StatementIndex
    # Whether the reverse differentiates through each statement: it has a rule (or copies
    # an active name) and assigns a name some cotangent needs.
    differentiated: dict[gast.stmt, bool] = field(default_factory=dict)
    # Where each cotangent is read: the statements differentiating through each name or
    # assigning it (the reverse of an assignment reads its target's cotangent).
    uses: dict[str, list[int]] = field(default_factory=dict)
    # How many statements before each position have a reverse that does something, and
    # one more entry for the end.
    with_content: list[int] = field(default_factory=lambda: [0])
    # The names with cotangents that each statement assigns a value with no derivative
    # (`r = clip`, `for r in constants`): the reverse resets their cotangents there, or an
    # earlier value of the name would receive what the later one was owed.
    overwritten: dict[gast.stmt, list[str]] = field(default_factory=dict)
    touches: list[list[str]] = field(default_factory=list)  # the cotangents each reads or writes
    # The names of each differentiated assignment's operands (`Needed.operand_names`).
    operand_names: dict[gast.stmt, list[str]] = field(default_factory=dict)

    def read_later(self, name: str, statement: gast.stmt) -> bool:
        """Whether the reverse may read `name`'s cotangent after reaching `statement`:
        something before it in the source (or anywhere in a loop around it or that it is,
        for earlier iterations) differentiates through `name` or assigns it. (A
        parameter's cotangent is always read: the caller asks that of `ctx.request.wrt` first.)"""
        index = self.index
        k = index.order[id(statement)]
        uses = self.uses.get(name, [])
        if any(u < k and not index.exclusive(u, k) for u in uses):
            return True
        return any(
            start <= k <= end and any(start <= u <= end for u in uses)
            for start, end in index.loop_spans.values()
        )

    def has_content(self, statements: list[gast.stmt]) -> bool:
        """Whether the reverse of `statements` (and those nested in them) does anything:
        differentiates through one, or resets a cotangent where one overwrites a name."""
        counts, index = self.with_content, self.index
        for statement in statements:
            k = index.order[id(statement)]
            if counts[index.ends[k] + 1] > counts[k]:
                return True
        return False

    def touched(self, statements: list[gast.stmt], active: set[str]) -> list[str]:
        """Active names whose cotangents the reverse of `statements` reads or writes."""
        touched: list[str] = []
        index = self.index
        for statement in statements:  # each with those nested in it
            k = index.order[id(statement)]
            for names in self.touches[k : index.ends[k] + 1]:
                touched += names
        return [n for n in dict.fromkeys(touched) if n in active]

    def iteration_locals(self, loop: gast.For | gast.While) -> set[str]:
        """Names each iteration of `loop` assigns before any use: unless the reverse reads
        them after the loop, their cotangents live within one iteration's reverse."""
        targets, differentiated = self.index.targets, self.differentiated
        defined = set(targets[loop]) if isinstance(loop, gast.For) else set()
        exposed: set[str] = set()
        for top in loop.body:
            for inner in self.index.nested([top]):
                if isinstance(inner, gast.Assign) and differentiated[inner]:
                    exposed |= set(self.operand_names[inner]) - defined
                elif isinstance(inner, gast.For) and isinstance(inner.iter, gast.Name):
                    exposed |= {inner.iter.id} - defined
            if isinstance(top, gast.Assign):
                defined |= set(targets[top])
        nested = {
            n
            for top in loop.body
            if not isinstance(top, gast.Assign)
            for inner in self.index.nested([top])
            for n in (targets[inner] if isinstance(inner, gast.Assign) else [])
        }
        return defined - exposed - nested


class ReverseSteps(Analysis[ReverseIndex]):
    """Index what the reverse does at each statement (see `ReverseIndex`).

    >>> from srcad.passes.testing import context_for
    >>> tree, ctx = context_for('''
    ... def f(x):
    ...     n = len(x)
    ...     y = np.sin(x)
    ...     if n:
    ...         y = y * 2.0
    ...     return y
    ... ''')
    >>> steps = ctx.analysis(ReverseSteps, tree)
    >>> [steps.differentiated[s] for s in steps.index.statements]
    [False, True, False, True, False]
    >>> statements = steps.index.statements
    >>> steps.has_content([statements[0]]), steps.has_content([statements[2]])
    (False, True)
    >>> steps.touched([statements[2]], ctx.analysis(Activity, tree))
    ['y']
    """

    requires = (Activity, OperationRules, Statements, NeededCotangents)

    def run(self, tree: gast.Module, ctx: Context) -> ReverseIndex:
        index = ctx.analysis(Statements, tree)
        needed = ctx.analysis(NeededCotangents, tree)
        rules = ctx.analysis(OperationRules, tree).rules
        result = ReverseIndex(index, operand_names=needed.operand_names)
        names, targets = needed.names, index.targets
        for k, statement in enumerate(index.statements):
            own = result.differentiated[statement] = (
                statement in needed.candidates and not names.isdisjoint(targets[statement])
            )
            used: list[str] = []
            if isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name):
                used = [statement.iter.id]
                if own:
                    used += targets[statement]
            elif isinstance(statement, gast.Assign) and own:
                used = [*needed.operand_names[statement], *targets[statement]]
            for name in used:
                result.uses.setdefault(name, []).append(k)
            # A value with no derivative resets the cotangents of the names it assigns.
            overwritten: list[str] = []
            if not own and type(statement) in _BINDING:
                overwritten = [n for n in targets[statement] if n in names]
            result.overwritten[statement] = overwritten
            if isinstance(statement, gast.For) and statement in rules:
                assert isinstance(statement.iter, gast.Name)
                result.touches.append([*targets[statement], statement.iter.id])
            elif isinstance(statement, gast.Assign) and own:
                operands = needed.operand_names[statement]
                result.touches.append([*targets[statement], *operands])
            else:
                result.touches.append(overwritten)
            result.with_content.append(result.with_content[-1] + (own or bool(overwritten)))
        return result

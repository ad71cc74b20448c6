"""NeededCotangents: the names whose cotangents some pullback computes.

A result's cotangent flows back through every statement that has a rule (or copies an
active name) to the names that statement reads. Only the names that flow reaches need
cotangents: ReverseAD differentiates a statement only where it assigns one of them, and
leaves every other statement as it runs. Found once, by following what each assignment
reads back from the returned names, ignoring statement order (as `Activity` does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from srcad.passes.analyses.activity import Activity
from srcad.passes.analyses.operation_rules import OperationRules
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.analyses.statement_index import Statements
from srcad.passes.base import Analysis, Context
from srcad.passes.checks.callees import Callees
from srcad.passes.normal_form import is_copy
from srcad.passes.rule_calls import operands


@dataclass
class Needed:
    """What `NeededCotangents` finds."""

    names: set[str] = field(default_factory=set)  # the names whose cotangents are computed
    # The statements a cotangent may flow through: those with rules, and active copies.
    candidates: set[gast.stmt] = field(default_factory=set)
    # The names of each candidate assignment's operands (`RuleCalls._operands`).
    operand_names: dict[gast.stmt, list[str]] = field(default_factory=dict)


class NeededCotangents(Analysis[Needed]):
    """The names a result's cotangent reaches (see the module's docstring).

    >>> from srcad.passes.testing import context_for
    >>> tree, ctx = context_for('''
    ... def f(x, y):
    ...     a = np.sin(x)
    ...     b = np.cos(y)
    ...     c = a * 2.0
    ...     return c
    ... ''')
    >>> sorted(ctx.analysis(NeededCotangents, tree).names)
    ['a', 'c', 'x']
    """

    requires = (Activity, OperationRules, Statements)

    def run(self, tree: gast.Module, ctx: Context) -> Needed:
        active = ctx.analysis(Activity, tree)
        rules = ctx.analysis(OperationRules, tree).rules
        callees = ctx.analysis(Callees, tree).callees
        outer = ctx.analysis(Scopes, tree).capturable
        index = ctx.analysis(Statements, tree)
        result = Needed()
        needed = result.names
        needed.update(
            r.value.id
            for r in index.returns
            if isinstance(r.value, gast.Name) and r.value.id in active
        )
        feeds: dict[str, list[set[str]]] = {}  # a target -> the names each assignment reads
        for statement in index.statements:
            if is_copy(statement):
                assert isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Name)
                if statement.value.id not in active:
                    continue
            elif statement not in rules:
                continue
            result.candidates.add(statement)
            if isinstance(statement, gast.For):
                read = {statement.iter.id}
            else:
                assert isinstance(statement, gast.Assign)
                names = [n.id for n in operands(statement, callees, outer, active)]
                result.operand_names[statement] = names
                read = active.intersection(names)
            for target in index.targets[statement]:
                feeds.setdefault(target, []).append(read)
        todo = list(needed)
        while todo:
            for read in feeds.get(todo.pop(), ()):
                todo += read - needed
                needed |= read
        return result

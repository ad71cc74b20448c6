"""UniformCotangents: the names whose cotangents may be uniform floats.

The cotangent of `s = np.sum(a)` is an array of `a`'s shape filled with `s_bar`. Kept as
the float `s_bar` itself (a *uniform* cotangent, see `inlining.Plan`), it passes through
elementwise operations that multiply it by floats only, and is expanded to an array only
where it meets one: that saves whole-array operations in the pullback. This analysis
finds, from each inlined reduction, the names such a float reaches, and keeps a
reduction's cotangent uniform only where every statement it reaches handles that (an
inlined elementwise operation or reduction, a copy, indexing into a buffer) and it
escapes nowhere: not returned, not read by a nested function, not a parameter assigned
again. A float operand (`x + b`) is where it stops: the cotangent written for it, summed
over the elements it stood for (`sum_to(y_bar, b, y)`), is its whole cotangent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from srcad.kinds import is_real_scalar
from srcad.passes.analyses.activity import Activity
from srcad.passes.analyses.inline_plans import InlinePlans
from srcad.passes.analyses.operation_rules import OperationRules
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.analyses.statement_index import StatementIndex, Statements
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Analysis, Context
from srcad.passes.checks.callees import Callees
from srcad.passes.inlining import Plan, index_adjoint, repeated_index_adjoint
from srcad.passes.normal_form import is_copy
from srcad.passes.rule_calls import captured_names


@dataclass
class Uniform:
    """What `UniformCotangents` finds."""

    names: set[str] = field(default_factory=set)  # names whose cotangents may be uniform
    reductions: set[gast.stmt] = field(default_factory=set)  # the reductions that seed them


class UniformCotangents(Analysis[Uniform]):
    """The names a uniform cotangent reaches from each inlined reduction (see the module).

    >>> from srcad.passes.testing import context_for
    >>> tree, ctx = context_for('''
    ... def f(x):
    ...     y = x * 2.0
    ...     s = np.sum(y)
    ...     return s
    ... ''', kinds="float[:]")
    >>> uniform = ctx.analysis(UniformCotangents, tree)
    >>> sorted(uniform.names), [s.targets[0].id for s in uniform.reductions]
    (['x', 'y'], ['s'])
    """

    requires = (InlinePlans, Statements)

    def run(self, tree: gast.Module, ctx: Context) -> Uniform:
        found = ctx.analysis(InlinePlans, tree)
        result = Uniform()
        if not found.plans:
            return result
        index = ctx.analysis(Statements, tree)
        active = ctx.analysis(Activity, tree)
        callees = ctx.analysis(Callees, tree).callees
        outer = ctx.analysis(Scopes, tree).capturable
        rules = ctx.analysis(OperationRules, tree).rules
        # What escapes: the results, and what nested functions read.
        escaping = {r.value.id for r in index.returns if isinstance(r.value, gast.Name)}
        escaping |= {c for s in rules for c in captured_names(s, callees, outer, active)}
        escaping |= set(ctx.request.captured)
        assert found.kinds is not None
        for statement, plan in found.plans.items():
            if plan.reduction is not None and plan.texts[0] is not None:
                operand = plan.operands[0]
                assert isinstance(operand, gast.Name)
                reached = _reached(operand.id, index, found.plans, found.kinds, escaping)
                if reached is not None:
                    result.names |= reached
                    result.reductions.add(statement)
        return result


def _reached(start: str, index: StatementIndex, plans: dict[gast.stmt, Plan],
             kinds: ValueKinds, escaping: set[str]) -> set[str] | None:  # fmt: skip
    """The names a uniform cotangent of `start` reaches through elementwise operations,
    if every one of them handles a uniform cotangent; else None."""
    reached, pending = {start}, [start]
    while pending:
        name = pending.pop()
        if name in escaping:
            return None
        definitions = index.defining.get(name, [])
        if index.definitions.get(name, [(-1, None)])[0][0] == -1 and definitions:
            return None  # a parameter assigned again
        for statement in definitions:
            plan = plans.get(statement)
            if is_copy(statement):
                assert isinstance(statement, gast.Assign)
                assert isinstance(statement.value, gast.Name)
                more = {statement.value.id}
            elif plan is not None and plan.elementwise:
                more = plan.passes_uniform
            elif plan is not None and plan.reduction is not None:
                more = set()  # a float's uniform cotangent is the float itself
            elif isinstance(statement, gast.Assign) and _indexing(statement, kinds):
                more = set()  # written into a buffer or zeros: broadcast there
            else:
                return None
            for other in more - reached:
                if is_real_scalar(kinds.kinds.get(other)):
                    continue  # a float's cotangent, summed over what it stood for, is exact
                reached.add(other)
                pending.append(other)
    return reached


def _indexing(statement: gast.Assign, kinds: ValueKinds) -> bool:
    """Whether `statement` indexes an array with an inlined derivative (`index_adjoint`)."""
    value = statement.value
    return (
        isinstance(value, gast.Subscript)
        and isinstance(value.value, gast.Name)
        and (
            index_adjoint(value, kinds.of) is not None
            or repeated_index_adjoint(value, kinds.of) is not None
        )
    )

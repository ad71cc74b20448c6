"""InlinePlans: which differentiated assignments get their derivative inlined, and how.

Where the kinds of the arguments are known (a specialised rule, optimised), an
elementwise operation, a matrix product or a reduction of floats need not call its rule:
its cotangents are a few arithmetic operations on the seed (`passes/inlining.py`'s
templates), written into the pullback in place of a call of the rule's pullback. The plan
of each such statement says which template, which values the derivative reads, and
whether a uniform cotangent passes through it (`UniformCotangents`). Indexing is inlined
too, but decided when it is emitted (`inlining.index_adjoint`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from srcad.kinds import FLOAT, Kind, is_float, is_inexact, list_item
from srcad.passes.analyses.activity import Activity
from srcad.passes.analyses.needed_cotangents import NeededCotangents
from srcad.passes.analyses.operation_rules import OperationRules
from srcad.passes.analyses.reverse_index import ReverseSteps
from srcad.passes.analyses.value_kinds import ValueKinds, constant_options
from srcad.passes.base import Analysis, Context
from srcad.passes.checks.callees import Callees
from srcad.passes.inlining import Plan, adjoint_of
from srcad.passes.rule_calls import rule_arguments

_COPY_OR_INDEX = (gast.Name, gast.Subscript)  # the values of `name = other` and `y = a[i]`


@dataclass
class Plans:
    """What `InlinePlans` finds. `kinds` is None where nothing is inlined: the rule is
    not specialised for argument kinds, or not optimised."""

    kinds: ValueKinds | None = None
    # The plan of each assignment whose derivative is inlined. ReverseAD completes a plan
    # as it emits the statement (`Plan.uniform_reads`).
    plans: dict[gast.stmt, Plan] = field(default_factory=dict)


class InlinePlans(Analysis[Plans]):
    """Plan the inlined derivative of each differentiated assignment that has one.

    >>> from srcad.passes.testing import context_for
    >>> tree, ctx = context_for('''
    ... def f(x):
    ...     y = np.sin(x)
    ...     z = y[0]
    ...     return z
    ... ''', kinds="float[:]")
    >>> found = ctx.analysis(InlinePlans, tree)
    >>> [(s.targets[0].id, plan.texts, plan.reads) for s, plan in found.plans.items()]
    [('y', ['y_bar * cos(a)'], {'a': 'x'})]
    """

    requires = (Activity, OperationRules, NeededCotangents, ReverseSteps)

    def run(self, tree: gast.Module, ctx: Context) -> Plans:
        if not (ctx.request.optimise and ctx.request.kinds):
            return Plans()
        kinds = ctx.analysis(ValueKinds, tree)
        active = ctx.analysis(Activity, tree)
        rules = ctx.analysis(OperationRules, tree).rules
        callees = ctx.analysis(Callees, tree).callees
        operand_names = ctx.analysis(NeededCotangents, tree).operand_names
        steps = ctx.analysis(ReverseSteps, tree)
        found = Plans(kinds)
        for statement in steps.index.statements:
            if not isinstance(statement, gast.Assign) or not steps.differentiated[statement]:
                continue
            assert isinstance(statement, gast.Assign)
            target = statement.targets[0]
            if not isinstance(target, gast.Name) or isinstance(statement.value, _COPY_OR_INDEX):
                continue  # unpacking, a copy, or indexing (see `index_adjoint`)
            args, keywords = rule_arguments(statement, callees, rules)
            options = constant_options(keywords)  # `axis=1`, where the entry reads them
            if options is None:
                continue
            # An int's cotangent is NoTangent(): ints pass nothing on; a list of floats'
            # is that of its elements.
            floats = {
                n
                for n in operand_names[statement]
                if n in active and _has_cotangent(kinds.kinds.get(n) or FLOAT)
            }
            primal = rules[statement].primal
            plan = adjoint_of(
                primal,
                statement.value,
                target.id,
                args,
                floats,
                kinds.of,
                ctx.services.registry,
                options,
            )
            if plan is not None:
                found.plans[statement] = plan
        return found


def _has_cotangent(kind: Kind) -> bool:
    """Whether a value of this kind has a cotangent: a real or complex float, or a list of
    real floats."""
    return is_inexact(kind) or is_float(list_item(kind))

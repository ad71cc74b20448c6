"""Activity: which names hold values that depend differentiably on the differentiated inputs."""

from __future__ import annotations

import operator
from typing import Any

import gast

from srcad import syntax
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.callees import Callees
from srcad.passes.scopes import LocalFunction, Scopes
from srcad.passes.to_anf import walk_statements

# The function each operator applies, so that rules and tables can be keyed on it.
OPERATORS: dict[type, Any] = {
    gast.Add: operator.add,
    gast.Sub: operator.sub,
    gast.Mult: operator.mul,
    gast.Div: operator.truediv,
    gast.Pow: operator.pow,
    gast.MatMult: operator.matmul,
    gast.FloorDiv: operator.floordiv,
    gast.Mod: operator.mod,
    gast.USub: operator.neg,
    gast.UAdd: operator.pos,
    gast.BitOr: operator.or_,
    gast.BitAnd: operator.and_,
    gast.Invert: operator.invert,
}


def operand_names(value: gast.expr) -> list[gast.Name]:
    """The names a normal-form operation differentiates through, in argument order.

    Indices and callees are not among them; comparisons and `not` have none. Keyword
    arguments are (a rule refuses an active one; a compiled callee differentiates it).
    """
    if isinstance(value, gast.Name):
        return [value]
    if isinstance(value, gast.BinOp):
        return [n for n in (value.left, value.right) if isinstance(n, gast.Name)]
    if isinstance(value, gast.UnaryOp) and not isinstance(value.op, gast.Not):
        return [value.operand] if isinstance(value.operand, gast.Name) else []
    if isinstance(value, gast.Call):
        # The callee too, when it is a value (a function or object in a variable, or the
        # receiver of a method); a global callee's name is never active.
        function = value.func.value if isinstance(value.func, gast.Attribute) else value.func
        passed = [function, *value.args, *(k.value for k in value.keywords)]
        return [a for a in passed if isinstance(a, gast.Name)]
    if isinstance(value, gast.Attribute | gast.Subscript):
        return [value.value] if isinstance(value.value, gast.Name) else []
    if isinstance(value, gast.Tuple | gast.List):
        return [e for e in value.elts if isinstance(e, gast.Name)]
    if isinstance(value, gast.Dict):
        return [v for v in value.values if isinstance(v, gast.Name)]
    return []


def target_names(target: gast.expr) -> list[str]:
    """Every name in an assignment target, in order."""
    if isinstance(target, gast.Name):
        return [target.id]  # the common case, without walking the name's children
    return [n.id for n in syntax.walk(target) if isinstance(n, gast.Name)]


class Activity(Analysis[set[str]]):
    """The names whose values may vary with the differentiated parameters.

    A name is active when some statement assigns it from an active operand through an
    operation that carries a derivative (not `len`, `np.sign`, `.shape`, comparisons),
    or when a `for` loop iterates over an active value. The analysis ignores the order of
    statements, so a name active anywhere is active everywhere: that costs a rule call
    where a plain one would do, never a missing derivative.
    """

    requires = (Callees, Scopes)

    def run(self, tree: gast.Module, ctx: Context) -> set[str]:
        callees = ctx.analysis(Callees, tree).callees
        scopes = ctx.analysis(Scopes, tree)
        outer = set(scopes.parameters) | scopes.locals
        # Each statement that may carry a derivative: the names it reads, and those it binds.
        flows: list[tuple[list[str], list[str]]] = []
        for statement in walk_statements(function_of(tree).body):
            if isinstance(statement, gast.Assign):
                value = statement.value
                operands = [n.id for n in operand_names(value)]
                callee = callees.get(value) if isinstance(value, gast.Call) else None
                if isinstance(callee, LocalFunction):
                    operands += callee.captured(outer)
                if not operands:
                    continue
                if isinstance(value, gast.Call) and ctx.registry.is_non_differentiable(callee):
                    continue
                if isinstance(
                    value, gast.Attribute
                ) and ctx.registry.is_non_differentiable_attribute(value.attr):
                    continue
                if isinstance(value, gast.BinOp | gast.UnaryOp) and (
                    ctx.registry.is_non_differentiable(OPERATORS[type(value.op)])
                ):
                    continue
                flows.append((operands, target_names(statement.targets[0])))
            elif isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name):
                flows.append(([statement.iter.id], target_names(statement.target)))
        active = set(ctx.wrt)
        changed = True
        while changed:
            changed = False
            for operands, targets in flows:
                if not active.issuperset(targets) and not active.isdisjoint(operands):
                    active.update(targets)
                    changed = True
        return active

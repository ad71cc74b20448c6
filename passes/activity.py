"""Activity: which values depend differentiably on the inputs being differentiated."""

from __future__ import annotations

import gast

from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.callees import Callees


def operand_names(value: gast.expr) -> list[gast.Name]:
    """The names a normal-form operation differentiates through, in argument order.

    Indices, keyword arguments and callees are not among them.
    """
    if isinstance(value, gast.Name):
        return [value]
    if isinstance(value, gast.BinOp):
        return [n for n in (value.left, value.right) if isinstance(n, gast.Name)]
    if isinstance(value, gast.UnaryOp):
        return [value.operand] if isinstance(value.operand, gast.Name) else []
    if isinstance(value, gast.Call):
        return [a for a in value.args if isinstance(a, gast.Name)]
    if isinstance(value, gast.Attribute | gast.Subscript):
        return [value.value] if isinstance(value.value, gast.Name) else []
    if isinstance(value, gast.Tuple):
        return [e for e in value.elts if isinstance(e, gast.Name)]
    return []


class Activity(Analysis[set[str]]):
    """The names (of the normal form) whose values vary with the differentiated parameters.

    A value is active when an operand is active and the operation carries a derivative:
    results of non-differentiable functions (`len`, `np.sign`) and attributes (`.shape`)
    are not.
    """

    requires = (Callees,)

    def run(self, tree: gast.Module, ctx: Context) -> set[str]:
        callees = ctx.analysis(Callees, tree).callees
        active = set(ctx.wrt)
        for statement in function_of(tree).body:
            if not isinstance(statement, gast.Assign):
                continue
            value = statement.value
            if not any(n.id in active for n in operand_names(value)):
                continue
            if isinstance(value, gast.Call) and ctx.registry.is_non_differentiable(
                callees.get(value)
            ):
                continue
            if isinstance(value, gast.Attribute) and ctx.registry.is_non_differentiable_attribute(
                value.attr
            ):
                continue
            for target in gast.walk(statement.targets[0]):
                if isinstance(target, gast.Name):
                    active.add(target.id)
        return active

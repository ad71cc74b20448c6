"""Activity: which names hold values that depend differentiably on the differentiated inputs."""

from __future__ import annotations

import math
import operator

import gast

from srcad import syntax
from srcad.kinds import is_numeric
from srcad.passes.analyses.scopes import LocalFunction, Scopes
from srcad.passes.analyses.value_kinds import RANGE, ValueKinds
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.checks.callees import Callees, is_static, static_path, static_value
from srcad.passes.normal_form import OPERATORS, walk_statements
from srcad.primitives import selects


def operand_names(value: gast.expr) -> list[gast.Name]:
    """The names a normal-form operation differentiates through, in argument order.

    Indices and callees are not among them; comparisons and `not` have none. Keyword
    arguments are (a rule refuses an active one; a compiled callee differentiates it).
    """
    if isinstance(value, gast.Name):
        return [value]
    if isinstance(value, gast.BinOp):
        return [n for n in (value.left, value.right) if isinstance(n, gast.Name)]
    if isinstance(value, gast.Call):
        # The callee too, when it is a value (a function or object in a variable, or the
        # receiver of a method); a global callee's name is never active.
        function = value.func.value if isinstance(value.func, gast.Attribute) else value.func
        passed = [function, *value.args, *(k.value for k in value.keywords)]
        return [a for a in passed if isinstance(a, gast.Name)]
    if isinstance(value, gast.Subscript | gast.Attribute):
        return [value.value] if isinstance(value.value, gast.Name) else []
    if isinstance(value, gast.UnaryOp) and not isinstance(value.op, gast.Not):
        return [value.operand] if isinstance(value.operand, gast.Name) else []
    if isinstance(value, gast.Tuple | gast.List):
        return [e for e in value.elts if isinstance(e, gast.Name)]
    if isinstance(value, gast.Dict):
        return [v for v in value.values if isinstance(v, gast.Name)]
    return []


# Operators and functions piecewise constant on numbers and arrays, which a class may define
# otherwise (`rules/flat_operators.py`): flat where their operands are proved numbers or arrays.
_FLAT_ON_NUMBERS = (operator.floordiv, operator.and_, operator.invert, operator.xor,
                    operator.lshift, operator.rshift)  # fmt: skip
_FLAT_CALLS = (round, math.floor, math.ceil, math.trunc)


def _flat_call(value: gast.Call, callee: object, tree: gast.Module, ctx: Context) -> bool:
    """Whether `value` calls one of `_FLAT_CALLS` of arguments proved numbers or arrays."""
    if not any(callee is flat for flat in _FLAT_CALLS):
        return False
    passed = [*value.args, *(k.value for k in value.keywords)]
    return all(isinstance(a, gast.Constant) or numeric(a, tree, ctx) for a in passed)


def _differentiable(value: gast.expr, tree: gast.Module, ctx: Context) -> bool:
    """Whether a normal-form operation other than a call may carry a derivative: not a read
    of a non-differentiable attribute (`.shape`) of a value proved a number or an array,
    nor an operator registered as such. (Those attributes are registered by name, for
    NumPy's values: a dataclass's field `size` is read through the `getattr` rule.)"""
    registry = ctx.services.registry
    if isinstance(value, gast.Attribute):
        if not registry.is_non_differentiable_attribute(value.attr):
            return True
        return not numeric(value.value, tree, ctx)
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        primal = OPERATORS[type(value.op)]
        if primal in _FLAT_ON_NUMBERS:  # (elsewhere their rules refuse a class's own)
            return not all(numeric(n, tree, ctx) for n in operand_names(value))
        return not registry.is_non_differentiable(primal)
    return True


def numeric(value: gast.expr, tree: gast.Module, ctx: Context) -> bool:
    """Whether `value` is proved a number or a NumPy array, by its kind (`srcad.kinds`)."""
    if not isinstance(value, gast.Name) or not ctx.request.kinds:
        return False
    kind = ctx.analysis(ValueKinds, tree).of(value)
    return is_numeric(kind)


def index_names(value: gast.Subscript, tree: gast.Module, ctx: Context) -> list[str]:
    """The names in a subscript's index that its result may depend on differentiably.

    None where the base is proved to select (`selects`): an object outside the function
    looked at now, or a local whose kind (`srcad.kinds`) is an array or a range. For any
    other base (a parameter or local of unknown type, an object with its own
    `__getitem__` such as `np.r_`) the index is read like an argument: an index that
    depends on the inputs makes the result depend on them, so a rule differentiates it or
    the compiler refuses it. Nothing is a constant for lack of a rule.
    """
    index = value.slice
    if isinstance(index, gast.Constant):
        return []  # the common `x[0]`: nothing to look at
    names = [n.id for n in syntax.walk(index) if isinstance(n, gast.Name)]
    if not names:
        return []
    base = value.value
    if isinstance(base, gast.Name) and ctx.request.kinds:
        kind = ctx.analysis(ValueKinds, tree).of(base)
        if kind is not None and (kind[1] >= 1 or kind == RANGE):
            return []  # an array, or a range
    path = static_path(base)
    if path is not None and is_static(base, ctx.analysis(Scopes, tree)):
        found, outside = static_value(path, ctx)
        if found != "undefined" and selects(outside):
            return []
    return names


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
        outer = scopes.capturable
        # Each statement that may carry a derivative: the names it reads, and those it binds.
        flows: list[tuple[list[str], list[str]]] = []
        registry = ctx.services.registry
        for statement in walk_statements(function_of(tree).body):
            if isinstance(statement, gast.Assign):
                value = statement.value
                operands = [n.id for n in operand_names(value)]
                if isinstance(value, gast.Call):  # a nested function also reads what it captures
                    callee = callees.get(value)
                    if isinstance(callee, LocalFunction):
                        operands += callee.captured(outer)
                    if not operands or registry.is_non_differentiable(callee):
                        continue
                    if _flat_call(value, callee, tree, ctx):
                        continue
                else:
                    if isinstance(value, gast.Subscript):
                        operands += index_names(value, tree, ctx)
                    if not operands or not _differentiable(value, tree, ctx):
                        continue
                flows.append((operands, target_names(statement.targets[0])))
            elif isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name):
                flows.append(([statement.iter.id], target_names(statement.target)))
        active = set(ctx.request.wrt)
        changed = True
        while changed:
            changed = False
            for operands, targets in flows:
                if not active.issuperset(targets) and not active.isdisjoint(operands):
                    active.update(targets)
                    changed = True
        return active

"""The normal form's vocabulary: what a statement of a function in administrative normal
form (`transforms/to_anf.py`) is, for the passes that read that form."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Any

import gast

from srcad import syntax

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
    gast.BitXor: operator.xor,
    gast.LShift: operator.lshift,
    gast.RShift: operator.rshift,
    gast.Invert: operator.invert,
}

# The statements with blocks (`body`, and maybe `orelse`) whose statements are the
# function's own: all but nested functions.
COMPOUND: frozenset[type] = frozenset(
    cls
    for cls in vars(gast).values()
    if isinstance(cls, type) and issubclass(cls, gast.stmt) and "body" in getattr(cls, "_fields")  # noqa: B009
    and cls is not gast.FunctionDef
)  # fmt: skip


def is_copy(statement: gast.stmt) -> bool:
    """Whether a normal-form statement is a plain copy, `name = other_name`."""
    return (
        isinstance(statement, gast.Assign)
        and isinstance(statement.targets[0], gast.Name)
        and isinstance(statement.value, gast.Name)
    )


def is_unpacking(statement: gast.stmt) -> bool:
    """Whether a normal-form statement unpacks, `(a, b) = value`."""
    return isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Tuple)


def walk_statements(body: list[gast.stmt]) -> Iterator[gast.stmt]:
    """Every statement of a normal-form body, nested blocks included, in source order."""
    todo = body[::-1]
    while todo:
        statement = todo.pop()
        yield statement
        if type(statement) in COMPOUND:  # not a nested function: its statements are its own
            compound: Any = statement
            todo.extend(getattr(compound, "orelse", [])[::-1])
            todo.extend(compound.body[::-1])


def bound_names(statement: gast.stmt) -> list[str]:
    """The names a normal-form statement binds: its targets, or a nested function's name."""
    if isinstance(statement, gast.Assign):
        targets = statement.targets
        if len(targets) == 1 and isinstance(targets[0], gast.Name):
            return [targets[0].id]  # most statements: nothing to walk
    elif isinstance(statement, gast.For):
        targets = [statement.target]
    elif isinstance(statement, gast.FunctionDef):
        return [statement.name]
    else:
        return []
    return [n.id for t in targets for n in syntax.walk(t) if isinstance(n, gast.Name)]


def falls_through(block: list[gast.stmt]) -> bool:
    """Whether control can reach the end of `block` (no `break`, `continue` or `return`
    on every path)."""
    for statement in block:
        if isinstance(statement, gast.Break | gast.Continue | gast.Return | gast.Raise):
            return False
        if isinstance(statement, gast.If) and not (
            falls_through(statement.body) or falls_through(statement.orelse)
        ):
            return False
    return True


def short_circuits(node: gast.expr) -> bool:
    """Whether an expression evaluates some operands only on condition (a conditional
    expression, `and`/`or`, a chained comparison): it becomes `if` statements."""
    return isinstance(node, (gast.IfExp, gast.BoolOp)) or (
        isinstance(node, gast.Compare) and len(node.ops) > 1
    )


def integral_power(node: gast.BinOp) -> bool:
    """Whether `node` is `a ** 2.0`, a power by a literal float of integer value: as real
    as `a ** 2` (`srcad.kinds._powered`), so the kind analyses take its exponent for an int."""
    return isinstance(node.op, gast.Pow) and integral_exponent(node.right)


def integral_exponent(exponent: gast.expr) -> bool:
    """Whether `exponent` is a literal float of integer value (`2.0`)."""
    if not isinstance(exponent, gast.Constant) or type(exponent.value) is not float:
        return False
    return exponent.value.is_integer()


def constant_int(node: gast.expr) -> int | None:
    """The value of `3` or `-3`; else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = constant_int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    return None

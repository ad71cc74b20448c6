"""Where a method that changes a value in place (`xs.pop()`, `rows[i].pop()`,
`d.setdefault(k, v0)`) may be called inside an expression: the normal form lifts it into
statements of its own, run where Python runs the call (`change_rewrites._lift_change`), and
the expression reads what it returned. That gives Python's values where the call runs once,
unconditionally, in the order the statement's other parts run, and nothing else in the
statement reads the value it changes (an operand read before the call, `xs[0] + xs.pop()`,
or one that keeps the value itself, `[xs, xs.pop()]`, would need Python's order of reads
and changes of one value, which a rebinding does not keep)."""

from __future__ import annotations

from collections.abc import Callable

import gast

from srcad import syntax

# The expressions whose every operand runs once, in order, wherever they run, and keeps
# nothing of it but its value.
_PLAIN = (
    gast.Call, gast.keyword, gast.BinOp, gast.UnaryOp, gast.Tuple, gast.List, gast.Dict,
    gast.Set, gast.Starred, gast.JoinedStr, gast.FormattedValue,
)  # fmt: skip
# The statements whose expressions (a value, a test, an iterable) run once, first.
_STATEMENTS = (gast.Expr, gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return, gast.If,
               gast.For)  # fmt: skip


def why_not_lifted(
    call: gast.Call,
    holder: gast.Name,
    parents: dict[gast.AST, gast.AST],
    changes_after: Callable[[gast.Name], bool],
) -> str | None:
    """Why `call`, which changes the variable `holder` (or an item of it) in place, cannot
    be lifted out of the expression that holds it into statements before it: None where
    it can (or where it is a statement of its own already). `holder` may be read again as
    the receiver of a method that changes it, which the normal form reads after its
    arguments (`changes_after`: `stack.append(stack.pop() * w)`), not an item's (`rows[0]`
    is read before its method's arguments run)."""
    node: gast.AST = call
    parent = parents.get(node)
    if isinstance(parent, gast.Expr):
        return None  # (a statement of its own)
    while not isinstance(parent, gast.stmt):
        if parent is None or not _runs_once_in_order(node, parent):
            return (
                ", inside an expression that runs it on condition, more than once or later "
                "(a conditional, `and`/`or`, a comprehension, a lambda): make the call a "
                "statement of its own"
            )
        node, parent = parent, parents.get(parent)
    if not isinstance(parent, _STATEMENTS) or _is_target(node, parent):
        return ", inside this statement: make the call a statement of its own"
    read = parent.test if isinstance(parent, gast.If) else parent
    if isinstance(parent, gast.For):
        read = parent.iter
    others = [
        n for n in syntax.walk(read)
        if isinstance(n, gast.Name) and n.id == holder.id and n is not holder
        and not changes_after(n)
    ]  # fmt: skip
    if others:
        return (
            f", in a statement that reads `{holder.id}` again (line {others[0].lineno}): make "
            "the call a statement of its own"
        )
    return None


def _runs_once_in_order(node: gast.AST, parent: gast.AST) -> bool:
    """Whether `parent`, an expression, runs its operand `node` once, where it stands."""
    if isinstance(parent, _PLAIN):
        return True
    if isinstance(parent, gast.Attribute | gast.Subscript):
        return isinstance(parent.ctx, gast.Load) and not isinstance(node, gast.Slice)
    if isinstance(parent, gast.Compare):  # (a chain runs its later operands on condition)
        return len(parent.ops) == 1
    if isinstance(parent, gast.BoolOp):
        return node is parent.values[0]
    if isinstance(parent, gast.IfExp):
        return node is parent.test
    return False


def _is_target(node: gast.AST, statement: gast.stmt) -> bool:
    """Whether `node` is (in) an assignment's target, a loop's, not its value."""
    if isinstance(statement, gast.Assign):
        return node is not statement.value
    if isinstance(statement, gast.AugAssign | gast.AnnAssign | gast.For):
        return node is statement.target
    return False

"""The forward rule tidied after `ForwardAD` writes it: negations folded into the
arithmetic that reads them, tangents nothing reads left out, and zeros bound again before
any read dropped."""

from __future__ import annotations

from collections.abc import Callable

import gast

from srcad import syntax


def without_negation(value: gast.expr) -> gast.expr | None:
    """`e` for a value `-e`, and `a * b / c` for `-a * b / c` or `a * -b / c`: the same
    number but for its sign, exactly (floating point negates without rounding, and the
    product's and quotient's magnitudes do not depend on their operands' signs); None for
    any other."""
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        return value.operand
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult | gast.Div):
        left = without_negation(value.left)
        if left is not None:
            return gast.BinOp(left=left, op=value.op, right=value.right)
        right = without_negation(value.right)
        if right is not None:
            return gast.BinOp(left=value.left, op=value.op, right=right)
    return None


def negations_folded(value: gast.expr) -> gast.expr:
    """Arithmetic on numbers (or float arrays) with `p - -q` written `p + q` and `p + -q`
    written `p - q`, at any depth, where `_without_negation` finds the negation (the
    tangents nested into their reader, `x_dot - -(e * s)` of `cos`'s template): one
    operation fewer, the same number exactly, the operands evaluated in the same order."""
    if isinstance(value, gast.UnaryOp):
        value.operand = negations_folded(value.operand)
    if not isinstance(value, gast.BinOp):
        return value
    value.left = negations_folded(value.left)
    value.right = negations_folded(value.right)
    if isinstance(value.op, gast.Add | gast.Sub):
        positive = without_negation(value.right)
        if positive is not None:
            flipped = gast.Sub() if isinstance(value.op, gast.Add) else gast.Add()
            return gast.BinOp(left=value.left, op=flipped, right=positive)
    return value


def unread_dropped(function: gast.FunctionDef, arithmetic: set[gast.stmt]) -> None:
    """Leave out the statements of `arithmetic` (`name = arithmetic on names`) whose name
    nothing in `function` reads (a nested function's read counts), until none is left:
    the tangent of a value the result does not depend on through arithmetic, such as
    `abs(r)` in a test, or a chain of them."""
    reads: dict[str, int] = {}
    for node in syntax.walk(function):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            reads[node.id] = reads.get(node.id, 0) + 1

    def unread(statement: gast.stmt) -> bool:
        if statement not in arithmetic:
            return False
        assert isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)
        if reads.get(statement.targets[0].id, 0):
            return False
        for node in syntax.walk(statement.value):
            if isinstance(node, gast.Name):
                reads[node.id] -= 1
        return True

    dropped = True
    while dropped:
        function.body, dropped = _kept(function.body, unread)


def overwritten_zeros_dropped(function: gast.FunctionDef, zeros: set[gast.stmt]) -> None:
    """Leave out each zero of `zeros` (`name_dot = 0.0 if ... else ZERO`) bound in the
    function's straight-line code before its first compound statement, that the same
    code binds again before anything reads it (`p_dot` of `p = 0.0`, whose first step in
    a loop `Unroll` wrote out reads it no longer: `ForwardAD.zero_now`). Not where a
    nested function or lambda may read it when called."""
    inner = (n for s in function.body for n in syntax.walk(s))
    if any(isinstance(n, gast.FunctionDef | gast.Lambda) for n in inner):
        return
    pending: dict[str, gast.stmt] = {}  # the zeros bound and not read since, by name
    dropped: set[gast.stmt] = set()
    for statement in function.body:
        if not isinstance(statement, gast.Assign):
            break
        for node in syntax.walk(statement.value):
            if isinstance(node, gast.Name):
                pending.pop(node.id, None)
        for node in syntax.walk(statement.targets[0]):
            if isinstance(node, gast.Name) and node.id in pending:
                dropped.add(pending.pop(node.id))
        if statement in zeros:
            target = statement.targets[0]
            assert isinstance(target, gast.Name)
            pending[target.id] = statement
    function.body = [s for s in function.body if s not in dropped]


def _kept(
    statements: list[gast.stmt], unread: Callable[[gast.stmt], bool]
) -> tuple[list[gast.stmt], bool]:
    """The statements of a block that are not `unread`, blocks inside them likewise, and
    whether any was left out. (A function of the module: a closure calling itself would
    keep itself, and the tree, in a reference cycle.)"""
    kept, dropped = [], False
    for statement in statements:
        if unread(statement):
            dropped = True
            continue
        for field in ("body", "orelse"):
            inner = getattr(statement, field, None)
            if inner and not isinstance(statement, gast.FunctionDef):
                new, inner_dropped = _kept(inner, unread)
                setattr(statement, field, new or [gast.Pass()])
                dropped = dropped or inner_dropped
        kept.append(statement)
    return kept, dropped

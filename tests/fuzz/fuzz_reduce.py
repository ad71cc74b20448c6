"""Shrink a failing program to a short reproducer, by delta debugging over its syntax tree.

A candidate is the program with one change: a statement removed (an emptied block becomes
`pass`), a compound statement replaced by one of its blocks, or an expression replaced by one
of its operands (`a + b` by `a` or `b`, `np.sin(a)` by `a`, `a if c else b` by `a` or `b`).
A candidate is kept when it still fails with the same signature (outcome, check, exception
type and message) at the same point; the first kept candidate restarts the search, until none
is kept or the budget of checks is spent.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator

BLOCKS = ("body", "orelse")


def _statement_lists(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for field in BLOCKS:
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _nth_list(tree: ast.AST, n: int) -> list[ast.stmt]:
    for i, block in enumerate(_statement_lists(tree)):
        if i == n:
            return block
    raise IndexError(n)


def statement_candidates(source: str) -> Iterator[str]:
    """The program with one statement removed, or one compound statement replaced by a block."""
    tree = ast.parse(source)
    for n, block in enumerate(list(_statement_lists(tree))):
        for i, statement in enumerate(block):
            if isinstance(statement, ast.Import | ast.ImportFrom):
                continue
            if isinstance(statement, ast.FunctionDef) and statement.name == "f":
                continue
            variant = copy.deepcopy(tree)
            target = _nth_list(variant, n)
            del target[i]
            if not target:
                target.append(ast.Pass())
            yield ast.unparse(variant)
            for field in BLOCKS:
                inner = getattr(statement, field, None)
                if isinstance(statement, ast.FunctionDef) or not inner:
                    continue
                variant = copy.deepcopy(tree)
                target = _nth_list(variant, n)
                target[i : i + 1] = copy.deepcopy(inner)
                yield ast.unparse(variant)


def _operands(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Call):
        return [a for a in node.args if not isinstance(a, ast.Starred)]
    return []


class _Replace(ast.NodeTransformer):
    def __init__(self, index: int, operand: int) -> None:
        self.index, self.operand, self.seen = index, operand, -1

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.expr) and _operands(node):
            self.seen += 1
            if self.seen == self.index:
                return copy.deepcopy(_operands(node)[self.operand])
        return super().visit(node)


def expression_candidates(source: str) -> Iterator[str]:
    """The program with one expression replaced by one of its operands."""
    tree = ast.parse(source)
    counter = _Replace(-1, 0)
    counter.visit(copy.deepcopy(tree))
    for index in range(counter.seen + 1):
        for operand in range(4):
            variant = _Replace(index, operand)
            try:
                changed = variant.visit(copy.deepcopy(tree))
            except IndexError:
                break
            text = ast.unparse(changed)
            if text != ast.unparse(tree):
                yield text


def reduce(source: str, fails: Callable[[str], bool], budget: int = 600) -> str:
    """The shortest program found that still `fails`, from `source`."""
    current = ast.unparse(ast.parse(source))
    spent = 0
    for generate in (statement_candidates, expression_candidates, statement_candidates):
        progress = True
        while progress and spent < budget:
            progress = False
            for candidate in generate(current):
                if len(candidate) >= len(current):
                    continue
                spent += 1
                if fails(candidate):
                    current, progress = candidate, True
                    break
                if spent >= budget:
                    break
    return current

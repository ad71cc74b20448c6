"""Loading a user's script for the command line without running its top-level work.

`srcad show train.py:loss` must not train the model first. A script is loaded by running
only the statements that define things: imports, `def` and `class` statements (their
decorators included), assignments whose value is a literal or a simple expression (no
call), `raise`, and the `if`/`try` statements around them, filtered the same way. Calls,
loops, `with` blocks and `if __name__ == "__main__":` blocks are skipped, and each skipped
statement is remembered with the names it would have bound, so that a function that
reads one of them is told about it (`Script.skipped_names_of`).
"""

from __future__ import annotations

import ast
import dis
import importlib.util
import os
import sys
import types
from dataclasses import dataclass, field

__all__ = ["LoadError", "Script", "Skipped", "load_script"]


class LoadError(Exception):
    """The file cannot be loaded: one line for the user."""


@dataclass(frozen=True)
class Skipped:
    """A top-level statement not run: where, what it is, and the names it binds."""

    line: int
    what: str
    names: frozenset[str]


@dataclass
class Script:
    path: str
    module: types.ModuleType
    skipped: list[Skipped] = field(default_factory=list)

    def skipped_for(self, name: str) -> Skipped | None:
        """The skipped statement that would have bound the global `name`, if any."""
        if name in vars(self.module):
            return None
        return next((s for s in self.skipped if name in s.names), None)

    def notes_for(self, func: object) -> list[str]:
        """One line per global `func` reads that a skipped statement would have bound."""
        code = getattr(func, "__code__", None)
        if not isinstance(code, types.CodeType):
            return []
        notes = []
        for name in sorted(_global_reads(code)):
            skipped = self.skipped_for(name)
            if skipped is not None:
                notes.append(
                    f"srcad: note: {code.co_name} reads {name!r}, which "
                    f"{self.path}:{skipped.line} binds in {skipped.what} that srcad does not "
                    "run (it runs only imports, definitions and simple assignments)"
                )
        return notes


def _global_reads(code: types.CodeType) -> set[str]:
    names = {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_reads(constant)
    return names


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    sides = [test.left, *test.comparators]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    mains = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(mains) == 1


def _simple(node: ast.AST | None) -> bool:
    """An expression that calls nothing (a lambda's body is not run, so it may)."""
    if node is None or isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.Call | ast.Await | ast.Yield | ast.YieldFrom | ast.NamedExpr):
        return False
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        return False  # iterating may call anything
    return all(_simple(child) for child in ast.iter_child_nodes(node))


def _why_skipped(statement: ast.stmt) -> str | None:
    """None where the statement runs; else what it is, for the note."""
    if isinstance(statement, ast.Import | ast.ImportFrom | ast.Raise | ast.Pass):
        return None
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return None  # a docstring
    if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return None if _simple(statement.value) else "an assignment that calls a function"
    if isinstance(statement, ast.If):
        if _is_main_test(statement.test):
            return 'the `if __name__ == "__main__":` block'
        return None if _simple(statement.test) else "an `if` whose test calls a function"
    if isinstance(statement, ast.Try):
        return None
    if isinstance(statement, ast.For | ast.AsyncFor | ast.While):
        return "a loop"
    if isinstance(statement, ast.Expr):
        return "a call" if isinstance(statement.value, ast.Call) else "an expression statement"
    return f"a `{type(statement).__name__.lower()}` statement"


def _bound_names(statement: ast.stmt) -> frozenset[str]:
    names = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return frozenset(names)


def _filtered(body: list[ast.stmt], skipped: list[Skipped]) -> list[ast.stmt]:
    """`body` with the statements that do work replaced by `pass` (recursively in `if`
    and `try`), each recorded in `skipped`."""
    kept: list[ast.stmt] = []
    for statement in body:
        why = _why_skipped(statement)
        if why is not None:
            skipped.append(Skipped(statement.lineno, why, _bound_names(statement)))
            kept.append(ast.copy_location(ast.Pass(), statement))
            continue
        if isinstance(statement, ast.If | ast.Try):
            for name in ("body", "orelse", "finalbody"):
                if hasattr(statement, name):
                    setattr(statement, name, _filtered(getattr(statement, name), skipped))
            if isinstance(statement, ast.Try):
                for handler in statement.handlers:
                    handler.body = _filtered(handler.body, skipped)
        kept.append(statement)
    return kept or [ast.Pass()]


_count = 0  # scripts loaded: each gets a module name of its own


def load_script(path: str) -> Script:
    """The Python file at `path` as a module, with only its definitions run."""
    global _count
    if not os.path.isfile(path):
        raise LoadError(f"no such file: {path}")
    full = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    _count += 1
    name = f"srcad_cli_{stem}" + (f"_{_count}" if _count > 1 else "")
    spec = importlib.util.spec_from_file_location(name, full)
    if spec is None:
        raise LoadError(f"cannot import {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    directory = os.path.dirname(full)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    script = Script(path, module)
    try:
        with open(full, encoding="utf-8") as file:
            tree = ast.parse(file.read(), full)
        tree.body = _filtered(tree.body, script.skipped)
        exec(compile(tree, full, "exec"), vars(module))
    except Exception as error:
        raise LoadError(f"importing {path} failed: {type(error).__name__}: {error}") from None
    return script

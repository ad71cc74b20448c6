"""Imports inside the function (`import numpy as np`, `from scipy.special import
logsumexp`), run when the function is compiled and read as the modules they name.

An `import` statement binds names to modules, or to attributes of modules, which Python
keeps in `sys.modules` once imported: every call of the function finds the same module.
So srcad imports it when it compiles the function, as the statement would on the first
call, drops the statement from the tree and binds each module in the function's closure
(`FunctionSource.closure`, a cell of its own): `import numpy as np` binds `np` to NumPy;
`import scipy.special` binds `scipy`. A name `from` binds is read as the attribute of its
module that it is, on every read: `from scipy.special import logsumexp` binds a cell
`scipy_special` to the module and each `logsumexp` becomes `scipy_special.logsumexp`.
So each call is resolved as a call through a module-level `import` is (`math.sin`), and
the rule's guards test the attribute on every call, as they test a global module's:
a function put in the module's place later is seen, as the statement would see it.

Taken where nothing else can tell the two apart: the statement is in the function's own
body (not in a block, where it might not run, nor in a nested function), and each name it
binds is bound by nothing else in the function (nested functions included) nor read
before the statement (where Python raises `UnboundLocalError`). Any other `import` stays
in the tree for `UnsupportedConstructs` to refuse (E101). A module that cannot be
imported raises its `ImportError` where the function is compiled, as the call would."""

from __future__ import annotations

import importlib
import types
from typing import Any

import gast

from srcad import syntax
from srcad.source import FunctionSource

_IMPORTS = (gast.Import, gast.ImportFrom)


def hoist_imports(function: gast.FunctionDef, source: FunctionSource) -> None:
    """Run each `import` of `function`'s own body that can be run once, drop its statement
    and bind what it names in `source.closure`, in place (see the module's docstring)."""
    statements = [s for s in function.body if isinstance(s, _IMPORTS)]
    if not statements:
        return
    used = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
    for statement in statements:
        if not _alone(statement, function):
            continue
        if isinstance(statement, gast.Import):
            for alias in statement.names:
                bound = alias.asname or alias.name.partition(".")[0]
                module = importlib.import_module(alias.name)
                if alias.asname is None:  # `import a.b` binds the package `a`
                    module = importlib.import_module(bound)
                source.closure[bound] = types.CellType(module)
                source.made |= {bound}
        else:
            module = _from_module(statement, source)
            cell = _cell_name(module, used, source.closure)
            used.add(cell)
            source.closure[cell] = types.CellType(module)
            source.made |= {cell}
            renamed = {}
            for alias in statement.names:
                _submodule(module, alias.name)
                renamed[alias.asname or alias.name] = alias.name
            _read_through(function, cell, renamed)
        function.body.remove(statement)


def _alone(statement: gast.Import | gast.ImportFrom, function: gast.FunctionDef) -> bool:
    """Whether the names `statement` binds are bound by nothing else in `function` and read
    by nothing before it, so that reading the module for them changes nothing."""
    names = {alias.asname or alias.name.partition(".")[0] for alias in statement.names}
    if any(alias.name == "*" for alias in statement.names):
        return False
    before = function.body[: function.body.index(statement)]
    if any(isinstance(n, gast.Name) and n.id in names for s in before for n in syntax.walk(s)):
        return False
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                  arguments.vararg, arguments.kwarg]  # fmt: skip
    if any(isinstance(p, gast.Name) and p.id in names for p in parameters):
        return False
    for node in syntax.walk(function):
        if node is statement:
            continue
        if isinstance(node, _IMPORTS) and any(
            (alias.asname or alias.name.partition(".")[0]) in names for alias in node.names
        ):
            return False
        binding = isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load)
        if binding and node.id in names:
            return False
        defining = isinstance(node, gast.FunctionDef | gast.ClassDef) and node is not function
        if defining and node.name in names:
            return False
        if isinstance(node, gast.Global | gast.Nonlocal) and names & set(node.names):
            return False
    return True


def _from_module(statement: gast.ImportFrom, source: FunctionSource) -> types.ModuleType:
    """The module `from ... import` reads, relative to the function's package if need be."""
    name = "." * statement.level + (statement.module or "")
    package = source.globals.get("__package__") if statement.level else None
    if statement.level and not package:  # Python's own error, where the call would raise it
        raise ImportError("attempted relative import with no known parent package")
    return importlib.import_module(name, package)


def _submodule(module: types.ModuleType, name: str) -> None:
    """Import `module.name` where it is a submodule the package has not imported itself, as
    `from package import name` does; an `ImportError` where it is neither."""
    if hasattr(module, name):
        return
    try:
        importlib.import_module(f"{module.__name__}.{name}")
    except ModuleNotFoundError:
        raise ImportError(f"cannot import name {name!r} from {module.__name__!r}") from None


def _cell_name(module: types.ModuleType, used: set[str], closure: dict[str, types.CellType]) -> str:
    """The name of the cell holding `module`: its dotted name joined by `_`, numbered past
    the names the function reads and the cells other modules hold (the same on every
    compilation of the function, whose closure keeps the cells of the one before)."""
    hint = module.__name__.replace(".", "_")
    name, count = hint, 1
    while name in used or (name in closure and closure[name].cell_contents is not module):
        count += 1
        name = f"{hint}_{count}"
    return name


def _read_through(function: gast.FunctionDef, cell: str, renamed: dict[str, str]) -> None:
    """Each read of a name in `renamed` as the module `cell`'s attribute it names."""

    class Reads(gast.NodeTransformer):
        def visit_Name(self, node: gast.Name) -> Any:  # noqa: N802 (the visitor protocol)
            if node.id not in renamed or not isinstance(node.ctx, gast.Load):
                return node
            module = syntax.located(syntax.load(cell), node)
            read = syntax.make(gast.Attribute, value=module, attr=renamed[node.id], ctx=syntax.LOAD)
            return syntax.located(read, node)

    Reads().visit(function)

"""A class defined inside the function (`class P: def __init__(self, a): self.a = a`),
made once when the function is compiled and read as a closure variable of the function.

A class statement whose body is plain methods and constant class attributes, whose
methods read none of the function's own names, makes the same class each time it runs:
nothing in it depends on the call. So srcad runs it once, as the file compiles it (its
methods' code is what the file's text compiles to, so srcad reads their source as any
method's), drops the statement from the tree, and binds the class's name in the
function's closure (`FunctionSource.closure`, a cell of its own). Calls `P(x)` are then
calls of a class built by its own `__init__` (`srcad/constructors.py`), and `p.m()` calls
of its methods, as for a class defined in a module.

Refused (E101, located): a class statement inside a block (`if`, `for`), decorated, with
bases or keywords (a metaclass), with anything in its body but methods (undecorated, their
default values constants), constant attributes and a docstring, whose methods read a name
the function binds (its parameters, its variables, the class itself), or whose name the
function also binds otherwise or reads before the statement: each could make another
class, or one with other values, on each call."""

from __future__ import annotations

import ast
import types
from typing import Any

import gast

from srcad import syntax
from srcad.source import FunctionSource


def hoist_classes(function: gast.FunctionDef, source: FunctionSource) -> None:
    """Make each class `function`'s body defines (at its top level) that can be made once,
    drop its statement and bind its name in `source.closure`, in place. The others stay,
    for `UnsupportedConstructs` to refuse, with the reason `class_refusal` gives."""
    classes = [s for s in function.body if isinstance(s, gast.ClassDef)]
    if not classes:
        return
    bound = _bound_names(function)
    for statement in classes:
        if _unsound(statement, function, bound) is None:
            made = _made(statement, source)
            function.body.remove(statement)
            source.closure[statement.name] = types.CellType(made)
            source.made |= {statement.name}


def class_refusal(statement: gast.ClassDef, function: gast.FunctionDef) -> str:
    """Why the class statement `statement` of `function` is refused: the message of its
    diagnostic."""
    reason = (
        _unsound(statement, function, _bound_names(function))
        if statement in function.body
        else "it is defined inside a block or a nested function"
    ) or "srcad makes such a class only where it compiles the function that defines it"
    return f"a class defined inside the function is not supported here: {reason}"


CLASS_HINT = (
    "define the class at the module's level, or keep its body to plain methods and constant "
    "class attributes that read none of the function's own names"
)


def _unsound(statement: gast.ClassDef, function: gast.FunctionDef, bound: set[str]) -> str | None:
    """Why the class `statement` cannot be made once, or None."""
    name = statement.name
    if statement.decorator_list:
        return "it is decorated"
    if statement.keywords or any(
        not (isinstance(b, gast.Name) and b.id == "object") for b in statement.bases
    ):
        return "it has base classes or a metaclass"
    for item in statement.body:
        if isinstance(item, gast.FunctionDef):
            if item.decorator_list:
                return f"its method `{item.name}` is decorated"
            defaults = [d for d in (*item.args.defaults, *item.args.kw_defaults) if d is not None]
            if not all(_constant(d) for d in defaults):
                # (evaluated where the class is made: once, where the function runs them
                # on every call)
                return f"a default value of its method `{item.name}` is not a constant"
            read = _read_from_outside(item) & bound
            if read:
                return f"its method `{item.name}` reads the function's own `{sorted(read)[0]}`"
        elif isinstance(item, gast.Assign):
            targets_are_names = all(isinstance(t, gast.Name) for t in item.targets)
            if not targets_are_names or not _constant(item.value):
                return "a class attribute that is not a constant"
        elif not (isinstance(item, gast.Pass) or _docstring(item)):
            return "its body holds more than methods and constant attributes"
    stores = [
        n
        for n in syntax.walk(function)
        if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store | gast.Del)
    ]
    others = [s for s in function.body if isinstance(s, gast.ClassDef | gast.FunctionDef)]
    if stores or sum(getattr(s, "name", None) == name for s in others) > 1:
        return f"the function binds `{name}` otherwise too"
    before = function.body[: function.body.index(statement)]
    if any(isinstance(n, gast.Name) and n.id == name for s in before for n in syntax.walk(s)):
        return f"the function reads `{name}` before the class statement"
    return None


def _bound_names(function: gast.FunctionDef) -> set[str]:
    """The names `function` binds: its parameters, what it assigns, the functions and
    classes it defines (its locals)."""
    arguments = function.args
    names = {
        a.id
        for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
        if isinstance(a, gast.Name)
    }
    names |= {a.id for a in (arguments.vararg, arguments.kwarg) if isinstance(a, gast.Name)}
    for statement in function.body:
        for node in syntax.walk(statement):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                names.add(node.id)
            elif isinstance(node, gast.FunctionDef | gast.ClassDef) and node is not function:
                names.add(node.name)
    return names


def _read_from_outside(method: gast.FunctionDef) -> set[str]:
    """The names `method` reads that it does not bind itself: free in it (a global, a
    builtin, or a name of the function it is defined in)."""
    own = _bound_names(method)
    read = set()
    for node in syntax.walk(method):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in own:
            read.add(node.id)
    return read


def _constant(value: gast.expr) -> bool:
    if isinstance(value, gast.Constant):
        return True
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub | gast.UAdd):
        return _constant(value.operand)
    if isinstance(value, gast.Tuple):
        return all(_constant(e) for e in value.elts)
    return False


def _docstring(item: gast.stmt) -> bool:
    return (
        isinstance(item, gast.Expr)
        and isinstance(item.value, gast.Constant)
        and isinstance(item.value.value, str)
    )


def _made(statement: gast.ClassDef, source: FunctionSource) -> Any:
    """The class `statement` makes, run once in the function's globals, compiled with the
    statement's own positions in its file: its methods' code is the code the file's text
    compiles to, which is how srcad finds their source."""
    own = getattr(source.definition, "body", [])  # Python's own tree, where it is one
    trees = [s for s in own if isinstance(s, ast.ClassDef) and s.lineno == statement.lineno]
    tree = trees[0] if trees else syntax.to_ast(statement)
    assert isinstance(tree, ast.ClassDef)
    module = ast.Module(body=[tree], type_ignores=[])
    namespace: dict[str, Any] = {}
    exec(compile(module, source.filename, "exec"), source.globals, namespace)  # its own text
    made = namespace[statement.name]
    made.__qualname__ = f"{source.func.__qualname__}.<locals>.{statement.name}"
    for value in vars(made).values():
        if isinstance(value, types.FunctionType):
            value.__qualname__ = f"{made.__qualname__}.{value.__name__}"
    return made

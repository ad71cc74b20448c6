"""A nested function's parameter defaults, computed where its `def` runs and passed by each
call that leaves them out: for

    def g(y, s=x * 2.0):
        return y * s
    total = g(1.0) + g(x, 3.0)

srcad compiles

    g_s = x * 2.0
    def g(y, s):
        return y * s
    total = g(1.0, s=g_s) + g(x, 3.0)

Python computes a default once, when the `def` statement runs, and a call that leaves
the parameter out takes that value; the hoisted name holds the same value (the same
object) from the `def` on, so every call gets what Python gives it, and a value the
default reads from the function reaches the call as an argument, whose derivative flows
as any argument's does, in both modes and to any order (a default itself has none: E214).

Taken where every call of the function can be rewritten so: the function is a `def` in
the function's own scope (no decorator), which nothing else binds or rebinds anywhere in
the function, read only as the callee of calls with no `*` or `**` arguments, and whose
keyword-only defaults read no name; one of its positional defaults reads a name the
function binds. Each default that reads a name, or makes a value that could be changed
(`[]`), is bound to a fresh name right before the `def`, in their order, as Python
evaluates them; a number, a string or a tuple of them is written into each call. A
positional-only parameter left out is passed by position, any other by keyword. Anything
else is left as it is, and a default reading a differentiated value refused (E214)."""

from __future__ import annotations

import copy

import gast

from srcad import syntax
from srcad.syntax import load, make, store

# The scopes of their own inside a function: their bindings are not the function's.
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
# What a default written into each call may be made of: a value nothing can change.
_LITERALS = (gast.Constant, gast.UnaryOp, gast.Tuple, gast.unaryop, gast.expr_context)


def pass_defaults(function: gast.FunctionDef) -> None:
    """Rewrite, in place, each nested function of `function` whose positional defaults read
    the function's own names so that its calls pass them (see the module's docstring)."""
    definitions = [d for n in _own_nodes(function) if (d := _defined(n)) is not None]
    if not any(d.args.defaults for _, _, d in definitions):
        return
    parents = {c: n for n in syntax.walk(function) for c in syntax.children(n)}
    own = _bound(function) | _parameters(function)
    taken = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
    taken |= {n.name for n in syntax.walk(function) if isinstance(n, gast.FunctionDef)}
    for statement, function_name, definition in definitions:
        calls = _calls(statement, function_name, definition, function, parents)
        reads = [_names(d) for d in definition.args.defaults]
        if calls is None or not any(r & own for r in reads):
            continue
        if any(d is not None and _names(d) for d in definition.args.kw_defaults):
            continue
        positional = [*definition.args.posonlyargs, *definition.args.args]
        first = len(positional) - len(definition.args.defaults)
        values: list[gast.expr] = []
        hoisted: list[gast.stmt] = []
        for parameter, default in zip(positional[first:], definition.args.defaults, strict=True):
            if all(isinstance(n, _LITERALS) for n in syntax.walk(default)):
                values.append(default)
                continue
            name = _fresh(f"{function_name}_{parameter.id}", taken)
            hoisted.append(syntax.located(
                make(gast.Assign, targets=[store(name)], value=default, type_comment=None),
                default,
            ))  # fmt: skip
            values.append(syntax.located(load(name), default))
        definition.args.defaults = []
        _insert_before(statement, hoisted, parents)
        for call in calls:
            _pass(call, [p.id for p in positional], first, values)


def _pass(call: gast.Call, names: list[str], first: int, values: list[gast.expr]) -> None:
    """Give `call` the value of each defaulted parameter it leaves out (of `names`, those
    from `first` on): by position, moving a name or constant passed by keyword before one
    to its place, else by keyword (a differentiated argument's derivative flows through
    a position; compiled callees also take one by keyword)."""
    given = {k.arg: k for k in call.keywords}
    left_out = [i for i in range(len(call.args), len(names)) if names[i] not in given]
    if not left_out or left_out[0] < first:
        return  # (nothing left out, or a parameter with no default: Python raises)
    moved = [given[n] for n in names[len(call.args) : left_out[-1] + 1] if n in given]
    if all(isinstance(k.value, gast.Name | gast.Constant) for k in moved):
        for index in range(len(call.args), left_out[-1] + 1):
            keyword = given.get(names[index])
            call.args.append(_copy(values[index - first], call) if keyword is None
                             else keyword.value)  # fmt: skip
        call.keywords = [k for k in call.keywords if not any(k is m for m in moved)]
        return
    for index in left_out:  # (a positional-only one is never passed by keyword: moved)
        value = _copy(values[index - first], call)
        call.keywords.append(make(gast.keyword, arg=names[index], value=value))


def _defined(
    statement: gast.AST,
) -> tuple[gast.stmt, str, gast.FunctionDef | gast.Lambda] | None:
    """The function a statement defines, with its name: a `def`, or `name = lambda ...`
    (every lambda bound to a name so: `passes/transforms/lambdas.py`)."""
    if isinstance(statement, gast.FunctionDef) and not statement.decorator_list:
        return statement, statement.name, statement
    if (
        isinstance(statement, gast.Assign)
        and isinstance(statement.value, gast.Lambda)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], gast.Name)
    ):
        return statement, statement.targets[0].id, statement.value
    return None


def _calls(
    statement: gast.stmt,
    name: str,
    definition: gast.FunctionDef | gast.Lambda,
    function: gast.FunctionDef,
    parents: dict[gast.AST, gast.AST],
) -> list[gast.Call] | None:
    """Every call of the nested function `definition`, which `statement` binds to `name`,
    where nothing else binds the name and it is read only so (see the module's
    docstring); else None."""
    calls: list[gast.Call] = []
    inside = set(syntax.walk(definition))
    bound_here = statement.targets[0] if isinstance(statement, gast.Assign) else None
    for node in syntax.walk(function):
        if (
            isinstance(node, _SCOPES)
            and node is not function
            and (
                (node is not statement and getattr(node, "name", None) == name)
                or name in _parameters(node)
            )
        ):
            return None  # (another binding of the name, or one a scope shadows)
        if isinstance(node, gast.Global | gast.Nonlocal) and name in node.names:
            return None
        if not isinstance(node, gast.Name) or node.id != name or node is bound_here:
            continue
        call = parents.get(node)
        if not isinstance(node.ctx, gast.Load) or not isinstance(call, gast.Call):
            return None
        if node in inside:
            return None  # (a recursive call would read the value as a closure's: E212)
        if call.func is not node or any(isinstance(a, gast.Starred) for a in call.args):
            return None
        if any(k.arg is None for k in call.keywords):
            return None
        calls.append(call)
    return calls


def _insert_before(
    statement: gast.stmt, hoisted: list[gast.stmt], parents: dict[gast.AST, gast.AST]
) -> None:
    block_of = parents[statement]
    for field in ("body", "orelse", "finalbody"):
        block = getattr(block_of, field, None)
        if isinstance(block, list) and any(s is statement for s in block):
            index = next(i for i, s in enumerate(block) if s is statement)
            block[index:index] = hoisted
            return


def _copy(value: gast.expr, call: gast.Call) -> gast.expr:
    """`value` for one more call, placed at the call."""
    copied = copy.deepcopy(value)
    for node in syntax.walk(copied):
        if isinstance(node, gast.expr):
            syntax.located(node, call)
    return copied


def _fresh(base: str, taken: set[str]) -> str:
    name = base
    count = 2
    while name in taken:
        name, count = f"{base}_{count}", count + 1
    taken.add(name)
    return name


def _names(node: gast.AST) -> set[str]:
    return {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)}


def _own_nodes(function: gast.FunctionDef) -> list[gast.AST]:
    """The nodes of `function`'s own scope and the `def`s and classes it makes (not the
    nodes inside those)."""
    found: list[gast.AST] = []
    pending = list(syntax.children(function))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, _SCOPES):
            pending += syntax.children(node)
    return found


def _bound(function: gast.FunctionDef) -> set[str]:
    """The names `function`'s own scope binds."""
    found = set()
    for node in _own_nodes(function):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store | gast.Del):
            found.add(node.id)
        elif isinstance(node, gast.FunctionDef | gast.ClassDef):
            found.add(node.name)
    return found


def _parameters(scope: gast.AST) -> set[str]:
    arguments = getattr(scope, "args", None)
    if not isinstance(arguments, gast.arguments):
        return set()
    every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
             arguments.vararg, arguments.kwarg)  # fmt: skip
    return {a.id for a in every if isinstance(a, gast.Name)}

"""`global` and `nonlocal` declarations: dropped where they change nothing, kept where the
function only counts or flags through them, refused where a derivative could depend on them.

A declaration of a name the function (or the nested function declaring it) only reads
makes every read the same as without it, where no function between binds the name:
`drop_declarations` drops it. A name the function assigns through a declaration is a
side channel srcad can follow only where nothing differentiated flows in or out of it:

- every assignment to it is `NAME = value` or `NAME += value` (`-=`, `*=` ...), whose
  value is made of constants, such names and operators (`N_EVALS += 1`, `DONE = True`,
  `N = N * 2 + 1`), so no differentiated value is written to it;
- every read of it is in such a value, so no value the function computes, no test it
  branches on and no derivative reads it: the derivative code never reads a global (or a
  cell) that another call may have changed since;
- so a nested function's `nonlocal` counter of a variable of the function around it is
  read by that function nowhere but in such values either: no analysis of it depends on
  what the calls leave in the variable.

Such a declaration stays in the tree, and the emitted code runs each assignment where
the function does: the derivative code's globals are the function's module's, and its
free variables the function's own cells (`srcad/emit.py`). So a counter counts each run
of the function's body: once for `grad`, `value_and_grad`, `vjp`, `jvp`,
`hessian_vector_product` and a reverse-mode `jacobian`, once per column for a
forward-mode `jacobian` and for `hessian` (`docs/refusals.md`, E101). A declaration
that is neither is refused with why (`declaration_refusal`, E101). A module function srcad
differentiates, called by its name, may count in a global so too (`counts_only`), where
nothing srcad reads from the function differentiated reads the name otherwise
(`rebound_globals`, E309); another callee that assigns a global or an enclosing variable
stays refused (E309): its caller may read the name, which srcad reads once, on entry."""

from __future__ import annotations

import gast

from srcad import syntax

_DECLARATIONS = (gast.Global, gast.Nonlocal)
# What the value of an assignment to a declared name may be made of, with constants and
# the declared names themselves.
_OPERATIONS = (gast.Constant, gast.BinOp, gast.UnaryOp, gast.BoolOp, gast.Compare, gast.IfExp,
               gast.expr_context, gast.operator, gast.unaryop, gast.boolop, gast.cmpop)  # fmt: skip


def drop_declarations(function: gast.FunctionDef) -> None:
    """Drop each name of a declaration in `function` (nested functions' included) that
    changes nothing, and each declaration left with none, in place."""
    if not any(isinstance(n, _DECLARATIONS) for n in syntax.walk(function)):
        return
    for scope, declaration, names in _declarations(function):
        if any(n in _stored(scope) for n in names):
            continue  # written: it stays, taken or refused (`declaration_refusal`)
        dropped = [n for n in names if _droppable(n, declaration, scope, function)]
        if len(dropped) == len(declaration.names):
            _remove(scope, declaration)
        elif dropped and not isinstance(declaration, gast.Nonlocal):
            declaration.names = [n for n in declaration.names if n not in dropped]


def declaration_refusal(
    declaration: gast.Global | gast.Nonlocal, scope: gast.AST, function: gast.FunctionDef
) -> str | None:
    """Why a declaration of names `scope` assigns cannot be taken, or None where it can
    (see the module's docstring); `function` is the function compiled."""
    keyword = "global" if isinstance(declaration, gast.Global) else "nonlocal"
    written = [n for n in declaration.names if n in _stored(scope)]
    if not written:
        return None if all(_droppable(n, declaration, scope, function)
                           for n in declaration.names) else (
            f"a `{keyword}` declaration of a name a function around it binds too is not "
            "supported")  # fmt: skip
    if set(written) & _defined(scope):
        return f"a `{keyword}` name bound by `def`, `class` or `import` is not supported"
    declared = _written_declared(function)
    reads, writes = _side_channel_reads(function, declared), _plain_writes(function, declared)
    for node in syntax.walk(function):
        if not isinstance(node, gast.Name) or node.id not in written:
            continue
        if isinstance(node.ctx, gast.Load) and id(node) not in reads:
            return (f"a `{keyword}` name read other than to assign such a name again is not "
                    "supported: the derivative code may read it after another call changed "
                    "it")  # fmt: skip
        if isinstance(node.ctx, gast.Store | gast.Del) and id(node) not in writes:
            return (f"a `{keyword}` name is supported assigned only `NAME = value` or "
                    "`NAME += value`, of constants, such names and operators (no "
                    "differentiated value: its derivative would be lost)")  # fmt: skip
    return None


def declared(function: gast.FunctionDef) -> set[str]:
    """The names a `global` or `nonlocal` declaration in `function` names: an assignment
    to one is made for what it changes outside, so no pass drops or moves it."""
    return {name for node in syntax.walk(function) if isinstance(node, _DECLARATIONS)
            for name in node.names}  # fmt: skip


def declaration_refusals(function: gast.FunctionDef) -> dict[int, str | None]:
    """`declaration_refusal` of each declaration in `function`, by its id."""
    if not any(isinstance(n, _DECLARATIONS) for n in syntax.walk(function)):
        return {}
    return {id(d): declaration_refusal(d, scope, function)
            for scope, d, _ in _declarations(function)}  # fmt: skip


def _declarations(
    function: gast.FunctionDef,
) -> list[tuple[gast.AST, gast.Global | gast.Nonlocal, list[str]]]:
    """Each declaration in `function`, with the function whose it is and its names."""
    found = []
    for scope in [function, *(n for n in syntax.walk(function) if isinstance(n, gast.FunctionDef)
                               and n is not function)]:  # fmt: skip
        for node in _own_nodes(scope):
            if isinstance(node, _DECLARATIONS):
                found.append((scope, node, list(node.names)))
    return found


def _own_nodes(scope: gast.AST) -> list[gast.AST]:
    """The nodes of `scope`'s body outside the functions, lambdas and classes it defines."""
    found: list[gast.AST] = []
    pending = list(reversed(scope.body))
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, gast.FunctionDef | gast.Lambda | gast.ClassDef):
            continue
        pending += reversed(list(gast.iter_child_nodes(node)))
    return found


def _stored(scope: gast.AST) -> set[str]:
    """The names `scope` binds or deletes: by assignment, or by `def`, `class`, `import`."""
    stores = (gast.Store, gast.Del)
    assigned = {n.id for n in _own_nodes(scope)
                if isinstance(n, gast.Name) and isinstance(n.ctx, stores)}  # fmt: skip
    return assigned | _defined(scope)


def _defined(scope: gast.AST) -> set[str]:
    """The names `scope` binds by `def`, `class` or `import`."""
    found: set[str] = set()
    for node in _own_nodes(scope):
        if isinstance(node, gast.FunctionDef | gast.ClassDef):
            found.add(node.name)
        elif isinstance(node, gast.Import | gast.ImportFrom):
            found |= {a.asname or a.name.partition(".")[0] for a in node.names}
    return found


def _droppable(
    name: str, declaration: gast.AST, scope: gast.AST, function: gast.FunctionDef
) -> bool:
    """Whether the declaration of `name`, which `scope` only reads, can go: a `nonlocal`
    read is the nearest enclosing binding's either way; a `global` one is, where no
    function around `scope` (inside `function`) binds the name."""
    if name in _stored(scope):
        return False
    if isinstance(declaration, gast.Nonlocal) or scope is function:
        return True
    around = [f for f in syntax.walk(function) if isinstance(f, gast.FunctionDef)
              and f is not scope and scope in set(syntax.walk(f))]  # fmt: skip
    return not any(name in _stored(f) or name in _parameters(f) for f in around)


def _parameters(function: gast.FunctionDef) -> set[str]:
    arguments = function.args
    every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
             arguments.vararg, arguments.kwarg)  # fmt: skip
    return {a.id for a in every if isinstance(a, gast.Name)}


def _written_declared(function: gast.FunctionDef) -> set[str]:
    """The names declared somewhere in `function` and assigned where declared."""
    return {n for scope, declaration, names in _declarations(function)
            for n in names if n in _stored(scope)}  # fmt: skip


def _plain_writes(function: gast.FunctionDef, declared: set[str]) -> set[int]:
    """The ids of the targets of each `NAME = value` or `NAME op= value` to a declared
    name whose value is made of constants, declared names and operators."""
    found = set()
    for node in syntax.walk(function):
        if isinstance(node, gast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, gast.AugAssign):
            target = node.target
        else:
            continue
        if (
            isinstance(target, gast.Name)
            and target.id in declared
            and _closed(node.value, declared)
        ):
            found.add(id(target))
    return found


def _side_channel_reads(function: gast.FunctionDef, declared: set[str]) -> set[int]:
    """The ids of the reads of declared names inside the values `_plain_writes` takes."""
    found: set[int] = set()
    for node in syntax.walk(function):
        target = node.targets[0] if isinstance(node, gast.Assign) and len(node.targets) == 1 else (
            node.target if isinstance(node, gast.AugAssign) else None)  # fmt: skip
        if (
            isinstance(target, gast.Name)
            and target.id in declared
            and _closed(node.value, declared)
        ):
            found.update(id(n) for n in syntax.walk(node.value) if isinstance(n, gast.Name))
    return found


def _closed(value: gast.expr, declared: set[str]) -> bool:
    """Whether `value` is made of constants, `declared` names and operators alone."""
    for node in syntax.walk(value):
        if isinstance(node, gast.Name):
            if node.id not in declared:
                return False
        elif not isinstance(node, _OPERATIONS):
            return False
    return True


def _remove(scope: gast.AST, declaration: gast.AST) -> None:
    """Take `declaration` out of its block in `scope` (a `pass` where it was alone)."""
    pending = [scope.body]
    while pending:
        block = pending.pop()
        if declaration in block:
            index = block.index(declaration)
            if len(block) == 1:
                block[index] = syntax.located(syntax.make(gast.Pass), declaration)
            else:
                del block[index]
            return
        for statement in block:
            if isinstance(statement, gast.FunctionDef | gast.ClassDef):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    pending.append(inner)


def counts_only(function: gast.FunctionDef, name: str) -> bool:
    """Whether `function` writes the global `name` as a counter or flag alone: a scope of it
    declares it `global` and assigns it, and `declaration_refusal` takes that, so every
    assignment of `name` in `function` is of constants, declared names and operators, and
    every read of it is in such a value."""
    return any(
        isinstance(declaration, gast.Global)
        and name in names
        and name in _stored(scope)
        and declaration_refusal(declaration, scope, function) is None
        for scope, declaration, names in _declarations(function)
    )

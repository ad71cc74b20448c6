"""`del name` statements that change nothing but memory, dropped from the tree.

`del t` unbinds a local name: the value it held is freed once nothing else holds it, and
a later read of `t` raises `UnboundLocalError`. Where no read can follow it, and `t` is
surely bound where it runs, the statement changes no value the function computes (the
derivative code keeps what it needs of `t` regardless), so srcad drops it:

- each name it deletes is bound by an assignment among the statements of the same block
  before it (`t = work(x)`, a tuple target's name too), or is a parameter where the
  `del` is in the function's own body: it is bound wherever the `del` runs;
- every read of the name in the function lies between that binding and the `del`, by
  their places in the text (in a loop, the next pass binds it again before reading it),
  and no nested function or lambda reads it (one called later would find it unbound).

Any other `del` of a name stays for `UnsupportedConstructs` to refuse (E101); `del x[i]`
and `del x.a` are mutations (`Mutations`)."""

from __future__ import annotations

import gast

from srcad import syntax


def drop_deletions(function: gast.FunctionDef) -> None:
    """Drop each `del` of names in `function` that changes no value (see the module's
    docstring), in place."""
    if not any(isinstance(n, gast.Delete) for n in syntax.walk(function)):
        return
    parameters = {a.id for a in (*function.args.posonlyargs, *function.args.args,
                                 *function.args.kwonlyargs, function.args.vararg,
                                 function.args.kwarg) if isinstance(a, gast.Name)}  # fmt: skip
    nested = _read_in_nested(function)
    for block in _blocks(function):
        for statement in list(block):
            if not isinstance(statement, gast.Delete):
                continue
            names = [t.id for t in statement.targets if isinstance(t, gast.Name)]
            if len(names) != len(statement.targets) or set(names) & nested:
                continue
            preceding = block[: block.index(statement)]
            top = block is function.body
            if all(_bound_then_dropped(n, statement, preceding, function, top and n in parameters)
                   for n in names):  # fmt: skip
                block[block.index(statement)] = syntax.located(syntax.make(gast.Pass), statement)


def _blocks(function: gast.FunctionDef) -> list[list[gast.stmt]]:
    """Every block of statements in `function` outside nested functions and classes."""
    found, pending = [], [function.body]
    while pending:
        block = pending.pop()
        found.append(block)
        for statement in block:
            if isinstance(statement, gast.FunctionDef | gast.ClassDef | gast.Lambda):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    pending.append(inner)
    return found


def _read_in_nested(function: gast.FunctionDef) -> set[str]:
    """The names that functions and lambdas nested in `function` read."""
    read = set()
    for node in syntax.walk(function):
        if node is not function and isinstance(node, gast.FunctionDef | gast.Lambda):
            read |= {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)}
    return read


def _bound_then_dropped(
    name: str,
    deletion: gast.Delete,
    preceding: list[gast.stmt],
    function: gast.FunctionDef,
    parameter: bool,
) -> bool:
    """Whether `name` is surely bound where `deletion` runs and read only before it, after
    the binding (see the module's docstring)."""
    bindings = [s for s in preceding if isinstance(s, gast.Assign) and name in _assigned(s)]
    if not bindings and not parameter:
        return False
    # after the binding's whole statement (`t = t + 1` reads the `t` of before)
    start = _end(bindings[-1]) if bindings else (0, 0)
    end = _place(deletion)
    for node in syntax.walk(function):
        read = isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load)
        if read and not start <= _place(node) < end:
            return False
        other = isinstance(node, gast.Delete) and node is not deletion
        if other and any(isinstance(t, gast.Name) and t.id == name for t in node.targets):
            return False
    return True


def _assigned(statement: gast.Assign) -> set[str]:
    return {
        n.id
        for target in statement.targets
        for n in syntax.walk(target)
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
    }


def _place(node: gast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _end(node: gast.AST) -> tuple[int, int]:
    return (getattr(node, "end_lineno", 0), getattr(node, "end_col_offset", 0))

"""Nested functions passed as values, with the variables they read from the function
passed to them explicitly: for

    w = x[0]
    def scaled(v):
        return v * w
    total = sum(map(scaled, xs))

srcad compiles

    def scaled(w, v):
        return v * w
    total = sum(map(partial(scaled, w), xs))

(and a direct call `scaled(v)` as `scaled(w, v)`). The function the value reaches (a rule
of `map`, `functools.reduce`, `itertools.accumulate`, a Python function srcad compiles)
calls it as a value known when the code runs, and `functools.partial`'s rules give `w` the
derivative that flows through those calls; a closure's cell would hide it (E212).

A closure reads its variables when it is called, a partial when it is made. The two agree
where each variable it reads has one value from its binding on: bound once in the
function (a parameter, or one assignment in no loop), never deleted, written into,
changed by a method or declared `nonlocal` or `global` anywhere. A function that is
anything else, or that is read other than called or passed as an argument (returned,
stored, read by another nested function), is left as it is, and a differentiated value it
reads is refused where it is passed (E212): srcad cannot follow where it goes."""

from __future__ import annotations

import functools
import types

import gast

from srcad import syntax
from srcad.source import FunctionSource
from srcad.syntax import LOAD, make

# The scopes of their own inside a function: their bindings are not the function's.
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_LOOPS = (gast.For, gast.AsyncFor, gast.While)


def pass_captured_values(function: gast.FunctionDef, source: FunctionSource) -> None:
    """Rewrite, in place, each nested function of `function` passed as a value that can
    take the variables it reads as arguments (see the module's docstring)."""
    nested = _nested_functions(function)
    if not nested:
        return
    parents = {c: n for n in syntax.walk(function) for c in syntax.children(n)}
    own = _own_names(function)
    declared = {
        name
        for node in syntax.walk(function)
        if isinstance(node, gast.Global | gast.Nonlocal)
        for name in node.names
    }
    reads: dict[str, list[gast.Name]] = {}
    for node in syntax.walk(function):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            reads.setdefault(node.id, []).append(node)
    partial_name: str | None = None
    for name, (definition, arguments, body) in nested.items():
        uses = [n for n in own.get(name, []) if isinstance(n.ctx, gast.Load)]
        if len(uses) != len(reads.get(name, [])):
            continue  # read in a nested scope too, which would call it without what it reads
        passed = [n for n in uses if _passed(n, parents)]
        if not passed or name in declared:
            continue
        if not all(_passed(n, parents) or _called(n, parents) for n in uses):
            continue  # returned, stored, or read otherwise: E212 where it reads one
        captured = _captured(definition, arguments, body, own, nested, declared, parents)
        if not captured:
            continue
        if partial_name is None:
            partial_name = _cell_name(function, source)
        _take_as_arguments(arguments, captured)
        for use in uses:
            parent = parents[use]
            if _called(use, parents):
                assert isinstance(parent, gast.Call)
                parent.args[:0] = [_load(c, use) for c in captured]
            else:
                _replace(parent, use, _partial(partial_name, use, captured))


def _nested_functions(
    function: gast.FunctionDef,
) -> dict[str, tuple[gast.AST, gast.arguments, list[gast.AST]]]:
    """Each nested function defined once, in `function`'s own scope, by `def` (with no
    decorator) or by `name = lambda ...`: its definition, parameters and body."""
    found: dict[str, tuple[gast.AST, gast.arguments, list[gast.AST]]] = {}
    for node in _own_nodes(function):
        if isinstance(node, gast.FunctionDef) and not node.decorator_list:
            found[node.name] = (node, node.args, list(node.body))
        elif (
            isinstance(node, gast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], gast.Name)
            and isinstance(node.value, gast.Lambda)
        ):
            lam = node.value
            found[node.targets[0].id] = (node, lam.args, [lam.body])
    bound = _own_names(function)
    defined = [n.name for n in _own_nodes(function) if isinstance(n, gast.FunctionDef)]
    return {
        name: entry
        for name, entry in found.items()
        if defined.count(name) + sum(not isinstance(n.ctx, gast.Load) for n in bound.get(name, []))
        == 1
    }


def _own_nodes(function: gast.FunctionDef) -> list[gast.AST]:
    """The nodes of `function`'s own scope: not those inside its nested functions, lambdas
    or classes (their definitions are), nor the targets of its comprehensions."""
    nodes: list[gast.AST] = []
    pending = list(syntax.children(function))
    while pending:
        node = pending.pop()
        nodes.append(node)
        if isinstance(node, _SCOPES):
            continue
        pending.extend(syntax.children(node))
    return nodes


def _own_names(function: gast.FunctionDef) -> dict[str, list[gast.Name]]:
    """The name nodes of `function`'s own scope, by name (comprehension targets left out:
    each comprehension's own variable)."""
    targets = {
        id(n)
        for c in syntax.walk(function)
        if isinstance(c, _COMPREHENSIONS)
        for g in c.generators
        for n in syntax.walk(g.target)
    }
    names: dict[str, list[gast.Name]] = {}
    for node in _own_nodes(function):
        if isinstance(node, gast.Name) and id(node) not in targets:
            names.setdefault(node.id, []).append(node)
    return names


def _called(use: gast.AST, parents: dict[gast.AST, gast.AST]) -> bool:
    parent = parents.get(use)
    return isinstance(parent, gast.Call) and parent.func is use


def _passed(use: gast.Name, parents: dict[gast.AST, gast.AST]) -> bool:
    """Whether `use` is an argument of a call, by position (not unpacked) or by keyword."""
    parent = parents.get(use)
    if isinstance(parent, gast.Call):
        return any(a is use for a in parent.args)
    if isinstance(parent, gast.keyword) and parent.arg is not None:
        return isinstance(parents.get(parent), gast.Call)
    return False


def _captured(
    definition: gast.AST,
    arguments: gast.arguments,
    body: list[gast.AST],
    own: dict[str, list[gast.Name]],
    nested: dict[str, tuple[gast.AST, gast.arguments, list[gast.AST]]],
    declared: set[str],
    parents: dict[gast.AST, gast.AST],
) -> list[str]:
    """The variables of the function that the nested function reads, in order of first
    read; empty where one of them may have more than one value from its binding on (or
    is another nested function, or the nested function itself: left as they are)."""
    inside = [n for b in body for n in syntax.walk(b)]
    inside += [
        n for d in [*arguments.defaults, *arguments.kw_defaults] if d for n in syntax.walk(d)
    ]
    if any(isinstance(n, gast.Global | gast.Nonlocal) for n in inside):
        return []
    local = {n.id for n in inside if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    local |= {n.id for n in syntax.walk(arguments) if isinstance(n, gast.Name)}
    local |= {n.name for n in inside if isinstance(n, gast.FunctionDef | gast.ClassDef)}
    read = dict.fromkeys(
        n.id
        for n in inside
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in local
    )
    # (A name the function only reads is a global, a cell or a builtin: no variable of it.)
    captured = [n for n in read if any(not isinstance(u.ctx, gast.Load) for u in own.get(n, []))]
    for name in captured:
        if name in nested or name in declared or not _fixed(name, own[name], parents):
            return []
    return captured


def _fixed(name: str, nodes: list[gast.Name], parents: dict[gast.AST, gast.AST]) -> bool:
    """Whether the variable `name` holds one value from its binding on: bound once, by a
    parameter or an assignment in no loop, and never written into or changed by a method
    (an array's `x[0] = v`, a list's `xs.append(v)`) in the function's own scope."""
    bindings = [n for n in nodes if not isinstance(n.ctx, gast.Load)]
    if len(bindings) != 1:
        return False
    binding = bindings[0]
    if not isinstance(binding.ctx, gast.Param):
        node: gast.AST = binding
        while node in parents:
            parent = parents[node]
            if isinstance(parent, gast.AugAssign):
                return False
            if isinstance(parent, _LOOPS) and node is not getattr(parent, "iter", None):
                return False  # bound again on each pass (`for name in`, or in the body)
            if isinstance(parent, _SCOPES):
                break
            node = parent
    for use in nodes:
        parent = parents.get(use)
        if isinstance(parent, gast.Subscript | gast.Attribute) and parent.value is use:
            if not isinstance(parent.ctx, gast.Load):
                return False  # written into
            if isinstance(parent, gast.Attribute) and _called(parent, parents):
                return False  # a method, which may change it
    return True


def _take_as_arguments(arguments: gast.arguments, captured: list[str]) -> None:
    """The nested function's parameters, the captured variables first."""
    params = [make(gast.Name, id=c, ctx=gast.Param(), annotation=None, type_comment=None)
              for c in captured]  # fmt: skip
    if arguments.posonlyargs:
        arguments.posonlyargs[:0] = params
    else:
        arguments.args[:0] = params


def _partial(partial_name: str, use: gast.Name, captured: list[str]) -> gast.Call:
    """`partial(use, *captured)`, where `use` was."""
    call = make(
        gast.Call,
        func=_load(partial_name, use),
        args=[use, *(_load(c, use) for c in captured)],
        keywords=[],
    )
    return syntax.located(call, use)


def _load(name: str, where: gast.AST) -> gast.Name:
    return syntax.located(make(gast.Name, id=name, ctx=LOAD, annotation=None, type_comment=None),
                          where)  # fmt: skip


def _replace(parent: gast.AST, old: gast.expr, new: gast.expr) -> None:
    if isinstance(parent, gast.keyword):
        parent.value = new
        return
    assert isinstance(parent, gast.Call)
    parent.args = [new if a is old else a for a in parent.args]


def _cell_name(function: gast.FunctionDef, source: FunctionSource) -> str:
    """A name for `functools.partial` in the function's closure, read by nothing else."""
    used = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
    name, count = "partial", 1
    while name in used or (
        name in source.closure and source.closure[name].cell_contents is not functools.partial
    ):
        count += 1
        name = f"partial_{count}"
    source.closure[name] = types.CellType(functools.partial)
    source.made |= {name}
    return name

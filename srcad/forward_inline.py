"""The forward rule of a `jvp` entry's branch, written into the branch (`srcad/forward_entry.py`).

Calling the rule costs the entry a call, a tuple of tangents built and unpacked again, and
the rule's result unpacked: about as much as a short rule's body (Horner's polynomial).
So the branch runs the rule's own statements, as srcad generated them for its kinds:

    if (type(arg0) is float or type(arg0) is float64_scalar) and (...):
        x__0 = arg0                       # a parameter the rule assigns, renamed
        p__0 = 0.0                        # the rule's locals, `__0` for this rule
        ...
        y = sin_p__0 + exp__0             # each `return (y, y_dot)` of the rule
        y_dot = sin_p_dot__0 + ...
        if type(y_dot) is type(y):
            return (y, y_dot)
        return finish(y, y_dot)

The inlined copy must see what the called rule would see:

- its parameters: the entry's `arg{i}` and `arg{i}_dot` (a parameter the rule assigns is
  copied into its own local first), and `NO_TANGENT` for the tangent of the function;
- its locals: renamed `{name}__{n}` (`n` numbers the rules inlined by this dispatcher), so
  that they clash with no name of the entry's, of another branch's, or of another copy;
- srcad's runtime names (closure cells of the rule bound once when it is compiled):
  their objects, in the entry's namespace as `{name}__g{n}`;
- its globals: a name whose identity the branch's guards check (`h['cos'] is e`, or
  absent from the module and `builtins['abs'] is e`) is that object, bound as a runtime
  name is: the entry tests the guard before the branch runs; a name whose type or
  structure only is checked (`TOLERANCE = 1e-10`) is read live, `globals__g{n}['TOLERANCE']`,
  from the rule's own module namespace, as the rule reads it. Any other global: not inlined.

A rule is not inlined (the branch calls it, as before) where any of that does not hold, or
where inlining would change what runs: a rule reading `dargs` otherwise than unpacking it
first; closures over the user's cells; nested functions, lambdas, classes,
comprehensions, generators, `global`/`nonlocal`, imports, `try` (its handlers would catch
what `finish` raises) and `with` (`finish` would run inside it); names that read the
frame (`locals`, `vars`...); a body that does not end in `return` or `raise`; one larger
than `MAX_NODES`; a rule with keyword-only parameters (their defaults are read per call),
or one that calls functions through their own generated rules (they may run the user's
code, which could rebind a global the copy holds as an object). The entry's position of
each inlined statement is the user's line the rule's statement came from
(`tracebacks.record_positions`), so a refusal raised in it names the user's line.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import gast

from srcad import syntax, tracebacks
from srcad.emit import CompiledRule
from srcad.guards import MISSING, Guards

MAX_NODES = 2000  # the size of rule inlined (Horner's, unrolled: about 300 nodes)

# What inlining would change the meaning of: a scope of its own, a name bound elsewhere,
# a handler or context `finish` would run inside.
_KEPT = (
    gast.FunctionDef,
    gast.AsyncFunctionDef,
    gast.Lambda,
    gast.ClassDef,
    gast.GeneratorExp,
    gast.ListComp,
    gast.SetComp,
    gast.DictComp,
    gast.Yield,
    gast.YieldFrom,
    gast.Await,
    gast.Global,
    gast.Nonlocal,
    gast.Import,
    gast.ImportFrom,
    gast.Try,
    gast.With,
    gast.AsyncWith,
    gast.AsyncFor,
    *(getattr(gast, name) for name in ("Match", "TryStar") if hasattr(gast, name)),
)
_FRAME_READERS = frozenset({"locals", "vars", "dir", "eval", "exec", "globals", "super"})

# `finish(y, y_dot)`: the statements a `return` of the rule becomes, given its value's two
# parts (a tuple `(y, y_dot)` written out) or the value whole.
Finish = Callable[[gast.expr | None, gast.expr | None, gast.expr | None], list[gast.stmt]]


def inlined(
    compiled: CompiledRule,
    guards: Guards,
    number: int,
    count: int,
    namespace: dict[str, Any],
    finish: Finish,
) -> list[gast.stmt] | None:
    """The statements of the forward rule `compiled`, written for a branch of an entry whose
    arguments are `arg0...` and tangents `arg0_dot...` (`count` of each), with the objects
    they read added to `namespace`; None where it is kept as a call (the module's docstring)."""
    rule = compiled.function
    if not isinstance(rule, types.FunctionType):
        return None
    code = rule.__code__
    if (
        compiled.callees
        or compiled.directions
        or code.co_kwonlyargcount
        or code.co_flags & 0x0C  # *args, **kwargs
        or code.co_argcount != count + 1
        or code.co_cellvars
    ):
        return None
    tree = syntax.parse(compiled.source)
    definition = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(definition, gast.FunctionDef) or not definition.body:
        return None
    nodes = [node for statement in definition.body for node in syntax.walk(statement)]
    if len(nodes) > MAX_NODES or any(isinstance(node, _KEPT) for node in nodes):
        return None
    if not isinstance(definition.body[-1], gast.Return | gast.Raise):
        return None
    unpack, *body = definition.body
    dargs, *parameters = code.co_varnames[: code.co_argcount]
    tangents = _unpacked(unpack, dargs, count + 1)
    if tangents is None:
        return None
    names = [n for statement in body for n in syntax.walk(statement) if isinstance(n, gast.Name)]
    stored = {n.id for n in names if not isinstance(n.ctx, gast.Load)}
    used = {n.id for n in names}
    if dargs in used or used & _FRAME_READERS:
        return None
    objects = _objects(rule, compiled, guards, used - set(code.co_varnames))
    if objects is None:
        return None
    renamed: dict[str, str] = {}
    start: list[gast.stmt] = []
    given = [(p, f"arg{i}") for i, p in enumerate(parameters)]
    given += [(t, f"arg{i - 1}_dot" if i else "NO_TANGENT") for i, t in enumerate(tangents)]
    for name, value in given:
        if name not in used:
            continue
        if name in stored or value == "NO_TANGENT":
            renamed[name] = f"{name}__{number}"
            start.append(_assign(renamed[name], syntax.load(value)))
        else:
            renamed[name] = value
    for name in code.co_varnames:
        renamed.setdefault(name, f"{name}__{number}")
    for name, (live, value) in objects.items():
        renamed[name] = f"{name}__g{number}"
        namespace[renamed[name]] = value
        if live:
            namespace[f"globals__g{number}"] = rule.__globals__
    lines = _user_lines(compiled)
    written = [_rewritten(s, renamed, objects, number, finish, lines) for s in body]
    return start + [s for statements in written for s in statements]


def _unpacked(statement: gast.stmt, dargs: str, count: int) -> list[str] | None:
    """The names `_, x_dot = dargs` binds, in order; None for any other first statement."""
    if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if not (isinstance(value, gast.Name) and value.id == dargs and isinstance(target, gast.Tuple)):
        return None
    names = [t.id for t in target.elts if isinstance(t, gast.Name)]
    if len(names) != count or len(set(names)) != count:
        return None
    return names


def _objects(
    rule: types.FunctionType, compiled: CompiledRule, guards: Guards, free: set[str]
) -> dict[str, tuple[bool, Any]] | None:
    """For each name `free` of the rule's locals: (read live from its module, the object
    to bind: its globals for a live read); None where one is neither srcad's runtime name
    nor a global the guards check."""
    cells = dict(zip(rule.__code__.co_freevars, rule.__closure__ or (), strict=True))
    space = rule.__globals__
    builtins = space.get("__builtins__")
    checked: dict[tuple[int, str], list[Any]] = {}
    for fact in guards.facts:
        if fact.kind == "item":
            checked.setdefault((id(fact.holder), fact.key), []).append(fact)
    objects: dict[str, tuple[bool, Any]] = {}
    for name in free:
        if name in cells:
            if name not in compiled.runtime:
                return None  # a cell of the user's: read live by the rule
            objects[name] = (False, cells[name].cell_contents)
            continue
        found = _identity(checked.get((id(space), name), []))
        if found is MISSING:
            found = _identity(checked.get((id(builtins), name), []))
        if found is not None and found is not MISSING:
            objects[name] = (False, found)
        elif checked.get((id(space), name)) and name in space:
            objects[name] = (True, space)  # its type or structure checked: read live
        else:
            return None
    return objects


def _identity(facts: list[Any]) -> Any:
    """The object the facts about one name say it is (MISSING: absent), or None."""
    for fact in facts:
        if not (fact.of_type or fact.of_structure):
            return fact.expected
    return None


def _user_lines(compiled: CompiledRule) -> dict[int, tuple[str, int]]:
    """The user's file and line of each line of the rule's text that has one."""
    lines = compiled.source.count("\n") + 2
    found = {n: tracebacks.origin(compiled.filename, n) for n in range(1, lines)}
    return {n: where for n, where in found.items() if where is not None}


def _rewritten(
    statement: gast.stmt,
    renamed: dict[str, str],
    objects: dict[str, tuple[bool, Any]],
    number: int,
    finish: Finish,
    lines: dict[int, tuple[str, int]],
) -> list[gast.stmt]:
    """`statement` with its names renamed, each `return` made `finish`'s statements, and
    each statement's position the user's line its rule's statement came from."""
    copy = syntax.copy_tree(statement)
    _positions(copy, lines)
    _NameWriter(renamed, objects, number).visit(copy)
    return _ReturnWriter(finish).statements(copy)


def _positions(statement: gast.AST, lines: dict[int, tuple[str, int]]) -> None:
    for node in syntax.walk(statement):
        if isinstance(node, gast.stmt):
            node.srcad_origin = lines.get(getattr(node, "lineno", 0) or 0)


class _NameWriter(gast.NodeTransformer):
    def __init__(self, renamed: dict[str, str], objects: dict[str, Any], number: int) -> None:
        self.renamed, self.objects, self.number = renamed, objects, number

    def visit_Name(self, node: gast.Name) -> gast.expr:  # noqa: N802 (the visitor's name)
        if self.objects.get(node.id, (False,))[0]:  # a global read live from its module
            space = syntax.load(f"globals__g{self.number}")
            key = gast.Constant(value=node.id, kind=None)
            return gast.Subscript(value=space, slice=key, ctx=gast.Load())
        node.id = self.renamed[node.id]
        return node


class _ReturnWriter:
    """Each `return value` of a body made the statements `finish` gives for it."""

    def __init__(self, finish: Finish) -> None:
        self.finish = finish

    def statements(self, statement: gast.stmt) -> list[gast.stmt]:
        if isinstance(statement, gast.Return):
            value = statement.value
            pair = isinstance(value, gast.Tuple) and len(value.elts) == 2
            parts = value.elts if pair else (None, None)
            written = self.finish(None if pair else value, *parts)
            for part in written:
                part.srcad_origin = getattr(statement, "srcad_origin", None)
            return written
        for field in ("body", "orelse"):
            block = getattr(statement, field, None)
            if isinstance(block, list):
                setattr(statement, field, [s for b in block for s in self.statements(b)])
        return [statement]


def _assign(name: str, value: gast.expr) -> gast.Assign:
    return gast.Assign(targets=[syntax.store(name)], value=value, type_comment=None)

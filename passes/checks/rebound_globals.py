"""ReboundGlobals: calls of code srcad does not read that rebind a global the function reads.

srcad reads a module constant once, on entry, as a fact fixed for the call (`Constants`,
`FunctionSource.constant_kind`), and `Mutations` proves the code it reads rebinds none.
A function it does not read (a rule covers it, or it is marked
`srcad.non_differentiable`) runs as it is, and may rebind one while the function runs:

    def bump():                        def f(x):
        global SCALE                       y = x * SCALE
        SCALE += 1.0                       bump()  # refused here
                                           return y + SCALE * x

The derivative would use the value `SCALE` had on entry after the call too. Such a call
is refused where the function it calls, or any Python function that one names (its
globals, the attributes of the modules it names, its closure cells and defaults:
`named_values`, which `constants.reached_by_unread_code` walks too), stores (`global
NAME` and an assignment or `del`; `module.NAME = ...`, of its own module too where it
names `modules`: `sys.modules[__name__].NAME = ...`) a name the function, or a function
srcad reads from it, names in the same module. A call of `globals`, `exec` or `eval` in
such a function counts as a store of every name of its module and the modules it names;
of `setattr`, `delattr` or `vars`, of every name of the modules it names (and its own,
where it names `modules`). Calls of a value known only when the code runs are not
followed (`Mutations` refuses one whose result is unused).
"""

from __future__ import annotations

import dis
import functools
import inspect
import types
from typing import Any

import gast

from srcad import syntax
from srcad.errors import Diagnostic, SrcadError
from srcad.guards import name_facts
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.checks.callees import static_path
from srcad.passes.checks.in_place import TRUSTED_MODULES
from srcad.passes.checks.mutations import REBOUND_OUTSIDE
from srcad.passes.transforms.declarations import counts_only
from srcad.registry import Registry
from srcad.source import function_source

# A global: the id of the namespace that holds it (a module's `vars`) and its name.
Place = tuple[int, str]
EVERY = "*"  # the name of a store that may rebind any name of its namespace

_STORES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL"})
_STORE_GLOBAL = dis.opmap["STORE_GLOBAL"]  # (an opcode byte: a quick test before `dis` reads it)
_ATTRIBUTE_STORES = frozenset({"STORE_ATTR", "DELETE_ATTR"})
# Builtins that may store any name of a module: of its own and those it names; of the
# modules it names (of its own too where it names `modules`: `sys.modules[__name__]`).
_SETTERS = frozenset({"globals", "exec", "eval"})
_ATTRIBUTE_SETTERS = frozenset({"setattr", "delattr", "vars"})


class ReboundGlobals(Analysis[list[Diagnostic]]):
    """Each call, in the function or a function nested in it, of a function srcad does not
    read that may rebind a global the function reads (see the module's docstring)."""

    def run(self, tree: gast.Module, ctx: Context) -> list[Diagnostic]:
        function = function_of(tree)
        func = ctx.source.func
        registry = ctx.services.registry
        code = getattr(func, "__code__", None)
        if not isinstance(func, types.FunctionType) or code is None:
            return []
        own = {*code.co_varnames, *code.co_cellvars}
        own_names = _names(code)
        reads = functools.cache(lambda: _reads(func, registry))
        stores = functools.cache(lambda callee: _unread_stores(callee, registry))
        found: list[Diagnostic] = []
        for node in syntax.walk(function):
            if not isinstance(node, gast.Call):
                continue
            path = static_path(node.func)
            if path is None or path[0] in own or path[0] in ctx.source.enclosing:
                continue
            # (Not `FunctionSource.resolve`: `Callees` records the facts of the names called.)
            _, where, callee = name_facts(path, ctx.source.closure, ctx.source.globals)
            if where not in ("global", "closure") or not user_function(callee):
                continue
            rebound = [
                (name, by) for place, (name, by) in stores(callee).items() if place in reads()
            ]
            rebound += [  # through `globals()`, `setattr`...: the names it reads from there
                (name, by)
                for (space, stored), (_, by) in stores(callee).items()
                for read, name in reads()
                if stored == EVERY and read == space and name in own_names
            ]
            if not rebound:
                continue
            names = ", ".join(sorted({f"`{name}`" for name, _ in rebound}))
            by = ", ".join(sorted({f"`{b}`" for _, b in rebound}))
            found.append(
                ctx.diagnostic(
                    node,
                    REBOUND_OUTSIDE,
                    f"`{'.'.join(path)}(...)` may rebind the global(s) {names} (in {by}, "
                    f"which srcad does not read: a rule covers it or it is marked "
                    f"non-differentiable) while `{func.__qualname__}` runs, which reads "
                    "them: srcad reads a global once, on entry, so its derivative would "
                    "use the old value after this call",
                    "pass the value as an argument instead, or do not rebind the global "
                    "in a function called while the differentiated one runs",
                )
            )
        return found + _read_counters(function, func, registry, ctx)


def _read_counters(
    function: gast.FunctionDef, func: types.FunctionType, registry: Registry, ctx: Context
) -> list[Diagnostic]:
    """Each global that `func`, or a function srcad reads from it, counts or flags in
    (`declarations.counts_only`: its callers' checks take that) while one of those reads
    it other than so, or code srcad does not read names it: at the first call in
    `function` that reaches the function that reads it."""
    reached = _reached(func, registry, unread=False)
    counters: dict[Place, types.FunctionType] = {}
    for writer, unread in reached:
        stores = not unread and any(
            _STORE_GLOBAL in c.co_code[::2] for c in _codes(writer.__code__)
        )
        for instruction in _instructions(writer.__code__) if stores else []:
            name = instruction.argval
            if instruction.opname == "STORE_GLOBAL" and _counts_only(writer, name):
                counters.setdefault((id(writer.__globals__), name), writer)
    found: list[Diagnostic] = []
    for reader, unread in reached if counters else []:
        names = _names(reader.__code__)
        places = {(id(space), n) for space in _spaces(reader, names) for n in names if n in space}
        for place in sorted(places & counters.keys(), key=lambda p: p[1]):
            if unread or not _counts_only(reader, place[1]):
                why = " (a rule covers it or it is marked non-differentiable)" if unread else ""
                found.append(
                    ctx.diagnostic(
                        _place_reaching(function, reader, place[1], registry, ctx),
                        REBOUND_OUTSIDE,
                        f"`{counters[place].__qualname__}` counts in the global `{place[1]}`, "
                        f"which `{reader.__qualname__}` reads{why}: srcad reads a global "
                        "once, on entry, so its derivative could use the value from before "
                        "the count changed",
                        "read the count outside the function differentiated, or pass the "
                        "value as an argument",
                    )
                )
    writers = {id(w) for w in counters.values()}
    found += _counted_lazily(function, writers, registry, ctx)
    for generator, _ in reached if counters else []:
        if generator is func or not inspect.isgeneratorfunction(generator):
            continue
        if any(id(f) in writers for f, _ in _reached(generator, registry, unread=False)):
            found.append(
                ctx.diagnostic(
                    _place_reaching(function, generator, "", registry, ctx),
                    REBOUND_OUTSIDE,
                    f"the generator `{generator.__qualname__}` counts in a global, itself or "
                    "through a function it calls: srcad runs a generator to its end where it "
                    "is called, so would count the items its caller never asks for",
                    "count in the function that reads the items, or return a list",
                )
            )
    return found


def _counted_lazily(
    function: gast.FunctionDef, writers: set[int], registry: Registry, ctx: Context
) -> list[Diagnostic]:
    """Each lazy iterator in `function` (a generator expression, `map`, `filter`,
    `itertools`) whose items call a function that counts in a global: srcad computes all
    its items where it is made, Python those asked for."""
    if not writers:
        return []
    nested = {n.name: n for n in syntax.walk(function) if isinstance(n, gast.FunctionDef)}
    found = []
    for node in syntax.walk(function):
        if not _makes_lazily(node, ctx):
            continue
        names = {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)}
        for name in sorted(names & nested.keys()):  # (and what a nested function it names calls)
            names |= {n.id for n in syntax.walk(nested[name]) if isinstance(n, gast.Name)}
        for name in sorted(names):
            _, where, value = name_facts([name], ctx.source.closure, ctx.source.globals)
            reached = _reached(value, registry, False) if user_function(value) else []
            if where in ("global", "closure") and any(id(f) in writers for f, _ in reached):
                found.append(ctx.diagnostic(
                    node, REBOUND_OUTSIDE, f"`{name}` counts in a global, itself or through "
                    "a function it calls, and is called for the items of a lazy iterator: "
                    "srcad computes them all where it is made, so would count the items "
                    "never asked for",
                    "count in the function that reads the items, or make a list "
                    "(`[... for ...]`)",
                ))  # fmt: skip
                break
    return found


def _makes_lazily(node: gast.AST, ctx: Context) -> bool:
    """Whether `node` makes a lazy iterator whose items call functions."""
    if isinstance(node, gast.GeneratorExp):
        return True
    path = static_path(node.func) if isinstance(node, gast.Call) else None
    if path is None:
        return False
    _, _, made_by = name_facts(path, ctx.source.closure, ctx.source.globals)
    return made_by is map or made_by is filter or getattr(made_by, "__module__", "") == "itertools"


def _counts_only(function: types.FunctionType, name: str) -> bool:
    """Whether `function`'s source writes the global `name` as a counter or flag alone."""
    try:
        return counts_only(function_source(function).tree(), name)
    except SrcadError:
        return False


def _place_reaching(
    function: gast.FunctionDef, target: types.FunctionType, name: str, registry: Registry,
    ctx: Context,
) -> gast.AST:  # fmt: skip
    """Where `function` reads the global `name` (`target` is the function compiled), else
    its first call of a function that names `target`, transitively, else the function."""
    for node in syntax.walk(function) if target is ctx.source.func else ():
        if isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load):
            return node
    for node in syntax.walk(function):
        path = static_path(node.func) if isinstance(node, gast.Call) else None
        if path is None:
            continue
        _, where, callee = name_facts(path, ctx.source.closure, ctx.source.globals)
        reached = _reached(callee, registry, False) if user_function(callee) else []
        if where in ("global", "closure") and any(f is target for f, _ in reached):
            return node
    return function


def _reads(func: types.FunctionType, registry: Registry) -> set[Place]:
    """The globals (and module attributes) that `func` and the Python functions srcad
    reads from it (those it names, transitively, that no rule covers) may read: each name
    their code names that its module, or a module it names, holds."""
    found: set[Place] = set()
    for function, unread in _reached(func, registry, unread=False):
        if not unread:
            names = _names(function.__code__)
            for space in _spaces(function, names):
                found |= {(id(space), n) for n in names if n in space}
    return found


def _unread_stores(callee: Any, registry: Registry) -> dict[Place, tuple[str, str]]:
    """The globals the functions srcad does not read among those a call of `callee` may
    run (`callee`, where it is one, and those reached from it) store: each with its name
    and the function that stores it."""
    if not user_function(callee):
        return {}
    stores: dict[Place, tuple[str, str]] = {}
    for function, unread in _reached(callee, registry, unread=_covered(callee, registry)):
        if not unread:
            continue
        code, by = function.__code__, function.__qualname__
        names = _names(code)
        spaces = _spaces(function, names)
        modules = spaces[1:]
        for instruction in _instructions(code):
            if instruction.opname in _STORES:
                stores[(id(spaces[0]), instruction.argval)] = (instruction.argval, by)
            elif instruction.opname in _ATTRIBUTE_STORES:  # `module.NAME = ...`
                for space in spaces if "modules" in names else modules:
                    stores[(id(space), instruction.argval)] = (instruction.argval, by)
        called = names - set(function.__globals__)  # the builtins it names
        if called & _SETTERS or (called & _ATTRIBUTE_SETTERS and "modules" in names):
            everywhere = spaces  # (`setattr(sys.modules[__name__], ...)`)
        else:
            everywhere = modules if called & _ATTRIBUTE_SETTERS else []
        for space in everywhere:
            stores[(id(space), EVERY)] = (EVERY, by)
    return stores


def _reached(
    start: types.FunctionType, registry: Registry, unread: bool
) -> list[tuple[types.FunctionType, bool]]:
    """`start` and the Python functions of users' modules it names, transitively, each
    with whether srcad does not read it: one a rule covers, or one reached from such."""
    found: list[tuple[types.FunctionType, bool]] = []
    seen: set[tuple[int, bool]] = set()
    pending = [(start, unread)]
    while pending:
        function, unread = pending.pop()
        if (id(function), unread) in seen:
            continue
        seen.add((id(function), unread))
        found.append((function, unread))
        for value in named_values(function):
            if user_function(value):
                pending.append((value, unread or _covered(value, registry)))
    return found


def named_values(function: types.FunctionType) -> list[Any]:
    """What `function` names: its closure cells' and defaults' values, and what its module,
    and the modules it names, hold under the names its code names (read from their dicts:
    no `__getattr__` of a module runs)."""
    names = _names(function.__code__)
    cells = [c.cell_contents for c in function.__closure__ or () if _filled(c)]
    values = [*cells, *(function.__defaults__ or ())]
    return values + [space[n] for space in _spaces(function, names) for n in names if n in space]


def _spaces(function: types.FunctionType, names: set[str]) -> list[dict[str, Any]]:
    """`function`'s module namespace, then those of the modules it names."""
    space = function.__globals__
    modules = [space[n] for n in names if isinstance(space.get(n), types.ModuleType)]
    return [space, *(vars(m) for m in modules)]


def _names(code: types.CodeType) -> set[str]:
    """The global and attribute names `code` and the code nested in it name."""
    return {n for c in _codes(code) for n in c.co_names}


def _instructions(code: types.CodeType) -> list[dis.Instruction]:
    return [i for c in _codes(code) for i in dis.get_instructions(c)]


def _codes(code: types.CodeType) -> list[types.CodeType]:
    found, pending = [], [code]
    while pending:
        current = pending.pop()
        found.append(current)
        pending += [c for c in current.co_consts if isinstance(c, types.CodeType)]
    return found


def _covered(value: Any, registry: Registry) -> bool:
    return registry.knows(value)


def user_function(value: Any) -> bool:
    """Whether `value` is a Python function of a user's module (not srcad's, NumPy's, ...)."""
    module = (getattr(value, "__module__", None) or "").partition(".")[0]
    return isinstance(value, types.FunctionType) and module not in TRUSTED_MODULES


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True

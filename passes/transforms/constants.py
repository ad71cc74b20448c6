"""Constants: read each module constant the code is specialised on once, on entry."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any

import gast

from srcad import syntax
from srcad.kinds import Structure
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.checks.callees import static_path
from srcad.passes.checks.rebound_globals import named_values, user_function
from srcad.passes.normal_form import COMPOUND, bound_names, walk_statements


class Constants(Transform):
    """Bind each global or closure cell the function reads whose kind specialised code
    relies on (a number, a tuple of floats, a float64 or integer array:
    `FunctionSource.constant_kind`, which records the guard; a container of parameters:
    `FunctionSource.constant_structure`), and each such attribute of
    a module (`math.pi`, `np.e`, `config.SCALE`), to a local on entry, and read the local
    instead.

    Two reasons. The derivatives ReverseAD inlines for known kinds read their operands
    where the pullback runs: a global read there would give the value it has when the
    pullback is called, not the one the forward sweep used, should the user rebind it in
    between (`y, pullback = rrule(f, x); SCALE = 2.0; pullback(1.0)`). And the guard is
    checked on entry, so the value read on entry is the one whose kind it checked. A
    local is also what Python reads fastest in a loop.

        def f(x):                      def f(x):
            return SCALE * x     ->        SCALE_2 = SCALE
                                           return SCALE_2 * x

        math.pi * x              ->    math_pi = math.pi  (first)
                                       ... math_pi * x

    And each item of a container of parameters that the code reads by a constant key
    (`RATES["decay"]`, `C[-1]`), which its guard proved is there on entry, and which the
    function cannot change while it runs (`Mutations`): a loop reading it would otherwise
    read it, and its tape keep it, on every iteration.

        for _ in range(n):             RATES_2 = RATES
            y = RATES["a"] * y   ->    RATES_a = RATES_2["a"]
                                       for _ in range(n):
                                           y = RATES_a * y

    Names read in a nested function are left as they are: its rule is compiled for any
    kinds and reads them when it runs, as its primal does.
    """

    requires = (Scopes,)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        bindings = ctx.analysis_result(Scopes).bindings
        locals_: dict[tuple[str, ...], str | None] = {}  # a (dotted) name: the local read
        structures: dict[tuple[str, ...], Structure] = {}  # those naming a container
        items: dict[tuple[tuple[str, ...], Any], str] = {}  # a container's item: its local

        # A name the function declares global or nonlocal and assigns (a counter: the
        # declarations pass keeps only those) is read where the function reads it: a local
        # read on entry would come before the declaration (a SyntaxError) and miss what the
        # function wrote since.
        declared = {
            name
            for node in syntax.walk(function)
            if isinstance(node, gast.Global | gast.Nonlocal)
            for name in node.names
        }

        def local_for(path: tuple[str, ...]) -> str | None:
            if path[0] in declared:
                return None
            if path not in locals_:  # its kind looked up once, at its first read
                locals_[path] = None
                parts = list(path)
                kind = ctx.source.constant_kind(parts) or ctx.source.constant_structure(parts)
                if kind is not None:
                    ctx.namer.reserve([path[0]])  # never the global's own name
                    locals_[path] = ctx.namer.fresh("_".join(path))
                if isinstance(kind, Structure):
                    structures[path] = kind
            return locals_[path]

        def item_local(node: gast.Subscript, name: str | None = None) -> str | None:
            """The local an item of a container of parameters is read into on entry, for
            `RATES["decay"]`: a constant key the container's structure has (`name`, where
            it has none yet)."""
            path, key = static_path(node.value), _constant_key(node.slice)
            if path is None or key is None:
                return None
            local_for(tuple(path))
            structure = structures.get(tuple(path))
            if structure is None or not _has_item(structure, key):
                return None
            if structure.container is not tuple and id(value_of(ctx, path)) in reached():
                return None  # a function srcad does not read may change it: read as it is
            place = (tuple(path), key)
            if place not in items:
                base = f"{'_'.join(path)}_{key}".replace("-", "_")
                items[place] = name or ctx.namer.fresh(base)
            return items[place]

        reached = functools.cache(lambda: reached_by_unread_code(ctx.services.registry.covered()))

        def read(node: gast.expr, replace: Replace) -> None:
            if isinstance(node, gast.Subscript):
                item = item_local(node) if _outside(node.value, bindings) else None
                if item is not None:  # `RATES["decay"]` becomes the local
                    replace(gast.Name(item, gast.Load(), None, None))
                    return
                # (Not a call of `read`: a function calling itself is a reference cycle.)
                node, replace = node.value, functools.partial(setattr, node, "value")
            if not _outside(node, bindings):
                return
            path = static_path(node)
            assert path is not None
            local = local_for(tuple(path))
            if local is not None:  # the whole (dotted) name becomes the local
                replace(gast.Name(local, gast.Load(), None, None))
            elif len(path) > 1:  # `A.T` of a global array `A`: `A_2.T`
                root = node
                while isinstance(root, gast.Attribute):
                    root = root.value
                assert isinstance(root, gast.Name)
                root.id = local_for((path[0],)) or root.id

        # A name ToANF gave an item read (`RATES_decay = RATES["decay"]`, in a loop), bound
        # nowhere else, becomes the item's local, read on entry: a loop's tape would
        # otherwise keep a copy of it on every iteration.
        code = ctx.source.func.__code__
        own = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
        stores = Counter(n for st in walk_statements(function.body) for n in bound_names(st))
        moved: set[int] = set()  # the statements reading an item so (by id)
        for statement in walk_statements(function.body):
            if isinstance(statement, gast.FunctionDef):
                continue
            target = _single_target(statement)
            value = getattr(statement, "value", None)
            if (
                target is not None
                and target not in own
                and stores[target] == 1
                and isinstance(value, gast.Subscript)
                and isinstance(value.ctx, gast.Load)
                and _outside(value.value, bindings)
                and item_local(value, target) == target
            ):
                moved.add(id(statement))
                continue
            for node, replace in _own_reads(statement):
                read(node, replace)
        if moved:
            _remove(function.body, moved)
        reads = [
            _assign(local, _dotted(path)) for path, local in locals_.items() if local is not None
        ]
        for (path, key), local in items.items():  # after the container's own read
            container = gast.Name(locals_[path], gast.Load(), None, None)
            key_node: gast.expr = gast.Constant(value=key, kind=None)
            if isinstance(key, int) and key < 0:  # as Python reads `-1`
                key_node = gast.UnaryOp(gast.USub(), gast.Constant(value=-key, kind=None))
            reads.append(_assign(local, gast.Subscript(container, key_node, gast.Load())))
        function.body[:0] = reads
        return bool(reads)


def _own_reads(
    statement: gast.stmt,
) -> list[tuple[gast.Name | gast.Attribute | gast.Subscript, Replace]]:
    """The names and dotted names (`math.pi`), and their items by a constant key
    (`RATES["decay"]`), a statement reads outside the blocks it
    holds (a loop's or branch's body is walked as statements of its own) and outside any
    nested function or lambda, the last part of the statement first, each with the
    function that puts another expression in its place.

    Through `syntax.child_fields`, the fields that may hold nodes: `benchmarks/
    profile_compile.py --phases` of robust_fit_loss had this pass take 1.0 to 1.4 ms,
    most of it in `gast.iter_fields` over every leaf of every statement."""
    found: list[tuple[gast.Name | gast.Attribute | gast.Subscript, Replace]] = []
    todo: list[tuple[gast.AST, Replace]] = [(statement, _nowhere)]
    while todo:
        node, replace = todo.pop()
        read = isinstance(node, (gast.Name, gast.Attribute)) and isinstance(node.ctx, gast.Load)
        if read and static_path(node) is not None:
            found.append((node, replace))
            continue
        if (  # an item of a (dotted) name, by a constant key: `RATES["decay"]`, `C[-1]`
            isinstance(node, gast.Subscript)
            and isinstance(node.ctx, gast.Load)
            and _constant_key(node.slice) is not None
            and static_path(node.value) is not None
        ):
            found.append((node, replace))
            continue
        if isinstance(node, gast.Name):
            continue
        for field_name in reversed(syntax.child_fields(node.__class__)):
            if field_name in ("body", "orelse") and node is statement:
                continue
            value = getattr(node, field_name, None)
            if isinstance(value, list):
                todo += [
                    (child, functools.partial(_set_item, value, k))
                    for k, child in enumerate(value)
                    if isinstance(child, gast.AST) and not isinstance(child, gast.Lambda)
                ]
            elif isinstance(value, gast.AST) and not isinstance(value, gast.Lambda):
                todo.append((value, functools.partial(setattr, node, field_name)))
    return found


Replace = Callable[[gast.expr], None]


def _nowhere(_: gast.expr) -> None:
    raise AssertionError("a statement is not an expression read")


def _set_item(items: list[gast.AST], index: int, node: gast.expr) -> None:
    items[index] = node


def _single_target(statement: gast.stmt) -> str | None:
    """The name `statement` assigns, for `name = value`."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        return target.id if isinstance(target, gast.Name) else None
    return None


def _remove(body: list[gast.stmt], statements: set[int]) -> None:
    """Take the statements whose ids are `statements` out of `body`, nested blocks
    included (as `walk_statements` walks them)."""
    body[:] = [statement for statement in body if id(statement) not in statements]
    for statement in body:
        if type(statement) in COMPOUND:
            compound: Any = statement
            _remove(compound.body, statements)
            _remove(getattr(compound, "orelse", []), statements)


def _outside(node: gast.expr, bindings: dict[gast.Name, str]) -> bool:
    """Whether the (dotted) name `node` starts with a global or closure cell."""
    root = node
    while isinstance(root, gast.Attribute):
        root = root.value
    return isinstance(root, gast.Name) and bindings.get(root) in ("global", "closure")


def _constant_key(node: gast.expr) -> int | str | None:
    """The key `node` writes, for a constant str or int (`"decay"`, `0`, `-1`)."""
    negative = isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
    constant = node.operand if isinstance(node, gast.UnaryOp) and negative else node
    if not isinstance(constant, gast.Constant) or type(constant.value) not in (int, str):
        return None
    if negative:
        return -constant.value if type(constant.value) is int else None
    value: int | str = constant.value
    return value


def _has_item(structure: Structure, key: Any) -> bool:
    """Whether a container of `structure` has the item `key` (a dict's key, or a tuple's
    or list's index), which its guard proves on entry."""
    if structure.container is dict:
        return key in structure.keys
    if structure.positional and type(key) is int:
        return -len(structure.items) <= key < len(structure.items)
    return False


def _assign(name: str, value: gast.expr) -> gast.Assign:
    return gast.Assign(
        targets=[gast.Name(name, gast.Store(), None, None)], value=value, type_comment=None
    )


def _dotted(path: tuple[str, ...]) -> gast.expr:
    """`math.pi` as a read."""
    node: gast.expr = gast.Name(path[0], gast.Load(), None, None)
    for attr in path[1:]:
        node = gast.Attribute(node, attr, gast.Load())
    return node


def value_of(ctx: Context, path: list[str]) -> Any:
    """The value the global or closure cell `path[0]` (or the module attribute `path`)
    holds now, as the guard found it."""
    cell = ctx.source.closure.get(path[0])
    value = cell.cell_contents if cell is not None else ctx.source.globals.get(path[0])
    for attribute in path[1:]:
        value = getattr(value, attribute, None)
    return value


def reached_by_unread_code(covered: list[Any]) -> set[int]:
    """The ids of the values that the Python functions of users' modules among `covered`
    (those a rule covers, which srcad does not read: nothing proves they change no global
    container) name, and the Python functions they name in turn: their globals, the
    attributes of the modules they name, their closure cells and defaults. An item of a
    container among them is read where the code reads it, not once on entry: a call of
    one of these functions may change it while the function runs."""
    reached: set[int] = set()
    pending = [f for f in covered if user_function(f)]
    seen: set[int] = set()
    while pending:
        function = pending.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        for value in named_values(function):
            reached.add(id(value))
            if user_function(value):
                pending.append(value)
    return reached

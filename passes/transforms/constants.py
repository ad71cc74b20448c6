"""Constants: read each module constant the code is specialised on once, on entry."""

from __future__ import annotations

import functools
from collections.abc import Callable

import gast

from srcad import syntax
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.checks.callees import static_path
from srcad.passes.normal_form import walk_statements


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

    Names read in a nested function are left as they are: its rule is compiled for any
    kinds and reads them when it runs, as its primal does.
    """

    requires = (Scopes,)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        bindings = ctx.analysis_result(Scopes).bindings
        locals_: dict[tuple[str, ...], str | None] = {}  # a (dotted) name: the local read

        def local_for(path: tuple[str, ...]) -> str | None:
            if path not in locals_:  # its kind looked up once, at its first read
                locals_[path] = None
                parts = list(path)
                kind = ctx.source.constant_kind(parts) or ctx.source.constant_structure(parts)
                if kind is not None:
                    ctx.namer.reserve([path[0]])  # never the global's own name
                    locals_[path] = ctx.namer.fresh("_".join(path))
            return locals_[path]

        for statement in walk_statements(function.body):
            if isinstance(statement, gast.FunctionDef):
                continue
            for node, replace in _own_reads(statement):
                root = node
                while isinstance(root, gast.Attribute):
                    root = root.value
                assert isinstance(root, gast.Name)
                if bindings.get(root) not in ("global", "closure"):
                    continue
                path = static_path(node)
                assert path is not None
                local = local_for(tuple(path))
                if local is not None:  # the whole (dotted) name becomes the local
                    replace(gast.Name(local, gast.Load(), None, None))
                elif len(path) > 1:  # `A.T` of a global array `A`: `A_2.T`
                    root.id = local_for((path[0],)) or root.id
        reads = [
            gast.Assign(
                targets=[gast.Name(local, gast.Store(), None, None)],
                value=_dotted(path),
                type_comment=None,
            )
            for path, local in locals_.items()
            if local is not None
        ]
        function.body[:0] = reads
        return bool(reads)


def _own_reads(statement: gast.stmt) -> list[tuple[gast.Name | gast.Attribute, Replace]]:
    """The names and dotted names (`math.pi`) a statement reads outside the blocks it
    holds (a loop's or branch's body is walked as statements of its own) and outside any
    nested function or lambda, the last part of the statement first, each with the
    function that puts another expression in its place.

    Through `syntax.child_fields`, the fields that may hold nodes: `benchmarks/
    profile_compile.py --phases` of robust_fit_loss had this pass take 1.0 to 1.4 ms,
    most of it in `gast.iter_fields` over every leaf of every statement."""
    found: list[tuple[gast.Name | gast.Attribute, Replace]] = []
    todo: list[tuple[gast.AST, Replace]] = [(statement, _nowhere)]
    while todo:
        node, replace = todo.pop()
        read = isinstance(node, (gast.Name, gast.Attribute)) and isinstance(node.ctx, gast.Load)
        if read and static_path(node) is not None:
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


def _dotted(path: tuple[str, ...]) -> gast.expr:
    """`math.pi` as a read."""
    node: gast.expr = gast.Name(path[0], gast.Load(), None, None)
    for attr in path[1:]:
        node = gast.Attribute(node, attr, gast.Load())
    return node

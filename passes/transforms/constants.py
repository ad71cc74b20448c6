"""Constants: read each module constant the code is specialised on once, on entry."""

from __future__ import annotations

import gast

from srcad.passes.analyses.scopes import Scopes
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.normal_form import walk_statements


class Constants(Transform):
    """Bind each global or closure cell the function reads whose kind specialised code
    relies on (a number, a tuple of floats, a float64 or integer array:
    `FunctionSource.constant_kind`, which records the guard) to a local on entry, and read
    the local instead.

    Two reasons. The derivatives ReverseAD inlines for known kinds read their operands
    where the pullback runs: a global read there would give the value it has when the
    pullback is called, not the one the forward sweep used, should the user rebind it in
    between (`y, pullback = rrule(f, x); SCALE = 2.0; pullback(1.0)`). And the guard is
    checked on entry, so the value read on entry is the one whose kind it checked. A
    local is also what Python reads fastest in a loop.

        def f(x):                      def f(x):
            return SCALE * x     ->        SCALE_2 = SCALE
                                           return SCALE_2 * x

    Names read in a nested function are left as they are: its rule is compiled for any
    kinds and reads them when it runs, as its primal does.
    """

    requires = (Scopes,)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        bindings = ctx.analysis_result(Scopes).bindings
        locals_: dict[str, str] = {}  # a constant's name: the local read instead
        for statement in walk_statements(function.body):
            if isinstance(statement, gast.FunctionDef):
                continue
            for node in _own_nodes(statement):
                if not isinstance(node, gast.Name) or not isinstance(node.ctx, gast.Load):
                    continue
                name = node.id
                if bindings.get(node) not in ("global", "closure"):
                    continue
                if name not in locals_:
                    if ctx.source.constant_kind(name) is None:
                        continue
                    ctx.namer.reserve([name])  # never the global's own name
                    locals_[name] = ctx.namer.fresh(name)
                node.id = locals_[name]
        reads = [
            gast.Assign(
                targets=[gast.Name(local, gast.Store(), None, None)],
                value=gast.Name(name, gast.Load(), None, None),
                type_comment=None,
            )
            for name, local in locals_.items()
        ]
        function.body[:0] = reads
        return bool(reads)


def _own_nodes(statement: gast.stmt) -> list[gast.AST]:
    """The nodes of a statement outside the blocks it holds (a loop's or branch's body is
    walked as statements of its own) and outside any nested function or lambda."""
    found: list[gast.AST] = []
    todo: list[gast.AST] = [statement]
    while todo:
        node = todo.pop()
        found.append(node)
        for field_name, value in gast.iter_fields(node):
            if field_name in ("body", "orelse") and node is statement:
                continue
            children = value if isinstance(value, list) else [value]
            todo += [
                child
                for child in children
                if isinstance(child, gast.AST) and not isinstance(child, gast.Lambda)
            ]
    return found

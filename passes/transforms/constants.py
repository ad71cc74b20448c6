"""Constants: read each module constant the code is specialised on once, on entry."""

from __future__ import annotations

import gast

from srcad import syntax
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
        locals_: dict[str, str | None] = {}  # a name read: the local read instead, or None
        for statement in walk_statements(function.body):
            if isinstance(statement, gast.FunctionDef):
                continue
            for node in _own_reads(statement):
                if bindings.get(node) not in ("global", "closure"):
                    continue
                name = node.id
                if name not in locals_:  # its kind looked up once, at its first read
                    locals_[name] = None
                    if ctx.source.constant_kind(name) is not None:
                        ctx.namer.reserve([name])  # never the global's own name
                        locals_[name] = ctx.namer.fresh(name)
                local = locals_[name]
                if local is not None:
                    node.id = local
        reads = [
            gast.Assign(
                targets=[gast.Name(local, gast.Store(), None, None)],
                value=gast.Name(name, gast.Load(), None, None),
                type_comment=None,
            )
            for name, local in locals_.items()
            if local is not None
        ]
        function.body[:0] = reads
        return bool(reads)


def _own_reads(statement: gast.stmt) -> list[gast.Name]:
    """The names a statement reads outside the blocks it holds (a loop's or branch's body
    is walked as statements of its own) and outside any nested function or lambda, the
    last part of the statement first.

    Through `syntax.child_fields`, the fields that may hold nodes: `benchmarks/
    profile_compile.py --phases` of robust_fit_loss had this pass take 1.0 to 1.4 ms,
    most of it in `gast.iter_fields` over every leaf of every statement."""
    found: list[gast.Name] = []
    todo: list[gast.AST] = [statement]
    while todo:
        node = todo.pop()
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                found.append(node)
            continue
        for field_name in reversed(syntax.child_fields(node.__class__)):
            if field_name in ("body", "orelse") and node is statement:
                continue
            value = getattr(node, field_name, None)
            children = value if isinstance(value, list) else [value]
            todo += [
                child
                for child in children
                if isinstance(child, gast.AST) and not isinstance(child, gast.Lambda)
            ]
    return found

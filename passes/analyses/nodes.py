"""Nodes: every node of the function, for the analyses that each look at all of them."""

from __future__ import annotations

import gast

from srcad import syntax
from srcad.passes.base import Analysis, Context, function_of


class Nodes(Analysis[list[gast.AST]]):
    """Every node of the function (itself first), in `syntax.walk`'s order: one walk of the
    tree between transforms, shared by the analyses that read each node, instead of one
    walk each."""

    def run(self, tree: gast.Module, ctx: Context) -> list[gast.AST]:
        return list(syntax.walk(function_of(tree)))

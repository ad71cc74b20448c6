"""The syntax the proofs of `passes/checks/fresh_values.py` read: what an assignment binds,
an item written, where a node's text ends, the methods the normal form writes as new
values."""

from __future__ import annotations

import gast

from srcad.primitives import CHANGING_METHODS


def bound_value(node: gast.Name, parent: gast.AST | None) -> gast.expr | None:
    """The value `name = value` (or `name: T = value`) binds to `node`, its target."""
    if isinstance(parent, gast.Assign) and parent.targets == [node]:
        return parent.value
    if isinstance(parent, gast.AnnAssign) and parent.target is node:
        return parent.value
    return None


def written_item(node: gast.AST, parent: gast.AST | None) -> gast.Subscript | gast.Attribute | None:
    """The item assignment target `node[index]` (`node[index] = v`, `op=`), if `parent` is
    one; or the attribute `node.name` so written (only an initialiser's `self` gets that
    far: every other attribute write is refused)."""
    if (
        isinstance(parent, gast.Subscript | gast.Attribute)
        and parent.value is node
        and isinstance(parent.ctx, gast.Store)
    ):
        return parent
    return None


def text_end(node: gast.AST) -> tuple[int, int]:
    """Where `node`'s text ends."""
    line = getattr(node, "end_lineno", None) or node.lineno
    return (line, getattr(node, "end_col_offset", None) or 0)


# The names of the methods the normal form writes as new values (`changing_call`).
CHANGING = frozenset().union(*CHANGING_METHODS.values())

"""Callees: resolve each called name, through the function's globals and closure, to its object."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gast

from srcad.errors import Diagnostic
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.scopes import Scopes

# Method names that change their receiver; the Mutations check reports their calls.
IN_PLACE_METHODS = frozenset({
    "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "popitem", "setdefault",
    "update", "add", "discard", "fill", "put", "resize", "itemset", "partition", "setfield",
    "byteswap", "setflags",
})  # fmt: skip


def is_append_call(node: gast.expr) -> bool:
    """`name.append(value)`: the one method call srcad handles, on fresh local lists."""
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr == "append"
        and isinstance(node.func.value, gast.Name)
        and len(node.args) == 1
        and not node.keywords
    )


UNDEFINED_NAME = "E201"
DYNAMIC_CALLEE = "E202"


@dataclass
class CalleeInfo:
    """The object each call names, and the problems found on the way."""

    callees: dict[gast.Call, Any] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def static_path(node: gast.expr) -> list[str] | None:
    """`np.linalg.norm` as ["np", "linalg", "norm"]; None unless a dotted name."""
    parts: list[str] = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


class Callees(Analysis[CalleeInfo]):
    """For every call whose callee is a dotted name rooted in a global, closure or builtin
    name, the object that name refers to now. Calls of local values are reported."""

    requires = (Scopes,)

    def run(self, tree: gast.Module, ctx: Context) -> CalleeInfo:
        scopes = ctx.analysis(Scopes, tree)
        info = CalleeInfo()
        for node in gast.walk(function_of(tree)):
            if not isinstance(node, gast.Call) or is_append_call(node):
                continue  # `items.append(v)` becomes a primitive in the normal form
            if isinstance(node.func, gast.Attribute) and node.func.attr in IN_PLACE_METHODS:
                continue  # Mutations reports it
            path = static_path(node.func)
            root = node.func
            while isinstance(root, gast.Attribute):
                root = root.value
            if path is None or not isinstance(root, gast.Name):
                info.diagnostics.append(
                    ctx.diagnostic(
                        node,
                        DYNAMIC_CALLEE,
                        "srcad can only call functions named by a global, "
                        "closure or builtin name (like `np.sin` or `helper`)",
                        "bind the function to a module-level name and call it by that name",
                    )
                )
                continue
            kind = scopes.kinds.get(root, "local")
            if kind == "local" and len(path) == 1 and path[0] in scopes.functions:
                info.callees[node] = scopes.functions[path[0]]
                continue
            if kind in ("parameter", "local", "enclosing"):
                info.diagnostics.append(
                    ctx.diagnostic(
                        node,
                        DYNAMIC_CALLEE,
                        f"`{'.'.join(path)}` calls a value held in the "
                        f"{kind} `{path[0]}`, which srcad cannot resolve before running",
                        "call the function by its global name",
                    )
                )
                continue
            found, value = ctx.source.lookup(path[0])
            try:
                for attr in path[1:]:
                    value = getattr(value, attr)
            except AttributeError:
                found = "undefined"
            if found == "undefined":
                info.diagnostics.append(
                    ctx.diagnostic(
                        node,
                        UNDEFINED_NAME,
                        f"`{'.'.join(path)}` is not defined",
                        "define it before differentiating the function",
                    )
                )
                continue
            info.callees[node] = value
        return info

"""Callees: resolve each called name, through the function's globals and closure, to its object."""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

import gast
import numpy as np

from srcad import primitives, projection
from srcad.errors import Diagnostic
from srcad.passes.base import Analysis, Context
from srcad.passes.nodes import Nodes
from srcad.passes.scopes import ScopeInfo, Scopes
from srcad.primitives import logabsdet
from srcad.source import differentiated_function

# Callables without side effects, whose calls a gradient may skip when nothing reads what
# they give. Not those that raise for some shapes (`np.dot`, `np.reshape`, `@`) nor
# `math`'s functions (outside their domain): the gradient must raise where the function
# does. (Broadcasting is checked apart: see `Prune._check_broadcasts`.)
PURE: set[Any] = {
    np.sum, np.mean, np.prod, np.outer, np.transpose, np.zeros, np.ones, np.full,
    np.zeros_like, np.ones_like, np.broadcast, np.shape, np.ndim, np.size, len, abs,
    range, float, int, min, max,
    projection.sum_to, projection.expand, projection.fill_like, projection.scatter,
    projection.outer,
    # Its derivative, `inv(a)`, raises wherever it does (`a` not square) and where it has
    # no derivative (`a` singular, log |det a| = -inf).
    logabsdet,
}  # fmt: skip

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
    """What every call calls: for a dotted name rooted in a global, closure or builtin name,
    the object it refers to now; for a nested function, that function; for a value held in
    a variable (a function passed in, a callable object, a method of a value), a primitive
    that resolves it when the code runs."""

    requires = (Scopes,)

    def run(self, tree: gast.Module, ctx: Context) -> CalleeInfo:
        scopes = ctx.analysis(Scopes, tree)
        info = CalleeInfo()
        for node in ctx.analysis(Nodes, tree):
            if not isinstance(node, gast.Call) or is_append_call(node):
                continue  # `items.append(v)` becomes a primitive in the normal form
            callee = self._callee(node, scopes, ctx, info)
            name = getattr(node.func, "attr", None)
            if callee is primitives.method and name in IN_PLACE_METHODS:
                continue  # a method that changes its receiver: Mutations reports it
            if callee is not None:
                info.callees[node] = callee
        return info

    @staticmethod
    def _callee(node: gast.Call, scopes: ScopeInfo, ctx: Context, info: CalleeInfo) -> Any:
        """What a call calls: an object named statically, a nested function, or (resolved
        when it runs) a value: `primitives.call` for a function or callable object held in a
        variable, `primitives.method` for a method of a value."""
        path = static_path(node.func)
        root = node.func
        while isinstance(root, gast.Attribute):
            root = root.value
        kind = scopes.kinds.get(root, "local") if isinstance(root, gast.Name) else "value"
        if path is None or kind in ("parameter", "local", "enclosing", "value"):
            if path is not None and len(path) == 1 and path[0] in scopes.functions:
                return scopes.functions[path[0]]
            return primitives.method if isinstance(node.func, gast.Attribute) else primitives.call
        if len(path) == 1 and path[0] in ctx.runtime:  # a name srcad bound (`ctx.bind`)
            return ctx.runtime[path[0]]
        found, value = ctx.source.resolve(path)  # guarded: see `srcad.guards`
        if found == "undefined":
            info.diagnostics.append(
                ctx.diagnostic(
                    node,
                    UNDEFINED_NAME,
                    f"`{'.'.join(path)}` is not defined",
                    "define it before differentiating the function",
                )
            )
            return None
        if isinstance(value, types.MethodType) and not isinstance(value.__self__, type):
            return primitives.method  # a method of an object held in a global
        if _is_callable_object(value):
            return primitives.call
        return value


def _is_callable_object(value: Any) -> bool:
    """An instance of a class with a Python `__call__` (not a function, class or decorated
    function): calling it runs that method with the instance as `self`."""
    call = vars(type(value)).get("__call__") or getattr(type(value), "__call__", None)  # noqa: B004
    return (
        isinstance(call, types.FunctionType)
        and not isinstance(value, type)
        and differentiated_function(value) is value  # not a transparent wrapper
        and not getattr(value, "is_generated_rule", False)
    )

"""Callees: resolve each called name, through the function's globals and closure, to its object."""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

import gast
import numpy as np

from srcad import primitives, projection, syntax
from srcad.errors import Diagnostic
from srcad.machinery import REASON as MACHINERY
from srcad.machinery import is_machinery
from srcad.passes.analyses.nodes import Nodes
from srcad.passes.analyses.scopes import LocalFunction, ScopeInfo, Scopes, parameters_of
from srcad.passes.base import Analysis, Context, function_of
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
    "byteswap", "setflags", "shuffle",
})  # fmt: skip


def is_append_call(node: gast.expr) -> bool:
    """`name.append(value)`: the one method call srcad handles, on fresh local lists."""
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr == "append"
        and isinstance(node.func.value, gast.Name)
        and len(node.args) == 1
        and not isinstance(node.args[0], gast.Starred)
        and not node.keywords
    )


# The methods of a container's item that the normal form writes as new values: the item's
# `append`, and those `primitives.changed` takes (`d[k].sort()`, `rows[i].extend(vs)`).
ITEM_METHODS = frozenset(["append"]).union(*primitives.CHANGING_METHODS.values())


def item_holder(node: gast.AST) -> gast.Name | None:
    """The variable `items` whose item `node` changes in place, where `node` is
    `items[k].method(...)` (an index, not a slice: a list's slice is a copy) or
    `items.setdefault(k, v0).method(...)`, of a method in `ITEM_METHODS`."""
    if not (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr in ITEM_METHODS
    ):
        return None
    item = node.func.value
    if isinstance(item, gast.Subscript) and isinstance(item.ctx, gast.Load):
        if any(isinstance(part, gast.Slice) for part in syntax.walk(item.slice)):
            return None
        holder = item.value
    elif (
        isinstance(item, gast.Call)
        and isinstance(item.func, gast.Attribute)
        and item.func.attr == "setdefault"
        and len(item.args) in (1, 2)
        and not unpacks(item)
        and not item.keywords
    ):
        holder = item.func.value
    else:
        return None
    return holder if isinstance(holder, gast.Name) else None


def is_item_method_call(node: gast.AST) -> bool:
    """`items[k].method(...)`, `items.setdefault(k, v0).method(...)` (`item_holder`)."""
    return item_holder(node) is not None


def unpacked_count(node: gast.Call, callee: LocalFunction) -> int | None:
    """How many items the one `*` of a call of a nested function gives (`inner(*pair)`,
    `inner(x, *rest)`), where each definition it may call takes the same number of
    positional parameters, none with a default, and no `*args`, keyword-only parameter or
    `**kwargs`, and the call passes no keyword: the normal form unpacks them into names
    (`to_anf.py`). None for any other."""
    starred = [a for a in node.args if isinstance(a, gast.Starred)]
    if len(starred) != 1 or node.keywords:
        return None
    counts = set()
    for definition in callee.nodes:
        args = definition.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults:
            return None
        counts.add(len(args.posonlyargs) + len(args.args))
    count = counts.pop() - (len(node.args) - 1)
    return count if not counts and count >= 0 else None


UNDEFINED_NAME = "E201"
UNSUPPORTED_UNPACKING = "E102"  # the code of `UnsupportedConstructs`'s expressions
REFUSED = "E210"  # `OperationRules`' code for a function with no rule, or refused
NESTED_SIGNATURES = "E213"


@dataclass(frozen=True)
class FunctionValue:
    """A read of a name that a nested function's definition reaches, other than as the
    callee of a call in the function's own statements that only such definitions reach:
    the function is used as a value there (passed on, stored, called from another nested
    function), or the name may hold something else (`other`)."""

    node: gast.Name
    definitions: tuple[gast.FunctionDef, ...]
    other: bool  # whether a binding that is not a nested function reaches it too
    nested: bool  # whether the read is inside a nested function (its own body, say)


@dataclass
class CalleeInfo:
    """The object each call names, and the problems found on the way; and the reads of
    nested functions as values, which `OperationRules` refuses where they read
    differentiated values."""

    callees: dict[gast.Call, Any] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    function_values: list[FunctionValue] = field(default_factory=list)


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
        nodes = ctx.analysis(Nodes, tree)
        # Calls inside nested functions are resolved where those are compiled, in their
        # own scopes (where their own nested functions are defined).
        inside = {id(n) for node in scopes.definitions.values() for n in syntax.walk(node)}
        nested = _nested_calls(function_of(tree), nodes, scopes, ctx, info, inside)
        for node in nodes:
            if id(node) not in inside:
                self._refuse_machinery(node, scopes, ctx, info)
            if not isinstance(node, gast.Call) or is_append_call(node) or id(node) in inside:
                continue  # `items.append(v)` becomes a primitive in the normal form
            callee = nested.get(node) or self._callee(node, scopes, ctx, info)
            if unpacks(node) and not self._unpackable(node, callee, ctx, info):
                continue
            name = getattr(node.func, "attr", None)
            if callee is primitives.method and name in IN_PLACE_METHODS:
                continue  # a method that changes its receiver: Mutations reports it
            if callee is not None:
                info.callees[node] = callee
        return info

    @staticmethod
    def _refuse_machinery(node: gast.AST, scopes: ScopeInfo, ctx: Context,
                          info: CalleeInfo) -> None:  # fmt: skip
        """Refuse a read of srcad's own machinery (`srcad.machinery`: `REGISTRY`, `CONFIG`,
        through a global, a closure or modules), whatever it is read for: the function is
        srcad's dispatch code (the rules of calls of values known only when the code runs),
        whose derivatives come from its rules or not at all, never from its source."""
        if not isinstance(node, gast.Name | gast.Attribute) or not isinstance(node.ctx, gast.Load):
            return
        path = static_path(node)
        if path is None or not is_static(node, scopes):
            return
        where, value = ctx.source.lookup(path[0])  # no fact: a rule that reads it is refused
        for attr in path[1:]:  # through modules only: another object's attribute may compute
            if where == "undefined" or not isinstance(value, types.ModuleType):
                return
            value = getattr(value, attr, None)
        if where != "undefined" and is_machinery(value):
            message = f"`{'.'.join(path)}` {MACHINERY.removeprefix('it ')}, nor code reading it"
            hint = "read it outside the differentiated function, or give the function a rule"
            info.diagnostics.append(ctx.diagnostic(node, REFUSED, message, hint))

    @staticmethod
    def _unpackable(node: gast.Call, callee: Any, ctx: Context, info: CalleeInfo) -> bool:
        """Whether a call that unpacks arguments (`f(*args)`) calls what `unpacked_call`
        takes: a function, a callable object or a method of a value (`method`'s rule
        finds it when it runs), or a nested function whose parameters say how many items
        one `*` gives (`unpacked_count`); not another nested function (refused here,
        located)."""
        if isinstance(callee, LocalFunction) and unpacked_count(node, callee) is None:
            info.diagnostics.append(
                ctx.diagnostic(
                    node,
                    UNSUPPORTED_UNPACKING,
                    "unpacking arguments into a nested function is supported for one `*` "
                    "into positional parameters without defaults alone",
                    "pass the arguments one by one",
                )
            )
            return False
        return True

    @staticmethod
    def _callee(node: gast.Call, scopes: ScopeInfo, ctx: Context, info: CalleeInfo) -> Any:
        """What a call calls: an object named statically, a nested function, or (resolved
        when it runs) a value: `primitives.call` for a function or callable object held in a
        variable, `primitives.method` for a method of a value."""
        path = static_path(node.func)
        if path is None or not is_static(node.func, scopes):
            return primitives.method if isinstance(node.func, gast.Attribute) else primitives.call
        found, value = static_value(path, ctx)
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
        if isinstance(value, types.MethodType):
            # A method of an object held in a global: `obj.m(x)` reads the method off its
            # receiver; a bound method held in a global itself (`M = obj.m`, a classmethod
            # `C = B.c`, a module's `np.random.normal`, a method of its global RandomState)
            # is a value to call, whose receiver is part of it.
            is_attribute = isinstance(node.func, gast.Attribute)
            if (
                is_attribute
                and not isinstance(value.__self__, type)
                and not isinstance(static_value(path[:-1], ctx)[1], types.ModuleType)
            ):
                return primitives.method
            return primitives.call
        if _is_callable_object(value):
            return primitives.call
        return value


def unpacks(node: gast.Call) -> bool:
    """Whether a call unpacks arguments: `f(*args)` or `f(**options)`."""
    return any(isinstance(a, gast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    )


def is_static(node: gast.expr, scopes: ScopeInfo) -> bool:
    """Whether `node` is a dotted name rooted in a global, closure or builtin name (or one
    srcad bound): an object the compiler can look at, not a value the function computes."""
    root = node
    while isinstance(root, gast.Attribute):
        root = root.value
    if not isinstance(root, gast.Name):
        return False
    return scopes.bindings.get(root, "local") not in ("parameter", "local", "enclosing")


def static_value(path: list[str], ctx: Context) -> tuple[str, Any]:
    """Where the dotted name `path` (rooted outside the function, see `is_static`) lives
    ("runtime", "closure", "global", "builtin", or "undefined"), and its object now: a fact
    the compiled rule relies on, which its guards check on every call."""
    if len(path) == 1 and path[0] in ctx.output.runtime:  # a name srcad bound (`ctx.bind`)
        return "runtime", ctx.output.runtime[path[0]]
    return ctx.source.resolve(path)  # guarded: see `srcad.guards`


def _nested_calls(
    function: gast.FunctionDef,
    nodes: list[gast.AST],
    scopes: ScopeInfo,
    ctx: Context,
    info: CalleeInfo,
    inside: set[int],
) -> dict[gast.Call, LocalFunction]:
    """The nested functions each call of a local name calls, where only nested functions'
    definitions reach it (by the def-use chains: a name defined twice, in both arms of an
    `if` or again in a loop, is not one function). Calls that some definition reaches
    together with another make one `LocalFunction` of all they reach, whose rules emitted
    code binds to one name. Every other read of a name such a definition reaches goes to
    `info.function_values`. `inside`: the ids of the nodes inside nested functions."""
    definitions = scopes.definitions
    if not definitions:
        return {}
    chains = scopes.chains
    assert chains is not None, "a function with nested functions has def-use chains"
    # Beniget's definition of each: the `def`, or the name a lambda is assigned to.
    by_binding: dict[gast.AST, gast.FunctionDef] = {}
    for statement, node in definitions.items():
        by_binding[statement if statement is node else statement.targets[0]] = node
    reaching: dict[gast.Name, list[gast.AST]] = {}
    for definition in chains.locals[function]:
        for user in definition.users():
            if isinstance(user.node, gast.Name):
                reaching.setdefault(user.node, []).append(definition.node)
    callees = {
        id(node.func): node
        for node in nodes
        if isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and id(node) not in inside
    }
    group: dict[gast.FunctionDef, gast.FunctionDef] = {}  # union-find over definitions

    def root(node: gast.FunctionDef) -> gast.FunctionDef:
        while group.get(node, node) is not node:
            node = group[node]
        return node

    static: dict[gast.Call, list[gast.FunctionDef]] = {}
    for name, bindings in reaching.items():
        reached = [by_binding[b] for b in bindings if b in by_binding]
        if not reached:
            continue
        other = len(reached) < len(bindings)
        call = callees.get(id(name))
        if call is None or other:
            value = FunctionValue(name, tuple(reached), other, id(name) in inside)
            info.function_values.append(value)
            continue
        static[call] = reached
        for node in reached[1:]:
            group[root(node)] = root(reached[0])
    members: dict[gast.FunctionDef, list[gast.FunctionDef]] = {}
    for node in definitions.values():
        members.setdefault(root(node), []).append(node)
    locals_: dict[gast.FunctionDef, LocalFunction] = {}
    for first, nodes_ in members.items():
        ordered = tuple(sorted(nodes_, key=lambda n: (n.lineno, n.col_offset)))
        locals_[first] = LocalFunction(ordered[0].name, ordered)
    by_keyword = {call for call in static if call.keywords}
    for local in locals_.values():
        # A call's pullback gives a cotangent per positional parameter (and per argument
        # `*args` took), and keyword arguments go to parameters by name: the definitions
        # one call may reach agree on those.
        signatures = {_signature(n, any(local is locals_[root(static[c][0])] for c in by_keyword))
                      for n in local.nodes}  # fmt: skip
        if len(signatures) > 1:
            shown = "; ".join(f"({', '.join(parameters_of(n))})" for n in local.nodes)
            info.diagnostics.append(
                ctx.diagnostic(
                    local.nodes[-1],
                    NESTED_SIGNATURES,
                    f"the definitions of `{local.name}` that one call may reach take "
                    f"different parameters: {shown}",
                    "give the functions different names",
                )
            )
    return {call: locals_[root(reached[0])] for call, reached in static.items()}


def _signature(node: gast.FunctionDef, by_name: bool) -> tuple[object, ...]:
    """What the definitions of a `LocalFunction` agree on: the number of positional
    parameters and whether it takes `*args`; their names too, where a call passes
    keyword arguments."""
    parameters = parameters_of(node)
    named = parameters if by_name else len(parameters)
    return (named, node.args.vararg is not None)


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

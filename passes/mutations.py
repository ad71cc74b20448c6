"""Mutations: every place the function changes a value in place, which its gradient cannot see."""

from __future__ import annotations

import builtins
import math
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.errors import Diagnostic
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.callees import IN_PLACE_METHODS, is_append_call, static_path
from srcad.passes.nodes import Nodes

ASSIGNMENT = "E301"
SHARED_LIST = "E302"
IN_PLACE_METHOD = "E303"
OUT_ARGUMENT = "E304"
IN_PLACE_FUNCTION = "E305"
ALIASED_AUGMENTED = "E306"
DYNAMIC_CODE = "E307"
CODES = (
    ASSIGNMENT,
    SHARED_LIST,
    IN_PLACE_METHOD,
    OUT_ARGUMENT,
    IN_PLACE_FUNCTION,
    ALIASED_AUGMENTED,
)


# Functions that read a list without keeping it: a list passed only to these (and indexed,
# iterated, returned, appended to) is shared with nothing that could see an append.
# The nodes that can change a value: assignments and deletions (of an item or attribute),
# and calls. `_check` finds nothing in any other.
_CHECKED = frozenset([gast.Assign, gast.AugAssign, gast.Delete, gast.Call])
_LIST_READERS = (
    len,
    sum,
    tuple,
    list,
    zip,
    enumerate,
    max,
    min,
    sorted,
    np.array,
    np.asarray,
    np.stack,
    np.vstack,
    np.hstack,
    np.concatenate,
)

# Functions whose result is a new value, never a view of an argument.
_FRESH_RESULTS = (
    np.zeros,
    np.ones,
    np.empty,
    np.full,
    np.zeros_like,
    np.ones_like,
    np.empty_like,
    np.full_like,
    np.array,
    np.copy,
    np.arange,
    np.linspace,
    np.eye,
    np.identity,
    np.sum,
    np.mean,
    np.prod,
    np.dot,
    np.matmul,
    np.outer,
    np.stack,
    np.concatenate,
    np.vstack,
    np.hstack,
    np.where,
    np.clip,
    float,
    int,
    complex,
    len,
    abs,
    sum,
    print,
    round,
)


def _is_fresh_function(value: Any) -> bool:
    """Whether calling `value` gives a new value and keeps no reference to its arguments."""
    if isinstance(value, np.ufunc):
        return True
    if getattr(value, "__module__", None) == "math" or value in vars(math).values():
        return True
    return any(value is f for f in _FRESH_RESULTS)


class Mutations(Analysis[list[Diagnostic]]):
    """Item and attribute assignment, in-place methods, `out=`, `np.copyto` and `ufunc.at`,
    and augmented assignment that could change, in place, an array something else holds.

    `items.append(v)` is allowed on a list the function made and shares with nothing, and
    `name += v` where `name` surely holds a value the function made and shares with
    nothing (then rebinding gives what the program computes); elsewhere srcad cannot
    prove either, and says so.
    """

    def run(self, tree: gast.Module, ctx: Context) -> list[Diagnostic]:
        function = function_of(tree)
        self.ctx = ctx
        self.rule_hint = f"or register a rule with @srcad.rrule.register({function.name})"
        self.function = function
        self._parents: dict[gast.AST, gast.AST] | None = None
        found: list[Diagnostic] = []
        for node in ctx.analysis(Nodes, tree):
            if node.__class__ in _CHECKED:
                found += self._check(node, function)
        return sorted(found, key=lambda d: (d.line, d.column))

    @property
    def parents(self) -> dict[gast.AST, gast.AST]:
        """Each node's parent: found when a check first asks (most functions have no
        `append` and no augmented assignment, the checks that do)."""
        if self._parents is None:
            self._parents = {
                child: node
                for node in syntax.walk(self.function)
                for child in syntax.children(node)
            }
        return self._parents

    def _report(self, node: gast.AST, code: str, message: str, hint: str) -> list[Diagnostic]:
        return [self.ctx.diagnostic(node, code, message, hint)]

    def _resolve(self, node: gast.expr) -> Any:
        path = static_path(node)
        if path is None:
            return None
        return self.ctx.source.resolve(path)[1]  # guarded: see `srcad.guards`

    def _check(self, node: gast.AST, function: gast.FunctionDef) -> list[Diagnostic]:
        if isinstance(node, gast.Assign | gast.AugAssign | gast.Delete):
            targets = [node.target] if isinstance(node, gast.AugAssign) else node.targets
            found = []
            for target in targets:
                for part in syntax.walk(target):
                    if isinstance(part, gast.Subscript | gast.Attribute) and isinstance(
                        part.ctx, gast.Store | gast.Del
                    ):
                        found += self._assignment(part)
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                found += self._augmented(node, function)
            return found
        if not isinstance(node, gast.Call):
            return []
        if is_append_call(node):
            receiver = node.func.value
            name = receiver.id
            if not self._fresh_list(function, name):
                return self._report(
                    node,
                    SHARED_LIST,
                    f"`{name}.append(...)` changes a list "
                    "that srcad cannot prove is fresh and unshared",
                    f"build the list in this function with `{name} = []` and "
                    "only index, iterate, return or copy it; " + self.rule_hint,
                )
            return []
        if isinstance(node.func, gast.Attribute) and node.func.attr in IN_PLACE_METHODS:
            callee = self._resolve(node.func)
            if callee is None or not callable(callee):  # a method of a value, not a module
                return self._report(
                    node,
                    IN_PLACE_METHOD,
                    f"`.{node.func.attr}(...)` changes its receiver in place",
                    "compute a new value instead "
                    "(sorted(x), np.sort(x), x + [v], ...); " + self.rule_hint,
                )
        for keyword in node.keywords:
            if keyword.arg == "out":
                return self._report(
                    keyword.value,
                    OUT_ARGUMENT,
                    "`out=` writes the result into an existing array",
                    "use the returned value; " + self.rule_hint,
                )
        callee = self._resolve(node.func)
        if callee is np.copyto or (
            getattr(callee, "__name__", None) == "at"
            and isinstance(getattr(callee, "__self__", None), np.ufunc)
        ):
            return self._report(
                node,
                IN_PLACE_FUNCTION,
                "this call changes an array in place",
                "build a new array instead (np.where, np.add with "
                "indices via np.bincount, ...); " + self.rule_hint,
            )
        if callee is builtins.exec or callee is builtins.eval:
            return self._report(
                node,
                DYNAMIC_CODE,
                f"`{callee.__name__}` runs code srcad cannot see",
                "write the code out; " + self.rule_hint,
            )
        return []

    def _assignment(self, target: gast.Subscript | gast.Attribute) -> list[Diagnostic]:
        kind = "item" if isinstance(target, gast.Subscript) else "attribute"
        verb = f"deleting an {kind}" if isinstance(target.ctx, gast.Del) else f"{kind} assignment"
        return self._report(
            target,
            ASSIGNMENT,
            f"{verb} mutates a value, which srcad cannot differentiate",
            "build a new value instead (for arrays: np.where, np.concatenate); " + self.rule_hint,
        )

    # -- fresh, unshared values ------------------------------------------------------------

    def _loads(self, function: gast.FunctionDef, name: str) -> list[gast.Name]:
        return [
            n
            for n in syntax.walk(function)
            if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
        ]

    def _fresh_list(self, function: gast.FunctionDef, name: str) -> bool:
        for node in syntax.walk(function):
            if not isinstance(node, gast.Name) or node.id != name:
                continue
            parent = self.parents.get(node)
            if isinstance(node.ctx, gast.Param):
                return False
            if isinstance(node.ctx, gast.Store):
                if not (
                    isinstance(parent, gast.Assign)
                    and parent.targets == [node]
                    and isinstance(parent.value, gast.List | gast.ListComp)
                ):
                    return False
                continue
            if isinstance(parent, gast.Subscript | gast.For | gast.Return):
                continue
            if isinstance(parent, gast.Attribute) and is_append_call(self.parents.get(parent)):
                continue
            if isinstance(parent, gast.Call) and node in parent.args:
                callee = self._resolve(parent.func)
                if any(callee is reader for reader in _LIST_READERS):
                    continue
            return False
        return True

    def _augmented(self, node: gast.AugAssign, function: gast.FunctionDef) -> list[Diagnostic]:
        """`name += v` is a rebinding in srcad; Python changes an array in place. The two
        agree when `name` holds a value made here, and nothing else refers to it when the
        change happens."""
        assert isinstance(node.target, gast.Name)
        name = node.target.id
        why = self._why_shared(function, name)
        if why is None:
            return []
        return self._report(
            node,
            ALIASED_AUGMENTED,
            f"`{name} {_symbol(node.op)}= ...` could "
            f"change an array in place that something else refers to: {why}",
            f"write `{name} = {name} {_symbol(node.op)} ...` to make a new value; "
            + self.rule_hint,
        )

    def _why_shared(self, function: gast.FunctionDef, name: str) -> str | None:
        augmented = [
            n
            for n in syntax.walk(function)
            if isinstance(n, gast.AugAssign)
            and isinstance(n.target, gast.Name)
            and n.target.id == name
        ]
        for node in syntax.walk(function):
            if not (isinstance(node, gast.Name) and node.id == name):
                continue
            parent = self.parents.get(node)
            if isinstance(node.ctx, gast.Param):
                return f"`{name}` is a parameter, and may be the caller's array"
            if isinstance(node.ctx, gast.Store):
                if isinstance(parent, gast.AugAssign):
                    continue
                if not (
                    isinstance(parent, gast.Assign)
                    and parent.targets == [node]
                    and self._makes_new_value(parent.value)
                ):
                    return f"`{name}` is assigned a value that may be shared (line {node.lineno})"
                continue
            if self._after_every_change(node, augmented):
                continue
            if not self._reads_without_keeping(node, parent):
                return f"`{name}` is also used at line {node.lineno}, which may keep it"
        return None

    def _makes_new_value(self, value: gast.expr) -> bool:
        if isinstance(
            value,
            gast.Constant
            | gast.BinOp
            | gast.UnaryOp
            | gast.Compare
            | gast.List
            | gast.ListComp
            | gast.Dict
            | gast.Tuple,
        ):
            return True
        return isinstance(value, gast.Call) and _is_fresh_function(self._resolve(value.func))

    def _reads_without_keeping(self, node: gast.Name, parent: gast.AST | None) -> bool:
        if isinstance(parent, gast.BinOp | gast.UnaryOp | gast.Compare | gast.BoolOp):
            return True
        if isinstance(parent, gast.AugAssign) and parent.value is not node:
            return True  # the augmented assignment's own target
        if isinstance(parent, gast.AugAssign):
            return True
        if isinstance(parent, gast.Call) and node in parent.args:
            return _is_fresh_function(self._resolve(parent.func))
        return isinstance(parent, gast.Subscript) and _is_element_read(parent)

    def _after_every_change(self, node: gast.Name, augmented: list[gast.AugAssign]) -> bool:
        """A read after the last change (and in no loop around one) sees the final value
        whether the change was in place or not."""
        position = (node.lineno, node.col_offset)
        if any(position <= (a.lineno, a.col_offset) for a in augmented):
            return False
        for ancestor in self._ancestors(node):
            if isinstance(ancestor, gast.For | gast.While) and any(
                a in set(syntax.walk(ancestor)) for a in augmented
            ):
                return False
        return True

    def _ancestors(self, node: gast.AST) -> list[gast.AST]:
        chain = []
        while node in self.parents:
            node = self.parents[node]
            chain.append(node)
        return chain


def _is_element_read(subscript: gast.Subscript) -> bool:
    """`x[i]` with a plain integer index reads one element (a copy, for numbers); slices,
    arrays and tuples of indices may give views."""
    index = subscript.slice
    return isinstance(index, gast.Constant) and isinstance(index.value, int)


_SYMBOLS = {
    gast.Add: "+",
    gast.Sub: "-",
    gast.Mult: "*",
    gast.Div: "/",
    gast.Pow: "**",
    gast.MatMult: "@",
    gast.FloorDiv: "//",
    gast.Mod: "%",
}


def _symbol(op: gast.AST) -> str:
    return _SYMBOLS.get(type(op), "?")

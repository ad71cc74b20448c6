"""Proofs that a call changing a variable's value in place may be written as a new value:
`np.add.at(out, i, v)` and the other ufuncs' `at` (`primitives.ufunc_at`,
`ufunc_at_in_turn`), `heapq.heappush(h, v)` and the other functions of `heapq` and
`bisect` that change a list (`primitives.changed_by`). Part of `FreshValues`
(`passes/checks/fresh_values.py`), whose proofs of a fresh variable they use."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import gast

from srcad.passes.checks.in_place import is_ufunc_at
from srcad.primitives import (
    IN_TURN_AT,
    ITEM_RETURNING_FUNCTIONS,
    LINEAR_AT,
    LIST_CHANGING_FUNCTIONS,
)


class FreshCalls(ABC):
    """`FreshValues`' proofs of calls that change their first argument in place."""

    # Whether changes to values the function made run as they are (`Mutations`'s).
    fresh_changes_allowed: bool

    @property
    @abstractmethod
    def parents(self) -> dict[gast.AST, gast.AST]:
        """Each node's parent (`FreshValues.parents`)."""

    @abstractmethod
    def _resolve(self, node: gast.expr) -> Any:
        """The object a dotted name refers to now (`Mutations._resolve`)."""

    @abstractmethod
    def _why_not_writable(self, write: gast.Subscript | gast.Attribute | gast.Call) -> str | None:
        """Why an item of the variable may not be written (`FreshValues`)."""

    @abstractmethod
    def _loop_iterating(self, append: gast.Call, name: str) -> gast.For | None:
        """The `for` loop around the call that iterates over the list (`FreshValues`)."""

    def _why_not_accumulated(self, call: gast.Call, callee: Any) -> str | None:
        """Why the call of `callee`, which changes its first argument in place, cannot be
        rewritten as binding that to a new value, as the clause the message adds ("" for
        any function but `ufunc.at` and those of `heapq` and `bisect` that change a list):
        None for `ufunc.at(name, indices, values)` where it is a statement of its own,
        passes its arguments plainly, and `name` may be written as an item may
        (`_why_not_writable`): `name = ufunc_at(ufunc, name, indices, values)` then
        (`primitives.ufunc_at`, `passes/transforms/anf_rewrites.py`); so for
        `heapq.heappush(name, v)` (or `v = heapq.heappop(name)`), on a variable no `for`
        loop around it iterates over: `name = changed_by(heapq.heappush, name, v)`."""
        changes_list = any(callee is f for f in LIST_CHANGING_FUNCTIONS)
        if not (is_ufunc_at(callee) or changes_list) or self.fresh_changes_allowed:
            return ""
        why = None
        if not (isinstance(self.parents.get(call), gast.Expr) or self._kept(call, callee)):
            why = "it is not a statement of its own"
        elif any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None or not changes_list for k in call.keywords
        ):
            why = "it passes keywords or unpacks its arguments"
        elif not (call.args and isinstance(call.args[0], gast.Name)) or not (
            changes_list or len(call.args) in (2, 3)
        ):
            why = "its first argument is not a variable"
        elif changes_list:
            loop = self._loop_iterating(call, call.args[0].id)
            if loop is not None:
                why = f"the `for` loop on line {loop.lineno} iterates over it"
            else:
                why = self._why_not_writable(call)
        elif callee.__self__ not in (*LINEAR_AT, *IN_TURN_AT):  # (`rules/ufunc_at.py`)
            taken = ", ".join(f"np.{u.__name__}.at" for u in (*LINEAR_AT, *IN_TURN_AT))
            why = f"srcad takes {taken}, not np.{callee.__self__.__name__}.at"
        else:
            why = self._why_not_writable(call)
        return None if why is None else f", which srcad cannot rewrite as a new value: {why}"

    def _kept(self, call: gast.Call, callee: Any) -> bool:
        """Whether `call` of one of `heapq`'s functions that return an item is the value of
        an assignment to one name, or names unpacked, none of them the list it changes
        (`v = heappop(h)`, `p, i = heappop(h)`)."""
        parent = self.parents.get(call)
        if not (
            any(callee is f for f in ITEM_RETURNING_FUNCTIONS)
            and isinstance(parent, gast.Assign)
            and len(parent.targets) == 1
            and call.args
            and isinstance(call.args[0], gast.Name)
        ):
            return False
        target = parent.targets[0]
        names = target.elts if isinstance(target, gast.Tuple | gast.List) else [target]
        return all(isinstance(n, gast.Name) and n.id != call.args[0].id for n in names)

    def _accumulated(self, node: gast.AST, parent: gast.AST | None) -> gast.Call | None:
        """The call `ufunc.at(node, ...)` or `heapq.heappush(node, ...)` (or another that
        changes a list in place, `v = heapq.heappop(node)`), a statement of its own, where
        `node` is its first argument (the array or list it changes), if `parent` is one."""
        if not (isinstance(parent, gast.Call) and parent.args and parent.args[0] is node):
            return None
        callee = self._resolve(parent.func)
        if isinstance(self.parents.get(parent), gast.Expr) and (
            is_ufunc_at(callee) or any(callee is f for f in LIST_CHANGING_FUNCTIONS)
        ):
            return parent
        return parent if self._kept(parent, callee) else None

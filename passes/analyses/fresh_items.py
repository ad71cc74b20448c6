"""FreshItems: the lists and dicts whose every item the function made for them alone.

`items[k] += v` changes, in Python, an array or list item in place, where srcad's normal
form rebinds the slot to a new value (`anf_rewrites.SyntaxRewrites._refuse_change_in_place`).
The two agree when nothing else holds the item: then the normal form need not test it when
the code runs. This analysis proves it for a variable of the function that is bound only
to a new list or dict (a display, a comprehension, `dict(k=...)`) and into which the
function stores only values just made (`items[k] = np.zeros(n)`, `items.append(a * b)`):
a constant, the result of an operator, a new container, a call of a function whose result
is new (`passes/checks/in_place.is_fresh_function`, `x.copy()`). Anything else binding or
storing into it (a parameter, a `for` target, `extend`, `update`, a nested function reading
it) leaves it unproved, and the test in place. That nothing reads an item out and keeps it
across the write is the mutation checks' part (`passes/checks/mutations.py`: a write into a
value "also used at line N, which may keep it" is refused). The same proof lets a method
change an item in place (`rows[i].append(v)`, `d.setdefault(k, []).append(v)`:
`FreshValues.why_not_changed`), which the normal form writes as the item changed and
written back; `defaultdict(list)` (or `dict`) is such a container too, each item its
factory makes a new one."""

from __future__ import annotations

import collections
from typing import Any

import gast

from srcad import syntax
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.checks.callees import (
    Callees,
    is_item_method_call,
    is_static,
    static_path,
    static_value,
)
from srcad.passes.checks.in_place import is_fresh_function

# Methods that store their last argument into the list or dict they are called on.
_STORING_METHODS = frozenset(["append", "insert", "setdefault"])
# Calls whose result is a new list, dict or set (its items may be shared: that is the container's
# question, not the item's).
_NEW_CONTAINERS = (list, dict, sorted, set)


class FreshItems(Analysis[frozenset[str]]):
    requires = (Scopes, Callees)

    def run(self, tree: gast.Module, ctx: Context) -> frozenset[str]:
        function = function_of(tree)
        receivers = {id(n.func.value) for n in syntax.walk(function) if is_item_method_call(n)}
        if not receivers and not any(
            isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Subscript)
            for n in syntax.walk(function)
        ):
            return frozenset()  # (no `items[k] op= v` nor `items[k].method(...)` to ask about)
        scopes = self.scopes = ctx.analysis(Scopes, tree)
        self.ctx = ctx
        self.callees = ctx.analysis(Callees, tree).callees
        nested = {id(n) for d in scopes.definitions.values() for n in syntax.walk(d)}
        unproved = set(scopes.parameters)
        unproved.update(n.id for d in scopes.definitions.values() for n in syntax.walk(d)
                        if isinstance(n, gast.Name))  # fmt: skip
        made: set[str] = set()
        assigned = {id(t) for n in syntax.walk(function) if isinstance(n, gast.Assign)
                    for t in n.targets}  # fmt: skip
        # (`d.setdefault(k, []).append(v)`: the item, changed there, is kept by nothing else)
        statements = {id(n.value) for n in syntax.walk(function) if isinstance(n, gast.Expr)}
        statements |= receivers
        for node in syntax.walk(function):
            if id(node) in nested or node is function:
                continue
            if isinstance(node, gast.Assign):
                for target in node.targets:
                    self._assigned(target, node.value, made, unproved)
            elif isinstance(node, gast.AugAssign):
                if isinstance(node.target, gast.Name):  # `items += more`: more's items
                    unproved.add(node.target.id)
            elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
                holder = node.func.value
                if isinstance(holder, gast.Name) and node.func.attr in _STORING_METHODS:
                    # (`v = d.setdefault(k, v0)`: `v` holds the item too)
                    kept = node.func.attr == "setdefault" and id(node) not in statements
                    if kept or not (node.args and self._made(node.args[-1])):
                        unproved.add(holder.id)
                elif isinstance(holder, gast.Name) and node.func.attr in ("extend", "update"):
                    unproved.add(holder.id)
            elif (
                isinstance(node, gast.Name)
                and isinstance(node.ctx, gast.Store | gast.Del)
                and id(node) not in assigned  # a `for`, `with`, `:=`, `del` or unpacking target
            ):
                unproved.add(node.id)
        return frozenset(made - unproved)

    def _assigned(self, target: gast.expr, value: gast.expr, made: set[str],
                  unproved: set[str]) -> None:  # fmt: skip
        if isinstance(target, gast.Name):
            (made if self._new_container(value) else unproved).add(target.id)
        elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            if not self._made(value):
                unproved.add(target.value.id)
        else:  # unpacking, an attribute: each name bound by it, unproved
            unproved.update(n.id for n in syntax.walk(target) if isinstance(n, gast.Name))

    def _new_container(self, value: gast.expr) -> bool:
        """A new list or dict, each of whose items is just made."""
        if isinstance(value, gast.List):
            return all(self._made(e) for e in value.elts)
        if isinstance(value, gast.Dict):
            pairs = zip(value.keys, value.values, strict=True)
            return all(k is not None and self._made(v) for k, v in pairs)
        if isinstance(value, gast.ListComp):
            return self._made(value.elt)
        if isinstance(value, gast.DictComp):
            return self._made(value.value)
        if isinstance(value, gast.Call) and self.callees.get(value) is dict:
            return not value.args and all(
                k.arg is not None and self._made(k.value) for k in value.keywords
            )
        if isinstance(value, gast.Call) and self.callees.get(value) is collections.defaultdict:
            # `defaultdict(list)`: each item its factory makes is a new list or dict
            return (
                len(value.args) == 1
                and not value.keywords
                and any(self._static(value.args[0]) is kind for kind in (list, dict))
            )
        return False

    def _static(self, node: gast.expr) -> Any:
        """What a global or builtin name (`list`) refers to now; None for anything else."""
        path = static_path(node)
        if path is None or not is_static(node, self.scopes):
            return None
        found, value = static_value(path, self.ctx)
        return None if found == "undefined" else value

    def _made(self, value: gast.expr) -> bool:
        """A value just made, which nothing else holds: a constant, an operator's result,
        a new container, a call of a function whose result is new."""
        if isinstance(value, gast.Constant | gast.BinOp | gast.UnaryOp):
            return True
        if isinstance(value, gast.List | gast.Dict | gast.ListComp | gast.DictComp):
            return True
        if not isinstance(value, gast.Call):
            return False
        if isinstance(value.func, gast.Attribute) and value.func.attr == "copy":
            return True
        callee = self.callees.get(value)
        return callee is not None and (
            any(callee is c for c in _NEW_CONTAINERS) or is_fresh_function(callee)
        )

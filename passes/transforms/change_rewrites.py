"""The normal form's rewrites of changes in place into new values: a method that changes a
variable (`xs.sort()`, `v = xs.pop()`, `d.update(e, v=e2)`: `primitives.changed`) or an item
of one (`rows[i].append(v)`: the item read, changed and written back), `heapq`'s and
`bisect`'s functions that change a list (`primitives.changed_by`), and such a change inside
an expression, lifted into statements before it. The checks let each through only where it
is Python's value (`passes/checks/fresh_values.py`, `lifted_changes.py`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import gast

from srcad import primitives, syntax
from srcad.passes.analyses.scopes import ScopeInfo
from srcad.passes.base import Context
from srcad.passes.checks.callees import Callees, item_holder
from srcad.passes.checks.fresh_values import CHANGING
from srcad.primitives import index_update
from srcad.syntax import LOAD, load, make, store


class ChangeRewrites(ABC):
    """Rewrites of changes in place, for `SyntaxRewrites` (`anf_rewrites.py`)."""

    ctx: Context
    scopes: ScopeInfo

    @abstractmethod
    def atom(self, node: gast.expr) -> gast.expr:
        """The node as an atom (`ToANF.atom`)."""

    @abstractmethod
    def _assign(self, name: str, value: gast.expr) -> None:
        """Emit `name = value` (`ToANF._assign`)."""

    @abstractmethod
    def assign(self, target: gast.expr, value: gast.expr) -> None:
        """Emit `target = value` for any target (`ToANF.assign`)."""

    @abstractmethod
    def _primitive_call(self, function: Any, args: list[gast.expr], node: gast.AST) -> gast.Call:
        """A call of one of srcad's primitives (`SyntaxRewrites._primitive_call`)."""

    @abstractmethod
    def _index_value(self, index: gast.expr) -> gast.expr:
        """An index as an atom (`SyntaxRewrites._index_value`)."""

    def _changing_call(self, node: gast.expr) -> gast.Call | None:
        """`node` if it calls, on a variable of the function, a method that changes it in
        place and that `primitives.changed` takes (the checks let such a call through only
        on a value nothing else holds: `FreshValues.why_not_changed`)."""
        if (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Attribute)
            and isinstance(node.func.value, gast.Name)
            and node.func.value.id in self.scopes.locals
            and node.func.attr in CHANGING
            and node not in self.ctx.analysis_result(Callees).callees
        ):
            return node
        return node if self._changes_list(node) else None

    def _changes_list(self, node: gast.expr) -> bool:
        """Whether `node` calls one of `heapq`'s and `bisect`'s functions that change a list
        in place on a variable, `heapq.heappush(name, v)` (the checks let it through only
        as a statement, or `v = heapq.heappop(name)`, on a list nothing else holds)."""
        if not isinstance(node, gast.Call) or not node.args:
            return False
        callee = self.ctx.analysis_result(Callees).callees.get(node)
        return isinstance(node.args[0], gast.Name) and any(
            callee is f for f in primitives.LIST_CHANGING_FUNCTIONS
        )

    def _change_by_function(self, call: gast.Call, target: gast.expr | None) -> None:
        """`function(items, *args, **kwargs)`, which changes the list `items` in place, as
        `items = changed_by(function, items, *args, **kwargs)`; what it returns
        (`kept = heapq.heappop(items)`, or unpacked, `p, i = heapq.heappop(items)`) read
        first, from the list before the change:

            kept = returned_by(heapq.heappop, items)
            items = changed_by(heapq.heappop, items)
        """
        kept = None
        if target is not None:
            kept = target.id if isinstance(target, gast.Name) else self.ctx.namer.fresh("kept")
        callee = self.ctx.analysis_result(Callees).callees[call]
        name = call.args[0]
        assert isinstance(name, gast.Name)
        function = load(self.ctx.bind(callee, callee.__name__))
        args = [function, load(name.id), *(self.atom(a) for a in call.args[1:])]
        keywords = [make(gast.keyword, arg=k.arg, value=self.atom(k.value)) for k in call.keywords]
        for primitive, bound in ((primitives.returned_by, kept), (primitives.changed_by, name.id)):
            if bound is not None:
                new = self._primitive_call(primitive, args, call)
                new.keywords = keywords
                self._assign(bound, new)
        if kept is not None and not isinstance(target, gast.Name):
            self.assign(target, load(kept))

    def _change_by_method(self, call: gast.Call, target: gast.expr | str | None) -> None:
        """`items.method(*args, **kwargs)` as `items = changed(items, "method", *args,
        **kwargs)`, a new value through a primitive with rules (`rules/changed_values.py`).
        What `pop` and `setdefault` return (`kept = items.pop(i)`) is read first, from the
        value before the change, as Python returns it:

            kept = popped(items, i)                  # `kept = items.pop(i)`
            items = changed(items, "pop", i)
            items = changed(items, "setdefault", k, v0)
            kept = items[k]                          # `kept = items.setdefault(k, v0)`
        """
        if isinstance(target, str):
            target = store(target)
        if self._changes_list(call):
            self._change_by_function(call, target)
            return
        assert target is None or isinstance(target, gast.Name)
        kept = None if target is None else target.id
        assert isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name)
        name, method = call.func.value.id, call.func.attr
        args = [self.atom(a) for a in call.args]
        keywords = [make(gast.keyword, arg=k.arg, value=self.atom(k.value)) for k in call.keywords]
        if method == "update" and keywords and all(k.arg is not None for k in keywords):
            # `d.update(e, v=e2)` as `d.update(e)`, then `d.update({"v": e2})`, in Python's
            # order: the rule differentiates a dict's values, where a keyword argument of a
            # rule is an option (E211).
            if args:
                self._assign(name, self._changed(name, method, args, [], call))
            names = [make(gast.Constant, value=k.arg, kind=None) for k in keywords]
            pairs = make(gast.Dict, keys=names, values=[k.value for k in keywords])
            args, keywords = [self.atom(syntax.located(pairs, call))], []
        if kept is not None and method == "pop":
            self._assign(kept, self._primitive_call(primitives.popped, [load(name), *args], call))
        self._assign(name, self._changed(name, method, args, keywords, call))
        if kept is not None and method == "setdefault":
            self._assign(kept, make(gast.Subscript, value=load(name), slice=args[0], ctx=LOAD))

    def _changed(self, name: str, method: str, args: list[gast.expr],
                 keywords: list[gast.keyword], call: gast.AST) -> gast.Call:  # fmt: skip
        """`changed(name, "method", *args, **keywords)`, its callee known."""
        function = self.ctx.bind(primitives.changed, "changed")
        method_name = make(gast.Constant, value=method, kind=None)
        new = make(gast.Call, func=load(function), args=[load(name), method_name, *args],
                   keywords=keywords)  # fmt: skip
        syntax.located(new, call)  # (where a set's member is refused: E215)
        self.ctx.analysis_result(Callees).callees[new] = primitives.changed
        return new

    def _change_statement(self, node: gast.expr, targets: list[gast.expr] | None) -> bool:
        """Emit the statement `node` (or `targets = node`) where it calls a method that
        changes a variable, or an item of one, in place (`xs.sort()`, `rows[i].append(v)`),
        what `pop` or `setdefault` returns bound to one name (`v = xs.pop()`): whether it
        did. (The checks let such a call through only where that is Python's value.)"""
        kept = None
        if self._changes_list(node):  # `heapq.heappush(h, v)`, `v = heapq.heappop(h)`
            assert isinstance(node, gast.Call)
            self._change_by_method(node, None if targets is None else targets[0])
            return True
        if targets is not None:
            (target,) = targets if len(targets) == 1 else (None,)
            if not isinstance(target, gast.Name) or not (
                isinstance(node, gast.Call)
                and isinstance(node.func, gast.Attribute)
                and node.func.attr in ("pop", "setdefault")
            ):
                return False
            kept = target.id
        if item_holder(node) is not None:
            assert isinstance(node, gast.Call)
            self._change_item(node, kept)
        elif self._changing_call(node) is not None:
            assert isinstance(node, gast.Call)
            self._change_by_method(node, kept)
        else:
            return False
        return True

    def _lift_change(self, node: gast.Call) -> gast.expr | None:
        """`xs.pop()` (or `rows[i].pop()`, `d.setdefault(k, v0)`, `rows[i].sort()`) inside
        an expression, as statements before it, where Python runs the call: what it
        returns, a name (`pop`, `setdefault`) or None. The checks let it through only where
        it runs once, unconditionally, and nothing else in the statement reads what it
        changes (`passes/checks/lifted_changes.py`). None for any other call."""
        if self._changes_list(node) or (
            item_holder(node) is None and self._changing_call(node) is None
        ):  # (`heapq`'s and `bisect`'s changes are statements: the checks refuse others)
            return None
        assert isinstance(node.func, gast.Attribute)
        returns = node.func.attr in ("pop", "setdefault")
        kept = self.ctx.namer.fresh(node.func.attr) if returns else None
        self._change_statement(node, None if kept is None else [store(kept)])
        return make(gast.Constant, value=None, kind=None) if kept is None else load(kept)

    def _change_item(self, call: gast.Call, kept: str | None) -> None:
        """`items[k].method(*args)` (or `items.setdefault(k, v0).method(*args)`), a method
        that changes an item of `items` in place, as the item read, changed into a new
        value as a variable's is (`_append`, `_change_by_method`), and written back: the
        checks proved that nothing but `items` holds the item, nor holds `items`
        (`FreshValues.why_not_item_changed`). In Python's order: the index, the item, then
        the method's arguments.

            items = changed(items, "setdefault", k, v0)     # (the `setdefault` form)
            item = items[k]
            item = changed(item, "append", v)               # `item.append(v)`
            items = index_update(items, k, item)
        """
        holder = item_holder(call)
        assert holder is not None and isinstance(call.func, gast.Attribute)
        name, receiver = holder.id, call.func.value
        if isinstance(receiver, gast.Subscript):
            index = self._index_value(receiver.slice)
        else:
            assert isinstance(receiver, gast.Call)
            index = self.atom(receiver.args[0])
            default = [self.atom(a) for a in receiver.args[1:]]
            method_name = make(gast.Constant, value="setdefault", kind=None)
            args = [load(name), method_name, index, *default]
            self._assign(name, self._primitive_call(primitives.changed, args, receiver))
        item = self.ctx.namer.fresh("item")
        self._assign(item, make(gast.Subscript, value=load(name), slice=index, ctx=LOAD))
        # (an item's `append` too, through `changed`, which refuses it on a value that is
        # not a list, as Python does: the item may be an array, a dict)
        method = make(gast.Attribute, value=load(item), attr=call.func.attr, ctx=LOAD)
        on_item = make(gast.Call, func=method, args=call.args, keywords=call.keywords)
        self._change_by_method(syntax.located(on_item, call), kept)
        written = self._primitive_call(index_update, [load(name), index, load(item)], call)
        self._assign(name, written)

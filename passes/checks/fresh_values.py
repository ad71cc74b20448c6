"""Proofs that a local value is fresh and unshared: made in the function (a display, a
copy, a NumPy constructor) and held by nothing else when it changes. The mutation check
lets such a value be changed in place (`items.append(v)`, `name += v`), as the change is
then what the normal form's rebinding computes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import gast

from srcad import syntax
from srcad.kinds import Kind
from srcad.passes.analyses.scopes import owning_scope, variable_nodes
from srcad.passes.base import Context
from srcad.passes.checks.callees import is_append_call
from srcad.passes.checks.immutable_numbers import holds_number, variable_kinds
from srcad.passes.checks.in_place import LAZY_ITERATORS, LIST_READERS, is_fresh_function


class FreshValues(ABC):
    """What `Mutations` proves about the values of `function` (set by the check): each
    node's parent, and whether a name holds a value made here that nothing else holds."""

    function: gast.FunctionDef
    # Whether the first parameter (`self` of an `__init__`) is a value made for the call.
    fresh_first_parameter = False
    _parents: dict[gast.AST, gast.AST] | None
    # The argument kinds of the function's parameters (`srcad.kinds`), where known.
    parameter_kinds: Mapping[str, Kind | None]
    # The kind of each variable of each scope (`immutable_numbers`), found when first asked.
    _numbers: dict[gast.AST, dict[str, Kind | None]]
    ctx: Context

    @abstractmethod
    def _resolve(self, node: gast.expr) -> Any:
        """The object a dotted name refers to now (`Mutations._resolve`)."""

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

    def _scope(self, node: gast.AST) -> gast.AST:
        """The function (or lambda) whose body holds `node`."""
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, gast.FunctionDef | gast.Lambda):
                return node
        return node

    def _fresh_local(self, use: gast.Name) -> bool:
        """Whether every binding of the variable `use` reads is a new value (a display, a
        copy, a NumPy constructor...), so changing it changes nothing a caller holds."""
        if self._declared_outside(use.id):
            return False
        bound = False
        for node in self._variable(use, use.id):
            if isinstance(node.ctx, gast.Param):
                first = self.function.args.args[:1]
                if not (self.fresh_first_parameter and first and node is first[0]):
                    return False
                bound = True
            elif isinstance(node.ctx, gast.Store):
                parent = self.parents.get(node)
                if isinstance(parent, gast.AugAssign):
                    continue  # in place, or a new value: either way made here
                if not (
                    isinstance(parent, gast.Assign)
                    and parent.targets == [node]
                    and self._makes_new_value(parent.value)
                ):
                    return False
                bound = True
        return bound

    def _variable(self, node: gast.AST, name: str) -> list[gast.Name]:
        """The name nodes of the variable `name` that a use of it at `node` refers to, by
        Python's scope rules (a nested function's own `name` is another variable). Where
        a scope declares `name` `global` or `nonlocal`, or it is not the function's own
        variable, every name node of that identifier in the function, to be safe."""
        ancestors = self._ancestors(node)
        owner = None
        if ancestors and ancestors[-1] is self.function and not self._declared_outside(name):
            owner = owning_scope(node, ancestors, name)
        if owner is None:
            return [
                n for n in syntax.walk(self.function) if isinstance(n, gast.Name) and n.id == name
            ]
        return variable_nodes(owner, name)

    def _holds_number(self, change: gast.AugAssign) -> bool:
        """Whether the variable `change` (`name += v`) rebinds is proved to hold an
        immutable number (`immutable_numbers`): Python then rebinds it too."""
        assert isinstance(change.target, gast.Name)
        name = change.target.id
        ancestors = self._ancestors(change.target)
        if not ancestors or ancestors[-1] is not self.function:
            return False
        owner = owning_scope(change.target, ancestors, name)
        if not isinstance(owner, gast.FunctionDef | gast.Lambda):
            return False
        if owner not in self._numbers:
            kinds = self.parameter_kinds if owner is self.function else {}
            registry = self.ctx.services.registry
            found = variable_kinds(owner, kinds, self._resolve, self.parents, registry)
            self._numbers[owner] = found
        return holds_number(self._numbers[owner].get(name))

    def _declared_outside(self, name: str) -> bool:
        """Whether some scope of the function declares `name` `global` or `nonlocal`: then
        the variable is shared with a scope srcad does not see whole."""
        return any(
            isinstance(node, gast.Global | gast.Nonlocal) and name in node.names
            for node in syntax.walk(self.function)
        )

    def _fresh_list(self, function: gast.FunctionDef, append: gast.Call) -> bool:
        """Whether the list `append` changes is one made in the same function by a list
        display, and only read, appended to or returned there."""
        assert isinstance(append.func, gast.Attribute) and isinstance(append.func.value, gast.Name)
        name = append.func.value.id
        scope = self._scope(append)
        if self._declared_outside(name):
            return False
        made_here = False
        for node in self._variable(append.func.value, name):
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
                made_here = made_here or self._scope(node) is scope
                continue
            if isinstance(parent, gast.Subscript | gast.For):
                continue
            if isinstance(parent, gast.Return) and self._scope(node) is scope:
                # Returned by a nested function, the list escapes to its caller, which
                # would see the appends that follow.
                continue
            if isinstance(parent, gast.Attribute) and is_append_call(self.parents.get(parent)):
                # An append from a nested function changes the list behind its back.
                if self._scope(node) is not scope:
                    return False
                continue
            if isinstance(parent, gast.Call) and node in parent.args:
                callee = self._resolve(parent.func)
                if any(callee is reader for reader in LIST_READERS):
                    continue
            return False
        return made_here and isinstance(scope, gast.FunctionDef)

    def _why_shared(self, change: gast.AugAssign) -> str | None:
        """Why the value `change` (`name += v`) changes may be held by something else; None
        where every binding of the variable is a new value, read only in ways that keep
        no reference to it until the last change."""
        assert isinstance(change.target, gast.Name)
        name = change.target.id
        nodes = self._variable(change.target, name)
        augmented = [
            parent
            for parent in map(self.parents.get, nodes)
            if isinstance(parent, gast.AugAssign) and isinstance(parent.target, gast.Name)
        ]
        for node in nodes:
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
            | gast.DictComp
            | gast.Set
            | gast.SetComp
            | gast.Tuple,
        ):
            return True
        if not isinstance(value, gast.Call):
            return False
        if any(keyword.arg == "copy" for keyword in value.keywords):
            return False  # `np.array(x, copy=False)` may be `x` itself
        if isinstance(value.func, gast.Attribute) and value.func.attr == "copy" and not value.args:
            return True  # `x.copy()`: a new array, list, dict or set
        return is_fresh_function(self._resolve(value.func))

    def _reads_without_keeping(self, node: gast.Name, parent: gast.AST | None) -> bool:
        if isinstance(parent, gast.BinOp | gast.UnaryOp | gast.Compare | gast.BoolOp):
            return True
        if isinstance(parent, gast.AugAssign) and parent.value is not node:
            return True  # the augmented assignment's own target
        if isinstance(parent, gast.AugAssign):
            return True
        if isinstance(parent, gast.Call) and node in parent.args:
            return is_fresh_function(self._resolve(parent.func))
        return isinstance(parent, gast.Subscript) and is_element_read(parent)

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

    def _loop_iterating(self, append: gast.Call, name: str) -> gast.For | None:
        """The `for` loop, around `append`, whose iterator walks the list `name` itself
        (`for v in name`, `enumerate(name)`, `zip(name, ...)`): Python's loop then sees
        the items appended in its body, the normal form's (a copy taken on entry) does not."""
        inside = append
        for ancestor in self._ancestors(append):
            if isinstance(ancestor, gast.FunctionDef | gast.Lambda):
                return None
            in_body = isinstance(ancestor, gast.For) and any(inside is s for s in ancestor.body)
            if in_body and any(
                self._walks(ancestor.iter, n, name) for n in syntax.walk(ancestor.iter)
            ):
                return ancestor
            inside = ancestor
        return None

    def _walks(self, iterable: gast.expr, node: gast.AST, name: str) -> bool:
        """Whether `node`, in a loop's `iterable`, is `name` read by the loop's iterator
        as it goes: the iterable itself, or an argument of a lazy iterator over it."""
        if not (isinstance(node, gast.Name) and node.id == name):
            return False
        if node is iterable:
            return True
        parent = self.parents.get(node)
        return (
            isinstance(parent, gast.Call)
            and node in parent.args
            and any(self._resolve(parent.func) is lazy for lazy in LAZY_ITERATORS)
        )

    def _ancestors(self, node: gast.AST) -> list[gast.AST]:
        chain = []
        while node in self.parents:
            node = self.parents[node]
            chain.append(node)
        return chain


def is_element_read(subscript: gast.Subscript) -> bool:
    """`x[i]` with a plain integer index reads one element (a copy, for numbers); slices,
    arrays and tuples of indices may give views."""
    index = subscript.slice
    return isinstance(index, gast.Constant) and isinstance(index.value, int)

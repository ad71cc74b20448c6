"""Proofs that a local value is fresh and unshared: made in the function (a display, a
copy, a NumPy constructor) and held by nothing else when it changes. The mutation check
lets such a value be changed in place (`items.append(v)`, `name += v`), as the change is
then what the normal form's rebinding computes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.constructors import attribute_descriptor
from srcad.kinds import Kind, is_numeric
from srcad.passes.analyses.scopes import owning_scope, variable_nodes
from srcad.passes.base import Context
from srcad.passes.checks.callees import is_append_call
from srcad.passes.checks.immutable_numbers import holds_number, variable_kinds
from srcad.passes.checks.in_place import (
    LAZY_ITERATORS,
    LIST_READERS,
    is_fresh_function,
    is_ufunc_at,
)
from srcad.primitives import CHANGING_METHODS


class FreshValues(ABC):
    """What `Mutations` proves about the values of `function` (set by the check): each
    node's parent, and whether a name holds a value made here that nothing else holds."""

    function: gast.FunctionDef
    # Whether the first parameter (`self` of an `__init__`) is a value made for the call.
    fresh_first_parameter = False
    # Whether changes to values the function made run as they are (`Mutations`'s).
    fresh_changes_allowed: bool
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
                if not self._made_for_call(node):
                    return False
                bound = True
            elif isinstance(node.ctx, gast.Store):
                parent = self.parents.get(node)
                if isinstance(parent, gast.AugAssign):
                    continue  # in place, or a new value: either way made here
                value = bound_value(node, parent)
                if value is None or not self._makes_new_value(value):
                    return False
                bound = True
        return bound

    def _made_for_call(self, parameter: gast.Name) -> bool:
        """Whether `parameter` is the first one, `self`, of a class's `__init__`, whose
        instance Python makes for the call."""
        first = self.function.args.args[:1]
        return self.fresh_first_parameter and bool(first) and parameter is first[0]

    def _builds(self, target: gast.Attribute) -> bool:
        """Whether `target` is `self.name` in the body of a class's initialiser
        (`srcad.constructors`), an attribute of the instance it makes."""
        first = self.function.args.args[:1]
        return (
            self.fresh_first_parameter
            and bool(first)
            and isinstance(target.value, gast.Name)
            and target.value.id == first[0].id
            and self._scope(target) is self.function
        )

    def _why_not_stored(self, target: gast.Attribute) -> str | None:
        """Why `self.name = v` in a class's initialiser does not store `v` in the instance:
        a descriptor of the class (a property's setter, a slot) runs instead."""
        kind = self.ctx.request.constructs
        found = attribute_descriptor(kind, target.attr) if kind is not None else None
        if found is None:
            return None
        return f"`.{target.attr}` is stored by a {type(found).__name__} of the class"

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
        return holds_number(self._variable_kind(change.target))

    def _holds_array(self, use: gast.Name) -> bool:
        """Whether the variable `use` names is proved to hold a NumPy array of numbers
        (`immutable_numbers`): its items are its own memory, never another value."""
        kind = self._variable_kind(use)
        return is_numeric(kind) and kind is not None and kind[1] >= 1

    def _variable_kind(self, use: gast.Name) -> Kind | None:
        """The kind of every value the variable `use` names may hold (None: unknown)."""
        name = use.id
        ancestors = self._ancestors(use)
        if not ancestors or ancestors[-1] is not self.function:
            return None
        owner = owning_scope(use, ancestors, name)
        if not isinstance(owner, gast.FunctionDef | gast.Lambda):
            return None
        if owner not in self._numbers:
            kinds = self.parameter_kinds if owner is self.function else {}
            registry = self.ctx.services.registry
            found = variable_kinds(owner, kinds, self._resolve, self.parents, registry)
            self._numbers[owner] = found
        return self._numbers[owner].get(name)

    def _declared_outside(self, name: str) -> bool:
        """Whether some scope of the function declares `name` `global` or `nonlocal`: then
        the variable is shared with a scope srcad does not see whole."""
        return any(
            isinstance(node, gast.Global | gast.Nonlocal) and name in node.names
            for node in syntax.walk(self.function)
        )

    def _fresh_list(self, function: gast.FunctionDef, append: gast.Call) -> bool:
        """Whether the list `append` changes is one made in the same function by a list
        display, and only read, appended to or returned there, or used in any way (bound
        to a new value: `traj = np.array(traj)`) once no append follows."""
        assert isinstance(append.func, gast.Attribute) and isinstance(append.func.value, gast.Name)
        name = append.func.value.id
        scope = self._scope(append)
        if self._declared_outside(name):
            return False
        made_here = False
        nodes = self._variable(append.func.value, name)
        appends = [  # (and the other changes the normal form writes as new lists)
            change
            for change in (self.appending_call(n) or self.changing_call(n) for n in nodes)
            if change is not None
        ]
        appended_here = all(self._scope(a) is self.function for a in appends)
        for node in nodes:
            parent = self.parents.get(node)
            if isinstance(node.ctx, gast.Param):
                return False
            if isinstance(node.ctx, gast.Store):
                value = bound_value(node, parent)
                if isinstance(parent, gast.Tuple | gast.List):
                    value = self._unpacked_item(parent, node)  # `a, b = [], []`
                if isinstance(value, gast.List | gast.ListComp):
                    made_here = made_here or self._scope(node) is scope
                    continue
                if (
                    value is not None
                    and appended_here
                    and self._makes_new_value(value)
                    and self._after_every_change(node, appends)
                ):
                    continue  # `traj = np.array(traj)` once the list is complete
                return False
            if isinstance(parent, gast.Subscript | gast.For):
                continue
            if appended_here and self._after_every_change(node, appends):
                continue  # (no append follows: whatever keeps the list sees it complete)
            if isinstance(parent, gast.Return) and self._scope(node) is scope:
                # Returned by a nested function, the list escapes to its caller, which
                # would see the appends that follow.
                continue
            if self.appending_call(node) or self.changing_call(node):
                # An append from a nested function changes the list behind its back; the
                # other changes are checked as such (`why_not_changed`).
                if self._scope(node) is not scope:
                    return False
                continue
            if isinstance(parent, gast.Call) and node in parent.args:
                callee = self._resolve(parent.func)
                if any(callee is reader for reader in LIST_READERS):
                    continue
            return False
        return made_here and isinstance(scope, gast.FunctionDef)

    def _unpacked_item(self, target: gast.Tuple | gast.List, name: gast.Name) -> gast.expr | None:
        """The item of a display that an unpacking assignment binds `name` to (`a, b = [],
        []`: each name gets the item in its place), or None."""
        assign = self.parents.get(target)
        if not (isinstance(assign, gast.Assign) and assign.targets == [target]):
            return None
        value = assign.value
        if not isinstance(value, gast.Tuple | gast.List) or len(value.elts) != len(target.elts):
            return None
        if any(isinstance(e, gast.Starred) for e in [*value.elts, *target.elts]):
            return None
        return value.elts[target.elts.index(name)]

    def _why_shared(self, use: gast.Name) -> str | None:
        """Why the value a change of the variable `use` reads (`name += v`, `name[i] = v`)
        may be held by something else; None where every binding of the variable is a new
        value, read only in ways that keep no reference to it until its last change."""
        name = use.id
        nodes = self._variable(use, name)
        changes = [change for change in map(self._change_of, nodes) if change is not None]
        for node in nodes:
            parent = self.parents.get(node)
            if isinstance(node.ctx, gast.Param):
                if self._made_for_call(node):
                    continue
                return f"`{name}` is a parameter, and may be the caller's array"
            if isinstance(node.ctx, gast.Store):
                if isinstance(parent, gast.AugAssign):
                    continue
                value = bound_value(node, parent)
                if value is None or not self._makes_new_value(value):
                    return f"`{name}` is assigned a value that may be shared (line {node.lineno})"
                continue
            if (
                _written_item(node, parent) is not None
                or self.changing_call(node) is not None
                or self.appending_call(node) is not None
                or self._accumulated(node, parent)
            ):
                continue  # the change itself
            if self._after_every_change(node, changes):
                continue
            if self._walks_own_keys(node, parent, nodes):
                continue
            if not self._reads_without_keeping(node, parent):
                return f"`{name}` is also used at line {node.lineno}, which may keep it"
        return None

    def _walks_own_keys(
        self, node: gast.Name, parent: gast.AST | None, nodes: list[gast.Name]
    ) -> bool:
        """Whether `node` is the dict that a `for key in name:` loop walks, and the loop's
        body changes the variable only by writing the item of the loop's own key (`for k
        in grads: grads[k] *= r`). Python's iterator holds the dict, whose keys and their
        order such writes keep (a new key, or one taken away, would make it raise), and so
        do the normal form's new dicts (`index_update`): the loop walks the same keys.
        Proved a dict by every binding of the variable: a display or a comprehension."""
        if not (
            isinstance(parent, gast.For)
            and parent.iter is node
            and isinstance(parent.target, gast.Name)
        ):
            return False
        key = parent.target.id
        body = {n for statement in parent.body for n in syntax.walk(statement)}
        for other in nodes:
            around = self.parents.get(other)
            if isinstance(other.ctx, gast.Param) or (
                isinstance(other.ctx, gast.Store) and other in body
            ):
                return False
            if isinstance(other.ctx, gast.Store):
                value = bound_value(other, around)
                if not (
                    isinstance(around, gast.AugAssign)
                    or isinstance(value, gast.Dict | gast.DictComp)
                ):
                    return False
            elif other in body:
                if self.changing_call(other) is not None or self.appending_call(other) is not None:
                    return False
                if isinstance(around, gast.Subscript) and around.value is other:
                    index = around.slice
                    if isinstance(around.ctx, gast.Del) or (
                        isinstance(around.ctx, gast.Store)
                        and not (isinstance(index, gast.Name) and index.id == key)
                    ):
                        return False
        return not any(
            isinstance(n, gast.Name) and n.id == key and not isinstance(n.ctx, gast.Load)
            for n in body
        )

    def _why_not_writable(self, write: gast.Subscript | gast.Attribute | gast.Call) -> str | None:
        """Why `name[index] = v` (or `name[index] op= v`, or `ufunc.at(name, index, v)`)
        cannot be rewritten as binding `name` to a new value with the item written
        (`primitives.index_update`, `primitives.ufunc_at`): None where `name` is a variable
        of the function itself, read by no nested function, holding a value made here that
        nothing else holds when it changes."""
        changed = write.args[0] if isinstance(write, gast.Call) else write.value
        if not isinstance(changed, gast.Name):
            return "only an item of a variable can be written (`x[i, j] = v`, not `x[i][j] = v`)"
        name = changed.id
        if self._declared_outside(name):
            return f"`{name}` is declared global or nonlocal"
        scope = self._scope(write)  # the function, or a nested one writing its own local
        if not isinstance(scope, gast.FunctionDef):
            return f"`{name}` is written in a lambda"
        nodes = self._variable(changed, name)
        for node in nodes:
            if self._scope(node) is not scope:
                return f"`{name}` is used by a nested function (line {node.lineno})"
        if not any(isinstance(node.ctx, gast.Store | gast.Param) for node in nodes):
            return f"`{name}` is not made in this function (a global, or a builtin)"
        return self._why_shared(changed)

    def _why_not_accumulated(self, call: gast.Call, callee: Any) -> str | None:
        """Why the call of `callee`, which changes its first argument in place, cannot be
        rewritten as binding that to a new value, as the clause the message adds ("" for
        any function but `ufunc.at`): None for `ufunc.at(name, indices, values)` where it
        is a statement of its own, passes its arguments plainly, and `name` may be written
        as an item may (`_why_not_writable`): `name = ufunc_at(ufunc, name, indices,
        values)` then (`primitives.ufunc_at`, `passes/transforms/anf_rewrites.py`)."""
        if not is_ufunc_at(callee) or self.fresh_changes_allowed:
            return ""
        why = None
        if not isinstance(self.parents.get(call), gast.Expr):
            why = "it is not a statement of its own"
        elif call.keywords or any(isinstance(a, gast.Starred) for a in call.args):
            why = "it passes keywords or unpacks its arguments"
        elif len(call.args) not in (2, 3) or not isinstance(call.args[0], gast.Name):
            why = "its first argument is not a variable"
        elif callee.__self__ not in (np.add, np.subtract):  # (`rules/ufunc_at.py`)
            why = f"srcad takes np.add.at and np.subtract.at, not np.{callee.__self__.__name__}.at"
        else:
            why = self._why_not_writable(call)
        return None if why is None else f", which srcad cannot rewrite as a new value: {why}"

    def _accumulated(self, node: gast.AST, parent: gast.AST | None) -> gast.Call | None:
        """The call `ufunc.at(node, ...)`, a statement of its own, where `node` is its first
        argument (the array it changes), if `parent` is one."""
        if (
            isinstance(parent, gast.Call)
            and parent.args
            and parent.args[0] is node
            and isinstance(self.parents.get(parent), gast.Expr)
            and is_ufunc_at(self._resolve(parent.func))
        ):
            return parent
        return None

    def _owns(self, node: gast.expr) -> bool:
        """Whether the variable `node` names is a local of the function whose body holds
        `node` (not one it reads from an enclosing function)."""
        if not isinstance(node, gast.Name) or self._declared_outside(node.id):
            return False
        scope = self._scope(node)
        return all(self._scope(n) is scope for n in self._variable(node, node.id))

    def _change_of(self, node: gast.Name) -> gast.stmt | None:
        """The statement that changes the value of the variable `node` is a name of, where
        `node` is the name it changes: `name += v`, the item written in `name[i] = v`, or
        `ufunc.at(name, i, v)`."""
        parent = self.parents.get(node)
        if isinstance(parent, gast.AugAssign) and parent.target is node:
            return parent
        write = (
            _written_item(node, parent)
            or self.changing_call(node)
            or self.appending_call(node)
            or self._accumulated(node, parent)
        )
        while write is not None and not isinstance(write, gast.stmt):
            write = self.parents.get(write)
        return write

    def appending_call(self, node: gast.AST) -> gast.Call | None:
        """The call `node.append(v)`, where `node` is its receiver."""
        parent = self.parents.get(node)
        if not (isinstance(parent, gast.Attribute) and parent.value is node):
            return None
        call = self.parents.get(parent)
        if isinstance(call, gast.Call) and is_append_call(call) and call.func is parent:
            return call
        return None

    def changing_call(self, node: gast.AST) -> gast.Call | None:
        """The call `node.method(...)` of a method that changes `node` in place and that
        the normal form writes as a new value (`primitives.CHANGING_METHODS`: `xs.sort()`,
        `d.update(e)`), where `node` is its receiver."""
        parent = self.parents.get(node)
        if not (
            isinstance(parent, gast.Attribute) and parent.value is node and parent.attr in CHANGING
        ):
            return None
        call = self.parents.get(parent)
        return call if isinstance(call, gast.Call) and call.func is parent else None

    def why_not_changed(self, call: gast.Call) -> str | None:
        """Why `name.method(...)`, a method that changes `name` in place, cannot be written
        as binding `name` to a new value (`primitives.changed`, in the normal form): None
        where the method is one `changed` takes, called as a statement of its own (or `v =
        xs.pop()`, `v = d.setdefault(k, v0)`), on a variable of the function that holds a
        value made here and held by nothing else (as for an item written: `_why_not_writable`)."""
        assert isinstance(call.func, gast.Attribute)
        if self.changing_call(call.func.value) is None:  # (another method)
            return ""
        parent = self.parents.get(call)
        kept = (
            call.func.attr in ("pop", "setdefault")
            and isinstance(parent, gast.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0], gast.Name)
        )
        if not (isinstance(parent, gast.Expr) or kept):
            return ", inside an expression: make the call a statement of its own"
        if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            return ", with arguments unpacked (`*`, `**`)"
        assert isinstance(call.func.value, gast.Name)
        loop = self._loop_iterating(call, call.func.value.id)
        if loop is not None:
            return f", while the `for` loop on line {loop.lineno} iterates over it"
        reason = self._why_not_writable(call.func)
        return None if reason is None else f", and it may be shared: {reason}"

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
        callee = self._resolve(value.func)
        if callee is list or callee is sorted:
            return True  # a new list (of items that may be shared: `changes_item_in_place`)
        return is_fresh_function(callee)

    def _reads_without_keeping(self, node: gast.expr, parent: gast.AST | None) -> bool:
        if isinstance(parent, gast.BinOp | gast.UnaryOp | gast.Compare):
            return True
        if isinstance(parent, gast.BoolOp | gast.IfExp):
            # `a or b` and `b if c else d` give an operand itself (`zs = ys or []` is `ys`):
            # kept as far as their value is; the test of a conditional is only read.
            if isinstance(parent, gast.IfExp) and node is parent.test:
                return True
            return self._reads_without_keeping(parent, self.parents.get(parent))
        if isinstance(parent, gast.Return) and self._owns(node):
            return True  # nothing of the function that owns the variable runs after it
        if isinstance(parent, gast.Attribute) and parent.value is node:
            # In a class's initialiser, an attribute it stored before: the value stored,
            # not the instance (a descriptor that stores it is refused when it runs). Of an
            # item (`w[:, 1:].T`), maybe a view of a view: kept.
            if not isinstance(node, gast.Name):
                return False
            return isinstance(parent.ctx, gast.Load) and self._stored_before(parent)
        if isinstance(parent, gast.Subscript) and parent.value is node:
            # An item read: of an array, maybe a view (`rows[0]` of a matrix), so kept only
            # as far as the item itself is.
            return isinstance(parent.ctx, gast.Load) and self._reads_without_keeping(
                parent, self.parents.get(parent)
            )
        if isinstance(parent, gast.AugAssign):
            return True  # its own target, or the value it adds: read before the change
        if isinstance(parent, gast.Assign) and parent.value is node:
            return self._writes_into_itself(parent)
        if isinstance(parent, gast.Call) and node in parent.args:
            return is_fresh_function(self._resolve(parent.func))
        return False

    def _writes_into_itself(self, write: gast.Assign) -> bool:
        """Whether `write` writes part of an array variable into the variable itself:
        `y[1:] = y[:-1]`, `out[i] = out[i - 1]`, `y[::-1] = y`. Python evaluates the value
        before it writes, and NumPy writes overlapping memory as if from a copy, so the
        write reads the old value, as the normal form's (`index_update`) does: the view is
        kept by nothing after the statement. Only an array, proved one by its kind: a
        list's or a dict's item written into another would be one value held twice, which
        `y[1] += v` (in place on an array item) would change in both."""
        (target,) = write.targets if len(write.targets) == 1 else (None,)
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)):
            return False
        value = write.value
        if isinstance(value, gast.Name):
            sliced = any(isinstance(part, gast.Slice) for part in syntax.walk(target.slice))
            if not sliced:
                return False  # (`y[0] = y`: the array itself is not an item of it)
        while isinstance(value, gast.Subscript) and isinstance(value.ctx, gast.Load):
            value = value.value
        return (
            isinstance(value, gast.Name)
            and value.id == target.value.id
            and self._holds_array(target.value)
        )

    def _stored_before(self, read: gast.Attribute) -> bool:
        """Whether the attribute `read` reads (`self.name`) is assigned, on the same
        variable, earlier in the function's text."""
        assert isinstance(read.value, gast.Name)
        return any(
            isinstance(node, gast.Attribute)
            and isinstance(node.ctx, gast.Store)
            and node.attr == read.attr
            and isinstance(node.value, gast.Name)
            and node.value.id == read.value.id
            and _end(node) < (read.lineno, read.col_offset)
            for node in syntax.walk(self.function)
        )

    def _after_every_change(self, node: gast.expr, changes: list[gast.AST]) -> bool:
        """A read after the last change (and in no loop around one) sees the final value
        whether the change was in place or not. A read inside a change statement is not
        after it: `items[0] = items` stores the value it changes."""
        position = (node.lineno, node.col_offset)
        if any(position <= _end(change) for change in changes):
            return False
        for ancestor in self._ancestors(node):
            if isinstance(ancestor, gast.For | gast.While) and any(
                change in set(syntax.walk(ancestor)) for change in changes
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


def bound_value(node: gast.Name, parent: gast.AST | None) -> gast.expr | None:
    """The value `name = value` (or `name: T = value`) binds to `node`, its target."""
    if isinstance(parent, gast.Assign) and parent.targets == [node]:
        return parent.value
    if isinstance(parent, gast.AnnAssign) and parent.target is node:
        return parent.value
    return None


def _written_item(
    node: gast.AST, parent: gast.AST | None
) -> gast.Subscript | gast.Attribute | None:
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


def _end(node: gast.AST) -> tuple[int, int]:
    """Where `node`'s text ends."""
    line = getattr(node, "end_lineno", None) or node.lineno
    return (line, getattr(node, "end_col_offset", None) or 0)


# The names of the methods the normal form writes as new values (`changing_call`).
CHANGING = frozenset().union(*CHANGING_METHODS.values())

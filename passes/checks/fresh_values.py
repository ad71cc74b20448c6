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
from srcad.constructors import attribute_descriptor
from srcad.kinds import Kind, is_numeric
from srcad.passes.analyses.fresh_items import FreshItems
from srcad.passes.analyses.scopes import owning_scope, variable_nodes
from srcad.passes.base import Context
from srcad.passes.checks.callees import is_append_call, item_holder, unpacks
from srcad.passes.checks.fresh_calls import FreshCalls
from srcad.passes.checks.fresh_syntax import CHANGING, bound_value
from srcad.passes.checks.fresh_syntax import text_end as _end
from srcad.passes.checks.fresh_syntax import written_item as _written_item
from srcad.passes.checks.immutable_numbers import holds_number, variable_kinds
from srcad.passes.checks.in_place import (
    LAZY_ITERATORS,
    LIST_READERS,
    is_fresh_function,
)
from srcad.passes.checks.lifted_changes import why_not_lifted


class FreshValues(FreshCalls, ABC):
    """What `Mutations` proves about the values of `function` (set by the check): each
    node's parent, and whether a name holds a value made here that nothing else holds."""

    function: gast.FunctionDef
    # Whether the first parameter (`self` of an `__init__`) is a value made for the call.
    fresh_first_parameter = False
    # Whether changes to values the function made run as they are (`Mutations`'s).
    fresh_changes_allowed: bool
    _parents: dict[gast.AST, gast.AST] | None
    _tree: gast.Module  # (the module holding `function`, which `FreshItems` reads)
    _fresh_items: frozenset[str] | None
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

    @property
    def fresh_items(self) -> frozenset[str]:
        """The variables whose every item was made for them alone (`FreshItems`), found
        when a check first asks."""
        if self._fresh_items is None:
            self._fresh_items = self.ctx.analysis(FreshItems, self._tree)
        return self._fresh_items

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
                    if self._reaches_no_earlier(node, use):
                        continue  # a value bound after `use`, in no loop around it
                    return False
                bound = True
        return bound

    def _reaches_no_earlier(self, store: gast.Name, use: gast.Name) -> bool:
        """Whether the binding `store` cannot be what `use` reads: it comes after `use`'s
        statement, in no loop around `use` (Python runs a function's statements in their
        order but for loops, which run theirs again)."""
        statement: gast.AST = use
        while not isinstance(statement, gast.stmt) and statement in self.parents:
            statement = self.parents[statement]
        if (store.lineno, store.col_offset) <= _end(statement):
            return False
        return not any(
            isinstance(ancestor, gast.For | gast.While) and use in set(syntax.walk(ancestor))
            for ancestor in self._ancestors(store)
        )

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
            if isinstance(parent, gast.If | gast.While) and node is parent.test:
                continue  # (`while stack:`)
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
                    if self._after_every_change(node, changes):
                        continue  # a value bound once no change follows: never changed
                    return f"`{name}` is assigned a value that may be shared (line {node.lineno})"
                continue
            if (
                _written_item(node, parent) is not None
                or self.changing_call(node) is not None
                or self.appending_call(node) is not None
                or self.item_changing_call(node) is not None
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
            or self.item_changing_call(node)
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
        where the method is one `changed` takes, called as a statement of its own or where
        the normal form can lift it out of an expression (`why_not_lifted`), on a variable
        of the function that holds a value made here and held by nothing else (as for an
        item written: `_why_not_writable`)."""
        assert isinstance(call.func, gast.Attribute)
        if item_holder(call) is not None:
            return self._why_not_item_changed(call)
        if self.changing_call(call.func.value) is None:  # (another method)
            return ""
        parent = self.parents.get(call)
        changer = self.parents.get(parent) if isinstance(parent, gast.Attribute) else None
        if call.func.attr == "setdefault" and item_holder(changer) is call.func.value:
            return None  # `d.setdefault(k, []).append(v)`: the item's change is checked
        if not isinstance(call.func.value, gast.Name):  # `self.__dict__.update(d)`
            return ", on an item or an attribute, not a variable of the function"
        lifted = why_not_lifted(call, call.func.value, self.parents, self._changes_after)
        if lifted is not None:
            return lifted
        if unpacks(call):
            return ", with arguments unpacked (`*`, `**`)"
        loop = self._loop_iterating(call, call.func.value.id)
        if loop is not None:
            return f", while the `for` loop on line {loop.lineno} iterates over it"
        reason = self._why_not_writable(call.func)
        return None if reason is None else f", and it may be shared: {reason}"

    @staticmethod
    def changes_an_item(call: gast.Call) -> bool:
        """Whether `call` is `items[k].method(...)` or `items.setdefault(k, v0).method(...)`
        (`callees.item_holder`)."""
        return item_holder(call) is not None

    def _changes_after(self, node: gast.Name) -> bool:
        """Whether `node` is the receiver of `node.method(...)`, a method the normal form
        writes as a new value once its arguments have run (`xs.append(v)`, `xs.pop()`)."""
        return self.changing_call(node) is not None or self.appending_call(node) is not None

    def item_changing_call(self, node: gast.AST) -> gast.Call | None:
        """The call `node[k].method(...)` (or `node.setdefault(k, v0).method(...)`) that
        changes an item of `node` in place (`callees.item_holder`), where `node` is the
        variable that holds the item."""
        ancestor: gast.AST | None = node
        for _ in range(4):  # (the call is the third ancestor, or the fourth)
            ancestor = self.parents.get(ancestor) if ancestor is not None else None
            if isinstance(ancestor, gast.Call) and item_holder(ancestor) is node:
                return ancestor
        return None

    def _why_not_item_changed(self, call: gast.Call) -> str | None:
        """Why `items[k].method(...)` (or `items.setdefault(k, v0).method(...)`), which
        changes an item of `items` in place, cannot be written as the item changed into a
        new value and written back (`change_rewrites._change_item`): None where it is a
        statement of its own or can be lifted out of an expression (`why_not_lifted`),
        `items` may be written as an item may (`_why_not_writable`: made here, held by
        nothing else, no `for` loop walking it), and every item of `items` was made for it
        alone (`FreshItems`: no alias of the item, a parameter's list stored in it, or one
        list stored twice, `[[]] * m`, which would see Python's change but not the new
        value)."""
        holder = item_holder(call)
        assert holder is not None and isinstance(call.func, gast.Attribute)
        receiver = call.func.value
        name = holder.id
        if self.fresh_changes_allowed:  # (a callee that runs as it is: its own values)
            reason = None if self._fresh_local(holder) else f"`{name}` may be the caller's"
        else:
            lifted = why_not_lifted(call, holder, self.parents, self._changes_after)
            if lifted is not None:
                return lifted
            if unpacks(call):
                return ", with arguments unpacked (`*`, `**`)"
            if call.func.attr == "append" and (len(call.args) != 1 or call.keywords):
                return ", with other arguments than one item"
            loop = self._loop_iterating(call, name)
            if loop is not None:
                return f", while the `for` loop on line {loop.lineno} iterates over `{name}`"
            written = receiver if isinstance(receiver, gast.Subscript) else receiver.func
            assert isinstance(written, gast.Subscript | gast.Attribute)
            reason = self._why_not_writable(written)
        if reason is not None:
            return f", an item of `{name}`, which may be shared: {reason}"
        if name not in self.fresh_items:
            return (
                f", an item of `{name}`, which may be held by something else too: srcad "
                f"takes it where `{name}` is bound only to a display, a comprehension or a "
                "`defaultdict(list)` and is given only values just made (not a parameter, "
                "a variable, another item, nor one list repeated: `[[]] * n`)"
            )
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
        callee = self._resolve(value.func)
        if callee is list or callee is sorted or callee is set:
            return True  # a new list or set (of items that may be shared: `FreshItems`)
        return is_fresh_function(callee)

    def _reads_without_keeping(self, node: gast.expr, parent: gast.AST | None) -> bool:
        if isinstance(parent, gast.BinOp | gast.UnaryOp | gast.Compare):
            return True
        if isinstance(parent, gast.If | gast.While) and node is parent.test:
            return True  # (`while stack:`, whether it is empty)
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

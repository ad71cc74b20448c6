"""ValueKinds: the kind (`srcad.kinds`) of every local name, from the kinds of the parameters."""

from __future__ import annotations

import operator
from collections import deque
from dataclasses import dataclass
from typing import Any

import gast

from srcad import dtypes, primitives, syntax
from srcad.kinds import (
    EMPTY_LIST,
    EMPTY_TUPLE,
    FLOATS,
    NO_CALLEE_KINDS,
    PYTHON_FLOAT,
    PYTHON_INT,
    RANGE,
    Kind,
    Signature,
    Structure,
    as_scalars,
    is_int_scalar,
    is_integer,
    is_list,
    is_numeric,
    join,
    list_item,
    list_of,
)
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.checks.callees import static_path
from srcad.passes.checks.in_place import LIST_READERS
from srcad.passes.normal_form import (
    OPERATORS,
    bound_names,
    constant_int,
    integral_power,
    walk_statements,
)
from srcad.primitives import unpack
from srcad.registry import Origin, Registry

BOTTOM: Kind = ("unset", 0)  # a local no assignment has given a kind yet
# The kinds of a literal number: a Python float, int or complex (`2.0`, `2`, `1j`) for sure.
_CONSTANTS = {float: PYTHON_FLOAT, int: PYTHON_INT, complex: (dtypes.PYTHON_COMPLEX, 0)}


class ValueKinds(Analysis["ValueKinds"]):
    """The kind of each local name, or None where it is unknown or differs between the
    statements that assign it. Like `Activity`, the analysis ignores statement order: a
    name has one kind throughout, the join of what every assignment gives it. A name from
    outside the function (a global, a closure cell) has the kind of what it holds now
    where that is a number, a tuple of floats or an array (`outside`), which the rule's
    guards check on entry; anything else from outside has none.

    The result is the analysis itself: `kinds` by name, and `of` for any expression.

    A call's kind depends on what it calls: a dotted name (`np.exp`) that no local binds
    is looked up where Python would (`FunctionSource.lookup`); anything else calls what
    the kinds cannot tell. What a primitive's result kind is, for an operator or a call,
    is a fact of its entry in the rule library, which the registry gives
    (`result_kind`).

    A container parameter's kind is its structure (`srcad.kinds.Structure`), kept apart in
    `structures` (its name's kind is None, as every pass reads kinds): what the code reads
    of it has its item's kind (`_item_of`). So does a name bound once to part of it (a
    slice, an item that is a container, a loop's item), and each name an unpacking binds.
    """

    def run(self, tree: gast.Module, ctx: Context) -> ValueKinds:
        function = function_of(tree)
        self.ctx = ctx
        self.kinds: dict[str, Kind | None] = {}
        self.local: set[str] = set()
        self.found: dict[tuple[str, ...], Any] = {}  # callees, by dotted path
        self.constants: dict[str, Kind | None] = {}  # names read from outside, by name
        self.results: dict[tuple[Any, Signature], Kind | None] = {}  # callees' result kinds
        self.returns: Kind | None = None  # the kind of what the function returns
        self.bound: set[str] | None = None  # the names the function binds (None: not known)
        self.structures: dict[str, Structure] = {}  # containers' structures, by name
        self.outside_structures: dict[str, Structure | None] = {}  # of globals, by name
        self.inside: set[str] | None = None  # the names the function binds (None: unknown)
        # The names of lists something but appends may change: found when a list first
        # gets a kind (most functions make none).
        self.changeable: set[str] | None = None
        if not ctx.request.kinds:
            return self
        args = function.args
        every_arg = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        # The names the function binds (parameters, assignments, nested definitions): any
        # other name it reads is a global, a closure cell or a builtin.
        self.inside = {a.id for a in every_arg if a is not None}
        for statement in walk_statements(function.body):
            self.inside.update(bound_names(statement))
            if isinstance(statement, gast.FunctionDef):
                self.inside.add(statement.name)
        for name in [a.id for a in [*args.posonlyargs, *args.args]]:
            kind = ctx.request.kinds.get(name)
            if isinstance(kind, Structure):
                self.structures[name] = kind
                kind = None
            self.kinds[name] = kind
        self._find_structures(function)
        nested: set[str] = set()
        local = self.local
        kinds = self.kinds
        assignments: list[_Assignment] = []
        for statement in walk_statements(function.body):
            binding = _binding(statement)
            if binding is None:
                if isinstance(statement, gast.FunctionDef):
                    nested.add(statement.name)
                continue
            target, value, loop = binding
            # A tape record read back gives names values they had: nothing new to learn.
            restores = target in ctx.output.restored
            if isinstance(target, gast.Name):
                local.add(target.id)
                if not restores:
                    assignments.append(_Assignment(target.id, value, loop, _names(value)))
                continue
            names = _names(target)
            local.update(names)
            if restores:
                continue
            read = self._container_read(target, value)
            if read is not None:  # `(item, pullback) = getitem_rrule(base, key)`
                local.update(names)
                target, value = read
                if isinstance(target, gast.Name):
                    assignments.append(_Assignment(target.id, value, False, _names(value)))
                    kinds[names[-1]] = None  # the pullback
                    continue
                kinds[names[-1]] = None
            unpacked = self._unpacked(target, value, loop)
            if unpacked is not None:  # of a container of a known structure: each its item
                for name, item in unpacked:
                    assignments.append(_Assignment(name, item, False, _names(value)))
                continue
            # Several names bound at once: each gets None, whatever the value reads.
            kinds.update(dict.fromkeys(names))
        # What shadows a global or builtin callee.
        self.bound = local | nested | {a.id for a in every_arg if a is not None}
        # Every other name starts unset (BOTTOM); each assignment joins in what it gives,
        # and is looked at again whenever the kind of a name it reads changes, until
        # nothing changes (first in source order, which settles most names at once). Only
        # locals change kinds, and only they are unset: a name from outside that a value
        # reads never sends its readers round again, nor holds them back.
        readers: dict[str, list[int]] = {}
        for index, assignment in enumerate(assignments):
            for name in assignment.reads:
                readers.setdefault(name, []).append(index)
        pending = deque(range(len(assignments)))
        queued = [True] * len(assignments)
        while pending:
            index = pending.popleft()
            queued[index] = False
            assignment = assignments[index]
            kind = self._assigned(assignment)
            if kind is BOTTOM:
                continue
            name = assignment.name
            if is_list(kind):
                if self.changeable is None:
                    self.changeable = self._changeable_lists(function)
                if name in self.changeable:
                    kind = None
            joined = None if name in nested else _join(kinds, name, kind)
            if name not in kinds or kinds[name] != joined:
                kinds[name] = joined
                for reader in readers.get(name, ()):
                    if not queued[reader]:
                        queued[reader] = True
                        pending.append(reader)
        for name in local:
            kinds.setdefault(name, None)  # every local has its kind: none is BOTTOM
        self.returns = self._returned(function)
        return self

    def _returned(self, function: gast.FunctionDef) -> Kind | None:
        """A kind of every value the function returns (None: unknown, or none holds them all)."""
        found: Kind | None = BOTTOM
        for statement in walk_statements(function.body):
            if isinstance(statement, gast.Return):
                kind = self.of(statement.value) if statement.value is not None else None
                if found is not BOTTOM:
                    kind = join(found, kind)
                    if kind is None:
                        return None
                found = kind
        return None if found is BOTTOM else found

    def _assigned(self, assignment: _Assignment) -> Kind | None:
        """What the assignment gives the name it binds: BOTTOM while a name its value
        reads has no kind yet."""
        kinds, local = self.kinds, self.local
        for name in assignment.reads:
            if name not in kinds and name in local:
                return BOTTOM
        if assignment.loop:
            structure = self.structure(assignment.value)
            if structure is not None:  # a loop over a tuple or list's items
                item = structure.uniform
                return item if not isinstance(item, Structure) else None
        kind = self.of(assignment.value)
        if assignment.loop and kind is not BOTTOM:
            kind = _item(kind)
        return kind

    def of(self, value: gast.expr) -> Kind | None:
        """The kind of a normal-form expression, from the kinds found so far."""
        if isinstance(value, gast.Name):
            kinds = self.kinds
            if value.id in kinds:
                return kinds[value.id]
            return BOTTOM if value.id in self.local else self.outside(value.id)
        if isinstance(value, gast.BinOp):
            operands = [self.of(value.left), self.of(value.right)]
            if integral_power(value):
                operands[1] = PYTHON_INT  # `x ** 2.0` is real as `x ** 2` is
            return result_kind(self.ctx.services.registry, OPERATORS[type(value.op)], operands)
        if isinstance(value, gast.Constant):  # weak in NumPy's promotion (`srcad.dtypes`)
            return _CONSTANTS.get(type(value.value))
        if isinstance(value, gast.UnaryOp):
            function = OPERATORS.get(type(value.op))
            return result_kind(self.ctx.services.registry, function, [self.of(value.operand)])
        if isinstance(value, (gast.Subscript, gast.Attribute)) and self.structures:
            structure = self.structure(value.value)
            if structure is not None:
                item = self._item_of(structure, value)
                return item if not isinstance(item, Structure) else None
        if isinstance(value, gast.Subscript):
            return indexed(self.of(value.value), value.slice, self.of)
        if isinstance(value, gast.Attribute):
            path = static_path(value)  # a module's constant (`math.pi`, `config.SCALE`)?
            kind = None if path is None else self.outside(path)
            if kind is not None:
                return kind
        if isinstance(value, gast.Attribute) and value.attr in ("real", "imag"):
            base = self.of(value.value)  # (a number or array: `getattr`'s rule reads it)
            return base if base is None or base is BOTTOM else dtypes.real_kind(base)
        if isinstance(value, gast.Attribute) and value.attr in ("size", "ndim"):
            base = self.of(value.value)
            return PYTHON_INT if is_numeric(base) and base is not None and base[1] != 0 else None
        if isinstance(value, gast.List):
            return self._display(value)
        if isinstance(value, gast.Tuple) and not value.elts:
            return EMPTY_TUPLE  # (the shape `np.zeros(())` reads)
        if isinstance(value, gast.Call) and not value.keywords:
            arguments = [self.of(a) for a in value.args]
            callee = self.callee(value)
            if callee is primitives.append and len(arguments) == 2:
                return _appended(*arguments)
            kind = result_kind(self.ctx.services.registry, callee, arguments)
            starred = any(isinstance(a, gast.Starred) for a in value.args)
            if kind is None and callee is not None and BOTTOM not in arguments and not starred:
                kind = self.returned(callee, tuple(arguments))
            return kind
        if isinstance(value, gast.Call):  # keyword options, where constants: `axis=1`
            options = constant_options(value.keywords)
            if options is None:
                return None
            arguments = [self.of(a) for a in value.args]
            return result_kind(self.ctx.services.registry, self.callee(value), arguments, options)
        return None

    # -- containers ---------------------------------------------------------------------

    def _display(self, value: gast.List) -> Kind | None:
        """A list display's kind: a list of its elements' kind (`kinds.list_of`)."""
        if any(isinstance(e, gast.Starred) for e in value.elts):
            return None
        found: Kind | None = EMPTY_LIST
        for element in value.elts:
            kind = self.of(element)
            if kind is BOTTOM:
                return BOTTOM
            found = _appended(found, kind)
        return found

    def _changeable_lists(self, function: gast.FunctionDef) -> set[str]:
        """The names whose lists something but an append may change, or that hold the
        same list as such a name (a copy `b = a`): a list kind holds only where a list is
        read by iterating it, indexing it, copying it and the calls of `LIST_READERS`,
        and grown by the `append` primitive, nowhere else (not by a method, a callee, a
        nested function, or from a container holding it)."""
        changeable: set[str] = set()
        copies: list[tuple[str, str]] = []
        parents = {c: n for n in syntax.walk(function) for c in syntax.children(n)}
        for node in syntax.walk(function):
            if not (isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load)):
                continue
            parent = parents.get(node)
            if isinstance(parent, gast.Assign) and parent.value is node:
                target = parent.targets[0]
                if isinstance(target, gast.Name):
                    copies.append((node.id, target.id))
                    continue
            elif isinstance(parent, gast.For) and parent.iter is node:
                continue
            elif isinstance(parent, gast.Subscript) and parent.value is node:
                if isinstance(parent.ctx, gast.Load):
                    continue
            elif isinstance(parent, gast.Call) and node in parent.args:
                callee = self.callee(parent) if self.bound is not None else None
                if callee is primitives.append and parent.args[0] is node:
                    continue
                if any(callee is reader for reader in LIST_READERS):
                    continue
            changeable.add(node.id)
        for node in syntax.walk(function):  # a nested function's own variables too
            if isinstance(node, gast.FunctionDef | gast.Lambda) and node is not function:
                changeable.update(n.id for n in syntax.walk(node) if isinstance(n, gast.Name))
        grown = True
        while grown:  # a copy holds the same list: changed through either name
            grown = False
            for source, target in copies:
                if (source in changeable) != (target in changeable):
                    changeable.update((source, target))
                    grown = True
        return changeable

    def structure(self, value: gast.expr) -> Structure | None:
        """The structure of a container an expression gives: a name's (`structures`), or
        an item or slice of a container of a known structure."""
        inside = self.inside
        if isinstance(value, gast.Name):
            if inside is None or value.id in self.structures or value.id in inside:
                return self.structures.get(value.id)
            return self.outside_structure([value.id])
        path = static_path(value) if isinstance(value, gast.Attribute) else None
        if path is not None and inside is not None and path[0] not in inside:
            found = self.outside_structure(path)  # a module's (`config.PARAMS`)
            if found is not None:
                return found
        if isinstance(value, (gast.Subscript, gast.Attribute)):
            base = self.structure(value.value)
            if base is not None:
                item = self._item_of(base, value)
                return item if isinstance(item, Structure) else None
        return None

    def _item_of(self, structure: Structure, read: gast.Subscript | gast.Attribute) -> Any:
        """The kind (or `Structure`) of what `read` reads of a container of `structure`:
        a field; an item at a constant key or index, or at any int index of a tuple or list
        whose items have one kind; a tuple or list sliced by constants. None where unknown."""
        if isinstance(read, gast.Attribute):
            return structure.item(read.attr) if structure.fields else None
        index = read.slice
        if not structure.positional and structure.container is not dict:
            return None
        if isinstance(index, gast.Constant):
            return structure.item(index.value)
        position = constant_int(index)
        if position is not None:
            return structure.item(position)
        if isinstance(index, gast.Slice):
            parts = (index.lower, index.upper, index.step)
            bounds = [None if part is None else constant_int(part) for part in parts]
            if any(b is None for b, part in zip(bounds, parts, strict=True) if part is not None):
                return None
            return structure.sliced(slice(*bounds))
        if is_int_scalar(self.of(index)):
            return structure.uniform
        return None

    def _find_structures(self, function: gast.FunctionDef) -> None:
        """The structures of the names each binding of which binds part of a container of
        a known structure (`x = params[0]`, `for layer in layers`, `(W, b), c = pair`), the
        same each time (`Unroll` binds a loop variable once per item): repeated until no
        name gains one. A parameter bound again in the body has none."""
        bindings: dict[str, int] = {}
        for statement in walk_statements(function.body):
            for name in bound_names(statement):
                bindings[name] = bindings.get(name, 0) + 1
        for name in [n for n in self.structures if n in bindings]:
            del self.structures[name]
        while found := self._structures_bound(function, bindings):
            self.structures.update(found)

    def _structures_bound(
        self, function: gast.FunctionDef, counts: dict[str, int]
    ) -> dict[str, Structure]:
        """The names not in `structures` that all their bindings give one structure."""
        given: dict[str, list[Structure]] = {}
        for statement in walk_statements(function.body):
            binding = _binding(statement)
            if binding is None:
                continue
            target, value, loop = binding
            read = self._container_read(target, value)
            if read is not None:
                target, value = read
            pairs = self._unpacked(target, value, loop)
            if pairs is None:
                if not isinstance(target, gast.Name):
                    continue
                pairs = [(target.id, value)]
            for name, item in pairs:
                structure = self.structure(item)
                if loop and structure is not None:  # each item the loop gives
                    uniform = structure.uniform
                    structure = uniform if isinstance(uniform, Structure) else None
                if structure is not None and name not in self.structures:
                    given.setdefault(name, []).append(structure)
        one = {name: s[0] for name, s in given.items() if all(t == s[0] for t in s)}
        return {name: s for name, s in one.items() if len(given[name]) == counts.get(name)}

    def _container_read(
        self, target: gast.expr, value: gast.expr
    ) -> tuple[gast.expr, gast.expr] | None:
        """For the library's rule calls that read a container, as ReverseAD emits them,
        `(item, pullback) = getitem_rrule(base, key)` and `(items, pullback) =
        unpack_rrule(base, count)`: the target of the read and what it reads (`base[key]`,
        `base`), so that the items of a container of a known structure keep their kinds
        in the emitted code (what `Prune` reads); else None."""
        if not (
            isinstance(target, gast.Tuple)
            and len(target.elts) == 2
            and isinstance(value, gast.Call)
            and isinstance(value.func, gast.Name)
            and len(value.args) == 2
            and not value.keywords
            and self.inside is not None
            and value.func.id not in self.inside
        ):
            return None
        called = self.ctx.output.runtime.get(value.func.id)
        registry = self.ctx.services.registry
        for primal in (operator.getitem, unpack):
            rule = registry.rrule_for(primal)
            if rule is not None and rule.origin is Origin.LIBRARY and called is rule.rrule:
                base, key = value.args
                return target.elts[0], (_index(base, key) if primal is operator.getitem else base)
        return None

    def _unpacked(
        self, target: gast.expr, value: gast.expr, loop: bool
    ) -> list[tuple[str, gast.expr]] | None:
        """Each name a tuple target binds, with the item of the value it gets (`value[i]`,
        nested), where the value is a tuple or list of a known structure of that length (or
        for a loop's target, each item of one); else None."""
        if loop or not isinstance(target, (gast.Tuple, gast.List)):
            return None  # (the normal form unpacks a loop's item in the loop's body)
        structure = self.structure(value)
        if structure is None or not structure.positional:
            return None
        if len(structure.items) != len(target.elts):
            return None
        pairs: list[tuple[str, gast.expr]] = []
        for position, element in enumerate(target.elts):
            item = _index(value, gast.Constant(value=position, kind=None))
            if isinstance(element, gast.Name):
                pairs.append((element.id, item))
                continue
            nested = self._unpacked(element, item, False)
            if nested is None:
                return None
            pairs += nested
        return pairs

    def outside_structure(self, path: list[str]) -> Structure | None:
        """The structure of a container read from outside the function (a module-level
        dict or list of parameters: `FunctionSource.constant_structure`, which guards it),
        or None; never of a name srcad binds for emitted code."""
        if path[0] in self.ctx.output.runtime:
            return None
        key = ".".join(path)
        if key not in self.outside_structures:
            self.outside_structures[key] = self.ctx.source.constant_structure(path)
        return self.outside_structures[key]

    def returned(self, callee: Any, arguments: Signature) -> Kind | None:
        """The kind of what a function srcad compiles from source returns for arguments
        of these kinds (`Services.result_kind`), which this rule then relies on: the
        callee's guards join its own. None where no argument's kind is known."""
        # (A callee is compiled for argument kinds, never for a 0-d array's or `()`'s.)
        arguments = tuple(None if kind in NO_CALLEE_KINDS else kind for kind in arguments)
        if all(kind is None for kind in arguments):
            return None
        key = (callee, arguments)
        if key not in self.results:
            kind, facts = self.ctx.services.result_kind(callee, arguments)
            self.ctx.source.facts += facts
            self.results[key] = kind
        return self.results[key]

    def outside(self, path: str | list[str]) -> Kind | None:
        """The kind of a name read from outside the function, or of a dotted name rooted in
        one (`math.pi`): a module constant or closure cell of a kind compiled code may rely
        on (`FunctionSource.constant_kind`, which guards it; `Constants` reads it once on
        entry); None for anything else, and for the names srcad binds for emitted code."""
        parts = [path] if isinstance(path, str) else path
        root = parts[0]
        if self.bound is None or root in self.bound or root in self.ctx.output.runtime:
            return None
        key = ".".join(parts)
        if key not in self.constants:
            self.constants[key] = self.ctx.source.constant_kind(parts)
        return self.constants[key]

    def callee(self, value: gast.Call) -> Any:
        """What a call calls, where a dotted name not bound in the function names it: the
        object it refers to now (a name srcad bound for emitted code, a global, a closure
        cell, a builtin); else None."""
        path = static_path(value.func)
        if path is None or self.bound is None or path[0] in self.bound:
            return None
        key = tuple(path)
        if key in self.found:
            return self.found[key]
        runtime = self.ctx.output.runtime
        if path[0] in runtime:
            value = runtime[path[0]]
            for attr in path[1:]:
                value = getattr(value, attr, None)
        else:
            value = self.ctx.source.resolve(path)[1]  # guarded: see `srcad.guards`
        try:
            hash(value)
        except TypeError:
            value = None  # not one of the callees whose results have kinds
        self.found[key] = value
        return value


@dataclass(slots=True)
class _Assignment:
    """An assignment of one name (`name = value`, `for name in value`) as `ValueKinds` reads it
    (one of several names gives each None, whatever the value: `ValueKinds` sets them at once)."""

    name: str
    value: gast.expr  # the value, or what the loop iterates over
    loop: bool  # a loop's target: it binds an item of `value`
    reads: list[str]  # the names the value reads


def _binding(statement: gast.stmt) -> tuple[gast.expr, gast.expr, bool] | None:
    """What a normal-form statement binds: `(target, value, False)` of an assignment,
    `(target, iterable, True)` of a loop; None for any other statement."""
    if isinstance(statement, gast.Assign):
        return statement.targets[0], statement.value, False
    if isinstance(statement, gast.For):
        return statement.target, statement.iter, True
    return None


def _index(value: gast.expr, index: gast.expr) -> gast.Subscript:
    """`value[index]`, an expression `ValueKinds.of` reads (it is never emitted)."""
    return gast.Subscript(value=value, slice=index, ctx=gast.Load())


def _names(node: gast.expr) -> list[str]:
    """The names in an expression (read or bound), in the order of `syntax.walk`."""
    found: list[str] = []
    _add_names(node, found)
    return found


def _add_names(node: gast.AST, found: list[str]) -> None:
    """`_names`, by hand for the nodes normal-form code is made of (at a third of the cost
    of `syntax.walk`), in the order of their fields; through `syntax.walk` for the rest."""
    if isinstance(node, gast.Name) and node.annotation is None:
        found.append(node.id)
    elif isinstance(node, gast.BinOp):
        _add_names(node.left, found)
        _add_names(node.right, found)
    elif isinstance(node, gast.Call):
        _add_names(node.func, found)
        for argument in node.args:
            _add_names(argument, found)
        for keyword in node.keywords:
            _add_names(keyword.value, found)
    elif isinstance(node, (gast.Tuple, gast.List)):
        for element in node.elts:
            _add_names(element, found)
    elif isinstance(node, gast.Subscript):
        _add_names(node.value, found)
        _add_names(node.slice, found)
    elif isinstance(node, gast.Attribute):
        _add_names(node.value, found)
    elif isinstance(node, gast.UnaryOp):
        _add_names(node.operand, found)
    elif isinstance(node, gast.Compare):
        _add_names(node.left, found)
        for comparator in node.comparators:
            _add_names(comparator, found)
    elif not isinstance(node, gast.Constant):  # (a constant reads no name)
        found += [n.id for n in syntax.walk(node) if isinstance(n, gast.Name)]


def _join(found: dict[str, Kind | None], name: str, kind: Kind | None) -> Kind | None:
    if name not in found:
        return kind
    return join(found[name], kind)


def _appended(items: Kind | None, value: Kind | None) -> Kind | None:
    """The kind of a list of kind `items` with a value of kind `value` appended."""
    if items is BOTTOM or value is BOTTOM:
        return BOTTOM
    if items == EMPTY_LIST:
        return list_of(value)
    item = list_item(items)
    return None if item is None else list_of(join(item, value))


def _item(iterable: Kind | None) -> Kind | None:
    """The kind of what iterating a value of this kind gives."""
    if iterable == RANGE:
        return PYTHON_INT
    if iterable == FLOATS:
        return PYTHON_FLOAT
    if is_list(iterable):
        return list_item(iterable)
    if iterable is None or iterable[1] == 0:
        return None
    return (iterable[0], iterable[1] - 1)


def result_kind(registry: Registry, function: Any, args: list[Kind | None],
                options: dict[str, Any] | None = None) -> Kind | None:  # fmt: skip
    """The kind of `function`'s result for positional arguments of kinds `args` (and the
    constant keyword `options`), where its entry in the rule library tells
    (`srcad.kinds.ResultKind`); else None."""
    primitive = registry.primitive(function)
    if primitive is None or primitive.result is None:
        return None
    return primitive.result.given(as_scalars(function, args), options or {})


def constant_options(keywords: list[gast.keyword]) -> dict[str, Any] | None:
    """Keyword arguments whose values are constants (`axis=1`, `axis=(0, -1)`,
    `keepdims=True`, `axis=None`), by name; None if any is not (or is `**options`)."""
    options: dict[str, Any] = {}
    for keyword in keywords:
        value = _constant(keyword.value)
        if keyword.arg is None or value is _NOT_CONSTANT:
            return None
        options[keyword.arg] = value
    return options


_NOT_CONSTANT = object()


def _constant(node: gast.expr) -> Any:
    """The value of a constant option: a number, bool, None or string, a negated int, or
    a tuple of those; else `_NOT_CONSTANT`."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        operand = _constant(node.operand)
        return -operand if type(operand) is int else _NOT_CONSTANT
    if isinstance(node, gast.Tuple):
        items = [_constant(e) for e in node.elts]
        return _NOT_CONSTANT if _NOT_CONSTANT in items else tuple(items)
    return _NOT_CONSTANT


def indexed(base: Kind | None, index: gast.expr, of: Any) -> Kind | None:
    """The kind of `base[index]`: for basic indices (`subscript`), and for integer arrays
    (with ints) in every position indexed, `x[rows, labels]`, whose dimensions are the
    index arrays' (broadcast), then those of `x` not indexed."""
    kind = subscript(base, index, of)
    if kind is not None or base is None or base in (RANGE, FLOATS) or is_list(base):
        return kind
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    indices = [None if isinstance(part, gast.Slice) else of(part) for part in parts]
    if not any(is_integer(k) and k[1] > 0 for k in indices if k is not None):
        return None
    if not all(is_integer(k) for k in indices) or len(parts) > base[1]:
        return None  # with a slice, a bool mask or an unknown index: not worked out
    return (base[0], max(k[1] for k in indices if k is not None) + base[1] - len(parts))


def subscript(base: Kind | None, index: gast.expr, of: Any) -> Kind | None:
    """The kind of `base[index]` for basic indices: ints and slices (None for any other
    index: what `inlining.index_adjoint` relies on, whose `a_bar[index] += y_bar` would
    add once where an index array repeats an element)."""
    if base is None or base[1] == 0 or base == RANGE:
        return None
    if base == FLOATS:  # a tuple of floats: an int index gives a float, a slice a tuple
        return PYTHON_FLOAT if is_int_scalar(of(index)) else None
    if is_list(base):  # a list of numbers: an int index gives one, a slice a list
        return list_item(base) if is_int_scalar(of(index)) else None
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    removed = 0
    for part in parts:
        if isinstance(part, gast.Slice):
            continue
        if not is_int_scalar(of(part)):
            return None
        removed += 1
    if removed > base[1]:
        return None
    return (base[0], base[1] - removed)

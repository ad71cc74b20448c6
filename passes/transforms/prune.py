"""Prune: for `grad` alone, leave out of the gradient function the work done only for the
value."""

from __future__ import annotations

from collections.abc import Iterable

import gast
import numpy as np

from srcad import syntax
from srcad.kinds import is_real_scalar
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.checks.callees import PURE
from srcad.passes.normal_form import COMPOUND, walk_statements
from srcad.passes.transforms.contexts import raising_statements
from srcad.passes.transforms.declarations import declared
from srcad.passes.transforms.shapes import (
    SHAPE_ATTRIBUTES,
    is_array,
    load,
    shape_classes,
    shape_helpers,
    shape_uses,
    shape_uses_at,
    store_counts,
)
from srcad.passes.transforms.simplify import number
from srcad.syntax import store

Use = tuple[gast.AST, str, int]  # a read of a name for its shape alone (`shape_uses`)

PURE_ATTRIBUTES = frozenset(["shape", "size", "ndim", "T"])
# Of Python numbers, they raise for a zero divisor (a power, for a zero base and a negative
# exponent: `0.0 ** -1`); reading them does nothing else.
DIVISIONS = (gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)


class Prune(Transform):
    """In the gradient function `grad` calls (the target `GRADIENT_WITHOUT_VALUE`):

    - where the kinds prove the value a real float (at every `return`), the function
      returns None in its place (`grad` has nothing to check, and does not compute it);
    - a read of an array for its shape alone (`x.size`, `sum_to(dx, x)`) reads another
      array of the same shape (`passes/transforms/shapes.py`) wherever that lets `x` go;
    - an assignment of arithmetic, indexing or a pure NumPy call goes when nothing kept
      reads its names; then a loop or `if` left with nothing to do.

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x):
    ...     return np.sum(np.exp(x) ** 2)
    ... ''', kinds="float[:]", fused=True, value=False), end="")
    def grad_f(x):
        exp_x = np.exp(x)
        # <doctest>:3  return np.sum(np.exp(x) ** 2)
        return (None, (NO_TANGENT, 2 * exp_x * exp_x))
    """

    # What goes reads nothing that stays, and the names left keep their kinds (a kind the
    # removed assignments made unknown stays unknown: never wrong).
    preserves = (ValueKinds,)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        self.ctx = ctx
        self.kinds = ctx.analysis(ValueKinds, tree)
        # What `_removable` found, by statement: kept until a statement changes.
        self.removable: dict[gast.stmt, list[str] | None] = {}
        # Kept: what runs in a `with` where errors raise, and what a declaration names.
        self.raising = raising_statements(function)
        self.declared = declared(function)
        # Every statement, nested ones included: what goes only changes statements.
        statements = list(walk_statements(function.body))
        changed = self._drop_values(statements)
        self.survey = survey = _Survey(function, statements, shape_helpers(ctx))
        self.uses, owners, stores = survey.uses, survey.owners, survey.stores
        if not survey.complete:  # a statement the survey does not follow: walk again
            self.uses = list(shape_uses(function, ctx))
            owners = [None] * len(self.uses)
            stores = store_counts(function)
        self.shapes = shape_classes(function, self.kinds, ctx, stores)
        self.shape_only = {id(_child(use)): use for use in self.uses}
        needed = self._needed()
        # The assignments that go (the checks put in stay).
        self.dropped = [s for s in survey.statements if self._goes(s, needed)]
        self.added: list[gast.stmt] = []  # the checks that `_check_...` put in
        if self._check_broadcasts(function, needed) | self._check_divisions(function, needed):
            self._read_all(self.added)  # what the checks read is needed too
        shared: dict[tuple[str, ...], str] = {}  # roots: the name of their broadcast
        replaced = False
        for position, use in enumerate(self.uses):
            name = _child(use)
            stand_in = self.shapes.representative(name.id)
            if name.id not in needed and stand_in is not None:
                if isinstance(stand_in, gast.Call):  # `broadcast(a, b)`: made once, read after
                    roots = tuple(n.id for n in _names(stand_in))
                    if roots not in shared:
                        shared[roots] = self.ctx.namer.fresh("_".join([*roots, "shape"]))
                        _insert_after(function.body, roots, shared[roots], stand_in)
                        needed.add(shared[roots])
                    stand_in = load(shared[roots])
                _replace(use, stand_in)
                self._changed(owners[position])
                changed = replaced = True
        # With no assignment going above, and no read changed since, none goes below: what
        # may go and what is needed are as they were.
        return self._sweep(function.body, needed, bool(self.dropped) or replaced) or changed

    def _changed(self, statement: gast.stmt | None) -> None:
        """Forget what `_removable` found for a statement that changed (None: any)."""
        if statement is None:
            self.removable.clear()
        else:
            self.removable.pop(statement, None)

    def _drop_values(self, statements: list[gast.stmt]) -> bool:
        """Return None for the value where every return statement's is proven a real float
        (so that None from the function means just that: `ctx.output.value_left_out`)."""
        returns = [
            statement.value
            for statement in statements
            if isinstance(statement, gast.Return) and isinstance(statement.value, gast.Tuple)
        ]
        floats = all(is_real_scalar(self.kinds.of(value.elts[0])) for value in returns)
        if not returns or not floats:
            return False
        for value in returns:
            value.elts[0] = gast.Constant(value=None, kind=None)
        self.ctx.output.value_left_out = True
        return True

    def _check_broadcasts(self, function: gast.FunctionDef, needed: set[str]) -> bool:
        """Before an elementwise operation on two arrays goes, make sure what it did not
        raise still raises: the shapes of its operands that broadcasting could not bring
        together. At the top level, where both operands have shape classes, a check
        `broadcast(a, b)` of the roots of their classes' atoms takes its place, unless the
        classes are one, or a value kept has their union already; anywhere else, a check
        `broadcast(left, right)` of the operands themselves. True if any was added."""
        if not self.dropped:
            return False
        kept = {frozenset(c) for name, c in self.shapes.classes.items() if name in needed}
        for use in self.uses:  # the stand-ins `broadcast(...)` that kept statements will read
            name = _child(use)
            if id(name) in self.stood_in and name.id not in needed:
                kept.add(self.shapes.classes[name.id])
        return self._check_block(function.body, needed, kept, True)

    def _check_block(self, block: list[gast.stmt], needed: set[str], kept: set[frozenset[str]],
                     top: bool) -> bool:  # fmt: skip
        changed = False
        checked: list[gast.stmt] = []
        for statement in block:
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if inner and not isinstance(statement, gast.FunctionDef):
                    changed = self._check_block(inner, needed, kept, False) or changed
            check = self._broadcast_check(statement, needed, kept, top)
            if check is not None:
                checked.append(syntax.located(gast.Expr(value=check), statement))
                self.added.append(checked[-1])
                changed = True
            checked.append(statement)
        block[:] = checked
        return changed

    def _broadcast_check(self, statement: gast.stmt, needed: set[str], kept: set[frozenset[str]],
                         top: bool) -> gast.expr | None:  # fmt: skip
        """The check to leave in place of an operation on two arrays that goes, if any."""
        if not self._goes(statement, needed):
            return None
        assert isinstance(statement, gast.Assign)
        value = statement.value
        if not isinstance(value, gast.BinOp) or isinstance(value.op, gast.MatMult):
            return None
        operands = [value.left, value.right]
        if not all(is_array(self.kinds.of(operand)) for operand in operands):
            return None  # a number broadcasts with anything
        left, right = (self.shapes.of(operand) for operand in operands) if top else (None, None)
        if left and right:
            union = left | right
            if left == right or union in kept:
                return None
            kept.add(union)
            roots = sorted((self.shapes.roots[a] for a in union), key=self.shapes.order.get)
            return self.shapes.stand_in(roots)
        broadcast = load(self.ctx.bind(np.broadcast, "broadcast"))
        return gast.Call(func=broadcast, args=syntax.copy_tree(operands), keywords=[])

    def _check_divisions(self, function: gast.FunctionDef, needed: set[str]) -> bool:
        """Before a division of Python numbers goes, make sure that dividing by zero still
        raises: a check `n / d`, the division itself, takes its place (a float kind may
        be NumPy's, whose division gives inf: `1 / d` would raise where the function does
        not), unless code that stays divides by `d` (the gradient of `s / n` divides by `n`
        too). Likewise a power `x ** p` that raises for a zero `x` (`_divisors`), unless
        code that stays computes the same power. True if any was added."""
        dropped = {id(s): divisions for s in self.dropped if (divisions := self._divisors(s))}
        if not dropped:
            return False
        kept = {
            _raising_part(division)
            for s in walk_statements(function.body)
            if id(s) not in dropped
            for division in self._divisors(s)
        }
        added = False
        checked: set[str] = set()  # the divisions a check repeats

        def check(block: list[gast.stmt]) -> list[gast.stmt]:
            nonlocal added
            out: list[gast.stmt] = []
            for statement in block:
                for name in ("body", "orelse"):
                    inner = getattr(statement, name, None)
                    if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                        setattr(statement, name, check(inner))
                for division in dropped.get(id(statement), []):
                    divisor, text = _raising_part(division), gast.dump(division)
                    if divisor not in kept and text not in checked:
                        checked.add(text)
                        zero = "a base" if isinstance(division.op, gast.Pow) else "a divisor"
                        why = syntax.comment(f"{zero}: zero raises, as in the function")
                        for new in (why, gast.Expr(value=syntax.copy_tree(division))):
                            out.append(syntax.located(new, statement))
                        self.added.append(out[-1])
                        added = True
                out.append(statement)
            return out

        function.body = check(function.body)
        return added

    def _divisors(self, statement: gast.stmt) -> list[gast.BinOp]:
        """The divisions of two numbers a simple statement makes (which raise for zero
        where both are Python's; NumPy's give inf), but by nonzero constants; and the
        powers that raise for a zero base likewise (`0.0 ** -1`): by a negative constant,
        or by a number not constant of a base that is no nonzero constant. (The overflow of
        a power, `1e200 ** 2.0`, raises too: a check of every power would cost loops over
        array elements, which never raise, a power each; not checked.)"""
        divisions = self.survey.divisions.get(statement)
        if divisions is None:
            if type(statement) in _LOOPS_AND_IFS:
                return []
            divisions = _divisions(statement)  # a check put in since the survey
        found = []
        for node in divisions:
            kinds = (self.kinds.of(node.left), self.kinds.of(node.right))
            if not all(k is not None and k[1] == 0 for k in kinds):
                continue
            if isinstance(node.op, gast.Pow):
                exponent, base = number(node.right), number(node.left)
                if (exponent is None and not base) or (exponent is not None and exponent < 0):
                    found.append(node)
                continue
            divisor = number(node.right)
            if divisor is None or divisor == 0:
                found.append(node)
        return found

    def _needed(self) -> set[str]:
        """The names some kept statement reads, reading an array's stand-in in its place
        where the read is for the shape alone (`_read_all` adds to them)."""
        self.needed: set[str] = set()
        self.pending: list[str] = []
        self.stood_in: set[int] = set()  # shape-only reads, by kept statements, of arrays
        # The assignments of names alone, by the names they bind; each is read (and
        # leaves) when one of its names is needed. Whether one may go (`_removable`) is
        # asked only of those left unread, most being read anyway: one that may not is
        # kept, and read too, until all that are left may go. (What is read is what reading
        # the kept statements first would give: reading is the same wherever it starts.)
        self.defining: dict[str, list[gast.stmt]] = {}
        kept, waiting = [], []
        for statement in self.survey.statements:
            targets = _bound(statement)
            if targets is None:
                kept.append(statement)
            else:
                waiting.append((statement, targets))
                for target in targets:
                    self.defining.setdefault(target, []).append(statement)
        while True:
            self._read_all(kept)
            unread = [(s, targets) for s, targets in waiting
                      if self.needed.isdisjoint(targets)]  # fmt: skip
            kept = [s for s, _ in unread if self._removable(s) is None]
            if not kept:
                return self.needed
            waiting = [(s, targets) for s, targets in unread if self._removable(s) is not None]

    def _read_all(self, statements: Iterable[gast.stmt]) -> None:
        """Note what kept `statements` read, and so what the assignments of those names
        read, and so on."""
        for statement in statements:
            self._read(statement)
        pending, defining = self.pending, self.defining
        while pending:
            for statement in defining.pop(pending.pop(), []):
                self._read(statement)

    def _read(self, statement: gast.stmt) -> None:
        """Note the names a kept statement reads (a loop's iterable, a test, or all of any
        other statement: `_Survey.loads`)."""
        names = self.survey.loads.get(statement)
        if names is None:  # a check put in since the survey
            names = [n for n in syntax.walk(statement)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]  # fmt: skip
        needed, pending, shape_only = self.needed, self.pending, self.shape_only
        for child in names:
            if id(child) in shape_only:
                stand_in = self.shapes.representative(child.id)
                if stand_in is not None:
                    self.stood_in.add(id(child))
                    for name in _names(stand_in):
                        if name.id not in needed:
                            needed.add(name.id)
                            pending.append(name.id)
                    continue
            if child.id not in needed:  # (most reads: no stand-in)
                needed.add(child.id)
                pending.append(child.id)

    def _goes(self, statement: gast.stmt, needed: set[str]) -> bool:
        """Whether an assignment goes: it binds no name that is needed, and may go."""
        targets = _bound(statement)
        return (
            targets is not None
            and needed.isdisjoint(targets)
            and self._removable(statement) is not None
        )

    def _removable(self, statement: gast.stmt) -> list[str] | None:
        """The names an assignment binds, if it may go when none is read; else None."""
        if statement in self.removable:
            return self.removable[statement]
        targets = _bound(statement) or []
        kept = id(statement) in self.raising or not self.declared.isdisjoint(targets)
        found = self.removable[statement] = None if kept else self._assigned(statement)
        return found

    def _assigned(self, statement: gast.stmt) -> list[str] | None:
        """`_removable`, found anew."""
        names = _bound(statement)
        if names is None:
            return None
        assert isinstance(statement, gast.Assign)
        return names if self._pure(statement.value) else None

    def _pure(self, node: gast.expr) -> bool:
        """Whether evaluating `node` has no effect but its value (on numbers and arrays)."""
        if isinstance(node, gast.Name):
            return self.kinds.of(node) is not None
        if isinstance(node, gast.BinOp):
            if isinstance(node.op, gast.MatMult):
                return False  # raises for shapes that do not match
            return self._pure(node.left) and self._pure(node.right)
        if isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.Call):
            arguments = [*node.args, *(k.value for k in node.keywords)]
            return self._callee_is_pure(node) and all(self._pure(a) for a in arguments)
        if isinstance(node, gast.Subscript):
            return self._pure(node.value) and self._pure(node.slice)
        if isinstance(node, gast.UnaryOp):
            return self._pure(node.operand)
        if isinstance(node, gast.Attribute):
            return node.attr in PURE_ATTRIBUTES and self._pure(node.value)
        if isinstance(node, gast.Compare):
            return self._pure(node.left) and all(self._pure(c) for c in node.comparators)
        if isinstance(node, gast.Slice):
            parts = (node.lower, node.upper, node.step)
            return all(p is None or self._pure(p) for p in parts)
        if isinstance(node, gast.Tuple):
            return all(self._pure(e) for e in node.elts)
        return False

    def _callee_is_pure(self, node: gast.Call) -> bool:
        value = self.kinds.callee(node)  # None: not a name bound outside the function
        return isinstance(value, np.ufunc) or (value is not None and value in PURE)

    def _sweep(self, block: list[gast.stmt], needed: set[str], assignments: bool) -> bool:
        """Drop the assignments nothing reads (if `assignments`: where some may go), then
        the loops and `if`s left empty."""
        changed = dropped = False
        kept: list[gast.stmt] = []
        # Whether a location comment has nothing under it: another, or the block's end.
        dangling = comment = False
        for statement in block:
            if assignments and self._goes(statement, needed):
                dropped = True
                continue
            if type(statement) in _LOOPS_AND_IFS:
                for field in ("body", "orelse"):
                    inner = getattr(statement, field)
                    if inner:
                        changed = self._sweep(inner, needed, assignments) or changed
                        if not inner:
                            inner.append(gast.Pass())
                if self._idle(statement, needed):
                    dropped = True
                    continue
            below, comment = comment, syntax.is_comment(statement)
            dangling = dangling or (below and comment)
            kept.append(statement)
        if dangling or comment:  # a location comment with nothing under it goes
            kept = [
                s
                for s, following in zip(kept, [*kept[1:], None], strict=False)
                if not syntax.is_comment(s)
                or (following is not None and not syntax.is_comment(following))
            ]
            dropped = dropped or len(kept) != len(block)
        if dropped:
            block[:] = kept
        return changed or dropped

    def _idle(self, statement: gast.stmt, needed: set[str]) -> bool:
        """A `for` or `if` that does nothing any more (and binds nothing that is read)."""
        empty = all(isinstance(s, gast.Pass) or syntax.is_comment(s)
                    for s in [*statement.body, *statement.orelse])  # fmt: skip
        if not empty:
            return False
        if isinstance(statement, gast.For):
            bound = [n.id for n in syntax.walk(statement.target) if isinstance(n, gast.Name)]
            return self._pure(statement.iter) and needed.isdisjoint(bound)
        if isinstance(statement, gast.If):
            return self._pure(statement.test)
        return False


class _Survey:
    """What Prune reads off the tree once the value has gone, in one walk (in the order of
    `syntax.walk`):

    - `statements`: all of them, nested ones included (`walk_statements`);
    - `loads`: by statement, the names it reads when kept: a loop's iterable, an `if`'s or a
      `while`'s test, all of any other statement;
    - `divisions`: by statement but loops and `if`s, the divisions and remainders in it;
    - `stores`: how many times the body binds each name (`store_counts`);
    - `uses`: where the function reads a name for its shape alone (`shape_uses`), and
      `owners`: the statement holding each (None outside the body).

    A statement with a block that is no loop or `if` (none passes the checks before)
    reads all of its block too: with one of those, `complete` is False, and `stores`,
    `uses` and `owners` are left empty for a walk of their own.
    """

    def __init__(self, function: gast.FunctionDef, statements: list[gast.stmt],
                 helpers: dict[str, tuple[int, ...]]) -> None:  # fmt: skip
        self.helpers = helpers
        self.statements = statements
        self.loads: dict[gast.stmt, list[gast.Name]] = {}
        self.divisions: dict[gast.stmt, list[gast.BinOp]] = {}
        self.stores: dict[str, int] = {}
        self.uses: list[Use] = []
        self.owners: list[gast.stmt | None] = []
        self.complete = all(type(s) not in _OTHER_BLOCKS for s in self.statements)
        for field in reversed(syntax.child_fields(gast.FunctionDef)):
            if field == "body":
                for statement in self.statements:
                    self._statement(statement)
            elif self.complete:
                value = getattr(function, field, None)
                for node in value if isinstance(value, list) else [value]:
                    if isinstance(node, gast.AST):
                        self._scan(node, None, None, None)

    def _statement(self, statement: gast.stmt) -> None:
        owner = statement if self.complete else None
        loads: list[gast.Name] = []
        self.loads[statement] = loads
        if isinstance(statement, gast.For):
            if owner is not None:
                self._scan(statement.target, None, None, owner)
            self._scan(statement.iter, loads, None, owner)
        elif isinstance(statement, (gast.If, gast.While)):
            self._scan(statement.test, loads, None, owner)
        else:
            divisions: list[gast.BinOp] = []
            self.divisions[statement] = divisions
            self._scan(statement, loads, divisions, owner)

    def _scan(self, node: gast.AST, loads: list[gast.Name] | None,
              divisions: list[gast.BinOp] | None, owner: gast.stmt | None) -> None:  # fmt: skip
        """Note what `node` and its children hold: the names read (into `loads`, unless
        None), the divisions (likewise) and, where the survey is complete, the shape-only
        reads and the names bound (in the body alone: where `owner` is not None)."""
        self._loads, self._divisions, self._owner = loads, divisions, owner
        self._counts = self.complete and owner is not None
        self._visit(node)

    def _visit(self, root: gast.AST) -> None:
        """`_scan` of `root` and every node in it, in source order."""
        for node in syntax.walk(root):
            if isinstance(node, gast.Name):
                if isinstance(node.ctx, gast.Load):
                    if self._loads is not None:
                        self._loads.append(node)
                elif self._counts:
                    self.stores[node.id] = self.stores.get(node.id, 0) + 1
            elif isinstance(node, gast.BinOp):
                if self._divisions is not None and isinstance(node.op, DIVISIONS):
                    self._divisions.append(node)
            elif isinstance(node, gast.Call):
                func = node.func
                if self.complete and isinstance(func, gast.Name) and func.id in self.helpers:
                    self._add_uses(node)
            elif (
                isinstance(node, gast.Attribute) and self.complete and node.attr in SHAPE_ATTRIBUTES
            ):
                self._add_uses(node)

    def _add_uses(self, node: gast.AST) -> None:
        """Note the shape-only reads a call or attribute itself makes (`shape_uses_at`)."""
        for use in shape_uses_at(node, self.helpers):
            self.uses.append(use)
            self.owners.append(self._owner)


_LOOPS_AND_IFS = frozenset([gast.For, gast.While, gast.If])

# The statements whose blocks `walk_statements` goes into, but for those whose own parts are
# a target and an iterable, or a test.
_OTHER_BLOCKS = COMPOUND - _LOOPS_AND_IFS


def _bound(statement: gast.stmt) -> list[str] | None:
    """The names an assignment of names alone binds (`a = ...`, `a, b = ...`); else None."""
    if not isinstance(statement, gast.Assign):
        return None
    assert isinstance(statement, gast.Assign)
    targets = statement.targets
    if len(targets) == 1 and isinstance(targets[0], gast.Name):
        return [targets[0].id]  # most assignments
    names = []
    for target in targets:
        elements = target.elts if isinstance(target, gast.Tuple) else [target]
        if not all(isinstance(e, gast.Name) for e in elements):
            return None
        names += [e.id for e in elements]
    return names


def _raising_part(operation: gast.BinOp) -> str:
    """What makes a division raise, as text: its divisor (any division by it raises for
    zero); of a power, the whole power."""
    return gast.dump(operation if isinstance(operation.op, gast.Pow) else operation.right)


def _divisions(statement: gast.stmt) -> list[gast.BinOp]:
    """The divisions and remainders in a statement, in the order of `syntax.walk`."""
    return [node for node in syntax.walk(statement)
            if isinstance(node, gast.BinOp) and isinstance(node.op, DIVISIONS)]  # fmt: skip


def _child(use: tuple[gast.AST, str, int]) -> gast.Name:
    node, field, index = use
    found = getattr(node, field)
    child = found[index] if index >= 0 else found
    assert isinstance(child, gast.Name)
    return child


def _insert_after(body: list[gast.stmt], roots: tuple[str, ...], name: str,
                  value: gast.expr) -> None:  # fmt: skip
    """`name = value` (a value reading `roots`: parameters, or names the body assigns once
    at its top level) right after the last of their assignments."""
    position = 0
    for index, statement in enumerate(body):
        if isinstance(statement, gast.Assign) and any(
            isinstance(t, gast.Name) and t.id in roots for t in statement.targets
        ):
            position = index + 1
    assignment = gast.Assign(targets=[store(name)], value=value, type_comment=None)
    body.insert(position, syntax.located(assignment, body[max(position - 1, 0)]))


def _replace(use: tuple[gast.AST, str, int], value: gast.expr) -> None:
    node, field, index = use
    if index >= 0:
        getattr(node, field)[index] = value
    else:
        setattr(node, field, value)


def _names(stand_in: gast.expr) -> list[gast.Name]:
    """The names a stand-in reads: itself, or the arguments of `broadcast(...)`."""
    found = stand_in.args if isinstance(stand_in, gast.Call) else [stand_in]
    return [n for n in found if isinstance(n, gast.Name)]

"""Simplify: fold the copies and one-use temporaries out of the emitted pullbacks."""

from __future__ import annotations

import operator
from collections.abc import Collection
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.checks.callees import PURE
from srcad.passes.normal_form import COMPOUND, walk_statements
from srcad.passes.rule_calls import constant
from srcad.projection import expand, sum_to, unbroadcast
from srcad.tangents import AbstractZero, ZeroTangent

SIMPLE = (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)


class Simplify(Transform):
    """Within each pullback, repeatedly:

    - a copy `a = b` disappears, `b` read in its place, when `a` is assigned nowhere else
      and nothing assigns `b` between the copy and the last read of `a`;
    - a temporary `a = expr` read once, by a later statement of the same block, moves
      into that read under the same condition for the names `expr` reads;
    - an assignment to a name nothing reads goes, when its value is arithmetic on names;
    - negations move into the first factor of a product (`-(a * b)`: `-a * b`), and
      arithmetic on numbers alone is done (`2.0 * -1.0 * 3`: `-6.0`);
    - `x += -e` becomes `x -= e`, and `a = ZeroTangent()` (or `0.0`) then `a = a + e`
      becomes `a = e`;
    - `a = -e` (or `a = -e * f`) then `a = a + d`, where `a = a + d` is the next
      statement of the block to read `a`, becomes `a = d - e` (`d - e * f`): the same
      numbers, with one pass over an array fewer;
    - a location comment with no code under it goes.

    The forward sweep is left as it is: it is the user's code.

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x, y):
    ...     return x * y + x
    ... ''', kinds="float, float"), end="")
    def rrule_f(x, y):
        x_times_y = x * y
        out = x_times_y + x
    <BLANKLINE>
        def f_pullback(out_bar):
            # <doctest>:3  return x * y + x
            x_bar = out_bar
            x_bar = x_bar + out_bar * y
            return (NO_TANGENT, x_bar, x * out_bar)
        return (out, f_pullback)
    >>> print(show_reverse('''
    ... def f(x, y):
    ...     return x * y - x
    ... ''', kinds="float, float"), end="")
    def rrule_f(x, y):
        x_times_y = x * y
        out = x_times_y - x
    <BLANKLINE>
        def f_pullback(out_bar):
            # <doctest>:3  return x * y - x
            return (NO_TANGENT, out_bar * y - out_bar, x * out_bar)
        return (out, f_pullback)
    """

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        self.zero = ctx.output.runtime.name_of(ZeroTangent)
        # Functions linear in their first argument: a negation can move out of their calls.
        runtime = ctx.output.runtime
        self.linear = [n for n in map(runtime.name_of, (sum_to, expand)) if n is not None]
        # Functions that only read their arguments (`add_at` writes into its first).
        self.readers = {k for k, v in ctx.output.runtime.items() if only_reads(v)}
        # `float64`, which a template's division by a number that may be zero calls
        # (`y_bar / (a or float64(a))`, `passes/inlining.py`): arithmetic, as `/` is.
        self.conversions = {runtime.name_of(np.float64)} - {None}
        changed = False
        for statement in walk_statements(function_of(tree).body):
            if isinstance(statement, gast.FunctionDef) and statement.name in ctx.output.pullbacks:
                changed = self._simplify(statement) or changed
        return changed

    def _simplify(self, function: gast.FunctionDef) -> bool:
        """Rewrite the pullback until nothing changes; True if anything did. (Pullbacks
        define no functions of their own: every name is the pullback's.)"""
        self.parameters = {a.id for a in function.args.args}
        self.stores: dict[str, int] = {}
        self.loads: dict[str, int] = {}
        # What each statement reads and assigns (`_record`), until it or a statement in
        # its blocks changes; `enclosing`: the statements whose blocks hold the one
        # `_rewrite` looks at, which change with it. (Kept for its profile: computed
        # afresh each time it is asked, Simplify takes 3.6 ms instead of 1.9 ms of the
        # 18 ms compiling robust_fit_loss takes, `benchmarks/profile_compile.py`.)
        self.records: dict[gast.AST, _Record] = {}
        self.enclosing: list[gast.stmt] = []
        # Whether the pullback may hold a negation (else `push_negations` has nothing to
        # do) or arithmetic on two numbers (else the folder has none): set by `_count` and
        # `_record`, which see every node as it enters the pullback, and left set.
        self.negations = self.foldable = False
        # The counts, kept up to date by every rewrite from here on: the signature's names,
        # then those of each statement, from its record.
        self._count(_all_but_body(function), 1)
        for statement in function.body:
            record = self._record(statement)
            for counts, found in ((self.loads, record.reads), (self.stores, record.stores)):
                for name, count in found.items():
                    counts[name] = counts.get(name, 0) + count
        changed = False
        while True:
            if self._block(function.body):
                changed = True
                continue
            # Neither reads nor assigns names differently: the counts stay right.
            folded = False
            if self.foldable:
                folder = ConstantFolder()
                folder.visit(function)
                folded = folder.changed
            # A folded number may be negative: a negation the count never saw.
            pushed = (folded or self.negations) and push_negations(function, self.linear)
            if not (pushed or folded):
                return changed
            changed = True
            self.negations = self.foldable = True  # new nodes, not counted: assume both

    def _count(self, nodes: list[gast.AST], sign: int) -> None:
        """Add (or take away) the names `nodes` read and assign to the counts, noting any
        negation and arithmetic on numbers that comes in."""
        self._changing(nodes)
        for root in nodes:
            for node in syntax.walk(root):
                if isinstance(node, gast.Name):
                    if isinstance(node.ctx, gast.Load):
                        self.loads[node.id] = self.loads.get(node.id, 0) + sign
                    else:
                        self.stores[node.id] = self.stores.get(node.id, 0) + sign
                elif sign < 0:
                    continue
                elif isinstance(node, gast.UnaryOp):
                    self.negations = self.negations or isinstance(node.op, gast.USub)
                elif isinstance(node, gast.BinOp) and not self.foldable:
                    self.foldable = is_foldable(node)

    def _changing(self, nodes: list[gast.AST]) -> None:
        """Drop what is kept about `nodes`, which are about to change (or have), and about
        the statements in them and around them."""
        for statement in self.enclosing:
            self._forget(statement)
        for root in nodes:
            # A place a copy moves into may be a loop: its own statements change too.
            for statement in walk_statements([root]) if isinstance(root, gast.stmt) else ():
                self._forget(statement)

    def _forget(self, statement: gast.stmt) -> None:
        """Drop what is kept about a statement that changes (or holds one that does): a
        loop's record holds those of its body."""
        self.records.pop(statement, None)

    def _block(self, block: list[gast.stmt]) -> bool:
        changed = False
        index = 0
        while index < len(block):
            if self._rewrite(block, index):
                changed = True
                continue  # look again at what is at `index` now
            statement = block[index]
            self.enclosing.append(statement)
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if inner and not isinstance(statement, gast.FunctionDef):
                    changed = self._block(inner) or changed
            self.enclosing.pop()
            index += 1
        return changed

    def _rewrite(self, block: list[gast.stmt], index: int) -> bool:
        """Simplify the statement at `index` (keeping the counts right); True if done."""
        statement = block[index]
        following = block[index + 1] if index + 1 < len(block) else None
        if syntax.is_comment(statement) and (following is None or syntax.is_comment(following)):
            # A location comment above nothing: its code folded away.
            block[index : index + 1] = [] if len(block) > 1 else [gast.Pass()]
            return True
        if isinstance(statement, gast.AugAssign):
            value = statement.value
            negated = isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub)
            if negated and isinstance(statement.op, gast.Add | gast.Sub):
                assert isinstance(value, gast.UnaryOp)
                flip = gast.Sub() if isinstance(statement.op, gast.Add) else gast.Add()
                statement.op, statement.value = flip, value.operand
                return True
            return False
        if not (
            isinstance(statement, gast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], gast.Name)
        ):
            return False
        name = statement.targets[0].id
        value = statement.value
        if isinstance(value, gast.Name) and value.id == name:  # `a = a` does nothing
            self._count([statement], -1)
            block[index : index + 1] = [] if len(block) > 1 else [gast.Pass()]
            return True
        if self._is_zero(value) and following is not None:
            added = _added_to(following, name)
            if added is not None:
                self._count([statement, following], -1)
                following.value = added
                self._count([following], 1)
                del block[index]
                return True
        if name in self.parameters:
            return False
        positive = _without_negation(value)
        if positive is not None:  # `a = -e` then `a = a + d`: `a = d - e`, a pass fewer
            place = self._accumulation(block, index, name, value)
            if place is not None:
                assert isinstance(place, gast.Assign)
                added = _added_to(place, name)
                self._count([statement, place], -1)
                place.value = gast.BinOp(left=added, op=gast.Sub(), right=positive)
                self._count([place], 1)
                del block[index]
                return True
        if self.stores.get(name, 0) != 1:
            return False
        if self.loads.get(name, 0) == 0 and _is_arithmetic(value, self.conversions):
            self._count([statement], -1)
            del block[index]
            return True
        places = self._places(block, index, name, value, self.loads.get(name, 0))
        if places is None:
            return False
        self._count([statement], -1)
        self._changing(places)
        moved = _replace(places, name, value)
        # The places read `value`'s names where they read `name`: no need to count them
        # again. (Put beside a number, a number may make arithmetic for the folder.)
        self.loads[name] -= moved
        self._count([value], moved)
        self.foldable = self.foldable or number(value) is not None
        del block[index]
        return True

    def _places(self, block: list[gast.stmt], index: int, name: str, value: gast.expr,
                count: int) -> list[gast.stmt] | None:  # fmt: skip
        """The statements reading `name`, if every read is in this block after `index`
        and nothing reassigns what `value` reads before the last of them: `value` can go
        there instead."""
        is_copy = isinstance(value, gast.Name)
        arithmetic = _is_arithmetic(value, self.conversions)
        if count == 0 or (not is_copy and (count != 1 or not arithmetic)):
            return None
        reads = {n.id for n in syntax.walk(value) if isinstance(n, gast.Name)}
        found = 0
        places: list[gast.stmt] = []
        for later in block[index + 1 :]:
            record = self._record(later)
            here = record.reads.get(name, 0)
            if here:
                if not is_copy and not isinstance(later, SIMPLE):
                    return None  # not into a loop or a branch: it would run more often
                places.append(later)
                found += here
            if found == count:
                break
            if not reads.isdisjoint(record.changed):
                return None
        if found != count:
            return None
        last = places[-1]
        if not reads.isdisjoint(self._record(last).assigned) and not isinstance(last, SIMPLE):
            return None
        return places

    def _accumulation(self, block: list[gast.stmt], index: int, name: str,
                      value: gast.expr) -> gast.stmt | None:  # fmt: skip
        """The next statement of the block to read `name`, if it is `name = name + d` and
        nothing before it assigns `name` or what `value` reads."""
        reads = {n.id for n in syntax.walk(value) if isinstance(n, gast.Name)}
        for later in block[index + 1 :]:
            record = self._record(later)
            if record.reads.get(name, 0):
                added = _added_to(later, name)
                # `d - e` computes `d` first: a call there must not change what `e` reads.
                return later if added is not None and not reads & self._passed(added) else None
            if name in record.assigned or not reads.isdisjoint(record.changed):
                return None
        return None

    def _record(self, statement: gast.stmt) -> _Record:
        """What `statement` reads and assigns (`_Record`), kept until it, or a statement
        in its blocks, changes: a walk of its own parts alone, with the records of the
        statements in its blocks (kept, where those did not change)."""
        record = self.records.get(statement)
        if record is not None:
            return record
        record = _Record()
        if type(statement) in COMPOUND:
            for part in _own_parts(statement):
                self._note(part, record)
            for inner in (*statement.body, *getattr(statement, "orelse", ())):
                record.add(self._record(inner))
        else:
            self._note(statement, record)
        self.records[statement] = record
        return record

    def _note(self, part: gast.AST, record: _Record) -> None:
        """Add what the nodes of `part` read and assign to `record`, noting any negation and
        arithmetic on numbers among them (as `_count` does)."""
        reads, stores, assigned = record.reads, record.stores, record.assigned
        touched: set[str] = set()  # passed to calls that may change them
        for node in syntax.walk(part):
            if isinstance(node, gast.Name):
                if isinstance(node.ctx, gast.Load):
                    reads[node.id] = reads.get(node.id, 0) + 1
                else:
                    stores[node.id] = stores.get(node.id, 0) + 1
                    if isinstance(node.ctx, gast.Store):
                        assigned.add(node.id)
            elif isinstance(node, gast.Call):
                assigned.add("<call>")  # a call may change anything it is passed
                touched.update(self._passed_to(node))
            elif isinstance(node, gast.Assign | gast.AugAssign):
                assigned.update(_changed_by(node))
            elif isinstance(node, gast.UnaryOp):
                self.negations = self.negations or isinstance(node.op, gast.USub)
            elif isinstance(node, gast.BinOp) and not self.foldable:
                self.foldable = is_foldable(node)
        record.changed |= assigned | touched

    def _passed(self, node: gast.AST) -> set[str]:
        """The names `node` passes to calls that may change their arguments in place (any
        but NumPy's ufuncs and srcad's helpers that only read theirs)."""
        names: set[str] = set()
        for call in syntax.walk(node):
            if isinstance(call, gast.Call):
                names.update(self._passed_to(call))
        return names

    def _passed_to(self, call: gast.Call) -> list[str]:
        """The names `call` passes, unless its function only reads its arguments."""
        if isinstance(call.func, gast.Name) and call.func.id in self.readers:
            return []
        arguments = [*call.args, *(k.value for k in call.keywords)]
        return [n.id for a in arguments for n in syntax.walk(a) if isinstance(n, gast.Name)]

    def _is_zero(self, value: gast.expr) -> bool:
        """The symbolic zero, or the float zero a float's cotangent starts from (`0.0 + e`
        is `e`)."""
        if isinstance(value, gast.Constant) and type(value.value) is float:
            return value.value == 0.0
        return (
            isinstance(value, gast.Call)
            and isinstance(value.func, gast.Name)
            and value.func.id == self.zero
            and not value.args
        )


class _Record:
    """What a statement of a pullback does with names, its blocks included."""

    __slots__ = ("assigned", "changed", "reads", "stores")

    def __init__(self) -> None:
        self.reads: dict[str, int] = {}  # how many times it reads each name
        self.stores: dict[str, int] = {}  # how many times it binds (or deletes) each
        # The names it assigns or changes in place (`x[i] += v` changes `x`; a call,
        # anything: `<call>`); `changed`: those, and the names it passes to calls that may
        # change them (`_passed_to`).
        self.assigned: set[str] = set()
        self.changed: set[str] = set()

    def add(self, other: _Record) -> None:
        """Count in what a statement of this one's blocks does."""
        for counts, found in ((self.reads, other.reads), (self.stores, other.stores)):
            for name, count in found.items():
                counts[name] = counts.get(name, 0) + count
        self.assigned |= other.assigned
        self.changed |= other.changed


def _own_parts(statement: gast.stmt) -> list[gast.AST]:
    """The nodes a statement with blocks holds outside them: a loop's target and
    iterable, a test..."""
    parts: list[gast.AST] = []
    for field in syntax.child_fields(type(statement)):
        if field not in ("body", "orelse"):
            value = getattr(statement, field, None)
            for part in value if isinstance(value, list) else [value]:
                if isinstance(part, gast.AST):
                    parts.append(part)
    return parts


def _all_but_body(function: gast.FunctionDef) -> list[gast.AST]:
    """The nodes in a function's fields but its body: its parameters, decorators..."""
    nodes: list[gast.AST] = []
    for field in syntax.child_fields(gast.FunctionDef):
        value = getattr(function, field, None)
        if field != "body":
            nodes += [v for v in (value if isinstance(value, list) else [value]) if v is not None]
    return nodes


def _replace(places: list[gast.stmt], name: str, value: gast.expr) -> int:
    """Read `value` wherever `places` read `name`; how many reads that replaced."""
    replaced = 0
    for place in places:
        for node in syntax.walk(place):
            for field in syntax.child_fields(type(node)):
                child = getattr(node, field, None)
                if isinstance(child, list):
                    for k, item in enumerate(child):
                        if _reads_name(item, name):
                            child[k] = syntax.copy_tree(value)
                            replaced += 1
                elif _reads_name(child, name):
                    setattr(node, field, syntax.copy_tree(value))
                    replaced += 1
    return replaced


def _reads_name(node: Any, name: str) -> bool:
    return isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load)


def number(node: gast.expr) -> float | None:
    """The value of a numeric constant (`2.0`, `-3`), else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


FOLDED = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul}


def is_foldable(node: gast.BinOp) -> bool:
    """Whether `ConstantFolder` does the arithmetic of `node`: one of its operations, on
    two numbers."""
    return (
        type(node.op) in FOLDED and number(node.left) is not None and number(node.right) is not None
    )


class ConstantFolder(syntax.Rewriter):
    """`2.0 * -1.0 * 3` becomes `-6.0`: arithmetic on numbers alone is done once, here, by
    the very operations the emitted code would do."""

    changed = False

    def visit_BinOp(self, node: gast.BinOp) -> gast.expr:  # noqa: N802 (the visitor's name)
        self.generic_visit(node)
        left, right = number(node.left), number(node.right)
        operation = FOLDED.get(type(node.op))
        if left is None or right is None or operation is None:
            return node
        self.changed = True
        return constant(operation(left, right))


def push_negations(function: gast.FunctionDef, linear: Collection[str] = ()) -> bool:
    """`-(a * b)` becomes `-a * b` (and `-(a / b)`, `-a / b`; `--a`, `a`), `-a * 2`
    becomes `a * -2` (a negation meets a number), `b + -a` becomes `b - a`, and a call of
    one of the `linear` functions (`sum_to`) on `-a` becomes minus the call on `a`: the
    same value exactly, and where `a` is a float, or the number or the operator takes the
    sign, or the call sums, the negation no longer costs a pass over an array (or costs
    one over the smaller array)."""
    changed = False
    for node in syntax.walk(function):
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult | gast.Div):
            changed = _sign_into_number(node) or changed
        elif isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add | gast.Sub):
            changed = _sign_into_operator(node) or changed
        for field in syntax.child_fields(type(node)):
            value = getattr(node, field, None)
            if isinstance(value, list):
                for index, child in enumerate(value):
                    replaced = _negation_pushed(child, linear)
                    if replaced is not None:
                        value[index] = replaced
                        changed = True
            elif (replaced := _negation_pushed(value, linear)) is not None:
                setattr(node, field, replaced)
                changed = True
    return changed


def _negation_pushed(node: Any, linear: Collection[str]) -> gast.expr | None:
    """What takes the place of a negation `-(a * b)`, `-(a / b)` or `--a`, or of a call
    `f(-a, ...)` of a function linear in its first argument; None for any other node."""
    if (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id in linear
        and node.args
        and (positive := _without_negation(node.args[0])) is not None
    ):
        node.args[0] = positive
        return gast.UnaryOp(op=gast.USub(), operand=node)
    if not (isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)):
        return None
    inner = node.operand
    if isinstance(inner, gast.UnaryOp) and isinstance(inner.op, gast.USub):
        return inner.operand
    if isinstance(inner, gast.BinOp) and isinstance(inner.op, gast.Mult | gast.Div):
        inner.left = gast.UnaryOp(op=gast.USub(), operand=inner.left)
        return inner
    return None


def _sign_into_operator(node: gast.BinOp) -> bool:
    """`a + -e` as `a - e`, `a - -e` as `a + e` (and `a + -e * f` as `a - e * f`): one
    negation fewer, the same numbers."""
    positive = _without_negation(node.right)
    if positive is None:
        return False
    node.op = gast.Sub() if isinstance(node.op, gast.Add) else gast.Add()
    node.right = positive
    return True


def _sign_into_number(node: gast.BinOp) -> bool:
    """`-a * 2` as `a * -2`, `2 * -a` as `-2 * a`, `-a / 2` as `a / -2`."""
    for negated, other in (("left", "right"), ("right", "left")):
        operand, number = getattr(node, negated), getattr(node, other)
        if negated == "right" and isinstance(node.op, gast.Div):
            continue  # `2 / -a`: the negation stays on the divisor
        if not (isinstance(operand, gast.UnaryOp) and isinstance(operand.op, gast.USub)):
            continue
        if isinstance(number, gast.UnaryOp) and isinstance(number.op, gast.USub):
            flipped = number.operand  # `-a * -2` as `a * 2`
        else:
            flipped = gast.UnaryOp(op=gast.USub(), operand=number)
        if is_number(flipped):
            setattr(node, negated, operand.operand)
            setattr(node, other, flipped)
            return True
    return False


def is_number(node: gast.expr) -> bool:
    """`2`, `2.0`, `-2.0`: a literal int or float."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return isinstance(node, gast.Constant) and type(node.value) in (int, float)


def only_reads(value: Any) -> bool:
    """Whether a function emitted code calls is known to leave its arguments as they are."""
    if isinstance(value, np.ufunc) or (isinstance(value, type) and issubclass(value, AbstractZero)):
        return True
    try:
        return value in ONLY_READ
    except TypeError:  # unhashable: nothing known
        return False


# Called by emitted code, and known to leave their arguments as they are: the pure
# callables, and some that may raise.
ONLY_READ: set[Any] = PURE | {unbroadcast, np.linalg.inv}


def _without_negation(value: gast.expr) -> gast.expr | None:
    """`e` for a value `-e`, and `a * b` (or `a / b`) for `-a * b`: the same number but for
    its sign, exactly (floating point negates without rounding); None for any other."""
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        return value.operand
    if (
        isinstance(value, gast.BinOp)
        and isinstance(value.op, gast.Mult | gast.Div)
        and isinstance(value.left, gast.UnaryOp)
        and isinstance(value.left.op, gast.USub)
    ):
        return gast.BinOp(left=value.left.operand, op=value.op, right=value.right)
    return None


def _added_to(statement: gast.stmt, name: str) -> gast.expr | None:
    """`e` for a statement `name = name + e` where `e` does not read `name`."""
    if not (
        isinstance(statement, gast.Assign)
        and isinstance(statement.targets[0], gast.Name)
        and statement.targets[0].id == name
        and isinstance(statement.value, gast.BinOp)
        and isinstance(statement.value.op, gast.Add)
        and isinstance(statement.value.left, gast.Name)
        and statement.value.left.id == name
    ):
        return None
    right = statement.value.right
    if any(isinstance(n, gast.Name) and n.id == name for n in syntax.walk(right)):
        return None
    return right


def _changed_by(assignment: gast.Assign | gast.AugAssign) -> list[str]:
    """The names an assignment changes in place (`x[i] += v` changes `x`) or assigns."""
    targets = assignment.targets if isinstance(assignment, gast.Assign) else [assignment.target]
    names = []
    for target in targets:
        root = target
        while isinstance(root, gast.Subscript | gast.Attribute):
            root = root.value
        if isinstance(root, gast.Name):
            names.append(root.id)
    return names


def _is_arithmetic(value: gast.expr, conversions: Collection[str] = ()) -> bool:
    """Whether an expression is names and constants under operators, and calls of the
    `conversions` (of a number to a number) alone, so moving or dropping it changes nothing
    but when it is computed."""
    allowed = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.BoolOp, gast.expr_context)
    return all(
        isinstance(n, (*allowed, gast.operator, gast.unaryop, gast.boolop))
        or (
            isinstance(n, gast.Call)
            and isinstance(n.func, gast.Name)
            and n.func.id in conversions
            and not n.keywords
        )
        for n in syntax.walk(value)
    )

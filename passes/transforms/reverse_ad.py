"""ReverseAD: turn a normal-form function into its rrule: a forward sweep and named pullbacks."""

from __future__ import annotations

import os
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.kinds import FLOAT
from srcad.passes import naming
from srcad.passes.analyses.activity import Activity, target_names
from srcad.passes.analyses.operation_rules import OperationRules
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Context, Transform
from srcad.passes.inlining import Plan, adjoint_of, index_adjoint
from srcad.passes.normal_form import COMPOUND, falls_through, is_copy, is_unpacking
from srcad.passes.rule_calls import RuleCalls, call, constant
from srcad.projection import add_at, expand, scatter
from srcad.syntax import ADD, LOAD, STORE, load, make, store
from srcad.tangents import NoTangent, Tangent, ZeroTangent, elements_of

Path = list[tuple[list[gast.stmt], int]]  # (block, index) pairs, outermost first

# Classes `isinstance` tests often, as tuples: a union (`gast.For | gast.While`) is built
# anew each time the test runs.
_LOOPS = (gast.For, gast.While)
_JUMPS = (gast.Break, gast.Continue)
_BINDING = (gast.Assign, gast.For)
_COPY_OR_INDEX = (gast.Name, gast.Subscript)  # the values of `name = other` and `y = a[i]`


def assign(target: gast.expr, value: gast.expr) -> gast.Assign:
    return make(gast.Assign, targets=[target], value=value, type_comment=None)


def names_tuple(names: list[str], ctx: gast.AST) -> gast.Tuple:
    name = store if isinstance(ctx, gast.Store) else load
    return make(gast.Tuple, elts=[name(n) for n in names], ctx=ctx)


def record_target(names: list[str]) -> gast.expr:
    """Where the pullback unpacks a tape record of `names` (no exit id)."""
    return restoring(store(names[0]) if len(names) == 1 else names_tuple(names, STORE))


def restoring(target: gast.expr) -> gast.expr:
    """Mark a target that gives names back the values a tape kept of them: an analysis of
    the emitted code learns nothing new from it (`passes/analyses/value_kinds.py`)."""
    target.restores = True
    return target


@dataclass(slots=True)
class Exit:
    """One way out of a loop iteration: the end of the body, a `continue`, a `break` or a
    `return`; the record appended there names what the iteration kept."""

    path: Path  # from the loop body to the jump (empty for the end of the body)
    names: list[str]
    append: gast.Expr | None = None  # the statement appending the record to the tape


@dataclass(slots=True)
class Loop:
    """A loop whose iterations keep records on a tape for the pullback."""

    statement: gast.For | gast.While
    tape: str
    exits: list[Exit] = field(default_factory=list)
    exit_count: int = 0  # how many exits the body has; records carry an id when more than one
    names: list[str] = field(default_factory=list)  # what the current iteration has kept
    items: str | None = None  # the list an active iterable was turned into
    items_pullback: str | None = None
    outermost: bool = True  # in no other loop (so its pullback is written once)
    trimmed: bool = False  # whether `_trim_records` left records off its tape


class ReverseAD(RuleCalls, Transform):
    """Replace the function by its reverse rule.

    The forward sweep is the function itself, where each statement computing a value the
    result depends on calls its rule and keeps the rule's pullback. Each `return` returns
    the result and a named pullback that calls those pullbacks in reverse order,
    accumulating each variable's cotangent in `<name>_bar`. A branch's pullback follows
    the branch that ran; a loop appends one record per iteration to a tape (the pullbacks
    of that iteration, and which exit it took when there are several), and the pullback
    walks the tape backwards.

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x, y):
    ...     return np.sin(x) * y
    ... '''), end="")
    def rrule_f(x, y):
        sin_x, sin_x_pullback = sin_rrule(x)
        out, out_pullback = mul_rrule(sin_x, y)
    <BLANKLINE>
        def f_pullback(out_bar):
            # <doctest>:3  return np.sin(x) * y
            _, sin_x_bar, y_bar = out_pullback(out_bar)
            _, x_bar = sin_x_pullback(sin_x_bar)
            return (NoTangent(), x_bar, y_bar)
        return (out, f_pullback)
    """

    requires = (Activity, OperationRules)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = self.prepare(tree, ctx)
        self.filename = os.path.basename(ctx.source.filename)  # for location comments
        self.bars: dict[str, str] = {}
        self.pullbacks: dict[gast.stmt, str] = {}
        self.packages: dict[gast.If, str] = {}
        self.loops: dict[gast.stmt, Loop] = {}
        self.operand_names: dict[gast.stmt, list[str]] = {}  # `_operand_names`'s answers
        self.targets: dict[gast.stmt, list[str]] = {}  # `_targets`'s answers
        self.falls: dict[int, bool] = {}  # `_falls_through`'s answers, by the block's id
        self._index_statements(function)
        self.returns = [s for s in self.statements if isinstance(s, gast.Return)]
        self.needed = self._needed()
        self.differentiated: dict[gast.stmt, bool] = {}  # filled by `_index_reverse`
        self._index_reverse()
        self.enclosing: list[Loop] = []
        self.segments: list[Path] = []  # the path to each enclosing loop, outermost first
        self.path: Path = []  # the path from the innermost loop's body (or the function's)
        self.branch_names: dict[int, list[str]] = {}
        self.deferred: list[tuple[gast.FunctionDef, gast.Return, Path]] = []
        self._index_definitions(tree)
        body = self._forward_block(function.body)
        # A pullback is written once every exit of every loop is known.
        self.unrecorded: set[int] = set()  # appends of records no pullback reads
        for pullback, statement, path in self.deferred:
            self._write_pullback(pullback, statement, path)
        if self.unrecorded:
            _remove(body, self.unrecorded)
        function.name = ctx.namer.fresh(naming.rrule(function.name))
        function.body = body
        function.decorator_list = []
        function.returns = None
        return True

    # -- what is differentiated ----------------------------------------------------------

    def _needed(self) -> set[str]:
        """Names whose cotangents some pullback computes: those a result depends on."""
        needed = {
            r.value.id
            for r in self.returns
            if isinstance(r.value, gast.Name) and r.value.id in self.active
        }
        feeds: dict[str, list[set[str]]] = {}  # a target -> the names each assignment reads
        self.candidates: set[gast.stmt] = set()  # statements with rules, or active copies
        for statement in self.statements:
            if not self._candidate(statement):
                continue
            self.candidates.add(statement)
            if statement.__class__ is gast.For:
                read = {statement.iter.id}
            else:
                read = self.active.intersection(self._operand_names(statement))
            for target in self._targets(statement):
                feeds.setdefault(target, []).append(read)
        todo = list(needed)
        while todo:
            for read in feeds.get(todo.pop(), ()):
                todo += read - needed
                needed |= read
        return needed

    def _index_statements(self, function: gast.FunctionDef) -> None:
        """Every statement of the function in source order (as `walk_statements` gives
        them), with what the reverse asks of each place: the branches and the loop around
        it, the span of each loop, and where each name is assigned."""
        self.statements: list[gast.stmt] = []
        self.order: dict[int, int] = {}  # a statement's id -> its position in source order
        # Per statement, the branch of each `if` around it: two statements in different
        # branches of one `if` never both run in one pass through it.
        self.branches: list[dict[int, str]] = []
        self.ends: list[int] = []  # per statement, the position of the last one nested in it
        self.loop_around: dict[int, gast.stmt | None] = {}
        # The span of each loop, by its position: the loop's, and its body's last statement's.
        self.loop_spans: dict[int, tuple[int, int]] = {}
        # name -> (position in source order, the loop around) of each assignment;
        # a parameter's value counts as an assignment at position -1
        self.definitions: dict[str, list[tuple[int, gast.stmt | None]]] = {}
        self.defining: dict[str, list[gast.stmt]] = {}  # the statements assigning each name
        for arg in function.args.posonlyargs + function.args.args:
            self.definitions.setdefault(arg.id, []).append((-1, None))

        def index(block: list[gast.stmt], branches: dict[int, str], loop: gast.stmt | None
                  ) -> None:  # fmt: skip
            for statement in block:
                k = len(self.statements)
                self.statements.append(statement)
                self.order[id(statement)] = k
                self.branches.append(branches)
                self.ends.append(k)
                self.loop_around[id(statement)] = loop
                if isinstance(statement, gast.Assign):
                    names, place = self._targets(statement), (k, loop)
                elif isinstance(statement, gast.For):  # assigned by each iteration
                    names, place = self._targets(statement), (k, statement)
                else:
                    names = []
                for name in names:
                    self.definitions.setdefault(name, []).append(place)
                    self.defining.setdefault(name, []).append(statement)
                if statement.__class__ not in COMPOUND:
                    continue  # nothing nested, or a function's own statements
                if isinstance(statement, gast.If):
                    index(statement.body, {**branches, id(statement): "body"}, loop)
                    index(statement.orelse, {**branches, id(statement): "orelse"}, loop)
                elif isinstance(statement, _LOOPS):
                    index(statement.body, branches, statement)
                    self.loop_spans[k] = (k, len(self.statements) - 1)
                    index(statement.orelse, branches, statement)
                else:
                    index(getattr(statement, "body", []), branches, loop)
                    index(getattr(statement, "orelse", []), branches, loop)
                self.ends[k] = len(self.statements) - 1

        index(function.body, {}, None)

    def _nested(self, block: list[gast.stmt]) -> list[gast.stmt]:
        """`walk_statements(block)`, read off the index: a statement and those nested in
        it are consecutive in source order."""
        if len(block) == 1:
            k = self.order[id(block[0])]
            return self.statements[k : self.ends[k] + 1]
        out: list[gast.stmt] = []
        for statement in block:
            k = self.order[id(statement)]
            out += self.statements[k : self.ends[k] + 1]
        return out

    def _index_reverse(self) -> None:
        """What the reverse does at each statement, found in one pass in source order:
        whether it differentiates through it; where each cotangent is read (the statements
        differentiating through each name or assigning it: the reverse of an assignment
        reads its target's cotangent); how many statements before each position have a
        reverse that does something (`_has_content` of one statement), one more for the end;
        and the names each statement overwrites (`_overwritten`) and touches (`_touched`)."""
        self.uses: dict[str, list[int]] = {}
        self.with_content = [0]
        self.overwritten: dict[gast.stmt, list[str]] = {}
        self.touches: list[list[str]] = []  # per statement, by position
        differentiated = self.differentiated
        for k, statement in enumerate(self.statements):
            own = differentiated[statement] = self._differentiates(
                statement, statement in self.candidates
            )
            cls = statement.__class__  # (gast's classes have no subclasses)
            used: list[str] = []
            if cls is gast.For and statement.iter.__class__ is gast.Name:
                used = [statement.iter.id]
                if own:
                    used += self._targets(statement)
            elif cls is gast.Assign and own:
                used = [*self._operand_names(statement), *self._targets(statement)]
            for name in used:
                self.uses.setdefault(name, []).append(k)
            # A value with no derivative resets the cotangents of the names it assigns.
            overwritten: list[str] = []
            if not own and cls in _BINDING:
                overwritten = [n for n in self._targets(statement) if n in self.needed]
            self.overwritten[statement] = overwritten
            if cls is gast.For and statement in self.rules:
                assert isinstance(statement.iter, gast.Name)
                self.touches.append([*self._targets(statement), statement.iter.id])
            elif cls is gast.Assign and own:
                self.touches.append([*self._targets(statement), *self._operand_names(statement)])
            else:
                self.touches.append(overwritten)
            self.with_content.append(self.with_content[-1] + (own or bool(overwritten)))

    def _read_later(self, name: str, statement: gast.stmt) -> bool:
        """Whether the reverse may read `name`'s cotangent after reaching `statement`: it
        is a parameter's, or something before it in the source (or anywhere in a loop
        around it or that it is, for earlier iterations) differentiates through `name` or
        assigns it."""
        if name in self.ctx.request.wrt:
            return True
        k = self.order[id(statement)]
        uses = self.uses.get(name, [])
        if any(u < k and not self._exclusive(u, k) for u in uses):
            return True
        return any(
            start <= k <= end and any(start <= u <= end for u in uses)
            for start, end in self.loop_spans.values()
        )

    def _exclusive(self, one: int, other: int) -> bool:
        """Whether the statements at these indices are in different branches of an `if`."""
        mine, theirs = self.branches[one], self.branches[other]
        return any(theirs.get(node, side) != side for node, side in mine.items())

    def _candidate(self, statement: gast.stmt) -> bool:
        if is_copy(statement):
            assert isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Name)
            return statement.value.id in self.active
        return statement in self.rules

    def _differentiated(self, statement: gast.stmt) -> bool:
        """Whether the reverse differentiates through `statement`: it has a rule (or copies
        an active name) and assigns a name some cotangent needs. Asked many times of each
        statement, answered once."""
        known = self.differentiated.get(statement)
        if known is None:
            known = self.differentiated[statement] = self._differentiates(statement)
        return known

    def _differentiates(self, statement: gast.stmt, candidate: bool | None = None) -> bool:
        """`_differentiated`'s answer; `candidate`: `_candidate`'s, where known."""
        if not (self._candidate(statement) if candidate is None else candidate):
            return False
        return not self.needed.isdisjoint(self._targets(statement))

    def _targets(self, statement: gast.Assign | gast.For) -> list[str]:
        """The names an assignment or a loop binds, found once per statement."""
        names = self.targets.get(statement)
        if names is None:
            target = statement.target if isinstance(statement, gast.For) else statement.targets[0]
            names = self.targets[statement] = target_names(target)
        return names

    def _operand_names(self, statement: gast.Assign) -> list[str]:
        """The names of `_operands(statement)`, found once per statement."""
        names = self.operand_names.get(statement)
        if names is None:
            value = statement.value
            if value.__class__ is gast.BinOp and statement.targets[0].__class__ is gast.Name:
                # The common case, without `_operands`' tests for copies, indexing,
                # unpacking and calls of nested functions: none of them is an operator.
                names = [n.id for n in (value.left, value.right) if n.__class__ is gast.Name]
            else:
                names = [n.id for n in self._operands(statement)]
            self.operand_names[statement] = names
        return names

    def _overwritten(self, statement: gast.stmt) -> list[str]:
        """The names with cotangents that `statement` assigns a value with no derivative
        (`r = clip`, `for r in constants`): the reverse resets their cotangents there, or
        an earlier value of the name would receive what the later one was owed. Found for
        every statement by `_index_reverse`."""
        return self.overwritten[statement]

    def _has_content(self, statements: list[gast.stmt]) -> bool:
        """Whether the reverse of `statements` does anything: differentiates through one,
        or resets a cotangent where one overwrites a name."""
        counts = self.with_content  # read off the counts: no walk of the nested statements
        for statement in statements:
            k = self.order[id(statement)]
            if counts[self.ends[k] + 1] > counts[k]:
                return True
        return False

    # -- forward sweep -------------------------------------------------------------------

    def _forward_block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for index, statement in enumerate(block):
            self.path.append((block, index))
            out += self._forward(statement)
            self.path.pop()
        return out

    def _keep(self, name: str) -> None:
        """Record `name` in the current loop iteration, for its pullback."""
        if self.enclosing:
            self.enclosing[-1].names.append(name)

    def _forward(self, statement: gast.stmt) -> list[gast.stmt]:
        if isinstance(statement, gast.FunctionDef):
            return [statement, *self._nested_rrule(statement)]
        if isinstance(statement, gast.If):
            return self._forward_if(statement)
        if isinstance(statement, _LOOPS):
            return self._forward_loop(statement)
        if isinstance(statement, _JUMPS):
            return [*self._record_exit(self.enclosing[-1]), statement]
        if isinstance(statement, gast.Return):
            return self._forward_return(statement)
        if not self._differentiated(statement) or is_copy(statement):
            return [self._as_it_runs(statement)]
        assert isinstance(statement, gast.Assign)
        inlined = self._forward_inlined(statement)
        if inlined is not None:
            return inlined
        rule = self.rules[statement]
        rule_name = self._bind_rule(rule)
        args, keywords = self._arguments(statement)
        if isinstance(statement.value, gast.Subscript):
            args[1] = self._index_value(args[1])
        names = self._targets(statement)
        pullback = self.ctx.namer.fresh(naming.pullback("_".join(names)))
        self.pullbacks[statement] = pullback
        self._keep(pullback)
        both = make(gast.Tuple, elts=[statement.targets[0], store(pullback)], ctx=STORE)
        return [syntax.located(assign(both, call(rule_name, args, keywords)), statement)]

    def _nested_rrule(self, function: gast.FunctionDef) -> list[gast.stmt]:
        """The reverse rule of a nested function that a differentiated statement calls,
        defined beside it so that it reads the same variables."""
        local = self._local_function(function, self._differentiated)
        if local is None:
            return []
        captured = tuple(c for c in local.captured_by(function, self.outer) if c in self.active)
        return [self._nested_rule(function, local, captured)]

    def _define_nested_rules(self, block: list[gast.stmt]) -> None:
        """In a block the forward sweep keeps as it is (a loop that differentiates nothing),
        put the rule of each nested function defined there beside it, as `_forward` does:
        a differentiated call after the loop may call the definition the loop made."""
        index = 0
        while index < len(block):
            statement = block[index]
            if isinstance(statement, gast.FunctionDef):
                rules = self._nested_rrule(statement)
                block[index + 1 : index + 1] = rules
                index += len(rules)
            elif statement.__class__ in COMPOUND:
                self._define_nested_rules(statement.body)
                self._define_nested_rules(getattr(statement, "orelse", []))
            index += 1

    def _forward_if(self, statement: gast.If) -> list[gast.stmt]:
        loop = self.enclosing[-1] if self.enclosing else None
        if loop is None or not self._has_content([statement]):
            body = self._forward_branch(statement, statement.body, None)
            orelse = self._forward_branch(statement, statement.orelse, None)
            return [
                syntax.located(
                    make(gast.If, test=statement.test, body=body, orelse=orelse), statement
                )
            ]
        # In a loop, each branch keeps its pullbacks in one tuple the iteration records,
        # and the iteration keeps what the test reads (`if not either:` from `a or b`, too):
        # the pullback tests each iteration's values again, not the last iteration's.
        if self._needs_test(statement):
            for name in _names_read(statement.test):
                self._keep_once(name)
        package = self.ctx.namer.fresh("branch")
        self.packages[statement] = package
        body = self._forward_branch(statement, statement.body, package)
        orelse = self._forward_branch(statement, statement.orelse, package)
        self._keep(package)
        return [
            syntax.located(make(gast.If, test=statement.test, body=body, orelse=orelse), statement)
        ]

    def _falls_through(self, block: list[gast.stmt]) -> bool:
        """`falls_through(block)`, for a block of the function, found once per block."""
        known = self.falls.get(id(block))
        if known is None:
            known = self.falls[id(block)] = falls_through(block)
        return known

    def _needs_test(self, statement: gast.If) -> bool:
        """Whether the pullback must know which branch ran (both can run and fall through)."""
        return self._falls_through(statement.body) and self._falls_through(statement.orelse)

    def _forward_branch(
        self, statement: gast.If, block: list[gast.stmt], package: str | None
    ) -> list[gast.stmt]:
        loop = self.enclosing[-1] if self.enclosing else None
        start = len(loop.names) if loop else 0
        out = self._forward_block(block)
        if loop is not None and package is not None:
            kept = loop.names[start:]
            del loop.names[start:]
            self.branch_names[id(block)] = kept
            if self._falls_through(block):
                out.append(assign(store(package), names_tuple(kept, LOAD)))
        return out if out or block is statement.orelse else [make(gast.Pass)]

    def _forward_loop(self, statement: gast.For | gast.While) -> list[gast.stmt]:
        # A `return` inside returns its pullback too, also where nothing else is differentiated.
        returns = any(isinstance(s, gast.Return) for s in self._nested(statement.body))
        if not returns and not self._has_content([statement]):
            self._define_nested_rules(statement.body)
            return [statement]
        loop = Loop(statement, self.ctx.namer.fresh(f"{self.function.name}_tape"))
        loop.exit_count = self._count_exits(statement)
        loop.outermost = not self.enclosing
        self.loops[statement] = loop
        before: list[gast.stmt] = [assign(store(loop.tape), make(gast.List, elts=[], ctx=LOAD))]
        self._keep(loop.tape)
        iterable: gast.expr | None = getattr(statement, "iter", None)
        if statement in self.rules and self._differentiated(statement):
            assert isinstance(iterable, gast.Name)
            loop.items = self.ctx.namer.fresh(f"{iterable.id}_items")
            loop.items_pullback = self.ctx.namer.fresh(naming.pullback(loop.items))
            pair = names_tuple([loop.items, loop.items_pullback], STORE)
            before.append(assign(pair, call(self._bind_rule(self.rules[statement]), [iterable])))
            self._keep(loop.items)
            self._keep(loop.items_pullback)
            iterable = load(loop.items)
        self.segments.append(self.path)
        self.path = []
        self.enclosing.append(loop)
        body = self._forward_block(statement.body)
        if self._falls_through(statement.body):
            body += self._record_exit(loop)
        self.enclosing.pop()
        self.path = self.segments.pop()
        if isinstance(statement, gast.For):
            new: gast.stmt = make(
                gast.For,
                target=statement.target,
                iter=iterable,
                body=body,
                orelse=[],
                type_comment=None,
            )
        else:
            new = make(gast.While, test=statement.test, body=body, orelse=[])
        for node in before:
            syntax.located(node, statement)
        return [*before, syntax.located(new, statement)]

    def _count_exits(self, loop: gast.For | gast.While) -> int:
        """Exits of an iteration: the end of the body, each `break` and `continue` of this
        loop (none in a loop inside it), and each `return` anywhere inside it (but in a
        nested function)."""
        count = 1 if self._falls_through(loop.body) else 0
        for statement in self._nested(loop.body):
            if isinstance(statement, gast.Return) or (
                isinstance(statement, _JUMPS) and self.loop_around[id(statement)] is loop
            ):
                count += 1
        return count

    def _record_exit(self, loop: Loop) -> list[gast.stmt]:
        """Append the current iteration's record to the loop's tape."""
        exit_ = Exit(list(self.path), list(loop.names))
        loop.exits.append(exit_)
        elements: list[gast.expr] = [load(n) for n in exit_.names]
        if loop.exit_count > 1:
            elements.insert(0, constant(len(loop.exits) - 1))
        # One value is recorded as it is; several, or an exit id and values, as a tuple.
        single = len(elements) == 1 and loop.exit_count == 1
        record = elements[0] if single else make(gast.Tuple, elts=elements, ctx=LOAD)
        append = make(gast.Attribute, value=load(loop.tape), attr="append", ctx=LOAD)
        exit_.append = make(
            gast.Expr, value=make(gast.Call, func=append, args=[record], keywords=[])
        )
        return [exit_.append]

    def _forward_return(self, statement: gast.Return) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for depth in reversed(range(len(self.enclosing))):  # iterations the return cuts short
            within = self.segments[depth + 1] if depth + 1 < len(self.segments) else self.path
            saved, self.path = self.path, within
            out += self._record_exit(self.enclosing[depth])
            self.path = saved
        full_path = [step for segment in self.segments for step in segment] + self.path
        pullback = self._pullback(statement, full_path)
        result = make(gast.Tuple, elts=[statement.value, load(pullback.name)], ctx=LOAD)
        out += [pullback, make(gast.Return, value=result)]
        return [syntax.located(s, statement) for s in out]

    # -- inlined derivatives -------------------------------------------------------------

    def _index_definitions(self, tree: gast.Module) -> None:
        """What inlined derivatives need: the kinds of the names, and which statements are
        inlined."""
        self.inlined: dict[gast.stmt, tuple[dict[str, gast.expr], Any]] = {}
        self.buffers: list[str] = []  # parameters whose cotangents indexing accumulates into
        inlining = self.ctx.request.optimise and self.ctx.request.kinds
        self.kinds = self.ctx.analysis(ValueKinds, tree) if inlining else None
        self.returned = {r.value.id for r in self.returns if isinstance(r.value, gast.Name)}
        self.plans: dict[gast.stmt, Plan] = {}
        if self.kinds is not None:
            for statement in self.statements:
                if statement.__class__ is not gast.Assign or not self.differentiated[statement]:
                    continue
                plan = self._plan(statement)
                if plan is not None:
                    self.plans[statement] = plan
        self.uniform: set[str] = set()  # names whose cotangents may be uniform floats
        self.uniform_reductions: set[gast.stmt] = set()
        for statement, plan in self.plans.items():
            if plan.reduction is not None and plan.texts[0] is not None:
                operand = plan.operands[0]
                assert isinstance(operand, gast.Name)
                reached = self._reached_by_uniform(operand.id)
                if reached is not None:
                    self.uniform |= reached
                    self.uniform_reductions.add(statement)

    def _plan(self, statement: gast.Assign) -> Plan | None:
        """How a differentiated assignment's derivative is inlined (not indexing's), if it is."""
        target = statement.targets[0]
        if not isinstance(target, gast.Name) or isinstance(statement.value, _COPY_OR_INDEX):
            return None  # unpacking, a copy, or indexing (see `index_adjoint`)
        assert self.kinds is not None
        args, keywords = self._arguments(statement)
        if keywords:
            return None
        # An int's cotangent is NoTangent(): ints pass nothing on.
        active = {
            n
            for n in self._operand_names(statement)
            if n in self.active and (self.kinds.kinds.get(n) or ("f", 0))[0] == "f"
        }
        primal = self.rules[statement].primal
        return adjoint_of(primal, statement.value, target.id, args, active, self.kinds.of)

    def _reached_by_uniform(self, start: str) -> set[str] | None:
        """The names a uniform cotangent of `start` reaches through elementwise operations,
        if every one of them handles a uniform cotangent; else None."""
        captured = {c for s in self.rules for c in self._captured(s)}
        reached, pending = {start}, [start]
        while pending:
            name = pending.pop()
            if name in self.returned or name in captured or name in self.ctx.request.captured:
                return None
            definitions = self.defining.get(name, [])
            if self.definitions.get(name, [(-1, None)])[0][0] == -1 and definitions:
                return None  # a parameter assigned again
            for statement in definitions:
                plan = self.plans.get(statement)
                if is_copy(statement):
                    more = {statement.value.id}
                elif plan is not None and plan.elementwise:
                    more = plan.passes_uniform
                elif plan is not None and plan.reduction is not None:
                    more = set()  # a float's uniform cotangent is the float itself
                elif isinstance(statement, gast.Assign) and self._indexing(statement):
                    more = set()  # written into a buffer or zeros: broadcast there
                else:
                    return None
                for other in more - reached:
                    reached.add(other)
                    pending.append(other)
        return reached

    def _indexing(self, statement: gast.Assign) -> bool:
        value = statement.value
        return (
            self.kinds is not None
            and isinstance(value, gast.Subscript)
            and isinstance(value.value, gast.Name)
            and index_adjoint(value, self.kinds.of) is not None
        )

    def _forward_inlined(self, statement: gast.Assign) -> list[gast.stmt] | None:
        """The statement itself, keeping the values its inlined derivative reads; None
        when its derivative is not inlined."""
        if self.kinds is None or not isinstance(statement.targets[0], gast.Name):
            return None
        target = statement.targets[0].id
        value = statement.value
        reads: dict[str, str]
        if isinstance(value, gast.Subscript):
            index = index_adjoint(value, self.kinds.of)
            if index is None or not isinstance(value.value, gast.Name):
                return None
            base = value.value.id
            reads = {f"index {name}": name for name in index}
            if self._is_parameter(base) and base not in self.returned:
                if base not in self.buffers:
                    self.buffers.append(base)
            else:
                reads["a"] = base
            write = None
        else:
            plan = self.plans.get(statement)
            if plan is None:
                return None
            if target in self.uniform and plan.elementwise:
                plan.uniform_reads(target)
            reads, write = plan.reads, plan
        before: list[gast.stmt] = []
        after: list[gast.stmt] = []
        saved: dict[str, gast.expr] = {}
        for role, name in reads.items():
            is_result = role == "y"
            kept = self._saved(name, statement, is_result, after if is_result else before)
            saved[role] = load(kept)
        if write is None:
            saved["index"] = statement.value.slice
        self.inlined[statement] = (saved, write)
        return [*before, statement, *after]

    def _is_parameter(self, name: str) -> bool:
        return self.definitions.get(name) == [(-1, None)]

    def _saved(self, name: str, statement: gast.stmt, is_result: bool,
               out: list[gast.stmt]) -> str:  # fmt: skip
        """The name under which the pullback reads `name`'s value at `statement` (before
        it, or after it for its result): the name itself when nothing assigns it again
        before the pullback reads it, else a copy; kept on the loop's tape in a loop."""
        definitions = self.definitions.get(name, [])
        loop = self.loop_around[id(statement)]
        if len(definitions) == 1 and definitions[0][1] is None:
            return name  # assigned once, outside loops: the closure reads it as it is
        k = self.order[id(statement)]
        if loop is not None:
            start, end = self._span(loop)
            if all(start <= d <= end and (d < k or (is_result and d == k)) for d, _ in definitions):
                self._keep_once(name)  # each iteration's value, on the tape
                return name
        copy = self.ctx.namer.fresh(name)
        out.append(assign(store(copy), load(name)))
        if loop is not None:
            self._keep_once(copy)
        return copy

    def _span(self, loop: gast.stmt) -> tuple[int, int]:
        """The positions (in source order) of a loop and of the last statement in it."""
        return self.loop_spans[self.order[id(loop)]]

    def _keep_once(self, name: str) -> None:
        if self.enclosing and name not in self.enclosing[-1].names:
            self._keep(name)

    def _reverse_inlined(self, statement: gast.Assign) -> list[gast.stmt]:
        """The inlined derivative: each operand's cotangent as arithmetic on the seed."""
        assert isinstance(statement.targets[0], gast.Name)
        target = statement.targets[0].id
        saved, write = self.inlined[statement]
        code: list[gast.stmt] = []
        if target not in self.seen:  # a symbolic zero: nothing to pass on
            return self._restart([target], statement)
        seed = load(self._bar(target))
        self.seen.discard(target)
        if write is None:  # indexing: into the buffer, or a fresh array
            value = statement.value
            assert isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
            base = value.value.id
            index = self._substituted(saved["index"], saved)
            if base in self.buffers and self.kinds is not None and self.kinds.of(value) == FLOAT:
                # One element: `+=` on a float, which takes a symbolic zero too.
                element = make(gast.Subscript, value=load(self._bar(base)), slice=index, ctx=STORE)
                code.append(make(gast.AugAssign, target=element, op=ADD, value=seed))
            elif base in self.buffers:
                place = self._index_value(index)
                added = call(self._bind(add_at, "add_at"), [load(self._bar(base)), place, seed])
                code.append(make(gast.Expr, value=added))
            else:
                place = self._index_value(index)
                scattered = call(self._bind(scatter, "scatter"), [saved["a"], place, seed])
                self._accumulate(base, scattered, code)
            return code + self._restart([target], statement)
        names = dict(saved)
        for role, arg in zip(("a", "b"), write.operands, strict=False):  # the rule's arguments
            names.setdefault(role, arg)
        names["y_bar"] = seed
        totals: dict[str, gast.expr] = {}
        uniform = statement in self.uniform_reductions or (
            target in self.uniform and write.elementwise
        )
        for name, cotangent in write.write(names, self._bind, uniform):
            previous = totals.get(name)
            totals[name] = (
                cotangent
                if previous is None
                else make(gast.BinOp, left=previous, op=ADD, right=cotangent)
            )
        # The result's own name last: its cotangent is the seed the others read.
        last = [target] if target in totals else []
        for name in [*(n for n in totals if n != target), *last]:
            cotangent = totals[name]
            if name == target and isinstance(cotangent, gast.Name) and name not in self.seen:
                self.seen.add(name)  # `x_bar = x_bar`: the cotangent passes straight through
                continue
            self._accumulate(name, cotangent, code)
        return code + self._restart([target], statement)

    def _substituted(self, expression: gast.expr, saved: dict[str, gast.expr]) -> gast.expr:
        """A copy of an index reading each name where the pullback keeps its value."""
        fresh = syntax.copy_tree(expression)
        for node in syntax.walk(fresh):
            if isinstance(node, gast.Name) and f"index {node.id}" in saved:
                node.id = saved[f"index {node.id}"].id
        return fresh

    # -- pullback ------------------------------------------------------------------------

    def _pullback(self, statement: gast.Return, path: Path) -> gast.FunctionDef:
        """The pullback of the function for one `return`, named now and written at the end."""
        result = statement.value
        seed = self._bar(result.id) if isinstance(result, gast.Name) else None
        name = self.ctx.namer.fresh(naming.pullback(self.function.name))
        self.ctx.output.pullbacks.add(name)
        parameter = make(
            gast.Name,
            id=seed or self.ctx.namer.fresh("out_bar"),
            ctx=make(gast.Param),
            annotation=None,
            type_comment=None,
        )
        arguments = make(
            gast.arguments,
            args=[parameter],
            posonlyargs=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        )
        pullback = make(
            gast.FunctionDef,
            name=name,
            args=arguments,
            body=[],
            decorator_list=[],
            returns=None,
            type_comment=None,
            type_params=[],
        )
        self.deferred.append((pullback, statement, path))
        return pullback

    def _write_pullback(
        self, pullback: gast.FunctionDef, statement: gast.Return, path: Path
    ) -> None:
        """The reverse of what ran before the `return`, as the pullback's body."""
        self.seen: set[str] = set()  # names whose `_bar` holds their cotangent here
        self.runtime: list[set[str]] = []  # per enclosing region: cotangents bound at run time
        result = statement.value
        body: list[gast.stmt] = []
        for name in self.buffers:  # cotangents that indexing accumulates into, in place
            shape = make(gast.Attribute, value=load(name), attr="shape", ctx=LOAD)
            zeros = call(self._bind(np.zeros, "zeros"), [shape])
            body.append(assign(store(self._bar(name)), zeros))
            self.seen.add(name)
        if isinstance(result, gast.Name) and result.id in self.needed:
            self.seen.add(result.id)
        body += self._reverse_prefix(path)
        body.append(
            make(gast.Return, value=make(gast.Tuple, elts=self._parameter_bars(), ctx=LOAD))
        )
        pullback.body = body

    def _parameter_bars(self) -> list[gast.expr]:
        bars: list[gast.expr] = [self._zero(NoTangent)]
        if self.ctx.request.captured:  # a nested function: its own cotangent holds what it read
            fields = [
                make(
                    gast.keyword,
                    arg=name,
                    value=load(self._bar(name)) if name in self.seen else self._zero(ZeroTangent),
                )
                for name in self.ctx.request.captured
            ]
            function_type = load(self._bind(types.FunctionType, "FunctionType"))
            bars[0] = call(self._bind(Tangent, "Tangent"), [function_type], fields)
        for arg in [*self.function.args.posonlyargs, *self.function.args.args]:
            kind = self.ctx.request.kinds.get(arg.id)
            if arg.id not in self.ctx.request.wrt or (kind is not None and kind[0] == "i"):
                bars.append(self._zero(NoTangent))
            elif arg.id in self.seen and arg.id in self.uniform:  # a uniform float: expanded
                bars.append(
                    call(self._bind(expand, "expand"), [load(self._bar(arg.id)), load(arg.id)])
                )
            elif arg.id in self.seen:
                bars.append(load(self._bar(arg.id)))
            else:
                bars.append(self._zero(ZeroTangent))
        star = self.function.args.vararg
        if star is not None:  # one cotangent per argument `*args` received
            bar = load(self._bar(star.id)) if star.id in self.seen else self._zero(ZeroTangent)
            if star.id not in self.ctx.request.wrt:
                bar = self._zero(NoTangent)
            count = call(self._builtin(len), [load(star.id)])
            split = call(self._bind(elements_of, "elements_of"), [bar, count])
            bars.append(make(gast.Starred, value=split, ctx=LOAD))
        return bars

    def _bar(self, name: str) -> str:
        bar = self.bars.get(name)
        if bar is None:
            bar = self.bars[name] = self.ctx.namer.fresh(naming.bar(name))
        return bar

    def _seed(self, name: str) -> gast.expr:
        return load(self._bar(name)) if name in self.seen else self._zero(ZeroTangent)

    def _reverse_prefix(self, path: Path) -> list[gast.stmt]:
        """The reverse of what ran along `path`: the statements before each step, and the
        part of the compound statement each step enters."""
        (block, index), rest = path[0], path[1:]
        out: list[gast.stmt] = []
        entered = block[index]
        if isinstance(entered, gast.If):
            out += self._reverse_prefix(rest)
        elif isinstance(entered, _LOOPS):
            # A `return` inside the loop: its records say how far each iteration went.
            out += self._reverse_statement(entered)
        return out + self._reverse_statements(block[:index])

    def _reverse_statements(self, statements: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        last_line = None
        for statement in reversed(statements):
            code = self._reverse_statement(statement)
            if code and isinstance(statement, gast.Assign) and statement.lineno != last_line:
                out.append(self._location_comment(statement))
                last_line = statement.lineno
            out += code
        return out

    def _reverse_statement(self, statement: gast.stmt) -> list[gast.stmt]:
        if isinstance(statement, gast.If):
            return self._reverse_if(statement)
        if isinstance(statement, _LOOPS):
            return self._reverse_loop(statement)
        if isinstance(statement, gast.Assign) and self._differentiated(statement):
            return self._reverse_assign(statement)
        if isinstance(statement, gast.Assign):  # a value with no derivative: a fresh start
            return self._forget(self._targets(statement), statement)
        return []

    def _forget(self, names: list[str], statement: gast.stmt) -> list[gast.stmt]:
        """Cotangents of values assigned before `statement` start from zero."""
        code: list[gast.stmt] = []
        for name in names:
            if name in self.seen and name in self.active:
                if not self._is_runtime(name):
                    self.seen.discard(name)
                elif self._read_later(name, statement):
                    code.append(assign(store(self._bar(name)), self._zero_for(name)))
        return code

    def _touched(self, statements: list[gast.stmt]) -> list[str]:
        """Active names whose cotangents the reverse of `statements` reads or writes."""
        touched: list[str] = []
        for statement in statements:  # each with those nested in it, read off the index
            k = self.order[id(statement)]
            for names in self.touches[k : self.ends[k] + 1]:
                touched += names
        return [n for n in dict.fromkeys(touched) if n in self.active]

    def _iteration_locals(self, statement: gast.For | gast.While) -> set[str]:
        """Names each iteration assigns before any use and nothing after the loop reads:
        their cotangents live within one iteration's reverse, like straight-line code."""
        defined = set(self._targets(statement)) if isinstance(statement, gast.For) else set()
        exposed: set[str] = set()
        for top in statement.body:
            for inner in self._nested([top]):
                if isinstance(inner, gast.Assign) and self._differentiated(inner):
                    exposed |= set(self._operand_names(inner)) - defined
                elif isinstance(inner, gast.For) and isinstance(inner.iter, gast.Name):
                    exposed |= {inner.iter.id} - defined
            if isinstance(top, gast.Assign):
                defined |= set(self._targets(top))
        nested = {
            n
            for top in statement.body
            if not isinstance(top, gast.Assign)
            for inner in self._nested([top])
            for n in (self._targets(inner) if isinstance(inner, gast.Assign) else [])
        }
        return defined - exposed - nested - self.seen

    @contextmanager
    def _region(self, runtime: list[str], out: list[gast.stmt]) -> Iterator[None]:
        """Inside a branch or a loop a cotangent may or may not have been set when the
        reverse reaches a point: the region binds each of `runtime` first (to zero if
        nothing has), accumulates into them, and resets them where their values are made."""
        for name in runtime:
            if name not in self.seen:
                out.append(assign(store(self._bar(name)), self._zero_for(name)))
                self.seen.add(name)
        self.runtime.append(set(runtime))
        yield
        self.runtime.pop()
        self.seen |= set(runtime)

    def _is_runtime(self, name: str) -> bool:
        return any(name in names for names in self.runtime)

    def _reverse_if(self, statement: gast.If) -> list[gast.stmt]:
        # Only a branch that falls through can have run before what follows the `if`.
        live = [
            s
            for block in (statement.body, statement.orelse)
            if self._falls_through(block)
            for s in block
        ]
        if not self._has_content(live):
            return []
        out: list[gast.stmt] = []
        with self._region(self._touched(live), out):
            branches = []
            entry = set(self.seen)
            for block in (statement.body, statement.orelse):
                self.seen = set(entry)
                code: list[gast.stmt] = []
                if statement in self.packages and self.branch_names.get(id(block)):
                    kept = self.branch_names[id(block)]
                    code.append(assign(names_tuple(kept, STORE), load(self.packages[statement])))
                code += self._reverse_statements(block)
                branches.append(code if self._falls_through(block) else None)
        then, orelse = branches
        self.seen = entry
        if then is not None and orelse is not None:
            out.append(
                make(gast.If, test=statement.test, body=then or [make(gast.Pass)], orelse=orelse)
            )
        else:
            out += then or orelse or []
        return out

    def _reverse_loop(self, statement: gast.For | gast.While) -> list[gast.stmt]:
        loop = self.loops.get(statement)
        if loop is None:
            return []
        out: list[gast.stmt] = []
        local = self._iteration_locals(statement)
        overwritten = self._overwritten(statement)  # the loop's target, from constants
        target = statement.target.id if isinstance(statement, gast.For) else None
        # Each iteration's reverse also resets the cotangent of the loop's own target.
        own = [target] if target is not None and target in self.active else []
        runtime = [n for n in self._touched(statement.body) + own if n not in local]
        with self._region(runtime, out):
            entry = set(self.seen)
            items_bar = index = None
            if loop.items is not None and target is not None:
                items_bar = self.ctx.namer.fresh(naming.bar(loop.items))
                index = self.ctx.namer.fresh(f"{target}_index")
                size = call(self._builtin(len), [load(loop.items)])
                zeros = make(gast.List, elts=[self._zero(ZeroTangent)], ctx=LOAD)
                out.append(
                    assign(
                        store(items_bar),
                        make(gast.BinOp, left=zeros, op=make(gast.Mult), right=size),
                    )
                )
            record = self.ctx.namer.fresh("record")
            codes: dict[int, list[gast.stmt]] = {}  # the reverse of each exit's iteration
            for number, exit_ in enumerate(loop.exits):
                self.seen = set(entry)
                if exit_.path:
                    code = self._reverse_prefix(exit_.path)
                else:
                    code = self._reverse_statements(statement.body)
                if items_bar is not None and index is not None and target is not None:
                    if target in self.seen:  # the item's cotangent, for the iterable's pullback
                        element = make(
                            gast.Subscript, value=load(items_bar), slice=load(index), ctx=STORE
                        )
                        code.append(assign(element, load(self._bar(target))))
                    code += self._forget([target], statement)
                code += self._forget(overwritten, statement)
                codes[number] = code
            if (
                self.ctx.request.optimise
                and index is None
                and loop.outermost
                and len(self.deferred) == 1
            ):
                self._trim_records(loop, codes)
                if not codes:  # no iteration's reverse does anything
                    return out
            if index is None and not any(codes.values()):
                return out  # nothing to undo (the records serve another pullback)
            several = len(codes) > 1
            iteration: list[gast.stmt] = []
            for number, code in codes.items():
                names = loop.exits[number].names
                if names and several:  # the record is the exit's id, then its values
                    fields = [store("_"), *(store(n) for n in names)]
                    unpack = restoring(make(gast.Tuple, elts=fields, ctx=STORE))
                    code.insert(0, assign(unpack, load(record)))
                if several:
                    test = make(
                        gast.Compare,
                        left=make(gast.Subscript, value=load(record), slice=constant(0), ctx=LOAD),
                        ops=[make(gast.Eq)],
                        comparators=[constant(number)],
                    )
                    iteration = [
                        make(gast.If, test=test, body=code or [make(gast.Pass)], orelse=iteration)
                    ]
                else:
                    iteration = code
            self.seen = entry
            if index is not None:
                read = make(gast.Subscript, value=load(loop.tape), slice=load(index), ctx=LOAD)
                first: list[gast.stmt] = []
                if several:
                    first = [assign(store(record), read)]
                elif loop.exits[0].names:
                    first = [assign(record_target(loop.exits[0].names), read)]
                last = make(
                    gast.BinOp,
                    left=call(self._builtin(len), [load(loop.tape)]),
                    op=make(gast.Sub),
                    right=constant(1),
                )
                down = call(self._builtin(range), [last, constant(-1), constant(-1)])
                walk: gast.stmt = make(
                    gast.For,
                    target=store(index),
                    iter=down,
                    body=[*first, *iteration] or [make(gast.Pass)],
                    orelse=[],
                    type_comment=None,
                )
            else:
                names = [] if several else loop.exits[next(iter(codes))].names
                each = record_target(names) if names else store(record)
                walk = make(
                    gast.For,
                    target=each,
                    iter=call(self._builtin(reversed), [load(loop.tape)]),
                    body=iteration or [make(gast.Pass)],
                    orelse=[],
                    type_comment=None,
                )
            out.append(walk)
            if items_bar is not None and loop.items_pullback is not None:
                assert isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name)
                after: list[gast.stmt] = []
                parts = [store("_"), self._contribution(statement.iter.id, after)]
                pullback_call = call(loop.items_pullback, [load(items_bar)])
                out.append(assign(make(gast.Tuple, elts=parts, ctx=STORE), pullback_call))
                out += after
        return out

    def _trim_records(self, loop: Loop, codes: dict[int, list[gast.stmt]]) -> None:
        """Keep on the tape only what the pullback needs to tell iterations apart:

        - exits that keep nothing and whose reverse (`codes`, by exit) does nothing (a
          `while` loop's last test, say) record nothing: they go from `codes`, and their
          appends from the forward sweep (`self.unrecorded`);
        - exits keeping the same names with the same reverse share one exit id;
        - where one id is left, records lose it: they are the values kept.

        Only for a loop whose records one pullback reads, once, and by position in none."""
        assert not loop.trimmed, "a trimmed tape read twice"
        loop.trimmed = True
        members: dict[int, list[Exit]] = {}  # by the exit whose id their records carry
        for number, exit_ in enumerate(loop.exits):
            assert exit_.append is not None
            if not (exit_.names or codes[number]):
                self.unrecorded.add(id(exit_.append))
                del codes[number]
                continue
            alike = (
                other
                for other in members
                if loop.exits[other].names == exit_.names
                and _same_code(codes[other], codes[number])
            )
            same = next(alike, number)
            members.setdefault(same, []).append(exit_)
            if same != number:
                del codes[number]
                record = exit_.append.value.args[0]
                assert isinstance(record, gast.Tuple)
                record.elts[0] = constant(same)
        if len(members) == 1:
            (group,) = members.values()
            names = group[0].names
            for exit_ in group:
                assert exit_.append is not None and isinstance(exit_.append.value, gast.Call)
                if len(names) == 1:
                    record = load(names[0])
                else:
                    record = names_tuple(names, LOAD) if names else constant(None)
                exit_.append.value.args = [record]

    def _accumulate(self, name: str, value: gast.expr, after: list[gast.stmt]) -> None:
        """Add `value` to `name`'s cotangent (binding it the first time)."""
        bar = self._bar(name)
        if name in self.seen:
            value = make(gast.BinOp, left=load(bar), op=ADD, right=value)
        self.seen.add(name)
        after.append(assign(store(bar), value))

    def _contribution(self, name: str, after: list[gast.stmt]) -> gast.expr:
        """Where a pullback's cotangent for `name` goes: its `_bar` the first time, else a
        partial that `after` adds to it."""
        if name not in self.active:
            return store("_")
        if name not in self.seen:
            self.seen.add(name)
            return store(self._bar(name))
        partial = self.ctx.namer.fresh(naming.bar(name))
        total = self._bar(name)
        after.append(
            assign(
                store(total),
                make(gast.BinOp, left=load(total), op=ADD, right=load(partial)),
            )
        )
        return store(partial)

    def _reverse_assign(self, statement: gast.Assign) -> list[gast.stmt]:
        if statement in self.inlined:
            return self._reverse_inlined(statement)
        defined = self._targets(statement)
        if is_unpacking(statement):
            seed: gast.expr = make(gast.Tuple, elts=[self._seed(n) for n in defined], ctx=LOAD)
        else:
            seed = self._seed(defined[0])
        self.seen.difference_update(defined)
        after: list[gast.stmt] = []
        if is_copy(statement):
            assert isinstance(statement.value, gast.Name)
            source = statement.value.id
            if source in self.seen:
                total = load(self._bar(source))
                code: list[gast.stmt] = [
                    assign(
                        store(self._bar(source)),
                        make(gast.BinOp, left=total, op=ADD, right=seed),
                    )
                ]
            else:
                self.seen.add(source)
                code = [assign(store(self._bar(source)), seed)]
        else:
            args, keywords = self._arguments(statement)
            parameters = self.rules[statement].parameters
            if parameters is not None:  # a compiled callee: a cotangent per parameter
                passed = {k.arg: k.value for k in keywords}
                named = [
                    args[i] if i < len(args) else passed.get(p, constant(None))
                    for i, p in enumerate(parameters)
                ]
                args = named + args[len(parameters) :]  # and what `*args` received
            differentiable = set(map(id, self._operands(statement)))
            outputs: list[gast.expr] = [store("_")]
            captured = self._captured(statement)
            if captured:  # the closure's cotangent goes to what it read
                closure = self.ctx.namer.fresh("closure_bar")
                outputs[0] = store(closure)
                for name in captured:
                    field = make(
                        gast.Subscript, value=load(closure), slice=constant(name), ctx=LOAD
                    )
                    self._accumulate(name, field, after)
            for arg in args:
                if id(arg) in differentiable and isinstance(arg, gast.Name):
                    outputs.append(self._contribution(arg.id, after))
                else:
                    outputs.append(store("_"))
            pullback = self.pullbacks[statement]
            if all(isinstance(o, gast.Name) and o.id == "_" for o in outputs):
                # Nothing it gives is differentiated (an array indexed with an index that
                # depends on the inputs): pullbacks do nothing else, so it is not called.
                code = []
            else:
                code = [assign(make(gast.Tuple, elts=outputs, ctx=STORE), call(pullback, [seed]))]
        code += after
        return code + self._restart(defined, statement)

    def _zero_for(self, name: str) -> gast.expr:
        """The cotangent `name` starts from: 0.0 where its kind is a float (adding to it is
        then a float addition), else the symbolic zero."""
        if self.kinds is not None and self.kinds.kinds.get(name) == FLOAT:
            return constant(0.0)
        return self._zero(ZeroTangent)

    def _restart(self, defined: list[str], statement: gast.stmt) -> list[gast.stmt]:
        """Inside a region, an earlier value of a name `statement` assigns starts from zero."""
        code: list[gast.stmt] = []
        for name in defined:
            if name not in self.seen and self._is_runtime(name):
                if self._read_later(name, statement):
                    code.append(assign(store(self._bar(name)), self._zero_for(name)))
                self.seen.add(name)
        return code

    def _location_comment(self, statement: gast.stmt) -> gast.stmt:
        source = self.ctx.source
        text = source.line(statement.lineno).strip()
        where = f"{self.filename}:{statement.lineno}"
        return syntax.comment(f"{where}  {text}" if text else where)


def _names_read(test: gast.expr) -> list[str]:
    """The names a branch test reads, each once, in order."""
    found = (n.id for n in syntax.walk(test) if isinstance(n, gast.Name))
    return list(dict.fromkeys(found))


def _same_code(one: list[gast.stmt], other: list[gast.stmt]) -> bool:
    return len(one) == len(other) and all(
        gast.dump(a) == gast.dump(b) for a, b in zip(one, other, strict=True)
    )


def _remove(body: list[gast.stmt], statements: set[int]) -> None:
    """Take the statements whose ids are in `statements` out of `body`, at any depth (a
    block left empty gets `pass`)."""
    body[:] = [s for s in body if id(s) not in statements]
    for statement in body:
        for block in ("body", "orelse"):
            inner = getattr(statement, block, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                _remove(inner, statements)
                if not inner:
                    inner.append(make(gast.Pass))

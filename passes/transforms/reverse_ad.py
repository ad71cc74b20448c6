"""ReverseAD: turn a normal-form function into its rrule: a forward sweep and named pullbacks."""

from __future__ import annotations

import os
import types

import gast
import numpy as np

from srcad import syntax
from srcad.kinds import FLOAT, is_integer, is_list
from srcad.passes import naming
from srcad.passes.analyses.activity import Activity
from srcad.passes.analyses.grown_lists import GrownLists
from srcad.passes.analyses.inline_plans import InlinePlans
from srcad.passes.analyses.needed_cotangents import NeededCotangents
from srcad.passes.analyses.operation_rules import OperationRules
from srcad.passes.analyses.reverse_index import ReverseSteps
from srcad.passes.analyses.statement_index import Statements
from srcad.passes.analyses.uniform_cotangents import UniformCotangents
from srcad.passes.base import Context, Transform
from srcad.passes.normal_form import COMPOUND, falls_through, is_copy, is_unpacking
from srcad.passes.rule_calls import (
    RuleCalls,
    assign,
    call,
    constant,
    function_def,
    names_tuple,
)
from srcad.passes.transforms.contexts import reverse_regions
from srcad.passes.transforms.cotangents import Cotangents
from srcad.passes.transforms.inline_derivatives import InlinedDerivatives
from srcad.passes.transforms.tape import (
    Loop,
    Path,
    exit_count,
    items_cotangent,
    items_taken,
    read_back,
    record_exit,
    remove,
    trim_records,
)
from srcad.passes.transforms.zero_cotangents import fold_zero_cotangents
from srcad.primitives import iterate
from srcad.projection import entries_tangent, expand
from srcad.syntax import ADD, LOAD, STORE, load, make, store
from srcad.tangents import (
    NoTangent,
    Tangent,
    ZeroTangent,
    element_stack,
    elements_of,
    list_cotangent,
    pop_element,
)

# Classes `isinstance` tests often, as tuples: a union (`gast.For | gast.While`) is built
# anew each time the test runs.
_LOOPS = (gast.For, gast.While)
_JUMPS = (gast.Break, gast.Continue)


class ReverseAD(RuleCalls, Transform):
    """Replace the function by its reverse rule.

    The forward sweep is the function itself, where each statement computing a value the
    result depends on calls its rule and keeps the rule's pullback. Each `return` returns
    the result and a named pullback that calls those pullbacks in reverse order,
    accumulating each variable's cotangent in `<name>_bar`. A branch's pullback follows
    the branch that ran; a loop appends one record per iteration to a tape (the pullbacks
    of that iteration, and which exit it took when there are several), and the pullback
    walks the tape backwards.

    What it asks of the function is found first, by analyses: `Statements` (where each
    statement sits), `NeededCotangents` (which names need cotangents), `ReverseSteps`
    (what the reverse does at each statement), and, for a rule specialised for argument
    kinds, `InlinePlans` and `UniformCotangents`. Its parts: `tape.py` (a loop's records
    and the pullback's walk over them) and `InlinedDerivatives` (the derivatives written
    as arithmetic in place of rule calls, statement by statement as it emits).

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
            return (NO_TANGENT, x_bar, y_bar)
        return (out, f_pullback)
    """

    requires = (
        Activity,
        OperationRules,
        Statements,
        NeededCotangents,
        ReverseSteps,
        InlinePlans,
        UniformCotangents,
        GrownLists,
    )

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = self.prepare(tree, ctx)
        self.index = ctx.analysis(Statements, tree)
        self.needed = ctx.analysis(NeededCotangents, tree)
        self.steps = ctx.analysis(ReverseSteps, tree)
        self.grown = ctx.analysis(GrownLists, tree)  # appends done in place
        self.popping: set[str] = set()  # lists whose cotangents are `ElementStack`s here
        plans = ctx.analysis(InlinePlans, tree)
        self.cotangents = Cotangents(ctx, self.steps, self.active, plans.kinds, self._zero)
        self.inline = InlinedDerivatives(
            ctx,
            plans,
            ctx.analysis(UniformCotangents, tree),
            self.index,
            bind=self._bind,
            index_value=self._index_value,
            keep_once=self._keep_once,
            cotangents=self.cotangents,
        )
        self.pullbacks: dict[gast.stmt, str] = {}  # a rule call's -> the name of its pullback
        self.packages: dict[gast.If, str] = {}  # an `if` in a loop -> the record of its branch
        self.loops: dict[gast.stmt, Loop] = {}  # the loops that keep tapes
        self.falls: dict[int, bool] = {}  # `_falls_through`'s answers, by the block's id
        self.enclosing: list[Loop] = []
        self.segments: list[Path] = []  # the path to each enclosing loop, outermost first
        self.path: Path = []  # the path from the innermost loop's body (or the function's)
        self.branch_names: dict[int, list[str]] = {}  # what each branch's record holds
        self.deferred: list[tuple[gast.FunctionDef, gast.Return, Path]] = []
        body = self._forward_block(function.body)
        # A pullback is written once every exit of every loop is known.
        self.unrecorded: set[int] = set()  # appends of records no pullback reads
        for pullback, statement, path in self.deferred:
            self._write_pullback(pullback, statement, path)
        if self.unrecorded:
            remove(body, self.unrecorded)
        function.name = ctx.namer.fresh(naming.rrule(function.name))
        function.body = body
        function.decorator_list = []
        function.returns = None
        return True

    # -- what is differentiated (`analyses/needed_cotangents.py`, `reverse_index.py`) ------

    def _differentiated(self, statement: gast.stmt) -> bool:
        """Whether the reverse differentiates through `statement` (`ReverseIndex`)."""
        return self.steps.differentiated[statement]

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
        if statement in self.grown:
            return [self._append_in_place(statement)]
        if not self._differentiated(statement) or is_copy(statement):
            return [self._as_it_runs(statement)]
        assert isinstance(statement, gast.Assign)
        inlined = self.inline.forward(statement)
        if inlined is not None:
            return inlined
        rule = self.rules[statement]
        rule_name = self._bind_rule(rule)
        args, keywords = self._arguments(statement)
        if isinstance(statement.value, gast.Subscript):
            args[1] = self._index_value(args[1])
        names = self.index.targets[statement]
        pullback = self.ctx.namer.fresh(naming.pullback("_".join(names)))
        self.pullbacks[statement] = pullback
        self._keep(pullback)
        both = make(gast.Tuple, elts=[statement.targets[0], store(pullback)], ctx=STORE)
        return [syntax.located(assign(both, call(rule_name, args, keywords)), statement)]

    def _append_in_place(self, statement: gast.stmt) -> gast.stmt:
        """`items = append(items, v)` as the function wrote it, `items.append(v)`: nothing
        has read the list yet (`GrownLists`), so nothing keeps the list it changes."""
        assert isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Call)
        items, value = statement.value.args
        method = make(gast.Attribute, value=items, attr="append", ctx=LOAD)
        appended = make(gast.Call, func=method, args=[value], keywords=[])
        return syntax.located(make(gast.Expr, value=appended), statement)

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
            elif type(statement) in COMPOUND:
                self._define_nested_rules(statement.body)
                self._define_nested_rules(getattr(statement, "orelse", []))
            index += 1

    def _forward_if(self, statement: gast.If) -> list[gast.stmt]:
        loop = self.enclosing[-1] if self.enclosing else None
        if loop is None or not self.steps.has_content([statement]):
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
        returns = any(isinstance(s, gast.Return) for s in self.index.nested(statement.body))
        if not returns and not self.steps.has_content([statement]):
            self._define_nested_rules(statement.body)
            return [statement]
        loop = Loop(statement, self.ctx.namer.fresh(f"{self.function.name}_tape"))
        loop.exit_count = exit_count(statement, self.index, self._falls_through)
        loop.outermost = not self.enclosing
        self.loops[statement] = loop
        before: list[gast.stmt] = [assign(store(loop.tape), make(gast.List, elts=[], ctx=LOAD))]
        self._keep(loop.tape)
        iterable: gast.expr | None = getattr(statement, "iter", None)
        if statement in self.rules and self._differentiated(statement):
            assert isinstance(iterable, gast.Name)
            loop.items = self.ctx.namer.fresh(f"{iterable.id}_items")
            rule, kinds = self.rules[statement], self.inline.kinds
            if not (rule.primal is iterate and kinds and is_list(kinds.kinds.get(iterable.id))):
                loop.items_pullback = self.ctx.namer.fresh(naming.pullback(loop.items))
            taking = self._bind(iterate, "iterate") if loop.items_pullback is None else None
            before.append(items_taken(loop, taking or self._bind_rule(rule), iterable))
            for name in filter(None, (loop.items, loop.items_pullback)):
                self._keep(name)
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

    def _record_exit(self, loop: Loop) -> list[gast.stmt]:
        """Append the current iteration's record to the loop's tape."""
        return [record_exit(loop, self.path)]

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

    def _keep_once(self, name: str) -> None:
        if self.enclosing and name not in self.enclosing[-1].names:
            self._keep(name)

    # -- pullback ------------------------------------------------------------------------

    def _pullback(self, statement: gast.Return, path: Path) -> gast.FunctionDef:
        """The pullback of the function for one `return`, named now and written at the end."""
        result = statement.value
        seed = self.cotangents.bar(result.id) if isinstance(result, gast.Name) else None
        name = self.ctx.namer.fresh(naming.pullback(self.function.name))
        self.ctx.output.pullbacks.add(name)
        pullback = function_def(name, seed or self.ctx.namer.fresh("out_bar"))
        self.deferred.append((pullback, statement, path))
        return pullback

    def _write_pullback(
        self, pullback: gast.FunctionDef, statement: gast.Return, path: Path
    ) -> None:
        """The reverse of what ran before the `return`, as the pullback's body."""
        self.cotangents.start()
        result = statement.value
        body: list[gast.stmt] = []
        for name in self.inline.buffers:  # cotangents that indexing accumulates into, in place
            shape = make(gast.Attribute, value=load(name), attr="shape", ctx=LOAD)
            arguments = [shape]
            kinds = self.inline.kinds
            if kinds is not None and (kinds.kinds.get(name) or FLOAT)[0] != FLOAT[0]:
                # Of the array's own dtype (float64 is `zeros`' own): a float32 stays one.
                arguments.append(make(gast.Attribute, value=load(name), attr="dtype", ctx=LOAD))
            zeros = call(self._bind(np.zeros, "zeros"), arguments)
            body.append(assign(store(self.cotangents.bar(name)), zeros))
            self.cotangents.seen.add(name)
        entries = self.inline.entries  # items read by constant keys: each from zero
        body += [
            assign(store(v), self._zero(ZeroTangent)) for k in entries.values() for v in k.values()
        ]
        if isinstance(result, gast.Name) and result.id in self.needed.names:
            self.cotangents.seen.add(result.id)
        body += self._reverse_prefix(path)
        for name, keys in entries.items():  # then the parameter's cotangent, from them
            parts = make(
                gast.Dict,
                keys=[constant(k) for k in keys],
                values=[load(v) for v in keys.values()],
            )
            total = call(self._bind(entries_tangent, "entries_tangent"), [load(name), parts])
            self.cotangents.accumulate(name, total, body)
        body.append(
            make(gast.Return, value=make(gast.Tuple, elts=self._parameter_bars(), ctx=LOAD))
        )
        pullback.body = body
        # Nothing multiplied by a cotangent known zero (NaN where it meets an inf).
        fold_zero_cotangents(pullback, self.ctx.output.runtime)

    def _parameter_bars(self) -> list[gast.expr]:
        bars: list[gast.expr] = [self._zero(NoTangent)]
        cotangents = self.cotangents
        if self.ctx.request.captured:  # a nested function: its own cotangent holds what it read
            fields = [
                make(gast.keyword, arg=name, value=cotangents.seed(name))
                for name in self.ctx.request.captured
            ]
            function_type = load(self._bind(types.FunctionType, "FunctionType"))
            bars[0] = call(self._bind(Tangent, "Tangent"), [function_type], fields)
        for arg in [*self.function.args.posonlyargs, *self.function.args.args]:
            kind = self.ctx.request.kinds.get(arg.id)
            integer = is_integer(kind)  # (not a `Structure`)
            if arg.id not in self.ctx.request.wrt or integer:
                bars.append(self._zero(NoTangent))
            elif arg.id in cotangents.seen and arg.id in self.inline.uniform.names:
                # A uniform float: expanded to the parameter's shape.
                dx = load(cotangents.bar(arg.id))
                bars.append(call(self._bind(expand, "expand"), [dx, load(arg.id)]))
            else:
                bars.append(cotangents.seed(arg.id))
        star = self.function.args.vararg
        if star is not None:  # one cotangent per argument `*args` received
            bar = cotangents.seed(star.id)
            if star.id not in self.ctx.request.wrt:
                bar = self._zero(NoTangent)
            count = call(self._builtin(len), [load(star.id)])
            split = call(self._bind(elements_of, "elements_of"), [bar, count])
            bars.append(make(gast.Starred, value=split, ctx=LOAD))
        # Keyword-only parameters come last, where `wrt` names one (`grad`'s).
        keywords = self.function.args.kwonlyargs
        if any(a.id in self.ctx.request.wrt for a in keywords):
            bars += [cotangents.seed(a.id) if a.id in self.ctx.request.wrt
                     else self._zero(NoTangent) for a in keywords]  # fmt: skip
        return bars

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
        return reverse_regions(statements, self._reverse_run)  # `with` bodies: `contexts`

    def _reverse_run(self, statements: list[gast.stmt]) -> list[gast.stmt]:
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
            return self.cotangents.forget(self.index.targets[statement], statement)
        return []

    def _reverse_if(self, statement: gast.If) -> list[gast.stmt]:
        # Only a branch that falls through can have run before what follows the `if`.
        live = [
            s
            for block in (statement.body, statement.orelse)
            if self._falls_through(block)
            for s in block
        ]
        if not self.steps.has_content(live):
            return []
        out: list[gast.stmt] = []
        with self.cotangents.region(self.steps.touched(live, self.active), out):
            branches = []
            entry = set(self.cotangents.seen)
            for block in (statement.body, statement.orelse):
                self.cotangents.seen = set(entry)
                code: list[gast.stmt] = []
                if statement in self.packages and self.branch_names.get(id(block)):
                    kept = self.branch_names[id(block)]
                    code.append(assign(names_tuple(kept, STORE), load(self.packages[statement])))
                code += self._reverse_statements(block)
                branches.append(code if self._falls_through(block) else None)
        then, orelse = branches
        self.cotangents.seen = entry
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
        # Names whose cotangents live within one iteration's reverse, like straight-line
        # code: unless the reverse reads them after the loop too.
        local = self.steps.iteration_locals(statement) - self.cotangents.seen
        overwritten = self.steps.overwritten[statement]  # the loop's target, from constants
        target = statement.target.id if isinstance(statement, gast.For) else None
        # Each iteration's reverse also resets the cotangent of the loop's own target.
        own = [target] if target is not None and target in self.active else []
        touched = self.steps.touched(statement.body, self.active)
        runtime = [n for n in touched + own if n not in local]
        with self.cotangents.region(runtime, out):
            entry = set(self.cotangents.seen)
            stacks = self._stacks(statement, entry)
            self.popping |= stacks
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
                self.cotangents.seen = set(entry)
                if exit_.path:
                    code = self._reverse_prefix(exit_.path)
                else:
                    code = self._reverse_statements(statement.body)
                if items_bar is not None and index is not None and target is not None:
                    if (
                        target in self.cotangents.seen
                    ):  # the item's cotangent, for the iterable's pullback
                        element = make(
                            gast.Subscript, value=load(items_bar), slice=load(index), ctx=STORE
                        )
                        code.append(assign(element, load(self.cotangents.bar(target))))
                    code += self.cotangents.forget([target], statement)
                code += self.cotangents.forget(overwritten, statement)
                codes[number] = code
            self.popping -= stacks
            if (
                self.ctx.request.optimise
                and index is None
                and loop.outermost
                and len(self.deferred) == 1
            ):
                trimmed = trim_records(loop, codes, self.inline.recipes)
                unrecorded = [*trimmed, *self.inline.copied(loop.unread)]
                self.unrecorded.update(map(id, unrecorded))
                if not codes:  # no iteration's reverse does anything
                    return out
            if index is None and not any(codes.values()):
                return out  # nothing to undo (the records serve another pullback)
            self.cotangents.seen = entry
            for name in sorted(stacks):  # the element cotangents the walk pops, once
                bar = self.cotangents.bar(name)
                out.append(assign(store(bar), call(self._bind(element_stack, "element_stack"),
                                                   [load(bar)])))  # fmt: skip
            walk = read_back(loop, codes, record, index, self._builtin, self.ctx.output.restored)
            out.append(walk)
            if items_bar is not None:
                assert isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name)
                after: list[gast.stmt] = []
                part = self.cotangents.contribution(statement.iter.id, after)
                listed = loop.items_pullback or self._bind(list_cotangent, "list_cotangent")
                out += [items_cotangent(loop, items_bar, part, listed), *after]
        return out

    def _stacks(self, loop: gast.For | gast.While, seen: set[str]) -> set[str]:
        """The lists grown in place in `loop` (made before it) whose cotangents its reverse
        pops: their element cotangents are taken once, into an `ElementStack`, before the
        walk over the loop's records (not one an enclosing loop's reverse took already)."""
        start, end = self.index.span(loop)
        found = set()
        for statement in self.grown:
            assert isinstance(statement, gast.Assign)
            name = statement.targets[0].id
            if name in self.popping or name not in seen:
                continue
            made = [s for s in self.index.defining[name] if s not in self.grown]
            inside = start < self.index.position(statement) <= end
            if inside and all(not start < self.index.position(s) <= end for s in made):
                found.add(name)
        return found

    def _reverse_assign(self, statement: gast.Assign) -> list[gast.stmt]:
        if statement in self.inline.inlined:
            return self.inline.reverse(statement)
        defined = self.index.targets[statement]
        if is_unpacking(statement):
            seed: gast.expr = make(
                gast.Tuple, elts=[self.cotangents.seed(n) for n in defined], ctx=LOAD
            )
        else:
            seed = self.cotangents.seed(defined[0])
        self.cotangents.seen.difference_update(defined)
        after: list[gast.stmt] = []
        if is_copy(statement):
            assert isinstance(statement.value, gast.Name)
            source = statement.value.id
            if source in self.cotangents.seen:
                total = load(self.cotangents.bar(source))
                code: list[gast.stmt] = [
                    assign(
                        store(self.cotangents.bar(source)),
                        make(gast.BinOp, left=total, op=ADD, right=seed),
                    )
                ]
            else:
                self.cotangents.seen.add(source)
                code = [assign(store(self.cotangents.bar(source)), seed)]
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
                    self.cotangents.accumulate(name, field, after)
            for arg in args:
                if id(arg) in differentiable and isinstance(arg, gast.Name):
                    outputs.append(self.cotangents.contribution(arg.id, after))
                else:
                    outputs.append(store("_"))
            if all(isinstance(o, gast.Name) and o.id == "_" for o in outputs):
                # Nothing it gives is differentiated (an array indexed with an index that
                # depends on the inputs): pullbacks do nothing else, so it is not called.
                code = []
            elif statement in self.grown and defined[0] in self.popping:
                # The cotangent of `v`, popped off the element cotangents of the list: what
                # is left is that of the list before the append.
                self.cotangents.seen.add(defined[0])
                pop = make(gast.Attribute, value=seed, attr="pop", ctx=LOAD)
                popped = make(gast.Call, func=pop, args=[], keywords=[])
                value_bar = outputs[2]
                code = [
                    make(gast.Expr, value=popped)
                    if isinstance(value_bar, gast.Name) and value_bar.id == "_"
                    else assign(value_bar, popped)
                ]
            elif statement in self.grown:  # the cotangent of the list before, and of `v`
                popped = make(gast.Tuple, elts=outputs[1:], ctx=STORE)
                code = [assign(popped, call(self._bind(pop_element, "pop_element"), [seed]))]
            else:
                pullback = self.pullbacks[statement]
                code = [assign(make(gast.Tuple, elts=outputs, ctx=STORE), call(pullback, [seed]))]
        code += after
        return code + self.cotangents.restart(defined, statement)

    def _location_comment(self, statement: gast.stmt) -> gast.stmt:
        source = self.ctx.source
        text = source.line(statement.lineno).strip()
        where = f"{os.path.basename(source.filename)}:{statement.lineno}"
        return syntax.comment(f"{where}  {text}" if text else where)


def _names_read(test: gast.expr) -> list[str]:
    """The names a branch test reads, each once, in order."""
    found = (n.id for n in syntax.walk(test) if isinstance(n, gast.Name))
    return list(dict.fromkeys(found))

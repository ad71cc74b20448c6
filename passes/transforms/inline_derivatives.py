"""InlinedDerivatives: the kind-specialised inlining of ReverseAD, a part it calls.

Where `InlinePlans` planned an assignment's derivative, or the assignment indexes a float
array with ints and slices (`inlining.index_adjoint`) or with integer arrays
(`inlining.repeated_index_adjoint`), the rule writes the operation as
the function does and the pullback writes each operand's cotangent as arithmetic on the
seed, instead of calling the operation's rule and its pullback.

This is not a pipeline step of its own, though it is a transform in what it does: a step
before ReverseAD would find no forward sweep or pullback to write into, and a step after
it would find the rule calls already emitted, the fresh names already numbered and the
tapes already laid out. The inlined statements interleave with the rest: the forward
sweep keeps the values a derivative reads on the loop's tape while it lays that tape out,
in source order; the pullback adds each cotangent into the same `_bar` names, in the same
regions, as the derivatives around it. So ReverseAD calls it at each statement, through a
narrow interface: `forward` at an assignment in the forward sweep, `reverse` at its place
in the pullback, and the callbacks it is made with for the tape and the cotangents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gast

from srcad import syntax
from srcad.kinds import Kind, Structure, is_numeric, is_real, is_real_scalar
from srcad.passes.analyses.inline_plans import Plans
from srcad.passes.analyses.statement_index import StatementIndex
from srcad.passes.analyses.uniform_cotangents import Uniform
from srcad.passes.base import Context
from srcad.passes.inlining import Plan, index_adjoint, repeated_index_adjoint
from srcad.passes.normal_form import constant_int
from srcad.passes.rule_calls import call, constant
from srcad.passes.transforms.cotangents import Cotangents
from srcad.passes.transforms.tape import Recipe
from srcad.projection import add_at, add_at_repeated, scatter, scatter_add
from srcad.syntax import ADD, STORE, load, make, store

_JUMPS = (gast.Break, gast.Continue, gast.Return)
_RECOMPUTED = (gast.Add, gast.Sub, gast.Mult, gast.Div)  # operators a pullback may run again


class InlinedDerivatives:
    """Inline the planned derivatives of one function as ReverseAD emits its rule.

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x):
    ...     y = np.sin(x)
    ...     return y
    ... ''', kinds="float[:]"), end="")
    def rrule_f(x):
        y = np.sin(x)
    <BLANKLINE>
        def f_pullback(y_bar):
            # <doctest>:3  y = np.sin(x)
            x_bar = y_bar * cos(x)
            return (NO_TANGENT, x_bar)
        return (y, f_pullback)

    The callbacks are ReverseAD's: `bind` (a runtime name for a value), `index_value`
    (index syntax as the value `__getitem__` takes) and `keep_once` (keep a name's value
    on the current iteration's tape); `cotangents` are the variables the pullback adds
    each cotangent into.
    """

    def __init__(
        self,
        ctx: Context,
        plans: Plans,
        uniform: Uniform,
        index: StatementIndex,
        *,
        bind: Callable[[Any, str], str],
        index_value: Callable[[gast.expr], gast.expr],
        keep_once: Callable[[str], None],
        cotangents: Cotangents,
    ) -> None:
        self.ctx = ctx
        self.kinds = plans.kinds  # None: nothing is inlined
        self.plans = plans.plans
        self.uniform = uniform
        self.index = index
        self.returned = {r.value.id for r in index.returns if isinstance(r.value, gast.Name)}
        self.bind, self.index_value, self.keep_once = bind, index_value, keep_once
        self.cotangents = cotangents
        self.buffers: list[str] = []  # parameters whose cotangents indexing accumulates into
        self.repeated: set[gast.stmt] = set()  # indexing by integer arrays: `np.add.at`
        # Parameters of a structure of tuples, lists and dicts whose items the code reads
        # by constant keys (`p["w"]`): per key, the variable its cotangent adds into, which
        # ReverseAD makes the parameter's cotangent at the end (`entries_tangent`).
        self.entries: dict[str, dict[Any, str]] = {}
        self.entry_reads: dict[gast.stmt, tuple[str, Any]] = {}
        # Per inlined statement: the expressions under which the pullback reads each
        # value (by role), and its plan (None for indexing).
        self.inlined: dict[gast.stmt, tuple[dict[str, gast.expr], Plan | None]] = {}
        # Per name, the copies made of it before a statement: (the statement's position, copy).
        self.copies: dict[str, list[tuple[int, str]]] = {}
        self.copy_statements: dict[str, gast.stmt] = {}  # each copy's, by its name
        # The calls the primal makes that a derivative's template makes again (`cos(E)` in
        # `sin(E)`'s), each keyed by `(id(function), the name its argument is read by)`:
        # those of inlined statements (position, key, target), the templates' wanting one
        # (position, statement, key), and per statement the names its pullback reads
        # such values by instead of calling the function (see `_share_calls`).
        self.calls: list[tuple[int, tuple[int, str], str]] = []
        self.wanted: list[tuple[int, gast.stmt, tuple[int, str]]] = []
        self.reused: dict[gast.stmt, dict[tuple[int, str], str]] = {}
        self.recipes: dict[str, Recipe] = {}  # see `_recipe`

    def forward(self, statement: gast.Assign) -> list[gast.stmt] | None:
        """The statement itself, keeping the values its inlined derivative reads; None
        when its derivative is not inlined."""
        if self.kinds is None or not isinstance(statement.targets[0], gast.Name):
            return None
        target = statement.targets[0].id
        value = statement.value
        reads: dict[str, str]
        write: Plan | None
        if isinstance(value, gast.Subscript) and self._entry(statement, value):
            self.inlined[statement] = ({}, None)
            return [statement]
        if isinstance(value, gast.Subscript):
            index = index_adjoint(value, self.kinds.of)
            if index is None:  # integer arrays, which may repeat an element
                index = repeated_index_adjoint(value, self.kinds.of)
                if index is not None:
                    self.repeated.add(statement)
            if index is None or not isinstance(value.value, gast.Name):
                return None
            base = value.value.id
            reads = {f"index {name}": name for name in index}
            if self.index.is_parameter(base) and base not in self.returned:
                if base not in self.buffers:
                    self.buffers.append(base)
            else:
                reads["a"] = base
            write = None
        else:
            plan = self.plans.get(statement)
            if plan is None:
                return None
            if target in self.uniform.names and plan.elementwise:
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
        else:
            self._share_calls(statement, write, saved, before, after)
            self._recipe(statement, saved)
        self.inlined[statement] = (saved, write)
        return [*before, statement, *after]

    def _share_calls(self, statement: gast.Assign, plan: Plan, saved: dict[str, gast.expr],
                     before: list[gast.stmt], after: list[gast.stmt]) -> None:  # fmt: skip
        """Where the derivative of one statement calls a function of a float that another
        statement of the primal calls on the same value (`sin_E = math.sin(E)` and `cos_E =
        math.cos(E)`, whose derivatives are `cos(E)` and `-sin(E)`), its pullback reads the
        primal's value of the call instead of calling the function again: the same pure
        function of the same float, so the same float.

        The two statements are in one block (the same loop around, the same branch of
        every `if`), so they run in the same passes through it. The argument is read by
        the same name, which holds the same value at both (`_saved`: a copy made once
        before them, a name kept on the tape that nothing binds after them in the loop,
        or one assigned once outside loops). Where the value is computed first, nothing
        binds its name between; where it is computed after the derivative's statement, no
        `break`, `continue` or `return` comes between, so every pass through the one runs
        the other, and the value is kept after it is computed (`_saved`)."""
        kinds = self.kinds
        assert kinds is not None
        k = self.index.position(statement)
        target = statement.targets[0]
        assert isinstance(target, gast.Name)
        arguments = [
            saved[role].id
            for role, name in plan.reads.items()
            if role != "y" and is_real_scalar(kinds.of(load(name)))
        ]
        for function in plan.functions.values():
            for argument in arguments:
                key = (id(function), argument)
                earlier = next((c for c in reversed(self.calls) if c[1] == key), None)
                if earlier is not None and self._shared(earlier[0], k, earlier[2]):
                    value = self._saved(earlier[2], statement, False, before)
                    self.reused.setdefault(statement, {})[key] = value
                else:
                    self.wanted.append((k, statement, key))
        value = statement.value
        if not (
            isinstance(value, gast.Call)
            and plan.primal is not None
            and len(value.args) == 1
            and isinstance(value.args[0], gast.Name)
            and not value.keywords
            and "a" in saved
            and is_real_scalar(kinds.of(target))
        ):
            return
        key = (id(plan.primal), saved["a"].id)
        self.calls.append((k, key, target.id))
        waiting = [w for w in self.wanted if w[2] == key and self._shared(w[0], k, None)]
        if waiting:
            kept = self._saved(target.id, statement, True, after)
            for _, reader, _ in waiting:
                self.reused.setdefault(reader, {})[key] = kept
            self.wanted = [w for w in self.wanted if w not in waiting]

    def _recipe(self, statement: gast.Assign, saved: dict[str, gast.expr]) -> None:
        """Where the statement is arithmetic on numbers in a loop, `t = a / x`, which runs
        in every pass through the loop's body (not in a branch, nor in a loop inside) and
        is the only one assigning `t`, the expression that computes `t`'s value again
        from the names the pullback reads the operands by (`a / x_2`), with those names
        it reads that a pass through the loop may change (`x_2`): its pullback may compute
        `t` again rather than keep it on the tape (`tape.trim_records`). An operand read
        by no such name must be a constant, or a name assigned once outside loops."""
        index, kinds = self.index, self.kinds
        assert kinds is not None and isinstance(statement.targets[0], gast.Name)
        value, target = statement.value, statement.targets[0].id
        loop = index.loop_around[id(statement)]
        k = index.position(statement)
        if (
            loop is None
            or not isinstance(value, gast.BinOp)
            or not isinstance(value.op, _RECOMPUTED)
            or index.definitions.get(target) != [(k, loop)]
            or index.branches[k] != index.branches[index.position(loop)]
            or not is_real_scalar(kinds.of(statement.targets[0]))
        ):
            return
        operands: list[gast.expr] = []
        read: list[str] = []
        for role, operand in (("a", value.left), ("b", value.right)):
            if isinstance(operand, gast.Constant):
                operands.append(syntax.copy_tree(operand))
                continue
            if not isinstance(operand, gast.Name) or not _number(kinds.of(operand)):
                return
            kept = saved.get(role)
            if kept is not None:
                assert isinstance(kept, gast.Name)
                read.append(kept.id)
                operands.append(load(kept.id))
                continue
            definitions = index.definitions.get(operand.id, [])
            if len(definitions) != 1 or definitions[0][1] is not None:
                return
            operands.append(load(operand.id))
        expression = make(gast.BinOp, left=operands[0], op=make(type(value.op)), right=operands[1])
        self.recipes[target] = (expression, read)

    def _shared(self, first: int, second: int, bound: str | None) -> bool:
        """Whether the statements at positions `first` < `second` run in the same passes
        through one block: every pass that runs the second ran the first, and (`bound`
        None) every pass that runs the first runs the second, no jump between; or (a
        name) nothing binds `bound` between them."""
        index = self.index
        one, other = index.statements[first], index.statements[second]
        if index.loop_around[id(one)] is not index.loop_around[id(other)]:
            return False
        if index.branches[first] != index.branches[second]:
            return False
        if bound is not None:
            return not any(first < d < second for d, _ in index.definitions.get(bound, []))
        between = index.statements[first + 1 : second]
        return not any(isinstance(s, _JUMPS) for s in between)

    def _entry(self, statement: gast.Assign, value: gast.Subscript) -> bool:
        """Whether `statement` reads an item (a float, a float array, or a structure of
        tuples, lists and dicts) by a constant key from a parameter of such a structure
        (`w = params["w"]`, `W, b = layers[-1]`),
        which nothing assigns and the function does not return; if so, the variable its
        cotangent adds into is made (see `entries`)."""
        assert self.kinds is not None
        base, index = value.value, value.slice
        key = index.value if isinstance(index, gast.Constant) else constant_int(index)
        if not isinstance(base, gast.Name) or key is None:
            return False
        name = base.id
        if not self.index.is_parameter(name) or name in self.returned:
            return False
        structure = self.kinds.structure(base)
        if structure is None or structure.container not in (tuple, list, dict):
            return False
        if structure.container is dict:
            if key not in structure.keys:
                return False
        elif type(key) is not int or not -len(structure.items) <= key < len(structure.items):
            return False
        else:
            key %= len(structure.items)
        item = self.kinds.structure(value)  # an item that is a container in its turn
        if not is_real(self.kinds.of(value)) and (item is None or not _plain(item)):
            return False
        keys = self.entries.setdefault(name, {})
        if key not in keys:
            # `params_bar_w`, `layers_bar_at_3` (not `layers_bar_3`, a second `layers_bar`)
            label = f"at_{key}" if isinstance(key, int) else key
            readable = str(label).isidentifier()
            keys[key] = self.ctx.namer.fresh(f"{name}_bar_{label}" if readable else f"{name}_bar")
        self.entry_reads[statement] = (name, key)
        return True

    def _saved(self, name: str, statement: gast.stmt, is_result: bool,
               out: list[gast.stmt]) -> str:  # fmt: skip
        """The name under which the pullback reads `name`'s value at `statement` (before
        it, or after it for its result): the name itself when nothing assigns it again
        before the pullback reads it, else a copy; kept on the loop's tape in a loop."""
        index = self.index
        definitions = index.definitions.get(name, [])
        loop = index.loop_around[id(statement)]
        if len(definitions) == 1 and definitions[0][1] is None:
            return name  # assigned once, outside loops: the closure reads it as it is
        if self._invariant(name):
            return name  # the same value in every pass through its loop, and after it
        k = index.position(statement)
        if loop is not None:
            start, end = index.span(loop)
            if all(start <= d <= end and (d < k or (is_result and d == k)) for d, _ in definitions):
                self.keep_once(name)  # each iteration's value, on the tape
                return name
        if not is_result:
            earlier = self._copy_before(name, k)
            if earlier is not None:
                return earlier
        copy = self.ctx.namer.fresh(name)
        out.append(_assign(copy, name))
        self.copy_statements[copy] = out[-1]
        if loop is not None:
            self.keep_once(copy)
        if not is_result:
            self.copies.setdefault(name, []).append((k, copy))
        return copy

    def _invariant(self, name: str) -> bool:
        """Whether `name` is a float assigned once, in a loop, by arithmetic on constants
        and names assigned once outside loops (`g / l`): each pass through the loop gives
        it the same value, which it still holds when the pullback runs (no tape needed)."""
        definitions = self.index.definitions.get(name, [])
        if len(definitions) != 1 or definitions[0][1] is None:
            return False
        (statement,) = self.index.defining[name]
        assert self.kinds is not None
        if not isinstance(statement, gast.Assign) or not is_real_scalar(self.kinds.of(load(name))):
            return False
        for node in syntax.walk(statement.value):
            if isinstance(node, gast.Name):
                found = self.index.definitions.get(node.id, [])
                if len(found) != 1 or found[0][1] is not None:
                    return False
            elif not isinstance(node, gast.BinOp | gast.UnaryOp | gast.Constant):
                return False
        return True

    def copied(self, names: list[str]) -> list[gast.stmt]:
        """The statements making the copies among `names` (a loop's values that no
        reverse reads, `tape.trim_records`: the copies have no other reader)."""
        return [self.copy_statements[n] for n in names if n in self.copy_statements]

    def _copy_before(self, name: str, k: int) -> str | None:
        """A copy of `name` made before an earlier statement of the same block (the same
        loop, the same branch of every `if`) that no assignment of `name` since has made
        stale: it holds the value the statement at `k` reads (`x * x * x` keeps one `x`)."""
        index = self.index
        for start, copy in reversed(self.copies.get(name, [])):
            same_block = (
                index.loop_around[id(index.statements[start])]
                is index.loop_around[id(index.statements[k])]
                and index.branches[start] == index.branches[k]
            )
            stale = any(start <= d < k for d, _ in index.definitions.get(name, []))
            if same_block and not stale:
                return copy
        return None

    def reverse(self, statement: gast.Assign) -> list[gast.stmt]:
        """The inlined derivative: each operand's cotangent as arithmetic on the seed."""
        cotangents = self.cotangents
        seen = cotangents.seen  # the names whose cotangent variables are bound here
        assert isinstance(statement.targets[0], gast.Name)
        target = statement.targets[0].id
        saved, write = self.inlined[statement]
        code: list[gast.stmt] = []
        if target not in seen:  # a symbolic zero: nothing to pass on
            return cotangents.restart([target], statement)
        seed = load(cotangents.bar(target))
        seen.discard(target)
        if statement in self.entry_reads:  # an item of a parameter: into its key's variable
            base, key = self.entry_reads[statement]
            total = self.entries[base][key]
            added = make(gast.BinOp, left=load(total), op=ADD, right=seed)
            return [_assign_value(total, added), *cotangents.restart([target], statement)]
        if write is None:  # indexing: into the buffer, or a fresh array
            value = statement.value
            assert isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
            base = value.value.id
            index = _substituted(saved["index"], saved)
            kinds = self.kinds
            repeated = statement in self.repeated
            if repeated:
                adds, scatters = (add_at_repeated, "add_at_repeated"), (scatter_add, "scatter_add")
            else:
                adds, scatters = (add_at, "add_at"), (scatter, "scatter")
            if (
                base in self.buffers
                and not repeated
                and kinds is not None
                and is_real_scalar(kinds.of(value))
            ):
                # One element: `+=` on a float, which takes a symbolic zero too.
                element = make(
                    gast.Subscript, value=load(cotangents.bar(base)), slice=index, ctx=STORE
                )
                code.append(make(gast.AugAssign, target=element, op=ADD, value=seed))
            elif base in self.buffers:
                place = self.index_value(index)
                added = call(self.bind(*adds), [load(cotangents.bar(base)), place, seed])
                code.append(make(gast.Expr, value=added))
            else:
                place = self.index_value(index)
                scattered = call(self.bind(*scatters), [saved["a"], place, seed])
                cotangents.accumulate(base, scattered, code)
            return code + cotangents.restart([target], statement)
        names = dict(saved)
        for role, arg in zip(("a", "b"), write.operands, strict=False):  # the rule's arguments
            names.setdefault(role, arg)
        names["y_bar"] = seed
        totals: dict[str, gast.expr] = {}
        uniform = statement in self.uniform.reductions or (
            target in self.uniform.names and write.elementwise
        )
        reused = self.reused.get(statement, {})
        for name, cotangent in write.write(names, self.bind, uniform):
            if reused:
                cotangent = self._calls_reused(cotangent, reused, write)
            previous = totals.get(name)
            if previous is None:
                totals[name] = cotangent
            elif _same_product(previous, cotangent):  # `x * x`'s: `2 * (y_bar * x)`
                totals[name] = make(
                    gast.BinOp, left=constant(2), op=make(gast.Mult), right=previous
                )
            else:
                totals[name] = make(gast.BinOp, left=previous, op=ADD, right=cotangent)
        # The result's own name last: its cotangent is the seed the others read.
        last = [target] if target in totals else []
        for name in [*(n for n in totals if n != target), *last]:
            cotangent = totals[name]
            if name == target and isinstance(cotangent, gast.Name) and name not in seen:
                seen.add(name)  # `x_bar = x_bar`: the cotangent passes straight through
                continue
            cotangents.accumulate(name, cotangent, code)
        return code + cotangents.restart([target], statement)

    def _calls_reused(self, node: gast.expr, reused: dict[tuple[int, str], str],
                      plan: Plan) -> gast.expr:  # fmt: skip
        """`node` with each call `f(a)` of one of the template's functions that the primal
        also made on the same value (`reused`, see `_share_calls`) read by the name that
        holds the primal's value."""
        runtime = self.ctx.output.runtime
        named = ((runtime.name_of(f), f) for f in plan.functions.values())
        functions = {name: id(f) for name, f in named if name is not None}
        rewritten: gast.expr = _CallsReused(functions, reused).visit(node)
        return rewritten


class _CallsReused(syntax.Rewriter):
    """A call `f(a)` of one of `functions` (by the name emitted code calls it by) of a
    name, whose value `reused` names, read by that name."""

    def __init__(self, functions: dict[str, int], reused: dict[tuple[int, str], str]) -> None:
        self.functions, self.reused = functions, reused

    def visit_Call(self, node: gast.Call) -> gast.expr:  # noqa: N802
        self.generic_visit(node)
        if (
            isinstance(node.func, gast.Name)
            and node.func.id in self.functions
            and len(node.args) == 1
            and isinstance(node.args[0], gast.Name)
            and not node.keywords
        ):
            found = self.reused.get((self.functions[node.func.id], node.args[0].id))
            if found is not None:
                return load(found)
        return node


def _same_product(one: gast.expr, other: gast.expr) -> bool:
    """Whether two cotangents are the same product, its factors in either order (those
    of `x * x`'s operands): their sum is twice either, exactly (a product of floats
    does not depend on the order of its factors, and doubling is exact)."""
    if not all(isinstance(p, gast.BinOp) and isinstance(p.op, gast.Mult) for p in (one, other)):
        return False
    assert isinstance(one, gast.BinOp) and isinstance(other, gast.BinOp)
    factors = sorted([gast.dump(one.left), gast.dump(one.right)])
    return factors == sorted([gast.dump(other.left), gast.dump(other.right)])


def _number(kind: Kind | None) -> bool:
    """Whether values of this kind are real floats or ints of no dimensions."""
    return kind is not None and kind[1] == 0 and is_numeric(kind)


def _plain(structure: Structure) -> bool:
    """Whether a structure is made of tuples, lists and dicts alone, all the way down."""
    if structure.container not in (tuple, list, dict):
        return False
    return all(_plain(i) for i in structure.items if isinstance(i, Structure))


def _assign_value(target: str, value: gast.expr) -> gast.Assign:
    return make(gast.Assign, targets=[store(target)], value=value, type_comment=None)


def _assign(target: str, source: str) -> gast.Assign:
    return make(gast.Assign, targets=[store(target)], value=load(source), type_comment=None)


def _substituted(expression: gast.expr, saved: dict[str, gast.expr]) -> gast.expr:
    """A copy of an index reading each name where the pullback keeps its value."""
    fresh = syntax.copy_tree(expression)
    for node in syntax.walk(fresh):
        if isinstance(node, gast.Name) and f"index {node.id}" in saved:
            node.id = saved[f"index {node.id}"].id
    return fresh

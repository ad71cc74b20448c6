"""ForwardAD: turn a normal-form function into its frule, carrying a tangent beside each value."""

from __future__ import annotations

import operator
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.kinds import (
    FLOAT,
    PYTHON_FLOAT,
    Kind,
    is_complex,
    is_inexact,
    is_int_scalar,
    is_integer,
    is_numeric,
    is_real,
)
from srcad.passes import naming
from srcad.passes.analyses.activity import Activity, target_names
from srcad.passes.analyses.grown_lists import GrownLists
from srcad.passes.analyses.operation_rules import OperationRules
from srcad.passes.analyses.statement_index import Statements
from srcad.passes.analyses.value_kinds import ValueKinds, subscript
from srcad.passes.base import Context, Transform
from srcad.passes.inlining import adjoint_of, names_in, template
from srcad.passes.normal_form import is_copy, is_unpacking
from srcad.passes.rule_calls import RuleCalls, call
from srcad.passes.transforms import loop_invariants as loops
from srcad.passes.transforms.common_values import values_reused
from srcad.passes.transforms.directions import for_directions
from srcad.passes.transforms.doubled_products import products_doubled
from srcad.passes.transforms.float_items import items_read
from srcad.passes.transforms.float_tangents import float_tangents
from srcad.passes.transforms.forward_tidy import (
    negations_folded,
    overwritten_zeros_dropped,
    unread_dropped,
    without_negation,
)
from srcad.passes.transforms.invariants import invariants_hoisted
from srcad.passes.transforms.nesting import nest_temporaries
from srcad.passes.transforms.primal_calls import PrimalCallsReused
from srcad.passes.transforms.repeated_reads import repeated_reads_named
from srcad.primitives import make_list, make_tuple
from srcad.projection import expand
from srcad.registry import Origin
from srcad.syntax import load, store
from srcad.tangents import (
    NoTangent,
    ZeroTangent,
    elements_of,
    float64_number,
    float_items,
    real_float,
)

# The names emitted code reads the zero tangents by.
_ZERO_NAMES = {ZeroTangent: "ZERO", NoTangent: "NO_TANGENT"}
# The kinds of a number whose zero tangent may be the float 0.0: a Python float, or a
# float64 (a Python float or a NumPy float64).
_NUMBERS = (PYTHON_FLOAT, FLOAT)


# The rules a forward rule may call and still take tangents with a trailing axis of
# directions (`ForwardAD.batches`): they collect their tangents as they are given them
# (`np.array` of a list stacks them, and fails on a mix of shapes).
_COLLECTING = (make_list, make_tuple, np.array)


def _empty_display(statement: gast.stmt) -> bool:
    """Whether `statement` is `name = []`."""
    value = getattr(statement, "value", None)
    return isinstance(statement, gast.Assign) and isinstance(value, gast.List) and not value.elts


def _appending(items: gast.expr, value: gast.expr) -> gast.Expr:
    """`items.append(value)`."""
    method = gast.Attribute(value=items, attr="append", ctx=gast.Load())
    return gast.Expr(value=gast.Call(func=method, args=[value], keywords=[]))


def _sliced(name: str, lower: gast.expr | None, upper: gast.expr | None) -> gast.Subscript:
    """`name[lower:upper]`."""
    part = gast.Slice(lower=lower, upper=upper, step=None)
    return gast.Subscript(value=load(name), slice=part, ctx=gast.Load())


def assign(target: gast.expr, value: gast.expr) -> gast.Assign:
    return gast.Assign(targets=[target], value=value, type_comment=None)


class ForwardAD(RuleCalls, Transform):
    """Replace the function by its forward rule `frule_f((f_dot, *arg_dots), *args)`.

    The function runs as written; each statement computing a value that depends on the
    arguments calls its forward rule instead, which gives the value and its tangent
    `<name>_dot`. Branches and loops are the function's own: forward mode needs no tape.

    >>> from srcad.passes.testing import show_forward
    >>> print(show_forward('''
    ... def f(x, y):
    ...     return np.sin(x) * y
    ... '''), end="")
    def frule_f(dargs, x, y):
        _, x_dot, y_dot = dargs
        sin_x, sin_x_dot = sin_frule((NO_TANGENT, x_dot), x)
        out, out_dot = mul_frule((NO_TANGENT, sin_x_dot, y_dot), sin_x, y)
        return (out, out_dot)
    """

    requires = (Activity, OperationRules, GrownLists, Statements)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = self.prepare(tree, ctx)
        self.dots: dict[str, str] = dict(ctx.request.captured_dots)
        self.primals = {dot: name for name, dot in self.dots.items()}  # by tangent's name
        # The names' kinds, where the rule is specialised for its arguments' and optimised:
        # tangents of numbers are then written as arithmetic (`_inlined`).
        specialised = ctx.request.kinds and ctx.request.optimise
        self.kinds = ctx.analysis(ValueKinds, tree) if specialised else None
        self.grown = self._grown_in_place(tree) if specialised else set()
        # Whether every tangent is computed by arithmetic with numbers (no arrays), by an
        # element of a vector, or by a rule of `_COLLECTING`: then a tangent may carry a
        # trailing axis of directions, several pushed forward in one call (each operation
        # broadcasts over it: `x_dot * cos(x)` of a float `x`, `v_dot[i]` of a vector `v`),
        # which `jacobian(f, mode="forward")` does (`Output.batches`).
        self.batches = self.kinds is not None and not ctx.request.captured_dots
        # A differentiated parameter known to be a float, whose tangent tells whether
        # tangents are given as floats (`_zeros_for`).
        self._float_parameter = next(
            (p for p in ctx.request.wrt if self.kinds and ctx.request.kinds.get(p) in _NUMBERS),
            None,
        )
        # The tangents written as arithmetic on names (`_inlined`, `_indexed`): computing
        # one changes nothing else, so one that nothing reads is left out
        # (`forward_tidy.unread_dropped`).
        self.arithmetic: set[gast.stmt] = set()
        # The functions the tangents written as arithmetic call, by the names they are
        # bound to (`cos` in `sin`'s `x_dot * cos(x)`): pure functions of numbers.
        self.pure: dict[str, Any] = {}
        # The functions of one number whose calls the primal makes and whose tangents are
        # written as arithmetic (`math.sin` of a float): pure, their values numbers.
        self.primal_pure: list[Any] = []
        self.pairs: set[str] = set()  # the tangents of an unpacked value, before they are split
        # The active names whose tangent is a known zero where the statement being written
        # runs: each bound, in the function's straight-line code before its first compound
        # statement, to a value that does not vary (`p = 0.0` before a loop `Unroll` wrote
        # out: `p_dot * x + p * x_dot` is written `p * x_dot` in its first step). A
        # symbolic zero is not multiplied by a partial (`0.0 * inf` is NaN), as in
        # reverse mode; the zero is still bound, for whatever reads it otherwise.
        self.zero_now: set[str] = set()
        self._new_zeros: set[str] = set()  # the names the statement being written binds so
        self._depth = 0  # how many blocks deep the statement being written is
        self._zeros: set[gast.stmt] = set()  # the zeros bound, left out where none is read
        self.collecting: set[str] = set()  # the names `_COLLECTING`'s rules are called by
        dargs = ctx.namer.fresh("dargs")
        args = function.args
        parameters = [a.id for a in [*args.posonlyargs, *args.args]]
        if args.vararg is None and any(a.id in ctx.request.wrt for a in args.kwonlyargs):
            # A nested function's keyword-only parameters: their tangents come after the
            # positional ones' (`scopes.parameters_of`).
            parameters += [a.id for a in args.kwonlyargs]
        targets = [store("_")] + [store(self._dot(p)) for p in parameters]
        header = [assign(gast.Tuple(elts=targets, ctx=gast.Store()), load(dargs))]
        if args.vararg is not None:
            # `*args`'s tangents are the rest, sliced rather than star-unpacked, so that
            # reverse mode can differentiate this rule in its turn (second derivatives).
            count = gast.Constant(value=len(targets), kind=None)
            header = [
                assign(header[0].targets[0], _sliced(dargs, None, count)),
                assign(store(self._dot(args.vararg.id)), _sliced(dargs, count, None)),
            ]
        body = [*header, *self._block(function.body)]
        function.args = gast.arguments(
            args=[
                gast.Name(id=dargs, ctx=gast.Param(), annotation=None, type_comment=None),
                *args.args,
            ],
            posonlyargs=args.posonlyargs,
            vararg=args.vararg,
            kwonlyargs=args.kwonlyargs,
            kw_defaults=args.kw_defaults,
            kwarg=args.kwarg,
            defaults=args.defaults,
        )
        if args.posonlyargs:  # `dargs` comes first, so it is positional-only too
            function.args.posonlyargs = [function.args.args[0], *args.posonlyargs]
            function.args.args = function.args.args[1:]
        function.name = ctx.namer.fresh(naming.frule(function.name))
        function.body = body
        if self.arithmetic:
            reused = PrimalCallsReused(self.arithmetic, self.pure, self.callees, self.primal_pure)
            reused.block(function.body)
            if self.kinds is not None:
                products_doubled(function, self._number, self.arithmetic)
            unread_dropped(function, self.arithmetic | self._zeros)
        overwritten_zeros_dropped(function, self._zeros)
        if self.kinds is not None:
            kinds, dots, batches, dotted = self.kinds.kinds, self.dots, self.batches, self.primals
            values_reused(function, lambda n: self._number(n) and not (batches and n in dotted))
            bound = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
            invariants_hoisted(function, lambda name: kinds.get(name) in _NUMBERS,
                               lambda name: dots.get(name) in bound)  # fmt: skip
            nest_temporaries(function, self._number)
            for node in syntax.walk(function):
                if isinstance(node, gast.Assign) and node in self.arithmetic:
                    node.value = negations_folded(node.value)
        ctx.output.batches = self.batches
        count = ctx.request.directions
        several = False  # whether the rule is written for several directions
        if count and self.batches and args.vararg is None:
            tangents = {*self.primals, *self.pairs}
            if for_directions(function, tangents, count):
                ctx.output.directions = count
                several = True
                self._float_tangents(function, {f"{t}_{i}" for t in tangents for i in range(count)})
        if self.kinds is not None and not several:
            self._float_items(function)
        if self.kinds is not None:
            self._read_once(function, several)
        function.decorator_list = []
        function.returns = None
        for node in syntax.walk(function):
            if isinstance(node, gast.stmt | gast.expr) and not hasattr(node, "lineno"):
                syntax.located(node, function)
        return True

    def _float_tangents(self, function: gast.FunctionDef, tangents: set[str]) -> None:
        """The rule for several directions with its tangents of float64 numbers computed
        on Python floats, where that gives the same numbers (`float_tangents`)."""
        assert self.kinds is not None
        kinds = self.kinds.kinds
        float_tangents(
            function,
            tangents,
            lambda name: kinds.get(name) == FLOAT,
            self.collecting,
            lambda: (self.ctx.bind(real_float, "real_float"), self._builtin(float)),
        )

    def _float_items(self, function: gast.FunctionDef) -> None:
        """The rule with the tangents of float64 vectors that its loops read element by
        element read as lists of Python floats, where that shows nowhere (`float_items`)."""
        assert self.kinds is not None
        zero = self._bind(ZeroTangent(), _ZERO_NAMES[ZeroTangent])
        names = (self.ctx.bind(float_items, "float_items"),
                 self.ctx.bind(float64_number, "float64_number"))  # fmt: skip
        items_read(function, self.kinds.kinds, self.primals, set(self.pure), zero, lambda: names)

    def _read_once(self, function: gast.FunctionDef, several: bool) -> None:
        """An element of a vector read again read from the name bound to it before
        (`repeated_reads`; not where the rule is for several directions), and the values
        a `for` loop over a `range` computes the same on every pass computed once, before
        it (`loop_invariants`)."""
        assert self.kinds is not None
        lists = loops.item_lists(function, self.ctx.output.runtime.name_of(float_items))
        vector = loops.vectors(self.kinds.kinds, self.primals, lists)
        if not several:
            repeated_reads_named(function, vector, set(self.pure))
        pure = (self.pure, self.callees, self.primal_pure)
        facts = loops.rule_facts(self._number, vector, self.primals, lists, self.batches,
                                 pure, (self.kinds.bound, self.ctx.source.resolve),
                                 self.ctx.namer.fresh)  # fmt: skip
        loops.for_invariants_hoisted(function, facts)

    # -- tangents ------------------------------------------------------------------------

    def _number(self, name: str) -> bool:
        """Whether `name` holds only numbers (real or integer scalars), or is the tangent
        of such a name (`nesting.nest_temporaries`)."""
        assert self.kinds is not None
        primal = self.primals.get(name, name)
        kind = self.kinds.kinds.get(primal)
        return kind is not None and kind[1] == 0 and (is_real(kind) or is_integer(kind))

    def _dot(self, name: str) -> str:
        if name not in self.dots:
            self.dots[name] = self.ctx.namer.fresh(naming.dot(name))
            self.primals[self.dots[name]] = name
        return self.dots[name]

    def _zero(self, kind: type[Any]) -> gast.expr:
        """The zero `kind()` (`ZeroTangent`, `NoTangent`: each a single instance), read
        by name: a tangent passed at every call and rebound in every loop costs a name
        read, not a call of the class's `__new__`."""
        return load(self._bind(kind(), _ZERO_NAMES[kind]))

    def _varies(self, node: gast.expr) -> bool:
        """Whether an operand's tangent (`_dot_of`) may be other than a symbolic zero."""
        return isinstance(node, gast.Name) and node.id in self.active

    def _dot_of(self, node: gast.expr) -> gast.expr:
        """The tangent of an operand: its `_dot` if it varies, else a zero."""
        if self._varies(node):
            return load(self._dot(node.id))
        return self._zero(ZeroTangent)

    def _zeros_for(self, names: list[str], value: gast.expr | None = None) -> list[gast.stmt]:
        """An active name assigned a value that does not vary gets a zero tangent: the
        symbolic zero, or for a number (`total = 0.0` before a loop adds to it) the float
        0.0 where the tangent of a float parameter is a float, so that the arithmetic on
        it is on floats from the first iteration on, not calls of the zero's methods.
        Where every tangent given is a zero, it stays one: no tangent is a float then."""
        active = [n for n in names if n in self.active]
        zeros = [assign(store(self._dot(n)), self._zero_of(value)) for n in active]
        self._zeros.update(zeros)
        self._new_zeros.update(active)
        return zeros

    def _zero_of(self, value: gast.expr | None) -> gast.expr:
        """The zero tangent of `value` (`_zeros_for`)."""
        zero = self._zero(ZeroTangent)
        seed = self._float_parameter
        number = value is not None and self.kinds is not None and self.kinds.of(value)
        if seed is not None and number in _NUMBERS:
            is_float = gast.Compare(
                left=call(self._builtin(type), [load(self._dot(seed))]),
                ops=[gast.Is()],
                comparators=[load(self._builtin(float))],
            )
            zero = gast.IfExp(test=is_float, body=gast.Constant(value=0.0, kind=None),
                              orelse=zero)  # fmt: skip
        return zero

    # -- statements ----------------------------------------------------------------------

    def _block(self, statements: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        self._depth += 1
        for statement in statements:
            straight = self._depth == 1 and isinstance(statement, gast.Assign)
            if not straight:
                self.zero_now.clear()  # a loop may bind a name again, a branch may not run
            self._new_zeros = set()
            out += [syntax.located(s, statement) for s in self._statement(statement)]
            if straight:  # what it binds is a known zero where it says so
                assert isinstance(statement, gast.Assign)
                bound = set(target_names(statement.targets[0]))
                self.zero_now = (self.zero_now - bound) | (self._new_zeros & bound)
            else:
                self.zero_now.clear()
        self._depth -= 1
        return out or [gast.Pass()]

    def _grown_in_place(self, tree: gast.Module) -> set[gast.stmt]:
        """The display `items = []` and the appends of each active list whose appends all
        may grow it in place (`GrownLists`: nothing reads it before its last append), so
        that its tangent, the list of its elements', may grow in place beside it: O(1) per
        append, where `append_frule` copies the tangents before it (O(n²) in all)."""
        index = self.ctx.analysis(Statements, tree)
        appends = self.ctx.analysis(GrownLists, tree)
        found: set[gast.stmt] = set()
        for name in {s.targets[0].id for s in appends if isinstance(s, gast.Assign)}:
            bindings = index.defining.get(name, [])
            made = [s for s in bindings if s not in appends]
            if name not in self.active or len(made) != 1 or not _empty_display(made[0]):
                continue
            # A list made anew in each pass through a loop is grown in place only by the
            # normal form's proof (`GrownLists`), which `Mutations` does not make when it
            # checks this rule in turn (reverse mode over it: second derivatives).
            if index.loop_around[id(made[0])] is None:
                found.update(bindings)
        return found

    def _grown(self, statement: gast.Assign) -> list[gast.stmt]:
        """`items = []` and `items = append(items, v)` of a list grown in place, with its
        tangent beside it (`_grown_in_place`): `items_dot = []`, `items_dot.append(v_dot)`
        (a zero where `v` does not vary), as the function appends."""
        self.batches = False  # (a list of tangents, each of its element's shape)
        items = statement.targets[0]
        assert isinstance(items, gast.Name)
        if isinstance(statement.value, gast.List):
            return [
                statement,
                assign(store(self._dot(items.id)), gast.List(elts=[], ctx=gast.Load())),
            ]
        assert isinstance(statement.value, gast.Call)
        value = statement.value.args[1]
        return [
            _appending(load(items.id), value),
            _appending(load(self._dot(items.id)), self._dot_of(value)),
        ]

    def _statement(self, statement: gast.stmt) -> list[gast.stmt]:
        if isinstance(statement, gast.If):
            orelse = self._block(statement.orelse) if statement.orelse else []
            return [gast.If(test=statement.test, body=self._block(statement.body), orelse=orelse)]
        if isinstance(statement, gast.While):
            return [gast.While(test=statement.test, body=self._block(statement.body), orelse=[])]
        if isinstance(statement, gast.For):
            return self._for(statement)
        if isinstance(statement, gast.Return):
            value = statement.value
            assert value is not None
            return [
                gast.Return(value=gast.Tuple(elts=[value, self._dot_of(value)], ctx=gast.Load()))
            ]
        if isinstance(statement, gast.FunctionDef):
            return [statement, *self._nested_frule(statement)]
        if not isinstance(statement, gast.Assign):
            return [self._as_it_runs(statement)]
        if statement in self.grown:
            return self._grown(statement)
        names = target_names(statement.targets[0])
        if not any(n in self.active for n in names):
            return [self._as_it_runs(statement)]
        if is_copy(statement):
            value = statement.value
            if isinstance(value, gast.Name) and value.id in self.zero_now:
                self._new_zeros.add(names[0])
            return [statement, assign(store(self._dot(names[0])), self._dot_of(value))]
        if statement not in self.rules:
            value = statement.value if len(names) == 1 else None
            return [self._as_it_runs(statement), *self._zeros_for(names, value)]
        return self._rule_call(statement, names)

    def _inlined(self, statement: gast.Assign) -> list[gast.stmt] | None:
        """`y = op(a, b)` on floats or float arrays whose kinds are known, for a primitive
        with an elementwise inline derivative (`passes/inlining.py`), as the function runs
        it, and its tangent as arithmetic: the sum, over the operands that vary, of each
        one's template with its tangent for `y_bar` (an elementwise derivative is its own
        transpose: `y_bar * cos(a)` gives `a_dot * cos(a)`). Operands that do not vary add
        no term: their zeros are folded away. None where it does not apply.

        On arrays, a tangent has its value's shape (or is a symbolic zero). A term has
        `y`'s shape where it reads `y`, or reads (its own tangent included) every operand
        that is an array: broadcasting then stretched it as it stretched `y`. Where one may
        not (`a_dot` of `a - b`, whose other term is a zero where `b`'s tangent is one, or
        is folded away), the sum is widened to `y`'s shape (`expand`, as `sub_frule` does)."""
        target = statement.targets[0]
        if self.kinds is None or not isinstance(target, gast.Name):
            return None
        if isinstance(statement.value, gast.Name | gast.Subscript):
            return None
        args, keywords = self._arguments(statement)
        found = [self.kinds.of(a) for a in args]
        known = [k for k in found if k is not None]
        if keywords or len(known) != len(found):
            return None
        arrays = any(k[1] > 0 for k in known)
        if arrays and (len(args) > 2 or not all(is_numeric(k) or is_complex(k) for k in known)):
            return None  # a third operand has no role a template can read
        self.batches = self.batches and not arrays
        differentiable = {id(n) for n in self._operands(statement)}
        varying = {
            a.id
            for a, k in zip(args, known, strict=True)
            if isinstance(a, gast.Name)
            and id(a) in differentiable
            and a.id in self.active
            and is_inexact(k)
        }
        floats = varying - self.zero_now  # (a known zero adds no term)
        rule = self.rules[statement]
        plan = adjoint_of(
            rule.primal, statement.value, target.id, args, floats, self.kinds.of,
            self.ctx.services.registry, forward=True,
        )  # fmt: skip
        if plan is None or not plan.elementwise:
            return None
        value = statement.value
        if isinstance(value, gast.Call) and len(args) == 1 and known[0] in _NUMBERS:
            self.primal_pure.append(self.callees.get(value))
        roles = {"a": args[0], "b": args[-1], "y": load(target.id)}
        for hint, function in plan.functions.items():
            self.pure[self._bind(function, hint)] = function
        terms = []
        widen = False  # whether some term may be smaller than `y` (arrays only)
        for position, (text, operand) in enumerate(zip(plan.texts, args, strict=True)):
            if text is None or not isinstance(operand, gast.Name):
                continue
            names = {**roles, "y_bar": load(self._dot(operand.id))}
            terms.append(template(text, names, self._bind, plan.functions))
            if arrays and not _shaped_like_result(text, position, known):
                widen = True
        dot = _summed(terms) if terms else self._zero(ZeroTangent)
        if not terms and varying & self.zero_now:  # the zero `_zeros_for` would bind
            dot = self._zero_of(statement.value)
            self._new_zeros.add(target.id)
        reads_y = "y" in plan.reads
        rebinds = any(isinstance(a, gast.Name) and a.id == target.id for a in args)
        if widen:
            widened = call(
                self._bind(expand, "expand"), [load(self._dot(target.id)), load(target.id)]
            )
            if reads_y or not rebinds:
                widened.args[0] = dot
                tangent = assign(store(self._dot(target.id)), widened)
                self.arithmetic.add(tangent)
                return None if rebinds else [statement, tangent]
            # `s = s - b` rebinds an operand the terms may read: the sum before, widened after.
            summed = assign(store(self._dot(target.id)), dot)
            tangent = assign(store(self._dot(target.id)), widened)
            self.arithmetic.update((summed, tangent))
            return [summed, statement, tangent]
        tangent = assign(store(self._dot(target.id)), dot)
        self.arithmetic.add(tangent)
        if not reads_y:  # before the statement: `s = s * x` rebinds an operand
            return [tangent, statement]
        return None if rebinds else [statement, tangent]

    def _indexed(self, statement: gast.Assign) -> list[gast.stmt] | None:
        """`y = a[index]` of a float array `a` and an index of ints and slices, whose kinds
        are known: its tangent is the same part of `a`'s, `a_dot[index]`, as `getitem`'s
        forward rule gives it (a zero's part is a zero, `AbstractZero.__getitem__`),
        without the rule call. Written before the statement, which may rebind `a` or a
        name the index reads. None where it does not apply."""
        value, target = statement.value, statement.targets[0]
        if self.kinds is None or not isinstance(value, gast.Subscript):
            return None
        base, index = value.value, value.slice
        if not (isinstance(target, gast.Name) and isinstance(base, gast.Name)):
            return None
        base_kind = self.kinds.of(base)
        if base.id not in self.active or not (is_real(base_kind) or is_complex(base_kind)):
            return None
        if subscript(self.kinds.of(base), index, self.kinds.of) is None:
            return None
        part = gast.Subscript(value=load(self._dot(base.id)), slice=syntax.copy_tree(index),
                              ctx=gast.Load())  # fmt: skip
        if not (self.kinds.of(base) == ("f", 1) and is_int_scalar(self.kinds.of(index))):
            self.batches = False  # a part of an array, whose arithmetic would not broadcast
        tangent = assign(store(self._dot(target.id)), part)
        self.arithmetic.add(tangent)
        return [tangent, statement]

    def _product(self, statement: gast.Assign) -> list[gast.stmt] | None:
        """`y = a @ b` of real arrays whose kinds are known, by the library's rule: its
        tangent is bilinear, `a_dot @ b + a @ b_dot`, each term of `y`'s shape (a tangent
        has its value's shape), a symbolic zero's product a zero (`AbstractZero.__matmul__`);
        an operand that does not vary adds no term. Written before the statement, which
        may rebind an operand (`h = W @ h`). None where it does not apply."""
        value, target = statement.value, statement.targets[0]
        if self.kinds is None or not isinstance(target, gast.Name):
            return None
        if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.MatMult)):
            return None
        rule = self.rules[statement]
        if rule.primal is not operator.matmul or rule.origin is Origin.USER:
            return None
        operands = [value.left, value.right]
        kinds = [self.kinds.of(o) for o in operands]
        if not all(isinstance(o, gast.Name) for o in operands) or not all(
            is_real(k) and k is not None and k[1] > 0 for k in kinds
        ):
            return None
        differentiable = {id(n) for n in self._operands(statement)}
        terms: list[gast.expr] = []
        for position, operand in enumerate(operands):
            assert isinstance(operand, gast.Name)
            if id(operand) not in differentiable or operand.id not in self.active:
                continue
            pair = [syntax.copy_tree(o) for o in operands]
            pair[position] = load(self._dot(operand.id))
            terms.append(gast.BinOp(left=pair[0], op=gast.MatMult(), right=pair[1]))
        dot = _summed(terms) if terms else self._zero(ZeroTangent)
        tangent = assign(store(self._dot(target.id)), dot)
        self.arithmetic.add(tangent)
        self.batches = False
        return [tangent, statement]

    def _rule_call(self, statement: gast.Assign, names: list[str]) -> list[gast.stmt]:
        inlined = self._inlined(statement)
        if inlined is None:
            inlined = self._indexed(statement)
        if inlined is None:
            inlined = self._product(statement)
        if inlined is not None:
            return inlined
        rule = self.rules[statement]
        if rule.primal not in _COLLECTING or rule.origin is Origin.USER:
            self.batches = False
        else:
            self.collecting.add(self._bind_rule(rule))
        args, keywords = self._arguments(statement)
        if isinstance(statement.value, gast.Subscript):
            args[1] = self._index_value(args[1])
        operands: list[gast.expr] = args
        if rule.parameters is not None:  # a compiled callee: a tangent per parameter
            passed = {k.arg: k.value for k in keywords}
            named = [
                args[i] if i < len(args) else passed.get(p, gast.Constant(value=None, kind=None))
                for i, p in enumerate(rule.parameters)
            ]
            operands = named + args[len(rule.parameters) :]
        differentiable = {id(n) for n in self._operands(statement)}
        dots = [
            self._dot_of(a) if id(a) in differentiable else self._zero(ZeroTangent)
            for a in operands
        ]
        dargs = gast.Tuple(elts=[self._zero(NoTangent), *dots], ctx=gast.Load())
        forward = call(self._bind_rule(rule), [dargs, *args], keywords)
        if is_unpacking(statement):
            pair = self.ctx.namer.fresh(naming.dot("_".join(names)))
            self.pairs.add(pair)
            both = gast.Tuple(elts=[statement.targets[0], store(pair)], ctx=gast.Store())
            split = call(
                self.ctx.bind(elements_of, "elements_of"),
                [load(pair), gast.Constant(value=len(names), kind=None)],
            )
            dot_targets = gast.Tuple(elts=[store(self._dot(n)) for n in names], ctx=gast.Store())
            return [assign(both, forward), assign(dot_targets, split)]
        both = gast.Tuple(elts=[statement.targets[0], store(self._dot(names[0]))], ctx=gast.Store())
        return [assign(both, forward)]

    def _for(self, statement: gast.For) -> list[gast.stmt]:
        assert isinstance(statement.target, gast.Name)
        target = statement.target.id
        body = self._block(statement.body)
        if statement not in self.rules or target not in self.active:
            zeros = self._zeros_for([target])
            return [
                gast.For(
                    target=statement.target,
                    iter=statement.iter,
                    body=zeros + body,
                    orelse=[],
                    type_comment=None,
                )
            ]
        iterable = statement.iter
        assert isinstance(iterable, gast.Name)
        self.batches = False
        items = self.ctx.namer.fresh(f"{iterable.id}_items")
        items_dot = self.ctx.namer.fresh(naming.dot(items))
        dargs = gast.Tuple(elts=[self._zero(NoTangent), self._dot_of(iterable)], ctx=gast.Load())
        split = call(
            self.ctx.bind(elements_of, "elements_of"),
            [load(items_dot), call(self._builtin(len), [load(items)])],
        )
        pairs = call(self._builtin(zip), [load(items), split])
        loop_target = gast.Tuple(elts=[store(target), store(self._dot(target))], ctx=gast.Store())
        header = assign(
            gast.Tuple(elts=[store(items), store(items_dot)], ctx=gast.Store()),
            call(self._bind_rule(self.rules[statement]), [dargs, iterable]),
        )
        loop = gast.For(target=loop_target, iter=pairs, body=body, orelse=[], type_comment=None)
        return [header, loop]

    def _nested_frule(self, function: gast.FunctionDef) -> list[gast.stmt]:
        """The forward rule of a nested function some statement calls, beside it: it reads
        the tangents of what it captures from this function, as it reads their values."""
        local = self._local_function(function, lambda statement: True)
        if local is None:
            return []
        self.batches = False
        captured = tuple(c for c in local.captured_by(function, self.outer) if c in self.active)
        dots = {c: self._dot(c) for c in captured}
        return [self._nested_rule(function, local, captured, dots)]


def _summed(terms: list[gast.expr]) -> gast.expr:
    """The sum of `terms`: `p + -q * r` written `p - q * r` (exactly: floating point
    negates without rounding), and terms that all divide by one name `b` summed before
    dividing once, `(p - q * y) / b` for `p / b + -q * y / b` (the quotient's tangent as
    its forward rule computes it: one division, where each term would take its own)."""
    divisor = _divisor(terms[0])
    if len(terms) > 1 and divisor is not None and all(_divisor(t) == divisor for t in terms):
        numerators = [t.left for t in terms if isinstance(t, gast.BinOp)]
        return gast.BinOp(left=_summed(numerators), op=gast.Div(), right=load(divisor))
    total = terms[0]
    for term in terms[1:]:
        positive = without_negation(term)
        if positive is None:
            total = gast.BinOp(left=total, op=gast.Add(), right=term)
        else:
            total = gast.BinOp(left=total, op=gast.Sub(), right=positive)
    return total


def _shaped_like_result(text: str, position: int, kinds: list[Kind]) -> bool:
    """Whether the term `text` of operand `position` of an elementwise operation has the
    result's shape whenever it is no zero: it reads the result, or every other operand
    that is an array (the operand's own tangent has its shape)."""
    used = names_in(text)
    if "y" in used or len(kinds) == 1:
        return True
    others = [("a", kinds[0]), ("b", kinds[-1])]
    return all(role in used or kind[1] == 0 or index == position
               for index, (role, kind) in enumerate(others))  # fmt: skip


def _divisor(term: gast.expr) -> str | None:
    """`b` for a term `e / b` that divides by a name; None for any other."""
    if (
        isinstance(term, gast.BinOp)
        and isinstance(term.op, gast.Div)
        and isinstance(term.right, gast.Name)
    ):
        return term.right.id
    return None

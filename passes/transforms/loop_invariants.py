"""A forward rule's loop-invariant values computed once, before a `for` loop over a
`range`, behind a test that the loop runs at all.

`pendulum` computes `over = GRAVITY_2 / LENGTH_2` on each of its 300 steps; a robust
regression reads `w[0]` and `w_dot_items[0]` for each data point though `w` never
changes. For a loop `for i in range(...)` whose `range` is Python's (guarded where the
rule is compiled), an expression is computed once where

- it is in one of the straight-line assignments that open the loop's body (before its
  first compound statement or other statement: no `break`, `continue` or branch comes
  before it), so the first pass computes it whatever the passes after it do;
- it is *the same on every pass*: a number constant; a local name (a parameter, or one
  the function binds) that the loop does not bind and that holds a number (a Python or
  NumPy real or int scalar; a tangent of one only where the rule takes its tangents as
  numbers, not with a trailing axis of directions); an arithmetic or unary operation of
  such; a call of a pure function of numbers (`math.sin`, the tangents' `cos`) with such
  arguments; or an item `a[k]` (`k` an int constant or such a name) of a vector whose
  items reading changes nothing (a NumPy array of one dimension, the tangent of one where
  tangents are numbers, a list of floats `float_items` made) where the loop calls nothing
  but functions that write nothing, so that nothing changes `a` between passes;
- nothing in the rule writes an item or an attribute, or updates a name in place
  (`+=`): the values are numbers, never changed after they are made.

Each such expression gives the same value on every pass (a float operation, an item read,
a pure function's call are deterministic), so computed once before the loop it gives
what every pass read; a value is a number, so that no pass can tell it from the one it
made itself. Before the loop, the range is bound to a name and the expressions computed
only `if` it is not empty (a `range` is truthy exactly when it yields an item): where the
loop runs no pass, nothing is computed, so nothing raises that would not have (`w[0]` of
an empty `w`; a Python float's division by zero); where it runs, the first pass would
compute the same expressions from the same values, and an exception one raises is raised
before the loop (of the first pass's statements before it, the straight-line assignments
before it, only those that raise would have made a difference: which of two errors the
rule raises, never a value or a tangent).

A whole assignment `t = e` whose value is such an expression moves before the loop where
`t` is bound by it alone and no statement of the body before it reads `t`: each read of
`t` in the loop, and after it, reads the same value (bound exactly when the loop runs a
pass, as before). Elsewhere each largest such subexpression that is not already a name or
a constant is bound to a new name before the loop and read from it.

A robust regression's loop, for a float64 vector `w`:

    for index in range(n):                     range_n = range(n)
        x = xs[index]                          if range_n:
        w_0_dot = w_dot_items[0]                   w_0_dot = w_dot_items[0]
        w_0 = w[0]                                 w_0 = w[0]
        r = w_0 + w[1] * x                         w_1 = w[1]
        ...                                    for index in range_n:
                                                   x = xs[index]
                                                   r = w_0 + w_1 * x
                                                   ...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gast

from srcad import syntax
from srcad.kinds import Kind, is_complex, is_numeric
from srcad.passes import naming
from srcad.passes.checks.callees import PURE
from srcad.syntax import load, store

_OPERATIONS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)


@dataclass(frozen=True)
class Facts:
    """What the pass is told of the rule's names and calls.

    `number(name)`: whether `name` holds only numbers (as the module's docstring says);
    `vector(name)`: whether it holds a vector whose items reading changes nothing;
    `number_items(name)`: whether the items of such a vector are numbers (not the rows
    of a tangent with a trailing axis of directions: views, shared when read once);
    `numeric(call)`: whether `call` calls a pure function of numbers that gives a number;
    `writes_nothing(call)`: whether `call` calls a function that writes nothing;
    `is_range(call)`: whether `call` calls Python's `range`; `fresh(hint)`: a new name."""

    number: Callable[[str], bool]
    vector: Callable[[str], bool]
    number_items: Callable[[str], bool]
    numeric: Callable[[gast.Call], bool]
    writes_nothing: Callable[[gast.Call], bool]
    is_range: Callable[[gast.Call], bool]
    fresh: Callable[[str], str]


def item_lists(function: gast.FunctionDef, items: str | None) -> set[str]:
    """The names of the lists of a tangent's items `float_items` (bound to `items`) made."""
    return {
        s.targets[0].id
        for s in function.body
        if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call)
        and isinstance(s.value.func, gast.Name) and s.value.func.id == items
    }  # fmt: skip


def vectors(
    kinds: Mapping[str, Kind], primals: Mapping[str, str], lists: set[str]
) -> Callable[[str], bool]:
    """Whether a name of a forward rule holds a vector whose items reading changes nothing
    and gives equal values each time: a NumPy array of one dimension of a known kind, a
    tangent of one (an array, or a symbolic zero whose items are zeros), or one of the
    `lists` of floats `float_items` made. `primals`: each tangent's primal."""

    def vector(name: str) -> bool:
        kind = kinds.get(primals.get(name, name))
        if kind is None or not (is_numeric(kind) or is_complex(kind)):
            return name in lists
        return name in lists or kind[1] == 1

    return vector


def rule_facts(
    number: Callable[[str], bool],
    vector: Callable[[str], bool],
    primals: Mapping[str, str],
    lists: set[str],
    batches: bool,
    pure: tuple[Mapping[str, Any], Mapping[gast.Call, Any], Sequence[Any]],
    builtins: tuple[set[str] | None, Callable[[list[str]], tuple[str, Any]]],
    fresh: Callable[[str], str],
) -> Facts:
    """The facts of a forward rule (`ForwardAD`): `number`, `vector` as `Facts` says, but
    for tangents, which may have a trailing axis of directions where the rule `batches`
    (`primals`: each tangent's primal; `lists`: the lists of a tangent's items); `pure`:
    the pure functions of numbers its tangents' arithmetic calls by name, each call's
    callee, and the pure functions of one number its primal calls; `builtins`: the names
    the function binds (None: not known) and how a name is read in its globals (guarded:
    `FunctionSource.resolve`)."""
    names, callees, primal = pure
    functions = {id(f) for f in primal if f is not None}

    def numeric(node: gast.Call) -> bool:
        func = node.func
        return (isinstance(func, gast.Name) and func.id in names) or id(
            callees.get(node)
        ) in functions

    def writes_nothing(node: gast.Call) -> bool:
        callee = callees.get(node)
        return numeric(node) or any(callee is f for f in PURE)

    def is_range(node: gast.Call) -> bool:
        func = node.func
        bound, resolve = builtins
        if not isinstance(func, gast.Name) or func.id != "range" or node.keywords:
            return False
        if bound is None or func.id in bound:
            return False  # a local of that name
        return resolve([func.id]) == ("builtin", range)

    def tangent(name: str) -> bool:
        return batches and (name in primals or name in lists)

    return Facts(
        number=lambda name: number(name) and not tangent(name),
        vector=vector,
        number_items=lambda name: not tangent(name),
        numeric=numeric,
        writes_nothing=writes_nothing,
        is_range=is_range,
        fresh=fresh,
    )


def for_invariants_hoisted(function: gast.FunctionDef, facts: Facts) -> bool:
    """Compute the loop invariants of `function`'s `for` loops over a `range` before
    them, as the module's docstring says; whether any was."""
    bindings: dict[str, int] = {}
    for node in syntax.walk(function):
        if isinstance(node, gast.AugAssign):
            return False
        if isinstance(node, gast.Subscript | gast.Attribute | gast.Starred) and not isinstance(
            node.ctx, gast.Load
        ):
            return False
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            bindings[node.id] = bindings.get(node.id, 0) + 1
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    local = {*bindings, *(a.id for a in parameters if isinstance(a, gast.Name))}
    return _Hoisting(facts, bindings, local).block(function.body)


class _Hoisting:
    def __init__(self, facts: Facts, bindings: dict[str, int], local: set[str]) -> None:
        self.facts, self.bindings, self.local = facts, bindings, local

    def block(self, statements: list[gast.stmt]) -> bool:
        moved = False
        position = 0
        while position < len(statements):
            statement = statements[position]
            if isinstance(statement, gast.FunctionDef | gast.ClassDef):
                position += 1
                continue
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if inner:
                    moved = self.block(inner) or moved
            if isinstance(statement, gast.For):
                before = self.loop(statement)
                statements[position:position] = before
                position += len(before)
                moved = moved or bool(before)
            position += 1
        return moved

    def loop(self, loop: gast.For) -> list[gast.stmt]:
        """The statements to run before `loop`, its invariants hoisted; none if none is."""
        steps = loop.iter
        if not (isinstance(steps, gast.Call) and self.facts.is_range(steps)):
            return []
        self.bound = {
            n.id
            for n in syntax.walk(loop)
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
        }
        calls = [n for n in syntax.walk(gast.Module(body=loop.body, type_ignores=[]))
                 if isinstance(n, gast.Call)]  # fmt: skip
        self.items_hold = all(self.facts.writes_nothing(c) for c in calls)
        hoisted: list[gast.stmt] = []
        kept: list[gast.stmt] = []
        read: set[str] = set()  # the names the body's statements before read
        opening = True
        for statement in loop.body:
            opening = opening and isinstance(statement, gast.Assign)
            if not opening:
                kept.append(statement)
                continue
            assert isinstance(statement, gast.Assign)
            target = statement.targets[0]
            if (
                len(statement.targets) == 1
                and isinstance(target, gast.Name)
                and self.bindings.get(target.id) == 1
                and target.id not in read
                and self.invariant(statement.value)
                and _worth(statement.value)
            ):
                hoisted.append(statement)
                self.bound.discard(target.id)  # (bound once, before the loop now)
                continue
            hoisted += self.named(statement)
            read |= {n.id for n in syntax.walk(statement) if isinstance(n, gast.Name)}
            kept.append(statement)
        if not hoisted:
            return []
        target = loop.target
        named = isinstance(target, gast.Name) and not target.id.startswith("_")
        name = self.facts.fresh(f"{target.id}_range" if named else "steps")
        loop.body = kept or [syntax.located(gast.Pass(), loop)]  # (all of it hoisted)
        loop.iter = load(name)
        test = gast.If(test=load(name), body=hoisted, orelse=[])
        before = [gast.Assign(targets=[store(name)], value=steps, type_comment=None), test]
        for statement in before:
            syntax.located(statement, loop)
        return before

    def named(self, statement: gast.Assign) -> list[gast.stmt]:
        """Each largest invariant subexpression of `statement`'s value that is worth it
        bound to a new name, read from it there: the assignments that bind them."""
        bound: list[gast.stmt] = []
        self.visit(statement, statement, bound)
        return bound

    def visit(self, node: gast.AST, statement: gast.stmt, bound: list[gast.stmt]) -> None:
        """`named`'s work in `node`, the assignments it makes added to `bound` (a method,
        not a closure calling itself: that would be a reference cycle, left to the cycle
        collector with the trees it holds)."""
        for field, value in gast.iter_fields(node):
            values = value if isinstance(value, list) else [value]
            for position, child in enumerate(values):
                if not _always_evaluated(node, field, position, child):
                    continue
                if _worth(child) and self.invariant(child):
                    name = self.facts.fresh(naming.derived_name(child))
                    assignment = gast.Assign(targets=[store(name)], value=child,
                                             type_comment=None)  # fmt: skip
                    bound.append(syntax.located(assignment, statement))
                    if isinstance(value, list):
                        value[position] = load(name)
                    else:
                        setattr(node, field, load(name))
                else:
                    self.visit(child, statement, bound)

    def invariant(self, node: gast.expr, operand: bool = False) -> bool:
        """Whether `node` is the same on every pass of the loop: a number, or (not an
        `operand` of an operation) a view of a vector that nothing writes."""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float, complex)
        if isinstance(node, gast.Name):
            return self.steady(node.id) and self.facts.number(node.id)
        if isinstance(node, gast.BinOp):
            return isinstance(node.op, _OPERATIONS) and (
                self.invariant(node.left, True) and self.invariant(node.right, True)
            )
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, gast.USub | gast.UAdd) and self.invariant(node.operand, True)
        if isinstance(node, gast.Call):
            return (
                self.facts.numeric(node)
                and not node.keywords
                and all(self.invariant(a, True) for a in node.args)
            )
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
            base, index = node.value, node.slice
            if not (self.items_hold and isinstance(base, gast.Name)):
                return False
            if not (self.steady(base.id) and self.facts.vector(base.id)):
                return False
            if operand and not self.facts.number_items(base.id):
                return False
            if isinstance(index, gast.Constant):
                return type(index.value) is int
            return isinstance(index, gast.Name) and self.invariant(index, True)
        return False

    def steady(self, name: str) -> bool:
        """Whether `name` is a local the loop does not bind."""
        return name in self.local and name not in self.bound


def _worth(node: gast.expr) -> bool:
    """Whether computing `node` costs more than reading a name."""
    if isinstance(node, gast.UnaryOp):
        return not isinstance(node.operand, gast.Constant)
    return not isinstance(node, gast.Name | gast.Constant)


# The expressions whose operands are each evaluated whenever they are (a comprehension,
# a lambda, a conditional's branches, a `BoolOp`'s operands after its first are not).
_EVALUATED = (gast.BinOp, gast.UnaryOp, gast.Call, gast.Subscript, gast.Compare, gast.Tuple,
              gast.List, gast.Attribute, gast.Assign, gast.Starred)  # fmt: skip


def _always_evaluated(node: gast.AST, field: str, position: int, child: object) -> bool:
    """Whether `child`, in `field` of `node`, is an expression evaluated whenever `node`
    is."""
    if not isinstance(child, gast.expr):
        return False
    if isinstance(node, gast.IfExp):
        return field == "test"
    if isinstance(node, gast.BoolOp):
        return position == 0
    return isinstance(node, _EVALUATED)

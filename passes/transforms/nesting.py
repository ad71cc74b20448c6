"""Nest the temporaries of a forward rule or a gradient function back into their reader.

The normal form binds every intermediate to a name (`x_times_x = x * x`). A float that a
name holds stays alive until the name is bound again, so CPython cannot reuse it for the
result of the next operation as it does for an unnamed intermediate, and each operation
allocates a float: a loop of arithmetic in the normal form runs a third slower than as
written. `ForwardAD` calls `nest_temporaries` on the forward rule it made, for code
specialised for known kinds, and `Nest` runs it on a gradient function (the forward
sweep and the pullback fused, `Fuse`), so that

    x_times_x = x * x
    minus = x_times_x - a
    abs_minus = abs(minus)
    n1em12_times_a = 1e-12 * a
    abs_minus_2 = abs_minus > n1em12_times_a
    if not abs_minus_2:
        break

runs as `if not abs(x * x - a) > 1e-12 * a: break`, as the user wrote it.

A temporary `t = E` is nested into the statement `S` that reads it when nothing about
the run changes: `t` is bound once and read once in the whole function, in `S`, the next
statement of the same block that reads it; in `S`, only names and constants are evaluated
before `t` is (so that `E` runs when `t` was read: nothing runs between); the statements
between bind no name `E` reads; and `E` or each statement between is *quiet*: arithmetic
(`+`, `-`, `*`, unary `-`) on names of numbers, which has no effect and cannot raise, so
the two commute. `S` is an assignment, a `return`, an expression, an `if`'s test or a
`for`'s iterable (a `while`'s test runs again: nothing is nested into it).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container

import gast

from srcad import syntax
from srcad.kinds import is_integer, is_real
from srcad.passes import naming
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Context, Transform, function_of

# The operators that cannot raise on numbers (Python's, NumPy's float64, a symbolic zero).
_QUIET_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.USub, gast.UAdd)


def nest_temporaries(
    function: gast.FunctionDef, numbers: Callable[[str], bool], kept: Container[str] = ()
) -> bool:
    """Nest the temporaries of `function` into their one reader, where that changes
    nothing (the module's docstring); `numbers(name)`: whether `name` holds only numbers
    (real or integer scalars, or the tangents of such); the names `kept` stay bound.
    Whether any was nested."""
    bindings: dict[str, int] = {}
    reads: dict[str, int] = {}
    declared: set[str] = set()  # a global's assignment is made for what it changes
    for node in syntax.walk(function):
        if isinstance(node, gast.Name):
            counts = reads if isinstance(node.ctx, gast.Load) else bindings
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, gast.Global | gast.Nonlocal):
            declared.update(node.names)
    parameters = {
        a.id
        for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
        if isinstance(a, gast.Name)
    }
    parameters |= declared

    def single(name: str) -> bool:
        return (
            bindings.get(name) == 1
            and reads.get(name) == 1
            and name not in parameters
            and name not in kept
        )

    nesting = _Nesting(single, numbers)
    nesting.block(function.body)
    return nesting.changed


class Nest(Transform):
    """In a gradient function specialised for known kinds, each temporary of the normal
    form read once is nested back into the expression that reads it (`nest_temporaries`):
    the names whose kinds are real or integer numbers are the numbers its quiet arithmetic
    may move past. The names the user's function reads or binds stay, as the user wrote
    them, and so do their cotangents' (`x_bar`), and copies (`WEIGHTS_2 = WEIGHTS`, a
    module constant read once on entry; `x_2 = x`, a value before the loop rebinds it),
    which the passes before kept for what they hold when they are bound.

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(a):
    ...     x = a
    ...     while abs(x * x - a) > 1e-12 * a:
    ...         x = 0.5 * (x + a / x)
    ...     return x
    ... ''', kinds="float", fused=True, value=False), end="")
    def grad_f(a):
        x = a
        f_tape = []
        while True:
            if not abs(x * x - a) > 1e-12 * a:
                break
            x_2 = x
            x = 0.5 * (x + a / x)
            f_tape.append(x_2)
        x_bar = 1.0
        a_bar = 0.0
        for x_2 in reversed(f_tape):
            # <doctest>:5  x = 0.5 * (x + a / x)
            x_plus_a_over_x_bar = 0.5 * x_bar
            x_bar = x_plus_a_over_x_bar
            a_bar = a_bar + x_plus_a_over_x_bar / x_2
            x_bar = x_bar + -x_plus_a_over_x_bar * (a / x_2) / x_2
        # <doctest>:3  x = a
        a_bar = a_bar + x_bar
        return (None, (NO_TANGENT, a_bar))
    """

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        kinds = ctx.analysis(ValueKinds, tree).kinds

        def number(name: str) -> bool:
            kind = kinds.get(name)
            return kind is not None and kind[1] == 0 and (is_real(kind) or is_integer(kind))

        users = set()  # (the definition is Python's tree, or gast's for a nested function)
        for node in ast.walk(ctx.source.definition):
            if isinstance(node, ast.Name | gast.Name):
                users.add(node.id)
            elif isinstance(node, ast.arg):
                users.add(node.arg)
        copies = {
            s.targets[0].id
            for s in syntax.walk(function)
            if isinstance(s, gast.Assign)
            and isinstance(s.value, gast.Name)
            and isinstance(s.targets[0], gast.Name)
        }
        kept = users | {naming.bar(n) for n in users} | copies
        return nest_temporaries(function, number, kept)


class _Nesting:
    def __init__(self, single: Callable[[str], bool], numbers: Callable[[str], bool]) -> None:
        self.single = single
        self.numbers = numbers
        self.changed = False

    def block(self, statements: list[gast.stmt]) -> None:
        for statement in statements:
            if isinstance(statement, gast.FunctionDef):
                continue
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if inner:
                    self.block(inner)
        index = 0
        while index < len(statements):
            if self._nested(statements, index):
                del statements[index]
                self.changed = True
                index = max(index - 1, 0)  # the statement before may nest now
            else:
                index += 1

    def _nested(self, statements: list[gast.stmt], index: int) -> bool:
        """Nest `statements[index]`, a temporary's binding, into its reader; whether it
        did."""
        definition = statements[index]
        if not (
            isinstance(definition, gast.Assign)
            and len(definition.targets) == 1
            and isinstance(definition.targets[0], gast.Name)
            and self.single(definition.targets[0].id)
        ):
            return False
        name, value = definition.targets[0].id, definition.value
        read = set(_names(value))
        quiet = self._quiet(value)
        for reader in statements[index + 1 :]:
            if name in _names(reader):
                return _put(reader, name, value, quiet)
            if not isinstance(reader, gast.Assign) or read & set(_bound(reader)):
                return False
            named = len(reader.targets) == 1 and isinstance(reader.targets[0], gast.Name)
            if not (quiet or (named and self._quiet(reader.value))):
                return False  # (unpacking a value may raise)
        return False

    def _quiet(self, value: gast.expr) -> bool:
        """Whether evaluating `value` has no effect and cannot raise: arithmetic that
        cannot raise on names of numbers and numeric constants."""
        if isinstance(value, gast.Name):
            return self.numbers(value.id)
        if isinstance(value, gast.Constant):
            return type(value.value) in (int, float)
        if isinstance(value, gast.BinOp):
            return (
                isinstance(value.op, _QUIET_OPERATORS)
                and self._quiet(value.left)
                and self._quiet(value.right)
            )
        if isinstance(value, gast.UnaryOp):
            return isinstance(value.op, _QUIET_OPERATORS) and self._quiet(value.operand)
        return False


def _names(node: gast.AST) -> list[str]:
    return [n.id for n in syntax.walk(node) if isinstance(n, gast.Name)]


def _bound(statement: gast.stmt) -> list[str]:
    return [
        n.id
        for n in syntax.walk(statement)
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
    ]


def _put(reader: gast.stmt, name: str, value: gast.expr, quiet: bool) -> bool:
    """Put `value` in place of the one read of `name` in `reader`'s expression evaluated
    first, where only names and constants are evaluated before it, or anywhere in it
    where `value` is quiet (it then commutes with whatever runs before it, and may be
    left unevaluated); whether it did."""
    if isinstance(reader, gast.Assign | gast.Return | gast.Expr):
        field = "value"
    elif isinstance(reader, gast.If):
        field = "test"
    elif isinstance(reader, gast.For):
        field = "iter"
    else:
        return False
    expression = getattr(reader, field)
    if expression is None or name not in _names(expression):
        return False  # read elsewhere in the statement (an assignment's target, a body)
    if isinstance(expression, gast.Name):
        setattr(reader, field, value)
        return True
    if quiet:
        return _replaced_anywhere(expression, name, value)
    return _replaced(expression, name, value)


def _replaced_anywhere(node: gast.AST, name: str, value: gast.expr) -> bool:
    for field in syntax.child_fields(type(node)):
        held = getattr(node, field, None)
        for child in held if isinstance(held, list) else [held]:
            if isinstance(child, gast.Name) and child.id == name:
                _set(node, field, child, value)
                return True
            if isinstance(child, gast.AST) and _replaced_anywhere(child, name, value):
                return True
    return False


def _replaced(node: gast.expr, name: str, value: gast.expr) -> bool:
    """In `node`, whose evaluation reaches the read of `name` after evaluating only names
    and constants, the read replaced by `value`; False where it is not so."""
    for field, child in _in_order(node):
        if isinstance(child, gast.Name) and child.id == name:
            _set(node, field, child, value)
            return True
        if name in _names(child):
            return isinstance(child, _ORDERED) and _replaced(child, name, value)
        if not _inert(child):
            return False  # something that may have an effect runs before the read
    return False


def _inert(node: gast.expr) -> bool:
    """Whether evaluating `node` only reads names and constants."""
    if isinstance(node, gast.Tuple | gast.List):
        return all(_inert(e) for e in node.elts)
    return isinstance(node, gast.Name | gast.Constant)


# The expressions whose operands are all evaluated, in the order `_in_order` gives, before
# the expression's own operation (no short circuit, no conditional).
_ORDERED = (
    gast.BinOp,
    gast.UnaryOp,
    gast.Compare,
    gast.Call,
    gast.Tuple,
    gast.List,
    gast.Subscript,
    gast.Attribute,
)


def _in_order(node: gast.expr) -> list[tuple[str, gast.expr]]:
    """The operands of `node` in the order Python evaluates them, with their fields
    (a list's items as `(field, item)`); none for any other expression."""
    if isinstance(node, gast.BinOp):
        return [("left", node.left), ("right", node.right)]
    if isinstance(node, gast.UnaryOp):
        return [("operand", node.operand)]
    if isinstance(node, gast.Compare):
        if len(node.comparators) != 1:
            return []  # a chain short-circuits
        return [("left", node.left), ("comparators", node.comparators[0])]
    if isinstance(node, gast.Call):
        if node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
            return []
        return [("func", node.func), *(("args", a) for a in node.args)]
    if isinstance(node, gast.Tuple | gast.List):
        if any(isinstance(e, gast.Starred) for e in node.elts):
            return []
        return [("elts", e) for e in node.elts]
    if isinstance(node, gast.Subscript):
        return [("value", node.value), ("slice", node.slice)]
    if isinstance(node, gast.Attribute):
        return [("value", node.value)]
    return []


def _set(node: gast.expr, field: str, old: gast.expr, new: gast.expr) -> None:
    held = getattr(node, field)
    if isinstance(held, list):
        held[held.index(old)] = new
    else:
        setattr(node, field, new)

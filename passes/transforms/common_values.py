"""A forward rule's arithmetic computed again from the same values read from the name the
first computation bound.

Kepler's equation `while abs(E - e * sin(E) - M) > TOLERANCE: E = E - (E - e * sin(E) -
M) / ...` computes `E - e * sin(E) - M` twice on each pass: in the test and in the step.
Once `PrimalCallsReused` reads the second `sin(E)` from the first (`sin_E_2 = sin_E`),
the rule's normal form computes `e * sin_E_2`, `E - e_times_sin_E_2` and `... - M` again
from the same values. In straight-line code (an `if` between keeps what it binds none
of; a loop's body starts afresh, its names changing from one pass to the next):

- a copy `t = n` makes `t` another name of `n`'s value, until either is bound again: a
  read of `t` reads `n` instead; likewise `c = 0.05` (an int or float constant, or its
  negation: a loop over a tuple of floats written out): a read of `c` is the constant;
- an operation `t = a op b` (`+ - * / // % **`, or a negation) of numbers (names that
  hold only numbers, never the tangents a rule takes with a trailing axis of directions,
  which are arrays; number constants; such operations of them), whose operands, read
  through the copies, are those of an earlier such operation bound to `n`, where none of
  them nor `n` is bound in between, computes the number `n` holds (float and integer
  arithmetic is deterministic: the same operation of the same numbers rounds to the same
  number, and raises, a NumPy float64's under `np.seterr`, where the first would have):
  it is read from `n`, `t = n`, a copy, and then itself another name of `n`.

A copy whose name nothing reads then (`sin_E_2 = sin_E`, once the reads of `sin_E_2`
read `sin_E`) is left out, where nothing deletes the name. The values are numbers,
which nothing can change in place, so reading one name for another shows nowhere.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TypeAlias

import gast

from srcad import syntax
from srcad.syntax import load

_OPERATIONS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)
_Key = tuple[object, ...]
_SCOPES = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_Held: TypeAlias = "str | gast.expr"  # a name, or a number constant


def values_reused(function: gast.FunctionDef, number: Callable[[str], bool]) -> bool:
    """Rewrite `function` as the module's docstring says; whether any was. `number(name)`:
    whether `name` holds only numbers (never an array). Only its own names (parameters,
    names it binds) are read for one another: a global is read where the rule reads it."""
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    local = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)
             and not isinstance(n.ctx, gast.Load)} | {
        a.id for a in parameters if isinstance(a, gast.Name)}  # fmt: skip
    reuse = _Reuse(lambda name: name in local and number(name), local)
    reuse.block(function.body, {}, {})
    if not reuse.changed:
        return False
    reads: dict[str, int] = {}
    for node in syntax.walk(function):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            reads[node.id] = reads.get(node.id, 0) + 1
    deleted = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)
               and isinstance(n.ctx, gast.Del)}  # fmt: skip
    _unread_copies_dropped(function.body, reuse.copies, reads, deleted)
    return True


class _Reuse:
    def __init__(self, number: Callable[[str], bool], local: set[str]) -> None:
        self.number, self.local = number, local
        self.changed = False
        self.copies: set[gast.stmt] = set()  # the copies between names

    def block(self, statements: list[gast.stmt], outer_names: dict[str, _Held],
              outer_values: dict[_Key, str]) -> None:  # fmt: skip
        names = dict(outer_names)  # each name, the name (or number constant) it holds
        values = dict(outer_values)  # each operation's key, the name bound to its value
        for statement in statements:
            if isinstance(statement, gast.FunctionDef | gast.ClassDef):
                names.clear()
                values.clear()
                continue
            if isinstance(statement, gast.If):
                self.read_through(statement.test, names)
                self.block(statement.body, names, values)
                self.block(statement.orelse, names, values)
            elif isinstance(statement, gast.For | gast.While):
                self.block(statement.body, {}, {})
                self.block(statement.orelse, {}, {})
            elif isinstance(statement, gast.Assign | gast.Expr | gast.Return):
                if statement.value is not None:
                    self.read_through(statement.value, names)
            else:
                names.clear()
                values.clear()
                continue
            bound = {
                n.id
                for n in syntax.walk(statement)
                if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
            }
            if bound:
                _forget(names, values, bound)
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
                self.learn(statement, names, values)

    def learn(self, statement: gast.Assign, names: dict[str, _Held],
              values: dict[_Key, str]) -> None:  # fmt: skip
        target, value = statement.targets[0], statement.value
        if not isinstance(target, gast.Name):
            return
        if _number_constant(value) and target.id in self.local:
            names[target.id] = value
            self.copies.add(statement)
            return
        if isinstance(value, gast.Name):
            if value.id != target.id and self.number(value.id):
                names[target.id] = value.id
                self.copies.add(statement)
            return
        key = self.key(value)
        if key is None or target.id in _names_in(key):
            return
        if key in values:
            statement.value = syntax.located(load(values[key]), value)
            names[target.id] = values[key]
            self.copies.add(statement)
            self.changed = True
        else:
            values[key] = target.id

    def key(self, value: gast.expr) -> _Key | None:
        """What an operation of numbers computes, its operands' names read through the
        copies already; None for anything else."""
        if isinstance(value, gast.BinOp) and isinstance(value.op, _OPERATIONS):
            left, right = self.operand(value.left), self.operand(value.right)
            if left is not None and right is not None:
                return (type(value.op), left, right)
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
            operand = self.operand(value.operand)
            if operand is not None:
                return (gast.USub, operand)
        return None

    def operand(self, node: gast.expr) -> object:
        if isinstance(node, gast.BinOp | gast.UnaryOp):
            return self.key(node)
        if isinstance(node, gast.Name) and self.number(node.id):
            return node.id
        if isinstance(node, gast.Constant) and type(node.value) in (int, float):
            return (type(node.value), repr(node.value))  # (`0.0` and `-0.0` differ)
        return None

    def read_through(self, node: gast.AST, names: dict[str, _Held]) -> None:
        """Each read of a copy's name in `node` read from the name whose value it holds,
        or written as the constant it holds."""
        if not names:
            return
        for child in syntax.walk(node):
            if isinstance(child, (gast.Lambda, gast.FunctionDef, *_SCOPES)):
                return  # (a function reads its names when called; a comprehension has
                # names of its own)
        for parent in [node, *syntax.walk(node)]:
            for field, value in gast.iter_fields(parent):
                values = value if isinstance(value, list) else [value]
                for position, child in enumerate(values):
                    if not (isinstance(child, gast.Name) and isinstance(child.ctx, gast.Load)):
                        continue
                    held = names.get(child.id)
                    if isinstance(held, str) and self.number(held):
                        child.id = held
                        self.changed = True
                    elif isinstance(held, gast.expr):
                        constant = syntax.located(copy.deepcopy(held), child)
                        if isinstance(value, list):
                            value[position] = constant
                        else:
                            setattr(parent, field, constant)
                        self.changed = True


def _number_constant(value: gast.expr) -> bool:
    """Whether `value` is an int or float constant, or its negation."""
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        value = value.operand
    return isinstance(value, gast.Constant) and type(value.value) in (int, float)


def _forget(names: dict[str, _Held], values: dict[_Key, str], bound: set[str]) -> None:
    """What no longer holds once the names `bound` are bound again."""
    for name, of in list(names.items()):
        if name in bound or of in bound:
            del names[name]
    for key, name in list(values.items()):
        if name in bound or _names_in(key) & bound:
            del values[key]


def _names_in(key: object) -> set[str]:
    """The names an operation's key reads."""
    if isinstance(key, str):
        return {key}
    if isinstance(key, tuple) and key and key[0] in (int, float):
        return set()  # a constant's
    if isinstance(key, tuple):
        return {name for part in key for name in _names_in(part)}
    return set()


def _unread_copies_dropped(statements: list[gast.stmt], copies: set[gast.stmt],
                           reads: dict[str, int], deleted: set[str]) -> None:  # fmt: skip
    kept = []
    for statement in statements:
        for field in ("body", "orelse"):
            inner = getattr(statement, field, None)
            if inner and not isinstance(statement, gast.FunctionDef | gast.ClassDef):
                _unread_copies_dropped(inner, copies, reads, deleted)
        if statement in copies:
            assert isinstance(statement, gast.Assign)
            target = statement.targets[0]
            assert isinstance(target, gast.Name)
            if not reads.get(target.id) and not deleted & {target.id}:
                continue  # (every binding of a name nothing reads binds for nothing)
        kept.append(statement)
    statements[:] = kept or [gast.Pass()]

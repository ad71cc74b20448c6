"""A forward rule for several directions: its primal computed once, each tangent statement
written once per direction.

`jacobian(f, mode="forward")` pushes one direction forward per element of its argument.
Called once per direction, the forward rule computes the primal each time; given every
direction at once as a trailing axis of its tangents (`srcad/batched.py`), each tangent
operation of a number becomes a NumPy call, which for few directions costs more than the
float arithmetic it replaces. For few directions, `ForwardAD` instead writes the rule it
made once more, for `count` directions: each statement that binds a tangent is repeated,
once per direction, with each tangent name `t` read and bound as `t_0`, `t_1`, ...; the
statements of the primal stay as they are. For the Lorenz system's three directions:

    def frule_lorenz(dargs, state):
        (_, state_dot_0), (_, state_dot_1), (_, state_dot_2) = dargs
        ...
        for _ in range(LORENZ_STEPS_2):
            dy_dot_0 = x_dot_0 * RHO_minus_z + x * -z_dot_0 - y_dot_0
            dy_dot_1 = x_dot_1 * RHO_minus_z + x * -z_dot_1 - y_dot_1
            dy_dot_2 = x_dot_2 * RHO_minus_z + x * -z_dot_2 - y_dot_2
            dy = x * RHO_minus_z - y
            ...
        return (out, (out_dot_0, out_dot_1, out_dot_2))

Each direction's statements are the one-direction rule's, in its order, on names of their
own; the primal statements read no tangent. So the rule computes, for each direction,
what the one-direction rule would. A statement binding a value and its tangent together
(`list, list_dot = make_list_frule(...)`) is a call of a rule that only collects its
arguments (`ForwardAD.batches` allows no other): it runs once per direction, the first
ones binding the value to a name nothing reads (`unused`), the last the value itself, so
each reads the values as they were before it.

It applies where the rule allows directions as a trailing axis (`ForwardAD.batches`:
arithmetic with numbers, elements of vectors, collecting rules), and to the statements
below only; on any other, or where a new name would be one the rule already reads, the
rule is left as it is (`for_directions` gives False), and the caller pushes forward one
direction at a time.
"""

from __future__ import annotations

from typing import TypeVar

import gast

from srcad import syntax
from srcad.syntax import load, store

_Node = TypeVar("_Node", bound=gast.AST)


class _UnwritableError(Exception):
    """A statement the rule for several directions does not write."""


def for_directions(function: gast.FunctionDef, tangents: set[str], count: int) -> bool:
    """Rewrite `function`, the forward rule `ForwardAD` made (its tangents' names
    `tangents`), for `count` directions (the module's docstring); False, and `function`
    unchanged, where it does not apply."""
    taken = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
    taken |= {a.id for a in [*function.args.posonlyargs, *function.args.args]}
    renamed = {f"{t}_{i}" for t in tangents for i in range(count)}
    if renamed & taken:
        return False
    unused = next(n for n in (f"unused{i or ''}" for i in range(len(taken) + 1)) if n not in taken)
    writer = _Directions(tangents, count, unused)
    try:
        header, *rest = [syntax.copy_tree(s) for s in function.body]
        body = [writer.header(header, _parameter(function)), *writer.block(rest)]
    except _UnwritableError:
        return False
    function.body = body
    return True


def _parameter(function: gast.FunctionDef) -> str:
    first = [*function.args.posonlyargs, *function.args.args][0]
    return first.id


class _Directions:
    def __init__(self, tangents: set[str], count: int, unused: str) -> None:
        self.tangents = tangents
        self.count = count
        self.unused = unused  # a name no statement reads, for a value computed again

    def header(self, statement: gast.stmt, dargs: str) -> gast.stmt:
        """`_, x_dot = dargs` as `(_, x_dot_0), (_, x_dot_1) = dargs`."""
        if not (
            isinstance(statement, gast.Assign)
            and isinstance(statement.targets[0], gast.Tuple)
            and isinstance(statement.value, gast.Name)
            and statement.value.id == dargs
        ):
            raise _UnwritableError
        target = statement.targets[0]
        each = [self._renamed(target, i) for i in range(self.count)]
        return _assign(gast.Tuple(elts=each, ctx=gast.Store()), load(dargs))

    def block(self, statements: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for statement in statements:
            out += [syntax.located(s, statement) for s in self._statement(statement)]
        return out

    def _statement(self, statement: gast.stmt) -> list[gast.stmt]:
        compound = isinstance(statement, gast.If | gast.While | gast.For | gast.Return)
        if not compound and not self._reads_tangent(statement):
            if any(isinstance(n, gast.Return) for n in syntax.walk(statement)):
                raise _UnwritableError  # a `return` in a block not written here (a `try`)
            return [statement]
        if isinstance(statement, gast.If | gast.While):
            self._plain(statement.test)
            statement.body = self.block(statement.body) or [gast.Pass()]
            statement.orelse = self.block(statement.orelse)
            return [statement]
        if isinstance(statement, gast.For):
            self._plain(statement.target)
            self._plain(statement.iter)
            if statement.orelse:
                raise _UnwritableError
            statement.body = self.block(statement.body) or [gast.Pass()]
            return [statement]
        if isinstance(statement, gast.Return):
            value = statement.value
            if not (isinstance(value, gast.Tuple) and len(value.elts) == 2):
                raise _UnwritableError
            primal, tangent = value.elts
            self._plain(primal)
            each = [self._renamed(tangent, i) for i in range(self.count)]
            return [gast.Return(value=gast.Tuple(elts=[primal, gast.Tuple(elts=each,
                    ctx=gast.Load())], ctx=gast.Load()))]  # fmt: skip
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
            return self._assignment(statement)
        raise _UnwritableError

    def _assignment(self, statement: gast.Assign) -> list[gast.stmt]:
        target = statement.targets[0]
        stored = [n for n in syntax.walk(target) if not isinstance(n, gast.Tuple | gast.Name)]
        bound = [n.id for n in syntax.walk(target) if isinstance(n, gast.Name)]
        if stored or not any(n in self.tangents for n in bound):  # a part stored, or a primal
            raise _UnwritableError  # that reads a tangent
        if all(n in self.tangents for n in bound):
            return [self._renamed(statement, i) for i in range(self.count)]
        # A value and its tangent from one call of a collecting rule: the value bound last.
        if not isinstance(statement.value, gast.Call) or not isinstance(target, gast.Tuple):
            raise _UnwritableError
        copies = []
        for i in [*range(1, self.count), 0]:
            copy = self._renamed(statement, i)
            if i:  # the value left to the last
                elements = copy.targets[0].elts
                for position, name in enumerate(target.elts):
                    if isinstance(name, gast.Name) and name.id not in self.tangents:
                        elements[position] = store(self.unused)
            copies.append(copy)
        return copies

    def _renamed(self, node: _Node, i: int) -> _Node:
        """A copy of `node` with each tangent name `t` as `t_{i}`."""
        copy = syntax.copy_tree(node)
        for name in syntax.walk(copy):
            if isinstance(name, gast.Name) and name.id in self.tangents:
                name.id = f"{name.id}_{i}"
        return copy

    def _reads_tangent(self, node: gast.AST) -> bool:
        return any(isinstance(n, gast.Name) and n.id in self.tangents for n in syntax.walk(node))

    def _plain(self, node: gast.AST) -> None:
        """`node` reads no tangent (a test, a loop's iterable, a returned value)."""
        if self._reads_tangent(node):
            raise _UnwritableError


def _assign(target: gast.expr, value: gast.expr) -> gast.Assign:
    return gast.Assign(targets=[target], value=value, type_comment=None)

"""The calls of pure functions (`math.cos`) that a forward rule's tangents written as
arithmetic repeat, read from the statement of the primal that computes them
(`ForwardAD`, `PrimalCallsReused`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gast

from srcad import syntax
from srcad.syntax import load


class PrimalCallsReused:
    """In a tangent written as arithmetic, a call of one of the functions its template
    names, of one name (`cos(E)` in `sin(E)`'s tangent `E_dot * cos(E)`), reads the value
    of that call where an earlier statement of the same block computed it
    (`cos_E = math.cos(E)`, the same function object, resolved and guarded) and neither
    name has been bound since: the function's value is not computed twice. A block
    inside another starts knowing nothing (a loop's body runs again after what follows
    it). A later statement calling the function is moved before the tangent, where that
    changes nothing (`_later`). A statement of the primal calling one of them again, of
    the same name, where an earlier one computed it so (`sin_E_2 = math.sin(E)` after
    `sin_E = math.sin(E)` in the loop's test), reads that value: it is the same number,
    and the first call raised where the second would."""

    def __init__(self, arithmetic: set[gast.stmt], pure: dict[str, Any],
                 callees: dict[gast.Call, Any], primal: Sequence[Any] = ()) -> None:  # fmt: skip
        """`pure`: the functions the tangents call, by name; `primal`: the pure functions
        of one number the primal calls (`ForwardAD.primal_pure`)."""
        self.arithmetic, self.pure, self.callees = arithmetic, pure, callees
        self.functions = {id(f) for f in pure.values()}
        self.primal = {id(f) for f in primal if f is not None}

    def block(self, statements: list[gast.stmt]) -> None:
        computed: dict[tuple[int, str], str] = {}  # (function's id, argument): the value's name
        index = 0
        while index < len(statements):  # the calls a tangent repeats moved before it
            later = self._later(statements, index) if statements[index] in self.arithmetic else None
            if later is not None:  # the call moved before the tangent
                statements.insert(index, statements.pop(later))
                index += 1
            index += 1
        for statement in statements:
            if statement in self.arithmetic:
                assert isinstance(statement, gast.Assign)
                statement.value = self._reused(statement.value, computed)
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if inner and not isinstance(statement, gast.FunctionDef):
                    self.block(inner)
            found = self._pure_call(statement, self.functions | self.primal)
            if found is not None and found[0] in computed:
                # The primal's own call again (Kepler's test and step each compute
                # `math.sin(E)`): the same function of the same value, its value read.
                assert isinstance(statement, gast.Assign)
                statement.value = load(computed[found[0]])
                found = None
            bound = bound_names(statement)
            computed = {k: v for k, v in computed.items() if k[1] not in bound and v not in bound}
            if found is not None and found[0][1] not in bound - {found[1]}:
                computed[found[0]] = found[1]  # (a primal's function: only for the primal)

    def _later(self, statements: list[gast.stmt], index: int) -> int | None:
        """The position of a later statement `v = f(a)` of the block, where the tangent
        `statements[index]` calls `f(a)` (`sin(E)`'s `E_dot * cos(E)` before
        `cos_E = math.cos(E)`), and moving it before the tangent changes nothing: every
        statement between is *quiet* (assigns arithmetic and calls of the pure functions
        to names: no effect), and none from the tangent on binds a name it reads
        (`a`, `math`) or mentions `v`. Else None."""
        tangent = statements[index]
        assert isinstance(tangent, gast.Assign)
        calls = {self._call_of(c) for c in syntax.walk(tangent.value)} - {None}
        bound, mentioned = bound_names(tangent), _names(tangent)
        for position in range(index + 1, len(statements)):
            statement = statements[position]
            found = self._pure_call(statement)
            if found is not None and found[0] in calls:
                clear = not (_names(statement) - {found[1]}) & bound and found[1] not in mentioned
                return position if clear else None
            if not (isinstance(statement, gast.Assign) and self._quiet(statement.value)):
                return None
            bound |= bound_names(statement)
            mentioned |= _names(statement)
        return None

    def _call_of(self, node: gast.AST) -> tuple[int, str] | None:
        """`(id(f), a)` for a call `f(a)` of one of the functions, of one name, in a tangent."""
        if (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Name)
            and node.func.id in self.pure
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], gast.Name)
        ):
            return id(self.pure[node.func.id]), node.args[0].id
        return None

    def _quiet(self, node: gast.expr) -> bool:
        """Whether `node` is arithmetic on names and constants and calls of the functions."""
        if isinstance(node, gast.Name | gast.Constant):
            return True
        if isinstance(node, gast.BinOp):
            return self._quiet(node.left) and self._quiet(node.right)
        if isinstance(node, gast.UnaryOp):
            return self._quiet(node.operand)
        if isinstance(node, gast.Call):
            pure = id(self.callees.get(node)) in self.functions or self._call_of(node) is not None
            return pure and not node.keywords and all(self._quiet(a) for a in node.args)
        return False

    def _pure_call(
        self, statement: gast.stmt, functions: set[int] | None = None
    ) -> tuple[tuple[int, str], str] | None:
        """`((id(f), a), v)` for a statement `v = f(a)` of one of the functions (or of
        `functions`), else None."""
        if not (isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Call)):
            return None
        target, value = statement.targets[0], statement.value
        callee = self.callees.get(value)
        if (
            isinstance(target, gast.Name)
            and id(callee) in (self.functions if functions is None else functions)
            and len(value.args) == 1
            and not value.keywords
            and isinstance(value.args[0], gast.Name)
            and value.args[0].id != target.id
        ):
            return (id(callee), value.args[0].id), target.id
        return None

    def _reused(self, node: gast.expr, computed: dict[tuple[int, str], str]) -> gast.expr:
        call = self._call_of(node)
        if call is not None:
            value = computed.get(call)
            if value is not None:
                return load(value)
        for name in syntax.child_fields(type(node)):
            child = getattr(node, name, None)
            if isinstance(child, gast.expr):
                setattr(node, name, self._reused(child, computed))
            elif isinstance(child, list):
                setattr(node, name, [self._reused(c, computed) if isinstance(c, gast.expr)
                                     else c for c in child])  # fmt: skip
        return node


def _names(node: gast.AST) -> set[str]:
    return {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)}


def bound_names(statement: gast.stmt) -> set[str]:
    """The names a statement binds, in the blocks inside it too."""
    return {
        node.id
        for node in syntax.walk(statement)
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store | gast.Del)
    }

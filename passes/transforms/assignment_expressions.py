"""Assignment expressions (`:=`) made assignments of their own, run where Python runs them.

`if (r := x @ x) > 1.0:` becomes `r = x @ x` then `if r > 1.0:`, before any check reads
the tree, so that every check and pass sees a name bound by an assignment, which they know.
The assignment runs just before the statement, and so does everything the statement
evaluates before the `:=` that could be changed by it or that does work (a call, an
operation): each is bound first to a name of its own, in Python's order
(`f(x) + (y := g(x))` is `f_x = f(x)`, `y = g(x)`, `f_x + y`); a name or a constant read
before it stays in place, unless the assignment binds that name (`y + (y := 2)` reads the
old `y`: `y_2 = y`, `y = 2`, `y_2 + y`). Where the `:=` may not run:

- in a later operand of `and`/`or`, or a branch of a conditional expression, the value is
  computed by `if` statements that run the operand only where Python would
  (`ok = x > 0`, `if ok: r = f(x); ok = r > 1.0`, then `if ok:`);
- in a `while` loop's test, the test is computed at the top of each pass
  (`while True:`, the assignments, `if not test: break`, with the loop's `else` run
  before that `break`);
- in a list comprehension (`[y for v in xs if (y := v * v) > 0.1]`, where `y` is the
  function's own), the comprehension is the loop appending to a fresh list that the
  normal form would make of it, its variables renamed where the function uses their
  names otherwise.

Left for `UnsupportedConstructs` to refuse (E102), as Python would evaluate them later or
in a scope of their own: a `:=` in a lambda, a generator expression (lazy), a set or dict
comprehension, a later comparison of a chain (`a < b < (c := d)`), an assignment's target,
an augmented assignment whose target it binds, or a `while` test whose loop's `else`
breaks or continues an outer loop."""

from __future__ import annotations

from typing import Any

import gast

from srcad import syntax
from srcad.passes.naming import derived_name
from srcad.syntax import LOAD, load, make, store

# Scopes of their own, or lazy: a `:=` in one is left for the check to refuse.
_OPAQUE = (gast.Lambda, gast.GeneratorExp, gast.SetComp, gast.DictComp)
# The statements whose expression (this field) is evaluated before their blocks run.
_EVALUATED = {
    gast.Expr: "value",
    gast.Return: "value",
    gast.Assign: "value",
    gast.AnnAssign: "value",
    gast.AugAssign: "value",
    gast.If: "test",
    gast.For: "iter",
    gast.Assert: "test",
}


def lower_assignment_expressions(function: gast.FunctionDef) -> None:
    """Make each `:=` of `function` (and of the functions nested in it) an assignment
    where Python runs it (see the module's docstring), in place."""
    if not any(isinstance(n, gast.NamedExpr) for n in syntax.walk(function)):
        return
    taken = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
    _Lowering(taken, function).function(function)


def _has_walrus(node: Any) -> bool:
    return node is not None and any(isinstance(n, gast.NamedExpr) for n in syntax.walk(node))


def _targets(node: Any) -> set[str]:
    """The names the `:=` in `node` bind."""
    return {n.target.id for n in syntax.walk(node) if isinstance(n, gast.NamedExpr)}


def _liftable(node: gast.expr) -> bool:
    """Whether every `:=` in `node` is where this pass can run it as an assignment."""
    if not _has_walrus(node):
        return True
    if isinstance(node, _OPAQUE):
        return False
    if isinstance(node, gast.Compare) and any(_has_walrus(c) for c in node.comparators[1:]):
        return False  # evaluated only where the comparisons before it hold
    if isinstance(node, gast.ListComp):
        return all(_liftable(part) for g in node.generators for part in g.ifs) and _liftable(
            node.elt
        )
    return all(_liftable(child) for child in _children(node))


def _slots(node: gast.AST) -> list[tuple[Any, Any]]:
    """Where `node`'s operands are held, `(holder, key)` (a node and a field, or a list and
    a position), in the order Python evaluates them."""
    slots: list[tuple[Any, Any]] = []
    if isinstance(node, gast.Dict):
        for position, key in enumerate(node.keys):
            if key is not None:
                slots.append((node.keys, position))
            slots.append((node.values, position))
        return slots
    for field in node._fields:
        value = getattr(node, field)
        if isinstance(value, gast.expr):
            slots.append((node, field))
        elif isinstance(value, list):
            for position, item in enumerate(value):
                if isinstance(item, gast.expr):
                    slots.append((value, position))
                elif isinstance(item, gast.keyword):
                    slots.append((item, "value"))
    return slots


def _get(slot: tuple[Any, Any]) -> Any:
    holder, key = slot
    return holder[key] if isinstance(holder, list) else getattr(holder, key)


def _set(slot: tuple[Any, Any], value: gast.expr) -> None:
    holder, key = slot
    if isinstance(holder, list):
        holder[key] = value
    else:
        setattr(holder, key, value)


def _children(node: gast.AST) -> list[gast.expr]:
    return [_get(slot) for slot in _slots(node)]


def _breaks_out(block: list[gast.stmt]) -> bool:
    """Whether `block` has a `break` or `continue` of the loop around it."""
    for statement in block:
        if isinstance(statement, gast.Break | gast.Continue):
            return True
        if isinstance(statement, gast.If) and (
            _breaks_out(statement.body) or _breaks_out(statement.orelse)
        ):
            return True
    return False


class _Lowering:
    def __init__(self, taken: set[str], root: gast.FunctionDef) -> None:
        self.taken = taken  # every name of `root`, and those this pass made
        self.root = root

    def fresh(self, base: str) -> str:
        name, count = base, 1
        while name in self.taken:
            count += 1
            name = f"{base}_{count}"
        self.taken.add(name)
        return name

    def function(self, function: gast.FunctionDef) -> None:
        function.body = self.block(function.body)

    def block(self, statements: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for statement in statements:
            out += self.statement(statement)
        return out

    def statement(self, statement: gast.stmt) -> list[gast.stmt]:
        """`statement`, and the assignments that run its `:=` before it."""
        if isinstance(statement, gast.FunctionDef):
            self.function(statement)
            return [statement]
        for block in ("body", "orelse"):
            inner = getattr(statement, block, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(statement, block, self.block(inner))
        if isinstance(statement, gast.While):
            return self._while(statement)
        field = _EVALUATED.get(type(statement))
        if field is None or not _has_walrus(getattr(statement, field)):
            return [statement]
        value = getattr(statement, field)
        if not _liftable(value) or not self._target_stays(statement, value):
            return [statement]
        before: list[gast.stmt] = []
        if isinstance(value, gast.ListComp) and isinstance(statement, gast.Assign):
            target = statement.targets[0]
            read = {n.id for n in syntax.walk(value) if isinstance(n, gast.Name)}
            if (
                len(statement.targets) == 1
                and isinstance(target, gast.Name)
                and (target.id not in read)
            ):  # `ys = [...]`: the loop appends to `ys` (a list no other name holds)
                self._comprehension(value, before, target.id)
                return before
        setattr(statement, field, self.lift(value, before))
        return [*before, statement]

    @staticmethod
    def _target_stays(statement: gast.stmt, value: gast.expr) -> bool:
        """Whether the target of an assignment holds no `:=`, and one that an augmented
        assignment reads first is not bound by the value's."""
        if isinstance(statement, gast.Assign):
            return not any(_has_walrus(t) for t in statement.targets)
        if isinstance(statement, gast.AnnAssign | gast.AugAssign):
            read = {n.id for n in syntax.walk(statement.target) if isinstance(n, gast.Name)}
            return not _has_walrus(statement.target) and not (
                isinstance(statement, gast.AugAssign) and read & _targets(value)
            )
        return True

    def _while(self, loop: gast.While) -> list[gast.stmt]:
        """`while test:` with a `:=` in `test` as `while True:` computing the test at the
        top of each pass, its `else` run where the test fails."""
        if not _has_walrus(loop.test) or not _liftable(loop.test) or _breaks_out(loop.orelse):
            return [loop]
        head: list[gast.stmt] = []
        test = self.lift(loop.test, head)
        stop = syntax.located(
            make(gast.If, test=make(gast.UnaryOp, op=gast.Not(), operand=test),
                 body=[*loop.orelse, make(gast.Break)], orelse=[]),
            loop,
        )  # fmt: skip
        for statement in syntax.walk(stop):
            if isinstance(statement, gast.stmt) and not hasattr(statement, "lineno"):
                syntax.located(statement, loop)
        loop.test = make(gast.Constant, value=True, kind=None)
        loop.body = [*head, stop, *loop.body]
        loop.orelse = []
        return [loop]

    def lift(self, node: gast.expr, before: list[gast.stmt]) -> gast.expr:
        """`node` with each of its `:=` an assignment added to `before` (with what must
        run before it), in Python's order; `node` is `_liftable`."""
        if not _has_walrus(node):
            return node
        if isinstance(node, gast.NamedExpr):
            value = self.lift(node.value, before)
            target = node.target.id
            before.append(self._assign(target, value, node))
            return syntax.located(load(target), node)
        if isinstance(node, gast.BoolOp) and any(_has_walrus(v) for v in node.values[1:]):
            return self._short_circuit(node, before)
        if isinstance(node, gast.IfExp) and (_has_walrus(node.body) or _has_walrus(node.orelse)):
            return self._conditional(node, before)
        if isinstance(node, gast.ListComp):
            return self._comprehension(node, before)
        slots = _slots(node)
        last = max(i for i, slot in enumerate(slots) if _has_walrus(_get(slot)))
        for position, slot in enumerate(slots[: last + 1]):
            child = self.lift(_get(slot), before)
            if position < last:
                later = set().union(*(_targets(_get(s)) for s in slots[position + 1 : last + 1]))
                child = self._kept(child, later, before)
            _set(slot, child)
        return node

    def _kept(self, node: gast.expr, rebound: set[str], before: list[gast.stmt]) -> gast.expr:
        """`node`, evaluated before assignments that bind `rebound`, as a value those leave
        as it is: a constant, a name they do not bind (through attributes: `np.sin`, a
        method), else its value bound to a name first."""
        if isinstance(node, gast.Starred):
            node.value = self._kept(node.value, rebound, before)
            return node
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        if isinstance(root, gast.Constant) or (
            isinstance(root, gast.Name) and root.id not in rebound
        ):
            return node
        name = self.fresh(derived_name(node))
        before.append(self._assign(name, node, node))
        return syntax.located(load(name), node)

    def _short_circuit(self, node: gast.BoolOp, before: list[gast.stmt]) -> gast.expr:
        """`a and b` (`a or b`) as `value = a`, then `if value:` (`if not value:`)
        `value = b`: the later operands run only where Python runs them."""
        name = self.fresh(derived_name(node))
        first, *rest = node.values
        before.append(self._assign(name, self.lift(first, before), node))
        remaining = make(gast.BoolOp, op=node.op, values=rest) if len(rest) > 1 else rest[0]
        syntax.located(remaining, node)
        branch: list[gast.stmt] = []
        branch.append(self._assign(name, self.lift(remaining, branch), node))
        test: gast.expr = load(name)
        if isinstance(node.op, gast.Or):
            test = make(gast.UnaryOp, op=gast.Not(), operand=test)
        before.append(syntax.located(make(gast.If, test=test, body=branch, orelse=[]), node))
        return syntax.located(load(name), node)

    def _conditional(self, node: gast.IfExp, before: list[gast.stmt]) -> gast.expr:
        """`b if t else o` as `if t: value = b` `else: value = o`."""
        name = self.fresh("selected")
        test = self.lift(node.test, before)
        body: list[gast.stmt] = []
        body.append(self._assign(name, self.lift(node.body, body), node))
        orelse: list[gast.stmt] = []
        orelse.append(self._assign(name, self.lift(node.orelse, orelse), node))
        before.append(syntax.located(make(gast.If, test=test, body=body, orelse=orelse), node))
        return syntax.located(load(name), node)

    def _comprehension(
        self, node: gast.ListComp, before: list[gast.stmt], result: str = ""
    ) -> gast.expr:
        """A list comprehension holding a `:=` as the loop appending to a fresh list
        (`result`, where given), its variables renamed where the function uses their
        names otherwise."""
        own = {
            n.id for g in node.generators for n in syntax.walk(g.target) if isinstance(n, gast.Name)
        }
        first = node.generators[0].iter
        inside = {id(n) for n in syntax.walk(node)} - {id(n) for n in syntax.walk(first)}
        # A name of the function: read or bound outside the comprehension.
        outside = {n.id for n in syntax.walk(self.root) if isinstance(n, gast.Name)
                   and id(n) not in inside}  # fmt: skip
        renames = {name: self.fresh(name) for name in sorted(own & outside)}
        for generator in node.generators:
            parts = [generator.target, *generator.ifs]
            if generator is not node.generators[0]:
                parts.append(generator.iter)
            for part in parts:
                _rename(part, renames)
        _rename(node.elt, renames)
        result = result or self.fresh("values")
        before.append(self._assign(result, make(gast.List, elts=[], ctx=LOAD), node))
        append = make(gast.Attribute, value=load(result), attr="append", ctx=LOAD)
        inner: list[gast.stmt] = [
            make(gast.Expr, value=make(gast.Call, func=append, args=[node.elt], keywords=[]))
        ]
        for generator in reversed(node.generators):
            for condition in reversed(generator.ifs):
                inner = [make(gast.If, test=condition, body=inner, orelse=[])]
            inner = [make(gast.For, target=generator.target, iter=generator.iter, body=inner,
                          orelse=[], type_comment=None)]  # fmt: skip
        for statement in syntax.walk(inner[0]):
            if isinstance(statement, gast.stmt | gast.expr) and not hasattr(statement, "lineno"):
                syntax.located(statement, node)
        before += self.block(inner)
        return syntax.located(load(result), node)

    @staticmethod
    def _assign(name: str, value: gast.expr, where: gast.AST) -> gast.stmt:
        assign = make(gast.Assign, targets=[store(name)], value=value, type_comment=None)
        return syntax.located(assign, where)


def _rename(node: gast.AST, renames: dict[str, str]) -> None:
    """Rename the names `renames` maps in `node`, in place."""
    for child in syntax.walk(node):
        if isinstance(child, gast.Name) and child.id in renames:
            child.id = renames[child.id]

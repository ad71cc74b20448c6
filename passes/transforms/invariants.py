"""A forward rule's loop-invariant float arithmetic computed once, before its loop.

A `while` loop whose test needs statements is written `while True:` with the test's
statements first in its body, then `if not test: break` (`to_anf`). A product or sum the
test computes from names the loop never binds, `1e-12 * a` in Newton's
`abs(x * x - a) > 1e-12 * a`, is the same number on every pass: it is computed once,
before the loop, where

- the statement is `t = l op r` with `op` one of `+`, `-`, `*` and each operand a float
  constant or a local name (a parameter, or one the function binds) that the loop does
  not bind (what a statement in it binds, a nested function's too) whose kind is a
  float (a Python float or a float64): each pass reads the values the names had on
  entry;
- it is among the straight-line statements that open the loop's body (before its first
  compound statement: no `break`, `continue` or branch comes before it), so the first
  pass of `while True` computes it, from the same values: computed before the loop, it
  gives the same number, and raises where that pass would (a NumPy float64's
  overflow, under `np.seterr(over="raise")`), the quiet statements before it in that
  pass then not run;
- `t` is bound by that statement alone and nothing before it in the body reads it, so
  every read of `t` (in the loop, after it) sees the same number;
- `t` has no tangent (the test's values are not differentiated).

Newton's forward rule, for a float `a`:

    while True:                              times = 1e-12 * a
        x_times_x = x * x                    while True:
        ...                                      x_times_x = x * x
        times = 1e-12 * a                        ...
        gt = abs_minus > times                   gt = abs_minus > times
        if not gt:                               if not gt:
            break                                    break
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from srcad import syntax

_QUIET = (gast.Add, gast.Sub, gast.Mult)


def invariants_hoisted(
    function: gast.FunctionDef, is_float: Callable[[str], bool], has_tangent: Callable[[str], bool]
) -> bool:
    """Move each statement of `function` that the module's docstring describes before
    its loop; whether any moved. `is_float(name)`: whether a name holds only floats;
    `has_tangent(name)`: whether the rule computes its tangent."""
    bindings: dict[str, int] = {}
    for node in syntax.walk(function):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store | gast.Del):
            bindings[node.id] = bindings.get(node.id, 0) + 1
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    local = {*bindings, *(a.id for a in parameters if isinstance(a, gast.Name))}
    return _block(function.body, bindings, lambda name: name in local and is_float(name),
                  has_tangent)  # fmt: skip


def _block(
    statements: list[gast.stmt],
    bindings: dict[str, int],
    is_float: Callable[[str], bool],
    has_tangent: Callable[[str], bool],
) -> bool:
    moved = False
    position = 0
    while position < len(statements):
        statement = statements[position]
        for field in ("body", "orelse"):
            inner = getattr(statement, field, None)
            if inner and not isinstance(statement, gast.FunctionDef):
                moved = _block(inner, bindings, is_float, has_tangent) or moved
        if isinstance(statement, gast.While) and _always(statement.test):
            hoisted = _invariants(statement, bindings, is_float, has_tangent)
            if hoisted and len(hoisted) < len(statement.body):  # (a body stays)
                statement.body = [s for s in statement.body if s not in hoisted]
                statements[position:position] = hoisted
                position += len(hoisted)
                moved = True
        position += 1
    return moved


def _always(test: gast.expr) -> bool:
    return isinstance(test, gast.Constant) and test.value is True


def _invariants(
    loop: gast.While,
    bindings: dict[str, int],
    is_float: Callable[[str], bool],
    has_tangent: Callable[[str], bool],
) -> list[gast.stmt]:
    """The statements of `loop`'s opening straight-line statements to compute before it."""
    bound = {
        n.id
        for n in syntax.walk(loop)
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store | gast.Del)
    }
    read: set[str] = set()  # the names the statements before read
    hoisted: list[gast.stmt] = []
    for statement in loop.body:
        if not isinstance(statement, gast.Assign):
            break
        if _invariant(statement, bound, is_float):
            target = statement.targets[0]
            assert isinstance(target, gast.Name)
            name = target.id
            if bindings.get(name) == 1 and name not in read and not has_tangent(name):
                hoisted.append(statement)
                continue
        read |= {n.id for n in syntax.walk(statement) if isinstance(n, gast.Name)}
    return hoisted


def _invariant(statement: gast.Assign, bound: set[str], is_float: Callable[[str], bool]) -> bool:
    target, value = statement.targets[0], statement.value
    if len(statement.targets) != 1 or not isinstance(target, gast.Name):
        return False
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, _QUIET)):
        return False
    return all(_same_on_every_pass(o, bound, is_float) for o in (value.left, value.right))


def _same_on_every_pass(
    operand: gast.expr, bound: set[str], is_float: Callable[[str], bool]
) -> bool:
    """A float constant, or a local float name the loop does not bind."""
    if isinstance(operand, gast.Constant):
        return type(operand.value) is float
    return isinstance(operand, gast.Name) and operand.id not in bound and is_float(operand.id)

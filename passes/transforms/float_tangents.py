"""A forward rule for several directions with its tangents of float64 numbers computed
as Python floats.

An element of a float64 array is a NumPy float64, and each operation on one costs about
twice what it costs on a Python float. The rule for several directions
(`passes/transforms/directions.py`) repeats every tangent statement once per direction,
so that on the Lorenz system's elements its tangents cost four times its primal. Where
every tangent statement is quiet arithmetic (`+`, `-`, `*`, unary `-`, which give the
same number, bit for bit, on Python floats and float64, and never raise), a copy of an
element of a tangent array, a symbolic zero, or a call of a rule that only collects its
arguments (`make_list`, `np.array`), the rule instead

- reads each tangent of a float64 number copied from an array, before any loop, as a
  Python float: `x_dot_0 = real_float(state_dot_0[0])` (`srcad.tangents.real_float`,
  which gives anything but a NumPy float64, a symbolic zero, as it is);
- reads, in the tangents' arithmetic, each float64 number of the primal through a Python
  float bound after each of its bindings: `x_f = float(x)` (float64 or Python float:
  `float` gives the same number).

Each tangent then computes the same number as before, on Python floats; a tangent that
the rule returns or collects is a Python float where it was a float64 (`jacobian` puts
it in its float64 array, as it would the other). The primal is as it was: its
statements, and what they compute, are unchanged.

Float64 only: a float32's arithmetic rounds to float32, a Python float's does not.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from srcad import syntax
from srcad.syntax import load, store

_QUIET = (gast.Add, gast.Sub, gast.Mult, gast.USub, gast.UAdd)


def float_tangents(function: gast.FunctionDef, tangents: set[str], float64: Callable[[str], bool],
                   collecting: set[str], bind: Callable[[], tuple[str, str]]) -> bool:  # fmt: skip
    """Rewrite `function`, a forward rule for several directions whose tangent names are
    `tangents`, as the module's docstring says, where it applies; False, and `function`
    unchanged, where it does not. `float64(name)`: whether a primal name holds only
    float64 numbers (a Python float or a NumPy float64); `collecting`: the names the
    collecting rules are called by; `bind()`: the names emitted code reads
    `srcad.tangents.real_float` and `float` by."""
    statements = _tangent_statements(function, tangents, collecting)
    if statements is None:
        return False
    tested = {
        n.id
        for s in statements
        if isinstance(s.value, gast.IfExp)
        for n in syntax.walk(s.value.test)
        if isinstance(n, gast.Name)
    }
    if any(isinstance(s.targets[0], gast.Name) and s.targets[0].id in tested for s in statements):
        return False  # a tested tangent that a rewritten statement may bind as a float
    quiet = [s for s in statements if _quiet(s.value)]
    read = {
        n.id
        for s in quiet
        for n in syntax.walk(s.value)
        if isinstance(n, gast.Name) and n.id not in tangents and float64(n.id)
    }
    taken = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
    taken |= {a.id for a in [*function.args.posonlyargs, *function.args.args]}
    shadows: dict[str, str] = {}
    for name in sorted(read):
        shadow = f"{name}_f"
        while shadow in taken:
            shadow += "_"
        taken.add(shadow)
        shadows[name] = shadow
    seeds = [s for s in statements if isinstance(s.value, gast.Subscript)]
    top = set(map(id, function.body))
    if not _shadowable(function, shadows):
        return False
    if not shadows and not any(id(s) in top for s in seeds):
        return False
    real_float, to_float = bind()
    for seed in seeds:
        if id(seed) in top:  # before any loop: once per call
            seed.value = gast.Call(func=load(real_float), args=[seed.value], keywords=[])
    for statement in quiet:
        for node in syntax.walk(statement.value):
            if isinstance(node, gast.Name) and node.id in shadows:
                node.id = shadows[node.id]
    parameters = [a.id for a in [*function.args.posonlyargs, *function.args.args]]
    start = [_shadow(p, shadows, to_float) for p in parameters if p in shadows]
    function.body = start + _block(function.body, shadows, to_float)
    return True


def _tangent_statements(function: gast.FunctionDef, tangents: set[str],
                        collecting: set[str]) -> list[gast.Assign] | None:  # fmt: skip
    """The assignments that bind a tangent, each of a kind the module's docstring allows
    (the first statement, unpacking `dargs`, and the `return` aside); None where some
    statement reading or binding a tangent is of another."""
    found = []
    for statement in syntax.walk(function):
        if not isinstance(statement, gast.stmt) or statement is function.body[0]:
            continue
        if isinstance(statement, gast.Return | gast.FunctionDef):
            continue
        if isinstance(statement, gast.If | gast.While | gast.For):
            continue  # their tests read no tangent (`directions._plain`)
        names = {n.id for n in syntax.walk(statement) if isinstance(n, gast.Name)}
        if not names & tangents:
            continue
        if not isinstance(statement, gast.Assign):
            return None
        value = statement.value
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
            if value.func.id in collecting and all(_collected(a, tangents) for a in value.args):
                continue
            return None
        if not isinstance(statement.targets[0], gast.Name):
            return None
        if not (_quiet(value) or _seed(value, tangents) or _zero(value, tangents)):
            return None
        found.append(statement)
    return found


def _quiet(value: gast.expr) -> bool:
    """Arithmetic that gives the same number on Python floats as on float64, and never
    raises: `+`, `-`, `*`, unary `-` on names and numbers."""
    if isinstance(value, gast.BinOp):
        return isinstance(value.op, _QUIET) and _quiet(value.left) and _quiet(value.right)
    if isinstance(value, gast.UnaryOp):
        return isinstance(value.op, _QUIET) and _quiet(value.operand)
    if isinstance(value, gast.Constant):
        return type(value.value) in (int, float)
    return isinstance(value, gast.Name)


def _collected(value: gast.expr, tangents: set[str]) -> bool:
    """An argument of a collecting rule's call: quiet arithmetic where it reads a tangent
    (the tuple of tangents, each), anything where it does not (the values)."""
    if isinstance(value, gast.Tuple):
        return all(_collected(e, tangents) for e in value.elts)
    return _quiet(value) or not _reads(value, tangents)


def _seed(value: gast.expr, tangents: set[str]) -> bool:
    """`v_dot[i]`: an element of a tangent, at an index that reads no tangent."""
    return (
        isinstance(value, gast.Subscript)
        and isinstance(value.value, gast.Name)
        and value.value.id in tangents
        and not _reads(value.slice, tangents)
    )


def _zero(value: gast.expr, tangents: set[str]) -> bool:
    """`0.0 if type(x_dot) is float else ZERO` (`ForwardAD._zeros_for`): a tangent read
    by the test only, whose outcome the rewrite does not change (a parameter's tangent,
    which it does not read anew)."""
    if not isinstance(value, gast.IfExp):
        return False
    test = value.test
    return (
        _quiet(value.body)
        and _quiet(value.orelse)
        and isinstance(test, gast.Compare)
        and isinstance(test.left, gast.Call)
        and all(isinstance(a, gast.Name) for a in test.left.args)
        and not _reads(value.body, tangents)
        and not _reads(value.orelse, tangents)
    )


def _reads(node: gast.AST, names: set[str]) -> bool:
    return any(isinstance(n, gast.Name) and n.id in names for n in syntax.walk(node))


def _shadowable(function: gast.FunctionDef, shadows: dict[str, str]) -> bool:
    """Whether each name shadowed is bound only by assignments and `for` targets (and as
    a parameter) in the blocks `_block` goes through (the function's, and the bodies of
    its `if`s and loops), so that a shadow bound after each binding always holds its
    number."""
    reached: set[int] = set()
    pending = list(function.body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, gast.If | gast.For | gast.While):
            pending += [*statement.body, *statement.orelse]
        if isinstance(statement, gast.Assign):
            reached |= {id(n) for t in statement.targets for n in syntax.walk(t)}
        if isinstance(statement, gast.For):
            reached |= {id(n) for n in syntax.walk(statement.target)}
    return not any(
        isinstance(node, gast.Name)
        and node.id in shadows
        and isinstance(node.ctx, gast.Store | gast.Del)
        and id(node) not in reached
        for node in syntax.walk(function)
    )


def _bound(node: gast.AST, shadows: dict[str, str]) -> list[str]:
    return [n.id for n in syntax.walk(node) if isinstance(n, gast.Name) and n.id in shadows]


def _shadow(name: str, shadows: dict[str, str], to_float: str) -> gast.Assign:
    value = gast.Call(func=load(to_float), args=[load(name)], keywords=[])
    return gast.Assign(targets=[store(shadows[name])], value=value, type_comment=None)


def _block(statements: list[gast.stmt], shadows: dict[str, str], to_float: str) -> list[gast.stmt]:
    """`statements` with a shadow bound after each binding of a shadowed name."""
    out: list[gast.stmt] = []
    for statement in statements:
        if isinstance(statement, gast.If | gast.For | gast.While):
            statement.body = _block(statement.body, shadows, to_float)
            statement.orelse = _block(statement.orelse, shadows, to_float)
        out.append(statement)
        if isinstance(statement, gast.For):
            names = _bound(statement.target, shadows)
            first = [syntax.located(_shadow(n, shadows, to_float), statement) for n in names]
            statement.body = first + statement.body
        elif isinstance(statement, gast.Assign):
            names = [n for t in statement.targets for n in _bound(t, shadows)]
            out += [syntax.located(_shadow(n, shadows, to_float), statement) for n in names]
    return out

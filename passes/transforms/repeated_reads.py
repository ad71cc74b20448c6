"""A forward rule's element read again, `a[i]`, read from the name an earlier statement
bound it to.

`ForwardAD` writes each operation's tangent from the operands it names: `(1.0 - x[i])`
after `x_i = x[i]` reads `x[i]` again, and its tangent `-x_dot[i]` reads `x_dot[i]`
again beside `x_i_dot = x_dot[i]`. Where a statement `t = a[k]` (`a` a name, `k` a name
or an int constant) comes before, in the same block or a block around it (not across a
loop's boundary), a later read `a[k]`, that read gives `t`'s value, where

- `a` is a vector whose items reading changes nothing and gives equal values each time:
  a NumPy array of one dimension of a known kind, a tangent of one (an array, or a
  symbolic zero whose items are zeros), or a list of floats `float_items` made;
- no statement between binds `a`, `k` or `t` (one that binds them in a branch or a loop
  counts), and none calls a function other than the pure functions of numbers the
  tangents' arithmetic calls (a call might write into `a`): nothing can change `a[k]`;
- nothing in the rule writes an item (the rule is left as it is otherwise).

An element of a NumPy array read twice is two float64s of the same number; a list's, the
same float: the read gives the same number, of the same type.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from srcad import syntax

_Key = tuple[str, object]


def repeated_reads_named(
    function: gast.FunctionDef, vector: Callable[[str], bool], pure: set[str]
) -> bool:
    """Rewrite `function` as the module's docstring says; whether any read was.
    `vector(name)`: whether `name` holds a vector as the docstring says; `pure`: the
    names of the pure functions of numbers the rule calls."""
    for node in syntax.walk(function):
        if isinstance(node, gast.Subscript | gast.Starred) and not isinstance(node.ctx, gast.Load):
            return False
        if isinstance(node, gast.AugAssign):
            return False
    return _block(function.body, {}, vector, pure)


def _key(value: gast.expr, vector: Callable[[str], bool]) -> _Key | None:
    """`(a, k)` for a read `a[k]` of a vector by a name or an int constant."""
    if not (isinstance(value, gast.Subscript) and isinstance(value.ctx, gast.Load)):
        return None
    base, index = value.value, value.slice
    if not (isinstance(base, gast.Name) and vector(base.id)):
        return None
    if isinstance(index, gast.Name):
        return (base.id, index.id)
    if isinstance(index, gast.Constant) and type(index.value) is int:
        return (base.id, index.value)
    return None


def _block(statements: list[gast.stmt], outer: dict[_Key, str],
           vector: Callable[[str], bool], pure: set[str]) -> bool:  # fmt: skip
    available = dict(outer)  # each read, by its key, and the name bound to it
    named = False
    for statement in statements:
        if isinstance(statement, gast.FunctionDef | gast.ClassDef):
            available.clear()
            continue
        if isinstance(statement, gast.If):
            if not _calls(statement.test, pure):
                named = _replaced(statement.test, available, vector) or named
            named = _block(statement.body, available, vector, pure) or named
            named = _block(statement.orelse, available, vector, pure) or named
        elif isinstance(statement, gast.For | gast.While):
            named = _block(statement.body, {}, vector, pure) or named
            named = _block(statement.orelse, {}, vector, pure) or named
        elif not isinstance(statement, gast.Return | gast.Assign | gast.Expr):
            available.clear()
            continue
        elif statement.value is not None and not _calls(statement, pure):
            # (a call in the statement may run before the read, and write into `a`)
            named = _replaced(statement, available, vector) or named
        if _calls(statement, pure):
            available.clear()
            continue
        bound = {
            n.id
            for n in syntax.walk(statement)
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
        }
        for read, name in list(available.items()):
            if bound & {read[0], read[1], name}:
                del available[read]
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            key = _key(statement.value, vector)
            if key is not None and isinstance(target, gast.Name) and target.id not in key:
                available.setdefault(key, target.id)
    return named


def _replaced(node: gast.AST, available: dict[_Key, str], vector: Callable[[str], bool]) -> bool:
    """Replace each read in `node` whose key is `available` by the name bound to it."""
    if not available:
        return False
    named = False
    for parent in syntax.walk(node):
        for field, value in gast.iter_fields(parent):
            values = value if isinstance(value, list) else [value]
            for position, child in enumerate(values):
                if not isinstance(child, gast.Subscript):
                    continue
                key = _key(child, vector)
                if key is None or key not in available:
                    continue
                name = gast.Name(id=available[key], ctx=gast.Load(), annotation=None,
                                 type_comment=None)  # fmt: skip
                if isinstance(value, list):
                    value[position] = name
                else:
                    setattr(parent, field, name)
                named = True
    return named


def _calls(node: gast.AST, pure: set[str]) -> bool:
    """Whether `node` calls anything but a pure function of numbers."""
    return any(
        isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id in pure)
        for n in syntax.walk(node)
    )

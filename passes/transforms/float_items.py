"""A forward rule's tangent of a float64 vector read as a list of Python floats, where
the rule reads its elements in a loop.

An element of a float64 array is a NumPy float64: `x_dot[i]` costs about four times
what reading a list item does, and each operation on it about three times what it costs
on a Python float. Where the rule reads the tangent `x_dot` of a float64 vector `x` (its
kind, guarded on entry) only by an int index (`x_dot[i]`, `i` of an int kind), some read
inside a loop, the rule reads it once, after unpacking its tangents, as
`x_dot_items = float_items(x_dot)` (`srcad.tangents.float_items`: `x_dot.tolist()` for a
native float64 array of one dimension; anything else, a symbolic zero, another dtype or
shape, a tangent with a trailing axis of directions, as it is), and reads
`x_dot_items[i]`.

Why the rule computes the same numbers, and shows them as it did:

- A read `x_dot_items[i]` gives the same number as `x_dot[i]` (`tolist` gives each
  float64 as the Python float of the same IEEE double; a list takes the same int
  indices, negative ones too, and raises IndexError where the array does). Nothing
  writes into `x_dot`: it is a parameter's tangent, bound once, which the rule reads by
  index alone, and srcad refuses item writes into parameters; the rule is left as it is
  where anything in it writes an item.
- A value computed from such reads is *tainted* where it is a chain of `+`, `-`, `*`
  and unary `-` whose other operands are numbers for sure: a float or int constant, a
  name of the primal whose kind is a float or an int (Python or NumPy: guarded), a call
  of a pure function of numbers (the tangents' `cos(x)`), or other tainted values. A
  name bound to a tainted chain is tainted everywhere it is read. On Python floats these
  operations give the same number, bit for bit, as on NumPy float64s, and never raise
  (an overflow is `inf` on both; an int too large for a float raises on both). Before,
  each tainted value was a NumPy float64 (a float64 operand makes the result one), a
  symbolic zero or a Python float (a tangent's zero, `0.0`); now it is the same number,
  a Python float or a float64.
- Everywhere else a tainted value is read (a division, a power, a comparison, a call of
  a rule or of any function, a container, a `return`) is where its type could show: a
  Python float divided by a Python float zero raises where a float64 gives `inf`, a
  callee's rule or the caller sees a Python float. There the rule reads it as
  `float64_number(t)` (`srcad.tangents.float64_number`: a Python float as the float64 of
  the same number, anything else as it is): what it was before, or a float64 where it
  was a Python float (which raises nowhere a Python float does not). Such reads cost a
  call, so the rule is left as it is where one is inside a loop.
- Float64 only: a float32's elements round to float32, a complex's are not floats; a
  tangent whose kind is not a float64 vector's is not read so. A rule for several
  directions is not rewritten (`float_tangents` reads its elements as floats).

Both helpers have rules (`rules/linear_helpers.py`), so reverse mode over the rule
(second derivatives) differentiates them as the list and the number they give.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from srcad import syntax
from srcad.kinds import FLOAT, INT, PYTHON_FLOAT, PYTHON_INT, Kind
from srcad.syntax import load, store

_QUIET = (gast.Add, gast.Sub, gast.Mult)
_SIGNS = (gast.USub, gast.UAdd)
# The kinds of an int number, of a real number, of a float number, of a float64 vector.
_INTS = (INT, PYTHON_INT)
_REALS = (PYTHON_FLOAT, FLOAT, INT, PYTHON_INT)
_FLOATS = (PYTHON_FLOAT, FLOAT)
_VECTOR = ("f", 1)


def items_read(function: gast.FunctionDef, kinds: dict[str, Kind], primals: dict[str, str],
               pure: set[str], zero: str, bind: Callable[[], tuple[str, str]]) -> bool:  # fmt: skip
    """`float_items_read` for a forward rule whose primal names have `kinds`, whose
    tangents are `primals`' keys (each the tangent of its value), whose tangents'
    arithmetic calls the pure functions of numbers `pure` and reads a symbolic zero by
    the name `zero`."""
    vectors = {dot for dot, name in primals.items() if kinds.get(name) == _VECTOR}

    def is_index(node: gast.expr) -> bool:
        if isinstance(node, gast.Constant):
            return type(node.value) is int
        return isinstance(node, gast.Name) and kinds.get(node.id) in _INTS

    def is_number(node: gast.expr) -> bool:
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float)
        if isinstance(node, gast.Name):
            return node.id not in primals and kinds.get(node.id) in _REALS
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, _SIGNS):
            return is_number(node.operand)
        if isinstance(node, gast.BinOp) and isinstance(node.op, _QUIET):
            return is_number(node.left) and is_number(node.right)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            calls_pure = node.func.id in pure and not node.keywords
            return calls_pure and all(is_number(a) for a in node.args)
        return False

    def scalar(name: str) -> bool:
        return name in primals and kinds.get(primals[name]) in _FLOATS

    def is_zero(node: gast.expr) -> bool:
        if isinstance(node, gast.IfExp):
            zeros = (node.body, node.orelse)
            return all(is_zero(z) or (isinstance(z, gast.Constant) and z.value == 0.0)
                       for z in zeros)  # fmt: skip
        return isinstance(node, gast.Name) and node.id == zero

    return float_items_read(function, vectors, is_index, is_number, scalar, is_zero, bind)


def float_items_read(function: gast.FunctionDef, vectors: set[str],
                     is_index: Callable[[gast.expr], bool], is_number: Callable[[gast.expr], bool],
                     scalar: Callable[[str], bool], is_zero: Callable[[gast.expr], bool],
                     bind: Callable[[], tuple[str, str]]) -> bool:  # fmt: skip
    """Rewrite `function`, a forward rule whose first statement unpacks its tangents, as
    the module's docstring says, where it applies; whether it did. `vectors`: the tangents
    of float64 vectors; `is_index(e)`: whether `e` is an int for sure; `is_number(e)`:
    whether `e` is a number for sure (a constant, a primal name, a pure call);
    `scalar(name)`: whether `name` is the tangent of a float number (a Python float or
    a float64: a number or a zero, whatever binds it); `is_zero(e)`: whether `e` is a
    tangent's zero (`ZERO`, `0.0 if ... else ZERO`); `bind()`: the names emitted code
    reads `float_items` and `float64_number` by."""
    if not function.body or function.args.vararg is not None:
        return False
    header = function.body[0]
    if not isinstance(header, gast.Assign) or not isinstance(header.targets[0], gast.Tuple):
        return False
    parents = _parents(function)
    stores: dict[str, int] = {}
    for node in parents:
        if isinstance(node, gast.Subscript | gast.Starred) and not isinstance(node.ctx, gast.Load):
            return False  # an item written (conservatively: anywhere)
        if isinstance(node, gast.AugAssign):
            return False
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
    unpacked = {n.id for n in syntax.walk(header.targets[0]) if isinstance(n, gast.Name)}
    reads: dict[str, list[gast.Subscript]] = {}
    other: set[str] = set()  # the vectors read otherwise than by an int index
    for node, parent in parents.items():
        if not (isinstance(node, gast.Name) and node.id in vectors):
            continue
        if not isinstance(node.ctx, gast.Load):
            continue
        if not (
            isinstance(parent, gast.Subscript)
            and parent.value is node
            and isinstance(parent.ctx, gast.Load)
            and is_index(parent.slice)
        ):
            other.add(node.id)
            continue
        reads.setdefault(node.id, []).append(parent)
    chosen = {
        name: found
        for name, found in reads.items()
        if name not in other
        and name in unpacked
        and stores.get(name) == 1
        and any(_in_loop(r, parents) for r in found)
        and not any(_in_function(r, parents, function) for r in found)
    }
    if not chosen:
        return False
    leaves: set[int] = {id(r) for found in chosen.values() for r in found}
    tainted = _tainted(function, leaves, is_number, scalar, is_zero)

    def is_leaf(node: gast.AST) -> bool:
        if id(node) in leaves:
            return True
        return isinstance(node, gast.Name) and _read(node) and node.id in tainted

    boundaries: list[gast.expr] = []
    for node in list(parents):
        if not is_leaf(node):
            continue
        top = _chain_top(node, parents, is_leaf, is_number)
        parent = parents[top]
        if isinstance(parent, gast.Assign) and parent.value is top:
            target = parent.targets[0]
            if isinstance(target, gast.Name) and target.id in tainted:
                continue  # a tainted name's binding
        if _in_loop(top, parents) or _in_function(top, parents, function):
            return False
        if all(b is not top for b in boundaries):  # (several reads may reach one)
            boundaries.append(top)
    items_of, number_of = bind()
    for top in boundaries:
        _replace(parents[top], top, gast.Call(func=load(number_of), args=[top], keywords=[]))
    taken = {n.id for n in parents if isinstance(n, gast.Name)}
    opening: list[gast.stmt] = []
    for name, found in sorted(chosen.items()):
        items = f"{name}_items"
        while items in taken:
            items += "_"
        taken.add(items)
        for read in found:
            read.value = load(items)
        value = gast.Call(func=load(items_of), args=[load(name)], keywords=[])
        opening.append(gast.Assign(targets=[store(items)], value=value, type_comment=None))
    function.body[1:1] = opening
    return True


def _parents(function: gast.FunctionDef) -> dict[gast.AST, gast.AST]:
    """Each node of `function`'s body, with the node it is in."""
    parents: dict[gast.AST, gast.AST] = {}
    pending: list[gast.AST] = [function]
    while pending:
        node = pending.pop()
        for child in gast.iter_child_nodes(node):
            parents[child] = node
            pending.append(child)
    return parents


def _in_loop(node: gast.AST, parents: dict[gast.AST, gast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, gast.For | gast.While):
            return True
        if isinstance(node, gast.FunctionDef | gast.Lambda):
            return False
    return False


def _in_function(node: gast.AST, parents: dict[gast.AST, gast.AST], outer: gast.AST) -> bool:
    """Whether `node` is inside a function nested in `outer`."""
    while node in parents:
        node = parents[node]
        if node is outer:
            return False
        if isinstance(node, gast.FunctionDef | gast.Lambda):
            return True
    return False


def _quiet(node: gast.AST) -> bool:
    return (isinstance(node, gast.BinOp) and isinstance(node.op, _QUIET)) or (
        isinstance(node, gast.UnaryOp) and isinstance(node.op, _SIGNS)
    )


def _chain_top(node: gast.expr, parents: dict[gast.AST, gast.AST],
               is_leaf: Callable[[gast.AST], bool],
               is_number: Callable[[gast.expr], bool]) -> gast.expr:  # fmt: skip
    """The outermost expression of the quiet chain `node` is in: climbing `+`, `-`, `*`
    and signs whose other operand is a number for sure or tainted."""
    while True:
        parent = parents.get(node)
        if parent is None or not _quiet(parent):
            return node
        if isinstance(parent, gast.BinOp):
            other = parent.right if parent.left is node else parent.left
            if not (_tainted_expression(other, is_leaf, is_number) or is_number(other)):
                return node
        node = parent


def _tainted_expression(node: gast.expr, is_leaf: Callable[[gast.AST], bool],
                        is_number: Callable[[gast.expr], bool]) -> bool:  # fmt: skip
    """Whether `node` is a quiet chain with a tainted leaf and numbers for sure."""
    if is_leaf(node):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, _SIGNS):
        return _tainted_expression(node.operand, is_leaf, is_number)
    if isinstance(node, gast.BinOp) and isinstance(node.op, _QUIET):
        left = _tainted_expression(node.left, is_leaf, is_number)
        right = _tainted_expression(node.right, is_leaf, is_number)
        if not (left or right):
            return False
        return (left or is_number(node.left)) and (right or is_number(node.right))
    return False


def _tainted(function: gast.FunctionDef, leaves: set[int],
             is_number: Callable[[gast.expr], bool], scalar: Callable[[str], bool],
             is_zero: Callable[[gast.expr], bool]) -> set[str]:  # fmt: skip
    """The names that may hold a Python float computed from the element reads `leaves`:
    the largest set of tangents of float numbers (`scalar`) each bound only to a quiet
    chain of them, of reads and of numbers, or to a zero (`is_zero`), and each bound to
    such a chain with a read in it somewhere. Each then holds a number or a zero
    whatever binds it, as a chain's operand must."""
    bindings: dict[str, list[gast.expr | None]] = {}
    plain: set[int] = set()  # the targets of `name = value`
    for node in syntax.walk(function):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and _named(node):
            bindings.setdefault(node.targets[0].id, []).append(node.value)
            plain.add(id(node.targets[0]))
    for node in syntax.walk(function):
        if (
            isinstance(node, gast.Name)
            and not isinstance(node.ctx, gast.Load)
            and id(node) not in plain
        ):
            bindings.setdefault(node.id, []).append(None)  # bound otherwise
    names = {n for n, values in bindings.items() if scalar(n) and None not in values}

    def is_leaf(node: gast.AST) -> bool:
        if id(node) in leaves:
            return True
        return isinstance(node, gast.Name) and _read(node) and node.id in names

    def kept(name: str) -> bool:
        values = [v for v in bindings[name] if v is not None]
        if not any(_tainted_expression(v, is_leaf, is_number) for v in values):
            return False
        return all(is_zero(v) or _tainted_expression(v, is_leaf, is_number) for v in values)

    dropped = True
    while dropped:
        before = len(names)
        names = {n for n in names if kept(n)}
        dropped = len(names) < before
    return names


def _read(node: gast.AST) -> bool:
    """Whether `node` reads a name."""
    return isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load)


def _replace(parent: gast.AST, old: gast.expr, new: gast.expr) -> None:
    """Put `new` where `old` is in `parent`."""
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for position, item in enumerate(value):
                if item is old:
                    value[position] = new
                    return
    raise AssertionError("not found in its parent")


def _named(statement: gast.Assign) -> bool:
    """Whether `statement` is `name = value`."""
    return isinstance(statement.targets[0], gast.Name)

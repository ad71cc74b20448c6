"""Shapes: which arrays of a gradient function surely have the same shape, and the `sum_to`
calls that this makes no-ops."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.kinds import Kind, is_numeric
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.normal_form import constant_int
from srcad.passes.transforms.simplify import ConstantFolder, is_number, push_negations
from srcad.projection import expand, fill_like, scatter, sum_to
from srcad.syntax import load

Class = frozenset[str]  # the atoms whose shapes, broadcast together, give a value's shape
SCALAR: Class = frozenset()  # a float or an int: broadcasting it changes no shape

# The runtime helpers that read some arguments for their shapes alone: by argument position.
SHAPE_ARGUMENTS = {sum_to: (1, 2), expand: (1,), fill_like: (0,), scatter: (0,)}
SHAPE_ATTRIBUTES = frozenset(["shape", "size", "ndim"])


@dataclass
class ShapeClasses:
    """Shape classes of a gradient function's arrays.

    Each array a top-level statement assigns once has a *class*: a set of *atoms*, arrays
    whose shape srcad cannot relate to another's (parameters, products `a @ b`, slices).
    A value's shape is the broadcast of its atoms' shapes: elementwise operations unite
    their operands' classes (a float operand adds nothing), so `np.exp(-x) * 2.0` has the
    class of `x`, and `x * y + y` that of `x * y`. Two values of one class have one shape,
    whatever the arguments' sizes; each atom's *root* is the first name holding it.
    """

    kinds: ValueKinds
    ctx: Context
    classes: dict[str, Class] = field(default_factory=dict)
    roots: dict[str, str] = field(default_factory=dict)  # atom: the first name holding it
    order: dict[str, int] = field(default_factory=dict)  # name: where it is assigned

    def of(self, value: gast.expr) -> Class | None:
        """The class of an expression, None where its kind or shape is not known."""
        kind = self.kinds.of(value)
        if kind is None or not isinstance(kind[1], int) or not is_numeric(kind):
            return None
        if kind[1] == 0:
            return SCALAR
        if isinstance(value, gast.Name):
            return self.classes.get(value.id)
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub | gast.UAdd):
            return self.of(value.operand)
        if isinstance(value, gast.BinOp) and not isinstance(value.op, gast.MatMult):
            left, right = self.of(value.left), self.of(value.right)
            return None if left is None or right is None else left | right
        if (
            isinstance(value, gast.Call)
            and value.args
            and not value.keywords
            and _elementwise(self.ctx, self.kinds.callee(value))
        ):
            # Its arguments broadcast together: `np.logaddexp(0.0, z)` has `z`'s shape.
            found: Class = SCALAR
            for argument in value.args:
                own = self.of(argument)
                if own is None:
                    return None
                found = found | own
            return found
        return None

    def representative(self, name: str) -> gast.expr | None:
        """An expression with `name`'s shape that reads only the roots of its atoms: the
        root itself, or `broadcast(root, ...)` for several (a NumPy object with the
        broadcast's `shape` and `size`, which srcad's helpers accept for an array)."""
        found = self.classes.get(name)
        if not found:
            return None
        roots = sorted((self.roots[atom] for atom in found), key=self.order.__getitem__)
        if roots == [name]:
            return None
        return self.stand_in(roots)

    def stand_in(self, roots: list[str]) -> gast.expr:
        """One root, or `broadcast(root, ...)` of several (which raises where their shapes
        do not broadcast together)."""
        if len(roots) == 1:
            return load(roots[0])
        broadcast = load(self.ctx.bind(np.broadcast, "broadcast"))
        return gast.Call(func=broadcast, args=[load(r) for r in roots], keywords=[])


def _elementwise(ctx: Context, function: Any) -> bool:
    """Whether `function`'s entry in the rule library says it acts elementwise (so that
    its arguments' shapes, broadcast together, are its result's)."""
    primitive = ctx.services.registry.primitive(function)
    return primitive is not None and primitive.elementwise


def shape_classes(
    function: gast.FunctionDef,
    kinds: ValueKinds,
    ctx: Context,
    stores: dict[str, int] | None = None,
) -> ShapeClasses:
    """The shape classes of `function`'s arrays (see `ShapeClasses`); `stores`, where the
    caller has them, are `store_counts(function)`."""
    found = ShapeClasses(kinds, ctx)
    parameters = [a.id for a in [*function.args.posonlyargs, *function.args.args]]
    # How many times each name is assigned, a parameter's binding included.
    counts = dict.fromkeys(parameters, 1)
    for name, count in (store_counts(function) if stores is None else stores).items():
        counts[name] = counts.get(name, 0) + count
    for position, name in enumerate(parameters):
        found.order[name] = position - len(parameters)
        if is_array(kinds.kinds.get(name)) and counts[name] == 1:
            found.classes[name] = frozenset([name])
            found.roots[name] = name
    atoms: dict[str, str] = {}  # a slice of a parameter (`_slice_key`): its atom
    for position, statement in enumerate(function.body):
        if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)):
            continue
        name = statement.targets[0].id
        found.order[name] = position
        if counts.get(name) != 1 or not is_array(kinds.kinds.get(name)):
            continue
        value = statement.value
        known = found.of(value)
        if known is None and isinstance(value, gast.Subscript) and _constant_slice(value, found):
            known = frozenset([atoms.setdefault(_slice_key(value), name)])
        if known is None or not known:
            known = frozenset([name])
        found.classes[name] = known
        for atom in known:
            found.roots.setdefault(atom, name)
    return found


def store_counts(function: gast.FunctionDef) -> dict[str, int]:
    """How many times the body of `function` binds each name (a `Name` not read: stored,
    deleted, a nested function's parameter)."""
    counts: dict[str, int] = {}
    for statement in function.body:
        for node in syntax.walk(statement):
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
                counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def is_array(kind: Kind | None) -> bool:
    return kind is not None and is_numeric(kind) and isinstance(kind[1], int) and kind[1] >= 1


def _constant_slice(value: gast.Subscript, found: ShapeClasses) -> bool:
    """`x[1:]`, `x[:, 0]`: a parameter indexed by constants alone."""
    base = value.value
    if not (isinstance(base, gast.Name) and base.id in found.classes and found.order[base.id] < 0):
        return False
    return all(not isinstance(n, gast.Name) for n in syntax.walk(value.slice))


def _slice_key(value: gast.Subscript) -> str:
    """What determines the shape of a constant slice of a parameter: `x[a:-b]` (`a, b >=
    0`, no step) has `max(0, len(x) - a - b)` rows, so `x[1:]` and `x[:-1]` have one shape;
    otherwise the slice's text (`x[:-1]` twice is one atom)."""
    assert isinstance(value.value, gast.Name)
    index = value.slice
    if isinstance(index, gast.Slice) and index.step is None:
        start = 0 if index.lower is None else constant_int(index.lower)
        stop = 0 if index.upper is None else constant_int(index.upper)
        cut_from_end = index.upper is None or (stop is not None and stop < 0)
        if start is not None and stop is not None and start >= 0 and cut_from_end:
            return f"{value.value.id}[rows - {start - stop}]"
    return gast.dump(value)


def shape_uses(function: gast.FunctionDef, ctx: Context) -> Iterator[tuple[gast.AST, str, int]]:
    """Where `function` reads a name for its shape alone: `(node, field, index)` of each
    such `Name` (`index` -1 for a plain field): `x.shape`, `x.size`, and the shape-only
    arguments of srcad's runtime helpers."""
    helpers = shape_helpers(ctx)
    for node in syntax.walk(function):
        yield from shape_uses_at(node, helpers)


def shape_helpers(ctx: Context) -> dict[str, tuple[int, ...]]:
    """The names of the runtime helpers that read arguments for their shapes alone, with
    the positions of those arguments."""
    return {name: SHAPE_ARGUMENTS[value] for name, value in ctx.output.runtime.items()
            if _hashable(value) and value in SHAPE_ARGUMENTS}  # fmt: skip


def shape_uses_at(
    node: gast.AST, helpers: dict[str, tuple[int, ...]]
) -> Iterator[tuple[gast.AST, str, int]]:
    """The reads for the shape alone (see `shape_uses`) that `node` itself makes, not its
    children: `node.value` for `x.shape`, the shape-only arguments of a helper's call."""
    if isinstance(node, gast.Attribute):
        if node.attr in SHAPE_ATTRIBUTES and isinstance(node.value, gast.Name):
            yield node, "value", -1
    elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
        for position in helpers.get(node.func.id, ()):
            if position < len(node.args) and isinstance(node.args[position], gast.Name):
                yield node, "args", position


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


class Shapes(Transform):
    """In a gradient function (`grad_f`, where the seed is 1.0 and kinds are known), a
    `sum_to` whose cotangent surely has its operand's shape already is that cotangent:

    - `sum_to(dx, x)` where `dx` has the class of `x`, or is a float;
    - `sum_to(dx, x, y)` (a float `dx` standing for every element of `y`) where `x` and
      `y` have one class; and where `dx`, an array, has `y`'s class, `sum_to(dx, x)`
      (otherwise `dx` stands for all of `y` too, broadcast there).

    The arithmetic this leaves on numbers alone is done (`100.0 * 1.0 * 2`: `200.0`), and
    a name assigned a number once is replaced by it.

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x):
    ...     return np.sum(3.0 * np.sin(x))
    ... ''', kinds="float[:]", fused=True), end="")
    def grad_f(x):
        n3_times_sin_x = 3.0 * np.sin(x)
        out = np.sum(n3_times_sin_x)
        del n3_times_sin_x
        # <doctest>:3  return np.sum(3.0 * np.sin(x))
        x_bar = 3.0 * cos(x)
        return (out, (NO_TANGENT, x_bar))
    """

    # The last round's kinds: the round changed nothing.
    preserves = (ValueKinds,)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        self.sum_to = ctx.output.runtime.name_of(sum_to)
        if self.sum_to is None:
            return False  # no derivative of an operation that broadcasts was inlined
        self.copies: set[str] = set()  # names a rewrite left holding a number or a name
        changed = False
        while True:  # each round's kinds see the last round's floats
            kinds = ValueKinds().run(tree, ctx)
            self.found = shape_classes(function, kinds, ctx)
            rewritten = self._resolve_no_ops(function)
            rewritten = _propagate_copies(function, self.copies) or rewritten
            folder = ConstantFolder()
            folder.visit(function)
            rewritten = push_negations(function) or folder.changed or rewritten
            if not rewritten:
                ctx.results[ValueKinds] = kinds  # the tree as it is now: the passes after read it
                return changed
            changed = True

    def _resolve_no_ops(self, function: gast.FunctionDef) -> bool:
        """Put each no-op `sum_to`'s cotangent in its place; an assignment this leaves a
        number, a name or a negated name is a copy to propagate."""
        changed = False
        for statement in function.body:
            rewritten = False
            for node in syntax.walk(statement):
                for name in syntax.child_fields(type(node)):
                    value = getattr(node, name, None)
                    items = value if isinstance(value, list) else [value]
                    for index, child in enumerate(items):
                        replaced = self._no_op(child)
                        if replaced is None:
                            continue
                        if isinstance(value, list):
                            value[index] = replaced
                        else:
                            setattr(node, name, replaced)
                        rewritten = True
            if rewritten and isinstance(statement, gast.Assign):
                value = statement.value
                if is_number(value) or _name_or_negated(value):
                    self.copies.update(n.id for n in statement.targets if isinstance(n, gast.Name))
            changed = rewritten or changed
        return changed

    def _no_op(self, node: object) -> gast.expr | None:
        """`dx` for a `sum_to(dx, x[, y])` that would give `dx`; `sum_to(dx, x)` for one
        whose `dx` is an array; else None."""
        if not (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Name)
            and node.func.id == self.sum_to
            and 2 <= len(node.args) <= 3
            and not node.keywords
        ):
            return None
        dx, x, *y = node.args
        of = self.found.of
        gradient, operand = of(dx), of(x)
        if gradient is None or operand is None:
            return None
        if y and gradient != SCALAR and gradient != operand:
            # `y` adds nothing where `dx` has its shape already; otherwise `dx` stands for
            # all of `y` (`sum_to` broadcasts it there first).
            if of(y[0]) == gradient:
                return gast.Call(func=node.func, args=[dx, x], keywords=[])
            return None
        if gradient == SCALAR:  # a float: itself, unless it stands for a part of `y`
            if not y:
                return dx
            result = of(y[0])
            if result == SCALAR:
                return dx
            return dx if result is not None and operand == result else None
        return dx if gradient == operand else None


def _propagate_copies(function: gast.FunctionDef, names: set[str]) -> bool:
    """Each of `names` assigned once, at the function's top level, a number or a name
    assigned once too, is read as that number or name, and its assignment goes; so is
    one assigned `-name` and read once (where the negation may then fold into a number:
    `push_negations`)."""
    stores: dict[str, int] = {}
    loads: dict[str, int] = {}
    for node in syntax.walk(function):
        if isinstance(node, gast.Name):
            counts = loads if isinstance(node.ctx, gast.Load) else stores
            counts[node.id] = counts.get(node.id, 0) + 1
    copies: dict[str, gast.expr] = {}
    kept = []
    for statement in function.body:
        target = statement.targets[0] if isinstance(statement, gast.Assign) else None
        if isinstance(target, gast.Name) and target.id in names and stores[target.id] == 1:
            value = statement.value
            name = _name_or_negated(value)
            read_once = isinstance(value, gast.Name) or loads.get(target.id) == 1
            if is_number(value) or (name is not None and stores.get(name) == 1 and read_once):
                copies[target.id] = value
                continue
        kept.append(statement)
    if not copies:
        return False
    function.body = kept
    for node in syntax.walk(function):
        for name, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for index, child in enumerate(items):
                if not (isinstance(child, gast.Name) and child.id in copies):
                    continue
                copy = syntax.copy_tree(copies[child.id])
                while isinstance(copy, gast.Name) and copy.id in copies:  # a copy of a copy
                    copy = syntax.copy_tree(copies[copy.id])
                if isinstance(value, list):
                    value[index] = copy
                else:
                    setattr(node, name, copy)
    return True


def _name_or_negated(node: gast.expr) -> str | None:
    """`x` for `x` or `-x`."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return node.id if isinstance(node, gast.Name) else None

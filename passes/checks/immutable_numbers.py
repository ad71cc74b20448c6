"""Proofs that a variable holds an immutable number wherever it is read: `name += v` on it
is then a rebinding in Python too (a float, an int, a NumPy scalar has no `__iadd__`),
whatever else refers to the value, so the mutation check lets it through.

Each variable of a scope gets the kind (`srcad.kinds`) of every value it may hold: the
join of what each of its bindings gives (a literal, arithmetic, a subscript, a call of a
primitive whose entry in the rule library gives its result's kind, `float(...)`, `len`,
the `math` module's functions, a `for` over `range(...)` or over an array, a parameter of
the argument kind the code is compiled for), found as the least fixpoint, as
`analyses/value_kinds.py` does for normal-form code. Unlike that analysis, it reads the
function as written, `+=` included. A kind of no dimensions (`FLOAT`, `INT`) is never an
array (a 0-d array has no kind); anything unknown (an attribute, a call of an unknown
function, a global) may be one, and proves nothing.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.kinds import FLOAT, INT, PYTHON_FLOAT, RANGE, Kind, is_integer, is_numeric, join
from srcad.passes.analyses.scopes import variable_nodes
from srcad.passes.analyses.value_kinds import BOTTOM, result_kind, subscript
from srcad.passes.normal_form import OPERATORS, integral_power
from srcad.registry import Registry

# A Python number whose kind is not known more closely (a bool, a `math` function's result).
NUMBER: Kind = ("number", 0)

# Builtins whose result is a number of this kind whatever their arguments (or an error).
_RESULTS: dict[Any, Kind] = {float: PYTHON_FLOAT, int: INT, len: INT, bool: NUMBER}

# NumPy's constructors that make a float64 array of a shape where no `dtype` is given.
_FLOAT_ARRAYS = (np.zeros, np.ones, np.empty)


def holds_number(kind: Kind | None) -> bool:
    """Whether a value of this kind is surely an immutable number (no array, no 0-d array)."""
    return kind is not None and kind[1] == 0 and (is_numeric(kind) or kind == NUMBER)


def variable_kinds(
    scope: gast.FunctionDef | gast.Lambda,
    parameter_kinds: Mapping[str, Kind | None],
    resolve: Callable[[gast.expr], Any],
    parents: Mapping[gast.AST, gast.AST],
    registry: Registry,
) -> dict[str, Kind | None]:
    """The kind of each variable of `scope` (None: unknown). `parameter_kinds`: the
    argument kinds of its parameters (those of the function compiled; none for a nested
    one); `resolve`: the object a dotted callee name refers to now; `parents`: each node's."""
    bindings: dict[str, list[gast.Name]] = {}
    shared: set[str] = set()  # declared `global` or `nonlocal`, or bound by `:=`
    for node in syntax.walk(scope):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            bindings.setdefault(node.id, [])
        elif isinstance(node, gast.Global | gast.Nonlocal):
            shared.update(node.names)
        elif isinstance(node, gast.NamedExpr) and isinstance(node.target, gast.Name):
            shared.add(node.target.id)  # from a comprehension, it binds the enclosing scope's
    for name in list(bindings):
        stored = [
            n for n in variable_nodes(scope, name) if isinstance(n.ctx, gast.Store | gast.Param)
        ]
        if stored and name not in shared:
            bindings[name] = stored
        else:
            del bindings[name]  # another scope's variable, or one shared with it
    kinds = _Kinds(set(bindings), parameter_kinds, resolve, parents, registry)
    changed = True
    while changed:
        changed = False
        for name, stored in bindings.items():
            for node in stored:
                kind = kinds.bound(node)
                if kind is BOTTOM:
                    continue  # what it reads has no kind yet
                known = kinds.found.get(name, BOTTOM)
                joined = kind if known is BOTTOM else join(known, kind)
                if joined != known:
                    kinds.found[name] = joined
                    changed = True
    return {name: kinds.found.get(name) for name in bindings}


class _Kinds:
    """The kinds found so far (a variable absent: none yet), and what a binding or an
    expression gives with them."""

    def __init__(
        self,
        variables: set[str],
        parameter_kinds: Mapping[str, Kind | None],
        resolve: Callable[[gast.expr], Any],
        parents: Mapping[gast.AST, gast.AST],
        registry: Registry,
    ) -> None:
        self.variables = variables
        self.found: dict[str, Kind | None] = {}
        self.parameter_kinds = parameter_kinds
        self.resolve = resolve
        self.parents = parents
        self.registry = registry

    def bound(self, node: gast.Name) -> Kind | None:
        """The kind of the value the binding `node` gives its variable."""
        if isinstance(node.ctx, gast.Param):
            return self.parameter_kinds.get(node.id)
        parent = self.parents.get(node)
        if isinstance(parent, gast.Assign) and parent.targets == [node]:
            return self.of(parent.value)
        if isinstance(parent, gast.AnnAssign) and parent.target is node and parent.value:
            return self.of(parent.value)
        if isinstance(parent, gast.AugAssign) and parent.target is node:
            operands = [self.found.get(node.id, BOTTOM), self.of(parent.value)]
            return self._arithmetic(OPERATORS[type(parent.op)], operands)
        if isinstance(parent, gast.For) and parent.target is node:
            iterated = parent.iter
            if isinstance(iterated, gast.Call) and self.resolve(iterated.func) is builtins.range:
                return INT
            kind = self.of(iterated)
            if kind is BOTTOM or kind is None:
                return kind
            return (kind[0], kind[1] - 1) if kind[1] >= 1 and kind != RANGE else None
        return None

    def of(self, value: gast.expr) -> Kind | None:
        """The kind of an expression (BOTTOM while a variable it reads has none yet)."""
        if isinstance(value, gast.Constant):
            if type(value.value) is float:
                return PYTHON_FLOAT
            return INT if type(value.value) is int else None
        if isinstance(value, gast.Name):
            if value.id in self.variables:
                return self.found.get(value.id, BOTTOM)
            return None
        if isinstance(value, gast.BinOp):
            operands = [self.of(value.left), self.of(value.right)]
            if integral_power(value):
                operands[1] = INT  # `x ** 2.0` is real as `x ** 2` is
            return self._arithmetic(OPERATORS[type(value.op)], operands)
        if isinstance(value, gast.UnaryOp) and not isinstance(value.op, gast.Not):
            return self._arithmetic(OPERATORS[type(value.op)], [self.of(value.operand)])
        if isinstance(value, gast.Subscript):
            index = value.slice
            parts = index.elts if isinstance(index, gast.Tuple) else [index]
            kinds = [self.of(value.value)]
            kinds += [self.of(p) for p in parts if not isinstance(p, gast.Slice)]
            return BOTTOM if BOTTOM in kinds else subscript(kinds[0], index, self.of)
        if _copies(value):
            assert isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            kind = self.of(value.func.value)  # an array's copy is an array of its kind
            if kind is BOTTOM or (kind is not None and is_numeric(kind) and kind[1] >= 1):
                return kind
            return None
        if isinstance(value, gast.Call) and not value.keywords:
            callee = self.resolve(value.func)
            try:
                fixed = _RESULTS.get(callee)
            except TypeError:  # not hashable
                fixed = None
            if fixed is not None:
                return fixed
            if any(callee is made for made in _FLOAT_ARRAYS):
                return self._float_array(value.args)
            if callable(callee) and getattr(callee, "__module__", None) == "math":
                return NUMBER  # a Python number (or a tuple of them: never changed in place)
            return self._result(callee, value.args)
        if isinstance(value, gast.Compare | gast.BoolOp | gast.IfExp):
            parts = (
                [value.left, *value.comparators]
                if isinstance(value, gast.Compare)
                else value.values
                if isinstance(value, gast.BoolOp)
                else [value.body, value.orelse]
            )
            kinds = [self.of(p) for p in parts]
            if BOTTOM in kinds:
                return BOTTOM
            return NUMBER if all(holds_number(k) for k in kinds) else None
        return None

    def _float_array(self, args: list[gast.expr]) -> Kind | None:
        """What `np.zeros(shape)` (or `np.ones`, `np.empty`) makes with no `dtype`: a
        float64 array of as many dimensions as `shape` has (an int: one; a tuple display:
        its length); None where that is not seen."""
        if len(args) != 1 or isinstance(args[0], gast.Starred):
            return None
        shape = args[0]
        if isinstance(shape, gast.Tuple) and not any(
            isinstance(e, gast.Starred) for e in shape.elts
        ):
            return (FLOAT[0], len(shape.elts)) if shape.elts else None
        size = self.of(shape)
        if size is BOTTOM:
            return BOTTOM
        return (FLOAT[0], 1) if size is not None and size[1] == 0 and is_integer(size) else None

    def _result(self, function: Any, operands: list[gast.expr]) -> Kind | None:
        if any(isinstance(o, gast.Starred) for o in operands):
            return None
        kinds = [self.of(o) for o in operands]
        if BOTTOM in kinds:
            return BOTTOM
        return result_kind(self.registry, function, kinds)

    def _arithmetic(self, operator: Any, kinds: list[Kind | None]) -> Kind | None:
        """An operator's result: of the kind its entry gives, else a number where every
        operand is one (Python's numbers give numbers)."""
        if BOTTOM in kinds:
            return BOTTOM
        kind = result_kind(self.registry, operator, kinds)
        if kind is None and all(holds_number(k) for k in kinds):
            return NUMBER
        return kind


def _copies(value: gast.expr) -> bool:
    """Whether `value` is `v.copy()`: of an array, a new array of the same kind."""
    return (
        isinstance(value, gast.Call)
        and isinstance(value.func, gast.Attribute)
        and value.func.attr == "copy"
        and not value.args
        and not value.keywords
    )

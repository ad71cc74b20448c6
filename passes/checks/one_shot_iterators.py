"""OneShotIterators: a lazy iterator is read once, where it is made.

srcad evaluates a generator expression, a generator function's call and the iterators of
`zip`, `map`, `filter`, `enumerate`, `reversed`, `iter` and `itertools` as the list of what
they give, when they are made. Python gives their items one at a time as they are asked
for, once: a second read finds the iterator spent (`g = (v * v for v in xs)`, `sum(g)`
twice: the second sum is 0), and each item is computed when it is asked for, with the
values its names hold then (`k` rebound before `sum(g)`, an item written into the array
it reads, a loop over it whose body rebinds what it reads). The list is what Python
computes only where the iterator is read once, by something that reads it through at once,
and nothing it reads changes while that happens. Elsewhere srcad would compute other
values, with no error: this check refuses those uses, at the place that reads it.
"""

from __future__ import annotations

import inspect
import itertools
import types
from typing import Any

import gast
import numpy as np

from srcad import primitives, syntax
from srcad.errors import Diagnostic
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.checks.callees import Callees

# Diagnostic code of this check.
ONE_SHOT = "E103"

# Builtins and NumPy functions whose result is a lazy iterator over their arguments.
_LAZY_CALLS = (zip, map, filter, enumerate, reversed, iter, np.ndenumerate, np.ndindex, np.nditer)
# Builtins that read an iterator passed to them through (or, `next`, `any`, `all`, up to
# where they stop), at once, and keep nothing of it. (Not `isinstance`, `type`, `print`...:
# they see the iterator itself, where srcad has a list.)
_BUILTIN_READERS = (sum, list, tuple, dict, set, frozenset, sorted, max, min, any, all, next)
# Modules whose functions read an iterator passed to them so (`np.fromiter`, `math.fsum`,
# `statistics.mean`, `functools.reduce`).
_READING_MODULES = ("numpy", "math", "cmath", "statistics", "functools")

HINT = "make a list where it is made (`list(...)`, or `[... for ...]`) and read the list"


def is_lazy_call(callee: Any) -> bool:
    """Whether a call of `callee` makes a lazy iterator: a generator function's call, or
    one of the builtins and NumPy or `itertools` functions that give one."""
    if any(callee is lazy for lazy in _LAZY_CALLS):
        return True
    if inspect.isgeneratorfunction(callee):  # (`heapq.merge` too)
        return True
    if callee == itertools.chain.from_iterable:  # (a class's method: of no module)
        return True
    return getattr(callee, "__module__", None) == itertools.__name__


def _reads_through(callee: Any, call: gast.Call) -> bool:
    """Whether `callee` reads an iterator passed to it at once and keeps nothing of it: a
    builtin or a function of the modules listed, or `str.join` of a literal."""
    if callee is primitives.method:
        func = call.func
        return (
            isinstance(func, gast.Attribute)
            and func.attr == "join"
            and isinstance(func.value, gast.Constant)
            and isinstance(func.value.value, str)
        )
    if any(callee is reader for reader in _BUILTIN_READERS):
        return True
    if not isinstance(callee, types.BuiltinFunctionType | types.FunctionType | np.ufunc):
        return False
    module = getattr(callee, "__module__", None) or ""
    return module.split(".")[0] in _READING_MODULES


class OneShotIterators(Analysis[list[Diagnostic]]):
    """Every use of a lazy iterator but one read through at once where it is made: as an
    argument of a builtin or NumPy function (`sum(v * v for v in xs)`), unpacked
    (`a, b = zip(*pairs)`, `f(*g)`), as the iterable of a comprehension, or of a `for` loop
    whose body changes nothing the iterator reads; or bound to a name read once, so, in the
    statement right after (`g = (v for v in xs)`, then `total = sum(g)`)."""

    def run(self, tree: gast.Module, ctx: Context) -> list[Diagnostic]:
        self.function = function_of(tree)
        self.ctx = ctx
        self.callees = ctx.analysis(Callees, tree).callees
        self.found: list[Diagnostic] = []
        lazies = [node for node in syntax.walk(self.function) if self._is_lazy(node)]
        if not lazies:
            return self.found
        self.parents = {c: n for n in syntax.walk(self.function) for c in syntax.children(n)}
        self.bound: dict[str, list[tuple[gast.Assign, gast.expr]]] = {}
        for node in lazies:
            if not self._inside_nested_function(node):
                self._check_place(node, node)
        for name, bindings in self.bound.items():
            self._check_reads(name, bindings)
        return self.found

    def _report(self, node: gast.AST, message: str) -> None:
        self.found.append(self.ctx.diagnostic(node, ONE_SHOT, message, HINT))

    def _is_lazy(self, node: gast.AST) -> bool:
        if isinstance(node, gast.GeneratorExp):
            return True
        return isinstance(node, gast.Call) and is_lazy_call(self.callees.get(node))

    def _inside_nested_function(self, node: gast.AST) -> bool:
        """Whether `node` is in a nested function's or lambda's body: checked where that is
        compiled, in its own scope (whose calls `Callees` resolves there)."""
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, gast.FunctionDef | gast.Lambda) and node is not self.function:
                return True
        return False

    def _check_place(self, node: gast.expr, lazy: gast.expr) -> None:
        """Where `node` (the lazy iterator `lazy`, or a name bound to it) is read."""
        parent = self.parents.get(node)
        if isinstance(parent, gast.Starred):
            return  # unpacked at once, whatever it is passed to
        if isinstance(parent, gast.Call) and node in parent.args:
            callee = self.callees.get(parent)
            if is_lazy_call(callee) or _reads_through(callee, parent):
                return  # (a lazy call's own place is checked as its own)
            self._report(node, "a lazy iterator is passed to a function that srcad cannot "
                         "see read it through at once and keep nothing of it")  # fmt: skip
            return
        if isinstance(parent, gast.comprehension) and parent.iter is node:
            return  # read through by the comprehension (a generator's: where that is read)
        if isinstance(parent, gast.For) and parent.iter is node:
            self._check_loop(parent, lazy)
            return
        if isinstance(parent, gast.Assign) and parent.value is node and node is lazy:
            target = parent.targets[0] if len(parent.targets) == 1 else None
            if isinstance(target, gast.Name):
                self.bound.setdefault(target.id, []).append((parent, lazy))
                return
            if isinstance(target, gast.Tuple | gast.List):
                return  # unpacked at once
        if isinstance(parent, gast.Expr):
            return  # never read
        what = "a lazy iterator" if node is lazy else f"`{getattr(node, 'id', '')}`"
        self._report(node, f"{what} is read here as a value (stored, returned, copied or "
                     "chosen), so may be read again, or later, when srcad's list of its "
                     "items no longer gives what Python's iterator gives")  # fmt: skip

    def _check_reads(self, name: str, bindings: list[tuple[gast.Assign, gast.expr]]) -> None:
        """Each binding of `name` to a lazy iterator is read once, in the next statement,
        outside any loop, lambda or comprehension's element in it; and no other read of
        the variable."""
        reads = [
            node
            for node in syntax.walk(self.function)
            if isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load)
        ]
        claimed: set[gast.Name] = set()
        for assign, lazy in bindings:
            following = self._next_statement(assign)
            inside = set(syntax.walk(following)) if following is not None else set()
            mine = [read for read in reads if read in inside]
            if len(mine) > 1:
                self._report(mine[1], f"`{name}` holds a lazy iterator, read twice here: "
                             "the second read finds it spent, or partly read")  # fmt: skip
                return
            if mine and following is not None and self._repeats(mine[0], following):
                self._report(mine[0], f"`{name}` holds a lazy iterator, read here in a loop "
                             "(or a function): only the first read finds its items")  # fmt: skip
                return
            claimed.update(mine)
            for read in mine:
                self._check_place(read, lazy)
        for read in reads:
            if read not in claimed:
                self._report(read, f"`{name}` holds a lazy iterator, read here, not in the "
                             "statement right after the one that makes it: it may be spent, "
                             "or what it reads changed, by then")  # fmt: skip
                return

    def _next_statement(self, statement: gast.stmt) -> gast.stmt | None:
        parent = self.parents.get(statement)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(s is statement for s in block):
                index = next(i for i, s in enumerate(block) if s is statement)
                return block[index + 1] if index + 1 < len(block) else None
        return None

    def _repeats(self, node: gast.AST, statement: gast.stmt) -> bool:
        """Whether `node`, inside `statement`, may run more than once when it runs: in a
        loop's body or test, a function or lambda, a comprehension's element, condition
        or inner iterable."""
        while node is not statement:
            parent = self.parents[node]
            if isinstance(parent, gast.For | gast.While) and node is not parent.iter:
                return True
            if isinstance(parent, gast.FunctionDef | gast.Lambda):
                return True
            comprehensions = gast.ListComp | gast.SetComp | gast.DictComp | gast.GeneratorExp
            if isinstance(parent, comprehensions) and node is not parent.generators[0]:
                return True
            if isinstance(parent, gast.comprehension) and node is not parent.iter:
                return True
            node = parent
        return False

    def _check_loop(self, loop: gast.For, lazy: gast.expr) -> None:
        """A loop over a lazy iterator: its body (and its target) run between the reads of
        its items, so must rebind nothing the iterator reads as it goes, and change in
        place nothing it reads at all."""
        made, late = self._names_read(lazy)
        for node in [loop.target, *loop.body]:
            for changed in syntax.walk(node):
                name, rebinds = self._changed_name(changed)
                if name is not None and name in (late if rebinds else made | late):
                    self._report(changed, f"`{name}` changes here, in a loop over a lazy "
                                 "iterator that reads it as the loop runs (Python's items "
                                 "see the change; srcad's, made on entry, would not)")  # fmt: skip
                    return

    def _names_read(self, lazy: gast.expr) -> tuple[set[str], set[str]]:
        """The names whose values the iterator `lazy` takes when it is made (the arguments
        of a lazy call, a generator expression's first iterable), and those it reads as it
        goes (the rest of a generator expression; the body of a nested function or lambda
        of the function that it names, `map(f, xs)`); an in-place change of either
        changes its items."""
        made: set[str] = set()
        late: set[str] = set()
        if isinstance(lazy, gast.GeneratorExp):
            first = lazy.generators[0]
            made, late = self._names_read(first.iter)
            rest = [lazy.elt, *first.ifs, *lazy.generators[1:]]
            late |= {name for part in rest for name in _names(part)}
            # (less its own variables, of a scope of their own)
            late -= {name for g in lazy.generators for name in _names(g.target)}
        elif isinstance(lazy, gast.Call) and self._is_lazy(lazy):
            for part in [lazy.func, *lazy.args, *(k.value for k in lazy.keywords)]:
                part_made, part_late = self._names_read(part)
                made |= part_made
                late |= part_late
        else:
            made = _names(lazy)
        for node in syntax.walk(self.function):
            defines = None
            if isinstance(node, gast.FunctionDef) and node is not self.function:
                defines = node.name
            elif isinstance(node, gast.Assign) and isinstance(node.value, gast.Lambda):
                defines = getattr(node.targets[0], "id", None)
            if defines is not None and defines in made | late:
                late |= _names(node)
        return made, late

    @staticmethod
    def _changed_name(node: gast.AST) -> tuple[str | None, bool]:
        """The variable `node` rebinds (`k = v`: True) or writes an item or attribute of
        (`out[i] = v`: False), if it does either. (An append to a list a loop walks, and
        every other method that changes its receiver, `Mutations` refuses: E302, E303.)"""
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store | gast.Del):
            return node.id, True
        if isinstance(node, gast.Subscript | gast.Attribute) and isinstance(
            node.ctx, gast.Store | gast.Del
        ):
            root = node.value
            while isinstance(root, gast.Subscript | gast.Attribute):
                root = root.value
            return (root.id if isinstance(root, gast.Name) else None), False
        return None, False


def _names(node: gast.AST) -> set[str]:
    """The names `node` reads or binds."""
    return {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)}

"""Iteration: a loop over arrays of known kinds becomes a loop over their indices."""

from __future__ import annotations

import builtins
from typing import Any

import gast

from srcad import syntax
from srcad.kinds import Kind, is_numeric
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.normal_form import COMPOUND, bound_names, walk_statements


class Iteration(Transform):
    """Rewrite `for` over NumPy arrays of known kinds (`srcad.kinds`), directly or through
    `zip` and `enumerate`, as a loop over the indices, each element read by indexing:

        zip_xs_ys = zip(xs, ys)           len_xs = len(xs)
        for item in zip_xs_ys:      ->    len_ys = len(ys)
            x, y = item                   count = min(len_xs, len_ys)
            ...                           range_count = range(count)
                                          for index in range_count:
                                              x = xs[index]
                                              y = ys[index]
                                              ...

    Iterating an array of one dimension or more gives `a[0]`, `a[1]`, ... up to `len(a)`
    (its first axis), and `zip` stops at the shortest: the values are the same. The
    elements then have kinds (`a[index]` of an int index), so the loop's derivatives are
    inlined and the cotangents accumulate into one buffer per array (`xs_bar[index] +=`),
    instead of the general rules of `zip`, of iteration and of unpacking, with a list of
    cotangents per array. The rewrite needs the arrays to stay bound to the same objects
    while the loop runs (an index reads the name again each step): a loop whose body
    rebinds one is left as it is, as is iteration of anything but an array (a list, a
    tuple: their items' kinds are unknown), and `enumerate` with a start.
    """

    requires = (Scopes, ValueKinds)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        self.ctx = ctx
        self.kinds = ctx.analysis_result(ValueKinds)
        self.bindings = ctx.analysis_result(Scopes).bindings
        function = function_of(tree)
        self.loads: dict[str, int] = {}  # how often each name is read in the function
        # `syntax.walk`, not `gast.walk`, which visits every context and operator leaf too:
        # `benchmarks/profile_compile.py --phases` of robust_fit_loss had this pass take
        # 0.5 ms, most of it in that walk.
        for node in syntax.walk(function):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                self.loads[node.id] = self.loads.get(node.id, 0) + 1
        changed = self._block(function.body)
        for statement in walk_statements(function.body):
            if type(statement) in COMPOUND:
                for block in (statement.body, getattr(statement, "orelse", [])):
                    changed |= self._block(block)
        return changed

    def _block(self, body: list[gast.stmt]) -> bool:
        """Rewrite the loops of one block (not those of blocks inside it)."""
        changed = False
        index = 0
        while index < len(body):
            statement = body[index]
            before = body[index - 1] if index else None
            rewritten = None
            if isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name):
                rewritten = self._loop(statement, before)
            if rewritten is None:
                index += 1
                continue
            replaces_before, statements = rewritten
            start = index - 1 if replaces_before else index
            body[start : index + 1] = statements
            index = start + len(statements)
            changed = True
        return changed

    def _loop(
        self, loop: gast.For, before: gast.stmt | None
    ) -> tuple[bool, list[gast.stmt]] | None:
        """The statements replacing `loop` (and the statement before it, where that made
        the `zip` or `enumerate` it iterates over), or None to leave it."""
        iterated = loop.iter.id
        if isinstance(loop.target, gast.Name) and self._array(iterated):
            if self._rebinds(loop, [iterated]) or not self._builtins_hold():
                return None
            counter = self.ctx.namer.fresh("index")
            read = _assign(loop.target.id, _subscript(iterated, counter))
            return False, self._indexed(loop, [iterated], counter, [read])
        maker = _call_making(before, iterated)
        if maker is None or self.loads.get(iterated) != 1 or not loop.body:
            return None
        unpack = loop.body[0]
        if not (
            isinstance(loop.target, gast.Name)
            and isinstance(unpack, gast.Assign)
            and isinstance(unpack.value, gast.Name)
            and unpack.value.id == loop.target.id
            and self.loads.get(loop.target.id) == 1
            and isinstance(unpack.targets[0], gast.Tuple)
            and all(isinstance(t, gast.Name) for t in unpack.targets[0].elts)
            and all(isinstance(a, gast.Name) for a in maker.args)
        ):
            return None
        targets = [t.id for t in unpack.targets[0].elts]
        arrays = [a.id for a in maker.args]
        if maker.keywords or not arrays or not all(map(self._array, arrays)):
            return None
        if self._rebinds(loop, arrays) or not self._builtins_hold():
            return None
        callee = self._builtin(maker.func)
        if callee is zip and len(targets) == len(arrays):
            counter = self.ctx.namer.fresh("index")
            reads = [
                _assign(t, _subscript(a, counter)) for t, a in zip(targets, arrays, strict=True)
            ]
        elif callee is enumerate and len(arrays) == 1 and len(targets) == 2:
            counter = targets[0]
            reads = [_assign(targets[1], _subscript(arrays[0], counter))]
        else:
            return None
        del loop.body[0]
        return True, self._indexed(loop, arrays, counter, reads)

    def _indexed(
        self, loop: gast.For, arrays: list[str], counter: str, reads: list[gast.stmt]
    ) -> list[gast.stmt]:
        """`loop` over `range` of the shortest of `arrays`' lengths, by `counter`,
        its body after `reads`; with the statements computing the range before it."""
        namer = self.ctx.namer
        lengths = [namer.fresh(f"len_{a}") for a in arrays]
        statements = [
            _assign(n, _call("len", _name(a))) for n, a in zip(lengths, arrays, strict=True)
        ]
        count = lengths[0]
        if len(lengths) > 1:
            count = namer.fresh("count")
            statements.append(_assign(count, _call("min", *map(_name, lengths))))
        steps = namer.fresh(f"range_{count}")
        statements.append(_assign(steps, _call("range", _name(count))))
        loop.target = gast.Name(counter, gast.Store(), None, None)
        loop.iter = _name(steps)
        loop.body[:0] = reads
        for statement in [*statements, *reads]:  # where the pullback's comments point
            gast.copy_location(statement, loop)
        statements.append(loop)
        return statements

    def _array(self, name: str) -> bool:
        kind: Kind | None = self.kinds.kinds.get(name)
        return kind is not None and is_numeric(kind) and kind[1] >= 1

    def _builtin(self, func: gast.expr) -> Any:
        """The builtin a call's function names (guarded, `FunctionSource.resolve`), or None."""
        if not isinstance(func, gast.Name) or self.bindings.get(func) != "builtin":
            return None
        where, value = self.ctx.source.resolve([func.id])
        return value if where == "builtin" and value in (zip, enumerate) else None

    def _builtins_hold(self) -> bool:
        """Whether the builtins a rewritten loop calls are Python's (guarded: asked only of
        a loop that is rewritten, so that code with none pays for no guard on them)."""
        return all(self._is_builtin(name) for name in ("len", "min", "range"))

    def _is_builtin(self, name: str) -> bool:
        """Whether `name`, read in the user's globals, is Python's builtin (guarded)."""
        if self.kinds.bound is None or name in self.kinds.bound:
            return False  # a local of that name
        where, value = self.ctx.source.resolve([name])
        return where == "builtin" and value is getattr(builtins, name)

    def _rebinds(self, loop: gast.For, names: list[str]) -> bool:
        """Whether the loop's body (or its `else`) binds any of `names`."""
        bound = {
            name
            for statement in walk_statements([*loop.body, *loop.orelse])
            for name in bound_names(statement)
        }
        return not bound.isdisjoint(names)


def _call_making(statement: gast.stmt | None, name: str) -> gast.Call | None:
    """The call `statement` assigns to `name`, if it is one: `name = zip(xs, ys)`."""
    if not isinstance(statement, gast.Assign) or not isinstance(statement.value, gast.Call):
        return None
    target = statement.targets[0]
    return statement.value if isinstance(target, gast.Name) and target.id == name else None


def _name(name: str) -> gast.Name:
    return gast.Name(name, gast.Load(), None, None)


def _call(function: str, *args: gast.expr) -> gast.Call:
    assert hasattr(builtins, function)
    return gast.Call(func=_name(function), args=list(args), keywords=[])


def _subscript(array: str, index: str) -> gast.Subscript:
    return gast.Subscript(value=_name(array), slice=_name(index), ctx=gast.Load())


def _assign(name: str, value: gast.expr) -> gast.Assign:
    target = gast.Name(name, gast.Store(), None, None)
    return gast.Assign(targets=[target], value=value, type_comment=None)

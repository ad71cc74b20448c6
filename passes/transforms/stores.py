"""Stores: in a gradient function, the first contribution to each element of a fresh zero
buffer is stored, not added."""

from __future__ import annotations

import gast
import numpy as np

from srcad import syntax
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.normal_form import constant_int
from srcad.passes.transforms.reverse_ad import assign
from srcad.projection import add_at
from srcad.syntax import load


class Stores(Transform):
    """In the gradient function `grad` calls (a gradient target): the cotangent of an indexed
    array accumulates into a buffer of zeros, `x_bar = zeros(x.shape)`, one `x_bar[i] +=
    v` per read `x[i]`. Where the index is a constant that no write since the buffer was
    made has used, the element is still zero, and `x_bar[i] = v` does the same at less
    cost (no read of the element, no addition): the seed's `sum3` becomes three stores.

    Only top-level statements, in order, from the buffer's making to the first statement
    that touches it otherwise; only values with a known kind (a number or an array, never
    a symbolic zero); constant indices that cannot name one element twice (`_apart`), or
    a constant slice as the buffer's first write. Other writes of such values into the
    buffer, `add_at(x_bar, slice(1, None, None), v)`, become `x_bar[1:] += v`.

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x):
    ...     return x[0] * x[1] + x[0]
    ... ''', kinds="float[:]", fused=True, value=False), end="")
    def grad_f(x):
        x_0 = x[0]
        x_1 = x[1]
        x_bar = zeros(x.shape)
        # <doctest>:3  return x[0] * x[1] + x[0]
        x_bar[0] = 1.0
        x_bar[1] = x_0
        x_bar[0] += x_1
        return (None, (NO_TANGENT, x_bar))
    """

    preserves = (ValueKinds,)  # a write of an element changes no name's kind

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        self.runtime = ctx.output.runtime
        zeros_name = ctx.output.runtime.name_of(np.zeros)
        if zeros_name is None:
            return False
        zeros = {zeros_name}
        kinds = ctx.analysis(ValueKinds, tree)
        function = function_of(tree)
        fresh: dict[str, set[tuple[int, ...]]] = {}  # buffer: the indices written so far
        changed = False
        for position, statement in enumerate(function.body):
            if _makes_zeros(statement, zeros):
                assert isinstance(statement, gast.Assign) and isinstance(
                    statement.targets[0], gast.Name
                )
                fresh[statement.targets[0].id] = set()
                continue
            write = self._write(statement)
            if write is not None and kinds.of(write[2]) is not None:
                buffer, index, value = write
                stored = buffer in fresh and self._still_zero(fresh, buffer, index)
                target = gast.Subscript(
                    value=load(buffer), slice=self._syntax(index), ctx=gast.Store()
                )
                if stored:
                    new: gast.stmt = assign(target, value)
                else:  # `add_at` as `+=` (the value is no symbolic zero: it has a kind)
                    new = gast.AugAssign(target=target, op=gast.Add(), value=value)
                if stored or isinstance(statement, gast.Expr):
                    function.body[position] = syntax.located(new, statement)
                    changed = True
                if not any(isinstance(n, gast.Name) and n.id in fresh for n in syntax.walk(value)):
                    continue
            if not fresh:
                continue  # no buffer to forget
            for node in syntax.walk(statement):  # any other use: no longer known zero
                if isinstance(node, gast.Name):
                    fresh.pop(node.id, None)
        return changed

    def _still_zero(
        self, fresh: dict[str, set[tuple[int, ...]]], buffer: str, index: gast.expr
    ) -> bool:
        """Whether `buffer[index]` is all zeros still, noting that it is written now."""
        key = self._key(index)
        written = fresh[buffer]
        if key is None:
            if not written and self._constant(index):  # a slice, as the first write
                del fresh[buffer]  # where later writes go is not followed
                return True
            del fresh[buffer]
            return False
        if key in written or not _apart([key, *written]):
            written.add(key)
            return False
        written.add(key)
        return True

    def _constant(self, index: gast.expr) -> bool:
        """Whether an index holds only constants (ints, `slice(1, None, None)`)."""
        if isinstance(index, gast.Tuple):
            return all(self._constant(e) for e in index.elts)
        if self._calls(index, slice):
            assert isinstance(index, gast.Call)
            return all(constant_int(a) is not None or _is_none(a) for a in index.args)
        return constant_int(index) is not None

    def _write(self, statement: gast.stmt) -> tuple[str, gast.expr, gast.expr] | None:
        """`(buffer, index, value)` for `buffer[index] += value` or `add_at(buffer, index,
        value)`, where `value` does not read `buffer`."""
        if isinstance(statement, gast.AugAssign) and isinstance(statement.op, gast.Add):
            target = statement.target
            if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)):
                return None
            buffer, index, value = target.value.id, target.slice, statement.value
        elif isinstance(statement, gast.Expr) and self._calls(statement.value, add_at):
            assert isinstance(statement.value, gast.Call)
            arguments = statement.value.args
            if len(arguments) != 3 or not isinstance(arguments[0], gast.Name):
                return None
            buffer, index, value = arguments[0].id, arguments[1], arguments[2]
        else:
            return None
        if any(isinstance(n, gast.Name) and n.id == buffer for n in syntax.walk(value)):
            return None
        return buffer, index, value

    def _calls(self, node: gast.expr, function: object) -> bool:
        return (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Name)
            and self.runtime.get(node.func.id) is function
        )

    def _key(self, index: gast.expr) -> tuple[int, ...] | None:
        """The constant ints of an index; None for anything else (a slice, a name)."""
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        key = [constant_int(part) for part in parts]
        return None if None in key else tuple(k for k in key if k is not None)

    def _syntax(self, index: gast.expr) -> gast.expr:
        """An index as written in brackets: `slice(1, None, None)` as `1:`."""
        if isinstance(index, gast.Tuple):
            return gast.Tuple(elts=[self._syntax(e) for e in index.elts], ctx=gast.Load())
        if self._calls(index, slice) and isinstance(index, gast.Call) and len(index.args) == 3:
            lower, upper, step = (
                None if isinstance(a, gast.Constant) and a.value is None else a for a in index.args
            )
            return gast.Slice(lower=lower, upper=upper, step=step)
        return index


def _is_none(node: gast.expr) -> bool:
    return isinstance(node, gast.Constant) and node.value is None


def _makes_zeros(statement: gast.stmt, zeros: set[str]) -> bool:
    return (
        isinstance(statement, gast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], gast.Name)
        and isinstance(statement.value, gast.Call)
        and isinstance(statement.value.func, gast.Name)
        and statement.value.func.id in zeros
    )


def _apart(indices: list[tuple[int, ...]]) -> bool:
    """Whether distinct constant indices surely name distinct parts: as many of them
    each (`x[0]` holds `x[0, 1]`), and in each dimension, all from the start or all from
    the end (`x[-1]` may be `x[2]`)."""
    if len({len(index) for index in indices}) > 1:
        return False
    return all(len({i < 0 for i in dimension}) == 1 for dimension in zip(*indices, strict=True))

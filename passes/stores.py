"""Stores: in a gradient function, the first contribution to each element of a fresh zero
buffer is stored, not added."""

from __future__ import annotations

import gast
import numpy as np

from srcad.passes.base import Context, Transform, function_of
from srcad.passes.kinds import Kinds
from srcad.passes.reverse_ad import assign


class Stores(Transform):
    """In the gradient function `grad` calls (`ctx.fused`): the cotangent of an indexed
    array accumulates into a buffer of zeros, `x_bar = zeros(x.shape)`, one `x_bar[i] +=
    v` per read `x[i]`. Where the index is a constant that no write since the buffer was
    made has used, the element is still zero, and `x_bar[i] = v` does the same at less
    cost (no read of the element, no addition): the seed's `sum3` becomes three stores.

    Only top-level statements, in order, from the buffer's making to the first statement
    that touches it otherwise; only values with a known kind (a number or an array, never
    a symbolic zero); constant indices that cannot name one element twice (`_apart`).

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
        return (None, (NoTangent(), x_bar))
    """

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        if not (ctx.fused and ctx.optimise and ctx.kinds):
            return False
        zeros = {name for name, value in ctx.runtime.items() if value is np.zeros}
        if not zeros:
            return False
        kinds = Kinds().run(tree, ctx)
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
            written = _first_write(statement, fresh)
            if written is not None and kinds.of(statement.value) is not None:
                buffer, index = written
                fresh[buffer].add(index)
                store = assign(statement.target, statement.value)
                function.body[position] = gast.copy_location(store, statement)
                changed = True
                continue
            for node in gast.walk(statement):  # any other use: no longer known zero
                if isinstance(node, gast.Name):
                    fresh.pop(node.id, None)
        return changed


def _makes_zeros(statement: gast.stmt, zeros: set[str]) -> bool:
    return (
        isinstance(statement, gast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], gast.Name)
        and isinstance(statement.value, gast.Call)
        and isinstance(statement.value.func, gast.Name)
        and statement.value.func.id in zeros
    )


def _first_write(
    statement: gast.stmt, fresh: dict[str, set[tuple[int, ...]]]
) -> tuple[str, tuple[int, ...]] | None:
    """`(buffer, index)` for `buffer[index] += value` with a constant index that the
    buffer's writes so far have not used and that cannot alias one of theirs."""
    if not (isinstance(statement, gast.AugAssign) and isinstance(statement.op, gast.Add)):
        return None
    target = statement.target
    if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)):
        return None
    buffer = target.value.id
    if buffer not in fresh:
        return None
    if any(isinstance(n, gast.Name) and n.id == buffer for n in gast.walk(statement.value)):
        return None
    parts = target.slice.elts if isinstance(target.slice, gast.Tuple) else [target.slice]
    index = []
    for part in parts:
        value = _constant_int(part)
        if value is None:
            return None
        index.append(value)
    key = tuple(index)
    if key in fresh[buffer] or not _apart([key, *fresh[buffer]]):
        return None
    return buffer, key


def _constant_int(node: gast.expr) -> int | None:
    """The value of `3` or `-3`; else None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node, sign = node.operand, -1
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _apart(indices: list[tuple[int, ...]]) -> bool:
    """Whether distinct constant indices surely name distinct parts: as many of them
    each (`x[0]` holds `x[0, 1]`), and in each dimension, all from the start or all from
    the end (`x[-1]` may be `x[2]`)."""
    if len({len(index) for index in indices}) > 1:
        return False
    return all(len({i < 0 for i in dimension}) == 1 for dimension in zip(*indices, strict=True))

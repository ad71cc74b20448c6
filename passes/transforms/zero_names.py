"""ZeroNames: the zero tangents an emitted reverse rule makes, read by name."""

from __future__ import annotations

import gast

from srcad import syntax
from srcad.passes.base import Context, Transform, function_of
from srcad.syntax import load
from srcad.tangents import NoTangent, ZeroTangent

# The names emitted code reads the single instances by.
_NAMES = {NoTangent: "NO_TANGENT", ZeroTangent: "ZERO_TANGENT"}


class ZeroNames(Transform):
    """Each `NoTangent()` and `ZeroTangent()` the passes before wrote (a symbolic zero,
    which they recognise by that call) becomes a read of the one instance there is, bound
    to a name: calling the class costs a third of a microsecond, more than the arithmetic
    of a scalar derivative, and a callee's pullback returns one for each argument it does
    not differentiate. The last step of every reverse pipeline (`srcad.passes.PIPELINES`).

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x, n):
    ...     return x * n
    ... ''', wrt=("x",), kinds="float, int"), end="")
    def rrule_f(x, n):
        out = x * n
    <BLANKLINE>
        def f_pullback(out_bar):
            # <doctest>:3  return x * n
            return (NO_TANGENT, out_bar * n, NO_TANGENT)
        return (out, f_pullback)
    """

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        rewriter = _Rewriter(ctx)
        rewriter.visit(function_of(tree))
        return rewriter.changed


class _Rewriter(syntax.Rewriter):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.changed = False

    def visit_Call(self, node: gast.Call) -> gast.expr:  # noqa: N802 (the visitor's name)
        self.generic_visit(node)
        if not isinstance(node.func, gast.Name) or node.args or node.keywords:
            return node
        kind = self.ctx.output.runtime.get(node.func.id)
        if kind not in _NAMES:
            return node
        self.changed = True
        name = self.ctx.bind(kind(), _NAMES[kind])
        return syntax.located(load(name), node)

"""Fuse: a rule's forward sweep and its pullback as one gradient function, for `grad`."""

from __future__ import annotations

import math

import gast

from srcad import syntax
from srcad.kinds import ZERO_DS
from srcad.partials import strong_product
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.rule_calls import constant
from srcad.passes.transforms.simplify import ConstantFolder, is_foldable


class Fuse(Transform):
    """Turn `rrule_f` into `grad_f`, which returns `(y, pullback(1.0))` without making the
    pullback: at each `return y, f_pullback`, the pullback's body runs in place, its seed
    set to 1.0 (and folded in, where nothing reassigns it). `grad` of a real-scalar
    function then costs the forward sweep and the reverse one, with no closure to create
    and no cells to read through.

    It is in the pipelines of the gradient targets (`srcad.passes.PIPELINES`).

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x, y):
    ...     return np.sin(x) * y
    ... ''', kinds="float, float", fused=True), end="")
    def grad_f(x, y):
        sin_x = np.sin(x)
        out = sin_x * y
        # <doctest>:3  return np.sin(x) * y
        x_bar = y * cos(x)
        return (out, (NO_TANGENT, x_bar, sin_x))
    """

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        self.ctx = ctx
        self.pullbacks = ctx.output.pullbacks
        self.strong_product = ctx.output.runtime.name_of(strong_product)
        # `1.0 * e` is `e` for a number `e`, but a NumPy scalar for a 0-d array (`e` itself:
        # the caller's array, for an argument): with one as an argument, nothing is folded.
        self.folds = not any(kind in ZERO_DS for kind in ctx.request.kinds.values())
        function.body = self._block(function.body)
        function.name = "grad_" + function.name.removeprefix("rrule_")
        return True

    def _block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for statement in block:
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if inner and not isinstance(statement, gast.FunctionDef):
                    setattr(statement, field, self._block(inner))
            pullback = out[-1] if out else None
            if (
                isinstance(statement, gast.Return)
                and isinstance(pullback, gast.FunctionDef)
                and pullback.name in self.pullbacks
                and isinstance(statement.value, gast.Tuple)
            ):
                out.pop()
                out += self._inline(pullback, statement.value)
                continue
            out.append(statement)
        return out

    def _inline(self, pullback: gast.FunctionDef, result: gast.Tuple) -> list[gast.stmt]:
        *body, final = pullback.body
        assert isinstance(final, gast.Return) and final.value is not None
        seed = pullback.args.args[0]
        assert isinstance(seed, gast.Name)
        start = gast.Assign(
            targets=[gast.Name(id=seed.id, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=constant(1.0),
            type_comment=None,
        )
        value = gast.Tuple(elts=[result.elts[0], final.value], ctx=gast.Load())
        both = gast.Return(value=value)
        for node in (start, both):
            syntax.located(node, final)
        statements = [*body, both]
        # One look at every node: whether anything assigns the seed, and which statements
        # the folders change (most they leave as they are: nothing there to fold).
        assigned = False
        changes: list[tuple[bool, bool]] = []  # per statement: (`OneFolder`, `ConstantFolder`)
        for statement in statements:
            ones = foldable = False
            for node in syntax.walk(statement):
                if isinstance(node, gast.Name):
                    if node.id == seed.id:
                        ones = True
                        assigned = assigned or not isinstance(node.ctx, gast.Load)
                elif isinstance(node, gast.BinOp):
                    ones = ones or _without_one(node) is not None
                    foldable = foldable or is_foldable(node)
            changes.append((ones, foldable))
        if assigned or not self.folds:
            return [start, *statements]
        # The seed is 1.0 throughout: fold it in (`1.0 * e` is `e`, exactly).
        folded = []
        for statement, (ones, foldable) in zip(statements, changes, strict=True):
            if ones:
                one_folder = OneFolder(seed.id, self.strong_product)
                statement = one_folder.visit(statement)
                foldable = one_folder.foldable
            if foldable:
                statement = ConstantFolder().visit(statement)
            folded.append(statement)
        return folded


class OneFolder(syntax.Rewriter):
    """Read 1.0 for a name, and drop the products and quotients by it; `foldable` tells
    whether that left any arithmetic on numbers alone (for `ConstantFolder`). A product
    by it that keeps zeros exact, `strong_product(e, 1.0)` (`srcad.partials`; `strong`
    names the function where the rule reads it), is `e` too, and `strong_product(e, 3.0)`
    is `e * 3.0`: it differs from the plain product only where one factor is zero and the
    other infinite or NaN, and a literal finite number not zero is neither (but for the
    sign of a zero NumPy scalar, which it makes +0.0)."""

    foldable = False

    def __init__(self, name: str, strong: str | None = None) -> None:
        self.name = name
        self.strong = strong

    def visit_Call(self, node: gast.Call) -> gast.expr:  # noqa: N802
        self.generic_visit(node)
        if (
            self.strong is not None
            and isinstance(node.func, gast.Name)
            and node.func.id == self.strong
            and len(node.args) == 2
            and not node.keywords
        ):
            partial, bar = node.args
            if _is_one(bar):
                return partial
            if _is_one(partial):
                return bar
            if _is_finite_nonzero(bar) or _is_finite_nonzero(partial):
                self.foldable = True
                return gast.BinOp(left=partial, op=gast.Mult(), right=bar)
        return node

    def visit_Name(self, node: gast.Name) -> gast.expr:  # noqa: N802 (the visitor's name)
        if node.id == self.name and isinstance(node.ctx, gast.Load):
            return constant(1.0)
        return node

    def visit_BinOp(self, node: gast.BinOp) -> gast.expr:  # noqa: N802
        self.generic_visit(node)
        operand = _without_one(node)
        if operand is not None:
            return operand
        self.foldable = self.foldable or is_foldable(node)
        return node


def _without_one(node: gast.BinOp) -> gast.expr | None:
    """`e` for `e * 1.0`, `e / 1.0` and `1.0 * e`; None for any other operation."""
    if isinstance(node.op, gast.Mult | gast.Div) and _is_one(node.right):
        return node.left
    if isinstance(node.op, gast.Mult) and _is_one(node.left):
        return node.right
    return None


def _is_finite_nonzero(node: gast.expr) -> bool:
    """A literal number, neither zero nor infinite nor NaN."""
    return (
        isinstance(node, gast.Constant)
        and type(node.value) in (float, int)
        and node.value != 0
        and math.isfinite(node.value)
    )


def _is_one(node: gast.expr) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) is float and node.value == 1.0

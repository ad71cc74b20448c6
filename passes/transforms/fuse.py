"""Fuse: a rule's forward sweep and its pullback as one gradient function, for `grad`."""

from __future__ import annotations

import math
from collections.abc import Collection

import gast

from srcad import syntax
from srcad.kinds import ZERO_DS, Kind, Structure, is_inexact, is_integer
from srcad.partials import strong_product
from srcad.passes.analyses.value_kinds import ValueKinds
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
        # The names known to hold numbers (immutable: `1.0 * e` may be `e` itself).
        kinds = ctx.analysis(ValueKinds, tree).kinds if ctx.request.kinds else {}
        self.numbers = {n for n, k in kinds.items() if _is_number(k)}
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
        # The seed is 1.0 throughout: fold it in (`1.0 * e` is `e`, exactly), but for a
        # gradient, which stays a value of its own: the names that may hold a value the
        # caller can reach once folded (`borrowed`) are returned multiplied by 1.0.
        folded = []
        borrowed: set[str] = set()
        for statement, (ones, foldable) in zip(statements, changes, strict=True):
            bare = False
            if ones:
                one_folder = OneFolder(
                    seed.id, self.strong_product, self.numbers, keep=statement is both
                )
                statement = one_folder.visit(statement)
                foldable, bare = one_folder.foldable, one_folder.bare
            if foldable:
                statement = ConstantFolder().visit(statement)
            _follow(statement, borrowed, bare)
            folded.append(statement)
        returned = folded[-1]
        assert isinstance(returned, gast.Return) and isinstance(returned.value, gast.Tuple)
        _owned(returned.value.elts[1], borrowed)
        return folded


class OneFolder(syntax.Rewriter):
    """Read 1.0 for a name, and drop the products and quotients by it; `foldable` tells
    whether that left any arithmetic on numbers alone (for `ConstantFolder`). A product
    by it that keeps zeros exact, `strong_product(e, 1.0)` (`srcad.partials`; `strong`
    names the function where the rule reads it), is `e` too, and `strong_product(e, 3.0)`
    is `e * 3.0`: it differs from the plain product only where one factor is zero and the
    other infinite or NaN, and a literal finite number not zero is neither (but for the
    sign of a zero NumPy scalar, which it makes +0.0). A product by it whose other factor
    may be the caller's own value is noted where nothing more is computed from it
    (`_borrowed`, `bare`): a gradient is always a value of its own."""

    foldable = False
    arithmetic = False  # whether the node visited is an operand of arithmetic

    def __init__(
        self,
        name: str,
        strong: str | None = None,
        numbers: Collection[str] = (),
        keep: bool = False,
    ) -> None:
        self.name = name
        self.strong = strong
        self.numbers = numbers  # names known to hold numbers, which no one can change
        self.keep = keep  # keep a product whose value would be borrowed (in a `return`)
        self.bare = False  # whether a product was dropped whose value may be borrowed

    def _drops(self, operand: gast.expr, arithmetic: bool) -> bool:
        """Whether the product of `operand` by 1.0 is dropped, in arithmetic or not."""
        if arithmetic or not self._borrowed(operand):
            return True
        self.bare = self.bare or not self.keep
        return not self.keep

    def _borrowed(self, node: gast.expr) -> bool:
        """Whether `node` may be a value the caller can reach: an argument, a global, an
        item or attribute of one, or a view of one (`v = x[1:]`), but for a number. `1.0 *
        v` is a new array where `v` is one: where its value is bound or passed on as it is,
        dropping the product is noted (`bare`), or, in a `return` (`keep`), not done (a
        gradient that is the caller's `x` would change `x` when changed in place); as an
        operand of more arithmetic, which makes a new value anyway, it is dropped."""
        if isinstance(node, gast.Name):
            return node.id not in self.numbers
        return isinstance(node, gast.Subscript | gast.Attribute)

    def visit_Call(self, node: gast.Call) -> gast.expr:  # noqa: N802
        outer, self.arithmetic = self.arithmetic, False
        self.generic_visit(node)
        self.arithmetic = outer
        if (
            self.strong is not None
            and isinstance(node.func, gast.Name)
            and node.func.id == self.strong
            and len(node.args) == 2
            and not node.keywords
        ):
            partial, bar = node.args
            if _is_one(bar) and self._drops(partial, outer):
                return partial
            if _is_one(partial) and self._drops(bar, outer):
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
        outer, self.arithmetic = self.arithmetic, True
        self.generic_visit(node)
        self.arithmetic = outer
        operand = _without_one(node)
        if operand is not None and self._drops(operand, outer):
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


def _is_number(kind: Kind | Structure | None) -> bool:
    """Whether values of `kind` are numbers (a Python or NumPy scalar: no 0-d array)."""
    if not isinstance(kind, tuple) or kind[1] != 0 or kind in ZERO_DS:
        return False
    return is_inexact(kind) or is_integer(kind)


def _stored(statement: gast.AST) -> set[str]:
    """The names `statement` assigns."""
    return {
        n.id
        for n in syntax.walk(statement)
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
    }


def _follow(statement: gast.stmt, borrowed: set[str], bare: bool) -> None:
    """Follow the names that may hold a value the caller can reach (`borrowed`) through
    `statement`, where folding left such a value bare (`bare`) or not: the names it assigns
    are such where it is bare, and a name given one (`_passes_on`: `a = b`, `a = g(b)`,
    `a = a + b`), or holding one (`a[i] = b`, `a.append(b)`); one the statement gives
    another value at its top level is one no more (in a loop or branch it may stay one)."""
    if bare:
        borrowed |= _stored(statement)
    passed = False  # a call given a borrowed value may return it (a container's pullback)
    for _ in range(2):  # twice: a loop's body may pass on what a later statement bound
        for node in syntax.walk(statement):
            if isinstance(node, gast.Assign) and _passes_on(node.value, borrowed):
                borrowed |= _holders(node)
                passed = passed or node is statement
            method = isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            if method and _passes_on(node, borrowed):  # `items_bar.append(u_bar)`
                borrowed |= _base(node.func.value)
    if isinstance(statement, gast.Assign) and not passed and not bare:
        borrowed -= _stored(statement)


def _holders(assign: gast.Assign) -> set[str]:
    """The names `assign` binds, and those whose item or attribute it sets (`a[i] = v`)."""
    names: set[str] = set()
    for target in assign.targets:
        names |= _stored(target)
        for node in syntax.walk(target):
            if isinstance(node, gast.Subscript | gast.Attribute) and isinstance(
                node.ctx, gast.Store
            ):
                names |= _base(node.value)
    return names


def _base(node: gast.expr) -> set[str]:
    """The name `node` is an item or attribute of, or is (none for another expression)."""
    while isinstance(node, gast.Subscript | gast.Attribute):
        node = node.value
    return {node.id} if isinstance(node, gast.Name) else set()


def _passes_on(value: gast.expr, borrowed: set[str]) -> bool:
    """Whether `value` may be or hold a name in `borrowed`: the name; a call given it as it
    is (alone or in a tuple, list or dict), which may return or hold it (a tuple's pullback
    `a_b_pullback((a_bar, b_bar))` returns the gradient `(a_bar, b_bar)` of the caller's
    `(a, b)`); a sum of it (a zero tangent's sum with it, or a container tangent's, holds
    it as it is)."""
    if isinstance(value, gast.Name):  # a copy
        return value.id in borrowed
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add):
        pending: list[gast.expr] = [value.left, value.right]  # a zero tangent's sum is the other
    elif isinstance(value, gast.Call):
        pending = [*value.args, *(k.value for k in value.keywords)]
    else:
        return False
    while pending:
        node = pending.pop()
        if isinstance(node, gast.Name) and node.id in borrowed:
            return True
        if isinstance(node, gast.Tuple | gast.List):
            pending.extend(node.elts)
        elif isinstance(node, gast.Dict):
            pending.extend(node.values)
        elif isinstance(node, gast.Starred):
            pending.append(node.value)
        elif isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
            pending.extend((node.left, node.right))
    return False


def _owned(gradients: gast.expr, borrowed: set[str]) -> None:
    """Multiply by 1.0, in the returned tuple `gradients`, each name in `borrowed`."""
    if not isinstance(gradients, gast.Tuple | gast.List):
        return
    for index, element in enumerate(gradients.elts):
        if isinstance(element, gast.Name) and element.id in borrowed:
            one = gast.BinOp(left=constant(1.0), op=gast.Mult(), right=element)
            gradients.elts[index] = syntax.located(one, element)
        else:
            _owned(element, borrowed)

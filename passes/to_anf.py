"""ToANF: bind every intermediate value to a readable name, each name assigned once."""

from __future__ import annotations

import gast

from srcad.passes.base import Context, Transform, function_of
from srcad.passes.callees import Callees
from srcad.passes.naming import derived_name
from srcad.passes.scopes import ScopeInfo, Scopes

Atom = gast.Name | gast.Constant | gast.Attribute | gast.UnaryOp


def is_copy(statement: gast.stmt) -> bool:
    """Whether a normal-form statement is a plain copy, `name = other_name`."""
    return (
        isinstance(statement, gast.Assign)
        and isinstance(statement.targets[0], gast.Name)
        and isinstance(statement.value, gast.Name)
    )


def is_unpacking(statement: gast.stmt) -> bool:
    """Whether a normal-form statement unpacks, `(a, b) = value`."""
    return isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Tuple)


class ToANF(Transform):
    """Flatten expressions so that each statement performs one operation on atoms.

    After this pass the function body holds only
    `name = atom`, `name = operation(atoms)`, `(name, ...) = atom` (unpacking),
    `operation(atoms)` as a statement, and one final `return atom`. Atoms are names,
    constants and dotted global names (`np.pi`). A name assigned twice gets a fresh
    name for its second value (`y`, then `y_2`), so the pullback can refer to each value.
    Calls keep their node identity, so the `Callees` result stays valid.

    >>> from srcad.passes.testing import show
    >>> print(show(ToANF, '''
    ... def f(x, y):
    ...     y = np.sin(np.cos(x)) * y
    ...     return y / 2.0
    ... '''), end="")
    def f(x, y):
        cos_x = np.cos(x)
        sin_cos_x = np.sin(cos_x)
        y_2 = sin_cos_x * y
        out = y_2 / 2.0
        return out
    """

    requires = (Scopes,)
    preserves = (Callees,)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        scopes = ctx.analysis(Scopes, tree)
        ctx.namer.reserve(scopes.names)
        normaliser = _Normaliser(ctx, scopes)
        body = []
        for statement in function.body:
            body += normaliser.statement(statement)
        if not body or not isinstance(body[-1], gast.Return):
            body.append(gast.Return(value=gast.Constant(value=None, kind=None)))
            gast.copy_location(body[-1], function)
        function.body = body
        return True


class _Normaliser:
    def __init__(self, ctx: Context, scopes: ScopeInfo) -> None:
        self.ctx = ctx
        self.scopes = scopes
        self.current: dict[str, str] = {p: p for p in scopes.parameters}
        self.bound: set[str] = set(scopes.parameters)
        self.out: list[gast.stmt] = []
        self.origin: gast.stmt | None = None

    # -- names -------------------------------------------------------------------------

    def _bind(self, name: str) -> str:
        """The name that holds the next value assigned to the user's `name`."""
        fresh = self.ctx.namer.fresh(name) if name in self.bound else name
        self.bound.add(fresh)
        self.current[name] = fresh
        return fresh

    def _emit(self, statement: gast.stmt) -> None:
        assert self.origin is not None
        gast.copy_location(statement, self.origin)
        self.out.append(statement)

    def _assign(self, name: str, value: gast.expr) -> None:
        target = gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)
        self._emit(gast.Assign(targets=[target], value=value, type_comment=None))

    # -- statements --------------------------------------------------------------------

    def statement(self, node: gast.stmt) -> list[gast.stmt]:
        self.out = []
        self.origin = node
        if isinstance(node, gast.Assign):
            value = self.atom(node.value) if len(node.targets) > 1 else None
            for target in node.targets:
                self.assign(target, node.value if value is None else value)
        elif isinstance(node, gast.Return):
            value = node.value or gast.Constant(value=None, kind=None)
            if isinstance(value, gast.Name) and value.id in self.current:
                self._emit(gast.Return(value=self._load(value.id)))
            else:
                atom = self.operation_into(self.ctx.namer.fresh("out"), value)
                self._emit(gast.Return(value=atom))
        elif isinstance(node, gast.Expr) and not isinstance(node.value, gast.Constant):
            self._emit(gast.Expr(value=self.operation(node.value)))
        # Docstrings and `pass` go; anything else was rejected by UnsupportedConstructs.
        return self.out

    def assign(self, target: gast.expr, value: gast.expr) -> None:
        if isinstance(target, gast.Name):
            self.operation_into(None, value, user_name=target.id)
            return
        assert isinstance(target, gast.Tuple | gast.List)
        if isinstance(value, gast.Tuple | gast.List) and len(value.elts) == len(target.elts):
            # `a, b = b, a`: every right-hand operand is read before any target is bound.
            values = [
                self.operation(e) if isinstance(t, gast.Name) else self.atom(e)
                for t, e in zip(target.elts, value.elts, strict=True)
            ]
            for element_target, flat in zip(target.elts, values, strict=True):
                if isinstance(element_target, gast.Name):
                    self._assign(self._bind(element_target.id), flat)
                else:
                    self.assign(element_target, flat)
            return
        source = self.atom(value)
        names = []
        nested: list[tuple[gast.expr, gast.Name]] = []
        for element in target.elts:
            if isinstance(element, gast.Name):
                names.append(self._bind(element.id))
            else:
                temporary = self.ctx.namer.fresh("item")
                names.append(temporary)
                nested.append((element, self._load(temporary, user=False)))
        stores = [
            gast.Name(id=n, ctx=gast.Store(), annotation=None, type_comment=None) for n in names
        ]
        unpacking = gast.Tuple(elts=stores, ctx=gast.Store())
        self._emit(gast.Assign(targets=[unpacking], value=source, type_comment=None))
        for element, temporary_load in nested:
            self.assign(element, temporary_load)

    def operation_into(
        self, name: str | None, value: gast.expr, user_name: str | None = None
    ) -> gast.expr:
        """Assign `value` (flattened) to `name`, or to the next binding of `user_name`."""
        flat = self.operation(value)
        if user_name is not None:
            name = self._bind(user_name)
        assert name is not None
        self._assign(name, flat)
        return self._load(name, user=False)

    # -- expressions -------------------------------------------------------------------

    def _load(self, name: str, user: bool = True) -> gast.Name:
        identifier = self.current[name] if user else name
        return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)

    def _is_static(self, node: gast.expr) -> bool:
        """A constant, or a dotted name rooted in a global, closure or builtin name."""
        if isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub | gast.UAdd):
            return isinstance(node.operand, gast.Constant)
        while isinstance(node, gast.Attribute):
            node = node.value
        return isinstance(node, gast.Name) and self.scopes.kinds.get(node) not in (
            "parameter",
            "local",
            None,
        )

    def atom(self, node: gast.expr) -> gast.expr:
        """`node` as an atom, binding it to a derived name first if it is an operation."""
        if isinstance(node, gast.Name) and node.id in self.current:
            return self._load(node.id)
        if self._is_static(node) or isinstance(node, gast.Name):
            return node
        flat = self.operation(node)
        name = self.ctx.namer.fresh(derived_name(flat))
        self._assign(name, flat)
        return self._load(name, user=False)

    def operation(self, node: gast.expr) -> gast.expr:
        """`node` with each of its operands made an atom."""
        if isinstance(node, gast.Name) and node.id in self.current:
            return self._load(node.id)
        if self._is_static(node) or isinstance(node, gast.Name):
            return node
        if isinstance(node, gast.BinOp):
            left, right = self.atom(node.left), self.atom(node.right)
            return gast.BinOp(left=left, op=node.op, right=right)
        if isinstance(node, gast.UnaryOp):
            return gast.UnaryOp(op=node.op, operand=self.atom(node.operand))
        if isinstance(node, gast.Call):
            node.args = [self.atom(a) for a in node.args]
            for keyword in node.keywords:
                keyword.value = self.atom(keyword.value)
            return node  # the same node: Callees is keyed on it
        if isinstance(node, gast.Attribute):
            return gast.Attribute(value=self.atom(node.value), attr=node.attr, ctx=gast.Load())
        if isinstance(node, gast.Subscript):
            value = self.atom(node.value)
            return gast.Subscript(value=value, slice=self.index(node.slice), ctx=gast.Load())
        if isinstance(node, gast.Tuple):
            return gast.Tuple(elts=[self.atom(e) for e in node.elts], ctx=gast.Load())
        raise AssertionError(f"UnsupportedConstructs let through {type(node).__name__}")

    def index(self, node: gast.expr) -> gast.expr:
        if isinstance(node, gast.Slice):
            parts = [
                None if p is None else self.atom(p) for p in (node.lower, node.upper, node.step)
            ]
            return gast.Slice(lower=parts[0], upper=parts[1], step=parts[2])
        if isinstance(node, gast.Tuple):
            return gast.Tuple(elts=[self.index(e) for e in node.elts], ctx=gast.Load())
        return self.atom(node)

"""ToANF: bind every intermediate value to a readable name, one operation per statement."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import gast

from srcad import primitives, syntax
from srcad.passes.analyses.fresh_items import FreshItems
from srcad.passes.analyses.scopes import LocalFunction, ScopeInfo, Scopes, scope_info
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.checks.callees import Callees, is_append_call, unpacked_count, unpacks
from srcad.passes.naming import derived_name
from srcad.passes.normal_form import bound_names, constant_int, short_circuits
from srcad.passes.transforms.anf_rewrites import SyntaxRewrites
from srcad.syntax import LOAD, STORE, load, make, store


class _Rename(syntax.Rewriter):
    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def visit_Name(self, node: gast.Name) -> gast.Name:  # noqa: N802 (the visitor protocol)
        if node.id in self.renames:
            return make(
                gast.Name,
                id=self.renames[node.id],
                ctx=node.ctx,
                annotation=None,
                type_comment=None,
            )
        return node


class ToANF(Transform):
    """Flatten expressions so that each statement performs one operation on atoms.

    After this pass a body holds only `name = atom`, `name = operation(atoms)`,
    `(name, ...) = atom` (unpacking), `operation(atoms)` as a statement, `return atom`,
    `if atom:` / `if not atom:`, `for name in atom:`, `while True:` (a `while` loop tests
    its condition at the top of its body and breaks), `break` and `continue`. Atoms are
    names, constants and dotted global names (`np.pi`). Conditional expressions, `and`/`or`
    and chained comparisons become `if` statements, so they short-circuit as Python does.
    Names keep the user's spelling, also when they are assigned again; calls keep their
    node identity, so the `Callees` result stays valid.

    >>> from srcad.passes.testing import show
    >>> print(show(ToANF, '''
    ... def f(x, y):
    ...     y = np.sin(np.cos(x)) * y
    ...     s = 0.0
    ...     for i in range(3):
    ...         s += y if i > 0 else 1.0
    ...     return s / 2.0
    ... '''), end="")
    def f(x, y):
        cos_x = np.cos(x)
        sin_cos_x = np.sin(cos_x)
        y = sin_cos_x * y
        s = 0.0
        range_3 = range(3)
        for i in range_3:
            i_gt_0 = i > 0
            if i_gt_0:
                selected = y
            else:
                selected = 1.0
            s = s + selected
        out = s / 2.0
        return out
    """

    requires = (Scopes, Callees)
    preserves = (Callees, Scopes)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        scopes = ctx.analysis(Scopes, tree)
        ctx.namer.reserve(scopes.names)
        normaliser = _Normaliser(ctx, scopes)
        normaliser.fresh_items = ctx.analysis(FreshItems, tree)
        if ctx.request.constructs is not None:  # a class's `__init__`, returning the instance
            normaliser.origin = function
            normaliser.instance = normaliser.made_instance(function, ctx.request.constructs)
        body = normaliser.out + normaliser.block(function.body)
        if not body or not isinstance(body[-1], gast.Return):
            body.append(make(gast.Return, value=normaliser.returned(None)))
            syntax.located(body[-1], function)
        function.body = body
        # The normal form binds names only by assignment, `for` and `def`: its scopes
        # follow from the user's names and the temporaries, without def-use chains again.
        bound = scopes.locals | normaliser.bound
        ctx.results[Scopes] = scope_info(function, bound, ctx)
        return True


class _Normaliser(SyntaxRewrites):
    def __init__(self, ctx: Context, scopes: ScopeInfo) -> None:
        self.ctx = ctx
        self.scopes = scopes
        # The names whose values the user's code computes: the function's own, and, in a
        # nested function, the enclosing functions' it reads (values of the call, maybe
        # differentiated, never static like a global's or a closure cell's).
        self.user = scopes.capturable
        self.out: list[gast.stmt] = []
        self.origin: gast.stmt | None = None
        self.bound: set[str] = set()  # the names the statements emitted so far bind
        self.instance: str | None = None  # in a class's initialiser: the instance it builds
        self.fresh_items: frozenset[str] = frozenset()  # (`FreshItems`)

    def _emit(self, statement: gast.stmt) -> None:
        """Put `statement` next in the output (every statement of the normal form that
        binds a name goes through here, or through `_assign`)."""
        assert self.origin is not None
        syntax.located(statement, self.origin)
        self.out.append(statement)
        self.bound.update(bound_names(statement))

    def _assign(self, name: str, value: gast.expr) -> None:
        """Emit `name = value` (`_emit`'s work, knowing the name it binds)."""
        assert self.origin is not None
        assign = make(gast.Assign, targets=[store(name)], value=value, type_comment=None)
        self.out.append(syntax.located(assign, self.origin))
        self.bound.add(name)

    def _fresh(self, node: gast.expr) -> str:
        return self.ctx.namer.derived(node)

    # -- statements --------------------------------------------------------------------

    def block(self, statements: list[gast.stmt]) -> list[gast.stmt]:
        """The normal form of a list of statements, in a fresh output list."""
        saved, self.out = self.out, []
        for statement in statements:
            self.statement(statement)
        result, self.out = self.out, saved
        return result

    def statement(self, node: gast.stmt) -> None:
        origin, self.origin = self.origin, node
        # `pass` has no entry, and goes; anything else without one was rejected by
        # UnsupportedConstructs.
        normalise = _STATEMENTS.get(type(node))
        if normalise is not None:
            normalise(self, node)
        self.origin = origin

    def _function_def(self, node: gast.FunctionDef) -> None:
        self._emit(node)  # its body is its own: compiled on its own if it is called

    def _raise(self, node: gast.Raise | gast.Global | gast.Nonlocal) -> None:
        self._emit(node)  # it ends the call; its expression is not differentiated

    def _jump(self, node: gast.Break | gast.Continue) -> None:
        self._emit(type(node)())

    def _assign_statement(self, node: gast.Assign) -> None:
        definition = self.scopes.definitions.get(node)  # `name = lambda ...`: a `def`
        if definition is not None:
            self._emit(definition)
        elif self._changing_call(node.value) is not None:  # `v = xs.pop()`
            self._change_by_method(node.value, node.targets[0])
        else:
            self.assign_all(node.targets, node.value)

    def _ann_assign(self, node: gast.AnnAssign) -> None:
        assert node.value is not None
        self.assign_all([node.target], node.value)

    def _aug_assign(self, node: gast.AugAssign) -> None:
        if isinstance(node.target, gast.Subscript):
            self._write_item(node.target, node.value, node.op)
            return
        if isinstance(node.target, gast.Attribute):
            self._write_attribute(node.target, node.value, node.op)
            return
        assert isinstance(node.target, gast.Name)
        right = self.atom(node.value)
        self.into(
            node.target.id, make(gast.BinOp, left=load(node.target.id), op=node.op, right=right)
        )

    def returned(self, value: gast.expr | None) -> gast.expr:
        """What `return value` returns: a class's initialiser returns the instance."""
        if self.instance is not None:
            assert value is None or (isinstance(value, gast.Constant) and value.value is None)
            return load(self.instance)
        return value or make(gast.Constant, value=None, kind=None)

    def _return(self, node: gast.Return) -> None:
        value = self.returned(node.value)
        if isinstance(value, gast.Name) or self._is_static(value):
            self._emit(make(gast.Return, value=value))
        else:
            name = self.ctx.namer.fresh("out")
            self.into(name, value)
            self._emit(make(gast.Return, value=load(name)))

    def _expression_statement(self, node: gast.Expr) -> None:
        if is_append_call(node.value):
            assert isinstance(node.value, gast.Call) and isinstance(node.value.func, gast.Attribute)
            receiver = node.value.func.value
            assert isinstance(receiver, gast.Name)
            self._append(receiver.id, node.value.args[0])
        elif self._changing_call(node.value) is not None:  # `xs.sort()`, `d.update(e)`
            self._change_by_method(node.value, None)
        elif self._accumulates(node.value):
            assert isinstance(node.value, gast.Call)
            self._accumulate(node.value)
        elif not isinstance(node.value, gast.Constant):  # docstrings go
            self._emit(make(gast.Expr, value=self.operation(node.value)))

    def _if(self, node: gast.If) -> None:
        test = self.test(node.test)
        self._emit(
            make(
                gast.If,
                test=test,
                body=self.block(node.body) or [make(gast.Pass)],
                orelse=self.block(node.orelse),
            )
        )

    def comprehension(self, node: gast.ListComp | gast.GeneratorExp | gast.DictComp) -> gast.Name:
        """A list comprehension (or a generator expression, which a call consumes at once)
        as a loop appending to a fresh list, a dict comprehension as one writing items
        into a fresh dict (each key checked when it runs, `primitives.dict_key`, then its
        value, in Python's order), its variables renamed where they would
        clash with the function's, or with a global, closure cell or builtin it reads
        elsewhere (a local of that name would hide it there)."""
        renames = {}
        outside = {n.id for n, b in self.scopes.bindings.items() if b not in ("parameter", "local")}
        for generator in node.generators:
            for target in syntax.walk(generator.target):
                if isinstance(target, gast.Name) and (
                    target.id in self.user or target.id in outside
                ):
                    renames[target.id] = self.ctx.namer.fresh(target.id)
        # The first iterable is read in the scope around: kept out of the renaming (which
        # rewrites the nodes it visits in place).
        first, node.generators[0].iter = (
            node.generators[0].iter,
            make(gast.Tuple, elts=[], ctx=LOAD),
        )
        node = _Rename(renames).visit(node)
        node.generators[0].iter = first
        result = self.ctx.namer.fresh("values")
        inner: list[gast.stmt]
        if isinstance(node, gast.DictComp):
            self._assign(result, make(gast.Dict, keys=[], values=[]))
            key: gast.expr = node.key
            if not isinstance(key, gast.Constant):
                key = self._primitive_call(primitives.dict_key, [key], node)
            item = make(gast.Subscript, value=load(result), slice=key, ctx=STORE)
            inner = [make(gast.Assign, targets=[item], value=node.value, type_comment=None)]
            if not isinstance(key, gast.Constant):  # the key first, as Python evaluates it
                name = self.ctx.namer.fresh("key")
                inner.insert(0, make(gast.Assign, targets=[store(name)], value=key,
                                     type_comment=None))  # fmt: skip
                item.slice = load(name)
        else:
            self._assign(result, make(gast.List, elts=[], ctx=LOAD))
            append_call = make(
                gast.Call,
                func=make(gast.Attribute, value=load(result), attr="append", ctx=LOAD),
                args=[node.elt],
                keywords=[],
            )
            inner = [make(gast.Expr, value=append_call)]
        for generator in reversed(node.generators):
            for condition in reversed(generator.ifs):
                inner = [make(gast.If, test=condition, body=inner, orelse=[])]
            inner = [
                make(
                    gast.For,
                    target=generator.target,
                    iter=generator.iter,
                    body=inner,
                    orelse=[],
                    type_comment=None,
                )
            ]
        for generator in node.generators:
            self.user |= {t.id for t in syntax.walk(generator.target) if isinstance(t, gast.Name)}
        for statement in inner:
            syntax.located(statement, self.origin)
            for child in syntax.walk(statement):
                if isinstance(child, gast.stmt):
                    syntax.located(child, self.origin)
            self.statement(statement)
        return load(result)

    def test(self, node: gast.expr) -> gast.expr:
        """A branch condition as a name that nothing assigns again: the pullback reads it."""
        atom = self.atom(node)
        if isinstance(atom, gast.Name) and atom.id not in self.scopes.names:
            return atom  # a temporary of this pass: only its own loop assigns it again
        name = self.ctx.namer.fresh("cond")
        self._assign(name, atom)
        return load(name)

    def for_loop(self, node: gast.For) -> None:
        if node.orelse:
            self._loop_else(node)
            return
        iterable = self.atom(node.iter)
        body: list[gast.stmt] = []
        if isinstance(node.target, gast.Name):
            target = node.target.id
        else:
            target = self.ctx.namer.fresh("item")
            saved, self.out = self.out, []
            self.assign_all([node.target], load(target))
            body, self.out = self.out, saved
        body += self.block(node.body)
        loop = make(
            gast.For,
            target=store(target),
            iter=iterable,
            body=body or [make(gast.Pass)],
            orelse=[],
            type_comment=None,
        )
        self._emit(loop)

    def while_loop(self, node: gast.While) -> None:
        if node.orelse:
            self._loop_else(node)
            return
        true = make(gast.Constant, value=True, kind=None)
        if isinstance(node.test, gast.Constant) and node.test.value is True:  # `while True:`
            self._emit(make(gast.While, test=true, body=self.block(node.body), orelse=[]))
            return
        saved, self.out = self.out, []
        test = self.test(node.test)
        stop = make(
            gast.If,
            test=make(gast.UnaryOp, op=make(gast.Not), operand=test),
            body=[make(gast.Break)],
            orelse=[],
        )
        self._emit(stop)
        head, self.out = self.out, saved
        self._emit(make(gast.While, test=true, body=head + self.block(node.body), orelse=[]))

    def assign_all(self, targets: list[gast.expr], value: gast.expr) -> None:
        if len(targets) == 1:
            self.assign(targets[0], value)
            return
        atom = self.atom(value)  # `a = b = value`: one value, bound to each target
        for target in targets:
            self.assign(target, atom)

    def assign(self, target: gast.expr, value: gast.expr) -> None:
        if isinstance(target, gast.Name):
            self.into(target.id, value)
            return
        if isinstance(target, gast.Subscript):
            self._write_item(target, value)
            return
        if isinstance(target, gast.Attribute):
            self._write_attribute(target, value)
            return
        assert isinstance(target, gast.Tuple | gast.List)
        if any(isinstance(e, gast.Starred) for e in target.elts):
            self._starred_unpacking(target, value)
            return
        if isinstance(value, gast.Tuple | gast.List) and len(value.elts) == len(target.elts):
            self.parallel(target.elts, value.elts)
            return
        source = self.atom(value)
        names = []
        nested: list[tuple[gast.expr, str]] = []
        for element in target.elts:
            if isinstance(element, gast.Name):
                names.append(element.id)
            else:
                temporary = self.ctx.namer.fresh("item")
                names.append(temporary)
                nested.append((element, temporary))
        unpacking = make(gast.Tuple, elts=[store(n) for n in names], ctx=STORE)
        self._emit(make(gast.Assign, targets=[unpacking], value=source, type_comment=None))
        for element, temporary in nested:
            self.assign(element, load(temporary))

    def parallel(self, targets: list[gast.expr], values: list[gast.expr]) -> None:
        """`a, b = b, a`: every right-hand value is read before any target is bound."""
        flats = [self.operation(v) for v in values]
        for position, (target, flat) in enumerate(zip(targets, flats, strict=True)):
            earlier = {
                n.id for t in targets[:position] for n in syntax.walk(t) if isinstance(n, gast.Name)
            }
            reads = {n.id for n in syntax.walk(flat) if isinstance(n, gast.Name)}
            nested_operation = not isinstance(target, gast.Name) and not isinstance(flat, gast.Name)
            if reads & earlier or nested_operation:
                flats[position] = self._snapshot(flat)
        for target, flat in zip(targets, flats, strict=True):
            self.assign(target, flat)

    def _snapshot(self, flat: gast.expr) -> gast.expr:
        if self._is_static(flat):
            return flat
        name = self._fresh(flat)
        self._assign(name, flat)
        return load(name)

    def into(self, name: str, value: gast.expr) -> None:
        """Assign the flattened `value` to `name`."""
        if short_circuits(value):
            if any(isinstance(n, gast.Name) and n.id == name for n in syntax.walk(value)):
                # `x = a or x`: the branches bind their target before the later operands
                # run, so a value that reads its own target is selected into a temporary.
                self._assign(name, self.atom(value))
                return
            self.branching(name, value)
            return
        self._assign(name, self.operation(value))

    def branching(self, name: str, value: gast.expr) -> None:
        """Values that short-circuit become `if` statements that assign `name`."""
        if isinstance(value, gast.IfExp):
            test = self.test(value.test)
            body = self._into_block(name, value.body)
            orelse = self._into_block(name, value.orelse)
            self._emit(make(gast.If, test=test, body=body, orelse=orelse))
            return
        if isinstance(value, gast.BoolOp):
            first, *rest = value.values
            remaining = make(gast.BoolOp, op=value.op, values=rest) if len(rest) > 1 else rest[0]
        else:  # a chained comparison: `a < b < c` is `a < b and b < c`, b read once
            assert isinstance(value, gast.Compare)
            middle = self.atom(value.comparators[0])
            first = make(gast.Compare, left=value.left, ops=value.ops[:1], comparators=[middle])
            remaining = make(
                gast.Compare, left=middle, ops=value.ops[1:], comparators=value.comparators[1:]
            )
        # The test is the first value under a name nothing assigns again (not `name`, which
        # the branch assigns): the pullback tests it again to know what ran.
        test = self.test(first)
        self._assign(name, test)
        proceed: gast.expr = test
        if isinstance(value, gast.BoolOp) and isinstance(value.op, gast.Or):
            proceed = make(gast.UnaryOp, op=make(gast.Not), operand=proceed)
        self._emit(make(gast.If, test=proceed, body=self._into_block(name, remaining), orelse=[]))

    def _into_block(self, name: str, value: gast.expr) -> list[gast.stmt]:
        saved, self.out = self.out, []
        self.into(name, value)
        result, self.out = self.out, saved
        return result

    # -- expressions -------------------------------------------------------------------

    def _is_static(self, node: gast.expr) -> bool:
        """A constant, or a dotted name rooted in a global, closure or builtin name (not
        in a name of the function or of an enclosing function: `x.T` of a captured `x` is
        an operation on a value the derivative flows through)."""
        if isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.UnaryOp) and type(node.op) in _SIGNS:
            return isinstance(node.operand, gast.Constant)
        while isinstance(node, gast.Attribute):
            node = node.value
        return isinstance(node, gast.Name) and node.id not in self.user

    def atom(self, node: gast.expr) -> gast.expr:
        """`node` as an atom, binding it to a derived name first if it is an operation."""
        if isinstance(node, gast.Name) or self._is_static(node):
            return node
        if short_circuits(node):
            name = self.ctx.namer.fresh(
                "selected" if isinstance(node, gast.IfExp) else derived_name(node)
            )
            self.branching(name, node)
            return load(name)
        flat = self._operation(node)
        if isinstance(flat, gast.Name):  # a comprehension already bound its list
            return flat
        name = self._fresh(flat)
        self._assign(name, flat)
        return load(name)

    def operation(self, node: gast.expr) -> gast.expr:
        """`node` with each of its operands made an atom."""
        if isinstance(node, gast.Name) or self._is_static(node):
            return node
        if short_circuits(node):
            return self.atom(node)
        return self._operation(node)

    def _operation(self, node: gast.expr) -> gast.expr:
        """`operation(node)` for a node that is neither an atom nor short-circuits."""
        flatten = _OPERATIONS.get(type(node))
        if flatten is None:
            raise AssertionError(f"UnsupportedConstructs let through {type(node).__name__}")
        return flatten(self, node)

    def _binary(self, node: gast.BinOp) -> gast.expr:
        left, right = self.atom(node.left), self.atom(node.right)
        return make(gast.BinOp, left=left, op=node.op, right=right)

    def _unary(self, node: gast.UnaryOp) -> gast.expr:
        return make(gast.UnaryOp, op=node.op, operand=self.atom(node.operand))

    def _compare(self, node: gast.Compare) -> gast.expr:
        left = self.atom(node.left)
        return make(
            gast.Compare, left=left, ops=node.ops, comparators=[self.atom(node.comparators[0])]
        )

    def _call(self, node: gast.Call) -> gast.expr:
        callees = self.ctx.analysis_result(Callees).callees
        callee = callees.get(node)
        if node.keywords:
            self._start_among_the_items(node, callee)
            self._keywords_by_position(node, callee)
        with_keywords = self._keyword_call(node, callee) if node.keywords else None
        if with_keywords is not None:
            return with_keywords
        if unpacks(node) and isinstance(callee, LocalFunction):
            self._unpack_into_nested(node, callee)
        elif unpacks(node):
            return self._unpacked_call(node, callees)
        if callee is dict and not node.args:  # `dict(a=x)` is the display `{"a": x}`
            keys = [make(gast.Constant, value=k.arg, kind=None) for k in node.keywords]
            return self._dict(make(gast.Dict, keys=keys, values=[k.value for k in node.keywords]))
        registry = self.ctx.services.registry
        if registry.rrule_for(callee) is not None or registry.frule_for(callee) is not None:
            return self._plain_call(node, callee)  # a registered rule is the user's word
        fields = primitives.struct_fields(callee)
        if fields is not None:
            return self._struct(node, fields) or self._plain_call(node, callee)
        if callee is dataclasses.replace and len(node.args) == 1:
            return self._replace(node)
        return self._plain_call(node, callee)

    def _unpack_into_nested(self, node: gast.Call, callee: LocalFunction) -> None:
        """`inner(x, *pair)` as `(a, b) = pair`, `inner(x, a, b)`, in place: the count of
        items is the nested function's (`unpacked_count`; a `ValueError` where Python's
        call would raise a `TypeError`)."""
        count = unpacked_count(node, callee)
        assert count is not None  # else `Callees` refused the call
        position = next(i for i, a in enumerate(node.args) if isinstance(a, gast.Starred))
        before = [self.atom(a) for a in node.args[:position]]
        starred = node.args[position]
        assert isinstance(starred, gast.Starred)
        parameters = [a.id for a in (*callee.nodes[0].args.posonlyargs, *callee.nodes[0].args.args)]
        names = [self.ctx.namer.fresh(p) for p in parameters[position : position + count]]
        self.assign(make(gast.Tuple, elts=[store(n) for n in names], ctx=STORE), starred.value)
        node.args = [*before, *(load(n) for n in names), *node.args[position + 1 :]]

    def _plain_call(self, node: gast.Call, callee: Any) -> gast.expr:
        if callee is primitives.call:
            node.func = self.atom(node.func)
        elif callee is primitives.method:
            assert isinstance(node.func, gast.Attribute)
            node.func.value = self.atom(node.func.value)
        node.args = [self.atom(a) for a in node.args]
        for keyword in node.keywords:
            keyword.value = self.atom(keyword.value)
        return node  # the same node: Callees is keyed on it

    def _attribute(self, node: gast.Attribute) -> gast.expr:
        projected = self._projection(node)
        if projected is not None:
            return self.operation(projected)
        return make(gast.Attribute, value=self.atom(node.value), attr=node.attr, ctx=LOAD)

    def _subscript(self, node: gast.Subscript) -> gast.expr:
        projected = self._projection(node)
        if projected is not None:
            return self.operation(projected)
        joined = self._index_concatenation(node)
        if joined is not None:
            return joined
        value = self.atom(node.value)
        index = self.index(node.slice)
        # Where it was, for a diagnostic about indexing an object without a rule.
        where = {
            "lineno": getattr(node, "lineno", None),
            "col_offset": getattr(node, "col_offset", 0),
        }
        return make(gast.Subscript, value=value, slice=index, ctx=LOAD, **where)

    def _tuple(self, node: gast.Tuple) -> gast.expr:
        if any(isinstance(e, gast.Starred) for e in node.elts):
            return self._unpacking_display(node.elts, tuple)
        return make(gast.Tuple, elts=[self.atom(e) for e in node.elts], ctx=LOAD)

    def _list(self, node: gast.List) -> gast.expr:
        if any(isinstance(e, gast.Starred) for e in node.elts):
            return self._unpacking_display(node.elts, list)
        return make(gast.List, elts=[self.atom(e) for e in node.elts], ctx=LOAD)

    def _unpacking_display(self, elements: list[gast.expr], kind: type) -> gast.expr:
        """`[*a, b, *c]` as `list(a) + [b] + list(c)`, and `(*a, b)` as `tuple(a) + (b,)`:
        the rules of `+` on sequences give each element its own derivative."""
        display = gast.List if kind is list else gast.Tuple
        parts: list[gast.expr] = []
        plain: list[gast.expr] = []
        for element in elements:
            if isinstance(element, gast.Starred):
                if plain:
                    parts.append(make(display, elts=plain, ctx=LOAD))
                    plain = []
                parts.append(self._primitive_call(kind, [self.atom(element.value)], element))
            else:
                plain.append(self.atom(element))
        if plain:
            parts.append(make(display, elts=plain, ctx=LOAD))
        joined = parts[0]
        for part in parts[1:]:
            joined = make(gast.BinOp, left=self.atom(joined), op=gast.Add(), right=self.atom(part))
        return joined

    def _projection(self, node: gast.expr) -> gast.Call | None:
        """`logabsdet(a)` for `np.linalg.slogdet(a)[1]`: an element of a call's tuple
        result, taken at once, as the call of its own function (`primitives.PROJECTIONS`)."""
        element: int | str | None
        if isinstance(node, gast.Subscript):
            element = constant_int(node.slice)
        elif isinstance(node, gast.Attribute):
            element = node.attr
        else:
            return None
        call = node.value
        if element is None or not isinstance(call, gast.Call) or call.keywords:
            return None
        callees = self.ctx.analysis_result(Callees).callees
        try:
            function = primitives.PROJECTIONS.get((callees.get(call), element))
        except TypeError:  # an unhashable callable object: not one of them
            return None
        if function is None:
            return None
        name = make(gast.Name, id=self.ctx.bind(function, function.__name__), ctx=LOAD,
                         annotation=None, type_comment=None)  # fmt: skip
        projected = make(gast.Call, func=name, args=call.args, keywords=[])
        callees[projected] = function
        return projected

    def index(self, node: gast.expr) -> gast.expr:
        if isinstance(node, gast.Slice):
            lower, upper, step = (
                None if p is None else self.atom(p) for p in (node.lower, node.upper, node.step)
            )
            return make(gast.Slice, lower=lower, upper=upper, step=step)
        if isinstance(node, gast.Tuple):
            return make(gast.Tuple, elts=[self.index(e) for e in node.elts], ctx=LOAD)
        return self.atom(node)


# How `_Normaliser.statement` normalises each class of statement.
_STATEMENTS: dict[type, Callable[[_Normaliser, Any], None]] = {
    gast.Assign: _Normaliser._assign_statement,
    gast.Expr: _Normaliser._expression_statement,
    gast.If: _Normaliser._if,
    gast.For: _Normaliser.for_loop,
    gast.Return: _Normaliser._return,
    gast.AugAssign: _Normaliser._aug_assign,
    gast.AnnAssign: _Normaliser._ann_assign,
    gast.While: _Normaliser.while_loop,
    gast.FunctionDef: _Normaliser._function_def,
    gast.Raise: _Normaliser._raise,
    gast.Assert: _Normaliser._assert,
    gast.Break: _Normaliser._jump,
    gast.Continue: _Normaliser._jump,
    gast.Global: _Normaliser._raise,  # (a declaration that stays: `declarations.py`)
    gast.Nonlocal: _Normaliser._raise,
}

# How `_Normaliser._operation` flattens each class of operation.
_OPERATIONS: dict[type, Callable[[_Normaliser, Any], gast.expr]] = {
    gast.BinOp: _Normaliser._binary,
    gast.Call: _Normaliser._call,
    gast.Subscript: _Normaliser._subscript,
    gast.UnaryOp: _Normaliser._unary,
    gast.Compare: _Normaliser._compare,
    gast.Attribute: _Normaliser._attribute,
    gast.Tuple: _Normaliser._tuple,
    gast.List: _Normaliser._list,
    gast.Dict: _Normaliser._dict,
    gast.JoinedStr: _Normaliser._joined_str,
    gast.ListComp: _Normaliser.comprehension,
    gast.GeneratorExp: _Normaliser.comprehension,
    gast.DictComp: _Normaliser.comprehension,
    gast.Set: _Normaliser._set,
    gast.SetComp: _Normaliser._set_comprehension,
}

# The signs that make a constant of a constant (`-1.0`).
_SIGNS = frozenset({gast.USub, gast.UAdd})

"""ReverseAD: turn a normal-form function into its rrule: a forward sweep and a named pullback."""

from __future__ import annotations

import os
from typing import Any

import gast

from srcad import syntax
from srcad.passes import naming
from srcad.passes.activity import Activity
from srcad.passes.base import Context, Transform, function_of
from srcad.passes.operation_rules import OperationRules
from srcad.passes.to_anf import is_copy, is_unpacking
from srcad.tangents import NoTangent, ZeroTangent


def load(name: str) -> gast.Name:
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def store(name: str) -> gast.Name:
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def call(
    function: str, args: list[gast.expr], keywords: list[gast.keyword] | None = None
) -> gast.Call:
    return gast.Call(func=load(function), args=args, keywords=keywords or [])


def assign(targets: gast.expr, value: gast.expr) -> gast.Assign:
    return gast.Assign(targets=[targets], value=value, type_comment=None)


def none() -> gast.Constant:
    return gast.Constant(value=None, kind=None)


class ReverseAD(Transform):
    """Replace the function by its reverse rule.

    Each statement that computes a value the result depends on calls its rule in the
    forward sweep, keeping the rule's pullback; the pullback of the whole function calls
    those pullbacks in reverse order, accumulating each value's cotangent in `<name>_bar`.
    Other statements run as they are.

    >>> from srcad.passes.testing import show_reverse
    >>> print(show_reverse('''
    ... def f(x, y):
    ...     return np.sin(x) * y
    ... '''), end="")
    def rrule_f(x, y):
        sin_x, sin_x_pullback = sin_rrule(x)
        out, out_pullback = mul_rrule(sin_x, y)
    <BLANKLINE>
        def f_pullback(out_bar):
            # <doctest>:3  return np.sin(x) * y
            _, sin_x_bar, y_bar = out_pullback(out_bar)
            _, x_bar = sin_x_pullback(sin_x_bar)
            return (NoTangent(), x_bar, y_bar)
        return (out, f_pullback)
    """

    requires = (Activity, OperationRules)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        function = function_of(tree)
        self.ctx = ctx
        self.active = ctx.analysis(Activity, tree)
        self.rules = ctx.analysis(OperationRules, tree).rules
        self.bars: dict[str, str] = {}
        self._seen: set[str] = set()  # names whose cotangent the pullback holds so far
        *body, final = function.body
        assert isinstance(final, gast.Return) and final.value is not None
        result = final.value

        differentiated = self._differentiated(body, result)
        forward: list[gast.stmt] = []
        pullbacks: dict[gast.Assign, str] = {}
        for statement in body:
            if statement in differentiated:
                forward.append(self._forward(statement, pullbacks))
            else:
                forward.append(statement)

        if isinstance(result, gast.Name):
            seed = self._bar(result.id)
            if result.id in self.active:
                self._seen.add(result.id)
        else:
            seed = ctx.namer.fresh("out_bar")
        reverse: list[gast.stmt] = []
        last_line = None
        for statement in reversed(body):
            if statement not in differentiated:
                continue
            if statement.lineno != last_line:
                reverse.append(self._location_comment(statement))
                last_line = statement.lineno
            reverse += self._reverse(statement, pullbacks.get(statement))
        reverse.append(
            gast.Return(value=gast.Tuple(elts=self._parameter_bars(function), ctx=gast.Load()))
        )

        pullback_name = ctx.namer.fresh(naming.pullback(function.name))
        pullback = gast.FunctionDef(
            name=pullback_name,
            args=gast.arguments(
                args=[gast.Name(id=seed, ctx=gast.Param(), annotation=None, type_comment=None)],
                posonlyargs=[],
                vararg=None,
                kwonlyargs=[],
                kw_defaults=[],
                kwarg=None,
                defaults=[],
            ),
            body=reverse,
            decorator_list=[],
            returns=None,
            type_comment=None,
            type_params=[],
        )
        returned = gast.Return(
            value=gast.Tuple(elts=[result, load(pullback_name)], ctx=gast.Load())
        )
        function.name = ctx.namer.fresh(naming.rrule(function.name))
        function.body = [*forward, pullback, returned]
        function.decorator_list = []
        function.returns = None
        for node in gast.walk(function):
            if not hasattr(node, "lineno") and isinstance(node, gast.stmt | gast.expr):
                gast.copy_location(node, final)
        return True

    # -- which statements ----------------------------------------------------------------

    def _differentiated(self, body: list[gast.stmt], result: gast.expr) -> set[gast.stmt]:
        """Statements whose pullbacks the result's cotangent reaches."""
        needed: set[str] = set()
        if isinstance(result, gast.Name) and result.id in self.active:
            needed.add(result.id)
        chosen: set[gast.stmt] = set()
        for statement in reversed(body):
            if not isinstance(statement, gast.Assign):
                continue
            targets = {n.id for n in gast.walk(statement.targets[0]) if isinstance(n, gast.Name)}
            if not targets & needed:
                continue
            if statement in self.rules or is_copy(statement):
                chosen.add(statement)
                needed |= {
                    n.id for n in self._differentiable_operands(statement) if n.id in self.active
                }
        return chosen

    @staticmethod
    def _arguments(statement: gast.Assign) -> tuple[list[gast.expr], list[gast.keyword]]:
        """The positional and keyword arguments with which the rule is called."""
        value = statement.value
        if is_unpacking(statement):
            count = gast.Constant(value=len(statement.targets[0].elts), kind=None)
            return [value, count], []
        if isinstance(value, gast.BinOp):
            return [value.left, value.right], []
        if isinstance(value, gast.UnaryOp):
            return [value.operand], []
        if isinstance(value, gast.Call):
            return list(value.args), list(value.keywords)
        if isinstance(value, gast.Attribute):
            return [value.value], []
        if isinstance(value, gast.Subscript):
            return [value.value, value.slice], []
        if isinstance(value, gast.Tuple):
            return list(value.elts), []
        raise AssertionError(f"no rule arguments for {type(value).__name__}")

    def _differentiable_operands(self, statement: gast.Assign) -> list[gast.Name]:
        if is_copy(statement):
            return [statement.value]
        args, _ = self._arguments(statement)
        if isinstance(statement.value, gast.Subscript) or is_unpacking(statement):
            args = args[:1]  # the index and the count are not differentiated
        return [a for a in args if isinstance(a, gast.Name)]

    # -- forward sweep -------------------------------------------------------------------

    def _forward(self, statement: gast.Assign, pullbacks: dict[gast.Assign, str]) -> gast.stmt:
        if is_copy(statement):
            return statement
        rule = self.rules[statement]
        rule_name = self.ctx.bind(rule.rrule, getattr(rule.rrule, "__name__", "rule"))
        args, keywords = self._arguments(statement)
        if isinstance(statement.value, gast.Subscript):
            args[1] = self._index_value(args[1])
        target = statement.targets[0]
        names = [n.id for n in gast.walk(target) if isinstance(n, gast.Name)]
        pullback = self.ctx.namer.fresh(naming.pullback("_".join(names)))
        pullbacks[statement] = pullback
        both = gast.Tuple(elts=[target, store(pullback)], ctx=gast.Store())
        return gast.copy_location(assign(both, call(rule_name, args, keywords)), statement)

    def _index_value(self, index: gast.expr) -> gast.expr:
        """Index syntax as the value Python passes to `__getitem__`."""
        if isinstance(index, gast.Slice):
            parts = [none() if p is None else p for p in (index.lower, index.upper, index.step)]
            return call(self.ctx.bind(slice, "slice"), parts)
        if isinstance(index, gast.Tuple):
            return gast.Tuple(elts=[self._index_value(e) for e in index.elts], ctx=gast.Load())
        return index

    # -- pullback ------------------------------------------------------------------------

    def _bar(self, name: str) -> str:
        if name not in self.bars:
            self.bars[name] = self.ctx.namer.fresh(naming.bar(name))
        return self.bars[name]

    def _zero(self, kind: type[Any]) -> gast.Call:
        return call(self.ctx.bind(kind, kind.__name__), [])

    def _reverse(self, statement: gast.Assign, pullback: str | None) -> list[gast.stmt]:
        target = statement.targets[0]
        accumulate: list[gast.stmt] = []

        def contribution(operand: gast.expr) -> gast.expr:
            if not isinstance(operand, gast.Name) or operand.id not in self.active:
                return store("_")
            name = operand.id
            if name not in self._seen:
                self._seen.add(name)
                return store(self._bar(name))
            partial = self.ctx.namer.fresh(naming.bar(name))
            total = self._bar(name)
            accumulate.append(
                assign(
                    store(total), gast.BinOp(left=load(total), op=gast.Add(), right=load(partial))
                )
            )
            return store(partial)

        if is_copy(statement):  # `t = a`: a_bar += t_bar
            source = statement.value.id
            if source not in self.active:
                return []
            if source in self._seen:
                total = load(self._bar(source))
                plus = gast.BinOp(left=total, op=gast.Add(), right=self._seed_of(target))
                return [assign(store(self._bar(source)), plus)]
            return [assign(contribution(statement.value), self._seed_of(target))]
        assert pullback is not None
        if is_unpacking(statement):
            assert isinstance(target, gast.Tuple)
            seed: gast.expr = gast.Tuple(
                elts=[self._seed_of(n) for n in target.elts], ctx=gast.Load()
            )
        else:
            seed = self._seed_of(target)
        args, _ = self._arguments(statement)
        differentiable = set(map(id, self._differentiable_operands(statement)))
        outputs = [store("_")] + [
            contribution(a) if id(a) in differentiable else store("_") for a in args
        ]
        call_pullback = assign(gast.Tuple(elts=outputs, ctx=gast.Store()), call(pullback, [seed]))
        return [call_pullback, *accumulate]

    def _seed_of(self, target: gast.expr) -> gast.expr:
        assert isinstance(target, gast.Name)
        if target.id in self._seen:
            return load(self._bar(target.id))
        return self._zero(ZeroTangent)

    def _parameter_bars(self, function: gast.FunctionDef) -> list[gast.expr]:
        bars: list[gast.expr] = [self._zero(NoTangent)]
        for arg in [*function.args.posonlyargs, *function.args.args]:
            if arg.id not in self.ctx.wrt:
                bars.append(self._zero(NoTangent))
            elif arg.id in self._seen:
                bars.append(load(self._bar(arg.id)))
            else:
                bars.append(self._zero(ZeroTangent))
        return bars

    def _location_comment(self, statement: gast.stmt) -> gast.stmt:
        source = self.ctx.source
        text = source.line(statement.lineno).strip()
        where = f"{os.path.basename(source.filename)}:{statement.lineno}"
        return syntax.comment(f"{where}  {text}" if text else where)

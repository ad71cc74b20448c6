"""RuleCalls: how a normal-form statement calls its rule, shared by both modes' transforms."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import gast

from srcad import primitives, syntax
from srcad.errors import CALLEE_FAILED
from srcad.out_arguments import passed
from srcad.passes.analyses.activity import Activity, operand_names
from srcad.passes.analyses.operation_rules import OperationRules
from srcad.passes.analyses.scopes import LocalFunction, Scopes
from srcad.passes.base import Context, function_of
from srcad.passes.checks.callees import Callees, static_path
from srcad.passes.checks.mutations import CallSite, changes_nothing
from srcad.passes.normal_form import is_copy, is_unpacking
from srcad.registry import Origin, Rule
from srcad.syntax import LOAD, load, make, store


def call(function: str, args: list[gast.expr], keywords: list[gast.keyword] | None = None
         ) -> gast.Call:  # fmt: skip
    return make(gast.Call, func=load(function), args=args, keywords=keywords or [])


def guard_site(ctx: Context, call: gast.Call) -> CallSite:
    """The `CallSite` of a call whose function srcad sees only when the code runs."""
    what = ".".join(static_path(call.func) or ["this value"])
    return CallSite(
        ctx.source.func.__qualname__,
        ctx.diagnostic(
            call,
            CALLEE_FAILED,
            f"`{what}(...)` runs `{{function}}`, which may change a value its caller can "
            "see: srcad cannot differentiate that (the problems are listed next)",
            "make `{function}` return a new value instead; or register a rule with "
            "@srcad.rrule.register({name})",
        ),
        ctx.services.registry,
        passed(call),
    )


def assign(target: gast.expr, value: gast.expr) -> gast.Assign:
    return make(gast.Assign, targets=[target], value=value, type_comment=None)


def names_tuple(names: list[str], ctx: gast.AST) -> gast.Tuple:
    """`(a, b)`, to read (`ctx` a `Load`) or to bind (a `Store`)."""
    name = store if isinstance(ctx, gast.Store) else load
    return make(gast.Tuple, elts=[name(n) for n in names], ctx=ctx)


def function_def(name: str, parameter: str) -> gast.FunctionDef:
    """`def name(parameter):` with an empty body, to fill."""
    arguments = make(
        gast.arguments,
        args=[make(gast.Name, id=parameter, ctx=make(gast.Param), annotation=None,
                   type_comment=None)],
        posonlyargs=[],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )  # fmt: skip
    return make(gast.FunctionDef, name=name, args=arguments, body=[], decorator_list=[],
                returns=None, type_comment=None, type_params=[])  # fmt: skip


_NUMBERS = (int, float)  # a tuple: a union would be built anew on each call


def constant(value: Any) -> gast.expr:
    """A number as the tree Python parses its text to: `-1.0` (and `-0.0`) is a negation of
    a constant, never `Constant(-1.0)`."""
    number = isinstance(value, _NUMBERS) and not isinstance(value, bool)
    if number and (value < 0 or math.copysign(1.0, value) < 0):
        return make(gast.UnaryOp, op=make(gast.USub), operand=constant(-value))
    return make(gast.Constant, value=value, kind=None)


def receiver_changing_nothing(receiver: Any, name: str, site: CallSite) -> Any:
    """`receiver`, once its method `name` is proved to change nothing its caller can see
    (`changes_nothing`): the guard of `obj.name(*args)`, which the normal form calls as
    `unpacked_call(method, "..*", obj, "name", args)`."""
    changes_nothing(getattr(receiver, name), site)
    return receiver


class RuleCalls:
    """The arguments a statement passes to its rule, the operands whose derivatives the rule
    relates, and the names emitted code reaches rules and builtins by. The transform sets
    `ctx`, `rules`, `callees`, `active`, `outer` and `local_rules`."""

    ctx: Context
    function: gast.FunctionDef
    rules: dict[gast.stmt, Rule]
    callees: dict[gast.Call, Any]
    active: set[str]
    outer: set[str]
    local_rules: dict[LocalFunction, str]  # nested functions -> the name of their rules

    def prepare(self, tree: gast.Module, ctx: Context) -> gast.FunctionDef:
        """Read the analyses a transform uses; the function it transforms."""
        function = function_of(tree)
        self.ctx = ctx
        self.function = function
        self.active = ctx.analysis(Activity, tree)
        self.rules = ctx.analysis(OperationRules, tree).rules
        self.callees = ctx.analysis(Callees, tree).callees
        scopes = ctx.analysis(Scopes, tree)
        self.outer = scopes.capturable
        self.local_rules = {}
        self.bound: dict[int, str] = {}  # `_bind`'s answers, by the id of the value
        return function

    def _bind(self, value: Any, hint: str) -> str:
        """`ctx.bind(value, hint)`, which looks through every name bound so far, asked once
        per value (a name, once bound, stays the value's)."""
        name = self.bound.get(id(value))
        if name is None:
            name = self.bound[id(value)] = self.ctx.bind(value, hint)
        return name

    def _as_it_runs(self, statement: gast.stmt) -> gast.stmt:
        """A statement the rule runs as the function does, undifferentiated. A call in it of
        a value whose function srcad sees only when it runs (a function passed in, a method
        of an object) is guarded: `changes_nothing(obj.push, push_site)(v)` reads that
        function (once) and refuses it, located at `push_site`, where it changes something
        the caller can see (the pullback could read what it changed)."""
        value = getattr(statement, "value", None)
        if not isinstance(statement, gast.Assign | gast.Expr) or not isinstance(value, gast.Call):
            return statement
        callee = self.callees.get(value)
        if callee is primitives.unpacked_call:  # `f(*args)`: the function is its first part
            function = value.args[0]
            by_method = isinstance(function, gast.Name) and (
                function.id == self.ctx.output.runtime.name_of(primitives.method)
            )
            if by_method:  # `obj.name(*args)`: the method is read off the third part
                assert isinstance(value.args[3], gast.Constant)
                function = make(gast.Attribute, value=value.args[2], attr=value.args[3].value,
                                ctx=gast.Load())  # fmt: skip
            called = make(gast.Call, func=function, args=[], keywords=[])
            syntax.located(called, value)
            site = self._bind(guard_site(self.ctx, called), "call_site")
            if by_method:
                guard = self._bind(receiver_changing_nothing, "receiver_changing_nothing")
                value.args[2] = call(guard, [value.args[2], value.args[3], load(site)])
                return statement
            guard = self._bind(changes_nothing, "changes_nothing")
            value.args[0] = call(guard, [value.args[0], load(site)])
            return statement
        if callee is not primitives.call and callee is not primitives.method:
            return statement
        name = value.func.attr if isinstance(value.func, gast.Attribute) else "call"
        site = self._bind(guard_site(self.ctx, value), f"{name}_site")
        value.func = call(self._bind(changes_nothing, "changes_nothing"), [value.func, load(site)])
        return statement

    def _arguments(self, statement: gast.Assign) -> tuple[list[gast.expr], list[gast.keyword]]:
        """The positional and keyword arguments with which the rule is called."""
        return rule_arguments(statement, self.callees, self.rules)

    def _operands(self, statement: gast.Assign) -> list[gast.Name]:
        """The operands whose cotangents the statement's pullback returns."""
        return operands(statement, self.callees, self.outer, self.active)

    def _captured(self, statement: gast.stmt) -> list[str]:
        """For a call of a nested function: the active names it reads from this one."""
        return captured_names(statement, self.callees, self.outer, self.active)

    def _local_function(
        self, function: gast.FunctionDef, differentiated: Callable[[gast.stmt], bool]
    ) -> LocalFunction | None:
        """The nested functions, `function`'s definition among them, that a differentiated
        statement calls; None if none does."""
        for statement, rule in self.rules.items():
            primal = rule.primal
            if (
                rule.origin is Origin.LOCAL
                and isinstance(primal, LocalFunction)
                and any(node is function for node in primal.nodes)
                and differentiated(statement)
            ):
                return primal
        return None

    def _nested_rule(
        self,
        function: gast.FunctionDef,
        local: LocalFunction,
        captured: tuple[str, ...],
        captured_dots: dict[str, str] | None = None,
    ) -> gast.FunctionDef:
        """The rule of one definition of `local`, compiled on its own, reading (and in
        reverse mode giving cotangents for) the enclosing function's names `captured`
        (`LocalFunction.captured_by`). All the definitions' rules get one name, bound where
        each definition binds the function's name: a call calls the rule of the definition
        that ran."""
        nested = self.ctx.services.compile_nested(function, captured, self.ctx, captured_dots)
        nested.name = self.local_rules.setdefault(local, nested.name)
        return nested

    def _bind_rule(self, rule: Rule) -> str:
        """The name of the rule a call runs. A callee's compiled from source is called
        directly, where `CallGraph` compiled it (not a recursive call), under its
        `CompiledCall`'s name: its guards' facts are this rule's, so whatever checks them
        before this rule runs checks them for it, and its `CompiledCall` would only check
        them again on every call (a quarter of a microsecond, more than the rule of a
        small helper costs)."""
        if rule.origin is Origin.LOCAL:
            return self.local_rules[rule.primal]
        compiled = self.ctx.output.compiled_callees.get(id(rule.rrule))
        if compiled is not None:
            call, function = compiled
            return self._bind(function, call.__name__)
        return self._bind(rule.rrule, getattr(rule.rrule, "__name__", "rule"))

    def _index_value(self, index: gast.expr) -> gast.expr:
        """Index syntax as the value Python passes to `__getitem__`."""
        if isinstance(index, gast.Slice):
            parts = [
                constant(None) if p is None else p for p in (index.lower, index.upper, index.step)
            ]
            return call(self._bind(slice, "slice"), parts)
        if isinstance(index, gast.Tuple):
            return make(gast.Tuple, elts=[self._index_value(e) for e in index.elts], ctx=LOAD)
        return index

    def _builtin(self, function: Any) -> str:
        """A builtin the pullback calls, under a name no user variable shadows."""
        return self._bind(function, function.__name__)

    def _zero(self, kind: type[Any]) -> gast.expr:
        return call(self._bind(kind, kind.__name__), [])


def rule_arguments(
    statement: gast.Assign, callees: dict[gast.Call, Any], rules: dict[gast.stmt, Rule]
) -> tuple[list[gast.expr], list[gast.keyword]]:
    """The positional and keyword arguments with which a statement's rule is called."""
    value = statement.value
    if is_unpacking(statement):
        assert isinstance(statement.targets[0], gast.Tuple)
        return [value, constant(len(statement.targets[0].elts))], []
    if isinstance(value, gast.BinOp):
        return [value.left, value.right], []
    if isinstance(value, gast.UnaryOp):
        return [value.operand], []
    if isinstance(value, gast.Call):
        callee = callees.get(value)
        if callee is primitives.call:
            return [value.func, *value.args], list(value.keywords)
        if callee is primitives.method:
            assert isinstance(value.func, gast.Attribute)
            name = constant(value.func.attr)
            return [value.func.value, name, *value.args], list(value.keywords)
        return list(value.args), list(value.keywords)
    if isinstance(value, gast.Attribute):
        if rules[statement].primal is getattr:
            return [value.value, constant(value.attr)], []
        return [value.value], []
    if isinstance(value, gast.Subscript):
        return [value.value, value.slice], []
    if isinstance(value, gast.Tuple | gast.List):
        return list(value.elts), []
    if isinstance(value, gast.Dict):
        keys = make(gast.Tuple, elts=list(value.keys), ctx=LOAD)
        return [keys, *value.values], []
    raise AssertionError(f"no rule arguments for {type(value).__name__}")


def operands(
    statement: gast.Assign, callees: dict[gast.Call, Any], outer: set[str], active: set[str]
) -> list[gast.Name]:
    """The operands whose cotangents a statement's pullback returns (`outer`: the names a
    nested function may read from the function, `Scopes.capturable`)."""
    if is_copy(statement):
        assert isinstance(statement.value, gast.Name)
        return [statement.value]
    if isinstance(statement.value, gast.Subscript) or is_unpacking(statement):
        value = statement.value
        target = value.value if isinstance(value, gast.Subscript) else value
        return [target] if isinstance(target, gast.Name) else []
    captured = captured_names(statement, callees, outer, active)
    return operand_names(statement.value) + [load(c) for c in captured]


def captured_names(
    statement: gast.stmt, callees: dict[gast.Call, Any], outer: set[str], active: set[str]
) -> list[str]:
    """For a call of a nested function: the active names it reads from the function."""
    value = getattr(statement, "value", None)
    callee = callees.get(value) if isinstance(value, gast.Call) else None
    if not isinstance(callee, LocalFunction):
        return []
    return [c for c in callee.captured(outer) if c in active]

"""A small helper called in a loop, written into the loop: `total += huber(r, 1.0)` becomes
the helper's statements on names of the caller's own, before the differentiated code is
made. Called, the helper's rule would cost a call, a pullback closure on the loop's tape
and a call of it on the way back, each iteration, more than the helper's arithmetic; written
in, its values go on the loop's tape and its derivatives into the loop's pullback, and the
constants it is passed fold as the caller's do. A forward rule (`jvp`, a forward Jacobian)
has it written in too: its tangents become the loop's arithmetic, where its forward rule
would cost a call and a tuple of tangents built and unpacked per iteration.

What is written in is the function the call runs, proved and guarded:

- the call is in the value of an assignment inside a `for` or `while` loop (`t = f(...)`,
  `total += f(a, 1.0) + f(b, 1.0)`), where only names and constants are read before it
  (the calls before it are taken out in their order, `written`), of a name bound only by
  the module (a global: `FunctionSource.resolve`
  records the fact that it still names the function, and `guards.function_facts` that its
  code and defaults are the same), with no `*args` or `**kwargs`, every parameter bound by
  position, by name or to a default that is a number, a string, None or a bool;
- the function is a plain Python function of the same module (its globals are the
  caller's, its file the caller's file: the names it reads name what they name for it),
  with no closure, no `*args`, `**kwargs` or keyword-only parameters, no generator, no rule
  of its own registered nor marked non-differentiable (`Registry`);
- its body is assignments to names, `if`s and `return`s (a docstring, `pass`), whose
  expressions make no function or scope of their own (no lambda, comprehension, `:=`,
  `yield`), of at most `LIMIT` statements once written in; every name it binds is renamed
  to a name found nowhere in either function or the module, and no name it reads from the
  module is a name the caller binds (which would read the caller's variable instead);
- each `return v` becomes an assignment of the result, and what follows an `if` whose
  branch returned goes into the branches that did not, so the statements run are the
  ones the call would run, in the same order: the arguments first, left to right, as
  Python evaluates them.

Anything else is left a call, compiled as a callee is."""

from __future__ import annotations

import builtins
import inspect
import types
from collections.abc import Iterator
from typing import Any

import gast

from srcad import syntax
from srcad.errors import SrcadError
from srcad.guards import function_facts
from srcad.passes.rule_calls import constant
from srcad.registry import Registry
from srcad.source import FunctionSource, function_source
from srcad.syntax import load, store

LIMIT = 40  # statements of a helper, once written in: more are called, not copied
_STATEMENTS = (gast.Assign, gast.If, gast.Return, gast.Pass)
_SCOPES = (
    gast.Lambda,
    gast.ListComp,
    gast.SetComp,
    gast.DictComp,
    gast.GeneratorExp,
    gast.NamedExpr,
    gast.Yield,
    gast.YieldFrom,
    gast.Await,
    gast.Starred,
)
_DEFAULTS = (int, float, bool, str, type(None))


def inline_callees(function: gast.FunctionDef, source: FunctionSource, registry: Registry) -> None:
    """Write each helper called in a loop of `function` into it, in place (see the module's
    docstring); the facts it relies on go to `source.facts`."""
    if not any(isinstance(node, gast.For | gast.While) for node in syntax.walk(function)):
        return
    writer = _Writer(function, source, registry)
    function.body = writer.block(function.body, in_loop=False)


class _Writer:
    def __init__(self, function: gast.FunctionDef, source: FunctionSource, registry: Registry):
        self.source = source
        self.registry = registry
        self.bound = _bound_names(function) | set(source.enclosing) | set(source.closure)
        self.taken = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
        self.count = 0

    def block(self, statements: list[gast.stmt], in_loop: bool) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for statement in statements:
            if isinstance(statement, gast.FunctionDef | gast.ClassDef):
                out.append(statement)  # a scope of its own: left as it is
                continue
            inner = in_loop or isinstance(statement, gast.For | gast.While)
            for field in ("body", "orelse"):
                nested = getattr(statement, field, None)
                if isinstance(nested, list) and nested and isinstance(nested[0], gast.stmt):
                    setattr(statement, field, self.block(nested, inner))
            written = self.written(statement) if in_loop else None
            out += [statement] if written is None else written
        return out

    def written(self, statement: gast.stmt) -> list[gast.stmt] | None:
        """`statement` with the helpers it calls written in before it, or None where it
        stays. The calls up to the last helper's are taken out in the order Python makes
        them (each other call a temporary of its own, its arguments with it), only where
        nothing but reads of names and constants is evaluated before that call outside
        the arguments of those taken out, so that taking them out changes no order in
        which anything happens (an operator's result, an item read or an attribute
        computed first could raise or compute otherwise)."""
        single = isinstance(statement, gast.Assign) and len(statement.targets) == 1
        target = statement.target if isinstance(statement, gast.AugAssign) else None
        augmented = isinstance(target, gast.Name)
        if not (single or augmented):
            return None  # (`x[i] += f(v)` reads `x[i]` first)
        events: list[tuple[str, Any, tuple[int, ...]]] = []
        _evaluation(statement, "value", None, events, ())
        helpers = [
            i for i, (what, place, _) in enumerate(events)
            if what == "call" and self._helper(place[3])
        ]  # fmt: skip
        if not helpers:
            return None
        taken_out = {id(place[3]) for what, place, _ in events[: helpers[-1] + 1] if place}
        for what, _, within in events[: helpers[-1]]:
            if what == "other" and taken_out.isdisjoint(within):
                return None  # done before a call taken out, and not as part of one
        out: list[gast.stmt] = []
        for what, place, _ in events[: helpers[-1] + 1]:
            if what != "call":
                continue
            holder, field, index, call = place
            found = self._written_call(call, statement)
            if found is None:  # another call, taken out to keep the order
                result = self._fresh(f"{call.func.id}_value")
                value = gast.Assign(targets=[store(result)], value=call, type_comment=None)
                out.append(syntax.located(value, statement))
            else:
                statements, result = found
                out += statements
            if index is None:
                setattr(holder, field, load(result))
            else:
                getattr(holder, field)[index] = load(result)
        return [*out, statement]

    def _helper(self, call: gast.Call) -> types.FunctionType | None:
        """The helper `call` runs, where it can be written in (see the module's docstring)."""
        name = call.func.id if isinstance(call.func, gast.Name) else None
        if name is None or name in self.bound:
            return None
        helper = self.source.globals.get(name)
        if not isinstance(helper, types.FunctionType) or not self._writable(helper):
            return None
        return helper

    def _written_call(
        self, call: gast.Call, statement: gast.stmt
    ) -> tuple[list[gast.stmt], str] | None:
        """The statements that compute what `call` returns into a name of their own, and
        that name; None where the helper is not written in."""
        helper = self._helper(call)
        if helper is None:
            return None
        name = helper.__name__
        try:
            helper_source = function_source(helper)
        except SrcadError:
            return None  # no source to write in: called, the callee's own error says why
        if helper_source.filename != self.source.filename:
            return None
        node = helper_source.node
        parameters = [a.id for a in [*node.args.posonlyargs, *node.args.args]]
        arguments = _bound_arguments(call, parameters, helper)
        body = _body(node)
        if arguments is None or body is None:
            return None
        local = set(parameters) | _bound_names(node)
        read = {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)} - local
        if read & self.bound:
            return None  # the caller binds a name the helper reads from the module
        if _assigned(body, set(parameters), local) is False:
            return None  # a local read before it is bound: the call raises, a loop may not
        self.count += 1
        self.taken |= {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)}
        renamed = {n: self._fresh(f"{name}_{n}") for n in sorted(local)}
        result = self._fresh(f"{name}_{self.count}")
        statements = _returning(body, result, renamed, node)
        if _size(statements) > LIMIT:
            return None
        assert isinstance(call.func, gast.Name)
        self.source.resolve([call.func.id])  # the fact that the name still names the helper
        self.source.facts += function_facts(helper)
        start = [
            syntax.located(
                gast.Assign(targets=[store(renamed[p])], value=v, type_comment=None), statement
            )
            for p, v in arguments
        ]
        return [*start, *statements], result

    def _writable(self, helper: types.FunctionType) -> bool:
        if type(helper) is not types.FunctionType:
            return False
        code = helper.__code__
        flags = code.co_flags
        own = (
            inspect.CO_VARARGS
            | inspect.CO_VARKEYWORDS
            | inspect.CO_GENERATOR
            | inspect.CO_COROUTINE
            | inspect.CO_ITERABLE_COROUTINE
            | inspect.CO_ASYNC_GENERATOR
        )
        return (
            helper.__globals__ is self.source.globals
            and helper is not self.source.func
            and helper.__closure__ is None
            and not flags & own
            and not code.co_kwonlyargcount
            and not code.co_freevars
            and self.registry.rrule_for(helper) is None
            and self.registry.frule_for(helper) is None
            and not self.registry.is_non_differentiable(helper)
            and self.registry.refusal(helper) is None
        )

    def _fresh(self, hint: str) -> str:
        """A name found in neither function, the module (the helper's too) nor builtins."""
        name, number = hint, 1
        while name in self.taken or name in self.source.globals or hasattr(builtins, name):
            number += 1
            name = f"{hint}_{number}"
        self.taken.add(name)
        return name


def _evaluation(
    holder: Any,
    field: str,
    index: int | None,
    events: list[tuple[str, Any, tuple[int, ...]]],
    within: tuple[int, ...],
) -> None:
    """What evaluating the expression at `holder.field` (or its item `index`) does, in
    Python's order, each with the calls (by `id`) whose arguments it is part of
    (`within`): ("pure", None) for a read of a name or constant, ("call", place) for a
    call of a name (after its arguments), with where it is, ("other", None) for
    anything else (an operator applied, an item or attribute read, a short circuit: its
    parts are not looked into)."""
    node = getattr(holder, field) if index is None else getattr(holder, field)[index]
    if isinstance(node, gast.Name | gast.Constant):
        events.append(("pure", None, within))
    elif isinstance(node, gast.BinOp):
        _evaluation(node, "left", None, events, within)
        _evaluation(node, "right", None, events, within)
        events.append(("other", None, within))
    elif isinstance(node, gast.UnaryOp):
        _evaluation(node, "operand", None, events, within)
        events.append(("other", None, within))
    elif (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and not any(isinstance(a, gast.Starred) for a in node.args)
        and all(k.arg is not None for k in node.keywords)
    ):
        events.append(("pure", None, within))
        inside = (*within, id(node))
        for position in range(len(node.args)):
            _evaluation(node, "args", position, events, inside)
        for keyword in node.keywords:
            _evaluation(keyword, "value", None, events, inside)
        events.append(("call", (holder, field, index, node), within))
    else:
        events.append(("other", None, within))


def _bound_names(function: gast.FunctionDef) -> set[str]:
    """The parameters of `function` and the names it binds in its own scope."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    names = {a.id for a in every}
    for node in _own_nodes(function.body):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            names.add(node.id)
        elif isinstance(node, gast.FunctionDef | gast.ClassDef):
            names.add(node.name)
        elif isinstance(node, gast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def _own_nodes(statements: list[gast.stmt]) -> Iterator[gast.AST]:
    """The nodes of `statements`, not those inside a nested function or class (whose
    names are their own), though their names, bound here, are."""
    pending: list[gast.AST] = list(statements)
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, gast.FunctionDef | gast.ClassDef):
            continue
        pending += syntax.children(node)


def _bound_arguments(
    call: gast.Call, parameters: list[str], helper: types.FunctionType
) -> list[tuple[str, gast.expr]] | None:
    """Each parameter with the expression the call gives it, in the order Python evaluates
    them (the arguments as written, then the defaults); None where that is not plain."""
    if len(call.args) > len(parameters):
        return None
    if any(isinstance(a, gast.Starred) for a in call.args):
        return None
    bound = list(zip(parameters, call.args, strict=False))
    named = {p for p, _ in bound}
    positional_only = helper.__code__.co_posonlyargcount
    for keyword in call.keywords:
        if keyword.arg not in parameters[positional_only:] or keyword.arg in named:
            return None
        bound.append((keyword.arg, keyword.value))
        named.add(keyword.arg)
    defaults = helper.__defaults__ or ()
    first_default = len(parameters) - len(defaults)
    for position, parameter in enumerate(parameters):
        if parameter in named:
            continue
        if position < first_default:
            return None
        value = defaults[position - first_default]
        if type(value) not in _DEFAULTS or value != value:  # (NaN: no literal to write)
            return None
        bound.append((parameter, constant(value)))  # (`-1.5` as Python parses its text)
    return bound


def _body(node: gast.FunctionDef) -> list[gast.stmt] | None:
    """The helper's statements (its docstring left out), where each is one written in."""
    body = list(node.body)
    first = body[0] if body else None
    if isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant):
        body = body[1:]
    for statement in syntax.walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(statement, gast.stmt) and not isinstance(statement, _STATEMENTS):
            return None
        if isinstance(statement, _SCOPES):
            return None
        if isinstance(statement, gast.Assign) and not all(
            isinstance(n, gast.Name) for t in statement.targets for n in _target_names(t)
        ):
            return None
    return body


def _assigned(statements: list[gast.stmt], bound: set[str], local: set[str]) -> set[str] | bool:
    """The helper's locals bound once `statements` have run on every path that goes on
    from `bound`, True where every path returns, False where a local is read on some path
    before it is bound: the call would raise `UnboundLocalError`, where the same statements
    in a loop would read what an earlier iteration left."""

    def read_unbound(node: gast.AST, bound: set[str]) -> bool:
        return any(
            isinstance(n, gast.Name) and n.id in local and n.id not in bound
            for n in syntax.walk(node)
        )

    bound = set(bound)
    for statement in statements:
        if isinstance(statement, gast.Return):
            return statement.value is None or not read_unbound(statement.value, bound)
        if isinstance(statement, gast.Assign):
            if read_unbound(statement.value, bound):
                return False
            bound |= {n.id for t in statement.targets for n in syntax.walk(t)
                      if isinstance(n, gast.Name)}  # fmt: skip
        elif isinstance(statement, gast.If):
            if read_unbound(statement.test, bound):
                return False
            branches = [_assigned(b, bound, local) for b in (statement.body, statement.orelse)]
            if False in branches:
                return False
            going_on = [b for b in branches if isinstance(b, set)]
            if not going_on:
                return True
            bound = set.intersection(*going_on)
    return bound


def _target_names(target: gast.expr) -> list[gast.expr]:
    if isinstance(target, gast.Tuple | gast.List):
        return [n for e in target.elts for n in _target_names(e)]
    return [target]


def _returning(
    statements: list[gast.stmt], result: str, renamed: dict[str, str], where: gast.AST
) -> list[gast.stmt]:
    """`statements` (the rest of the helper from here) renamed, each `return v` an
    assignment `result = v`, and what follows an `if` that returns in its branches; a
    path that runs off the end assigns None, located at `where` (the last statement
    before, or the helper's `def`)."""
    out: list[gast.stmt] = []
    for index, statement in enumerate(statements):
        if isinstance(statement, gast.Return):
            value = statement.value or gast.Constant(value=None, kind=None)
            assigned = gast.Assign(
                targets=[store(result)], value=_renamed(value, renamed), type_comment=None
            )
            out.append(syntax.located(assigned, statement))
            return out
        if isinstance(statement, gast.If) and any(
            isinstance(n, gast.Return) for n in syntax.walk(statement)
        ):
            rest = statements[index + 1 :]
            branch = gast.If(
                test=_renamed(statement.test, renamed),
                body=_returning([*statement.body, *rest], result, renamed, statement),
                orelse=_returning([*statement.orelse, *rest], result, renamed, statement),
            )
            out.append(syntax.located(branch, statement))
            return out
        if not isinstance(statement, gast.Pass):
            out.append(_renamed(statement, renamed))
    none = gast.Assign(
        targets=[store(result)], value=gast.Constant(value=None, kind=None), type_comment=None
    )
    out.append(syntax.located(none, statements[-1] if statements else where))
    return out


def _renamed(node: Any, renamed: dict[str, str]) -> Any:
    """A copy of `node` with the helper's own names renamed."""
    copy = syntax.copy_tree(node)
    for name in syntax.walk(copy):
        if isinstance(name, gast.Name) and name.id in renamed:
            name.id = renamed[name.id]
    return copy


def _size(statements: list[gast.stmt]) -> int:
    return sum(1 for node in syntax.walk(gast.Module(body=statements, type_ignores=[]))
               if isinstance(node, gast.stmt))  # fmt: skip

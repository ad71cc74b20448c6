"""The source srcad compiles for a call of a dataclass whose `__post_init__` computes or
checks fields: `Box(w, h)` where `__post_init__` sets `self.area = self.w * self.h`, or
raises `ValueError` for a negative `w`.

The `__init__` that `dataclasses` generates has no source of its own to read (it is made
with `exec`). What it does is fixed, though: it stores each field given (or its default,
or what its `default_factory` makes), then calls `self.__post_init__(...)` with the
`InitVar` arguments. srcad writes that as the initialiser's tree (`constructors.initialiser`:
the generated `__init__`, copied and marked with the class, whose signature and defaults
it keeps):

    def __init__(self, w, h, scale=...):
        self.w = w
        self.h = h
        self.scale = scale
        self.items = FACTORY() if items is HAS_DEFAULT_FACTORY else items
        ...the body of `__post_init__`, read from its file...

so that the compiler differentiates a class built in its own `__init__` (`new_instance`,
`with_attribute`). A frozen dataclass's `__post_init__` sets a field with
`object.__setattr__(self, 'area', v)` (the common idiom), written `self.area = v` here,
which builds the same new instance; a plain `self.area = v` there raises in Python
(`FrozenInstanceError`) and is refused.

Refused, located at the `__post_init__`, where the tree would not be what Python runs: a
`__post_init__` that reads a name of a function around it or calls `super()` (its
`__class__` cell), whose parameters are not the `InitVar`s by name, or whose body reads a
global of a field's (or `InitVar`'s) name or binds one (the parameters would stand for it).
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import gast

from srcad import syntax
from srcad.constructors import constructed_class, post_init_class
from srcad.errors import UnsupportedSyntaxError
from srcad.guards import Fact, function_facts
from srcad.source import FunctionSource, function_source
from srcad.syntax import load, make

_SENTINEL, _FACTORY = "dataclass_has_factory", "dataclass_factory"


def initialiser_source(func: types.FunctionType) -> FunctionSource:
    """The source srcad compiles for `func`: a dataclass's initialiser written as above,
    where `func` is one of a class with a `__post_init__`; else `func`'s own source."""
    kind = constructed_class(func)
    if kind is None or not post_init_class(kind):
        return function_source(func)
    post_init = getattr(kind, "__post_init__")  # noqa: B009 (a class's, as mypy reads it)
    read = function_source(post_init)
    node = read.tree()
    fields = dataclasses.fields(kind)
    code = func.__code__
    parameters = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    stored = {f.name for f in fields if f.init}
    init_vars = [p for p in parameters[1:] if p not in stored]
    own = [a.id for a in [*node.args.posonlyargs, *node.args.args] if isinstance(a, gast.Name)]
    frozen = bool(getattr(kind, "__dataclass_params__").frozen)  # noqa: B009
    why = _refusal(post_init, node, own, init_vars, parameters[1:], frozen)
    if why is not None:
        name = f"{kind.__qualname__}.__post_init__"
        hint = f"register a rule with @srcad.rrule.register({kind.__name__})"
        diagnostic = read.diagnostic(node, "E210", f"`{name}` {why}", hint)
        raise UnsupportedSyntaxError(f"cannot differentiate {kind.__qualname__}(...)", [diagnostic])
    instance = own[0]
    closure = dict(read.closure)
    taken = {n.id for n in syntax.walk(node) if isinstance(n, gast.Name)} | set(parameters)
    defaults = _defaults(func)
    body: list[gast.stmt] = []
    for field in fields:
        value = _field_value(field, closure, taken, defaults.get(field.name))
        if value is not None:
            target = make(gast.Attribute, value=load(instance), attr=field.name, ctx=gast.Store())
            assign = make(gast.Assign, targets=[target], value=value, type_comment=None)
            body += [_at(assign, node)]
    builtin = "object" not in post_init.__globals__  # `object.__setattr__` is the builtin's
    node.body = [*body, *(_set_attributes(node.body, instance) if builtin else node.body)]
    node.name, node.decorator_list, node.returns = "__init__", [], None
    positional = [_parameter(p) for p in [instance, *parameters[1 : code.co_argcount]]]
    keyword = [_parameter(p) for p in parameters[code.co_argcount :]]
    node.args = make(gast.arguments, args=positional, posonlyargs=[], vararg=None,
                     kwonlyargs=keyword, kw_defaults=[None] * len(keyword), kwarg=None,
                     defaults=[])  # fmt: skip
    facts: list[Fact] = [Fact("attribute", kind, "__post_init__", post_init)]
    facts += function_facts(post_init)
    return FunctionSource(
        func,
        node,
        read.filename,
        read.lines,
        read.globals,
        closure,
        facts=facts,  # (and a fact of each cell of `closure`: none changes)
    )


def _at(statement: gast.stmt, where: gast.FunctionDef) -> gast.stmt:
    """`statement` and every node in it at the line of `where`, the `def`: before the body."""
    position = {"lineno": where.lineno, "col_offset": where.col_offset,
                "end_lineno": where.lineno, "end_col_offset": where.col_offset}  # fmt: skip
    for node in syntax.walk(statement):
        if isinstance(node, gast.expr | gast.stmt):
            node.__dict__.update(position)
    return statement


def _parameter(name: str) -> gast.Name:
    return make(gast.Name, id=name, ctx=gast.Param(), annotation=None, type_comment=None)


def _refusal(
    post_init: types.FunctionType,
    node: gast.FunctionDef,
    own: list[str],
    init_vars: list[str],
    parameters: list[str],
    frozen: bool,
) -> str | None:
    if post_init.__code__.co_freevars or "object" in own:
        return "reads a name of a function around it, or calls `super()`"
    if node.args.vararg or node.args.kwarg or node.args.kwonlyargs or own[1:] != init_vars:
        return f"takes other parameters than the `InitVar`s {init_vars} by their names"
    if own[0] in parameters:
        return f"names its instance `{own[0]}`, as a field is named"
    fields = set(parameters) - set(init_vars)
    for name in (n for s in node.body for n in syntax.walk(s) if isinstance(n, gast.Name)):
        if name.id in fields:  # a local, global or builtin: the parameter would stand for it
            return f"reads or binds a name that a field is named, `{name.id}`"
    if frozen and any(
        isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store)
        for s in node.body
        for n in syntax.walk(s)
    ):
        return "assigns an attribute of a frozen dataclass, which raises `FrozenInstanceError`"
    return None


def _defaults(func: types.FunctionType) -> dict[str, Any]:
    """The default value of each parameter of `func` that has one."""
    code = func.__code__
    positional = code.co_varnames[: code.co_argcount]
    values = func.__defaults__ or ()
    found = dict(zip(positional[len(positional) - len(values) :], values, strict=True))
    return {**found, **(func.__kwdefaults__ or {})}


def _field_value(
    field: dataclasses.Field[Any],
    closure: dict[str, types.CellType],
    taken: set[str],
    default: Any,
) -> gast.expr | None:
    """What the generated `__init__` stores in `field`, None for nothing: the argument,
    or what its `default_factory` makes (a name bound in `closure`) where the argument is
    left to its `default`, the marker the generated `__init__` has for it. A field that
    is not an argument and has a plain default is not stored: the class holds it."""
    factory = field.default_factory
    if factory is not dataclasses.MISSING:
        made = make(gast.Call, func=load(_cell(closure, taken, _FACTORY, factory)), args=[],
                    keywords=[])  # fmt: skip
        if not field.init:
            return made
        given = make(
            gast.Compare,
            left=load(field.name),
            ops=[gast.Is()],
            comparators=[load(_cell(closure, taken, _SENTINEL, default))],
        )
        return make(gast.IfExp, test=given, body=made, orelse=load(field.name))
    return load(field.name) if field.init else None


def _cell(closure: dict[str, types.CellType], taken: set[str], stem: str, value: Any) -> str:
    """A name of no other use bound to `value` in a closure cell of srcad's own."""
    count, name = 1, stem
    while name in taken:
        count += 1
        name = f"{stem}_{count}"
    taken.add(name)
    closure[name] = types.CellType(value)
    return name


def _set_attributes(block: list[gast.stmt], instance: str) -> list[gast.stmt]:
    """`block` with each `object.__setattr__(self, 'name', v)` written `self.name = v`."""
    out: list[gast.stmt] = []
    for statement in block:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                inner[:] = _set_attributes(inner, instance)
        call = statement.value if isinstance(statement, gast.Expr) else None
        if (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Attribute)
            and call.func.attr == "__setattr__"
            and isinstance(call.func.value, gast.Name)
            and call.func.value.id == "object"
            and len(call.args) == 3
            and not call.keywords
            and isinstance(call.args[0], gast.Name)
            and call.args[0].id == instance
            and isinstance(call.args[1], gast.Constant)
            and isinstance(call.args[1].value, str)
        ):
            target = make(gast.Attribute, value=syntax.located(load(instance), call.args[0]),
                          attr=call.args[1].value, ctx=gast.Store())  # fmt: skip
            syntax.located(target, call.func)  # where `self.name = ` would be
            assign = make(gast.Assign, targets=[target], value=call.args[2], type_comment=None)
            statement = syntax.located(assign, statement)
        out.append(statement)
    return out

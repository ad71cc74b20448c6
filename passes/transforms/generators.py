"""A generator function srcad differentiates, as the function that returns the list of what
it yields: `yield v` appends `v` to a fresh list, `return` returns it. Its caller iterates
the list (`for layer in unpack_layers(params)`, `list(...)`, `zip(*...)`) as it would the
generator.

Running the generator to its end when it is called, rather than as its caller asks for each
item, computes the same items: the generator cannot change anything its caller sees, nor
see a change its caller makes between two items (the mutation check refuses both), so only
when each item is computed differs. It differs in what runs where the caller stops early
(`break`, `zip` with a shorter sequence): the rest of the generator runs too, which is
harmless where it ends. A generator that may not end is left as it is, to be refused: one
with a `yield` inside a `while` loop (an endless sequence its caller cuts short). So is one
whose `yield` is an expression (`x = yield v`, `yield from`) or which returns a value."""

from __future__ import annotations

import inspect
import types

import gast

from srcad import syntax
from srcad.syntax import LOAD, load, make, store

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def is_generator(func: types.FunctionType) -> bool:
    return bool(func.__code__.co_flags & inspect.CO_GENERATOR)


def collect_yields(function: gast.FunctionDef) -> None:
    """Rewrite the generator function `function` in place to return the list of what it
    yields, where that computes the same items (see above); else leave it as it is."""
    own = list(_own_nodes(function))
    yields = [n for n in own if isinstance(n, gast.Yield | gast.YieldFrom)]
    statements = [n for n in own if isinstance(n, gast.Expr) and isinstance(n.value, gast.Yield)]
    returns = [n for n in own if isinstance(n, gast.Return)]
    endless = [n for n in own if isinstance(n, gast.While) and set(syntax.walk(n)) & set(yields)]
    if len(statements) != len(yields) or endless or any(r.value is not None for r in returns):
        return
    taken = {n.id for n in syntax.walk(function) if isinstance(n, gast.Name)}
    name = next(f"yielded_{i}" for i in range(len(taken) + 2) if f"yielded_{i}" not in taken)
    for statement in statements:
        value = statement.value.value or make(gast.Constant, value=None, kind=None)
        append = make(gast.Attribute, value=load(name), attr="append", ctx=LOAD)
        statement.value = _located(make(gast.Call, func=append, args=[value], keywords=[]),
                                   statement)  # fmt: skip
    for returned in returns:
        returned.value = _located(load(name), returned)
    empty = make(gast.List, elts=[], ctx=LOAD)
    start = make(gast.Assign, targets=[store(name)], value=empty, type_comment=None)
    end = make(gast.Return, value=load(name))
    function.body = [_located(start, function), *function.body, _located(end, function.body[-1])]


def _located(new: gast.AST, old: gast.AST) -> gast.AST:
    """`new`, and each node in it without a position, at `old`'s position."""
    for node in syntax.walk(new):
        if "lineno" not in node.__dict__ and isinstance(node, gast.expr | gast.stmt):
            syntax.located(node, old)
    return new


def _own_nodes(function: gast.FunctionDef) -> list[gast.AST]:
    """The nodes of `function`'s own scope: not those of functions, lambdas or classes
    defined in it."""
    found: list[gast.AST] = []
    pending = list(syntax.children(function))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, _SCOPES):
            pending += syntax.children(node)
    return found

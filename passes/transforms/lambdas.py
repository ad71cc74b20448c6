"""Lambdas used as values (`sorted(xs, key=lambda v: -v)`, `map(lambda v: v * v, xs)`,
`f, g = (lambda ...), (lambda ...)`) bound to names first: `_lambda_L_C = lambda v: -v`
just before the statement, and the name in the lambda's place. Every check and pass then
sees a nested function defined by `name = lambda ...`, which they already know; one that
reads differentiated values and is passed on is refused as such a function is (E212).

Creating a function without default values runs no code, so binding it a little earlier
changes nothing. Left where they are, for the checks to refuse: lambdas with defaults (which
are evaluated where the lambda is), and those inside a comprehension or another lambda,
whose variables are their scope's own."""

from __future__ import annotations

import gast

from srcad import syntax
from srcad.syntax import LOAD, make, store

# The statements whose blocks hold statements of the same function.
_BLOCKS = ("body", "orelse")


def hoist_lambdas(function: gast.FunctionDef) -> None:
    """Bind each lambda `function` uses as a value to a name of its own, in place.

    Most functions have no lambda: one walk (`syntax.walk`) finds that, where rebuilding
    every statement's fields finds nothing to bind (`benchmarks/profile_compile.py
    --phases` of robust_fit_loss: 0.3 to 0.4 ms of the 0.6 ms the driver took to set up
    a compilation)."""
    if any(node.__class__ is gast.Lambda for node in syntax.walk(function)):
        function.body = _block(function.body)


def _block(statements: list[gast.stmt]) -> list[gast.stmt]:
    out: list[gast.stmt] = []
    for statement in statements:
        if isinstance(statement, gast.FunctionDef):
            statement.body = _block(statement.body)
            out.append(statement)
            continue
        for field in _BLOCKS:
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(statement, field, _block(inner))
        out += _hoisted(statement)
        out.append(statement)
    return out


def _hoisted(statement: gast.stmt) -> list[gast.stmt]:
    """The assignments that bind the lambdas of `statement`'s own expressions (not of the
    blocks it holds), which it then reads by name."""
    if (
        isinstance(statement, gast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], gast.Name)
        and isinstance(statement.value, gast.Lambda)
    ):
        return []  # `name = lambda ...`: a nested function already
    bound: list[gast.stmt] = []
    blocks = {field: getattr(statement, field, None) for field in _BLOCKS}
    for field in blocks:
        if hasattr(statement, field):
            setattr(statement, field, [])  # (its blocks are done by `_block`)
    _replace_fields(statement, bound)
    for field, block in blocks.items():
        if block is not None:
            setattr(statement, field, block)
    return bound


def _replace(node: gast.expr, bound: list[gast.stmt]) -> gast.expr:
    """`node` with each lambda it may bind earlier replaced by a name, whose assignment is
    added to `bound`."""
    if isinstance(node, gast.Lambda):
        if node.args.defaults or any(d is not None for d in node.args.kw_defaults):
            return node
        name = f"_lambda_{node.lineno}_{node.col_offset}"
        bound.append(
            syntax.located(
                make(gast.Assign, targets=[store(name)], value=node, type_comment=None), node
            )
        )
        return syntax.located(make(gast.Name, id=name, ctx=LOAD, annotation=None,
                                   type_comment=None), node)  # fmt: skip
    if isinstance(node, gast.ListComp | gast.SetComp | gast.DictComp | gast.GeneratorExp):
        return node  # its own scope
    _replace_fields(node, bound)
    return node


def _replace_fields(node: gast.AST, bound: list[gast.stmt]) -> None:
    for field, value in gast.iter_fields(node):
        if isinstance(value, gast.expr):
            setattr(node, field, _replace(value, bound))
        elif isinstance(value, list):
            for position, item in enumerate(value):
                if isinstance(item, gast.expr):
                    value[position] = _replace(item, bound)
                elif isinstance(item, gast.keyword):  # `f(key=lambda v: -v)`
                    item.value = _replace(item.value, bound)

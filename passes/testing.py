"""Run passes on source text, for the passes' own doctests and golden tests."""

from __future__ import annotations

import math
import textwrap
import types
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.kinds import parse_signature
from srcad.passes.base import Context, Transform
from srcad.source import FunctionSource


def context_for(
    text: str,
    wrt: tuple[str, ...] | None = None,
    env: dict[str, Any] | None = None,
    mode: str = "reverse",
    kinds: str = "",
) -> tuple[gast.Module, Context]:
    """Parse `text` (one function) as if it lived in a file named `<doctest>`; `kinds`
    (`float, float[:]`) are those of the arguments to specialise for."""
    from srcad.compiler import new_context

    text = textwrap.dedent(text)
    module = syntax.parse(text)
    node = module.body[-1]
    assert isinstance(node, gast.FunctionDef)
    namespace: dict[str, Any] = {"np": np, "math": math, **(env or {})}
    exec(compile(text, "<doctest>", "exec"), namespace)
    func = namespace[node.name]
    assert isinstance(func, types.FunctionType)
    source = FunctionSource(func, node, "<doctest>", text.splitlines(True), namespace)
    return new_context(source, wrt, mode, parse_signature(kinds) if kinds else ())


def show(transform: type[Transform], text: str, wrt: tuple[str, ...] | None = None) -> str:
    """The source after running the compiler's checks, then `transform`."""
    tree, ctx = context_for(text, wrt)
    transform.apply(tree, ctx)
    return syntax.unparse(tree)


def show_forward(text: str) -> str:
    """The emitted forward rule of the one function in `text`."""
    from srcad.compiler import transformed_tree

    tree, ctx = context_for(text, mode="forward")
    return syntax.unparse(transformed_tree(tree, ctx))


def show_reverse(
    text: str,
    wrt: tuple[str, ...] | None = None,
    kinds: str = "",
    optimise: bool = True,
    fused: bool = False,
    value: bool = True,
) -> str:
    """The emitted reverse rule of the one function in `text`, specialised for arguments
    of `kinds` (none: any), optimised or not; or (`fused`) the gradient function, for
    `grad` alone where not `value`."""
    from srcad.compiler import transformed_tree

    tree, ctx = context_for(text, wrt, kinds=kinds)
    ctx.optimise = optimise
    ctx.fused = fused
    ctx.value = value
    return syntax.unparse(transformed_tree(tree, ctx))

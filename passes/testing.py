"""Run passes on source text, for the passes' own doctests and golden tests.

The passes are run by srcad's default compiler (`srcad.defaults.COMPILER`): what a
callee's rule is, and how a nested function compiles, are its to say.
"""

from __future__ import annotations

import math
import textwrap
import types
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.defaults import COMPILER
from srcad.passes.base import Context, Transform
from srcad.requests import Mode, Request
from srcad.signatures import parse_signature
from srcad.source import FunctionSource


def context_for(
    text: str,
    wrt: tuple[str, ...] | None = None,
    env: dict[str, Any] | None = None,
    mode: str = "reverse",
    kinds: str = "",
    request: Request | None = None,
) -> tuple[gast.Module, Context]:
    """Parse `text` (one function) as if it lived in a file named `<doctest>`; `kinds`
    (`float, float[:]`) are those of the arguments to specialise for (or `request` says
    what to compile, kinds included)."""
    text = textwrap.dedent(text)
    module = syntax.parse(text)
    node = module.body[-1]
    assert isinstance(node, gast.FunctionDef)
    namespace: dict[str, Any] = {"np": np, "math": math, **(env or {})}
    exec(compile(text, "<doctest>", "exec"), namespace)
    func = namespace[node.name]
    assert isinstance(func, types.FunctionType)
    source = FunctionSource(func, node, "<doctest>", text.splitlines(True), namespace)
    if request is None:
        request = Request(Mode(mode), parse_signature(kinds) if kinds else ())
    return COMPILER.new_context(source, wrt, request)


def show(transform: type[Transform], text: str, wrt: tuple[str, ...] | None = None) -> str:
    """The source after running the compiler's checks, then `transform`."""
    tree, ctx = context_for(text, wrt)
    transform.apply(tree, ctx)
    return syntax.unparse(tree)


def show_forward(text: str) -> str:
    """The emitted forward rule of the one function in `text`."""
    tree, ctx = context_for(text, mode="forward")
    return syntax.unparse(COMPILER.transformed_tree(tree, ctx))


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
    signature = parse_signature(kinds) if kinds else ()
    request = Request(Mode.REVERSE, signature, gradient=fused, value=value, optimise=optimise)
    tree, ctx = context_for(text, wrt, request=request)
    return syntax.unparse(COMPILER.transformed_tree(tree, ctx))

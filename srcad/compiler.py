"""The compiler driver: source, checks, normal form, reverse rule, emitted text, compiled code."""

from __future__ import annotations

import copy
import linecache
import os
import textwrap
import types
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gast

from srcad import syntax
from srcad.errors import (
    Diagnostic,
    MissingRuleError,
    MutationError,
    SrcadError,
    UnsupportedSyntaxError,
)
from srcad.passes import CHECKS, REVERSE
from srcad.passes.base import Context, function_of
from srcad.passes.naming import Namer
from srcad.passes.operation_rules import OperationRules
from srcad.passes.unsupported_constructs import MUTATION
from srcad.registry import REGISTRY
from srcad.rules import RULE_SETS
from srcad.source import FunctionSource, function_source

REGISTRY.install(RULE_SETS)

# Emitted text opens with this many comment lines; the compiled text puts its wrapper
# definitions on exactly these lines, so line numbers in tracebacks match `srcad show`.
HEADER_LINES = 3


@dataclass(frozen=True)
class CompiledRule:
    """A generated rule: the function to call and the text it was compiled from."""

    function: Callable[..., Any]
    source: str
    filename: str


def new_context(source: FunctionSource, wrt: tuple[str, ...] | None) -> tuple[gast.Module, Context]:
    """A fresh copy of the function's tree and the context passes share while compiling it."""
    node = copy.deepcopy(source.node)
    node.decorator_list = []
    if wrt is None:
        wrt = tuple(a.id for a in [*node.args.posonlyargs, *node.args.args])
    tree = gast.Module(body=[node], type_ignores=[])
    return tree, Context(source, REGISTRY, wrt, Namer())


def _raise_if_any(diagnostics: list[Diagnostic], function: str) -> None:
    if not diagnostics:
        return
    count = f"{len(diagnostics)} problem{'s' if len(diagnostics) > 1 else ''}"
    if all(d.code == MUTATION for d in diagnostics):
        raise MutationError(f"cannot differentiate {function}: {count}", diagnostics)
    raise UnsupportedSyntaxError(f"cannot differentiate {function}: {count}", diagnostics)


def reverse_tree(tree: gast.Module, ctx: Context) -> gast.Module:
    """Check the function, then run the reverse pipeline; the tree becomes the rrule."""
    name = ctx.source.func.__qualname__
    diagnostics: list[Diagnostic] = []
    for check in CHECKS:
        result = ctx.analysis(check, tree)
        diagnostics += result if isinstance(result, list) else result.diagnostics
    _raise_if_any(diagnostics, name)
    for transform in REVERSE:
        if transform.__name__ == "ReverseAD":
            missing = ctx.analysis(OperationRules, tree).diagnostics
            if missing:
                count = f"{len(missing)} call{'s' if len(missing) > 1 else ''} without a rule"
                raise MissingRuleError(f"cannot differentiate {name}: {count}", missing)
        transform.apply(tree, ctx)
    return tree


def _strip_signature(function: gast.FunctionDef) -> None:
    """Defaults and annotations are not re-evaluated: the compiled function gets the
    primal's own default values."""
    args = function.args
    args.defaults = []
    args.kw_defaults = [None] * len(args.kwonlyargs)
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None


def emit(tree: gast.Module, ctx: Context, description: str) -> CompiledRule:
    """Print the tree, check the text parses back to it, and compile it in the user's
    globals with the user's closure cells and srcad's runtime names."""
    function = function_of(tree)
    _strip_signature(function)
    body = syntax.unparse(tree)
    if not syntax.same_tree(body, tree):
        raise SrcadError(
            f"internal error: the code emitted for {description} does not parse back to the "
            "tree srcad built; please report this with the function's source"
        )
    source = ctx.source
    origin = f"{os.path.basename(source.filename)}:{source.node.lineno}"
    header = [
        f"# srcad: {description} of {source.func.__qualname__}",
        f"# from {origin}",
        f"# differentiated with respect to: {', '.join(ctx.wrt) or 'nothing'}",
    ]
    text = "\n".join(header) + "\n" + body
    free = [name for name in source.closure if name in ctx.namer.taken]
    runtime = list(ctx.runtime)
    wrapper = [
        "def __srcad_closure__():",
        f"    {' = '.join(free)} = None" if free else "    pass",
        f"    def __srcad_bind__({', '.join(runtime)}):",
    ]
    assert len(wrapper) == HEADER_LINES
    compiled_text = "\n".join(
        [
            *wrapper,
            textwrap.indent(body, " " * 8).rstrip("\n"),
            f"        return {function.name}",
            "    return __srcad_bind__",
            "",
        ]
    )
    filename = f"<srcad {function.name} {origin} wrt={','.join(ctx.wrt)}>"
    linecache.cache[filename] = (len(compiled_text), None, compiled_text.splitlines(True), filename)
    module_code = compile(compiled_text, filename, "exec")
    outer = _nested_code(module_code, "__srcad_closure__")
    bind_code = _nested_code(outer, "__srcad_bind__")
    cells = tuple(source.closure[name] for name in bind_code.co_freevars)
    bind = types.FunctionType(bind_code, source.globals, "__srcad_bind__", None, cells)
    compiled = bind(*ctx.runtime.values())
    compiled.__defaults__ = source.func.__defaults__
    compiled.__kwdefaults__ = source.func.__kwdefaults__
    compiled.__module__ = source.func.__module__
    return CompiledRule(compiled, text, filename)


def _nested_code(code: types.CodeType, name: str) -> types.CodeType:
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType) and constant.co_name == name:
            return constant
    raise AssertionError(f"no code object {name}")


_cache: weakref.WeakKeyDictionary[Callable[..., Any], dict[tuple[Any, ...], CompiledRule]] = (
    weakref.WeakKeyDictionary()
)


def compiled_rrule(func: Callable[..., Any], wrt: tuple[str, ...] | None) -> CompiledRule:
    """`func`'s generated reverse rule for `wrt` (None: every positional parameter), compiled
    once per function, `wrt` and rule-registry version."""
    key = (wrt, "reverse", REGISTRY.version)
    per_function = _cache.setdefault(func, {})
    found = per_function.get(key)
    if found is None:
        source = function_source(func)
        tree, ctx = new_context(source, wrt)
        reverse_tree(tree, ctx)
        found = emit(tree, ctx, "reverse rule")
        # Rules compiled against an older registry are never asked for again.
        for stale in [k for k in per_function if k[2] != REGISTRY.version]:
            del per_function[stale]
        per_function[key] = found
    return found

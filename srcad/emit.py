"""Emitting a compiled tree: its text printed, checked, registered and compiled."""

from __future__ import annotations

import ast
import linecache
import os
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gast

from srcad import syntax, tracebacks
from srcad.errors import SrcadError
from srcad.guards import Guards, function_facts
from srcad.kinds import Kind, Signature, describe
from srcad.passes.base import Context, function_of

# A function called through its own generated rule: the function, the argument kinds its
# rule is compiled for, the parameters it is differentiated with respect to (None: all).
Callee = tuple[Callable[..., Any], Signature, tuple[str, ...] | None]


@dataclass(frozen=True)
class CompiledRule:
    """A generated rule: the function to call, the text it was compiled from, and the
    functions it calls through their own generated rules."""

    function: Callable[..., Any]
    source: str
    filename: str
    # The functions it calls through their own generated rules (`Callee`).
    callees: tuple[Callee, ...] = ()
    value_left_out: bool = False  # a gradient function giving None for its proven-float value
    # What the rule relies on that may change after it is compiled (`srcad.guards`):
    # never call `function` unless `guards.hold()`.
    guards: Guards = field(default_factory=Guards)
    # The objects the text reaches by name besides the user's globals (`RuntimeNames`):
    # what `srcad export` must define for the text to run without srcad.
    runtime: dict[str, Any] = field(default_factory=dict)
    # The kind of its primal's result (`srcad.kinds`), where its arguments' kinds tell.
    result: Kind | None = None
    # A forward rule's: whether its tangents may carry a trailing axis of directions, several
    # pushed forward in one call (`ForwardAD.batches`).
    batches: bool = False
    # A forward rule's: how many directions it pushes forward in one call, `dargs` a tuple
    # of that many tangent tuples and its result `(y, (y_dot_0, ...))`
    # (`passes/transforms/directions.py`); 0: one, as given.
    directions: int = 0


def register_text(filename: str, text: str) -> None:
    """Make tracebacks show the emitted `text` itself, as `srcad show` prints it."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    tracebacks.install()  # so that `python script.py` shows them too, before Python 3.13


def _own_filename(filename: str, text: str) -> str:
    """`filename`, or a numbered variant where another text has it: the closures of one
    definition (the `frule1` of each `scalar_rule`) are compiled to one name, and each
    keeps its own text, which srcad reads back to differentiate it in turn."""
    lines, candidate, number = text.splitlines(True), filename, 1
    while (held := linecache.cache.get(candidate)) is not None and held[2:3] != (lines,):
        number += 1
        candidate = f"{filename[:-1]} #{number}>"
    return candidate


def _strip_signature(function: gast.FunctionDef) -> None:
    """Defaults and annotations are not re-evaluated: the compiled function gets the
    primal's own default values."""
    args = function.args
    args.defaults = []
    args.kw_defaults = [None] * len(args.kwonlyargs)
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None


def emit(
    tree: gast.Module,
    ctx: Context,
    description: str,
    callees: tuple[Callee, ...] = (),
) -> CompiledRule:
    """Print the tree, check the text parses back to it, and compile that parse in the
    user's globals with the user's closure cells and srcad's runtime names. `callees`:
    the functions the code calls through their own generated rules, with the kinds of
    arguments each rule is compiled for and the parameters it differentiates."""
    function = function_of(tree)
    _strip_signature(function)
    body = syntax.unparse(tree)
    source = ctx.source
    wrt = ctx.request.wrt
    origin = f"{os.path.basename(source.filename)}:{source.lineno}"
    kinds = ", ".join(f"{name}: {describe(kind)}" for name, kind in ctx.request.kinds.items())
    kinds = f"; for {kinds}" if kinds else ""
    header = [
        f"# srcad: {description} of {source.func.__qualname__}",
        f"# from {origin}",
        f"# differentiated with respect to: {', '.join(wrt) or 'nothing'}{kinds}",
    ]
    text = "\n".join(header) + "\n" + body
    filename = _own_filename(f"<srcad {function.name} {origin} wrt={','.join(wrt)}{kinds}>", text)
    register_text(filename, text)
    # The text is parsed once: to check it is the tree srcad built, and to compile.
    module = syntax.parse_ast(text)
    if not syntax.same_as_parsed(module.body, [s for s in tree.body if not syntax.is_comment(s)]):
        raise SrcadError(
            f"internal error: the code emitted for {description} does not parse back to the "
            "tree srcad built; please report this with the function's source"
        )
    tracebacks.record_origins(filename, text, module.body, tree.body, source.filename)
    runtime = ctx.output.runtime
    free = [name for name in source.closure if name in ctx.namer.taken]
    module = _in_closure(module, free, list(runtime), function.name)
    module_code = compile(module, filename, "exec")
    outer = nested_code(module_code, "__srcad_closure__")
    bind_code = nested_code(outer, "__srcad_bind__")
    cells = tuple(source.closure[name] for name in bind_code.co_freevars)
    bind = types.FunctionType(bind_code, source.globals, "__srcad_bind__", None, cells)
    compiled = bind(*runtime.values())
    compiled.__defaults__ = source.func.__defaults__
    compiled.__kwdefaults__ = source.func.__kwdefaults__
    compiled.__module__ = source.func.__module__
    compiled.__qualname__ = function.name  # as `srcad show` prints it, not the binder's locals
    guards = Guards([*function_facts(source.func), *source.facts])
    return CompiledRule(
        compiled,
        text,
        filename,
        callees,
        ctx.output.value_left_out,
        guards,
        runtime=dict(runtime),
        result=ctx.output.result_kind,
        batches=ctx.output.batches,
        directions=ctx.output.directions,
    )


def _in_closure(module: ast.Module, free: list[str], runtime: list[str], name: str) -> ast.Module:
    """The parsed emitted function `name`, defined in `__srcad_bind__(*runtime)`, itself
    defined in `__srcad_closure__()`, which assigns the `free` names: so the function
    reads srcad's runtime names as arguments of the binder, and the user's closure
    variables as free variables, whose cells the binder's function gets. The function
    keeps its positions in the emitted text; the wrapper's lines are never run after
    binding, so never shown."""
    wrapper = syntax.parse_ast(
        "def __srcad_closure__():\n"
        + (f"    {' = '.join(free)} = None\n" if free else "    pass\n")
        + f"    def __srcad_bind__({', '.join(runtime)}):\n"
        + f"        return {name}\n"
        + "    return __srcad_bind__\n"
    )
    closure = wrapper.body[0]
    assert isinstance(closure, ast.FunctionDef)
    binder = closure.body[1]
    assert isinstance(binder, ast.FunctionDef)
    binder.body[:0] = module.body
    return wrapper


def nested_code(code: types.CodeType, name: str) -> types.CodeType:
    """The code object of the function `name` defined in `code`."""
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType) and constant.co_name == name:
            return constant
    raise AssertionError(f"no code object {name}")

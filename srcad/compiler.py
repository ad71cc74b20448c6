"""The compiler driver: source, checks, normal form, reverse rule, emitted text, compiled code."""

from __future__ import annotations

import ast
import inspect
import linecache
import os
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gast

from srcad import syntax
from srcad.errors import (
    CALLEE_FAILED,
    Diagnostic,
    MissingRuleError,
    MutationError,
    SrcadError,
    UnsupportedSyntaxError,
)
from srcad.guards import Guards, function_facts
from srcad.kinds import Signature, describe
from srcad.passes import CHECKS, FORWARD, REVERSE, naming
from srcad.passes.analyses.operation_rules import MISSING_RULE, OperationRules
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.base import Context, function_of
from srcad.passes.checks.mutations import CODES as MUTATION_CODES
from srcad.passes.naming import Namer
from srcad.registry import REGISTRY, Rule
from srcad.rules import RULE_SETS
from srcad.source import FunctionSource, differentiated_function, function_source

REGISTRY.install(RULE_SETS)


@dataclass(frozen=True)
class CompiledRule:
    """A generated rule: the function to call, the text it was compiled from, and the
    functions it calls through their own generated rules."""

    function: Callable[..., Any]
    source: str
    filename: str
    callees: tuple[Callable[..., Any], ...] = ()
    value_left_out: bool = False  # a gradient function giving None for its proven-float value
    # What the rule relies on that may change after it is compiled (`srcad.guards`):
    # never call `function` unless `guards.hold()`.
    guards: Guards = field(default_factory=Guards)


class CompiledCall:
    """What emitted code calls for a Python function without a registered rule: the
    function's own generated rrule (or frule), compiled on first use and again after the
    rule registry changes or its guards fail (so recursive functions can call themselves,
    and a callee's rebound globals are seen)."""

    __slots__ = ("__name__", "_current", "func", "mode")
    is_generated_rule = True  # a call of it is a call of the function srcad generated

    def __init__(self, func: types.FunctionType, mode: str = "reverse") -> None:
        self.func = func
        self.mode = mode
        name = func.__name__.strip("<>")
        self.__name__ = naming.frule(name) if mode == "forward" else naming.rrule(name)
        # The rule, its guards' check and the registry version it was compiled against:
        # one tuple, replaced at once, so another thread never sees half of an update.
        self._current: tuple[Callable[..., Any], Callable[[], bool], int] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        current = self._current
        if current is None or current[2] != REGISTRY.version or not current[1]():
            rule = compiled(self.func, None, self.mode)
            current = self._current = (rule.function, rule.guards.hold, REGISTRY.version)
        return current[0](*args, **kwargs)


def _nothing() -> None:
    return None


class _Compilations:
    """What srcad compiled for one function: its rules by request (`compiled`) and the
    `CompiledCall` of each mode. It is kept in the function's own `__dict__`, so that it
    lives exactly as long as the function: a table keyed by weak references to functions
    would keep every entry alive for good, since the entry holds its function (a
    `CompiledCall`'s `func`, a guard's expected object, the closure cells of a recursive
    nested function)."""

    __slots__ = ("calls", "function", "rules")

    def __init__(self, function: types.FunctionType) -> None:
        self.function = function  # whose they are (`functools.wraps` copies `__dict__`)
        # Replaced, never changed in place: a thread reading it never sees it change.
        self.rules: dict[tuple[Any, ...], CompiledRule] = {}
        self.calls: dict[str, CompiledCall] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return (_nothing, ())  # pickling a function (cloudpickle) leaves compiled code out


_COMPILATIONS = "__srcad_compiled__"

# Held while compiling, so that two threads asking for one rule get the same one.
# Re-entrant: compiling a function compiles the functions it calls.
_lock = threading.RLock()


def _compilations(func: types.FunctionType) -> _Compilations:
    found = func.__dict__.get(_COMPILATIONS)
    if found is None or found.function is not func:
        with _lock:
            found = func.__dict__.get(_COMPILATIONS)
            if found is None or found.function is not func:
                found = func.__dict__[_COMPILATIONS] = _Compilations(func)
    return found


class OptOutCall:
    """A registered rule whose opt-outs send some calls through the callee's own source."""

    __slots__ = ("__name__", "compiled", "predicates", "rule")

    def __init__(self, rule: Callable[..., Any], predicates: list[Callable[..., bool]],
                 compiled: CompiledCall) -> None:  # fmt: skip
        self.rule = rule
        self.predicates = predicates
        self.compiled = compiled
        self.__name__ = getattr(rule, "__name__", "rule")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not any(predicate(*args, **kwargs) for predicate in self.predicates):
            return self.rule(*args, **kwargs)
        y, pullback = self.compiled(*args, **kwargs)
        count = 1 + len(args)

        def opted_out_pullback(y_bar: Any) -> Any:
            # A compiled pullback has a cotangent per parameter; a rule's, per argument.
            return pullback(y_bar)[:count]

        return y, opted_out_pullback


def callee_rule(callee: Any) -> Rule | None:
    """The rule a call of `callee` uses: the registered one (through its opt-outs), else
    the one srcad compiles from the callee's source, else None. A call of generated code
    (a `CompiledCall`) is a call of the function srcad generated: that is compiled in turn,
    which is how srcad differentiates its own output."""
    if isinstance(callee, CompiledCall):
        return compiled_rule(compiled(callee.func, None, callee.mode).function)
    rule = REGISTRY.rrule_for(callee)
    if rule is None:
        return compiled_rule(callee)
    predicates = REGISTRY.opt_outs(callee)
    through_source = compiled_rule(callee) if predicates else None
    if through_source is None:
        return rule
    assert isinstance(through_source.rrule, CompiledCall)
    return Rule(callee, OptOutCall(rule.rrule, predicates, through_source.rrule), rule.origin)


def forward_callee_rule(callee: Any) -> Rule | None:
    """The forward rule a call of `callee` uses: registered, else compiled from source."""
    return REGISTRY.frule_for(callee) or compiled_rule(callee, "forward")


def compiled_rule(callee: Any, mode: str = "reverse") -> Rule | None:
    """The rule srcad generates for `callee` if it is a Python function (or a function
    behind a transparent wrapper, `source.differentiated_function`), else None."""
    func = differentiated_function(callee)
    if not isinstance(func, types.FunctionType):
        return None
    code = func.__code__
    parameters = code.co_varnames[: code.co_argcount]
    calls = _compilations(func).calls
    call = calls.get(mode)
    if call is None:
        with _lock:
            call = calls.setdefault(mode, CompiledCall(func, mode))
    return Rule(func, call, "compiled", parameters)


def new_context(
    source: FunctionSource,
    wrt: tuple[str, ...] | None,
    mode: str = "reverse",
    signature: Signature = (),
) -> tuple[gast.Module, Context]:
    """A fresh copy of the function's tree and the context passes share while compiling it."""
    node = source.tree()
    if isinstance(node, gast.AsyncFunctionDef):
        diagnostic = source.diagnostic(node, "E101", "an `async` function is not "
                                       "supported", f"register a rule with "
                                       f"@srcad.rrule.register({node.name})")  # fmt: skip
        raise UnsupportedSyntaxError(f"cannot differentiate {source.name}: 1 problem",
                                     [diagnostic])  # fmt: skip
    node.decorator_list = []
    if wrt is None:
        star = [node.args.vararg] if node.args.vararg is not None else []
        wrt = tuple(a.id for a in [*node.args.posonlyargs, *node.args.args, *star])
    tree = gast.Module(body=[node], type_ignores=[])
    rules = forward_callee_rule if mode == "forward" else callee_rule
    ctx = Context(source, REGISTRY, wrt, Namer(), rules, compile_nested, mode=mode)
    parameters = [a.id for a in [*node.args.posonlyargs, *node.args.args]]
    ctx.kinds = {p: k for p, k in zip(parameters, signature, strict=False) if k is not None}
    return tree, ctx


def compile_nested(
    node: gast.FunctionDef,
    captured: tuple[str, ...],
    parent: Context,
    captured_dots: dict[str, str] | None = None,
) -> gast.FunctionDef:
    """The rule of a function defined inside the one `parent` compiles: it reads the
    enclosing function's variables as they are when it is called. In reverse mode its
    pullback's first cotangent, for the function itself, holds the cotangents of the
    `captured` ones; in forward mode it reads their tangents (`captured_dots`) too."""
    scopes = parent.analysis_result(Scopes)
    enclosing = set(scopes.parameters) | scopes.locals
    source = parent.source.nested(syntax.copy_tree(node), enclosing)
    # Every positional parameter, `*args` too: its pullback gives a cotangent for each
    # argument it receives (left out, they were silently zero).
    star = [node.args.vararg] if node.args.vararg is not None else []
    parameters = tuple(a.id for a in [*node.args.posonlyargs, *node.args.args, *star])
    tree = gast.Module(body=[syntax.copy_tree(node)], type_ignores=[])
    child = Context(
        source,
        parent.registry,
        parameters + captured,
        parent.namer,
        parent.callee_rule,
        compile_nested,
        captured if parent.mode == "reverse" else (),
        runtime=parent.runtime,
        mode=parent.mode,
        captured_dots=captured_dots or {},
    )
    transformed_tree(tree, child)
    return function_of(tree)


def _raise_if_any(diagnostics: list[Diagnostic], function: str) -> None:
    if not diagnostics:
        return
    count = f"{len(diagnostics)} problem{'s' if len(diagnostics) > 1 else ''}"
    underlying = [d for d in diagnostics if d.code != CALLEE_FAILED]
    if underlying and all(d.code in MUTATION_CODES for d in underlying):
        raise MutationError(f"cannot differentiate {function}: {count}", diagnostics)
    raise UnsupportedSyntaxError(f"cannot differentiate {function}: {count}", diagnostics)


def transformed_tree(tree: gast.Module, ctx: Context) -> gast.Module:
    """Check the function, then run the pipeline of the context's mode; the tree becomes
    the rrule or the frule."""
    name = ctx.source.func.__qualname__
    groups: list[list[Diagnostic]] = []
    for check in CHECKS:
        result = ctx.analysis(check, tree)
        found = result if isinstance(result, list) else result.diagnostics
        # A call site's diagnostic stays followed by its callee's own (`Findings.groups`).
        groups += getattr(found, "groups", None) or [[d] for d in found]
    groups.sort(key=lambda group: (group[0].line, group[0].column))
    _raise_if_any([d for group in groups for d in group], name)
    for transform in FORWARD if ctx.mode == "forward" else REVERSE:
        if transform.__name__ in ("ReverseAD", "ForwardAD"):
            _check_call_graph(ctx, tree, name)
        transform.apply(tree, ctx)
    return tree


_compiling: set[tuple[Callable[..., Any], str]] = set()


def _check_call_graph(ctx: Context, tree: gast.Module, name: str) -> None:
    """Every call with a differentiated argument has a rule, or compiles: report all the
    problems of the whole call graph in one error."""
    info = ctx.analysis(OperationRules, tree)
    missing = list(info.diagnostics)
    unsupported: list[Diagnostic] = []
    tried: set[Any] = set()
    for statement, rule in info.rules.items():
        if (
            rule.origin != "compiled"
            or (rule.primal, ctx.mode) in _compiling
            or rule.primal in tried
        ):
            continue  # recursion: the callee is this function, or one being compiled
        tried.add(rule.primal)
        try:
            callee = compiled(rule.primal, None, ctx.mode)
            ctx.source.facts += callee.guards.facts  # what it relies on, this rule does
        except SrcadError as error:
            callee = rule.primal.__qualname__
            where = ctx.diagnostic(
                getattr(statement, "value", statement),
                CALLEE_FAILED,
                f"`{callee}` has no rule, and srcad cannot compile its source "
                f"({len(error.diagnostics) or 1} problem(s) listed next)",
                f"register a rule with @srcad.rrule.register({rule.primal.__name__})",
            )
            found = [where, *(error.diagnostics or [_as_diagnostic(error, ctx)])]
            if isinstance(error, MissingRuleError):
                missing += found
            else:
                unsupported += found
    if unsupported:
        _raise_if_any(unsupported + missing, name)
    if any(d.code not in (MISSING_RULE, CALLEE_FAILED) for d in missing):
        _raise_if_any(missing, name)
    if missing:
        count = f"{len(missing)} call{'s' if len(missing) > 1 else ''} without a rule"
        raise MissingRuleError(f"cannot differentiate {name}: {count}", missing)


def _as_diagnostic(error: SrcadError, ctx: Context) -> Diagnostic:
    source = ctx.source
    return Diagnostic(
        source.filename,
        source.lineno,
        source.definition.col_offset,
        "E200",
        error.message,
        "",
        source.line(source.lineno),
    )


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
    """Print the tree, check the text parses back to it, and compile that parse in the
    user's globals with the user's closure cells and srcad's runtime names."""
    function = function_of(tree)
    _strip_signature(function)
    body = syntax.unparse(tree)
    source = ctx.source
    origin = f"{os.path.basename(source.filename)}:{source.lineno}"
    kinds = ", ".join(f"{name}: {describe(kind)}" for name, kind in ctx.kinds.items())
    kinds = f"; for {kinds}" if kinds else ""
    header = [
        f"# srcad: {description} of {source.func.__qualname__}",
        f"# from {origin}",
        f"# differentiated with respect to: {', '.join(ctx.wrt) or 'nothing'}{kinds}",
    ]
    text = "\n".join(header) + "\n" + body
    filename = f"<srcad {function.name} {origin} wrt={','.join(ctx.wrt)}{kinds}>"
    # Tracebacks show the emitted text itself, as `srcad show` prints it.
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    # The text is parsed once: to check it is the tree srcad built, and to compile.
    module = syntax.parse_ast(text)
    if not syntax.same_as_parsed(module.body, [s for s in tree.body if not syntax.is_comment(s)]):
        raise SrcadError(
            f"internal error: the code emitted for {description} does not parse back to the "
            "tree srcad built; please report this with the function's source"
        )
    free = [name for name in source.closure if name in ctx.namer.taken]
    module = _in_closure(module, free, list(ctx.runtime), function.name)
    module_code = compile(module, filename, "exec")
    outer = _nested_code(module_code, "__srcad_closure__")
    bind_code = _nested_code(outer, "__srcad_bind__")
    cells = tuple(source.closure[name] for name in bind_code.co_freevars)
    bind = types.FunctionType(bind_code, source.globals, "__srcad_bind__", None, cells)
    compiled = bind(*ctx.runtime.values())
    compiled.__defaults__ = source.func.__defaults__
    compiled.__kwdefaults__ = source.func.__kwdefaults__
    compiled.__module__ = source.func.__module__
    compiled.__qualname__ = function.name  # as `srcad show` prints it, not the binder's locals
    callees = tuple(v.func for v in ctx.runtime.values() if isinstance(v, CompiledCall))
    guards = Guards([*function_facts(source.func), *source.facts])
    return CompiledRule(compiled, text, filename, callees, ctx.value_left_out, guards)


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


def _nested_code(code: types.CodeType, name: str) -> types.CodeType:
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType) and constant.co_name == name:
            return constant
    raise AssertionError(f"no code object {name}")


def compiled_rrule(func: Callable[..., Any], wrt: tuple[str, ...] | None) -> CompiledRule:
    """`func`'s generated reverse rule for `wrt` (None: every positional parameter)."""
    return compiled(func, wrt, "reverse")


def compiled_frule(func: Callable[..., Any]) -> CompiledRule:
    """`func`'s generated forward rule."""
    return compiled(func, None, "forward")


def compiled(
    func: Callable[..., Any],
    wrt: tuple[str, ...] | None,
    mode: str,
    signature: Signature = (),
    fused: bool = False,
    value: bool = True,
) -> CompiledRule:
    """`func`'s generated rule of `mode`, compiled once per function, `wrt`, mode, the
    kinds of the arguments it is specialised for (`srcad.kinds`; none: any) and
    rule-registry version. `fused`: instead of the rrule, the gradient function
    `grad_f(*args) -> (y, pullback(1.0))` that `grad` calls; with `value=False`, `y` is
    None wherever the kinds prove it a real float, and the work done only for it is left
    out (`grad` needs the gradient alone)."""
    code = differentiated_function(func)
    if not isinstance(code, types.FunctionType):
        function_source(code)  # raises SourceUnavailableError, naming what it is
    assert isinstance(code, types.FunctionType)
    wrt = code_wrt(func, code, wrt)
    func = code
    key = (wrt, mode, REGISTRY.version, signature, fused, value)
    record = _compilations(func)
    found = record.rules.get(key)
    if found is not None and found.guards.hold():
        return found
    with _lock:
        found = record.rules.get(key)  # compiled by another thread meanwhile?
        if found is not None and found.guards.hold():
            return found
        source = function_source(func)
        tree, ctx = new_context(source, wrt, mode, signature)
        ctx.fused = fused
        ctx.value = value
        _compiling.add((func, mode))
        try:
            transformed_tree(tree, ctx)
        finally:
            _compiling.discard((func, mode))
        found = emit(tree, ctx, "gradient" if fused else f"{mode} rule")
        # Rules compiled against an older registry, or whose guards fail, are never
        # asked for again.
        version = REGISTRY.version
        rules = {k: r for k, r in record.rules.items() if k[2] == version and r.guards.hold()}
        rules[key] = found
        record.rules = rules
    return found


def code_wrt(
    func: Callable[..., Any], code: types.FunctionType, wrt: tuple[str, ...] | None
) -> tuple[str, ...] | None:
    """`wrt`, named after `func`'s signature (which `inspect` reads through a wrapper's
    `__wrapped__`: a `functools.wraps` decorator's `(*args, **kwargs)` shows the wrapped
    function's `(x)`), as the parameters of `code`, the function whose source is compiled:
    the parameter at the same position (whatever its name), or its `*args` where it has
    no named one there. The gradient takes the cotangent at that position."""
    if wrt is None or (func is code and not hasattr(func, "__wrapped__")):
        return wrt  # the signature shown is the code's own
    table = code.__code__
    own = table.co_varnames[: table.co_argcount]
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    shown = [p.name for p in inspect.signature(func).parameters.values() if p.kind in kinds]
    star = None
    if table.co_flags & inspect.CO_VARARGS:
        star = table.co_varnames[table.co_argcount + table.co_kwonlyargcount]
    names: list[str] = []
    for name in wrt:
        position = shown.index(name) if name in shown else len(shown)
        if position < len(own):
            names.append(own[position])
        elif star is not None and name in shown:
            names.append(star)
        else:
            raise SrcadError(
                f"cannot differentiate {code.__qualname__} with respect to `{name}`: "
                "its own code has no parameter there"
            )
    return tuple(dict.fromkeys(names))


def sources(
    func: Callable[..., Any],
    wrt: tuple[str, ...] | None,
    mode: str = "reverse",
    signature: Signature = (),
) -> str:
    """The emitted text of `func`'s rule (for arguments of the kinds in `signature`)
    followed by those of the functions it calls through generated rules, each once."""
    first = compiled(func, wrt, mode, signature)
    texts, seen, pending = [first.source], {func}, list(first.callees)
    while pending:
        callee = pending.pop(0)
        if callee in seen:
            continue
        seen.add(callee)
        rule = compiled(callee, None, mode)
        texts.append(rule.source)
        pending += rule.callees
    return "\n\n".join(texts)

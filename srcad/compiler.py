"""The compiler driver: source, checks, the pipeline of the request's target, emitted
code; and the `Compiler` that owns the rule registry and every cache of compiled code."""

from __future__ import annotations

import contextlib
import gc
import inspect
import threading
import types
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import gast

from srcad import syntax
from srcad.cached_functions import stale_cache
from srcad.callables import (
    Call,
    callee,
    check_tangents,
    differentiated_parameters,
    name_of,
    padded,
    unwrap,
)
from srcad.constructors import constructed_class, initialiser_facts
from srcad.dataclass_init import initialiser_source
from srcad.emit import CompiledRule, emit
from srcad.entry_rules import DERIVATIVE, entry_rules
from srcad.errors import Diagnostic, MissingRuleError, SrcadError, UnsupportedSyntaxError
from srcad.guards import Fact
from srcad.keywords import is_positional_form
from srcad.kinds import Kind, Signature, signature
from srcad.machinery import REASON as MACHINERY
from srcad.machinery import Machinery, is_machinery
from srcad.passes import CHECKS, naming, pipeline
from srcad.passes.analyses.operation_rules import forget_rule_signatures
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.base import CompilationRequest, Context, Services, function_of
from srcad.passes.checks.call_graph import raise_if_any
from srcad.passes.checks.mutations import forget_changes
from srcad.passes.naming import Namer
from srcad.passes.transforms.inline_callees import inline_callees
from srcad.passes.transforms.statements_run_once import run_once
from srcad.primitive_callers import check_primitive_arguments, primitive_caller
from srcad.registry import Origin, Registry, Rule, RuleConfig, RuleSet
from srcad.requests import Mode, Request
from srcad.source import (
    FunctionSource,
    differentiated_function,
    forget_sources,
    function_source,
)

__all__ = ["CompiledCall", "CompiledRule", "Compiler", "code_wrt"]


class CompiledCall:
    """What emitted code calls for a Python function without a registered rule: the
    function's own generated rrule (or frule), compiled on first use and again after the
    rule registry changes or its guards fail (so recursive functions can call themselves,
    and a callee's rebound globals are seen)."""

    __slots__ = ("__name__", "_current", "compiler", "func", "mode", "signature", "wrt")
    is_generated_rule = True  # a call of it is a call of the function srcad generated

    def __init__(
        self,
        compiler: Compiler,
        func: types.FunctionType,
        mode: Mode,
        signature: Signature = (),
        wrt: tuple[str, ...] | None = None,
    ) -> None:
        """`signature`: the kinds of the arguments every call passes, proved by the
        caller's code specialised for its own (empty: any); `wrt`: the parameters every
        call passes a value that may carry a derivative (None: all of them), proved by
        the caller's activity (`operation_rules.active_parameters`)."""
        self.compiler = compiler
        self.func = func
        self.mode = mode
        self.signature = signature
        self.wrt = wrt
        name = func.__name__.strip("<>")
        rule = naming.frule(name) if mode is Mode.FORWARD else naming.rrule(name)
        self.__name__ = naming.identifier(rule)  # as the emitted rule is named (`__init__`'s)
        # The rule, its guards' check and the registry version it was compiled against:
        # one tuple, replaced at once, so another thread never sees half of an update.
        self._current: tuple[Callable[..., Any], Callable[[], bool], int] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        current = self._current
        version = self.compiler.registry.version
        if current is None or current[2] != version or not current[1]():
            request = Request(self.mode, self.signature)
            rule = self.compiler.compiled(self.func, self.wrt, request)
            current = self._current = (rule.function, rule.guards.hold, version)
        return current[0](*args, **kwargs)


def _nothing() -> None:
    return None


class _Compilations:
    """What one compiler compiled for one function: its rules by request (`compiled`) and
    the `CompiledCall` of each mode. It is kept in the function's own `__dict__`, so that
    it lives exactly as long as the function: a table keyed by weak references to functions
    would keep every entry alive for good, since the entry holds its function (a
    `CompiledCall`'s `func`, a guard's expected object, the closure cells of a recursive
    nested function)."""

    __slots__ = ("calls", "function", "refused", "rules", "unknown_results")

    def __init__(self, function: types.FunctionType) -> None:
        self.function = function  # whose they are (`functools.wraps` copies `__dict__`)
        # Replaced, never changed in place: a thread reading it never sees it change.
        self.rules: dict[tuple[Any, ...], CompiledRule] = {}
        self.calls: dict[tuple[Mode, Signature, tuple[str, ...] | None], CompiledCall] = {}
        # The (request, registry version) keys refused with respect to every parameter.
        self.refused: frozenset[tuple[Any, ...]] = frozenset()
        # The (argument kinds, registry version) for which it does not compile, so its
        # result's kind is unknown (`Compiler._result_kind`: asked again on every round of
        # kinds, and failing costs a whole compile each time).
        self.unknown_results: frozenset[tuple[Signature, int]] = frozenset()

    def __reduce__(self) -> tuple[Any, ...]:
        return (_nothing, ())  # pickling a function (cloudpickle) leaves compiled code out


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


@contextlib.contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """Compiling makes tens of thousands of short-lived containers (trees, analyses, passes)
    and leaves no reference cycles (`test_a_compilation_leaves_no_reference_cycles`):
    reference counting frees them as it goes. The cycle collector's passes over them, each
    few hundred allocations and now and then over the whole heap, are wasted work: they
    gave compiling `robust_fit_loss` (16 ms, `benchmarks/run.py --fixed-costs`) outliers of
    40 ms, and cost more in a process with a larger heap. So it waits until the outermost
    compilation returns, unless the program had turned it off itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Compiler(Machinery):
    """Compiles functions against one rule registry, which it owns, and keeps what it
    compiled: the rules by function and request (in each function's `__dict__`), the
    functions being compiled (recursion), the lock compiling takes. It gives itself to its
    `RuleConfig`, through which rules of higher-order functions call back into it.

    srcad's public functions use one, `srcad.defaults.COMPILER`, over the library's rules
    and the user's."""

    has_forward_mode = True  # srcad generates forward-mode code from source

    _count = 0  # compilers made: each keeps its compilations under its own attribute

    def __init__(
        self,
        registry: Registry | None = None,
        config: RuleConfig | None = None,
        rule_sets: Iterable[RuleSet] = (),
    ) -> None:
        self.registry = registry if registry is not None else Registry()
        self.registry.install(rule_sets)
        self.config = config if config is not None else RuleConfig()
        self.config.ad = self
        self._attribute = "__srcad_compiled__" + (f"{Compiler._count}__" if Compiler._count else "")
        Compiler._count += 1
        # Held while compiling, so that two threads asking for one rule get the same one.
        # Re-entrant: compiling a function compiles the functions it calls.
        self._lock = threading.RLock()
        self._compiling: set[tuple[Callable[..., Any], Mode]] = set()
        # The functions holding this compiler's compilations, for `clear_cache`.
        self._holders: weakref.WeakSet[types.FunctionType] = weakref.WeakSet()

    def _compilations(self, func: types.FunctionType) -> _Compilations:
        found = func.__dict__.get(self._attribute)
        if found is None or found.function is not func:
            with self._lock:
                found = func.__dict__.get(self._attribute)
                if found is None or found.function is not func:
                    found = func.__dict__[self._attribute] = _Compilations(func)
                    self._holders.add(func)
        return found

    def clear_cache(self) -> None:
        """Forget everything compiled: each function's rules and `CompiledCall`s, what
        the mutation check read of each function, the parsed source files, the rule
        signatures read; the next call compiles again from the source as it is now."""
        with self._lock:
            for func in list(self._holders):
                func.__dict__.pop(self._attribute, None)
            self._holders.clear()
            forget_changes()
            forget_sources()
            forget_rule_signatures()

    # -- the rules calls use -------------------------------------------------------------

    def callee_rule(
        self, callee: Any, kinds: Signature = (), wrt: tuple[str, ...] | None = None
    ) -> Rule | None:
        """The rule a call of `callee` uses: the registered one (through its opt-outs), else
        the one srcad compiles from the callee's source (for arguments of `kinds`, with
        respect to the parameters `wrt` alone, both proved by the caller: `Services`),
        else None. A call of generated code
        (a `CompiledCall`) is a call of the function srcad generated: that is compiled in
        turn, which is how srcad differentiates its own output."""
        if isinstance(callee, CompiledCall):  # for the kinds of its call's arguments too
            request = Request(callee.mode, callee.signature)
            function = self.compiled(callee.func, callee.wrt, request)
            return self.compiled_rule(function.function, kinds=kinds, wrt=wrt)
        entry = entry_rules(self, callee)  # a function `grad` returned: `srcad.entry_rules`
        if entry is not None:
            return Rule(callee, entry.rrule, Origin.ENTRY)
        rule = self.registry.rrule_for(callee)
        if rule is None:
            return self.compiled_rule(callee, kinds=kinds, wrt=wrt)
        predicates = self.registry.opt_outs(callee)
        through_source = self.compiled_rule(callee) if predicates else None
        if through_source is None:
            return rule
        assert isinstance(through_source.rrule, CompiledCall)
        call = OptOutCall(rule.rrule, predicates, through_source.rrule)
        return Rule(callee, call, rule.origin, rule_set=rule.rule_set)

    def forward_callee_rule(
        self, callee: Any, kinds: Signature = (), wrt: tuple[str, ...] | None = None
    ) -> Rule | None:
        """The forward rule a call of `callee` uses: registered, else compiled from source
        (for arguments of `kinds`, with respect to `wrt`). A call of generated code is
        compiled in turn, as in `callee_rule`: forward mode over a forward rule
        (`jacobian(jacobian(f))`, the forward rules of the derivatives srcad returns) goes
        through the callees' too."""
        if isinstance(callee, CompiledCall):
            request = Request(callee.mode, callee.signature)
            function = self.compiled(callee.func, callee.wrt, request).function
            return self.compiled_rule(function, Mode.FORWARD, kinds, wrt)
        entry = entry_rules(self, callee)
        if entry is not None:
            return Rule(callee, entry.frule, Origin.ENTRY)
        rule = self.registry.frule_for(callee)
        return rule or self.compiled_rule(callee, Mode.FORWARD, kinds, wrt)

    def compiled_rule(
        self,
        callee: Any,
        mode: Mode = Mode.REVERSE,
        kinds: Signature = (),
        wrt: tuple[str, ...] | None = None,
    ) -> Rule | None:
        """The rule srcad generates for `callee` if it is a Python function (or a function
        behind a transparent wrapper, `source.differentiated_function`), compiled for
        arguments of `kinds` (empty: any) with respect to the parameters `wrt` of that
        function's code (None: all), else None."""
        if self._refusal(callee) is not None:
            return None  # refused by the rule library, or srcad's own: its source unread
        func = differentiated_function(callee)
        if not isinstance(func, types.FunctionType):
            return None
        code = func.__code__
        parameters = code.co_varnames[: code.co_argcount]
        if constructed_class(func) is not None:
            parameters = parameters[1:]  # an initialiser makes its `self` itself
        kinds = kinds if any(kind is not None for kind in kinds) else ()
        calls = self._compilations(func).calls
        key = (mode, kinds, wrt)
        call = calls.get(key)
        if call is None:
            with self._lock:
                call = calls.setdefault(key, CompiledCall(self, func, mode, kinds, wrt))
        return Rule(func, call, Origin.COMPILED, parameters)

    # -- compiling -----------------------------------------------------------------------

    def _services(self, mode: Mode) -> Services:
        rules = self.forward_callee_rule if mode is Mode.FORWARD else self.callee_rule
        return Services(
            self.registry,
            rules,
            self.compile_nested,
            self._compile_callee,
            self._is_compiling,
            self._result_kind,
        )

    def _compile_callee(
        self, primal: Any, mode: Mode, kinds: Signature, wrt: tuple[str, ...] | None = None
    ) -> tuple[tuple[Fact, ...], Callable[..., Any]]:
        rule = self.compiled(primal, wrt, Request(mode, kinds))
        return rule.guards.facts, rule.function

    def _result_kind(self, callee: Any, kinds: Signature) -> tuple[Kind | None, tuple[Fact, ...]]:
        """The kind of what `callee`, a function srcad compiles from source, returns for
        arguments of `kinds`, from its reverse rule compiled for them, and the facts that
        rule relies on; (None, ()) for any other callee, one being compiled (recursion),
        or one that does not compile (its call's own diagnostics say why)."""
        func = differentiated_function(callee)
        if (
            not isinstance(func, types.FunctionType)
            or (func.__module__ or "").partition(".")[0] == "srcad"  # (`sum_to` in a pullback)
            or self.registry.rrule_for(callee) is not None
            or entry_rules(self, callee) is not None
            or self._is_compiling(func, Mode.REVERSE)
        ):
            return None, ()
        record = self._compilations(func)
        key = (kinds, self.registry.version)
        if key in record.unknown_results:
            return None, ()  # unknown is always sound: the caller takes the general path
        try:
            rule = self.compiled(func, None, Request(Mode.REVERSE, kinds))
        except SrcadError:
            record.unknown_results = record.unknown_results | {key}
            return None, ()
        return rule.result, rule.guards.facts

    def _is_compiling(self, primal: Any, mode: Mode) -> bool:
        return (primal, mode) in self._compiling

    def new_context(
        self, source: FunctionSource, wrt: tuple[str, ...] | None, request: Request
    ) -> tuple[gast.Module, Context]:
        """A fresh copy of the function's tree and the context passes share while
        compiling it for `request`."""
        node = source.tree()
        if isinstance(node, gast.AsyncFunctionDef):
            diagnostic = source.diagnostic(node, "E101", "an `async` function is not "
                                           "supported", f"register a rule with "
                                           f"@srcad.rrule.register({node.name})")  # fmt: skip
            raise UnsupportedSyntaxError(f"cannot differentiate {source.name}: 1 problem",
                                         [diagnostic])  # fmt: skip
        node.decorator_list = []
        run_once(node, source)
        if is_positional_form(source.func):  # every parameter positional (`srcad.keywords`)
            arguments = node.args
            star = [arguments.kwarg] if arguments.kwarg is not None else []
            arguments.args = [*arguments.args, *arguments.kwonlyargs, *star]
            arguments.kwonlyargs, arguments.kw_defaults, arguments.defaults = [], [], []
            arguments.kwarg = None
        constructs = constructed_class(source.func)
        made = 1 if constructs is not None else 0  # an initialiser's `self`: made, not passed
        if constructs is not None:
            source.facts += initialiser_facts(constructs)
        parameters = [a.id for a in [*node.args.posonlyargs, *node.args.args]][made:]
        if wrt is None:
            star = [node.args.vararg.id] if node.args.vararg is not None else []
            wrt = tuple([*parameters, *star])
        tree = gast.Module(body=[node], type_ignores=[])
        kinds = {p: k for p, k in zip(parameters, request.signature, strict=False) if k is not None}
        if kinds and constructs is None:
            inline_callees(node, source, self.registry)  # helpers called in loops
        inputs = CompilationRequest(
            wrt, request.mode, request.target(bool(kinds)), kinds, request.optimise,
            constructs=constructs, directions=request.directions,
        )  # fmt: skip
        return tree, Context(source, inputs, self._services(request.mode), Namer())

    def compile_nested(
        self,
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
        # argument it receives (left out, they were silently zero); without `*args`, the
        # keyword-only ones after them (`scopes.parameters_of`), each its own.
        star = [node.args.vararg] if node.args.vararg is not None else []
        keyword_only = node.args.kwonlyargs if not star else []
        every = [*node.args.posonlyargs, *node.args.args, *star, *keyword_only]
        parameters = tuple(a.id for a in every)
        tree = gast.Module(body=[syntax.copy_tree(node)], type_ignores=[])
        mode = parent.request.mode
        inputs = CompilationRequest(
            parameters + captured,
            mode,
            Request(mode).target(specialised=False),
            captured=captured if mode is Mode.REVERSE else (),
            captured_dots=captured_dots or {},
        )
        output = type(parent.output)(runtime=parent.output.runtime)
        child = Context(source, inputs, parent.services, parent.namer, output)
        self.transformed_tree(tree, child)
        return function_of(tree)

    def transformed_tree(self, tree: gast.Module, ctx: Context) -> gast.Module:
        """Check the function, then run the pipeline of the request's target; the tree
        becomes the rrule, the gradient function or the frule."""
        name = ctx.source.func.__qualname__
        groups: list[list[Diagnostic]] = []
        for check in CHECKS:
            result = ctx.analysis(check, tree)
            found = result if isinstance(result, list) else result.diagnostics
            # A call site's diagnostic stays followed by its callee's own (`Findings.groups`).
            groups += getattr(found, "groups", None) or [[d] for d in found]
        groups.sort(key=lambda group: (group[0].line, group[0].column))
        raise_if_any([d for group in groups for d in group], name)
        try:
            for transform in pipeline(ctx.request.target, ctx.request.optimise):
                transform.apply(tree, ctx)
        finally:
            # The analyses are done with: dropped now, since some hold the context (a
            # `ValueKinds` is its own result), a reference cycle that kept them and the
            # trees they read until the cycle collector found it (see `Transform.apply`).
            ctx.results.clear()
        return tree

    def compiled(
        self, func: Callable[..., Any], wrt: tuple[str, ...] | None, request: Request
    ) -> CompiledRule:
        """`func`'s generated code for `request` (`srcad.requests`), differentiated with
        respect to `wrt` (None: every positional parameter): compiled once per function,
        `wrt`, request and rule-registry version, and used again while its guards hold."""
        if DERIVATIVE in getattr(func, "__dict__", {}):  # srcad's own: only through its rules
            entry_rules(self, func).rrule()  # type: ignore[union-attr]  # raises, saying why
        code = differentiated_function(func)
        if not isinstance(func, types.FunctionType) and self.registry.knows(func):
            code = primitive_caller(func) or code  # a rule's primitive, differentiated again
        if not isinstance(code, types.FunctionType):
            function_source(code)  # raises SourceUnavailableError, naming what it is
        assert isinstance(code, types.FunctionType)
        if is_machinery(code):  # never read, however it was reached
            raise MissingRuleError(f"srcad has no rule for `{name_of(code)}`: {MACHINERY}")
        wrt = code_wrt(func, code, wrt)
        func = code
        key = (wrt, request, self.registry.version)
        record = self._compilations(func)
        found = record.rules.get(key)
        if found is not None and found.guards.hold():
            return found
        with self._lock:
            found = record.rules.get(key)  # compiled by another thread meanwhile?
            if found is not None and found.guards.hold():
                return found
            with cycle_collector_paused():
                source = initialiser_source(func)  # (a dataclass's: `dataclass_init`)
                tree, ctx = self.new_context(source, wrt, request)
                self._compiling.add((func, request.mode))
                try:
                    self.transformed_tree(tree, ctx)
                finally:
                    self._compiling.discard((func, request.mode))
                # The callees' rules it calls, through their `CompiledCall` or directly.
                direct = {id(f): c for c, f in ctx.output.compiled_callees.values()}
                calls = [direct.get(id(v), v) for v in ctx.output.runtime.values()]
                callees = tuple(
                    (c.func, c.signature, c.wrt) for c in calls if isinstance(c, CompiledCall)
                )
                found = emit(tree, ctx, request.description, callees)
            # Rules compiled against an older registry, or whose guards fail, are never
            # asked for again.
            version = self.registry.version
            rules = {k: r for k, r in record.rules.items() if k[2] == version and r.guards.hold()}
            rules[key] = found
            record.rules = rules
        return found

    def forward_rule(
        self, func: Callable[..., Any], args: tuple[Any, ...], wrt: tuple[str, ...] | None = None
    ) -> Callable[..., Any]:
        """The forward rule generated for the Python function `func` called with `args`,
        with respect to `wrt` (None: as `wrt_for` chooses): what reverse mode
        differentiates for a second derivative."""
        entry = entry_rules(self, func)
        if entry is not None:  # a function srcad returned, or a rule of one: its form's
            return entry.frule
        if not isinstance(func, types.FunctionType) and self.registry.knows(func):
            check_primitive_arguments(func, args)  # compiled through `primitive_caller`
        request = Request.frule(signature(args))
        if wrt is None:
            wrt = self.wrt_for(func, args, request)
        return self.compiled(func, wrt, request).function

    def wrt_for(
        self, func: Callable[..., Any], args: tuple[Any, ...], request: Request
    ) -> tuple[str, ...] | None:
        """The parameters `func`'s code for `request` differentiates, called with `args`:
        every one (None), as for any arguments, unless that code is refused and some of
        `args` cannot be perturbed (an int): then only the others
        (`callables.differentiated_parameters`), so that values computed from ints alone
        (`slice(0, n)`) need no rule. Every parameter first: code that compiles that way
        stays as it is."""
        narrowed = differentiated_parameters(func, args)
        if narrowed is None or not isinstance(func, types.FunctionType):
            return None
        record = self._compilations(func)
        key = (request, self.registry.version)
        if key in record.refused:
            return narrowed
        try:
            self.compiled(func, None, request)
        except SrcadError:
            record.refused = record.refused | {key}
            return narrowed
        return None

    def sources(
        self, func: Callable[..., Any], wrt: tuple[str, ...] | None, request: Request
    ) -> str:
        """The emitted text of `func`'s code for `request` followed by those of the
        functions it calls through generated rules, each once."""
        return "\n\n".join(rule.source for rule, _ in self.rules_called(func, wrt, request))

    def rules_called(
        self, func: Callable[..., Any], wrt: tuple[str, ...] | None, request: Request
    ) -> list[tuple[CompiledRule, Any]]:
        """`func`'s code for `request` and the rules of the functions it calls through
        generated rules (in its mode, for the kinds and parameters its calls gave), each
        once, with the function each was compiled from."""
        first = self.compiled(func, wrt, request)
        found, seen = [(first, func)], {(func, request.signature, wrt)}
        pending = list(first.callees)
        while pending:
            called, kinds, narrowed = pending.pop(0)
            if (called, kinds, narrowed) in seen:
                continue
            seen.add((called, kinds, narrowed))
            rule = self.compiled(called, narrowed, Request(request.mode, kinds))
            found.append((rule, called))
            pending += rule.callees
        return found

    # -- calling rules, for the API and for rules of higher-order functions ---------------

    def rrule(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """`(y, pullback)` for `f`: its registered rule, else the rule srcad compiles (for
        the kinds of `args`). A callable that binds arguments (`Call`) gives the
        cotangents of its caller's arguments."""
        f = unwrap(f)
        entry = entry_rules(self, f)
        if entry is not None:  # a function `grad` returned
            return entry.rrule(*args, **kwargs)
        rule = self.registry.rrule_for(f)
        if rule is not None:
            result: tuple[Any, Any] = rule.rrule(*args, **kwargs)
            return result
        self._check_not_refused(f)
        if not isinstance(f, types.FunctionType):
            call = callee(f, self.registry)
            if call.function is not f:
                return self._bound_rrule(call, args, kwargs)
        request = Request.rrule(signature(args))
        function = self.compiled(f, self.wrt_for(f, args, request), request).function
        try:
            return function(*args, **kwargs)
        except TypeError:
            Call(f, f).check_arguments(args, kwargs)  # arguments that do not fit: say so
            raise

    def _refusal(self, f: Any) -> str | None:
        """Why srcad does not compile `f` from its source: the rule library refuses it
        (`registry.DeferredRuleSet`), it is srcad's own machinery (`srcad.machinery`:
        reached through a call of a value known only when the code runs), or a cached
        function whose cache may hold results its source no longer computes
        (`cached_functions.stale_cache`). None if none of these."""
        return MACHINERY if is_machinery(f) else self.registry.refusal(f) or stale_cache(f)

    def _check_not_refused(self, f: Any) -> None:
        """A function srcad refuses (`_refusal`) is not compiled from its source: its call is
        refused with the reason."""
        refusal = self._refusal(f)
        if refusal is not None:
            raise MissingRuleError(f"srcad has no rule for `{name_of(f)}`: {refusal}")

    def _bound_rrule(self, call: Call, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The rule of a callable that binds arguments (see `Call`)."""
        full_args, full_kwargs = call.arguments(args, kwargs)
        call.check_arguments(args, kwargs)
        y, pullback = self.rrule(call.function, *full_args, **full_kwargs)

        def bound_pullback(y_bar: Any) -> tuple[Any, ...]:
            return call.cotangents(pullback(y_bar))

        bound_pullback.__name__ = bound_pullback.__qualname__ = pullback.__name__
        return y, bound_pullback

    def frule(
        self, dargs: tuple[Any, ...], f: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        """`(y, y_dot)` for `f`: its registered forward rule, else the one srcad compiles.
        A nonzero tangent for an argument that cannot be perturbed (an int) is refused."""
        if not isinstance(dargs, tuple | list):
            raise SrcadError(
                f"frule takes the tangents first, a tuple (f_dot, *arg_dots), not {dargs!r:.60}"
            )
        f = unwrap(f)
        entry = entry_rules(self, f)
        if entry is not None:  # a function `grad` returned
            return entry.frule(dargs, *args, **kwargs)
        rule = self.registry.frule_for(f)
        if rule is not None:  # the rule's own convention for ints (np.full's: a zero)
            result: tuple[Any, Any] = rule.rrule(dargs, *args, **kwargs)
            return result
        self._check_not_refused(f)
        if len(dargs) != 1 + len(args):
            raise SrcadError(
                f"frule takes one tangent for {name_of(f)} and one per positional argument: "
                f"{len(dargs)} tangents for {len(args)} arguments"
            )
        if not isinstance(f, types.FunctionType):
            call = callee(f, self.registry)
            if call.binds:
                full_args, full_kwargs = call.arguments(args, kwargs)
                call.check_arguments(args, kwargs)
                check_tangents(f, dargs, args)
                return self.frule(
                    call.tangents(tuple(dargs)), call.function, *full_args, **full_kwargs
                )
            if call.function is not f:
                return self.frule(dargs, call.function, *args, **kwargs)
        check_tangents(f, dargs, args)
        request = Request.frule(signature(args))
        wrt = self.wrt_for(f, args, request)
        function = self.compiled(f, wrt, request).function
        dargs = padded(dargs, f)
        try:
            result = function(dargs, *args, **kwargs)
        except TypeError:
            Call(f, f).check_arguments(args, kwargs)  # arguments that do not fit: say so
            raise
        return result


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
    try:
        shown = [p.name for p in inspect.signature(func).parameters.values() if p.kind in kinds]
    except (TypeError, ValueError):  # a ufunc under NumPy 2.2: its caller's names are its own
        shown = list(own)
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

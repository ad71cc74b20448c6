"""What every pass is: an analysis (a result about a tree) or a transform (a changed tree)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import gast

from srcad.errors import Diagnostic
from srcad.kinds import Kind, Signature, Structure
from srcad.passes.naming import Namer
from srcad.registry import Registry, Rule
from srcad.requests import Mode, Target
from srcad.source import FunctionSource

T = TypeVar("T")


@dataclass(frozen=True)
class CompilationRequest:
    """What one compilation is asked for, fixed before the first pass runs: the
    differentiated parameters, the mode and target (`srcad.requests`), the kinds of the
    parameters the code is specialised for (`srcad.kinds`; empty: any), whether to
    optimise, and for a function nested in the one compiled, what it reads of its parent
    (`captured`; in forward mode the parent's tangent names of those, `captured_dots`);
    for a class's initialiser, the class it builds (`constructs`)."""

    wrt: tuple[str, ...]
    mode: Mode = Mode.REVERSE
    target: Target = Target.RRULE
    kinds: Mapping[str, Kind | Structure] = field(default_factory=dict)
    optimise: bool = True
    captured: tuple[str, ...] = ()
    captured_dots: Mapping[str, str] = field(default_factory=dict)
    # For a class's initialiser (`srcad.constructors`): the class it builds, whose instance
    # takes the place of the first parameter, and is returned.
    constructs: type | None = None
    # For a forward rule: how many directions it is asked to push forward in one call
    # (`srcad.requests.Request.directions`; 0: one, as given).
    directions: int = 0


# What compiling a callee gives `CallGraph`: its rule's guards' facts, and its function.
CompiledCallee = tuple[tuple[Any, ...], Any]


@dataclass(frozen=True)
class Services:
    """What the driver provides to the passes: the rule registry, the rule a callee's
    calls use (its registered rule honouring opt-outs, else the rule srcad compiles from
    its source, else None), the compilation of a function nested in the one compiled into
    its own rule, the check that a callee compiled from source compiles (`CallGraph`), and
    the kind of what a callee compiled from source returns for arguments of known kinds.

    A callee compiled from source is compiled for the kinds of the arguments of the call
    (`kinds`, a `Signature`; empty: any), as Julia specialises a method for its argument
    types: a helper called with floats gets derivatives inlined for floats."""

    registry: Registry
    # `(callee, kinds=())`: the rule a call of `callee` with arguments of `kinds` uses.
    callee_rule: Callable[..., Rule | None] = lambda callee, kinds=(): None
    compile_nested: Callable[..., gast.FunctionDef] = lambda node, captured, parent: node
    # `(callee, mode, kinds, wrt=None)`: the callee's compiled rule's guards' facts and the
    # function compiled (with respect to the parameters `wrt` names; None: all of them);
    # raises its `SrcadError`.
    compile_callee: Callable[..., CompiledCallee] = lambda c, m, k, wrt=None: ((), None)
    # `(callee, mode)`: whether that rule is being compiled now (recursion: not again).
    compiling: Callable[[Any, Mode], bool] = lambda callee, mode: False
    # `(callee, kinds)`: the kind of the callee's result for arguments of `kinds`, and the
    # facts (`srcad.guards`) that kind relies on; (None, ()) where not known.
    result_kind: Callable[[Any, Signature], tuple[Kind | None, tuple[Any, ...]]] = (
        lambda callee, kinds: (None, ())
    )


class RuntimeNames(Mapping[str, Any]):
    """The names emitted code reaches srcad's objects by (`ZeroTangent`, `sum_to`, a
    callee's rule): one name per object, looked up either way."""

    def __init__(self) -> None:
        self._objects: dict[str, Any] = {}
        self._names: dict[int, str] = {}  # by the object's id; the object is held above

    def bind(self, value: Any, name: str) -> str:
        """`value`'s name: the one it has, else `name`."""
        found = self._names.get(id(value))
        if found is not None:
            return found
        self._objects[name] = value
        self._names[id(value)] = name
        return name

    def name_of(self, value: Any) -> str | None:
        """The name emitted code reaches `value` by, if it has one."""
        return self._names.get(id(value))

    def __getitem__(self, name: str) -> Any:
        return self._objects[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._objects)

    def __len__(self) -> int:
        return len(self._objects)


@dataclass(slots=True)
class Output:
    """What the passes produce besides the tree: the runtime names the emitted code reads
    (shared with the compilations of nested functions), the names of the emitted
    pullbacks, whether a gradient function gives None for its value, proven a float, and
    the targets that read values back from a tape."""

    runtime: RuntimeNames = field(default_factory=RuntimeNames)
    pullbacks: set[str] = field(default_factory=set)
    value_left_out: bool = False
    # The targets in emitted code that give names back the values a tape kept of them
    # (ReverseAD): an analysis of the emitted code learns nothing new from them.
    restored: set[gast.expr] = field(default_factory=set)
    # The kind of what the function returns, where its parameters' kinds tell
    # (`CallGraph`, from `ValueKinds.returns`): what a specialised caller learns from it.
    result_kind: Kind | None = None
    # The rules of callees compiled from source (each a `CompiledCall`, by its id) that
    # `CallGraph` compiled, and the function each compiled to, whose guards' facts this
    # rule's join: what a call may run directly (`ForwardAD`), checked by this rule's
    # guards rather than by the `CompiledCall` on every call.
    compiled_callees: dict[int, tuple[Any, Any]] = field(default_factory=dict)
    # Of those functions, the ones compiled with respect to some parameters only (by the
    # function's id): a forward rule's, called where the others' tangents are zeros
    # (`ForwardAD._narrowed_rule`).
    narrowed: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # A forward rule's: whether its tangents may carry a trailing axis of directions
    # (`ForwardAD.batches`).
    batches: bool = False
    # A forward rule's: how many directions it pushes forward in one call, each tangent
    # statement written once per direction (`directions.for_directions`); 0: one, as given.
    directions: int = 0


@dataclass(slots=True)
class Context:
    """What passes share about one compilation: the source, the request (inputs), the
    driver's services, the names in use, the analyses' results (until the tree changes)
    and the output the passes write. (Slots: a pass cannot hang a field of its own on it.)"""

    source: FunctionSource
    request: CompilationRequest
    services: Services
    namer: Namer
    output: Output = field(default_factory=Output)
    results: dict[type, Any] = field(default_factory=dict)

    def bind(self, value: Any, hint: str) -> str:
        """The name under which emitted code reaches `value` (one name per object)."""
        runtime = self.output.runtime
        found = runtime.name_of(value)
        return found if found is not None else runtime.bind(value, self.namer.fresh(hint))

    def analysis(self, cls: type[Analysis[T]], tree: gast.Module) -> T:
        """The result of `cls` on `tree`, computed once and reused until a transform."""
        if cls not in self.results:
            for required in cls.requires:
                self.analysis(required, tree)
            self.results[cls] = cls().run(tree, self)
        result: T = self.results[cls]
        return result

    def rule_for(self, primal: Any) -> Rule | None:
        """The registered rule of `primal` for this compilation's mode."""
        if self.request.mode is Mode.FORWARD:
            return self.services.registry.frule_for(primal)
        return self.services.registry.rrule_for(primal)

    def attribute_rule(self, name: str) -> Rule | None:
        if self.request.mode is Mode.FORWARD:
            return self.services.registry.attribute_frule(name)
        return self.services.registry.attribute_rrule(name)

    def analysis_result(self, cls: type[Analysis[T]]) -> T:
        """An analysis result computed earlier (for a transform that keeps it up to date)."""
        result: T = self.results[cls]
        return result

    def diagnostic(self, node: gast.AST, code: str, message: str, hint: str = "") -> Diagnostic:
        return self.source.diagnostic(node, code, message, hint)


class Analysis(ABC, Generic[T]):
    """Computes a result about the tree (a dict keyed by node, a set of names...)."""

    requires: ClassVar[tuple[type[Analysis[Any]], ...]] = ()

    @abstractmethod
    def run(self, tree: gast.Module, ctx: Context) -> T:
        """The result; analyses never change the tree."""


class Transform(ABC):
    """Rewrites the tree in place; `run` returns whether anything changed."""

    requires: ClassVar[tuple[type[Analysis[Any]], ...]] = ()
    preserves: ClassVar[tuple[type[Analysis[Any]], ...]] = ()  # results still valid after

    @abstractmethod
    def run(self, tree: gast.Module, ctx: Context) -> bool:
        """Change the tree; True when something changed."""

    @classmethod
    def apply(cls, tree: gast.Module, ctx: Context) -> bool:
        for required in cls.requires:
            ctx.analysis(required, tree)
        transform = cls()
        try:
            changed = transform.run(tree, ctx)
        finally:
            # A transform object lives for one run. Its parts may hold its bound methods
            # (ReverseAD's `Cotangents` its `_zero`): a reference cycle, which kept the
            # pass, the context and the trees they read until the cycle collector found
            # it. Dropped here, all of it is freed at once (the collector took 1.5 of the
            # 25 ms compiling robust_fit_loss took, `benchmarks/profile_compile.py`).
            vars(transform).clear()
        if changed:
            kept = {a: ctx.results[a] for a in cls.preserves if a in ctx.results}
            ctx.results.clear()
            ctx.results.update(kept)
        return changed


def function_of(tree: gast.Module) -> gast.FunctionDef:
    """The one function a compilation's module holds."""
    node = tree.body[-1]
    assert isinstance(node, gast.FunctionDef)
    return node

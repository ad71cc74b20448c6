"""What every pass is: an analysis (a result about a tree) or a transform (a changed tree)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import gast

from srcad.errors import Diagnostic
from srcad.passes.naming import Namer
from srcad.registry import Registry, Rule
from srcad.source import FunctionSource

T = TypeVar("T")


@dataclass
class Context:
    """What passes share about one compilation: the source, the rules, names in use,
    the differentiated parameters, and the results of analyses (until the tree changes)."""

    source: FunctionSource
    registry: Registry
    wrt: tuple[str, ...]
    namer: Namer
    # The rule for a callee: its registered rule (honouring opt-outs), else the rule srcad
    # compiles from its source, else None; the driver provides it.
    callee_rule: Callable[[Any], Rule | None] = lambda callee: None
    # Compiles a function nested in this one into its own reverse rule (the driver's).
    compile_nested: Callable[..., gast.FunctionDef] = lambda node, captured, parent: node
    captured: tuple[str, ...] = ()  # for a nested function: what it reads from its parent
    mode: str = "reverse"  # or "forward": which rules the passes look up
    # For a nested function in forward mode: the parent's tangent names of what it reads.
    captured_dots: dict[str, str] = field(default_factory=dict)
    results: dict[type, Any] = field(default_factory=dict)
    runtime: dict[str, Any] = field(default_factory=dict)  # names emitted code gets from srcad
    # The kinds (`srcad.kinds`) of the parameters the rule is specialised for; empty for a
    # rule that takes anything.
    kinds: dict[str, Any] = field(default_factory=dict)
    optimise: bool = True  # whether to run the optimising passes
    pullbacks: set[str] = field(default_factory=set)  # the names of the emitted pullbacks
    # The targets in emitted code that give names back the values a tape kept of them
    # (ReverseAD): an analysis of the emitted code learns nothing new from them.
    restored: set[gast.expr] = field(default_factory=set)
    fused: bool = False  # a gradient function (`grad_f`) rather than an rrule
    value: bool = True  # whether `grad_f` must compute the value (else None where proven float)
    value_left_out: bool = False  # whether `grad_f` returns None for the value, proven a float

    def bind(self, value: Any, hint: str) -> str:
        """The name under which emitted code reaches `value` (one name per object)."""
        for name, bound in self.runtime.items():
            if bound is value:
                return name
        name = self.namer.fresh(hint)
        self.runtime[name] = value
        return name

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
        if self.mode == "forward":
            return self.registry.frule_for(primal)
        return self.registry.rrule_for(primal)

    def attribute_rule(self, name: str) -> Rule | None:
        if self.mode == "forward":
            return self.registry.attribute_frule(name)
        return self.registry.attribute_rrule(name)

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
        changed = cls().run(tree, ctx)
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

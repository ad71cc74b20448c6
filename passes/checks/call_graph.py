"""The whole call graph compiles: the step before the reverse or forward transform."""

from __future__ import annotations

import types
from typing import Any

import gast

from srcad import primitives
from srcad.errors import (
    CALLEE_FAILED,
    Diagnostic,
    MissingRuleError,
    MutationError,
    SrcadError,
    UnsupportedSyntaxError,
)
from srcad.passes.analyses.operation_rules import MISSING_RULE, OperationRules
from srcad.passes.analyses.scopes import Scopes
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Context, Transform
from srcad.passes.checks.callees import is_static, static_path, static_value
from srcad.passes.checks.mutations import CODES as MUTATION_CODES
from srcad.registry import Origin, Rule


def raise_if_any(diagnostics: list[Diagnostic], function: str) -> None:
    """Raise the error for `diagnostics`, if there are any: a `MutationError` where every
    underlying one is about a change in place, else an `UnsupportedSyntaxError`."""
    if not diagnostics:
        return
    count = f"{len(diagnostics)} problem{'s' if len(diagnostics) > 1 else ''}"
    underlying = [d for d in diagnostics if d.code != CALLEE_FAILED]
    if underlying and all(d.code in MUTATION_CODES for d in underlying):
        raise MutationError(f"cannot differentiate {function}: {count}", diagnostics)
    raise UnsupportedSyntaxError(f"cannot differentiate {function}: {count}", diagnostics)


class CallGraph(Transform):
    """Every call with a differentiated argument has a rule, or its callee compiles (the
    driver compiles it, `Services.compile_callee`): all the problems of the whole call
    graph are reported in one error, each callee's listed under the call that reaches it
    (code E220). What a callee's rule relies on, this rule relies on too (its guards'
    facts join the function's). And what a caller compiled for known kinds learns from
    this function, the kind of its result (`ValueKinds.returns`), is recorded for it
    (`Output.result_kind`), before the reverse or forward transform changes the returns.
    The tree is not changed."""

    requires = (OperationRules, ValueKinds)

    def run(self, tree: gast.Module, ctx: Context) -> bool:
        name = ctx.source.func.__qualname__
        info = ctx.analysis(OperationRules, tree)
        mode = ctx.request.mode
        missing = list(info.diagnostics)
        unsupported: list[Diagnostic] = []
        ctx.output.result_kind = ctx.analysis(ValueKinds, tree).returns
        tried: set[Any] = set()
        for statement, rule in [*info.rules.items(), *_unpacked_callees(info.rules, tree, ctx)]:
            kinds = getattr(rule.rrule, "signature", ())  # a `CompiledCall`'s
            wrt = getattr(rule.rrule, "wrt", None)
            if (
                rule.origin is not Origin.COMPILED
                or ctx.services.compiling(rule.primal, mode)
                or (rule.primal, kinds, wrt) in tried
            ):
                continue  # recursion: the callee is this function, or one being compiled
            tried.add((rule.primal, kinds, wrt))
            try:
                facts, function = ctx.services.compile_callee(rule.primal, mode, kinds, wrt)
                ctx.source.facts += facts
                ctx.output.compiled_callees[id(rule.rrule)] = (rule.rrule, function)
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
            raise_if_any(unsupported + missing, name)
        if any(d.code not in (MISSING_RULE, CALLEE_FAILED) for d in missing):
            raise_if_any(missing, name)
        if missing:
            count = f"{len(missing)} call{'s' if len(missing) > 1 else ''} without a rule"
            raise MissingRuleError(f"cannot differentiate {name}: {count}", missing)
        return False


def _unpacked_callees(rules: dict[Any, Rule], tree: gast.Module,
                      ctx: Context) -> list[tuple[Any, Rule]]:  # fmt: skip
    """The rule srcad compiles for each Python function that a call unpacking arguments
    names statically (`f(*args)`, `f(**options)` of a module's function, lowered to
    `unpacked_call(f, ...)`, whose rule finds `f`'s when the code runs): checked here as
    any callee's, so that what srcad cannot compile of it, or refuses to (its own rules,
    `srcad.machinery`), is found where it is called, not when the code runs."""
    found = []
    scopes = ctx.analysis(Scopes, tree)
    for statement, rule in rules.items():
        value = getattr(statement, "value", None)
        if rule.primal is not primitives.unpacked_call or not isinstance(value, gast.Call):
            continue
        path = static_path(value.args[0])
        if path is None or not is_static(value.args[0], scopes):
            continue
        _, callee = static_value(path, ctx)
        compiled = ctx.services.callee_rule(callee) if type(callee) is types.FunctionType else None
        if compiled is not None and compiled.origin is Origin.COMPILED:
            found.append((statement, compiled))
    return found


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

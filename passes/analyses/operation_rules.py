"""OperationRules: the reverse rule for each active operation, or a located missing-rule report."""

from __future__ import annotations

import functools
import heapq
import inspect
import operator
import types
from dataclasses import dataclass, field
from typing import Any

import gast
import numpy as np

from srcad import primitives, syntax
from srcad.cached_functions import stale_cache
from srcad.constructors import constructed_class
from srcad.errors import Diagnostic
from srcad.kinds import NO_CALLEE_KINDS, Kind, is_integer
from srcad.passes.analyses.activity import (
    OPERATORS,
    Activity,
    index_names,
    operand_names,
    target_names,
)
from srcad.passes.analyses.scopes import LocalFunction, Scopes
from srcad.passes.analyses.value_kinds import ValueKinds
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.checks.callees import Callees, is_static, static_path, static_value
from srcad.passes.normal_form import is_copy, is_unpacking, walk_statements
from srcad.primitives import iterate, make_dict, make_list, make_tuple, selects, unpack
from srcad.registry import Origin, Rule, primal_name
from srcad.requests import Mode
from srcad.source import differentiated_function

MISSING_RULE = "E210"
ACTIVE_KEYWORD = "E211"
ESCAPING_CLOSURE = "E212"
RULE_ARGUMENTS = "E213"
ACTIVE_DEFAULT = "E214"
ACTIVE_KEY = "E215"

# What to write instead of indexing NumPy's index tricks with differentiated values.
# `np.r_` and `np.c_` reach here only with a directive that makes an `np.matrix` ("r", "c"):
# the normal form makes every other index of theirs a call (`index_concatenate`).
_INSTEAD = {id(np.r_): "np.concatenate", id(np.c_): "np.column_stack"}


@dataclass
class RuleInfo:
    """The rule of each differentiated statement (keyed by the statement)."""

    rules: dict[gast.stmt, Rule] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


class OperationRules(Analysis[RuleInfo]):
    """Looks up, for every statement computing an active value, the rule to call.

    Copies need no rule. Operators map to the `operator` module's functions, indexing to
    `operator.getitem`, tuple displays and unpacking to `srcad.primitives`, attribute reads
    to attribute rules, and calls to the rule of the object `Callees` found.
    """

    requires = (Callees, Activity)

    def run(self, tree: gast.Module, ctx: Context) -> RuleInfo:
        callees = ctx.analysis(Callees, tree).callees
        active = ctx.analysis(Activity, tree)
        info = RuleInfo()
        for statement in walk_statements(function_of(tree).body):
            if isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name):
                if statement.iter.id in active:
                    found = ctx.rule_for(iterate)
                    if found is None:
                        info.diagnostics.append(
                            ctx.diagnostic(
                                statement.iter,
                                MISSING_RULE,
                                "no rule for iterating over a differentiated value",
                                "register one for srcad.primitives.iterate",
                            )
                        )
                    else:
                        info.rules[statement] = found
                continue
            if not isinstance(statement, gast.Assign):
                continue
            value = statement.value
            if self._active_key(statement, callees, active, tree, ctx, info):
                continue
            if active.isdisjoint(target_names(statement.targets[0])):
                continue
            operands = [n.id for n in operand_names(value)]
            if isinstance(value, gast.Call) and isinstance(callees.get(value), LocalFunction):
                operands += callees[value].captured(active)
            if isinstance(value, gast.Subscript):
                operands += index_names(value, tree, ctx)
            if not any(name in active for name in operands):
                continue  # a constant, or a value computed from constants, is not differentiated
            rule: Rule | None = None
            what = ""
            if (
                is_copy(statement)
                or isinstance(value, gast.Compare)
                or (isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.Not))
            ):
                continue
            if is_unpacking(statement):
                rule, what = ctx.rule_for(unpack), "srcad.primitives.unpack"
            elif isinstance(value, gast.BinOp | gast.UnaryOp):
                primal = OPERATORS[type(value.op)]
                rule, what = ctx.rule_for(primal), f"operator.{primal.__name__}"
            elif isinstance(value, gast.Subscript):
                if self._check_indexed_object(statement, tree, ctx, info):
                    continue
                rule, what = ctx.rule_for(operator.getitem), "operator.getitem"
            elif isinstance(value, gast.Tuple):
                rule, what = ctx.rule_for(make_tuple), "srcad.primitives.make_tuple"
            elif isinstance(value, gast.List):
                rule, what = ctx.rule_for(make_list), "srcad.primitives.make_list"
            elif isinstance(value, gast.Dict):
                rule, what = ctx.rule_for(make_dict), "srcad.primitives.make_dict"
            elif isinstance(value, gast.Attribute):
                # An attribute with its own rule (`.T`), else a field read (`getattr`).
                rule = ctx.attribute_rule(value.attr) or ctx.rule_for(getattr)
                what = f"attribute .{value.attr}"
            elif isinstance(value, gast.Call):
                callee = callees[value]
                if ctx.services.registry.is_non_differentiable(callee):
                    # (`b = np.empty_like(a)`, where `b` is active only once an item of it
                    # is written: its value has no derivative, like a comparison's)
                    continue
                if isinstance(callee, LocalFunction):
                    rule = Rule(callee, callee, Origin.LOCAL, callee.parameters)
                else:
                    rule = ctx.services.callee_rule(
                        callee,
                        _argument_kinds(value, callee, tree, ctx),
                        active_parameters(value, callee, active, ctx),
                    )
                self._check_keywords(value, active, tree, ctx, info, rule)
                if rule is not None and not _binds(rule, value, ctx.request.mode):
                    info.diagnostics.append(
                        ctx.diagnostic(
                            value,
                            RULE_ARGUMENTS,
                            f"the {ctx.request.mode.value} rule for "
                            f"`{'.'.join(static_path(value.func) or [])}` "
                            "does not take the arguments of this call "
                            f"({_arguments_described(value)})",
                            "pass them as the rule takes them, or register a rule that takes these",
                        )
                    )
                    continue
                what = ".".join(static_path(value.func) or ["call"])
            if rule is None:
                name = what.rsplit(".", 1)[-1] if isinstance(value, gast.Call) else what
                kind = "frule" if ctx.request.mode is Mode.FORWARD else "rrule"
                callee = callees.get(value)
                refusal = ctx.services.registry.refusal(callee) or stale_cache(callee)
                message = (
                    f"no {ctx.request.mode.value} rule for `{what}`, which is called "
                    f"with a differentiated argument"
                )
                info.diagnostics.append(
                    ctx.diagnostic(
                        value if hasattr(value, "lineno") else statement,
                        MISSING_RULE,
                        message if refusal is None else f"{message}: {refusal}",
                        f"register a rule with @srcad.{kind}.register({name})",
                    )
                )
                continue
            info.rules[statement] = rule
        self._check_escaping_closures(tree, ctx, active, info)
        self._check_active_defaults(tree, ctx, active, info)
        return info

    @staticmethod
    def _active_key(
        statement: gast.Assign,
        callees: dict[gast.Call, Any],
        active: set[str],
        tree: gast.Module,
        ctx: Context,
        info: RuleInfo,
    ) -> bool:
        """Whether a key of a dict display, or the index an item is written at, is a
        differentiated value that may be a float (reported): a dict's keys take no
        derivative, so `max({x0: a})` would lose `x0`'s. An index whose kind is an int, or
        written into an array or a list, where a float index raises, is let through. So
        are the members of a set (a display's, a comprehension's: `set_of`; `set(xs)`,
        `frozenset(xs)`), which take none either: `sum({x, 1.0})` would lose `x`'s."""
        value, receiver, what = statement.value, None, "a dict key"
        callee = callees.get(value) if isinstance(value, gast.Call) else None
        if isinstance(value, gast.Dict):
            keys = list(value.keys)
        elif callee is primitives.index_update:
            assert isinstance(value, gast.Call)
            receiver, keys = value.args[0], value.args[1:2]
        elif callee is primitives.set_of or callee is set or callee is frozenset:
            assert isinstance(value, gast.Call)
            keys, what = list(value.args), "a set's member"
        elif callee is primitives.changed and _adds_to_a_set(value):
            assert isinstance(value, gast.Call)
            keys, what = value.args[2:], "a set's member"
        else:
            return False
        kinds = ctx.analysis(ValueKinds, tree) if ctx.request.kinds else None
        if receiver is not None and kinds is not None:
            held = kinds.of(receiver)  # an array's or a list's: (dtype or list, ndim > 0)
            if isinstance(held, tuple) and isinstance(held[1], int) and held[1] > 0:
                return False
        for key in keys:
            if not (isinstance(key, gast.Name) and key.id in active):
                continue
            if kinds is not None and is_integer(kinds.of(key)):
                continue
            if receiver is not None and _own_key(statement, receiver, key, tree):
                continue
            info.diagnostics.append(
                ctx.diagnostic(
                    next(n for n in (key, value, statement) if getattr(n, "lineno", None)),
                    ACTIVE_KEY,
                    f"{what} computed from a differentiated value: srcad gives a dict's "
                    "keys and a set's members no derivative, so what is computed from them "
                    "would lose theirs",
                    "key the dict (make the set) of something not differentiated (a name, a "
                    "position), or keep the values in a list",
                )
            )
            return True
        return False

    @staticmethod
    def _check_indexed_object(
        statement: gast.Assign, tree: gast.Module, ctx: Context, info: RuleInfo
    ) -> bool:
        """Refuse indexing an object outside the function, whose `__getitem__` computes
        (a user class's, `np.r_["r", ...]`), with an index that depends on the inputs: no rule says
        how its result depends on the index. (A value inside the function, of a type
        known only when the code runs, goes to the `operator.getitem` rule, which refuses
        what it does not know.) True when refused."""
        value = statement.value
        assert isinstance(value, gast.Subscript)
        base = value.value
        path = static_path(base)
        if path is None or not is_static(base, ctx.analysis(Scopes, tree)):
            return False
        found, outside = static_value(path, ctx)
        if found == "undefined" or selects(outside):
            return False
        name = ".".join(path)
        instead = _INSTEAD.get(id(outside))
        hint = (
            f"write {instead}(...) instead"
            if instead
            else f"register a rule for `{type(outside).__qualname__}` indexing with "
            f"@srcad.{'frule' if ctx.request.mode is Mode.FORWARD else 'rrule'}"
            ".register(operator.getitem)"
        )
        info.diagnostics.append(
            ctx.diagnostic(
                value if getattr(value, "lineno", None) else statement,
                MISSING_RULE,
                f"`{name}` (a {type(outside).__qualname__}) is indexed with a differentiated "
                "value, and srcad has no rule for what its `__getitem__` computes",
                hint,
            )
        )
        return True

    @staticmethod
    def _check_escaping_closures(
        tree: gast.Module, ctx: Context, active: set[str], info: RuleInfo
    ) -> None:
        """A nested function that reads differentiated values is differentiated where it is
        called by name and only nested functions' definitions reach the call; used as a
        value (passed on, returned, stored, called from another nested function), or called
        where the name may hold something else, its pullback could not send cotangents back
        to what it read, so it is refused. So is any such read of a name that also holds a
        differentiated value: the nested function's value has no tangent of its own."""
        values = ctx.analysis(Callees, tree).function_values
        if not values:
            return  # no nested function is read as a value
        scopes = ctx.analysis(Scopes, tree)
        outer = scopes.capturable
        ordered = {  # (a key's captured values need no derivative: `_ORDERED_BY_KEY`)
            id(k.value)
            for call in ctx.analysis(Callees, tree).callees
            if isinstance(call, gast.Call)
            and _orders(ctx.analysis(Callees, tree).callees[call], ctx)
            for k in call.keywords
            if k.arg == "key"
        }
        for value in values:
            node = value.node
            if id(node) in ordered and not value.other and not value.nested:
                continue
            read = [
                c for c in LocalFunction(node.id, value.definitions).captured(outer) if c in active
            ]
            if read:
                names = ", ".join(f"`{c}`" for c in read)
                if value.other:
                    lines = ", ".join(str(d.lineno) for d in value.definitions)
                    message = (f"`{node.id}` may be the nested function defined at line "
                               f"{lines}, which reads differentiated values ({names}), or "
                               "another value here")  # fmt: skip
                    hint = "give the function a name of its own"
                else:
                    where = ("read here inside a nested function" if value.nested
                             else "used here as a value")  # fmt: skip
                    message = (f"the nested function `{node.id}` reads differentiated "
                               f"values ({names}) and is {where}; srcad differentiates it "
                               "only where the function defining it calls it by name")  # fmt: skip
                    hint = f"pass {', '.join(read)} to `{node.id}` as arguments instead"
                info.diagnostics.append(ctx.diagnostic(node, ESCAPING_CLOSURE, message, hint))
            elif node.id in active:
                info.diagnostics.append(ctx.diagnostic(
                    node, ESCAPING_CLOSURE, f"`{node.id}` is read here as a value, and names "
                    "a nested function and a differentiated value", "give the function a "
                    "name of its own",
                ))  # fmt: skip

    @staticmethod
    def _check_active_defaults(
        tree: gast.Module, ctx: Context, active: set[str], info: RuleInfo
    ) -> None:
        """A nested function's default value is computed once, where the function is
        defined, and a call that leaves the argument out takes it: no rule has a cotangent
        or tangent for it that reaches the names it read. Defaults reading differentiated
        values are refused; constant ones (or ones reading other values) are fine."""
        for function in ctx.analysis(Scopes, tree).definitions.values():
            args = function.args
            for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
                read = [
                    n.id
                    for n in syntax.walk(default)
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                ]
                read = [name for name in dict.fromkeys(read) if name in active]
                if read:
                    names = ", ".join(f"`{name}`" for name in read)
                    info.diagnostics.append(ctx.diagnostic(
                        default, ACTIVE_DEFAULT, f"the default value of a parameter of the "
                        f"nested function `{function.name}` reads differentiated values "
                        f"({names}); srcad does not differentiate through defaults",
                        "read the value in the function's body, or pass it as an argument",
                    ))  # fmt: skip

    @staticmethod
    def _check_keywords(
        call: gast.Call,
        active: set[str],
        tree: gast.Module,
        ctx: Context,
        info: RuleInfo,
        rule: Rule | None,
    ) -> None:
        """Rules differentiate positional arguments only; compiled callees also take their
        positional parameters by keyword, but not their keyword-only ones. A keyword
        whose value has no derivative (`_underivable`) needs none."""
        differentiated = set(rule.parameters or ()) if rule is not None else set()
        for keyword in call.keywords:
            if keyword.arg in differentiated or _underivable(keyword, tree, ctx, rule):
                continue
            if any(n.id in active for n in operand_names(keyword.value)):
                what = (
                    "`**` arguments" if keyword.arg is None else f"keyword argument `{keyword.arg}`"
                )
                # The value is the normal form's name for it, where it was computed: the
                # call (the user's own node, kept) says where it is passed.
                where = keyword.value if hasattr(keyword.value, "lineno") else call
                info.diagnostics.append(
                    ctx.diagnostic(
                        where,
                        ACTIVE_KEYWORD,
                        f"{what} depend{'s' if keyword.arg else ''} on a differentiated input, "
                        "but keyword arguments are not differentiated",
                        _keyword_hint(keyword.arg, rule),
                    )
                )


def _own_key(statement: gast.stmt, receiver: gast.expr, key: gast.Name, tree: gast.Module) -> bool:
    """Whether `key`, the index `statement` writes an item of `receiver` at, is the variable
    of a `for key in receiver:` loop around it that nothing else in the loop binds: a key
    the dict already has (`for k in grads: grads[k] *= r`), active only as what a loop over
    a differentiated value gives, but a dict's keys take no derivative (each one computed
    from a differentiated value is refused where it is made: this check, `dict_key`)."""
    if not isinstance(receiver, gast.Name):
        return False
    for loop in syntax.walk(function_of(tree)):
        if not (
            isinstance(loop, gast.For)
            and isinstance(loop.iter, gast.Name)
            and loop.iter.id == receiver.id
            and isinstance(loop.target, gast.Name)
            and loop.target.id == key.id
        ):
            continue
        inside = [node for part in loop.body for node in syntax.walk(part)]
        if any(node is statement for node in inside) and not any(
            isinstance(node, gast.Name)
            and node.id == key.id
            and not isinstance(node.ctx, gast.Load)
            for node in inside
        ):
            return True
    return False


def _keyword_hint(name: str | None, rule: Rule | None) -> str:
    """What to do instead of passing a differentiated value by keyword `name`."""
    if name is None:
        return "pass them by name"
    if rule is not None and rule.origin is Origin.LOCAL:  # after `*args`, or into `**kwargs`
        return (
            "a nested function's keyword-only parameters are differentiated where it takes "
            "no `*args`, its `**kwargs` are not: take those values as a list or a dict, or "
            "define the function at module level"
        )
    if rule is not None and rule.origin is Origin.LIBRARY and _keyword_only(rule.primal, name):
        return (
            f"`{name}` is keyword-only, and srcad's rule of `{primal_name(rule.primal)}` "
            "takes it as an option: compute with the value outside the call, or put it "
            "among the data (`math.prod([start, *items])`, `accumulate([initial, *items], f)`)"
        )
    return f"pass `{name}` positionally"


def _keyword_only(function: Any, name: str) -> bool:
    """Whether `function`'s parameter `name` is keyword-only (so passing it by position is
    no remedy): False where Python cannot read its signature."""
    try:
        parameter = inspect.signature(function).parameters.get(name)
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.kind is inspect.Parameter.KEYWORD_ONLY


# Keyword options of NumPy's functions that take no float: an axis (or axes) and a dtype,
# which NumPy refuses a float for, and `keepdims`, read for its truth, on which the result
# depends by steps. Whatever value reaches them, the result has no derivative with respect
# to it: a rule that gives them no cotangent is right.
NUMPY_OPTIONS = frozenset({"axis", "axes", "dtype", "keepdims"})


# Functions whose `key=` only orders the items they choose or sort (the builtins, `heapq`'s,
# and `bisect.insort`'s through `primitives.changed_by`): the result is one of the items,
# or all of them in another order, whatever the key computes from a differentiated value
# (a closure reading one: `min(xs, key=lambda v: abs(v - c))`), and that order changes
# only by jumps, where the derivative is taken as the extremum's is at a tie.
_ORDERED_BY_KEY = (
    sorted, min, max, heapq.nlargest, heapq.nsmallest, heapq.merge, primitives.changed_by,
)  # fmt: skip


def _orders(callee: Any, ctx: Context) -> bool:
    """Whether `callee` is a function whose `key=` only orders (`_ORDERED_BY_KEY`), or the
    forward rule of one, which code for second derivatives calls with the same key."""
    registry = ctx.services.registry
    for ordering in _ORDERED_BY_KEY:
        frule = registry.frule_for(ordering)
        if callee is ordering or (frule is not None and callee is frule.rrule):
            return True
    return False


def _underivable(keyword: gast.keyword, tree: gast.Module, ctx: Context, rule: Rule | None) -> bool:
    """Whether the value a keyword passes surely has no derivative, whatever it depends on:
    an option of a library rule for a NumPy function that takes no float there
    (`NUMPY_OPTIONS`), or a value proved an integer (or integer array) by its kind
    (`srcad.kinds`): integers are never differentiated."""
    if (
        keyword.arg in NUMPY_OPTIONS
        and rule is not None
        and rule.origin is Origin.LIBRARY
        and _of_numpy(rule.primal)
    ):
        return True
    if keyword.arg == "key" and rule is not None and _orders(rule.primal, ctx):
        return True
    if not (ctx.request.kinds and isinstance(keyword.value, gast.Name)):
        return False
    return is_integer(ctx.analysis(ValueKinds, tree).of(keyword.value))


def _argument_kinds(
    call: gast.Call, callee: Any, tree: gast.Module, ctx: Context
) -> tuple[Any, ...]:
    """The kinds of a call's arguments by the callee's positional parameters, where the code
    is specialised for known kinds and each argument lands on the parameter at its
    position (no `*args`), or is passed by the name of one (`helper(x, axis=1)`; a
    parameter left to its default has no kind): what a callee compiled from source is
    compiled for (`Services.callee_rule`)."""
    if not ctx.request.kinds or any(isinstance(a, gast.Starred) for a in call.args):
        return ()
    kinds = ctx.analysis(ValueKinds, tree)
    # (None for a 0-d array's kind, `ZERO_D`, `ZERO_D32`, and `()`'s: no callee is
    # compiled for one.)
    found = [_argument(kinds.of(argument)) for argument in call.args]
    code = getattr(differentiated_function(callee), "__code__", None)
    leading: tuple[str, ...] = ()
    if code is None and getattr(callee, "is_generated_rule", False):
        # A function's generated rule (`CompiledCall`), called by the code generated for
        # its caller: its parameters are the function's, after the tangents of a frule.
        code = getattr(callee.func, "__code__", None)
        leading = ("",) if callee.mode is Mode.FORWARD else ()
    named = [k for k in call.keywords if k.arg is not None]
    if code is None or not named or len(named) != len(call.keywords):
        return tuple(found)
    parameters = (*leading, *code.co_varnames[: code.co_argcount])
    for keyword in named:
        if keyword.arg in parameters[len(call.args) :]:
            position = parameters.index(keyword.arg)
            found += [None] * (position + 1 - len(found))
            found[position] = _argument(kinds.of(keyword.value))
    return tuple(found)


def _argument(kind: Kind | None) -> Kind | None:
    return None if kind in NO_CALLEE_KINDS else kind


def active_parameters(
    call: gast.Call, callee: Any, active: set[str], ctx: Context
) -> tuple[str, ...] | None:
    """The parameters of a Python function, called by `call`, that the call passes a value
    that may carry a derivative (a name `Activity` finds active; not one it leaves to its
    default, the same object whatever the caller's inputs: `softmax(z)` of
    `def softmax(z, axis=-1)` reads `axis` as a constant, which a keyword `axis=axis` may
    pass on): what its rule compiled from source is differentiated with respect to, as
    `hessian`'s blocks narrow a rule (`second_derivatives._narrowed`). `huber(r, 1.0)`
    asks for `huber`'s rule with respect to `r` alone, so that no work goes to the
    cotangent or tangent of `delta`, which this call would drop. Sound because the
    caller never reads what the rule gives for the others: it drops an inactive
    argument's cotangent and passes it a zero tangent.

    None (all of them) where not every parameter can be matched to what the call passes
    (`*args` or `**kwargs` on either side, keyword-only parameters, a class's
    initialiser), where every parameter may vary, or where the code is not specialised
    for known kinds (the general rule, one per callee, which `srcad export` writes)."""
    if not ctx.request.kinds:
        return None
    func = differentiated_function(callee)
    if type(func) is not types.FunctionType or constructed_class(func) is not None:
        return None
    code = func.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount:
        return None
    parameters = code.co_varnames[: code.co_argcount]
    if len(call.args) > len(parameters) or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    bound = dict(zip(parameters, call.args, strict=False))
    for keyword in call.keywords:
        if keyword.arg not in parameters[code.co_posonlyargcount :] or keyword.arg in bound:
            return None  # `**options`, or a call Python refuses
        bound[keyword.arg] = keyword.value
    varying = tuple(
        p
        for p in parameters
        if p in bound
        and (
            not isinstance(bound[p], gast.Name | gast.Constant)
            or (isinstance(bound[p], gast.Name) and bound[p].id in active)
        )
    )
    return None if not varying or len(varying) == len(parameters) else varying


def _of_numpy(primal: Any) -> bool:
    """Whether `primal` is one of NumPy's own functions (or ufuncs)."""
    module = getattr(primal, "__module__", None) or ""
    return isinstance(primal, np.ufunc) or module.partition(".")[0] == "numpy"


def _binds(rule: Rule, call: gast.Call, mode: Mode) -> bool:
    """Whether a library or user rule takes the arguments of `call` (so many positional
    ones, these keywords), as Python would bind them: a call the rule cannot take must not
    pass compilation to raise `TypeError` from the rule when it runs. Compiled rules take
    what their function takes, methods and values called are resolved when the code runs,
    and `*args` or `**kwargs` in the call are not checked."""
    if rule.origin in (Origin.COMPILED, Origin.LOCAL) or rule.parameters is not None:
        return True
    if rule.primal is primitives.method or rule.primal is primitives.call:
        return True  # called with the receiver or callee first, resolved when it runs
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return True
    signature = _call_signature(rule.rrule, mode)
    if signature is None:
        return True  # no signature to read: the rule is trusted
    try:
        signature.bind(*[None] * len(call.args), **dict.fromkeys(k.arg for k in call.keywords))
    except TypeError:
        return False
    return True


def forget_rule_signatures() -> None:
    """Read every rule's signature again (`srcad.clear_cache`)."""
    _call_signature.cache_clear()


@functools.lru_cache(maxsize=1024)
def _call_signature(rule: Any, mode: Mode) -> inspect.Signature | None:
    """The parameters a rule takes the primal's arguments in (after the config a
    configured rule receives, and the tangents a forward rule does); None where they
    cannot be read."""
    function = getattr(rule, "configured_rule", rule)
    skip = (function is not rule) + (mode is Mode.FORWARD)
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    return signature.replace(parameters=list(signature.parameters.values())[skip:])


def _arguments_described(call: gast.Call) -> str:
    count = len(call.args)
    described = f"{count} positional argument{'s' if count != 1 else ''}"
    if call.keywords:
        described += ", keywords " + ", ".join(f"`{k.arg}`" for k in call.keywords)
    return described


def _adds_to_a_set(call: gast.Call) -> bool:
    """Whether `call`, of `primitives.changed`, is a set's `add` or `discard` (the normal
    form's `s.add(v)`: `s = changed(s, "add", v)`), whose argument is a member."""
    method = call.args[1] if len(call.args) > 1 else None
    return isinstance(method, gast.Constant) and method.value in ("add", "discard")

"""Mutations: every place the function changes a value in place, which its gradient cannot see."""

from __future__ import annotations

import builtins
import dataclasses
import functools
import threading
import types
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.errors import CALLEE_FAILED, Diagnostic, MutationError, SrcadError
from srcad.kinds import Kind, Structure
from srcad.out_arguments import out_arguments, refuse_positional_out
from srcad.passes.analyses.nodes import Nodes
from srcad.passes.analyses.scopes import LocalFunction, Scopes
from srcad.passes.base import Analysis, CompilationRequest, Context, Services, function_of
from srcad.passes.checks.callees import IN_PLACE_METHODS, Callees, is_append_call, static_path
from srcad.passes.checks.fresh_values import FreshValues
from srcad.passes.checks.in_place import IN_PLACE_DUNDERS, TRUSTED_MODULES, changes_first_argument
from srcad.passes.naming import Namer
from srcad.passes.transforms.declarations import counts_only
from srcad.registry import REGISTRY, Registry
from srcad.source import function_source

ASSIGNMENT = "E301"
SHARED_LIST = "E302"
IN_PLACE_METHOD = "E303"
OUT_ARGUMENT = "E304"
IN_PLACE_FUNCTION = "E305"
ALIASED_AUGMENTED = "E306"
DYNAMIC_CODE = "E307"
UNSEEN_CALL = "E308"
REBOUND_OUTSIDE = "E309"
UNREADABLE_CALLEE = "E310"
CODES = (
    ASSIGNMENT,
    SHARED_LIST,
    IN_PLACE_METHOD,
    OUT_ARGUMENT,
    IN_PLACE_FUNCTION,
    ALIASED_AUGMENTED,
    UNSEEN_CALL,
    REBOUND_OUTSIDE,
    UNREADABLE_CALLEE,
)

# The nodes that can change a value: assignments (a `for` loop's too) and deletions (of an
# item or attribute), and calls. `_check` finds nothing in any other.
_CHECKED = frozenset([gast.Assign, gast.AugAssign, gast.Delete, gast.For, gast.Call])


class Findings(list[Diagnostic]):
    """The diagnostics of a check, in order, and their `groups`: a call site's diagnostic
    followed by those of the callee it introduces, which keep their place after it when
    the driver sorts every check's diagnostics by position."""

    def __init__(self, groups: list[list[Diagnostic]], calls: list[CallEdge] | None = None) -> None:
        self.groups = sorted(groups, key=lambda group: (group[0].line, group[0].column))
        self.calls = calls or []  # in a callee: its calls of functions named in its source
        # In a callee: its writes of a global counter or flag (`declarations.counts_only`),
        # taken where its callers' own checks prove nothing else reads the global.
        self.counted: list[Diagnostic] = []
        super().__init__(d for group in self.groups for d in group)


class Mutations(FreshValues, Analysis[list[Diagnostic]]):
    """Item and attribute assignment, in-place methods, `out=`, `np.copyto` and `ufunc.at`,
    augmented assignment that could change, in place, an array something else holds, and
    calls of functions that change anything their caller can see (`CalleeMutations`, over
    the whole call graph, whatever a call's result is and whether or not it is
    differentiated: a change made with constants can still change a value the pullback
    reads).

    `items.append(v)` is allowed on a list the function made and shares with nothing, and
    `name += v` where `name` surely holds a value the function made and shares with
    nothing (then rebinding gives what the program computes); elsewhere srcad cannot
    prove either, and says so.
    """

    # Whether changes to values the function itself made are let through: they are, in a
    # callee that runs as it is (`CalleeMutations`); the function srcad differentiates
    # cannot make them, as its derivative would not see them.
    fresh_changes_allowed = False

    def run(self, tree: gast.Module, ctx: Context) -> list[Diagnostic]:
        function = function_of(tree)
        self.ctx = ctx
        self.rule_hint = f"or register a rule with @srcad.rrule.register({function.name})"
        self.function = function
        self._parents: dict[gast.AST, gast.AST] | None = None
        self._tree = tree
        self._fresh_items: frozenset[str] | None = None
        if ctx.request.constructs is not None:  # a class's initialiser: `self` is made for it
            self.fresh_first_parameter = True
        # (A container's kind, its `Structure`, proves no parameter a number.)
        kinds = ctx.request.kinds.items()
        self.parameter_kinds = {n: k for n, k in kinds if not isinstance(k, Structure)}
        self._numbers: dict[gast.AST, dict[str, Kind | None]] = {}
        self._callee_info: tuple[Any, Any] | None = None
        self._listed: set[Any] = set()  # callees whose changes are listed already
        self._calls: list[CallEdge] = []
        groups: list[list[Diagnostic]] = []
        counted: list[Diagnostic] = []
        for node in ctx.analysis(Nodes, tree):
            if type(node) in _CHECKED:
                found = self._check(node, function)
                if found and found[0].code == CALLEE_FAILED:
                    groups.append(found)
                else:
                    groups += [[d] for d in found]
            elif self.fresh_changes_allowed and isinstance(node, gast.Global | gast.Nonlocal):
                groups += [[d] for d in self._rebinding(node, counted=False)]
                counted += self._rebinding(node, counted=True)
        findings = Findings(groups, self._calls)
        findings.counted = counted
        return findings

    def _report(self, node: gast.AST, code: str, message: str, hint: str) -> list[Diagnostic]:
        return [self.ctx.diagnostic(node, code, message, hint)]

    def _resolve(self, node: gast.expr) -> Any:
        """The object a dotted name rooted in a global, closure or builtin name refers to
        now; None for any other expression."""
        path = static_path(node)
        root = _root(node)
        if path is None or self.callee_info[1].bindings.get(root) in ("local", "parameter"):
            return None
        return self.ctx.source.resolve(path)[1]  # guarded: see `srcad.guards`

    def _made_here(self, node: gast.expr) -> bool:
        """Whether `node` names a value this function made for itself, whose change no
        caller sees (only asked in a callee that runs as it is)."""
        return (
            self.fresh_changes_allowed and isinstance(node, gast.Name) and self._fresh_local(node)
        )

    def _check(self, node: gast.AST, function: gast.FunctionDef) -> list[Diagnostic]:
        if isinstance(node, gast.Assign | gast.AugAssign | gast.Delete | gast.For):
            targets = node.targets if isinstance(node, gast.Assign | gast.Delete) else [node.target]
            found = []
            for target in targets:
                for part in syntax.walk(target):
                    if (
                        isinstance(part, gast.Subscript | gast.Attribute)
                        and isinstance(part.ctx, gast.Store | gast.Del)
                        and not self._made_here(part.value)
                    ):
                        found += self._assignment(part)
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                found += self._augmented(node, function)
            return found
        if not isinstance(node, gast.Call):
            return []
        if is_append_call(node):
            receiver = node.func.value
            name = receiver.id
            loop = self._loop_iterating(node, name)
            if loop is not None:
                return self._report(
                    node,
                    SHARED_LIST,
                    f"`{name}.append(...)` grows the list that the `for` loop on line "
                    f"{loop.lineno} iterates over: Python's loop sees the new items",
                    f"iterate over a copy, `for ... in list({name}):`, or over "
                    f"`range(n)` with a bound you compute; " + self.rule_hint,
                )
            own = not self.fresh_changes_allowed and self._scope(node) is function
            if own and not isinstance(self.parents.get(node), gast.Expr):  # ToANF's are statements
                what = f"`{name}.append(...)` inside an expression, not a statement of its own"
                return self._report(node, SHARED_LIST, what, "make it one; " + self.rule_hint)
            if not (self._made_here(receiver) or self._fresh_list(function, node)):
                return self._report(
                    node,
                    SHARED_LIST,
                    f"`{name}.append(...)` changes a list "
                    "that srcad cannot prove is fresh and unshared",
                    f"build the list in this function with `{name} = []` and "
                    "only index, iterate, return or copy it; " + self.rule_hint,
                )
            return []
        if isinstance(node.func, gast.Attribute) and (
            node.func.attr in IN_PLACE_METHODS or node.func.attr in IN_PLACE_DUNDERS
        ):
            receiver = self._resolve(node.func.value)
            first = node.args[0] if node.args else None
            if isinstance(receiver, type) and not (first and self._made_here(first)):
                # `dict.update(d, ...)`, `np.ndarray.fill(x, v)`: the method, of its first argument
                return self._report(
                    node,
                    IN_PLACE_FUNCTION,
                    f"`.{node.func.attr}(...)` changes its first argument in place",
                    "compute a new value instead; " + self.rule_hint,
                )
            # A method of a value (not a module's function, such as `np.resize`).
            if not isinstance(receiver, types.ModuleType | type):
                checked = not self.fresh_changes_allowed or self.changes_an_item(node)
                why = self.why_not_changed(node) if checked else ""
                if self._made_here(node.func.value) or why is None:
                    return []
                return self._report(
                    node,
                    IN_PLACE_METHOD,
                    f"`.{node.func.attr}(...)` changes its receiver in place{why}",
                    "compute a new value (sorted(x), np.sort(x), x + [v]); " + self.rule_hint,
                )
        callee = self._resolve(node.func)
        for out, what in out_arguments(node, callee):
            if not self._made_here(out):
                return self._report(
                    out, OUT_ARGUMENT, f"{what} writes the result into an existing array",
                    "use the returned value; " + self.rule_hint,
                )  # fmt: skip
        if changes_first_argument(callee):
            if node.args and self._made_here(node.args[0]):
                return []
            why = self._why_not_accumulated(node, callee)
            if why is None:  # rewritten as a new value, `name = ufunc_at(ufunc, name, ...)`
                return []
            return self._report(
                node,
                IN_PLACE_FUNCTION,
                f"this call changes a value in place{why}",
                "build a new value instead (np.where, np.bincount, heapq's functions as "
                "statements on a list made here, ...); " + self.rule_hint,
            )
        if callee is builtins.exec or callee is builtins.eval:
            return self._report(
                node,
                DYNAMIC_CODE,
                f"`{callee.__name__}` runs code srcad cannot see",
                "write the code out; " + self.rule_hint,
            )
        return self._callee_changes(node)

    def _assignment(self, target: gast.Subscript | gast.Attribute) -> list[Diagnostic]:
        """An item or attribute assignment or deletion: refused, but for an item written
        into a value the differentiated function made and shares with nothing, which the
        normal form rewrites as a new value (`primitives.index_update`)."""
        kind = "item" if isinstance(target, gast.Subscript) else "attribute"
        verb = f"deleting an {kind}" if isinstance(target.ctx, gast.Del) else f"{kind} assignment"
        why = ""
        writes = isinstance(target.ctx, gast.Store) and (
            isinstance(target, gast.Subscript) or self._builds(target)
        )
        if writes and not self.fresh_changes_allowed:  # (a callee's caller may hold it)
            reason = self._why_not_writable(target)
            if isinstance(target, gast.Attribute) and reason is None:
                reason = self._why_not_stored(target)
            if reason is None:
                return []
            why = f", as it may be shared: {reason}"
        return self._report(
            target,
            ASSIGNMENT,
            f"{verb} mutates a value, which srcad cannot differentiate{why}",
            "write into a value made in this function (`out = np.zeros(n)`, `d = {}`, "
            "`x.copy()`) and used by nothing else until it is complete, or build a new value "
            "(for arrays: np.where, np.concatenate); " + self.rule_hint,
        )

    def _rebinding(self, node: gast.Global | gast.Nonlocal, counted: bool) -> list[Diagnostic]:
        """`global g` or `nonlocal g` in a callee that assigns `g`: the caller may read it.
        `counted`: only the globals it counts or flags in, else only the others."""
        assigned = {
            n.id
            for n in syntax.walk(self.function)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store | gast.Del)
        }
        names = [name for name in node.names if name in assigned and counted == (
            isinstance(node, gast.Global) and counts_only(self.function, name))]  # fmt: skip
        if not names:
            return []
        where = "global" if isinstance(node, gast.Global) else "enclosing function's"
        return self._report(
            node,
            REBOUND_OUTSIDE,
            f"this function assigns the {where} variable(s) {', '.join(names)}",
            "return the new value instead; " + self.rule_hint,
        )

    # -- callees -----------------------------------------------------------------------------

    def _callee_changes(self, node: gast.Call) -> list[Diagnostic]:
        """A call of a function that changes what its caller can see: reported at the call,
        followed (the first time) by the changes themselves, in the callee's source. In a
        callee, the call is kept (`Findings.calls`) for `changes_of` to follow each time
        it is asked: the name it calls may be rebound meanwhile."""
        call = self._call_of(node)
        if call is _UNKNOWN:
            # The differentiated function's own such calls are guarded when they run (see
            # `changes_nothing`); code that runs as it is (a callee, a nested function)
            # is not, and a call whose result is unused is made for what it changes.
            guarded = not self.fresh_changes_allowed and self._scope(node) is self.function
            if not guarded and isinstance(self.parents.get(node), gast.Expr):
                what = ".".join(static_path(node.func) or ["this value"])
                return self._report(
                    node,
                    UNSEEN_CALL,
                    f"`{what}(...)` calls a value known only when the code runs, and its "
                    "result is unused: it is called for what it changes, which srcad "
                    "cannot see",
                    "call a function defined at module level, or return what it computes; "
                    + self.rule_hint,
                )
            return []
        if not isinstance(call, CallEdge):
            return []
        if self.fresh_changes_allowed:
            self._calls.append(call)
            return []
        # (`ReboundGlobals` proves that nothing it reads reads a global it counts in.)
        return _changes_through(call, self.ctx.services.registry, self._listed, {}, True)

    @property
    def callee_info(self) -> tuple[Any, Any]:
        """The `Callees` and `Scopes` results, found when a call first asks."""
        if self._callee_info is None:
            tree = gast.Module(body=[self.function], type_ignores=[])
            callees = self.ctx.analysis(Callees, tree).callees
            self._callee_info = (callees, self.ctx.analysis(Scopes, tree))
        return self._callee_info

    def _call_of(self, node: gast.Call) -> Any:
        """The `CallEdge` of a call of a function named by a global, closure or builtin
        name (or of a method of a local instance of such a class); None for a nested
        function (its body is read with this one's) or a name srcad bound itself;
        `_UNKNOWN` where srcad sees the function only when the code runs."""
        callees, scopes = self.callee_info
        callee = callees.get(node)
        if isinstance(callee, LocalFunction):
            return None
        named, method = node.func, None
        root = _root(named)
        if (
            scopes.bindings.get(root) in ("local", "parameter")
            and isinstance(named, gast.Attribute)
            and named.value is root
        ):
            made_by = self._instance_class(root.id)  # `box = Box(...)`, then `box.method()`
            if made_by is None or not isinstance(self._resolve(made_by), type):
                return _UNKNOWN  # (`out = np.zeros(n)`, then `out.sum()`: not a class's)
            named, method = made_by, named.attr
            root = _root(named)
        path = static_path(named)
        if path is None or not isinstance(root, gast.Name):
            return _UNKNOWN
        kind = scopes.bindings.get(root)
        if kind == "global":
            namespace: Any = self.ctx.source.globals
        elif kind == "closure":
            namespace = self.ctx.source.closure[root.id]
        elif kind == "builtin":
            namespace = vars(builtins)
        elif path[0] in self.ctx.output.runtime:
            return None  # a name srcad bound (a generated rule)
        else:
            return _UNKNOWN
        site = self.ctx.diagnostic(node, CALLEE_FAILED, "", self.rule_hint)
        return CallEdge(site, namespace, tuple(path), method)

    def _instance_class(self, name: str) -> gast.expr | None:
        """What names the class of a local variable, where every assignment of it calls
        one dotted name (`box = Box(2.0)`: `Box`): a class, when the call is followed."""
        classes: list[gast.expr] = []
        for node in syntax.walk(self.function):
            if not (isinstance(node, gast.Name) and node.id == name):
                continue
            if isinstance(node.ctx, gast.Param):
                return None
            if isinstance(node.ctx, gast.Store):
                parent = self.parents.get(node)
                if not (
                    isinstance(parent, gast.Assign)
                    and parent.targets == [node]
                    and isinstance(parent.value, gast.Call)
                    and static_path(parent.value.func) is not None
                ):
                    return None
                classes.append(parent.value.func)
        paths = {tuple(static_path(c) or ()) for c in classes}
        return classes[0] if len(paths) == 1 else None

    def _augmented(self, node: gast.AugAssign, function: gast.FunctionDef) -> list[Diagnostic]:
        """`name += v` is a rebinding in srcad; Python changes an array in place. The two
        agree when `name` holds a value made here, and nothing else refers to it when the
        change happens."""
        assert isinstance(node.target, gast.Name)
        name = node.target.id
        if self._holds_number(node):
            return []
        why = self._why_shared(node.target)
        if why is None:
            return []
        return self._report(
            node,
            ALIASED_AUGMENTED,
            f"`{name} {_symbol(node.op)}= ...` could "
            f"change an array in place that something else refers to: {why}",
            f"write `{name} = {name} {_symbol(node.op)} ...` to make a new value; "
            + self.rule_hint,
        )


class CalleeMutations(Mutations):
    """What a function srcad does not differentiate, but which runs as it is, changes that
    its caller can see: everything `Mutations` reports, but for changes to values it made
    itself, and with assignments to global and enclosing variables."""

    fresh_changes_allowed = True


class InitialiserMutations(CalleeMutations):
    """The same, for a class's `__init__`, whose `self` is the instance being made."""

    fresh_first_parameter = True


_NOT_READ: tuple[type, ...] = (types.BuiltinFunctionType, types.BuiltinMethodType, np.ufunc,
             type(np.ndarray.sum), type([].append))  # fmt: skip

# A callee srcad sees only when the code runs (a function passed in, a method of a value).
_UNKNOWN = object()


def _root(node: gast.expr) -> gast.expr:
    while isinstance(node, gast.Attribute):
        node = node.value
    return node


@dataclasses.dataclass(frozen=True)
class CallEdge:
    """A call, in a function's source, of a function a dotted name refers to: where that
    name is looked up (a module's globals, a closure cell, the builtins) each time it is
    asked, never what it referred to once (the name may be rebound); `method`: the call is
    of this method of an instance of the class the name refers to. `site` locates it."""

    site: Diagnostic
    namespace: Any
    path: tuple[str, ...]
    method: str | None = None

    def target(self) -> Any:
        """What the call calls now (None: nothing, `_UNKNOWN`: not a class any more)."""
        if isinstance(self.namespace, types.CellType):
            try:
                value = self.namespace.cell_contents
            except ValueError:
                return None
        else:
            value = self.namespace.get(self.path[0])
        for attr in self.path[1:]:
            value = getattr(value, attr, None)
        if self.method is not None:
            if not isinstance(value, type):
                return _UNKNOWN
            value = getattr(value, self.method, None)
        return value


def _function_called(callee: Any, registry: Registry) -> tuple[Any, bool] | None:
    """The Python function (with its source) a call of `callee` runs, if srcad must read it:
    not for a function a rule covers, nor a library's, nor a C function. With it, whether
    its first parameter is an instance made for the call (a class's `__init__`)."""
    while isinstance(callee, functools.partial) or (
        hasattr(callee, "__wrapped__") and not isinstance(callee, types.FunctionType)
    ):  # what a partial or a C wrapper (`functools.lru_cache`) runs
        callee = callee.func if isinstance(callee, functools.partial) else callee.__wrapped__
    if isinstance(callee, _NOT_READ):
        return None  # C code: its changes are those the check names
    if _covered(callee, registry):
        return None  # a registered rule covers it: never inspected
    if getattr(callee, "is_generated_rule", False):
        return None
    fresh_self = False
    if isinstance(callee, type):
        initialiser = getattr(callee, "__init__", None)
        if (
            dataclasses.is_dataclass(callee)
            and getattr(getattr(initialiser, "__code__", None), "co_filename", "") == "<string>"
        ):
            initialiser = getattr(callee, "__post_init__", None)  # the generated one sets fields
        callee, fresh_self = initialiser, True
    elif isinstance(callee, types.MethodType):
        callee = callee.__func__
    elif not isinstance(callee, types.FunctionType) and callable(callee):
        call = getattr(type(callee), "__call__", None)  # noqa: B004
        if isinstance(call, types.FunctionType):
            callee = call
    if not isinstance(callee, types.FunctionType):
        return None
    module = (getattr(callee, "__module__", None) or "").partition(".")[0]
    if module in TRUSTED_MODULES:
        return None
    if _covered(callee, registry):
        return None
    return callee, fresh_self


def _covered(callee: Any, registry: Registry) -> bool:
    """Whether a registered rule (or a declaration that it has no derivative) covers it."""
    return (
        registry.rrule_for(callee) is not None
        or registry.frule_for(callee) is not None
        or registry.is_non_differentiable(callee)
    )


def _changes_through(
    call: CallEdge,
    registry: Registry,
    listed: set[Any],
    memo: dict[tuple[types.FunctionType, bool, bool], list[Diagnostic]],
    counted_ok: bool,
) -> list[Diagnostic]:
    """What a call changes that its caller can see: nothing, or its site followed by the
    changes of the function it calls now (only its site where `listed` has them already).
    Global counters are taken (`counted_ok`) only in a module function named statically,
    which `ReboundGlobals` follows, as it does the functions that one names."""
    target = call.target()
    counted_ok = counted_ok and call.method is None and isinstance(target, types.FunctionType)
    if target is _UNKNOWN:
        return [
            dataclasses.replace(
                call.site,
                code=UNSEEN_CALL,
                message=f"`{'.'.join(call.path)}` is no longer a class, so srcad cannot see "
                f"which function `.{call.method}(...)` runs",
                hint="call a function defined at module level; " + call.site.hint,
            )
        ]
    found = _function_called(target, registry)
    if found is None:
        return []
    function, fresh_self = found
    changes = _changes_of(function, registry, fresh_self, memo, counted_ok)
    if not changes:
        return []
    name = function.__qualname__
    first = function not in listed
    listed.add(function)
    site = dataclasses.replace(
        call.site,
        message=f"`{name}` may change a value its caller can see, which srcad cannot "
        "differentiate "
        + (f"({len(changes)} problem(s) listed next)" if first else "(listed above)"),
        hint=f"make `{name}` return a new value instead; or register a rule with "
        f"@srcad.rrule.register({function.__name__})",
    )
    return [site, *changes] if first else [site]


class _Reading(threading.local):
    """Per thread: the functions being read now (a recursive call of one is skipped)."""

    def __init__(self) -> None:
        self.now: set[tuple[types.FunctionType, bool, bool]] = set()


_reading = _Reading()

# Each function's own changes, and its calls (`Findings`), by the code they were read from,
# are kept on the function itself (`func.__dict__[_READ]`): they live as long as it does,
# even where they name it (a recursive closure), which a weak-keyed table would not allow.
_READ = "__srcad_changes__"
_read_lock = threading.Lock()
_generation = [0]  # what was read before `forget_changes` is not used again


def forget_changes() -> None:
    """Read every function's changes again (`srcad.clear_cache`)."""
    _generation[0] += 1


def changes_of(
    func: types.FunctionType, registry: Registry, fresh_self: bool = False
) -> list[Diagnostic]:
    """The diagnostics of every change `func` (and every function it calls, in turn) makes
    to a value its caller can see: its parameters, the globals and closure cells it reads
    (a counter too), the attributes of what they hold. Located in `func`'s own source
    (which is read once); the functions it calls are looked up anew each time, as their
    names may be rebound."""
    return _changes_of(func, registry, fresh_self, {}, False)


def _changes_of(
    func: types.FunctionType,
    registry: Registry,
    fresh_self: bool,
    memo: dict[tuple[types.FunctionType, bool, bool], list[Diagnostic]],
    counted_ok: bool,
) -> list[Diagnostic]:
    """`changes_of`, with the answers found so far in this one asking (`memo`); but for
    writes of global counters where `counted_ok`. A function being read is skipped where
    it calls itself, in turn: its own changes are reported by the reading that began first."""
    reading = (func, fresh_self, counted_ok)
    if reading in memo:
        return memo[reading]
    if reading in _reading.now:
        return []
    own = _own_changes(func, fresh_self)
    _reading.now.add(reading)
    try:
        groups = list(own.groups) + ([] if counted_ok else [[d] for d in own.counted])
        listed: set[Any] = set()
        for call in own.calls:
            through = _changes_through(call, registry, listed, memo, counted_ok)
            if through:
                groups.append(through)
    finally:
        _reading.now.discard(reading)
    found = memo[reading] = list(Findings(groups))
    return found


def _own_changes(func: types.FunctionType, fresh_self: bool) -> Findings:
    """What `func`'s own source changes that its caller can see, and the calls it makes."""
    key = (func.__code__, fresh_self, _generation[0])
    known = func.__dict__.get(_READ)  # copied by `functools.wraps`: the key tells
    if known is not None and known[0] == key:
        return known[1]
    found = _read_own_changes(func, fresh_self)
    with _read_lock:
        func.__dict__[_READ] = (key, found)
    return found


def _read_own_changes(func: types.FunctionType, fresh_self: bool) -> Findings:
    try:
        source = function_source(func)
        tree = gast.Module(body=[source.tree()], type_ignores=[])
    except SrcadError as error:
        code = func.__code__
        unreadable = Diagnostic(
            code.co_filename,
            code.co_firstlineno,
            0,
            UNREADABLE_CALLEE,
            f"srcad cannot read `{func.__qualname__}` to see what it changes: " + error.message,
            f"register a rule with @srcad.rrule.register({func.__name__})",
        )
        return Findings([[unreadable]])
    # What a function changes itself is read once, whoever asks; the calls it makes are
    # followed with the asking compilation's registry (`_changes_through`).
    ctx = Context(source, CompilationRequest(()), Services(REGISTRY), Namer())
    check = InitialiserMutations if fresh_self else CalleeMutations
    found = ctx.analysis(check, tree)
    assert isinstance(found, Findings)
    return found


@dataclasses.dataclass(frozen=True)
class CallSite:
    """Where a guarded call is, for `changes_nothing`'s error: the function that makes it,
    and the diagnostic at the call (`{function}` and `{name}` in it stand for the function
    called, known only when the call runs)."""

    caller: str
    diagnostic: Diagnostic
    registry: Registry  # the compiling registry, whose rules cover some callees
    positional: tuple[Any, ...] = ()  # `out_arguments.passed`: its positional arguments


def changes_nothing(callee: Any, site: CallSite) -> Any:
    """`callee`, once proved to change nothing its caller can see (read from its source,
    once per function); else a `MutationError` at `site` and at each change. The guard of
    a call whose function srcad sees only when the code runs."""
    refuse_positional_out(callee, site.positional)  # `a.clip(lo, hi, out)`: C code
    found = _function_called(callee, site.registry)
    if found is None:
        return callee
    function, fresh_self = found
    changes = changes_of(function, site.registry, fresh_self)
    if changes:
        names = {"function": function.__qualname__, "name": function.__qualname__}
        at = site.diagnostic
        at = dataclasses.replace(
            at, message=at.message.format(**names), hint=at.hint.format(**names)
        )
        raise MutationError(
            f"cannot differentiate {site.caller}: {1 + len(changes)} problems", [at, *changes]
        )
    return callee


_SYMBOLS = {
    gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
    gast.MatMult: "@", gast.FloorDiv: "//", gast.Mod: "%", gast.BitOr: "|", gast.BitAnd: "&",
    gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>",
}  # fmt: skip


def _symbol(op: gast.AST) -> str:
    return _SYMBOLS.get(type(op), "?")

"""The entry `srcad.jvp` calls for a Python function: a dispatcher, written by srcad for
each function, from the kinds of the arguments and of their tangents to the forward rule
compiled for them, with one branch for each kinds it has been called with.

`jvp(f, args, tangents)` takes its function anew on every call, and the general path
(checking each tangent against its argument, leaf by leaf in a structure; finding the
rule; compiling or fetching it from the cache; materialising the result's tangent) costs
about 50 µs, where the forward rule of a scalar loop takes 2 µs. The entry tests instead
the kinds inline, as `grad`'s entry does (`srcad/entry.py`), runs the forward rule
compiled for them, and returns what it gives where its type is the plain one (a tangent
of the result's own type, a real scalar's or a float64 array's; for a result whose kind
is a float64 number, as `kepler`'s, its kind says it is a real scalar's). For
`kepler(M, e)` called with floats, a float tangent for `M` and a zero for `e`:

    def jvp(func, args, tangents):
        try:
            hold = (func is FUNCTION and REGISTRY.version == 12
                    and guard_h0.__code__ is guard_e1 and ...
                    and type(args) is tuple and type(tangents) is tuple)
            if hold:
                arg0, arg1 = args
                arg0_dot, arg1_dot = tangents
        except Exception:  # a guard's read failed (a name deleted), or another length
            hold = False
        if hold:
            if ((type(arg0) is float or type(arg0) is float64_scalar) and ...
                    and (type(arg0_dot) is float or type(arg0_dot) is float64_scalar)
                    and type(arg1_dot) is ZeroTangent):
                TOLERANCE_2__0 = globals__g0['TOLERANCE']  # the rule's body, inline
                E__0 = arg0
                ...
                y = E__0  # each `return (E, E_dot)` of the rule
                y_dot = E_dot__0
                if type(y_dot) is type(y):  # the result's kind: a float or a float64
                    return (y, y_dot)
                return finish(y, y_dot)
        return general(func, args, tangents)

The branch runs the rule's statements in place of calling it (`srcad/forward_inline.py`
says how, and which rules it calls instead: `result = frule_0((NO_TANGENT, arg0_dot,
arg1_dot), arg0, arg1)`, then the same tests of `result`'s two parts).

`jvp` reads it from the function's dispatcher (`kepler.__srcad_jvp_entry__.function`) and
calls it with the function, which it tests is `kepler` itself: a function that
`functools.wraps` made copies `kepler`'s `__dict__`, dispatcher included, and `general`
sends it to an entry of its own.

A float argument is a Python float or a NumPy float64 (`kinds.FLOAT`), a NumPy float32
one a float32 (`("f4", 0)`), a 0-d float array one of its dtype (`kinds.ZERO_D`,
`ZERO_D32`). A tangent's kind is one of two facts tested per call: a symbolic zero
(`ZeroTangent`), or a value of its argument's own kind (a Python float or NumPy float64
for a float, a NumPy float32 for a float32, a 0-d array of the dtype for a 0-d array, a
complex for a complex; a float64 or complex128 array of the argument's shape for one such:
the shape is a value, so it is compared on every call, as `jvp` checks it). The forward
rule of a branch is compiled with respect to the arguments whose tangent is a value only
(`Compiler.compiled`'s `wrt`): a zero tangent contributes nothing to the result's, so its
whole chain of tangents is folded away when compiling, instead of being carried as
`ZeroTangent` through every operation. Every
other call (other kinds, a list of arguments, other NumPy scalars, structures, a rule
registered since, a guard that fails) takes the general path: where the kinds allow a
branch, it compiles the forward rule for them, adds the branch and calls the rule; else
it is `jvp` as it always was (`api._general_jvp`).

Guards, registry version, threads and the entry's text work as in `srcad/entry.py`: the
branch's forward rule keeps the facts it relies on (`srcad.guards`), tested inline at
the top of the entry (`guards.facts_expression`: a call of `guards_hold()` would cost as
much again); the entry is registered in `linecache` as `<srcad entry jvp of f>`.
The dispatcher lives in the function's own `__dict__`, so it dies with the function.
"""

from __future__ import annotations

import builtins
import threading
import types
import weakref
from collections.abc import Callable
from typing import Any

import gast
import numpy as np

from srcad import syntax, tracebacks
from srcad.callables import name_of
from srcad.compiler import Compiler
from srcad.dtypes import FLOAT32
from srcad.emit import CompiledRule, nested_code, register_text
from srcad.entry import MAX_BRANCHES, entry_guards
from srcad.entry_rules import entry_rules
from srcad.entry_syntax import (
    _and,
    _assign,
    _attribute,
    _call,
    _compare,
    _constant,
    _if,
    _is_type,
    _load,
    _or,
    _test,
    _tuple,
    function_module,
)
from srcad.errors import SrcadError
from srcad.foreign import branch_kind
from srcad.forward_inline import inlined
from srcad.guards import Guards, facts_expression
from srcad.kinds import FLOAT, INT, PYTHON_FLOAT, ZERO_D, ZERO_D32, ZERO_DS, Kind, kind_of
from srcad.requests import Request
from srcad.source import differentiated_function
from srcad.tangents import NoTangent, ZeroTangent
from srcad.trees import foreign_in, structured

ATTRIBUTE = "__srcad_jvp_entry__"  # where a function keeps its dispatcher (`api.jvp` reads it
# as `f.__srcad_jvp_entry__`, which costs less than `f.__dict__.get(ATTRIBUTE)`)
# A result whose tangent of its own type `structured` keeps.
REAL = (float, np.float64, np.float32)
FLOAT32_SCALAR: Kind = (FLOAT32, 0)
_ZERO_D_DTYPES = {ZERO_D: np.dtype(np.float64), ZERO_D32: np.dtype(np.float32)}
ZERO, DOT = "zero", "dot"  # a tangent's kind: a symbolic zero, or a value of its argument's
FORWARD_DISPATCHERS: weakref.WeakSet[ForwardDispatcher] = weakref.WeakSet()

# (argument kinds, tangent kinds): what a branch tests.
Kinds = tuple[tuple[Kind | None, ...], tuple[str, ...]]  # value kinds, tangent kinds
General = Callable[[Callable[..., Any], Any, Any], tuple[Any, Any]]


def forward_entry(compiler: Compiler, func: types.FunctionType, general: General) -> Any:
    """The entry function `jvp` calls for `func`: `entry(func, args, tangents) -> (y,
    y_dot)`, `general(func, args, tangents)` for every call it has no branch for. The
    entry tests that the function it is called with is its own (`functools.wraps`
    copies `__dict__`, and the dispatcher with it), and sends any other to its own."""
    found = func.__dict__.get(ATTRIBUTE)
    if found is None or found.func is not func:
        found = ForwardDispatcher(compiler, func, general)
        func.__dict__[ATTRIBUTE] = found
    return found.function


def clear_forward_entries() -> None:
    """Forget every forward entry's branches (`srcad.clear_cache`)."""
    for dispatcher in list(FORWARD_DISPATCHERS):
        dispatcher.clear()


def _plain(value: Any, kind: Kind | None) -> bool:
    """Whether `value` passes the entry's test for `kind` (`entry_syntax._test`): the common
    types only."""
    if kind is None:
        return True
    if kind == FLOAT:
        return type(value) is float or type(value) is np.float64
    if kind == INT:
        return type(value) is int
    if kind == COMPLEX:
        return type(value) is complex
    if kind == FLOAT32_SCALAR:
        return True  # (`kind_of` gives it to a NumPy float32 alone)
    if kind in ZERO_DS:  # a 0-d array of the native dtype (not another byte order)
        return value.dtype is _ZERO_D_DTYPES[kind]
    if kind[0] in _DTYPES:
        return value.dtype is np.dtype(_DTYPES[kind[0]])
    return kind[0] == "i"  # an int array: its dtype's kind is all the test reads; other
    # dtype classes (float32 arrays, `srcad.dtypes`) take the general path


# The dtype of a float64 or complex128 array argument, and of its tangent.
_DTYPES = {"f": "float64", "c": "complex128"}
COMPLEX: Kind = ("c", 0)


def tangent_kind(tangent: Any, value: Any, kind: Kind | None) -> str | None:
    """The kind of `tangent`, the tangent of an argument `value` of `kind`, as a branch
    tests it: a symbolic zero, a value of the argument's own float kind (for a float, a
    Python float or a NumPy float64; for a NumPy float32, a NumPy float32), or None (the
    general path: an int tangent, another NumPy scalar, a structure, a shape that misfits)."""
    if type(tangent) is ZeroTangent:
        return ZERO
    if kind == FLOAT and (type(tangent) is float or type(tangent) is np.float64):
        return DOT
    if kind == COMPLEX and type(tangent) is complex:
        return DOT
    if kind == FLOAT32_SCALAR and type(tangent) is np.float32:
        return DOT
    if kind in ZERO_DS and kind_of(tangent, argument=True) == kind and _plain(tangent, kind):
        return DOT  # a 0-d array of its argument's dtype
    dtype = None if kind is None or kind[1] == 0 else _DTYPES.get(kind[0])
    array = dtype is not None and type(tangent) is np.ndarray
    if array and tangent.dtype is np.dtype(dtype) and tangent.shape == value.shape:
        return DOT
    return None


class ForwardDispatcher:
    """`jvp` of `func`: the forward rule for each kinds of arguments and tangents, compiled
    by `compiler`, and the entry function (`function`) that dispatches to them."""

    def __init__(self, compiler: Compiler, func: types.FunctionType, general: General) -> None:
        self.compiler = compiler
        self.registry = compiler.registry
        self.func = func
        self.general_jvp = general
        code = func.__code__
        self.parameters = code.co_varnames[: code.co_argcount]
        # The branches, by kinds: the forward rule and its guards.
        self.branches: dict[Kinds, tuple[Callable[..., Any], Guards]] = {}
        self._results: dict[Kinds, Kind | None] = {}  # the kind of each rule's result
        self._slots: dict[Kinds, int] = {}  # the number in each kinds' `frule_{n}`
        # The statements each branch runs in place of calling its rule (`forward_inline`),
        # and how many rules have been inlined (numbering their names in the namespace).
        self._inlined: dict[Kinds, list[gast.stmt] | None] = {}
        self._inlines = 0
        self._refused: set[tuple[Kinds, int]] = set()  # (kinds, version) that do not compile
        self._lock = threading.Lock()
        self.namespace: dict[str, Any] = {
            "REGISTRY": self.registry,
            "FUNCTION": func,
            "general": self.general,
            "finish": _finish,
            "kind_of": branch_kind,
            "ndarray": np.ndarray,
            "float64": np.dtype(np.float64),
            "complex128": np.dtype(np.complex128),
            "float64_scalar": np.float64,
            "float32_scalar": np.float32,
            "float32": np.dtype(np.float32),
            "REAL": REAL,
            "ZeroTangent": ZeroTangent,
            "NO_TANGENT": NoTangent(),
            "__builtins__": builtins.__dict__,
        }
        self.version = self.registry.version
        self.function: Any = types.FunctionType(self._code(), self.namespace, "jvp")
        FORWARD_DISPATCHERS.add(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_nothing, ())  # pickling a function (cloudpickle) leaves compiled code out

    def clear(self) -> None:
        with self._lock:
            self.branches = {}
            self._refused = set()
            self.function.__code__ = self._code()

    # -- the general path --------------------------------------------------------------

    def general(self, func: Any, args: Any, tangents: Any) -> tuple[Any, Any]:
        """What the entry function gives, for any call: where the kinds allow a branch,
        the forward rule compiled for them (and a branch calling it from now on), which
        gives what the general path would (the tangents it takes need no seeding, and
        pass `jvp`'s checks); else `jvp`'s general path. A function not its own (one
        whose `__dict__` `functools.wraps` copied from its) goes to its own entry."""
        if func is not self.func:
            entry = forward_entry(self.compiler, func, self.general_jvp)
            return entry(func, args, tangents)
        kinds = self._kinds(args, tangents)
        if kinds is not None and (kinds, self.registry.version) not in self._refused:
            frule = self._compile_branch(kinds)
            if frule is not None:
                return _finish(*frule((NoTangent(), *tangents), *args))
        return self.general_jvp(self.func, args, tangents)

    def _kinds(self, args: Any, tangents: Any) -> Kinds | None:
        """The kinds a branch for this call tests, or None where no branch may serve it:
        not every positional parameter passed (defaults, `*args`), values of types the
        tests do not take, a tangent of any other kind, no tangent that is a value."""
        if type(args) is not tuple or type(tangents) is not tuple:
            return None
        if len(args) != len(self.parameters) or len(tangents) != len(args):
            return None
        if self.func.__code__.co_flags & 0x04:  # CO_VARARGS: arguments are not parameters
            return None
        kinds = tuple(kind_of(arg, argument=True) for arg in args)  # (a container: none)
        if not all(_plain(a, k) for a, k in zip(args, kinds, strict=True)):
            return None
        if any(k is None and foreign_in(a) is not None for a, k in zip(args, kinds, strict=True)):
            return None  # (refused there: `trees.refuse_foreign_values`)
        dots = tuple(tangent_kind(t, a, k) for t, a, k in zip(tangents, args, kinds, strict=True))
        if None in dots or DOT not in dots:
            return None
        return kinds, dots  # type: ignore[return-value]

    def _compile_branch(self, kinds: Kinds) -> Callable[..., Any] | None:
        """Compile the forward rule for `kinds`, with respect to the arguments whose
        tangent is a value, and add its branch, where `func` is differentiated from its
        own source (no registered rule, no derivative function srcad returned); None where
        it is not, or does not compile so (the general path then says why)."""
        func = self.func
        if (
            entry_rules(self.compiler, func) is not None
            or self.registry.frule_for(func) is not None
            or self.registry.refusal(func) is not None
            or differentiated_function(func) is not func
            or hasattr(func, "__wrapped__")
        ):
            return None
        arg_kinds, dots = kinds
        wrt = tuple(p for p, dot in zip(self.parameters, dots, strict=True) if dot == DOT)
        try:
            compiled = self.compiler.compiled(
                func, None if len(wrt) == len(dots) else wrt, Request.frule(arg_kinds)
            )
        except SrcadError:
            self._refused.add((kinds, self.registry.version))
            return None
        guards = entry_guards(func, compiled.guards, arg_kinds)
        self.add(kinds, compiled, guards)
        return compiled.function

    # -- the entry function --------------------------------------------------------------

    def add(self, kinds: Kinds, compiled: CompiledRule, guards: Guards) -> None:
        """A branch for `kinds`, running the forward rule `compiled` (inline where
        `forward_inline` may, else calling it), as long as its `guards` hold."""
        frule = compiled.function
        with self._lock:
            if self.registry.version != self.version:
                self.branches.clear()
                self.version = self.registry.version
            branches = {k: b for k, b in self.branches.items() if b[1].hold()}
            if kinds not in branches and len(branches) >= MAX_BRANCHES:
                return
            slot = self._slots.setdefault(kinds, len(self._slots))
            self.namespace[f"frule_{slot}"] = frule
            self._results[kinds] = compiled.result
            count = len(self.parameters)
            self._inlined[kinds] = inlined(
                compiled, guards, self._inlines, count, self.namespace, self._returned(kinds)
            )
            self._inlines += 1
            branches[kinds] = (frule, guards)
            self.branches = branches
            self.function.__code__ = self._code()

    def source(self) -> str:
        """The entry function's text, as it stands."""
        return syntax.unparse(self.tree())

    def tree(self) -> gast.Module:
        count = len(self.parameters)
        names = [f"arg{i}" for i in range(count)]
        dot_names = [f"arg{i}_dot" for i in range(count)]
        general = gast.Return(
            value=_call("general", _load("func"), _load("args"), _load("tangents"))
        )
        parameters = ("func", "args", "tangents")
        if not self.branches:
            return function_module("jvp", [general], args=parameters)
        # One `try` for what may raise: a guard's read that fails (a name deleted), and
        # unpacking arguments or tangents of another length; either way, no branch.
        tests = [
            _compare(_load("func"), gast.Is(), _load("FUNCTION")),
            _compare(_attribute("REGISTRY", "version"), gast.Eq(), _constant(self.version)),
        ]
        facts = Guards.union(*(guards for _, guards in self.branches.values())).facts
        if facts:  # the guards' tests written out, not called (`guards_hold()`)
            hold = syntax.parse(facts_expression(facts, self.namespace, "guard_")).body[0]
            assert isinstance(hold, gast.Expr)
            value = hold.value
            conjunction = isinstance(value, gast.BoolOp) and isinstance(value.op, gast.And)
            tests += value.values if conjunction else [value]
        tests += [_is_type("args", "tuple"), _is_type("tangents", "tuple")]
        unpack = [
            _assign(_tuple([syntax.store(n) for n in names]), _load("args")),
            _assign(_tuple([syntax.store(n) for n in dot_names]), _load("tangents")),
        ]
        held = [_assign(syntax.store("hold"), _and(tests)), _if(_load("hold"), unpack)]
        failed = gast.ExceptHandler(
            type=_load("Exception"),
            name=None,
            body=[_assign(syntax.store("hold"), _constant(False))],
        )
        guarded = gast.Try(body=held, handlers=[failed], orelse=[], finalbody=[])
        branches = [self._branch(kinds, names, dot_names) for kinds in self.branches]
        body = [guarded, _if(_load("hold"), branches)]
        return function_module("jvp", [*body, general], args=parameters)

    def _branch(self, kinds: Kinds, names: list[str], dot_names: list[str]) -> gast.stmt:
        arg_kinds, dots = kinds
        tests = [_test(_load(name), kind) for name, kind in zip(names, arg_kinds, strict=True)]
        tests += [
            _tangent_test(dot_name, dot, name, kind)
            for name, dot_name, dot, kind in zip(names, dot_names, dots, arg_kinds, strict=True)
        ]
        body = self._inlined.get(kinds)
        if body is None:  # the rule called
            dargs = _tuple([_load("NO_TANGENT"), *map(_load, dot_names)])
            call = _call(f"frule_{self._slots[kinds]}", dargs, *map(_load, names))
            body = self._returned(kinds)(call, None, None)
        return _if(_and(tests), body)

    def _returned(self, kinds: Kinds) -> Callable[..., list[gast.stmt]]:
        """The statements that return what a rule of `kinds` gives, `value` (or its two
        parts, `(y, y_dot)` written out): as it is where its type is the plain one (which
        `structured` gives back as it is: a tangent of the result's own type for a real
        scalar, a float64 array of its shape for one), else through `finish`."""
        result = self._results.get(kinds)

        def returned(
            value: gast.expr | None, y: gast.expr | None, y_dot: gast.expr | None
        ) -> list[gast.stmt]:
            if y is None or y_dot is None:
                value = _constant(None) if value is None else value
                split = [
                    _assign(syntax.store("result"), value),
                    _assign(_tuple([syntax.store("y"), syntax.store("y_dot")]), _load("result")),
                ]
                plain_result: gast.expr = _load("result")
            else:
                split = [_assign(syntax.store("y"), y), _assign(syntax.store("y_dot"), y_dot)]
                plain_result = _tuple([_load("y"), _load("y_dot")])
            same_type = _compare(
                _call("type", _load("y_dot")), gast.Is(), _call("type", _load("y"))
            )
            real = _compare(_call("type", _load("y")), gast.In(), _load("REAL"))
            array = _and(
                [
                    _is_type("y", "ndarray"),
                    _compare(_attribute("y", "dtype"), gast.Is(), _load("float64")),
                    _float_array_like("y_dot", "y"),
                ]
            )
            plain: gast.expr = gast.BoolOp(op=gast.Or(), values=[_and([same_type, real]), array])
            if result in (FLOAT, PYTHON_FLOAT):
                plain = same_type  # a float or a NumPy float64, both `REAL`, by its kind
            return [
                *split,
                _if(plain, [gast.Return(value=plain_result)]),  # the rule's `(y, y_dot)`
                gast.Return(value=_call("finish", _load("y"), _load("y_dot"))),
            ]

        return returned

    def _code(self) -> types.CodeType:
        tree = self.tree()
        body = syntax.unparse(tree)
        what = f"entry jvp of {name_of(self.func)}"
        count = len(self.branches)
        text = f"# srcad: {what}, {count} branch{'' if count == 1 else 'es'}\n{body}"
        filename = f"<srcad {what}>"
        register_text(filename, text)
        tracebacks.record_positions(filename, text, tree.body)  # the rules' inlined lines
        return nested_code(compile(text, filename, "exec"), "jvp")


def _tangent_test(name: str, dot: str, primal: str, kind: Kind | None) -> gast.expr:
    """A test of whether the tangent `name`, of the argument `primal` of `kind`, has the
    kind `dot` (`tangent_kind`): a Python float or NumPy float64 for a float, a NumPy
    float32 for a NumPy float32, a float64 array of the argument's shape for a float64
    array (the shape, a value, compared on every call)."""
    if dot == ZERO:
        return _is_type(name, "ZeroTangent")
    if kind == FLOAT:
        return _or([_is_type(name, "float"), _is_type(name, "float64_scalar")])
    if kind == COMPLEX:
        return _is_type(name, "complex")
    if kind == FLOAT32_SCALAR:
        return _is_type(name, "float32_scalar")
    if kind in ZERO_DS:
        return _test(_load(name), kind)
    assert kind is not None
    return _float_array_like(name, primal, _DTYPES[kind[0]])


def _float_array_like(name: str, like: str, dtype: str = "float64") -> gast.expr:
    """`name` is a float64 (or complex128: `dtype`) array of the shape of `like`."""
    return _and(
        [
            _is_type(name, "ndarray"),
            _compare(_attribute(name, "dtype"), gast.Is(), _load(dtype)),
            _compare(_attribute(name, "shape"), gast.Eq(), _attribute(like, "shape")),
        ]
    )


def _finish(y: Any, y_dot: Any) -> tuple[Any, Any]:
    """`(y, y_dot)` in general: the tangent in the result's structure, zeros materialised."""
    return y, structured(y_dot, y)


def _nothing() -> None:
    return None

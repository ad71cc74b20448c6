"""The functions `grad` and `value_and_grad` give: a dispatcher, written by srcad for each
differentiated function, from the kinds of the arguments (`srcad.kinds`) to the gradient
function compiled for them, with one branch for each kinds it has been called with.

Such a function runs on every call, before and after the gradient function srcad generated
for those kinds (`grad_f`, the target `Target.GRADIENT`); for a scalar polynomial the
generated gradient takes about 0.2 µs, so a general dispatch (work out the kinds, look
them up in a table, check the result) would cost more than the gradient itself. The entry
function instead tests the kinds inline, as plain `type(x) is float` comparisons, calls that
kinds' gradient function, and returns what it gives where its type is the plain one
(a float for a float argument, an array for a float array); for `polynomial(x)` called with
floats, `srcad.grad(polynomial)` is:

    def grad(x=UNGIVEN, /, *args, **kwargs):
        if not (args or kwargs) and REGISTRY.version == 12 and guards_hold():
            if x is not UNGIVEN:
                if type(x) is float or type(x) is float64_scalar:
                    try:
                        y, cotangents = gradient_0(x)
                    except Exception:
                        failed((x,), kwargs)
                        raise
                    dx = cotangents[1]
                    if type(dx) in FLOAT_GRADIENTS:
                        return dx
                    return finish(y, cotangents, (x,), kwargs, True)
        return general(args, kwargs, x)

A float is a Python float or a NumPy float64 (an item of a float64 array: `kinds.FLOAT`
holds both, and the same gradient function serves them); a NumPy float32 and a 0-d float
array (`kinds.ZERO_D`, `ZERO_D32`: `type(x) is ndarray and x.ndim == 0 and (x.dtype is
float64)`) have kinds and branches of their own, the gradient of a 0-d array a NumPy
scalar of its dtype (`Dispatcher._gradient`, which `finish` applies).

The arguments are positional-only parameters defaulting to `UNGIVEN`, so a call builds
no tuple of them: branches for one and two arguments test `x is not UNGIVEN and n is
UNGIVEN` and `n is not UNGIVEN`. Their names are the function's where the entry reads no
such name (its namespace's, a builtin's); their defaults are the function's (`_install`).

`guards_hold()` checks the guards of every branch's gradient function at once
(`srcad.guards`: the callees named when they were compiled are still the objects those
names name; one identity test each), and is left out where there are none.

A container argument (a tuple, list, dict, NamedTuple or dataclass of arrays and floats)
is tested by its structure (`srcad.kinds.Structure`): `type(p) is tuple and len(p) == 4`
and each item's test, read as the code reads it (`p[0]`, `p['w']`, `p.w`); its gradient
is shaped like it by the function `trees.shaper` made once for that structure, bound in
the entry's namespace (`shape_0`).

A gradient of another type (a symbolic zero, a NumPy scalar) goes to `finish`, which
checks and materialises it; a gradient function that raises goes to `failed` first, which
raises srcad's error instead where the function's result is no real scalar (the pullback
was seeded for one); from Python 3.11 the `try` costs nothing until something raises.
Every other call (other kinds, keyword arguments, a rule registered since, a guard that
fails) takes the general path, `general`, which compiles what it needs and then adds a
branch: the entry is written again, and its code replaces the code of the same function
object, so what `grad` returned stays the function to call. `general`, `finish` and
`failed` are the dispatcher's own: it owns the table of gradient functions by kinds, and
compiles them through its compiler.

The entry is emitted as every other piece of srcad's code is: a gast tree, printed by
`srcad.syntax`, registered in `linecache` (as `<srcad entry grad of f>`, its text headed
`# srcad: entry ...`), and compiled from that text.

Threads: `add` takes a lock; a call never does. A branch's gradient function lives in
the namespace under a name that stays that of its kinds (`gradient_0` is always the one
for the first kinds seen), and names are replaced, never deleted, before the code that
reads them is: a thread still running the previous code calls a gradient for the kinds it
tested.
"""

from __future__ import annotations

import builtins
import keyword
import sys
import threading
import types
import weakref
from collections.abc import Callable
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.callables import (
    Call,
    argument_at,
    callee,
    name_of,
    perturbable,
    refuse_unperturbable,
)
from srcad.compiler import Compiler
from srcad.emit import nested_code, register_text
from srcad.entry_rules import DISPATCHER, entry_rules
from srcad.entry_syntax import (
    _DTYPES,
    _and,
    _assign,
    _attribute,
    _call,
    _compare,
    _constant,
    _if,
    _is_type,
    _item,
    _load,
    _or,
    _passed,
    _result_test,
    _test,
    _tuple,
    function_module,
)
from srcad.errors import SrcadError
from srcad.foreign import branch_kind
from srcad.guards import Guards
from srcad.kinds import (
    ZERO_DS,
    ArgumentKind,
    Signature,
    Structure,
    is_inexact,
    kind_of,
    signature,
)
from srcad.registry import RuleFn
from srcad.requests import Request
from srcad.tangents import NoTangent, ZeroTangent
from srcad.tracebacks import annotate
from srcad.trees import refuse_foreign_values, shaper, structured

REAL = (float, np.float64, np.float32, np.float16)  # what a real scalar result may be
# A float argument's plain gradient: a float, or the NumPy float64 code made (`np.cos(x)`).
FLOAT_GRADIENTS = (float, np.float64)
# The default of the entry's positional-only parameters: an argument not given.
UNGIVEN: Any = type("Ungiven", (), {"__repr__": lambda self: "UNGIVEN"})()
MAX_BRANCHES = 8  # kinds of arguments past these take the general path
# Every dispatcher alive, for `srcad.clear_cache` (each lives as long as its entry function).
DISPATCHERS: weakref.WeakSet[Dispatcher] = weakref.WeakSet()


def not_scalar(y: Any, func: Callable[..., Any], what: str = "grad") -> str | None:
    """Why `y` cannot be what `what` differentiates (None: it is a real scalar)."""
    integer = isinstance(y, int | np.integer) and not isinstance(y, bool)
    if isinstance(y, float | np.floating) or integer:
        return None
    if isinstance(y, np.ndarray) and y.ndim == 0 and y.dtype.kind in "fiu":
        return None
    shape = f" with shape {np.shape(y)}" if isinstance(y, np.ndarray | np.generic) else ""
    return (
        f"{what} needs {name_of(func)} to return a real scalar, but it returned {type(y).__name__}"
        f"{shape}; use srcad.rrule (or srcad.vjp, srcad.jacobian) for a pullback that takes any "
        "output cotangent"
    )


def check_scalar(y: Any, func: Callable[..., Any], what: str = "grad") -> None:
    problem = not_scalar(y, func, what)
    if problem is not None:
        raise SrcadError(problem)


def explain_failure(call: Call, args: tuple[Any, ...], kwargs: dict[str, Any], what: str) -> None:
    """After a `TypeError` from generated code, raise a `SrcadError` for either mistake that
    causes one: arguments that do not fit `f`, or (for `what` needs a scalar: grad,
    hessian) an output that is not a real scalar, such as a tuple, which the seed 1.0 cannot
    be the cotangent of. Return if neither: the error is the function's own."""
    call.check_arguments(args, kwargs)
    full_args, full_kwargs = call.arguments(args, kwargs)
    try:
        y = call.function(*full_args, **full_kwargs)
    except Exception:  # the primal fails too: the original error says why
        return
    check_scalar(y, call.f, what)


def _seeded(rrule: RuleFn) -> RuleFn:
    """`(y, pullback(1.0))` from a registered rrule, as a generated `grad_f` gives it."""

    def gradient(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        y, pullback = rrule(*args, **kwargs)
        return y, pullback(1.0)

    return gradient


def entry_guards(func: Callable[..., Any], guards: Guards, args: tuple[Any, ...]) -> Guards:
    """The guards an entry function's branch for `args` checks: a call passing every
    positional argument, and none keyword-only, never reads the function's default values
    (reading a function's attribute costs as much as the rest of the entry's checks)."""
    code = getattr(func, "__code__", None)
    if code is None or len(args) < code.co_argcount or code.co_kwonlyargcount:
        return guards
    return guards.without(func, ("__defaults__", "__kwdefaults__"))


def clear_entries() -> None:
    """Clear every entry function's branches and gradient functions."""
    for dispatcher in list(DISPATCHERS):
        dispatcher.clear()


class Dispatcher:
    """`grad` (`value=False`) or `value_and_grad` of `func`, with respect to its
    parameters `wrt` (a tuple of gradients where `as_tuple`): the gradient function for
    each kinds of arguments, compiled by `compiler`, and the entry function (`function`)
    that dispatches to them."""

    def __init__(
        self,
        compiler: Compiler,
        func: Callable[..., Any],
        wrt: tuple[str, ...],
        positions: tuple[int, ...],
        as_tuple: bool,
        value: bool,
        parameters: list[str],
    ) -> None:
        self.compiler = compiler
        self.registry = compiler.registry
        self.func = func
        self.call = callee(func, self.registry)
        self.wrt = wrt
        self.positions = positions
        self.single = not as_tuple
        self.value = value
        self.name = "value_and_grad" if value else "grad"
        self.parameters = parameters
        # The gradient functions by kinds (any call), and the registry version they are of.
        self._gradients: dict[Signature, tuple[RuleFn, bool, Guards]] = {}
        self._version = -1
        # The entry's branches, by kinds: the gradient function, whether it leaves the
        # value out, its guards.
        self.branches: dict[Signature, tuple[Callable[..., Any], bool, Guards]] = {}
        self._slots: dict[Signature, int] = {}  # the number in each kinds' `gradient_{n}`
        self._type_names: dict[type, str] = {}  # containers' types, by name (`_bind_types`)
        self._structure_names: dict[Structure, str] = {}  # and their kinds
        self._lock = threading.Lock()
        self.namespace: dict[str, Any] = {
            "REGISTRY": self.registry,
            "general": self.general,
            "finish": self.finish,
            "failed": self.failed,
            "kind_of": branch_kind,
            "ndarray": np.ndarray,
            **{name: np.dtype(name) for name in _DTYPES.values()},  # `float64`, ...
            "float32_scalar": np.float32,
            "float64_scalar": np.float64,
            "complex64_scalar": np.complex64,
            "COMPLEX_GRADIENTS": (complex, np.complex128),  # a complex argument's gradient
            "REAL": REAL,
            "FLOAT_GRADIENTS": FLOAT_GRADIENTS,
            "UNGIVEN": UNGIVEN,
            # As `exec` would: without it, every builtin the entry reads is a slow lookup.
            "__builtins__": builtins.__dict__,
        }
        self.version = self.registry.version
        # The entry function: `add` replaces its code; the API gives it its attributes.
        self.function: Any = types.FunctionType(self._code(), self.namespace, self.name)
        # What srcad differentiates in its place (`srcad.entry_rules`).
        self.function.__dict__[DISPATCHER] = self
        self.function.__dict__["is_generated_rule"] = True  # it changes none of its arguments
        DISPATCHERS.add(self)

    def clear(self) -> None:
        """Forget every gradient function and branch (`srcad.clear_cache`): the next
        call takes the general path, which compiles again."""
        with self._lock:
            self._gradients = {}
            self.branches = {}
            self._install()

    # -- the general path --------------------------------------------------------------

    def gradient_for(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[RuleFn, bool]:
        """The function giving `(y, pullback(1.0))` for `wrt`, specialised for the kinds of
        the arguments `function` gets for these (`Call.arguments`): the generated `grad_f`,
        or a registered rule's; and whether it gives None for `y`, proven a real float
        (only without `value`, for `grad`). The entry function gets a branch calling it.
        Arguments that do not fit the function are refused before anything compiles."""
        kinds = signature(args)
        if self._version != self.registry.version:
            self._gradients.clear()
            self._version = self.registry.version
        found = self._gradients.get(kinds)
        if found is not None and found[2].hold():  # its guards: `srcad.guards`
            return found[:2]
        call = self.call
        call.check_arguments(args[len(call.bound) :], kwargs)
        rule = self.registry.rrule_for(call.function)  # a registered rule wins over the source
        derivative = entry_rules(self.compiler, call.function)  # one srcad returned: its form's
        if rule is None and derivative is not None:
            found = (_seeded(derivative.rrule), False, Guards())
        elif rule is not None:
            found = (_seeded(rule.rrule), False, Guards())
        else:
            request = Request.grad(kinds, self.value)
            compiled = self.compiler.compiled(call.function, self.wrt, request)
            found = (compiled.function, compiled.value_left_out, compiled.guards)
        self._gradients[kinds] = found
        if not call.binds:  # the entry calls the gradient with the caller's arguments
            self.add(kinds, found[0], found[1], entry_guards(call.function, found[2], args))
        return found[:2]

    def general(self, args: tuple[Any, ...], kwargs: dict[str, Any], *given: Any) -> Any:
        """What the entry function gives, for any call: its arguments are those of its
        positional-only parameters that were `given` (a leading run), then `args`."""
        if given:
            args = (*[a for a in given if a is not UNGIVEN], *args)
        call = self.call
        refuse_foreign_values(self.func, args, kwargs)
        full_args, full_kwargs = call.arguments(args, kwargs)
        gradient, value_left_out = self.gradient_for(full_args, kwargs)
        try:
            y, cotangents = gradient(*full_args, **full_kwargs)
        except Exception as error:
            if isinstance(error, TypeError):
                explain_failure(call, args, kwargs, self.name)
            self.failed(args, kwargs)
            raise
        cotangents = call.cotangents(cotangents)
        return self.finish(y, cotangents, args, kwargs, value_left_out)

    def failed(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Called where a gradient function raised: the pullback was seeded with 1.0, the
        cotangent of a real scalar. If the function does not return one (a tuple, a list,
        a dict, an array, None), that is the error to show; else the gradient's own is,
        with a note naming the user's line it came from (`srcad.tracebacks`)."""
        error = sys.exc_info()[1]
        if error is not None:
            annotate(error)
        try:
            y = self.func(*args, **kwargs)
        except Exception:
            return  # the function itself fails: its own error is the one to see
        problem = not_scalar(y, self.func)
        if problem is not None:
            raise SrcadError(problem) from None

    def finish(
        self,
        y: Any,
        cotangents: tuple[Any, ...],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        value_left_out: bool,
    ) -> Any:
        """The gradient (with `value`: `(y, gradient)`) from what a gradient function
        gave, in general: the result checked, zeros materialised, tuples for tuples."""
        if not (y is None and value_left_out):
            check_scalar(y, self.func, self.name)
        if self.single:
            (position,) = self.positions
            gradient = self._gradient(cotangents[position + 1], args, kwargs, position)
        else:
            gradient = tuple(
                self._gradient(cotangents[i + 1], args, kwargs, i) for i in self.positions
            )
        return (y, gradient) if self.value else gradient

    def _gradient(
        self, cotangent: Any, args: tuple[Any, ...], kwargs: dict[str, Any], position: int
    ) -> Any:
        if position < len(args):
            primal = args[position]
        else:
            primal = argument_at(args, kwargs, self.func, position)
        if not perturbable(primal):
            refuse_unperturbable(self.func, position, primal)
        if isinstance(cotangent, NoTangent):  # a float the result is flat in (`np.where(x)`)
            cotangent = ZeroTangent()
        gradient = structured(cotangent, primal)
        if (
            kind_of(primal, argument=True) in ZERO_DS
        ):  # a 0-d float array's: a NumPy scalar of its dtype
            return primal.dtype.type(gradient)
        return gradient

    # -- the entry function --------------------------------------------------------------

    def add(
        self,
        kinds: Signature,
        gradient: Callable[..., Any],
        value_left_out: bool,
        guards: Guards | None = None,
    ) -> None:
        """A branch for arguments of `kinds`, calling `gradient`, which gives `(y,
        cotangents)` (`y` None, proven a real float, where `value_left_out`), as long as
        its `guards` hold."""
        guards = guards or Guards()
        with self._lock:
            if self.registry.version != self.version:
                self.branches.clear()
                self.version = self.registry.version
            # A branch whose guards fail is compiled again when its kinds come back.
            branches = {k: b for k, b in self.branches.items() if b[2].hold()}
            if kinds not in branches and len(branches) >= MAX_BRANCHES:
                return
            if not self._plain_kinds(kinds):
                return
            slot = self._slots.setdefault(kinds, len(self._slots))
            for kind in kinds:
                self._bind_types(kind)
            self.namespace[f"gradient_{slot}"] = gradient
            branches[kinds] = (gradient, value_left_out, guards)
            self.branches = branches
            self.namespace["guards_hold"] = Guards.union(*(b[2] for b in branches.values())).hold
            self._install()

    def _plain_kinds(self, kinds: Signature) -> bool:
        """Whether the plain result for `kinds` is known: a real or complex float or array,
        or a 0-d float array, in each position `wrt`, or a container (whose gradient
        `finish` shapes like it)."""
        return all(
            p < len(kinds)
            and (
                isinstance(k := kinds[p], Structure)
                or (isinstance(k, tuple) and (is_inexact(k) or k in ZERO_DS))
            )
            for p in self.positions
        )

    def _bind_types(self, kind: ArgumentKind, top: bool = True) -> None:
        """Give a container's kind (`structure_0`) and the NamedTuple and dataclass types in
        it (`type_of_Params`) names in the entry's namespace, for its tests and results."""
        if not isinstance(kind, Structure):
            return
        if top and kind not in self._structure_names:
            name = f"shape_{len(self._structure_names)}"
            self.namespace[name] = shaper(kind)
            self._structure_names[kind] = name
        if kind.fields and kind.container not in self._type_names:
            name = f"type_of_{kind.container.__name__}"
            while name in self.namespace:
                name += "_"
            self.namespace[name] = kind.container
            self._type_names[kind.container] = name
        for item in kind.items:
            self._bind_types(item, False)

    def source(self) -> str:
        """The entry function's text, as it stands."""
        return syntax.unparse(self.tree())

    def tree(self) -> gast.Module:
        """The entry function as it stands, as a tree: one positional-only parameter for
        each argument the branches take (defaulting to `UNGIVEN`: a call passes a leading
        run of them), then `*args` and `**kwargs`, which the branches take empty."""
        by_count: dict[int, list[tuple[int, Signature]]] = {}  # branches by argument count
        for kinds in self.branches:
            by_count.setdefault(len(kinds), []).append((self._slots[kinds], kinds))
        parameters = self._names(max(by_count, default=0))
        body: list[gast.stmt] = []
        for count, group in by_count.items():
            names = parameters[:count]
            block = [self._branch(index, kinds, names) for index, kinds in group]
            body.append(_if(_and(_passed(parameters, count)), block))
        given = map(_load, parameters)
        general = gast.Return(value=_call("general", _load("args"), _load("kwargs"), *given))
        if body:
            guarded = any(guards for _, _, guards in self.branches.values())
            tests = [
                gast.UnaryOp(op=gast.Not(), operand=_or([_load("args"), _load("kwargs")])),
                _compare(_attribute("REGISTRY", "version"), gast.Eq(), _constant(self.version)),
            ]
            if guarded:
                tests.append(_call("guards_hold"))
            body = [_if(_and(tests), body)]
        return function_module(
            self.name, [*body, general], positional=parameters, vararg="args", kwarg="kwargs"
        )

    def _branch(self, index: int, kinds: Signature, names: list[str]) -> gast.stmt:
        """The branch calling `gradient_{index}`, for arguments of `kinds`."""
        _, value_left_out, _ = self.branches[kinds]
        tests = [self._test(_load(name), kind) for name, kind in zip(names, kinds, strict=True)]
        results = {f"d{names[p]}": p for p in self.positions}  # gradient: its position
        checks = [_result_test(result, kinds[p]) for result, p in results.items()]
        if not value_left_out:
            checks.insert(0, _compare(_call("type", _load("y")), gast.In(), _load("REAL")))
        gradients = [_load(result) for result in results]
        gradient_value = gradients[0] if self.single else _tuple(gradients)
        returned = _tuple([_load("y"), gradient_value]) if self.value else gradient_value
        arguments = [_load(name) for name in names]
        gradient_call = _assign(
            _tuple([syntax.store("y"), syntax.store("cotangents")]),
            _call(f"gradient_{index}", *arguments),
        )
        passed = _tuple(arguments)  # the call's arguments (`args` is empty)
        failed = gast.ExceptHandler(
            type=_load("Exception"),
            name=None,
            body=[
                gast.Expr(value=_call("failed", passed, _load("kwargs"))),
                gast.Raise(exc=None, cause=None),
            ],
        )
        result = (_load("y"), _load("cotangents"), passed, _load("kwargs"))
        finish = _call("finish", *result, _constant(value_left_out))
        body = [
            gast.Try(body=[gradient_call], handlers=[failed], orelse=[], finalbody=[]),
            *[
                _assign(syntax.store(r), self._result(kinds[p], p, names))
                for r, p in results.items()
            ],
            # An empty `wrt` checks nothing.
            _if(_and(checks), [gast.Return(value=returned)]),
            gast.Return(value=finish),
        ]
        return _if(_and(tests), body)

    def _result(self, kind: ArgumentKind, position: int, names: list[str]) -> gast.expr:
        """The gradient for the argument at `position`: its cotangent, or for a container
        its cotangent shaped like it (`trees.shaper`'s; None where `finish` must)."""
        cotangent = _item("cotangents", position + 1)
        if not isinstance(kind, Structure):
            return cotangent
        return _call(self._structure_names[kind], cotangent, _load(names[position]))

    def _test(self, value: gast.expr, kind: ArgumentKind) -> gast.expr:
        """A test of whether `value` has `kind`; for a container's, of its type, its length
        (a dict's keys) and each item's kind, read as the code reads it."""
        if not isinstance(kind, Structure):
            return _test(value, kind)
        cls = kind.container
        name = self._type_names.get(cls, cls.__name__)
        tests: list[gast.expr] = [_is_type(value, name)]
        if not kind.fields:
            count = _call("len", value)
            tests.append(_compare(count, gast.Eq(), _constant(len(kind.items))))
        keys = kind.keys or range(len(kind.items))
        for key, item in zip(keys, kind.items, strict=True):
            if kind.fields:
                part: gast.expr = _attribute(value, key)
            else:
                part = gast.Subscript(value=value, slice=_constant(key), ctx=gast.Load())
            if cls is dict:  # every key there (with the length: no other key)
                tests.append(_compare(_constant(key), gast.In(), value))
            test = self._test(part, item)
            # `a and b`, not `a and (b and c)`; an `or` (a float's `float or float64`) is
            # one test
            both = isinstance(test, gast.BoolOp) and isinstance(test.op, gast.And)
            tests += test.values if both else [test]
        return _and(tests)

    def _names(self, count: int) -> list[str]:
        """Local names for `count` positional arguments: the parameters' where they are
        free to use."""
        taken = {*self.namespace, *builtins.__dict__, "args", "kwargs", "y", "cotangents"}
        taken.add("guards_hold")
        taken |= {f"gradient_{i}" for i in range(len(self._slots) + MAX_BRANCHES)}
        names = []
        for i in range(count):
            name = self.parameters[i] if i < len(self.parameters) else ""
            usable = name.isidentifier() and not keyword.iskeyword(name)
            if not usable or name in taken or f"d{name}" in taken:
                name = f"arg{i}"
                while name in taken or f"d{name}" in taken:
                    name += "_"
            names.append(name)
            taken |= {name, f"d{name}"}
        return names

    def _install(self) -> None:
        """Give the entry function its code as it stands, and first (where it has more
        parameters) the defaults, which are the function's: all `UNGIVEN`, they only grow,
        so that a thread calling it meanwhile runs either code with defaults that fit."""
        code = self._code()
        if len(self.function.__defaults__ or ()) < code.co_posonlyargcount:
            self.function.__defaults__ = (UNGIVEN,) * code.co_posonlyargcount
        self.function.__code__ = code

    def _code(self) -> types.CodeType:
        """The code of the entry function as it stands, compiled from its text, which
        tracebacks show (compiled, never run: the namespace other threads read is left
        alone)."""
        body = self.source()
        what = f"entry {self.name} of {name_of(self.func)}"
        count = len(self.branches)
        text = f"# srcad: {what}, {count} branch{'' if count == 1 else 'es'}\n{body}"
        filename = f"<srcad {what}>"
        register_text(filename, text)
        # From the text, as `exec` would: compiling an `ast` tree from several threads at
        # once fails in CPython 3.11 ("AST constructor recursion depth mismatch"), and
        # entries are written by whichever thread calls them.
        return nested_code(compile(text, filename, "exec"), self.name)

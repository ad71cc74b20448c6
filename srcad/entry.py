"""The functions `grad` and `value_and_grad` give: written by srcad for each differentiated
function, one branch for each kinds of arguments (`srcad.kinds`) it has been called with.

Such a function runs on every call, before and after the gradient function srcad generated
for those kinds (`grad_f`, `compiler.compiled(..., fused=True)`); for a scalar polynomial
the generated gradient takes about 0.2 µs, so a general dispatch (work out the kinds, look
them up in a table, check the result) would cost more than the gradient itself. The entry
function instead tests the kinds inline, as plain `type(x) is float` comparisons, calls that
kinds' gradient function, and returns what it gives where its type is the plain one
(a float for a float argument, an array for a float array); for `polynomial(x)` called with
floats, `srcad.grad(polynomial)` is:

    def grad(*args, **kwargs):
        if not kwargs and REGISTRY.version == 12 and guards_hold():
            if len(args) == 1:
                (x,) = args
                if type(x) is float:
                    try:
                        y, cotangents = gradient_0(x)
                    except Exception:
                        failed(args, kwargs)
                        raise
                    dx = cotangents[1]
                    if type(dx) is float:
                        return dx
                    return finish(y, cotangents, args, kwargs, True)
        return general(args, kwargs)

`guards_hold()` checks the guards of every branch's gradient function at once
(`srcad.guards`: the callees named when they were compiled are still the objects those
names name; one identity test each), and is left out where there are none.

A gradient of another type (a symbolic zero, a NumPy scalar) goes to `finish`, which
checks and materialises it; a gradient function that raises goes to `failed` first, which
raises srcad's error instead where the function's result is no real scalar (the pullback
was seeded for one); from Python 3.11 the `try` costs nothing until something raises.
Every other call (other kinds, keyword arguments, a rule registered since, a guard that
fails) takes the general path, `general`, which compiles what it needs and then adds a
branch: the entry is written again, and its code replaces the code of the same function
object, so what `grad` returned stays the function to call.

Threads: `add` takes a lock; a call never does. A branch's gradient function lives in
the namespace under a name that stays that of its kinds (`gradient_0` is always the one
for the first kinds seen), and names are replaced, never deleted, before the code that
reads them is: a thread still running the previous code calls a gradient for the kinds it
tested.
"""

from __future__ import annotations

import builtins
import keyword
import threading
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.guards import Guards
from srcad.kinds import FLOAT, INT, Kind, Signature, kind_of
from srcad.registry import REGISTRY

REAL = (float, np.float64, np.float32, np.float16)  # what a real scalar result may be
MAX_BRANCHES = 8  # kinds of arguments past these take the general path


class Entry:
    """One entry function: `grad` (`value=False`) or `value_and_grad`, for a function and
    its positions `wrt` (`single`: whether the gradient is one value, not a tuple).

    `general(args, kwargs)` gives the result for any call; `finish(y, cotangents, args,
    kwargs, value_left_out)` the result from what a gradient function gave, in general;
    `failed(args, kwargs)`, called where a gradient function raised, raises the error to
    show instead, if there is one (the function does not return a real scalar).
    """

    def __init__(
        self,
        name: str,
        parameters: list[str],
        positions: tuple[int, ...],
        single: bool,
        value: bool,
        general: Callable[[tuple[Any, ...], dict[str, Any]], Any],
        finish: Callable[..., Any],
        failed: Callable[[tuple[Any, ...], dict[str, Any]], None],
    ) -> None:
        self.name = name
        self.parameters = parameters
        self.positions = positions
        self.single = single
        self.value = value
        # Per kinds: the gradient function, whether it leaves the value out, its guards.
        self.branches: dict[Signature, tuple[Callable[..., Any], bool, Guards]] = {}
        self._slots: dict[Signature, int] = {}  # the number in each kinds' `gradient_{n}`
        self._lock = threading.Lock()
        self.namespace: dict[str, Any] = {
            "REGISTRY": REGISTRY,
            "general": general,
            "finish": finish,
            "failed": failed,
            "kind_of": kind_of,
            "ndarray": np.ndarray,
            "float64": np.dtype(np.float64),
            "REAL": REAL,
        }
        self.version = REGISTRY.version
        self.function = self._written()

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
            if REGISTRY.version != self.version:
                self.branches.clear()
                self.version = REGISTRY.version
            # A branch whose guards fail is compiled again when its kinds come back.
            branches = {k: b for k, b in self.branches.items() if b[2].hold()}
            if kinds not in branches and len(branches) >= MAX_BRANCHES:
                return
            if not self._plain_kinds(kinds):
                return
            slot = self._slots.setdefault(kinds, len(self._slots))
            self.namespace[f"gradient_{slot}"] = gradient
            branches[kinds] = (gradient, value_left_out, guards)
            self.branches = branches
            self.namespace["guards_hold"] = Guards.union(*(b[2] for b in branches.values())).hold
            self.function.__code__ = self._code()

    def _plain_kinds(self, kinds: Signature) -> bool:
        """Whether the plain result for `kinds` is known: a float or float array in each
        position `wrt`."""
        return all(p < len(kinds) and _is_float(kinds[p]) for p in self.positions)

    def source(self) -> str:
        """The entry function's text, as it stands."""
        lines = [f"def {self.name}(*args, **kwargs):"]
        if self.branches:
            guarded = any(guards for _, _, guards in self.branches.values())
            checked = " and guards_hold()" if guarded else ""
            lines.append(f"    if not kwargs and REGISTRY.version == {self.version}{checked}:")
        by_count: dict[int, list[tuple[int, Signature]]] = {}  # branches by argument count
        for kinds in self.branches:
            by_count.setdefault(len(kinds), []).append((self._slots[kinds], kinds))
        for count, group in by_count.items():
            names = self._names(count)
            lines.append(f"        if len(args) == {count}:")
            unpacked = f"({names[0]},)" if count == 1 else ", ".join(names)
            if count:
                lines.append(f"            {unpacked} = args")
            for index, kinds in group:
                lines += self._branch(index, kinds, names)
        lines.append("    return general(args, kwargs)")
        return "\n".join(lines) + "\n"

    def _branch(self, index: int, kinds: Signature, names: list[str]) -> list[str]:
        """The branch calling `gradient_{index}`, for arguments of `kinds`."""
        _, value_left_out, _ = self.branches[kinds]
        tests = [_test(name, kind) for name, kind in zip(names, kinds, strict=True)]
        results = {f"d{names[p]}": p for p in self.positions}  # gradient: its position
        checks = [_result_test(result, kinds[p]) for result, p in results.items()]
        if not value_left_out:
            checks.insert(0, "type(y) in REAL")
        gradient_value = ", ".join(results)
        if not self.single:
            gradient_value = f"({gradient_value},)" if len(results) == 1 else f"({gradient_value})"
        returned = f"y, {gradient_value}" if self.value else gradient_value
        body = [
            f"if {' and '.join(tests) or 'True'}:",
            "    try:",
            f"        y, cotangents = gradient_{index}({', '.join(names)})",
            "    except Exception:",
            "        failed(args, kwargs)",
            "        raise",
            *[f"    {result} = cotangents[{p + 1}]" for result, p in results.items()],
            f"    if {' and '.join(checks) or 'True'}:",  # an empty `wrt` checks nothing
            f"        return {returned}",
            f"    return finish(y, cotangents, args, kwargs, {value_left_out})",
        ]
        return ["            " + line for line in body]

    def _names(self, count: int) -> list[str]:
        """Local names for `count` positional arguments: the parameters' where they are
        free to use."""
        taken = {*self.namespace, "args", "kwargs", "y", "cotangents", "guards_hold"}
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

    def _written(self) -> Any:
        """The entry function, as first written (no branches)."""
        # As `exec` would: without it, every builtin the entry reads is a slow lookup.
        self.namespace["__builtins__"] = builtins.__dict__
        return types.FunctionType(self._code(), self.namespace, self.name)

    def _code(self) -> types.CodeType:
        """The code of the entry function as it stands (compiled, never run: the namespace
        other threads read is left alone)."""
        module = compile(self.source(), f"<srcad entry {self.name}>", "exec")
        for constant in module.co_consts:
            if isinstance(constant, types.CodeType) and constant.co_name == self.name:
                return constant
        raise AssertionError(f"no code object {self.name}")


def _is_float(kind: Kind | None) -> bool:
    return kind is not None and kind[0] == "f"


def _test(name: str, kind: Kind | None) -> str:
    """A Python test of whether the value of `name` has `kind` (the common types only: a
    NumPy scalar, or an array of another byte order, takes the general path)."""
    if kind is None:
        return f"kind_of({name}) is None"
    if kind == FLOAT:
        return f"type({name}) is float"
    if kind == INT:
        return f"type({name}) is int"
    dtype, ndim = kind
    array = f"type({name}) is ndarray and {name}.ndim == {ndim}"
    if dtype == "f":
        return f"{array} and {name}.dtype is float64"
    return f"{array} and {name}.dtype.kind in 'iu'"


def _result_test(name: str, kind: Kind | None) -> str:
    """The plain type of the gradient for an argument of `kind` (a float kind): a float,
    or a float64 array (the code may compute an int array, `d(x * n)/dx` for int `n`)."""
    if kind == FLOAT:
        return f"type({name}) is float"
    return f"type({name}) is ndarray and {name}.dtype is float64"

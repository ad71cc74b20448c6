"""Whether a cached function (`functools.lru_cache`, `functools.cache`) may return a result
its source no longer computes.

srcad differentiates a cached function through the function behind it
(`source.differentiated_function`): the gradient calls the function itself and neither
reads nor fills the cache. That is Python's value only while the cache's results are what
the function computes now, so only where the function reads nothing that can change
between calls but its arguments: where it reads a value of its module (a number, an array,
a list, an instance: `SCALE = 3.0` rebinds what it reads), of a closure cell, or a mutable
default, directly or through the functions of the user's modules it names, a result cached
before the change is what Python returns, and srcad's value and derivative would be of
another computation, with no error. Such a cached function is refused where it is called
(`Compiler._refusal`, the E210 of its call) or differentiated (`callables.callee`).
Modules, functions, classes and the attributes of library modules (`np.pi`) count as
unchanging.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

_LIBRARIES = frozenset({"numpy", "scipy", "srcad"}) | frozenset(sys.stdlib_module_names)


def stale_cache(callee: Any) -> str | None:
    """Why srcad refuses to differentiate `callee`, a cached function whose cache may hold
    results its source no longer computes; None for anything else."""
    if not isinstance(callee, functools._lru_cache_wrapper):
        return None
    varying = _varying(callee.__wrapped__)
    if not varying:
        return None
    names = ", ".join(f"`{n}`" for n in sorted(varying)[:4])
    return (
        f"it is a cached function (`functools.lru_cache`) that reads {names}, which may "
        "change between calls while its cache keeps results computed before (Python returns "
        "those); differentiate the function itself (`.__wrapped__`), or pass those values "
        "as arguments"
    )


def _varying(start: Any) -> set[str]:
    """The names of values that `start` (and the user functions it names) reads and that
    may change between calls."""
    found: set[str] = set()
    seen: set[int] = set()
    pending = [start]
    while pending:
        value = pending.pop()
        while isinstance(value, functools._lru_cache_wrapper):
            value = value.__wrapped__
        if not isinstance(value, types.FunctionType) or id(value) in seen:
            continue
        seen.add(id(value))
        names = _names(value.__code__)
        space = value.__globals__
        for name in names:
            if name in space:
                _classify(name, space[name], names, found, pending)
        cells = zip(value.__code__.co_freevars, value.__closure__ or (), strict=False)
        for name, cell in cells:
            try:
                contents = cell.cell_contents
            except ValueError:
                continue
            _classify(name, contents, names, found, pending)
        for default in value.__defaults__ or ():
            if isinstance(default, list | dict | set) or hasattr(default, "__array__"):
                found.add(f"a default of {value.__name__}")
    return found


def _classify(name: str, value: Any, names: set[str], found: set[str], pending: list[Any],
              bound: bool = False) -> None:  # fmt: skip
    """Add `name` to `found` where `value` may change between calls (`bound`: an argument
    a partial holds, which changes only in place); queue the user functions (and the
    attributes of user modules) it leads to."""
    if isinstance(value, types.ModuleType):
        if _user_module(value):  # `config.SCALE`: rebound as a global is
            for attribute in names & set(vars(value)):
                _classify(f"{name}.{attribute}", vars(value)[attribute], set(), found, pending)
        return
    if isinstance(value, types.FunctionType | functools._lru_cache_wrapper):
        module = getattr(value, "__module__", None) or ""
        if module.split(".")[0] not in _LIBRARIES:
            pending.append(value)
        return
    if isinstance(value, functools.partial):
        pending.append(value.func)
        for argument in [*value.args, *value.keywords.values()]:
            _classify(name, argument, set(), found, pending, bound=True)
        return
    if isinstance(value, type) or (callable(value) and not hasattr(value, "__dict__")):
        return  # a class, a builtin, a ufunc
    if bound and isinstance(value, int | float | complex | str | bytes | tuple):
        return  # fixed with the partial
    found.add(name)


def _user_module(module: types.ModuleType) -> bool:
    return module.__name__.split(".")[0] not in _LIBRARIES


def _names(code: types.CodeType) -> set[str]:
    """The global and attribute names `code` and the code nested in it name."""
    found: set[str] = set()
    pending = [code]
    while pending:
        current = pending.pop()
        found.update(current.co_names)
        pending += [c for c in current.co_consts if isinstance(c, types.CodeType)]
    return found

"""Pickling by reference: the functions srcad makes are named by the call that makes them.

`pickle` saves a function by reference, as its module and qualified name, and refuses one
that this name does not find. The gradient functions `srcad.grad` returns (and those of
`value_and_grad`, `jacobian`, `hessian`, ...) are made at run time and bound to no name of
their module, so srcad names them in this module, by the call that makes them:

    g = srcad.grad(model.loss, wrt=("w", "b"))
    g.__module__, g.__qualname__ == "srcad.pickling", "grad('model:loss', wrt=('w', 'b'))"

The name is that call's text, with the function it differentiates written as
`'module:qualname'` (the dots of both written `/`, since `pickle` reads a dot as an
attribute step), so that unpickling it in another process (`multiprocessing`'s workers,
joblib's) makes the same gradient there, once per process: `__getattr__` below reads the
call back, imports the function's module, and calls the maker. In the process that made
the function, the name finds that very function (pickle checks it does). A function
differentiated that no name of its module finds (a lambda, a function defined inside
another) gets no such name, and pickle refuses it as it refuses the function itself.

The function's module must be importable by the worker: `multiprocessing`'s workers
import a script run as `__main__` again, but joblib's (loky's) do not, so a gradient of a
script's own function goes to joblib only from a module the script imports.
"""

from __future__ import annotations

import ast
import importlib
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

from srcad.source import differentiated_function

# What makes each kind of function: `srcad.api` adds `grad`, `jacobian`, ... (a maker
# takes the function and keyword options, all literals).
MAKERS: dict[str, Callable[..., Any]] = {}

# The named functions of this process. Those made here are held weakly (they live as long
# as their user keeps them); those made by unpickling strongly, so that every task a worker
# unpickles calls the gradient compiled for the first.
_made: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
_unpickled: dict[str, Any] = {}
_lock = threading.Lock()
_counts: dict[str, int] = {}  # per call: how many functions it has made in this process


def name(function: Any, maker: str, target: Any, **options: Any) -> None:
    """Name `function`, made by `MAKERS[maker](target, **options)`, in this module, where
    `target` can be referred to (`reference`). `options` are literals (`wrt` as names)."""
    target_text = reference(target)
    if target_text is None:
        return
    arguments = [target_text, *(f"{key}={value!r}" for key, value in options.items())]
    call = f"{maker}({', '.join(arguments)})"
    key = call.replace(".", "/")
    with _lock:
        if _made.get(key) is not None or key in _unpickled:
            # Another function made by the same call, still alive: told apart by a count.
            _counts[call] = _counts.get(call, 1) + 1
            key = f"{call}  # {_counts[call]}".replace(".", "/")
        _made[key] = function
    function.__module__ = __name__
    function.__qualname__ = key


def reference(target: Any) -> str | None:
    """The text of `target` in a name: `'module:qualname'` where its module's attribute of
    that name is `target` (or a wrapper of it srcad sees through, a `@differentiate`
    function), or the call that made it (a function this module named); else None."""
    if getattr(target, "__module__", None) == __name__:
        key = getattr(target, "__qualname__", "")
        return key.split("  # ")[0].replace("/", ".") if _made.get(key) is target else None
    module = getattr(target, "__module__", None)
    qualname = getattr(target, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    found = _attribute(module, qualname)
    if found is None or differentiated_function(found) is not differentiated_function(target):
        return None
    return repr(f"{module}:{qualname}")


def found_by_name(obj: Any) -> bool:
    """Whether `obj`'s module binds its qualified name to `obj` itself."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return (
        isinstance(module, str)
        and isinstance(qualname, str)
        and (_attribute(module, qualname) is obj)
    )


def _attribute(module: str, qualname: str) -> Any:
    """What `module.qualname` names, if the module is imported and it names something."""
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


def __getattr__(key: str) -> Any:
    """The function named `key`: the one made in this process, or made now by the call the
    key spells (what unpickling it in another process asks for)."""
    if key.startswith("__"):
        raise AttributeError(key)  # `__path__`, `__wrapped__`, ...: asked of every module
    found = _made.get(key)
    if found is None:
        found = _unpickled.get(key)
    if found is None:
        try:
            expression = ast.parse(key.split("  # ")[0].replace("/", "."), mode="eval").body
        except SyntaxError:
            raise AttributeError(key) from None
        found = _unpickled.setdefault(key, _made_by(expression, key))
    return found


def _made_by(node: ast.expr, key: str) -> Any:
    """Make what the call `node` (of a maker, on a `'module:qualname'` or a call) makes."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and ":" in node.value:
        module, qualname = node.value.split(":")
        importlib.import_module(module)
        found = _attribute(module, qualname)
        if found is None:
            raise AttributeError(f"{key}: {module} has no {qualname}")
        return found
    if (
        not isinstance(node, ast.Call)
        or not isinstance(node.func, ast.Name)
        or node.func.id not in MAKERS
        or len(node.args) != 1
    ):
        raise AttributeError(f"{key}: not the name of a function srcad makes")
    options = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    return MAKERS[node.func.id](_made_by(node.args[0], key), **options)

"""Where a NumPy call takes the array it writes its result into, `out`, by position:
`np.multiply(a, b, c)` writes `a * b` into `c` as `np.multiply(a, b, out=c)` does, and
`np.clip(a, lo, hi, c)`, `np.sum(a, 0, None, c)`, `a.clip(lo, hi, c)`, `a.round(2, c)` and
`np.add.reduce(a, 0, None, c)` likewise. The mutation check refuses such a call as it refuses
`out=` (E304: `passes/checks/mutations.py`); where the function or the arguments are known
only when the call runs (an array's method, a partial, `f(*args)`), the rules of array
methods and of unpacked calls, `primitives.unpacked_call` and the guard `changes_nothing`
refuse it then.

    >>> positional_out(np.multiply), positional_out(np.clip), positional_out(np.dot)
    (2, 3, 2)
    >>> positional_out(np.ones(2).clip), positional_out(np.add.reduce), positional_out(len)
    (2, 3, None)
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Any

import gast
import numpy as np

from srcad.errors import MutationError

# An array method's `out`, counted after the receiver (`a.sum(axis, dtype, out)`); NumPy's
# methods are C functions with no signature to read.
_ARRAY_METHOD_OUT = {
    "sum": 2, "prod": 2, "mean": 2, "std": 2, "var": 2, "cumsum": 2, "cumprod": 2,
    "clip": 2, "take": 2, "compress": 2, "max": 1, "min": 1, "argmax": 1, "argmin": 1,
    "round": 1, "dot": 1, "choose": 1, "any": 1, "all": 1, "ptp": 1, "trace": 4,
}  # fmt: skip

# A ufunc's methods that take `out` by position (`outer` and `at` take none).
_UFUNC_METHOD_OUT = {"reduce": 3, "accumulate": 3, "reduceat": 4}

# NumPy's C functions whose `out` is positional, where NumPy 2.2 gives no signature.
_C_FUNCTION_OUT = {"dot": 2, "concatenate": 2}

# What the signatures of NumPy's Python functions said (read once each).
_SIGNATURE_OUT: dict[Any, int | None] = {}


def positional_out(callee: Any) -> int | None:
    """The position of `callee`'s `out` among its positional arguments, where it is a NumPy
    function, ufunc (its outputs follow its `nin` inputs), or a bound method of an array or
    a ufunc that takes one there; None for anything else."""
    if isinstance(callee, np.ufunc):
        return callee.nin
    owner, name = getattr(callee, "__self__", None), getattr(callee, "__name__", None)
    if isinstance(owner, np.ndarray | np.generic) and isinstance(name, str):
        return _ARRAY_METHOD_OUT.get(name)
    if isinstance(owner, np.ufunc) and isinstance(name, str):
        return _UFUNC_METHOD_OUT.get(name)
    if not callable(callee) or not (getattr(callee, "__module__", None) or "").startswith("numpy"):
        return None
    try:
        return _SIGNATURE_OUT[callee]
    except (KeyError, TypeError):  # (TypeError: unhashable)
        pass
    try:
        parameters = list(inspect.signature(callee).parameters.values())
    except (TypeError, ValueError):  # a C function (np.dot on NumPy 2.2)
        return _C_FUNCTION_OUT.get(str(name)) if callee is getattr(np, str(name), None) else None
    found = None
    for position, parameter in enumerate(parameters):
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            break
        if parameter.name == "out" and parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            found = position
            break
    with contextlib.suppress(TypeError):
        _SIGNATURE_OUT[callee] = found
    return found


def out_positions(callee: Any) -> range:
    """The positions of `callee`'s outputs among its positional arguments (a ufunc's `nout`
    of them, after its inputs); none where it takes none there."""
    position = positional_out(callee)
    if position is None:
        return range(0)
    return range(position, position + (callee.nout if isinstance(callee, np.ufunc) else 1))


def out_arguments(node: gast.Call, callee: Any) -> list[tuple[gast.expr, str]]:
    """The arguments of the call `node` of `callee` that name the array its result is
    written into, each with how the diagnostic says so: `out=`, or the positional argument
    in its place (`np.multiply(a, b, c)`), a literal None (no array) left out."""
    found = [(k.value, "`out=`") for k in node.keywords if k.arg == "out"]
    if any(isinstance(a, gast.Starred) for a in node.args[: out_positions(callee).stop]):
        return found  # (`primitives.unpacked_call` counts them when the call runs)
    name = getattr(callee, "__name__", "this function")
    for i in out_positions(callee):
        if i < len(node.args) and not _none(node.args[i]):
            found.append((node.args[i], f"argument {i + 1} of `{name}`, its `out`,"))
    return found


def _none(node: gast.expr) -> bool:
    return isinstance(node, gast.Constant) and node.value is None


def passed(node: gast.Call) -> tuple[Any, ...]:
    """What the guard of the call `node` knows of its positional arguments: None for a
    literal None, else True; many of them where one is starred."""
    if any(isinstance(a, gast.Starred) for a in node.args):
        return (True,) * 64
    return tuple(None if _none(a) else True for a in node.args)


def refuse_positional_out(callee: Any, arguments: tuple[Any, ...]) -> None:
    """A `MutationError` where `callee`, known only when the call runs, is called with
    positional `arguments` (or `passed`'s markers of them) that reach its `out`
    (`a.clip(lo, hi, c)`): NumPy writes into `c` in place, which the derivative would not
    see. A `functools.partial`'s own arguments come first."""
    while isinstance(callee, functools.partial):
        arguments = (*callee.args, *arguments)
        callee = callee.func
    if len(arguments) < 2:  # (no function takes its `out` first)
        return
    for i in out_positions(callee):
        if i < len(arguments) and arguments[i] is not None:
            name = getattr(callee, "__name__", "this method")
            owner = getattr(callee, "__self__", None)
            dot = "." if isinstance(owner, np.ndarray | np.generic) else ""
            raise MutationError(
                f"`{dot}{name}(...)` is passed its `out` by position (argument {i + 1}), "
                "which writes the result into an existing array in place; srcad cannot "
                "differentiate that: use the returned value"
            )

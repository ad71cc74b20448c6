"""Several tangents pushed forward in one call of a generated forward rule: what
`jacobian(f, mode="forward")` does where the rule allows it, one call for all the columns
of an array argument's block rather than one call each: for 8 directions or more, the
directions as a trailing axis of the tangents; for fewer, the rule written for that many
directions, each tangent statement once per direction on numbers
(`passes/transforms/directions.py`)."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.callables import callee, padded
from srcad.defaults import COMPILER
from srcad.entry_rules import entry_rules
from srcad.errors import SrcadError
from srcad.kinds import signature
from srcad.requests import Request
from srcad.source import differentiated_function
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

# The fewest directions pushed forward together as a trailing axis. A tangent of a number
# then becomes an array of directions, and each operation on it a NumPy call (about a
# microsecond) where each direction's was a float operation (tens of nanoseconds): below
# about 8 directions, float arithmetic per direction is faster. Measured: for the Lorenz
# system's 3 directions, one call per direction takes half the time of one call for all;
# for a two-statement loop over 8 elements, twice the time. Below it, the rule written for
# that many directions (`passes/transforms/directions.py`): for the Lorenz system, 0.7 of
# the time of one call per direction.
FEWEST = 8


def batched_columns(func: Callable[..., Any], args: tuple[Any, ...], position: int) -> Any:
    """The Jacobian of `func` with respect to argument `position`, a float64 array `x`, of
    shape `y.shape + x.shape`, from one call of `func`'s forward rule given the tangent
    `x_dot` of shape `(*x.shape, x.size)`, the identity: its trailing axis holds the
    directions, one per element of `x`. Only a rule that allows such tangents
    (`ForwardAD.batches`: arithmetic with numbers, elements of vectors, lists of them)
    is called so; None for any other, or where the result is not a real array or number
    with a tangent of the shape expected (the caller pushes forward one column at a
    time)."""
    x = args[position]
    if not (isinstance(x, np.ndarray) and x.dtype == np.float64 and x.size > 1):
        return None
    function = callee(func).function
    if not isinstance(function, types.FunctionType) or not _from_source(function):
        return None
    call = callee(func)
    full_args, keywords = call.arguments(args, {})
    request = Request.frule(signature(full_args))
    if x.size < FEWEST:  # written for that many directions only where the rule `batches`
        request = Request.frule(request.signature, x.size)
    try:
        rule = COMPILER.compiled(function, COMPILER.wrt_for(function, full_args, request), request)
    except SrcadError:  # one column at a time, through `jvp`, which says why
        return None
    if x.size < FEWEST:
        if rule.directions != x.size:
            return None
        return _unrolled(rule.function, call, function, args, full_args, keywords, position)
    if not rule.batches:
        return None
    directions = np.eye(x.size).reshape((*x.shape, x.size))
    tangents: list[Any] = [ZeroTangent()] * len(args)
    tangents[position] = directions
    dargs = padded(call.tangents((NoTangent(), *tangents)), function)
    try:
        y, y_dot = rule.function(dargs, *full_args, **keywords)
    except (TypeError, ValueError):  # tangents that do not stack: one column at a time
        return None
    y_dot = unthunk(y_dot)
    shape = np.shape(y)
    real = isinstance(y, float | np.floating) or (isinstance(y, np.ndarray) and y.dtype.kind == "f")
    if not real:
        return None
    if isinstance(y_dot, AbstractZero):
        return np.zeros(shape + x.shape)
    if not isinstance(y_dot, np.ndarray) or y_dot.shape != (*shape, x.size):
        return None
    return y_dot.reshape(shape + x.shape)


def _unrolled(rule: Callable[..., Any], call: Any, function: types.FunctionType,
              args: tuple[Any, ...], full_args: tuple[Any, ...], keywords: dict[str, Any],
              position: int) -> Any:  # fmt: skip
    """The block of `batched_columns` from `rule`, the forward rule written for `x.size`
    directions: given a tangent tuple per direction (the `i`th a basis array, its `i`th
    element 1), it gives `(y, (y_dot_0, y_dot_1, ...))`. None where a tangent is not a real
    number or array of `y`'s shape."""
    x = args[position]
    basis = np.eye(x.size).reshape((x.size, *x.shape))  # the `i`th direction: `basis[i]`
    tangents: list[Any] = [NoTangent(), *[ZeroTangent()] * len(args)]
    each = []
    for direction in basis:
        tangents[position + 1] = direction
        each.append(padded(call.tangents(tuple(tangents)), function))
    y, y_dots = rule(tuple(each), *full_args, **keywords)
    shape = np.shape(y)
    if not _real(y):
        return None
    block = np.zeros((*shape, x.size))
    for index, y_dot in enumerate(map(unthunk, y_dots)):
        if isinstance(y_dot, AbstractZero):
            continue
        if not _real(y_dot) or np.shape(y_dot) != shape:
            return None
        block[..., index] = y_dot
    return block.reshape(shape + x.shape)


def _real(value: Any) -> bool:
    """A real number or array."""
    return isinstance(value, float | np.floating) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "f"
    )


def _from_source(function: types.FunctionType) -> bool:
    """Whether `jvp` differentiates `function` from its own source: no rule registered for
    it (which `jvp` calls instead), no refusal, not a function srcad returned or one that
    wraps another (`forward_entry.ForwardDispatcher._compile_branch` tests the same)."""
    registry = COMPILER.registry
    return not (
        entry_rules(COMPILER, function) is not None
        or registry.frule_for(function) is not None
        or registry.rrule_for(function) is not None
        or registry.refusal(function) is not None
        or differentiated_function(function) is not function
        or hasattr(function, "__wrapped__")
    )

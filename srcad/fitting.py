"""Whether a tangent or cotangent fits its value: what srcad checks where one comes from
outside its own rules (a user's registered rule, a seed passed to `vjp` or `jvp`).

srcad's own rules are proved to give tangents of the right shape by their tests; a user's
rule, or a seed, is checked when it is used, and refused with a `TangentShapeError` that
names the rule (its file and line) and the argument. Only these are checked, so the
library's rules and the code srcad generates pay nothing.

A cotangent of an argument must have the argument's shape, or a shape the argument
broadcasts to (`ProjectTo` sums it back: broadcasting undone, as the README promises), or
be a scalar standing for an array filled with it. A tangent of a result, and a seed, must
have its value's shape exactly. Symbolic zeros fit anything; thunks are checked when
computed; tuples and lists element by element; other structures are not checked.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.errors import TangentShapeError
from srcad.projection import ProjectTo
from srcad.tangents import AbstractZero, NotImplementedTangent, Tangent, Thunk

_NUMBERS = (float, int, complex, bool, np.ndarray, np.generic)
# The primals whose cotangents `ProjectTo` projects: numbers and arrays.
_PROJECTED = ("float", "complex", "scalar", "array", "none")


def _shape(value: Any) -> tuple[int, ...] | None:
    """The shape of a number or array; None for anything else."""
    return np.shape(value) if isinstance(value, _NUMBERS) else None


def _elements(tangent: Any) -> tuple[Any, ...] | None:
    """The elements of a tuple or list tangent (a tuple's `Tangent` too), else None."""
    if isinstance(tangent, tuple | list):
        return tuple(tangent)
    if isinstance(tangent, Tangent) and tangent.primal_type is tuple and not tangent.fields:
        return tuple(tangent.elements)
    return None


def misfit(tangent: Any, value: Any, cotangent: bool) -> str | None:
    """Why `tangent` cannot be a tangent (or, with `cotangent`, a cotangent) of `value`;
    None where it fits (or is not checked)."""
    if isinstance(tangent, AbstractZero | NotImplementedTangent | Thunk):
        return None
    value_shape, shape = _shape(value), _shape(tangent)
    if value_shape is not None and shape is not None:
        if shape == value_shape or (cotangent and _undoes_broadcasting(value_shape, shape)):
            return None
        wanted = "its shape, one it broadcasts to, or a scalar" if cotangent else "its shape"
        return (
            f"has shape {shape} for a {type(value).__name__} of shape {value_shape} "
            f"(a {'co' if cotangent else ''}tangent must have {wanted})"
        )
    if isinstance(value, tuple | list):
        elements = _elements(tangent)
        if elements is None:
            return None
        if len(elements) != len(value):
            return f"has {len(elements)} elements for a {type(value).__name__} of {len(value)}"
        for index, (element, part) in enumerate(zip(elements, value, strict=True)):
            problem = misfit(element, part, cotangent)
            if problem is not None:
                return f"at element {index} {problem}"
    return None


def _undoes_broadcasting(value_shape: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """Whether a cotangent of `shape` projects onto a value of `value_shape`: a scalar, or
    a shape the value broadcasts to (summed back over the stretched axes)."""
    if shape == ():
        return True
    try:
        return np.broadcast_shapes(value_shape, shape) == shape
    except ValueError:
        return False


def describe_rule(rule: Callable[..., Any]) -> str:
    """A user's rule, as a message names it: its name, file and line."""
    function = getattr(rule, "configured_rule", rule)  # the user's, under `with_config`
    code = getattr(function, "__code__", None)
    name = getattr(function, "__qualname__", None) or repr(function)
    if code is None:
        return name
    return f"{name} ({code.co_filename}:{code.co_firstlineno})"


def _parameter(rule: Callable[..., Any], position: int, offset: int) -> str:
    """`argument 1 (`x`)`: an argument of the rule's primal, by position and, where the
    rule's signature says, by name (`offset` parameters come before the arguments)."""
    try:
        parameters = list(inspect.signature(getattr(rule, "configured_rule", rule)).parameters)
        name = parameters[position + offset]
        if name.startswith("*"):
            raise IndexError
    except (TypeError, ValueError, IndexError):
        return f"argument {position}"
    return f"argument {position} (`{name}`)"


def checked_cotangent(cotangent: Any, value: Any, where: Callable[[str], TangentShapeError]) -> Any:
    """`cotangent`, projected onto `value`'s space if it fits; else the error `where` makes
    of the problem. A thunk is checked when it is computed."""
    if isinstance(cotangent, Thunk):
        return Thunk(lambda: checked_cotangent(cotangent.unthunk(), value, where))
    problem = misfit(cotangent, value, cotangent=True)
    if problem is not None:
        raise where(problem)
    project = ProjectTo(value)
    return project(cotangent) if project.kind in _PROJECTED else cotangent


def check_rrule_cotangents(
    rule: Callable[..., Any], args: tuple[Any, ...], cotangents: Any, instance_call: bool = False
) -> tuple[Any, ...]:
    """The cotangents a user's pullback returned for a call with `args`, checked (one for
    the function, then one per positional argument, each fitting its argument) and
    projected onto the arguments' spaces. A rule for calling an instance (`instance_call`)
    takes the instance first and returns its cotangent in the function's place."""
    offset = 1 if hasattr(rule, "configured_rule") else 0  # the RuleConfig comes first
    if instance_call:
        args, offset = args[1:], offset + 1
    if not isinstance(cotangents, tuple | list) or len(cotangents) != len(args) + 1:
        count = len(cotangents) if isinstance(cotangents, tuple | list) else "no tuple of"
        raise TangentShapeError(
            f"the pullback of {describe_rule(rule)} returned {count} cotangents for a call "
            f"with {len(args)} positional argument(s): a pullback returns one for the "
            "function, then one per positional argument (`NoTangent()` where there is none)"
        )
    checked = [cotangents[0]]
    for position, (value, cotangent) in enumerate(zip(args, cotangents[1:], strict=True)):

        def where(problem: str, position: int = position) -> TangentShapeError:
            return TangentShapeError(
                f"the pullback of {describe_rule(rule)} returned a cotangent for "
                f"{_parameter(rule, position, offset)} that {problem}"
            )

        checked.append(checked_cotangent(cotangent, value, where))
    return tuple(checked)


def check_frule_tangent(rule: Callable[..., Any], y: Any, y_dot: Any) -> None:
    """The tangent a user's forward rule returned must fit its result."""
    if isinstance(y_dot, Thunk):
        return  # checked where it is computed, by whoever reads it
    problem = misfit(y_dot, y, cotangent=False)
    if problem is not None:
        raise TangentShapeError(
            f"the forward rule {describe_rule(rule)} returned a tangent that {problem}"
        )


def check_seed(what: str, seed: Any, value: Any) -> None:
    """A seed passed to `vjp` (a cotangent of the result) or `jvp` (a tangent of an
    argument) must have its value's shape."""
    if isinstance(seed, Thunk):
        seed = seed.unthunk()
    problem = misfit(seed, value, cotangent=False)
    if problem is not None:
        raise TangentShapeError(f"{what} {problem}")

"""Rules built from partial derivatives (`RuleSet.scalar`, `srcad.scalar_rule`), and the
naming of generated functions that rules share: written as plain code, so that srcad
differentiates them in turn for second derivatives."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import CodeType
from typing import Any

import numpy as np

from srcad.partials import strong_product
from srcad.projection import SEQUENCES, ProjectTo, array_operand, conj, expand, operand_tangent
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

RuleFn = Callable[..., Any]


def named(fn: RuleFn, name: str, **inner: str) -> RuleFn:
    """Give a generated function its own name, also in tracebacks (which read the code).

    `inner` names the functions `fn` defines each time it runs, by their names in its
    source: `named(rrule, "sin_rrule", pullback="sin_pullback")` names every pullback the
    rule returns, once, rather than a pullback at each call.
    """
    code = _renamed(fn.__code__, name)
    if inner:
        constants = list(code.co_consts)
        for position, constant in enumerate(constants):
            if isinstance(constant, CodeType) and constant.co_name in inner:
                new_name = inner[constant.co_name]
                constants[position] = _renamed(constant, new_name)
                # Before 3.11 a function takes its qualified name from the string after
                # its code (`rrule.<locals>.pullback`), not from the code.
                after = constants[position + 1] if position + 1 < len(constants) else None
                if isinstance(after, str) and after.endswith(f"<locals>.{constant.co_name}"):
                    constants[position + 1] = new_name
        code = code.replace(co_consts=tuple(constants))
    fn.__code__ = code
    fn.__name__ = fn.__qualname__ = name
    return fn


def _renamed(code: CodeType, name: str) -> CodeType:
    code = code.replace(co_name=name)
    if sys.version_info >= (3, 11):
        code = code.replace(co_qualname=name)
    return code


def primal_name(primal: Any) -> str:
    """The short name rules and generated code use for a primal function."""
    return str(getattr(primal, "__name__", type(primal).__name__)).strip("_<>") or "call"


def scalar_rrule(primal: Any, *partials: Callable[..., Any], name: str = "") -> RuleFn:
    """Build a named reverse rule from partial derivatives; see `RuleSet.scalar`."""
    name = name or primal_name(primal)
    # A ufunc reads a list or tuple operand as an array: its partials and projections too.
    operands = isinstance(primal, np.ufunc)
    if len(partials) == 1:
        (d_x,) = partials

        def rrule1(x: Any) -> tuple[Any, RuleFn]:
            y = primal(x)
            if operands:
                x = array_operand(x)
            project_x = ProjectTo(x)

            def pullback(y_bar: Any) -> tuple[Any, Any]:
                return NoTangent(), project_x(strong_product(conj(d_x(x, y)), y_bar))

            return y, pullback

        return named(rrule1, f"{name}_rrule", pullback=f"{name}_pullback")
    if len(partials) == 2:
        d_a, d_b = partials

        def rrule2(a: Any, b: Any) -> tuple[Any, RuleFn]:
            y = primal(a, b)
            if operands:
                a, b = array_operand(a), array_operand(b)
            project_a = ProjectTo(a)
            project_b = ProjectTo(b)

            def pullback(y_bar: Any) -> tuple[Any, Any, Any]:
                return (
                    NoTangent(),
                    project_a(strong_product(conj(d_a(a, b, y)), y_bar)),
                    project_b(strong_product(conj(d_b(a, b, y)), y_bar)),
                )

            return y, pullback

        return named(rrule2, f"{name}_rrule", pullback=f"{name}_pullback")
    return _scalar_rrule_n(primal, partials, name, operands)  # any other number


def scalar_frule(primal: Any, *partials: Callable[..., Any], name: str = "") -> RuleFn:
    """Build a named forward rule from partial derivatives: `y_dot = sum(d_i * x_i_dot)`.
    A ufunc's list or tuple operand is read as the array of its elements, its tangent as
    the array of theirs (`array_operand`, `operand_tangent`, linear: rules of their own)."""
    name = name or primal_name(primal)
    operands = isinstance(primal, np.ufunc)
    if len(partials) not in (1, 2):
        return _scalar_frule_n(primal, partials, name, operands)

    # Written as plain code (no closure made per call) so that srcad can differentiate the
    # forward rule itself: reverse mode over forward mode gives second derivatives.
    if len(partials) == 1:
        (d_x,) = partials

        def frule1(dargs: tuple[Any, ...], x: Any) -> tuple[Any, Any]:
            y = primal(x)
            x_dot = unthunk(dargs[1])
            if operands and isinstance(x, SEQUENCES):
                x_dot = operand_tangent(x_dot, x)
                x = array_operand(x)
            if isinstance(x_dot, AbstractZero):
                return y, ZeroTangent()
            return y, strong_product(d_x(x, y), x_dot)

        return named(frule1, f"{name}_frule")
    d_a, d_b = partials

    def frule2(dargs: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, Any]:
        y = primal(a, b)
        a_dot = unthunk(dargs[1])
        b_dot = unthunk(dargs[2])
        if operands and isinstance(a, SEQUENCES):
            a_dot = operand_tangent(a_dot, a)
            a = array_operand(a)
        if operands and isinstance(b, SEQUENCES):
            b_dot = operand_tangent(b_dot, b)
            b = array_operand(b)
        y_dot: Any = ZeroTangent()
        if not isinstance(a_dot, AbstractZero):
            y_dot = strong_product(d_a(a, b, y), a_dot)
        if not isinstance(b_dot, AbstractZero):
            y_dot = y_dot + strong_product(d_b(a, b, y), b_dot)
        # The tangent of an array with a float's partial (`np.add`'s 1.0) and tangent alone
        # is a float: the array's shape, filled with it.
        return y, expand(y_dot, y)

    return named(frule2, f"{name}_frule")


def _scalar_rrule_n(
    primal: Any, partials: tuple[Callable[..., Any], ...], name: str, operands: bool
) -> RuleFn:
    """`scalar_rrule` for three arguments or more."""
    if not partials:
        raise ValueError("a scalar rule takes a partial derivative for each argument")
    arity = len(partials)

    def rrule_n(*args: Any) -> tuple[Any, RuleFn]:
        _check_arity(name, args, arity)
        y = primal(*args)
        if operands:
            args = tuple(array_operand(a) for a in args)
        projections = [ProjectTo(a) for a in args]

        def pullback(y_bar: Any) -> tuple[Any, ...]:
            bars = [
                project(strong_product(conj(d(*args, y)), y_bar))
                for d, project in zip(partials, projections, strict=True)
            ]
            return (NoTangent(), *bars)

        return y, pullback

    return named(rrule_n, f"{name}_rrule", pullback=f"{name}_pullback")


def _scalar_frule_n(
    primal: Any, partials: tuple[Callable[..., Any], ...], name: str, operands: bool
) -> RuleFn:
    """`scalar_frule` for three arguments or more, written as plain code too: srcad
    differentiates it in turn, for second derivatives."""
    if not partials:
        raise ValueError("a scalar rule takes a partial derivative for each argument")
    arity = len(partials)

    def frule_n(dargs: tuple[Any, ...], *args: Any) -> tuple[Any, Any]:
        _check_arity(name, args, arity)
        y = primal(*args)
        if operands:
            dargs = (
                dargs[0],
                *[operand_tangent(d, a) for d, a in zip(dargs[1:], args, strict=True)],
            )
            args = tuple(array_operand(a) for a in args)
        y_dot: Any = ZeroTangent()
        for d, dot in zip(partials, dargs[1:], strict=True):
            dot = unthunk(dot)
            if not isinstance(dot, AbstractZero):
                y_dot = y_dot + strong_product(d(*args, y), dot)
        return y, expand(y_dot, y)

    return named(frule_n, f"{name}_frule")


def _check_arity(name: str, args: tuple[Any, ...], arity: int) -> None:
    if len(args) != arity:
        raise TypeError(f"{name} takes {arity} arguments ({arity} partials), not {len(args)}")

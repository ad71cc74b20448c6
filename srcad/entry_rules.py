"""The rules of the functions `grad` and `value_and_grad` return: srcad differentiates its
own output.

Such a function is an entry function (`srcad/entry.py`), generated code that dispatches
to gradient functions; its text is no definition srcad could differentiate. What it stands
for is the gradient `g = ∂f/∂x_p` of the user's `f` with respect to the positions `p` of
its `wrt`, and every derivative of that is a Hessian product `H @ t` (`t` a tangent for
each argument): the reverse rule of `f`'s generated forward rule, seeded with 1.0 on the
output tangent, gives `∂/∂x_i (∇f · t) = Σ_j H[i, j] t_j` for every argument `x_i` at
once, the same route `srcad.hessian` takes (mixed partials commute: `f` twice continuously
differentiable). So

- the forward rule of `g` with tangents `t` gives `(H @ t)[p]`, and for `value_and_grad`
  the value's tangent `∇f · t` too (the forward rule's own output tangent);
- the reverse rule of `g` takes the cotangent `ḡ` of each gradient as the tangent `t_p`
  of its argument, and gives `H @ t` (H is symmetric), plus `ȳ ∇f` for `value_and_grad`'s
  value (the seed of the forward rule's output).

Both serve every way to ask: `jvp`, `jacobian` in either mode, `vjp`, `rrule`, `frule`,
and a call of `grad(f)` inside a function srcad differentiates (`Compiler.callee_rule`).
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import numpy as np

from srcad.callables import Call, check_tangents, padded
from srcad.callables import callee as callee_of
from srcad.errors import SrcadError
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    ZeroTangent,
    elements_of,
    materialize,
    unthunk,
)

DISPATCHER = "srcad_dispatcher"  # the attribute of an entry function naming its Dispatcher
# The attribute of every other derivative function srcad returns (`jacobian`, `hessian`,
# `grad` of a gradient, ...): `(f, positions, kind)`, the function, the arguments it is a
# derivative of `f` with respect to (innermost first) and its kind; None where it cannot be
# differentiated in turn (a tuple `wrt`). Such a function is never differentiated from
# its own source (`Compiler.compiled` refuses it): only through rules from here.
DERIVATIVE = "srcad_derivative_of"
# Its kind: `JACOBIAN`, the array of the derivatives of that order (`jacobian`, `hessian`);
# `GRADIENT`, the gradient of the directional derivative (`grad` of a gradient).
JACOBIAN, GRADIENT = "jacobian", "gradient"


def entry_rules(compiler: Any, f: Any) -> EntryRules | DerivativeRules | None:
    """The rules of `f` if it is an entry function srcad wrote or another derivative
    function it returned, else None. (`compiler`, a `srcad.compiler.Compiler`, imports
    this module: named here, it would be a cycle.)"""
    if not isinstance(f, types.FunctionType):
        return None
    dispatcher = f.__dict__.get(DISPATCHER)
    if dispatcher is not None:
        return EntryRules(compiler, dispatcher)
    if DERIVATIVE in f.__dict__:
        return DerivativeRules(compiler, f)
    return None


class DerivativeRules:
    """The rules of a derivative function srcad returned other than `grad`'s entry: its
    forward rule, one more direction (`derivative_array`), where it is a `JACOBIAN` of
    `f`; every other rule is refused, naming what to do instead."""

    def __init__(self, compiler: Any, function: Any) -> None:
        self.compiler = compiler
        self.function = function
        self.of = function.__dict__[DERIVATIVE]
        self.rrule = _Named(self._refuse, f"rrule_{function.__name__}")
        self.frule = _Named(self._frule, f"frule_{function.__name__}", forward=True)

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise SrcadError(
            f"srcad differentiates {self.function.__qualname__}, a derivative it returned, "
            "in forward mode only (srcad.jvp; jacobian and grad of it compose: "
            "jacobian(jacobian(f)), grad(grad(f)))"
        )

    def _frule(self, dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if self.of is None or self.of[2] != JACOBIAN or kwargs:
            self._refuse()
        func, positions, _ = self.of
        check_tangents(self.function, dargs, args)
        tangents = tuple(dargs[1 : 1 + len(args)])
        result = self.function(*args)
        if all(isinstance(unthunk(t), AbstractZero) for t in tangents):
            return result, ZeroTangent()
        call = callee_of(func)
        return result, derivative_array(self.compiler, call, args, positions, tangents)


class EntryRules:
    """The reverse (`rrule`) and forward (`frule`) rules of one entry function."""

    def __init__(self, compiler: Any, dispatcher: Any) -> None:
        self.compiler = compiler
        self.entry = dispatcher.function
        self.call: Call = dispatcher.call
        self.positions: tuple[int, ...] = dispatcher.positions
        self.single: bool = dispatcher.single
        self.value: bool = dispatcher.value
        name = getattr(self.call.function, "__name__", "f").strip("<>")
        self.rrule = _Named(self._rrule, f"rrule_{dispatcher.name}_of_{name}")
        self.frule = _Named(self._frule, f"frule_{dispatcher.name}_of_{name}", forward=True)

    def _rrule(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """`(g(*args), pullback)`: the pullback gives `H @ ḡ` (plus `ȳ ∇f`)."""
        self._check_positions(args)
        result = self.entry(*args, **kwargs)

        def pullback(result_bar: Any) -> tuple[Any, ...]:
            if self.value:
                y_bar, gradient_bar = elements_of(result_bar, 2)
            else:
                y_bar, gradient_bar = ZeroTangent(), result_bar
            bars = (
                (gradient_bar,) if self.single else elements_of(gradient_bar, len(self.positions))
            )
            tangents: list[Any] = [ZeroTangent()] * len(args)
            for position, bar in zip(self.positions, bars, strict=True):
                tangents[position] = ZeroTangent() if bar is None else unthunk(bar)
            zero = all(isinstance(t, AbstractZero) for t in (y_bar, *tangents))
            if zero:
                return (NoTangent(), *tangents)
            _, cotangents = self._hessian_products(args, kwargs, tuple(tangents), y_bar)
            return (NoTangent(), *cotangents)

        return result, pullback

    def _frule(self, dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """`(g(*args), g_dot)`: `(H @ t)[p]` for each position `p` (and `∇f · t`)."""
        self._check_positions(args)
        check_tangents(self.entry, dargs, args)
        result = self.entry(*args, **kwargs)
        tangents = tuple(dargs[1 : 1 + len(args)])
        if all(isinstance(t, AbstractZero) for t in tangents):
            return result, ZeroTangent()
        y_dot, products = self._hessian_products(args, kwargs, tangents, ZeroTangent())
        gradient_dots = tuple(products[p] for p in self.positions)
        gradient_dot = gradient_dots[0] if self.single else gradient_dots
        return result, ((y_dot, gradient_dot) if self.value else gradient_dot)

    def _hessian_products(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], tangents: tuple[Any, ...], y_bar: Any
    ) -> tuple[Any, tuple[Any, ...]]:
        """`(∇f · t, ȳ ∇f + H @ t)`, the latter one per argument: the reverse rule of
        `f`'s forward rule, its output seeded with `(ȳ, 1.0)`."""
        call = self.call
        full_args, keywords = call.arguments(args, kwargs)
        forward = self.compiler.forward_rule(call.function, full_args)
        dargs = padded(call.tangents((NoTangent(), *tangents)), call.function)
        (_, y_dot), pullback = self.compiler.rrule(forward, dargs, *full_args, **keywords)
        cotangents = pullback((y_bar, 1.0))
        start = 2 + len(call.bound)
        own = cotangents[start : start + len(args)]
        return unthunk(y_dot), tuple(unthunk(c) for c in own)

    def _check_positions(self, args: tuple[Any, ...]) -> None:
        if any(p >= len(args) for p in self.positions):
            raise SrcadError(
                f"differentiating {self.entry.__qualname__} needs the arguments it "
                "differentiates with respect to passed by position"
            )


class _Named:
    """A rule under the name emitted code calls it by (a bound method's is its function's),
    taking any arguments after the tangents (`dargs`) where it is a forward rule: those
    the entry function takes."""

    __slots__ = ("__name__", "__signature__", "function")

    def __init__(self, function: Any, name: str, forward: bool = False) -> None:
        self.function = function
        self.__name__ = name
        rest = [
            inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
            inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
        ]
        dargs = [inspect.Parameter("dargs", inspect.Parameter.POSITIONAL_ONLY)]
        self.__signature__ = inspect.Signature(dargs + rest if forward else rest)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)


def directional_gradient(
    compiler: Any, call: Call, args: tuple[Any, ...], directions: list[tuple[Any, ...]]
) -> tuple[Any, tuple[Any, ...]]:
    """`f`'s value and `∇ ∂ᵏf[t₁, ..., tₖ]`, one cotangent per argument of `args`: the
    gradient of the k-th directional derivative of the real-scalar `f` along `directions`
    (each a tangent per argument). The route `srcad.hessian` takes, to any order: `F₁` is
    `f`'s generated forward rule, `Fₖ` the forward rule srcad generates for `Fₖ₋₁` (its
    tangents are constants: zero tangents), and the reverse rule of `Fₖ`, seeded with 1.0
    on the innermost tangent of its nested output, gives the gradient. This is what
    `grad(grad(...grad(f)))` computes (`srcad.api`)."""
    full_args, keywords = call.arguments(args, {})
    function, leading = _nested_forward_rule(compiler, call, full_args, directions)
    result, pullback = compiler.rrule(function, *leading, *full_args, **keywords)
    seed: Any = (ZeroTangent(), 1.0)  # the cotangent of `(value, tangent)`, nested k deep
    for _ in directions[1:]:
        seed = (ZeroTangent(), seed)
        result = result[0]
    cotangents = pullback(seed)
    start = 1 + len(leading) + len(call.bound)
    return result[0], tuple(unthunk(c) for c in cotangents[start : start + len(args)])


def directional_derivative(
    compiler: Any, call: Call, args: tuple[Any, ...], directions: list[tuple[Any, ...]]
) -> tuple[Any, Any]:
    """`f`'s value and its k-th directional derivative `∂ᵏf[t₁, ..., tₖ]` along `directions`
    (each a tangent per argument), for `f` of any output: the innermost tangent of the
    nested output of `Fₖ` (see `directional_gradient`), in forward mode alone. An element
    of `jacobian(jacobian(f))` (`srcad.api`)."""
    full_args, keywords = call.arguments(args, {})
    function, leading = _nested_forward_rule(compiler, call, full_args, directions)
    value, derivative = function(*leading, *full_args, **keywords)
    for _ in directions[1:]:
        value, derivative = value[0], derivative[1]
    return value, derivative


def _nested_forward_rule(
    compiler: Any, call: Call, full_args: tuple[Any, ...], directions: list[tuple[Any, ...]]
) -> tuple[Any, tuple[Any, ...]]:
    """`Fₖ` for `k = len(directions)` and the tangents it takes before `f`'s arguments
    (those of `Fₖ`, ..., of `F₁`): `F₁` is `f`'s generated forward rule, `Fₖ` the one srcad
    generates for `Fₖ₋₁`, with a zero tangent for each tangent `Fₖ₋₁` takes."""
    function: Any = call.function
    leading: tuple[Any, ...] = ()
    for tangents in directions:
        dots = padded(call.tangents((NoTangent(), *tangents)), call.function)[1:]
        forward = compiler.forward_rule(function, (*leading, *full_args))
        leading = ((NoTangent(), *(ZeroTangent() for _ in leading), *dots), *leading)
        function = forward
    return function, leading


def derivative_array(
    compiler: Any,
    call: Call,
    args: tuple[Any, ...],
    positions: list[int],
    last: tuple[Any, ...] | None = None,
) -> Any:
    """The derivatives of `f` of order `len(positions)`, one along each basis direction of
    the argument at each of `positions`, as an array of shape `output.shape + x_1.shape +
    ... + x_k.shape` (`jacobian(jacobian(f))`); with `last`, a tangent per argument, each
    differentiated once more along it (their forward rule)."""
    shapes = [np.shape(args[p]) for p in positions]
    elements: list[np.ndarray] = []
    y: Any = None
    for indices in np.ndindex(*(int(np.prod(shape)) for shape in shapes)):
        directions: list[tuple[Any, ...]] = []
        for position, index in zip(positions, indices, strict=True):
            basis = np.zeros(shapes[len(directions)])
            basis.reshape(-1)[index] = 1.0
            direction = basis if isinstance(args[position], np.ndarray) else float(basis)
            directions.append(
                tuple(direction if i == position else ZeroTangent() for i in range(len(args)))
            )
        if last is not None:
            directions.append(last)
        y, derivative = directional_derivative(compiler, call, args, directions)
        derivative = materialize(unthunk(derivative), y)
        elements.append(np.broadcast_to(np.asarray(derivative, dtype=float), np.shape(y)))
    stacked = np.stack(elements, axis=-1)
    return stacked.reshape(np.shape(y) + sum(shapes, ()))

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

from srcad.callables import Call, check_tangents, padded
from srcad.errors import SrcadError
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, elements_of, unthunk

DISPATCHER = "srcad_dispatcher"  # the attribute of an entry function naming its Dispatcher


def entry_rules(compiler: Any, f: Any) -> EntryRules | None:
    """The rules of `f` if it is an entry function srcad wrote, else None. (`compiler`,
    a `srcad.compiler.Compiler`, imports this module: named here, it would be a cycle.)"""
    if not isinstance(f, types.FunctionType):
        return None
    dispatcher = f.__dict__.get(DISPATCHER)
    return None if dispatcher is None else EntryRules(compiler, dispatcher)


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

"""The atoms every form (`srcad/forms.py`) is built from, both computed by srcad's own
generated code for the user's `f`:

- `derivative_atom`: `∂ᵏf[t₁, ..., tₖ]`, the innermost tangent of `Fₖ`, the forward rule
  srcad generates for `Fₖ₋₁` (`F₁`: `f`'s own), or, where `Fₖ` does not compile, the same
  number row by row, reverse mode over `Fₖ₋₁`;
- `gradient_atom`: `∇ₓ⟨s, ∂ᵏf[t₁, ..., tₖ]⟩`, the reverse rule of `Fₖ` seeded with `s` on
  that tangent;

and the little algebra of tangents the forms add them with.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.callables import Call, padded
from srcad.errors import SrcadError
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, elements_of, unthunk
from srcad.tangents import materialize as _materialize

Direction = tuple[Any, ...]  # a tangent for each argument of `x`


# -- the atoms: srcad's generated code -------------------------------------------------------


def is_zero(value: Any) -> bool:
    """Whether a tangent, cotangent or direction is a symbolic zero throughout."""
    value = unthunk(value)
    if isinstance(value, AbstractZero):
        return True
    if type(value) is tuple:
        return all(is_zero(v) for v in value)
    return False


def nested_forward_rule(
    compiler: Any, call: Call, full_args: tuple[Any, ...], directions: list[Direction]
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


def derivative_atom(
    compiler: Any, call: Call, args: tuple[Any, ...], directions: list[Direction]
) -> tuple[Any, Any]:
    """`f`'s value and `∂ᵏf[t₁, ..., tₖ]` along `directions`, for `f` of any output: by
    `Fₖ`, or by rows where it does not compile or refuses when it runs."""
    full_args, keywords = call.arguments(args, {})
    if not directions:
        y = call.function(*full_args, **keywords)
        return y, y
    try:
        function, leading = nested_forward_rule(compiler, call, full_args, directions)
        # (a rule of `Fₖ` may refuse only when it runs: a forward rule's forward rule
        # that dispatches on the function a call reaches, `second_order_calls`)
        value, derivative = function(*leading, *full_args, **keywords)
    except SrcadError:
        y = call.function(*full_args, **keywords)
        if len(directions) < 2 or not (real_valued(y) and all(map(real_valued, directions[-1]))):
            raise
        return _derivative_by_rows(compiler, call, args, y, directions)
    for _ in directions[1:]:
        value, derivative = value[0], derivative[1]
    return value, derivative


def real_valued(value: Any) -> bool:
    """A real float or float array (or a zero): what `_derivative_by_rows` takes."""
    if isinstance(value, AbstractZero):
        return True
    return (
        isinstance(value, float | np.ndarray | np.floating) and np.asarray(value).dtype.kind == "f"
    )


def _derivative_by_rows(
    compiler: Any, call: Call, args: tuple[Any, ...], y: Any, directions: list[Direction]
) -> tuple[Any, Any]:
    """`∂ᵏf[t₁, ..., tₖ]` where `Fₖ` does not compile (a primitive whose forward rule of
    the forward rule of ... srcad has no rule for): element by element of `f`'s output
    `y`, `⟨∇ₓ⟨e_y, ∂ᵏ⁻¹f[t₁, ..., tₖ₋₁]⟩, tₖ⟩`, reverse mode over `Fₖ₋₁` (mixed partials
    commute). For float and array outputs and last directions (`derivative_atom`)."""
    *first, last = directions
    derivative = np.zeros(np.shape(y))
    for index in np.ndindex(*np.shape(y)):
        seed = np.zeros(np.shape(y))
        seed[index] = 1.0
        _, row = gradient_atom(compiler, call, args, float(seed) if seed.ndim == 0 else seed, first)
        derivative[index] = sum(
            float(np.sum(np.real(_materialize(r, t) * t)))
            for r, t in zip(row, last, strict=True)
            if not isinstance(t, AbstractZero)
        )
    return y, derivative if np.ndim(y) else float(derivative)


def gradient_atom(
    compiler: Any, call: Call, args: tuple[Any, ...], seed: Any, directions: list[Direction]
) -> tuple[Any, tuple[Any, ...]]:
    """`f`'s value and `∇ₓ⟨seed, ∂ᵏf[t₁, ..., tₖ]⟩`, one cotangent per argument of `args`:
    the reverse rule of `Fₖ`, seeded with `seed` on its innermost tangent."""
    full_args, keywords = call.arguments(args, {})
    function, leading = nested_forward_rule(compiler, call, full_args, directions)
    result, pullback = compiler.rrule(function, *leading, *full_args, **keywords)
    nested: Any = seed
    for _ in directions:
        nested = (ZeroTangent(), nested)
        result = result[0]
    cotangents = pullback(nested)
    start = 1 + len(leading) + len(call.bound)
    return result, tuple(unthunk(c) for c in cotangents[start : start + len(args)])


# -- the algebra of tangents the forms add ---------------------------------------------------


def add(a: Any, b: Any) -> Any:
    """`a + b` for tangents: zeros vanish, tuples add by element."""
    a, b = unthunk(a), unthunk(b)
    if isinstance(a, AbstractZero):
        return b
    if isinstance(b, AbstractZero):
        return a
    if type(a) is tuple or type(b) is tuple:
        count = len(a) if type(a) is tuple else len(b)
        return tuple(add(p, q) for p, q in zip(_parts(a, count), _parts(b, count), strict=True))
    return a + b


def _parts(value: Any, count: int) -> tuple[Any, ...]:
    return value if type(value) is tuple else elements_of(value, count)


def zeros(count: int) -> tuple[Any, ...]:
    return (ZeroTangent(),) * count


def placed(count: int, positions: tuple[int, ...], values: tuple[Any, ...]) -> Direction:
    """A direction (a tangent per argument) holding `values` at `positions`, zero elsewhere."""
    direction: list[Any] = [ZeroTangent()] * count
    for position, value in zip(positions, values, strict=True):
        direction[position] = add(direction[position], unthunk(value))
    return tuple(direction)

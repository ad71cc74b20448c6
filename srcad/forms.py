"""Every derivative srcad returns, as a *form*: a function of `f`'s arguments `x` built from
`f`'s own derivatives, whose derivatives are forms again. What lets srcad differentiate
its own output, in either mode and to any order, wherever it is called.

A form `Φ(x, l)` takes `f`'s arguments `x` and *linear inputs* `l` (the vector of a
Hessian-vector product, the tangents a forward rule takes), and is affine in each linear
input (linear in most). Its values are built from two atoms (`srcad/atoms.py`), both
computed by srcad's own generated code:

- `∂ᵏf[t₁, ..., tₖ]`, the k-th directional derivative (`derivative_atom`): `f` itself for
  k = 0, else the innermost tangent of `Fₖ`, the forward rule srcad generates for
  `Fₖ₋₁` (`F₁`: `f`'s);
- `∇ₓ⟨s, ∂ᵏf[t₁, ..., tₖ]⟩` (`gradient_atom`): the reverse rule of `Fₖ` seeded with `s`
  on that tangent.

Each form answers three questions, for `x`, its linear inputs `ls`, some of them (`parts`,
`J`: a direction `u` by index) differentiated along `u` in place of their value, and
directions `extra` (`E`) along which `x` moves:

- `partial(x, ls, parts, extra) = ∂_E ∂_J Φ`, with `J` and `E` empty the form's value;
- `xgrad(x, ls, parts, extra, s) = ∇ₓ⟨s, ∂_E ∂_J Φ⟩`, a cotangent per argument of `x`;
- `lgrad(x, ls, i, parts, extra, s) = ∇_{lᵢ}⟨s, ∂_E ∂_J Φ⟩`.

Those three give a form's reverse rule (its pullback: `xgrad` and `lgrad` with the output's
cotangent), and its forward rule is a form too (`Forward`), whose answers are its form's
answers with one more direction or partial: so the forward rule of the forward rule, and
the reverse rule of either, come from the same three answers, to any order. Only the
atoms run generated code; everything else is the product rule and the symmetry of mixed
partial derivatives (`f` taken as smooth as the order asked, as `srcad.hessian` does).

The forms: `Gradient` (`grad`, `value_and_grad`, `grad` of a gradient, the
Hessian-vector product), `DerivativeArray` (`jacobian` in either mode, `hessian`,
`jacobian` of a `jacobian`), `Pullback` (`vjp`'s `vjp_fn`) and `Forward` (the forward rule
of any form); `srcad/entry_rules.py` makes their rules. A form is called
through a *layout*: which of the positional arguments of the function it stands for are
`x` and which are linear inputs (`split`, `join`).
"""

from __future__ import annotations

import copy
import functools
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from srcad.atoms import (
    Direction,
    add,
    derivative_atom,
    gradient_atom,
    is_zero,
    placed,
    real_valued,
    zeros,
)
from srcad.callables import Call
from srcad.errors import SrcadError
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk
from srcad.tangents import materialize as _materialize

# -- the forms -------------------------------------------------------------------------------


class Form(ABC):
    """A derivative srcad returns: see the module's docstring. `primal`, where given, is
    the function it stands for, called for its plain value (its own checks and speed)."""

    compiler: Any
    call: Call
    name: str
    primal: Any = None
    linear: int = 0  # how many linear inputs the function's last arguments are

    def split(self, a: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[Any]]:
        """`(x, ls)` from the function's positional arguments."""
        cut = len(a) - self.linear
        return tuple(a[:cut]), list(a[cut:])

    def split_tangents(self, dots: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[Any]]:
        """`(x_dot, l_dots)` from the tangents of the function's positional arguments."""
        return self.split(dots)

    def join(self, x_bar: tuple[Any, ...], l_bars: list[Any]) -> tuple[Any, ...]:
        """The cotangents of the function's positional arguments, from those of `x` and
        of the linear inputs."""
        return (*x_bar, *l_bars)

    def value(self, a: tuple[Any, ...]) -> Any:
        if self.primal is not None:
            return self.primal(*a)
        x, ls = self.split(a)
        return self.partial(x, ls, {}, [])

    def check(self, x: tuple[Any, ...]) -> None:
        """Refuse, naming what to do, arguments the form cannot take (by default, none)."""
        return None

    def with_keywords(self, keywords: dict[str, Any]) -> Form:
        """The form of a call passing `keywords` too: they go to `f` (and to the function
        it stands for), never differentiated, as a call's keyword arguments are not."""
        if not keywords:
            return self
        found = copy.copy(self)
        call = self.call
        found.call = Call(
            call.f,
            call.function,
            call.bound,
            {**call.keywords, **keywords},
            call.instance,
            call.registry,
        )
        if self.primal is not None:
            found.primal = functools.partial(self.primal, **keywords)
        return found

    @abstractmethod
    def partial(
        self, x: tuple[Any, ...], ls: list[Any], parts: dict[int, Any], extra: list[Direction]
    ) -> Any:
        """`∂_E ∂_J Φ` (the module's docstring): with `parts` and `extra` empty, the value."""

    @abstractmethod
    def xgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> tuple[Any, ...]:
        """`∇ₓ⟨s, ∂_E ∂_J Φ⟩`: a cotangent per argument of `x`."""

    @abstractmethod
    def lgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        i: int,
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> Any:
        """`∇_{lᵢ}⟨s, ∂_E ∂_J Φ⟩`: the cotangent of linear input `i`."""


class Gradient(Form):
    """`∇ₓ ∂ᵏf[fixed..., l...]` at the arguments `out` (one, or a tuple where not
    `single`), with `value`: `(∂ᵏf[...], gradient)`. `fixed`: the scalar arguments of a
    `grad` of a gradient, each the direction 1.0 there; `placements`: the argument each
    linear input is a direction of (a Hessian-vector product's `v`)."""

    def __init__(
        self,
        compiler: Any,
        call: Call,
        name: str,
        out: tuple[int, ...],
        single: bool = True,
        value: bool = False,
        fixed: tuple[int, ...] = (),
        placements: tuple[int, ...] = (),
        primal: Any = None,
    ) -> None:
        self.compiler, self.call, self.name, self.primal = compiler, call, name, primal
        self.out, self.single, self.with_value = out, single, value
        self.fixed, self.placements = fixed, placements
        self.linear = len(placements)

    def check(self, x: tuple[Any, ...]) -> None:
        if any(p >= len(x) for p in (*self.out, *self.fixed, *self.placements)):
            raise SrcadError(
                f"differentiating {self.name} needs the arguments it differentiates with "
                "respect to passed by position"
            )

    def _directions(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        parts: dict[int, Any],
        extra: list[Direction],
        skip: int | None = None,
    ) -> list[Direction]:
        count = len(x)
        fixed = [placed(count, (d,), (1.0,)) for d in self.fixed]
        linear = [
            placed(count, (p,), (parts.get(j, ls[j]),))
            for j, p in enumerate(self.placements)
            if j != skip
        ]
        return [*fixed, *linear, *extra]

    def _gradient(self, x: tuple[Any, ...], directions: list[Direction], seed: Any) -> Any:
        if is_zero(seed) or any(is_zero(d) for d in directions):
            return None, zeros(len(x))
        return gradient_atom(self.compiler, self.call, x, seed, directions)

    def _seed_direction(self, x: tuple[Any, ...], s: Any) -> tuple[Any, Direction]:
        """`(s_y, t)`: the cotangent of the value, and that of the gradient as a direction."""
        s = unthunk(s)
        s_y, s_g = elements_of(s, 2) if self.with_value else (ZeroTangent(), s)
        parts = (s_g,) if self.single else elements_of(unthunk(s_g), len(self.out))
        return s_y, placed(len(x), self.out, parts)

    def partial(
        self, x: tuple[Any, ...], ls: list[Any], parts: dict[int, Any], extra: list[Direction]
    ) -> Any:
        directions = self._directions(x, ls, parts, extra)
        _, gradient = self._gradient(x, directions, 1.0)
        picked = gradient[self.out[0]] if self.single else tuple(gradient[p] for p in self.out)
        if not self.with_value:
            return picked
        if any(is_zero(d) for d in directions):
            return ZeroTangent(), picked
        return derivative_atom(self.compiler, self.call, x, directions)[1], picked

    def xgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> tuple[Any, ...]:
        s_y, t = self._seed_direction(x, s)
        directions = self._directions(x, ls, parts, extra)
        total = self._gradient(x, [*directions, t], 1.0)[1]
        return add(total, self._gradient(x, directions, s_y)[1])

    def lgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        i: int,
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> Any:
        s_y, t = self._seed_direction(x, s)
        directions = self._directions(x, ls, parts, extra, skip=i)
        position = self.placements[i]
        total = self._gradient(x, [*directions, t], 1.0)[1][position]
        return add(total, self._gradient(x, directions, s_y)[1][position])


class DerivativeArray(Form):
    """The array of `f`'s derivatives along every basis direction of the arguments at
    `positions`, of shape `inner.shape + x_1.shape + ... + x_k.shape`: for `jacobian`,
    `jacobian(jacobian(f))` (`inner`: `f`'s output), or, with `gradient_at`, of the
    gradient with respect to that argument (`hessian`: `inner`, that argument)."""

    def __init__(
        self,
        compiler: Any,
        call: Call,
        name: str,
        positions: tuple[int, ...],
        gradient_at: int | None = None,
        primal: Any = None,
    ) -> None:
        self.compiler, self.call, self.name, self.primal = compiler, call, name, primal
        self.positions, self.gradient_at = positions, gradient_at

    def check(self, x: tuple[Any, ...]) -> None:
        for p in (*self.positions, *([] if self.gradient_at is None else [self.gradient_at])):
            if p >= len(x):
                raise SrcadError(
                    f"differentiating {self.name} needs the arguments it differentiates "
                    "with respect to passed by position"
                )
            if not real_valued(x[p]) or isinstance(x[p], AbstractZero):
                raise SrcadError(
                    f"srcad differentiates {self.name} in turn with respect to real float "
                    f"and array arguments only, not {type(x[p]).__name__}; differentiate f "
                    "itself to the order you need (grad, jacobian, hessian of f)"
                )

    def _bases(self, x: tuple[Any, ...]) -> list[tuple[tuple[int, ...], list[Direction]]]:
        """Each multi-index and its basis directions, one per position."""
        shapes = [np.shape(x[p]) for p in self.positions]
        found = []
        for indices in np.ndindex(*(int(np.prod(shape)) for shape in shapes)):
            directions = []
            for position, shape, index in zip(self.positions, shapes, indices, strict=True):
                basis = np.zeros(shape)
                basis.reshape(-1)[index] = 1.0
                element = basis if isinstance(x[position], np.ndarray) else float(basis)
                directions.append(placed(len(x), (position,), (element,)))
            found.append((indices, directions))
        return found

    def _inner(self, x: tuple[Any, ...]) -> Any:
        """What each element of the array is a derivative of: `f`'s output, or the
        argument the gradient is taken at; a real float or array (the derivatives are
        stacked as floats)."""
        if self.gradient_at is not None:
            inner = x[self.gradient_at]
        else:
            full_args, keywords = self.call.arguments(x, {})
            inner = self.call.function(*full_args, **keywords)
        if not real_valued(inner):
            raise SrcadError(
                f"srcad differentiates {self.name} in turn where f returns a real float or "
                f"array only, not {type(inner).__name__} of {np.asarray(inner).dtype}"
            )
        return inner

    def partial(
        self, x: tuple[Any, ...], ls: list[Any], parts: dict[int, Any], extra: list[Direction]
    ) -> Any:
        self.check(x)
        inner = self._inner(x)
        elements = []
        for _, directions in self._bases(x):
            if any(is_zero(d) for d in extra):
                element: Any = ZeroTangent()
            elif self.gradient_at is None:
                element = derivative_atom(self.compiler, self.call, x, [*directions, *extra])[1]
            else:
                element = gradient_atom(self.compiler, self.call, x, 1.0, [*directions, *extra])[1][
                    self.gradient_at
                ]
            element = _materialize(unthunk(element), inner)
            elements.append(np.broadcast_to(np.asarray(element, dtype=float), np.shape(inner)))
        shapes = sum((np.shape(x[p]) for p in self.positions), ())
        return np.stack(elements, axis=-1).reshape(np.shape(inner) + shapes)

    def xgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> tuple[Any, ...]:
        self.check(x)
        s = unthunk(s)
        total: Any = zeros(len(x))
        if is_zero(s) or any(is_zero(d) for d in extra):
            return total
        inner_shape = np.shape(self._inner(x))
        counts = tuple(int(np.size(x[p])) for p in self.positions)
        seeds = np.asarray(s, dtype=float).reshape(inner_shape + counts)
        for indices, directions in self._bases(x):
            key = (Ellipsis, *indices)
            part = seeds[key]
            if not np.any(part):
                continue
            seed = float(part) if inner_shape == () else part
            if self.gradient_at is None:
                found = gradient_atom(self.compiler, self.call, x, seed, [*directions, *extra])[1]
            else:
                direction = placed(len(x), (self.gradient_at,), (seed,))
                found = gradient_atom(
                    self.compiler, self.call, x, 1.0, [*directions, *extra, direction]
                )[1]
            total = add(total, found)
        return tuple(total)

    def lgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        i: int,
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> Any:
        raise AssertionError("a derivative array takes no linear input")


class Pullback(Form):
    """`ȳ ↦ ∇ₓ⟨ȳ, f(x)⟩` at the arguments `x` given when it was made (`srcad.vjp`'s
    `vjp_fn`): linear in its one argument `ȳ`, with `x` a constant of the closure (its
    tangent zero, its cotangent dropped). `∇_ȳ⟨s, Jᵀȳ⟩ = J s`, one forward rule."""

    linear = 1

    def __init__(
        self, compiler: Any, call: Call, name: str, x: tuple[Any, ...], primal: Any
    ) -> None:
        self.compiler, self.call, self.name, self.primal = compiler, call, name, primal
        self.x = x

    def split(self, a: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[Any]]:
        if len(a) != 1:
            raise SrcadError(f"{self.name} takes one argument, the cotangent of the result")
        return self.x, [a[0]]

    def split_tangents(self, dots: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[Any]]:
        return zeros(len(self.x)), [dots[0] if dots else ZeroTangent()]

    def join(self, x_bar: tuple[Any, ...], l_bars: list[Any]) -> tuple[Any, ...]:
        return (l_bars[0],)

    def partial(
        self, x: tuple[Any, ...], ls: list[Any], parts: dict[int, Any], extra: list[Direction]
    ) -> Any:
        seed = unthunk(parts.get(0, ls[0]))
        if extra or is_zero(seed):
            return zeros(len(x))
        return gradient_atom(self.compiler, self.call, x, seed, [])[1]

    def xgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> tuple[Any, ...]:
        return zeros(len(x))

    def lgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        i: int,
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> Any:
        s = unthunk(s)
        if extra or is_zero(s):
            return ZeroTangent()
        direction = tuple(elements_of(s, len(x)) if not isinstance(s, tuple) else s)
        return derivative_atom(self.compiler, self.call, x, [direction])[1]


class Forward(Form):
    """The forward rule of the form `inner`, called `(dargs, *a)`: `(Φ, Φ̇)` with
    `Φ̇ = ∂ₓΦ[ẋ] + Σⱼ ∂_{lⱼ}Φ[l̇ⱼ]`. Its linear inputs are `inner`'s, then `ẋ`, then the
    `l̇ⱼ`; its answers are `inner`'s, by the product rule."""

    def __init__(self, inner: Form) -> None:
        self.inner = inner
        self.compiler, self.call = inner.compiler, inner.call
        self.name = f"frule_{inner.name}"

    def split(self, a: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[Any]]:
        if not a or not isinstance(unthunk(a[0]), tuple | list | Tangent | AbstractZero):
            raise SrcadError(f"{self.name} takes the tangents first, then the arguments")
        return self._split(a, self.inner.split)

    def split_tangents(self, dots: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[Any]]:
        return self._split(dots, self.inner.split_tangents)

    def _split(self, a: tuple[Any, ...], split_rest: Any) -> tuple[tuple[Any, ...], list[Any]]:
        dargs, rest = unthunk(a[0]), tuple(a[1:])
        x, ls = split_rest(rest)
        dots = elements_of(dargs, 1 + len(rest))[1:] if not isinstance(dargs, tuple) else dargs[1:]
        dots = (*dots, *zeros(len(rest) - len(dots)))[: len(rest)]
        x_dot, l_dots = self.inner.split_tangents(tuple(dots))
        return x, [*ls, x_dot, *l_dots]

    def join(self, x_bar: tuple[Any, ...], l_bars: list[Any]) -> tuple[Any, ...]:
        n = self.inner.linear
        own = self.inner.join(x_bar, l_bars[:n])
        dots = self.inner.join(tuple(l_bars[n]), l_bars[n + 1 :])
        return (Tangent(tuple, NoTangent(), *dots), *own)

    @property
    def linear(self) -> int:  # type: ignore[override]
        return 1 + 2 * self.inner.linear

    def with_keywords(self, keywords: dict[str, Any]) -> Form:
        return self if not keywords else Forward(self.inner.with_keywords(keywords))

    def check(self, x: tuple[Any, ...]) -> None:
        self.inner.check(x)

    def value(self, a: tuple[Any, ...]) -> Any:
        x, ls = self.split(a)
        self.check(x)
        n = self.inner.linear
        rest = tuple(a[1:])
        first = self.inner.value(rest)
        if all(is_zero(t) for t in ls[n:]):
            return first, ZeroTangent()
        return first, self._second(x, ls, {}, [])

    def _terms(self, ls: list[Any], parts: dict[int, Any]) -> tuple[dict[int, Any], list[Any]]:
        """`inner`'s partials `inner_parts`, and the terms of `∂_J` of the forward rule: `None` for
        the value (`Φ`), `-1` for `∂ₓΦ[ẋ]`, `j` for `∂_{lⱼ}Φ[l̇ⱼ]`; each with the
        partials and the direction (or the partial's direction) it takes."""
        n = self.inner.linear
        inner_parts = {i: u for i, u in parts.items() if i < n}
        dot_partials = {i - n - 1: u for i, u in parts.items() if i > n}
        x_dot = parts.get(n, ls[n])
        terms: list[Any] = []
        if n not in parts and not dot_partials:
            terms.append(("value", inner_parts, None))
        if not dot_partials and not is_zero(x_dot):
            terms.append(("x", inner_parts, x_dot))
        if n not in parts:
            for j in range(n):
                if j in inner_parts or not set(dot_partials) <= {j}:
                    continue
                l_dot = dot_partials.get(j, ls[n + 1 + j])
                if not is_zero(l_dot):
                    terms.append(("l", {**inner_parts, j: l_dot}, j))
        return inner_parts, terms

    def _second(
        self, x: tuple[Any, ...], ls: list[Any], parts: dict[int, Any], extra: list[Direction]
    ) -> Any:
        inner_ls = ls[: self.inner.linear]
        total: Any = ZeroTangent()
        for kind, partials, direction in self._terms(ls, parts)[1]:
            if kind == "x":
                total = add(total, self.inner.partial(x, inner_ls, partials, [*extra, direction]))
            elif kind == "l":
                total = add(total, self.inner.partial(x, inner_ls, partials, extra))
        return total

    def partial(
        self, x: tuple[Any, ...], ls: list[Any], parts: dict[int, Any], extra: list[Direction]
    ) -> Any:
        inner_parts, terms = self._terms(ls, parts)
        has_value = any(kind == "value" for kind, _, _ in terms)
        inner_ls = ls[: self.inner.linear]
        first = self.inner.partial(x, inner_ls, inner_parts, extra) if has_value else ZeroTangent()
        return first, self._second(x, ls, parts, extra)

    def xgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> tuple[Any, ...]:
        s0, s1 = elements_of(unthunk(s), 2)
        inner_ls = ls[: self.inner.linear]
        total: Any = zeros(len(x))
        for kind, partials, direction in self._terms(ls, parts)[1]:
            if kind == "value" and not is_zero(s0):
                found = self.inner.xgrad(x, inner_ls, partials, extra, s0)
            elif kind == "x" and not is_zero(s1):
                found = self.inner.xgrad(x, inner_ls, partials, [*extra, direction], s1)
            elif kind == "l" and not is_zero(s1):
                found = self.inner.xgrad(x, inner_ls, partials, extra, s1)
            else:
                continue
            total = add(total, found)
        return tuple(total)

    def lgrad(
        self,
        x: tuple[Any, ...],
        ls: list[Any],
        i: int,
        parts: dict[int, Any],
        extra: list[Direction],
        s: Any,
    ) -> Any:
        s0, s1 = elements_of(unthunk(s), 2)
        n = self.inner.linear
        inner_ls = ls[:n]
        inner_parts, terms = self._terms(ls, parts)
        if i == n:  # `ẋ`: only `∂ₓΦ[ẋ]` reads it, linearly: `∇ₓ⟨s1, ∂_E ∂_J Φ⟩`
            if any(k > n for k in parts) or is_zero(s1):
                return zeros(len(x))
            return self.inner.xgrad(x, inner_ls, inner_parts, extra, s1)
        if i > n:  # `l̇ⱼ`: only `∂_{lⱼ}Φ[l̇ⱼ]` reads it, linearly
            j = i - n - 1
            if n in parts or any(k > n for k in parts) or j in inner_parts or is_zero(s1):
                return ZeroTangent()
            return self.inner.lgrad(x, inner_ls, j, inner_parts, extra, s1)
        total: Any = ZeroTangent()  # `lᵢ`: every term but `∂_{lᵢ}Φ[l̇ᵢ]` may read it
        for kind, partials, direction in terms:
            if kind == "value" and not is_zero(s0):
                found = self.inner.lgrad(x, inner_ls, i, partials, extra, s0)
            elif kind == "x" and not is_zero(s1):
                found = self.inner.lgrad(x, inner_ls, i, partials, [*extra, direction], s1)
            elif kind == "l" and direction != i and not is_zero(s1):
                found = self.inner.lgrad(x, inner_ls, i, partials, extra, s1)
            else:
                continue
            total = add(total, found)
        return total

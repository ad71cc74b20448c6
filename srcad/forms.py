"""Every derivative srcad returns, as a *form*: a function of `f`'s arguments `x` built from
`f`'s own derivatives, whose derivatives are forms again. What lets srcad differentiate
its own output, in either mode and to any order, wherever it is called.

A form `Φ(x, l)` takes `f`'s arguments `x` and *linear inputs* `l` (the vector of a
Hessian-vector product, the tangents a forward rule takes), and is affine in each linear
input (linear in most). Its values are built from two atoms, both computed by srcad's own
generated code:

- `∂ᵏf[t₁, ..., tₖ]`, the k-th directional derivative (`derivative_atom`): `f` itself for
  k = 0, else the innermost tangent of `Fₖ`, the forward rule srcad generates for
  `Fₖ₋₁` (`F₁`: `f`'s);
- `∇ₓ⟨s, ∂ᵏf[t₁, ..., tₖ]⟩` (`gradient_atom`): the reverse rule of `Fₖ` seeded with `s`
  on that tangent.

Each form answers three questions, for `x`, its linear inputs `ls`, some of them (`J`, by
index) replaced by a direction `u` and differentiated along it, and x-directions `E`:

- `partial(x, ls, J, E) = ∂_E ∂_J Φ`, with `J = E = ()` the form's value;
- `xgrad(x, ls, J, E, s) = ∇ₓ⟨s, ∂_E ∂_J Φ⟩`, a cotangent per argument of `x`;
- `lgrad(x, ls, i, J, E, s) = ∇_{lᵢ}⟨s, ∂_E ∂_J Φ⟩`.

Those three give a form's reverse rule (its pullback: `xgrad` and `lgrad` with the output's
cotangent), and its forward rule is a form too (`Forward`), whose answers are its form's
answers with one more direction or partial: so the forward rule of the forward rule, and
the reverse rule of either, come from the same three answers, to any order. Only the
atoms run generated code; everything else is the product rule and the symmetry of mixed
partial derivatives (`f` taken as smooth as the order asked, as `srcad.hessian` does).

The forms: `Gradient` (`grad`, `value_and_grad`, `grad` of a gradient, the
Hessian-vector product), `DerivativeArray` (`jacobian` in either mode, `hessian`,
`jacobian` of a `jacobian`) and `Forward` (the forward rule of any form). A form is called
through a *layout*: which of the positional arguments of the function it stands for are
`x` and which are linear inputs (`split`, `join`).
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import numpy as np

from srcad.callables import Call, check_tangents, padded
from srcad.errors import SrcadError
from srcad.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, elements_of, unthunk
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
    """`f`'s value and `∂ᵏf[t₁, ..., tₖ]` along `directions`, for `f` of any output."""
    full_args, keywords = call.arguments(args, {})
    if not directions:
        y = call.function(*full_args, **keywords)
        return y, y
    function, leading = nested_forward_rule(compiler, call, full_args, directions)
    value, derivative = function(*leading, *full_args, **keywords)
    for _ in directions[1:]:
        value, derivative = value[0], derivative[1]
    return value, derivative


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


# -- the forms -------------------------------------------------------------------------------


class Form:
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
        """Refuse, naming what to do, arguments the form cannot take."""

    def partial(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any],
                E: list[Direction]) -> Any:  # fmt: skip
        raise NotImplementedError

    def xgrad(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any], E: list[Direction],
              s: Any) -> tuple[Any, ...]:  # fmt: skip
        raise NotImplementedError

    def lgrad(self, x: tuple[Any, ...], ls: list[Any], i: int, J: dict[int, Any],
              E: list[Direction], s: Any) -> Any:  # fmt: skip
        raise NotImplementedError


class Gradient(Form):
    """`∇ₓ ∂ᵏf[fixed..., l...]` at the arguments `out` (one, or a tuple where not
    `single`), with `value`: `(∂ᵏf[...], gradient)`. `fixed`: the scalar arguments of a
    `grad` of a gradient, each the direction 1.0 there; `placements`: the argument each
    linear input is a direction of (a Hessian-vector product's `v`)."""

    def __init__(self, compiler: Any, call: Call, name: str, out: tuple[int, ...],
                 single: bool = True, value: bool = False, fixed: tuple[int, ...] = (),
                 placements: tuple[int, ...] = (), primal: Any = None) -> None:  # fmt: skip
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

    def _directions(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any],
                    E: list[Direction], skip: int | None = None) -> list[Direction]:  # fmt: skip
        count = len(x)
        fixed = [placed(count, (d,), (1.0,)) for d in self.fixed]
        linear = [
            placed(count, (p,), (J.get(j, ls[j]),))
            for j, p in enumerate(self.placements)
            if j != skip
        ]
        return [*fixed, *linear, *E]

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

    def partial(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any],
                E: list[Direction]) -> Any:  # fmt: skip
        directions = self._directions(x, ls, J, E)
        _, gradient = self._gradient(x, directions, 1.0)
        picked = gradient[self.out[0]] if self.single else tuple(gradient[p] for p in self.out)
        if not self.with_value:
            return picked
        if any(is_zero(d) for d in directions):
            return ZeroTangent(), picked
        return derivative_atom(self.compiler, self.call, x, directions)[1], picked

    def xgrad(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any], E: list[Direction],
              s: Any) -> tuple[Any, ...]:  # fmt: skip
        s_y, t = self._seed_direction(x, s)
        directions = self._directions(x, ls, J, E)
        total = self._gradient(x, [*directions, t], 1.0)[1]
        return add(total, self._gradient(x, directions, s_y)[1])

    def lgrad(self, x: tuple[Any, ...], ls: list[Any], i: int, J: dict[int, Any],
              E: list[Direction], s: Any) -> Any:  # fmt: skip
        s_y, t = self._seed_direction(x, s)
        directions = self._directions(x, ls, J, E, skip=i)
        position = self.placements[i]
        total = self._gradient(x, [*directions, t], 1.0)[1][position]
        return add(total, self._gradient(x, directions, s_y)[1][position])


class DerivativeArray(Form):
    """The array of `f`'s derivatives along every basis direction of the arguments at
    `positions`, of shape `inner.shape + x_1.shape + ... + x_k.shape`: for `jacobian`,
    `jacobian(jacobian(f))` (`inner`: `f`'s output), or, with `gradient_at`, of the
    gradient with respect to that argument (`hessian`: `inner`, that argument)."""

    def __init__(self, compiler: Any, call: Call, name: str, positions: tuple[int, ...],
                 gradient_at: int | None = None, primal: Any = None) -> None:  # fmt: skip
        self.compiler, self.call, self.name, self.primal = compiler, call, name, primal
        self.positions, self.gradient_at = positions, gradient_at

    def check(self, x: tuple[Any, ...]) -> None:
        for p in (*self.positions, *([] if self.gradient_at is None else [self.gradient_at])):
            if p >= len(x):
                raise SrcadError(
                    f"differentiating {self.name} needs the arguments it differentiates "
                    "with respect to passed by position"
                )
            if not isinstance(x[p], float | np.ndarray | np.floating):
                raise SrcadError(
                    f"srcad differentiates {self.name} in turn with respect to float and "
                    f"array arguments only, not {type(x[p]).__name__}; differentiate f "
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
        if self.gradient_at is not None:
            return x[self.gradient_at]
        full_args, keywords = self.call.arguments(x, {})
        return self.call.function(*full_args, **keywords)

    def partial(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any],
                E: list[Direction]) -> Any:  # fmt: skip
        self.check(x)
        inner = self._inner(x)
        elements = []
        for _, directions in self._bases(x):
            if any(is_zero(d) for d in E):
                element: Any = ZeroTangent()
            elif self.gradient_at is None:
                element = derivative_atom(self.compiler, self.call, x, [*directions, *E])[1]
            else:
                element = gradient_atom(
                    self.compiler, self.call, x, 1.0, [*directions, *E]
                )[1][self.gradient_at]
            element = _materialize(unthunk(element), inner)
            elements.append(np.broadcast_to(np.asarray(element, dtype=float), np.shape(inner)))
        shapes = sum((np.shape(x[p]) for p in self.positions), ())
        return np.stack(elements, axis=-1).reshape(np.shape(inner) + shapes)

    def xgrad(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any], E: list[Direction],
              s: Any) -> tuple[Any, ...]:  # fmt: skip
        self.check(x)
        s = unthunk(s)
        total: Any = zeros(len(x))
        if is_zero(s) or any(is_zero(d) for d in E):
            return total
        inner_shape = np.shape(self._inner(x))
        counts = tuple(int(np.size(x[p])) for p in self.positions)
        seeds = np.asarray(s, dtype=float).reshape(inner_shape + counts)
        for indices, directions in self._bases(x):
            part = seeds[(..., *indices)]
            if not np.any(part):
                continue
            seed = float(part) if inner_shape == () else part
            if self.gradient_at is None:
                found = gradient_atom(self.compiler, self.call, x, seed, [*directions, *E])[1]
            else:
                direction = placed(len(x), (self.gradient_at,), (seed,))
                found = gradient_atom(
                    self.compiler, self.call, x, 1.0, [*directions, *E, direction]
                )[1]
            total = add(total, found)
        return tuple(total)

    def lgrad(self, x: tuple[Any, ...], ls: list[Any], i: int, J: dict[int, Any],
              E: list[Direction], s: Any) -> Any:  # fmt: skip
        raise AssertionError("a derivative array takes no linear input")


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
        dargs, rest = unthunk(a[0]), tuple(a[1:])
        x, ls = self.inner.split(rest)
        dots = elements_of(dargs, 1 + len(rest))[1:] if not isinstance(dargs, tuple) else dargs[1:]
        dots = (*dots, *zeros(len(rest) - len(dots)))[: len(rest)]
        x_dot, l_dots = self.inner.split(tuple(dots))
        return x, [*ls, x_dot, *l_dots]

    def join(self, x_bar: tuple[Any, ...], l_bars: list[Any]) -> tuple[Any, ...]:
        n = self.inner.linear
        own = self.inner.join(x_bar, l_bars[:n])
        dots = self.inner.join(tuple(l_bars[n]), l_bars[n + 1 :])
        return (Tangent(tuple, NoTangent(), *dots), *own)

    @property
    def linear(self) -> int:  # type: ignore[override]
        return 1 + 2 * self.inner.linear

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

    def _terms(self, ls: list[Any], J: dict[int, Any]) -> tuple[dict[int, Any], list[Any]]:
        """`inner`'s partials `J_l`, and the terms of `∂_J` of the forward rule: `None` for
        the value (`Φ`), `-1` for `∂ₓΦ[ẋ]`, `j` for `∂_{lⱼ}Φ[l̇ⱼ]`; each with the
        partials and the direction (or the partial's direction) it takes."""
        n = self.inner.linear
        J_l = {i: u for i, u in J.items() if i < n}
        dot_partials = {i - n - 1: u for i, u in J.items() if i > n}
        x_dot = J.get(n, ls[n])
        terms: list[Any] = []
        if n not in J and not dot_partials:
            terms.append(("value", J_l, None))
        if not dot_partials and not is_zero(x_dot):
            terms.append(("x", J_l, x_dot))
        if n not in J:
            for j in range(n):
                if j in J_l or not set(dot_partials) <= {j}:
                    continue
                l_dot = dot_partials.get(j, ls[n + 1 + j])
                if not is_zero(l_dot):
                    terms.append(("l", {**J_l, j: l_dot}, j))
        return J_l, terms

    def _second(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any],
                E: list[Direction]) -> Any:  # fmt: skip
        inner_ls = ls[: self.inner.linear]
        total: Any = ZeroTangent()
        for kind, partials, direction in self._terms(ls, J)[1]:
            if kind == "x":
                total = add(total, self.inner.partial(x, inner_ls, partials, [*E, direction]))
            elif kind == "l":
                total = add(total, self.inner.partial(x, inner_ls, partials, E))
        return total

    def partial(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any],
                E: list[Direction]) -> Any:  # fmt: skip
        J_l, terms = self._terms(ls, J)
        has_value = any(kind == "value" for kind, _, _ in terms)
        inner_ls = ls[: self.inner.linear]
        first = self.inner.partial(x, inner_ls, J_l, E) if has_value else ZeroTangent()
        return first, self._second(x, ls, J, E)

    def xgrad(self, x: tuple[Any, ...], ls: list[Any], J: dict[int, Any], E: list[Direction],
              s: Any) -> tuple[Any, ...]:  # fmt: skip
        s0, s1 = elements_of(unthunk(s), 2)
        inner_ls = ls[: self.inner.linear]
        total: Any = zeros(len(x))
        for kind, partials, direction in self._terms(ls, J)[1]:
            if kind == "value" and not is_zero(s0):
                found = self.inner.xgrad(x, inner_ls, partials, E, s0)
            elif kind == "x" and not is_zero(s1):
                found = self.inner.xgrad(x, inner_ls, partials, [*E, direction], s1)
            elif kind == "l" and not is_zero(s1):
                found = self.inner.xgrad(x, inner_ls, partials, E, s1)
            else:
                continue
            total = add(total, found)
        return tuple(total)

    def lgrad(self, x: tuple[Any, ...], ls: list[Any], i: int, J: dict[int, Any],
              E: list[Direction], s: Any) -> Any:  # fmt: skip
        s0, s1 = elements_of(unthunk(s), 2)
        n = self.inner.linear
        inner_ls = ls[:n]
        J_l, terms = self._terms(ls, J)
        if i == n:  # `ẋ`: only `∂ₓΦ[ẋ]` reads it, linearly: `∇ₓ⟨s1, ∂_E ∂_J Φ⟩`
            if any(k > n for k in J) or is_zero(s1):
                return zeros(len(x))
            return self.inner.xgrad(x, inner_ls, J_l, E, s1)
        if i > n:  # `l̇ⱼ`: only `∂_{lⱼ}Φ[l̇ⱼ]` reads it, linearly
            j = i - n - 1
            if n in J or any(k > n for k in J) or j in J_l or is_zero(s1):
                return ZeroTangent()
            return self.inner.lgrad(x, inner_ls, j, J_l, E, s1)
        total: Any = ZeroTangent()  # `lᵢ`: every term but `∂_{lᵢ}Φ[l̇ᵢ]` may read it
        for kind, partials, direction in terms:
            if kind == "value" and not is_zero(s0):
                found = self.inner.lgrad(x, inner_ls, i, partials, E, s0)
            elif kind == "x" and not is_zero(s1):
                found = self.inner.lgrad(x, inner_ls, i, partials, [*E, direction], s1)
            elif kind == "l" and direction != i and not is_zero(s1):
                found = self.inner.lgrad(x, inner_ls, i, partials, E, s1)
            else:
                continue
            total = add(total, found)
        return total


# -- the rules of a form ---------------------------------------------------------------------


class FormFunction:
    """A form as a callable that emitted code calls by its `__name__` (the forward rule
    of a derivative, `frule_grad_of_f`): `srcad.entry_rules` gives its rules, so that it
    is differentiated in turn."""

    __slots__ = ("__name__", "__signature__", "form")

    def __init__(self, form: Form) -> None:
        self.form = form
        self.__name__ = identifier(form.name)
        self.__signature__ = inspect.Signature(
            [
                inspect.Parameter("dargs", inspect.Parameter.POSITIONAL_ONLY),
                inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
            ]
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _no_keywords(self.form, kwargs)
        return self.form.value(args)

    def __repr__(self) -> str:
        return f"<srcad rule {self.__name__}>"


class ReverseRule:
    """A form's reverse rule, under the name emitted code calls it by. srcad takes no
    derivative of a reverse rule (its own transforms never ask: second derivatives are
    reverse mode over forward rules); `srcad.entry_rules` refuses, saying so."""

    __slots__ = ("__name__", "__signature__", "rules")

    def __init__(self, rules: FormRules) -> None:
        self.rules = rules
        self.__name__ = identifier(f"rrule_{rules.form.name}")
        self.__signature__ = inspect.Signature(
            [
                inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
            ]
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.rules.reverse(*args, **kwargs)


def identifier(name: str) -> str:
    """`name` as emitted code may call it: `jacobian_<lambda>` as `jacobian__lambda_`."""
    return re.sub(r"\W", "_", name)


def _no_keywords(form: Form, kwargs: dict[str, Any]) -> None:
    if kwargs:
        raise SrcadError(
            f"differentiating {form.name} needs its arguments passed by position, not "
            f"by keyword ({', '.join(kwargs)})"
        )


class FormRules:
    """The reverse (`rrule`) and forward (`frule`) rules of a function standing for
    `form`: the pullback gives `xgrad` and `lgrad` of the output's cotangent; the forward
    rule is the `Forward` form, a `FormFunction` whose rules are these again."""

    def __init__(self, form: Form, function: Any = None) -> None:
        self.form = form
        self.function = function  # the function checked for its arguments' tangents
        self.rrule = ReverseRule(self)
        self.frule = _Frule(self)

    def reverse(self, *a: Any, **kwargs: Any) -> tuple[Any, Any]:
        form = self.form
        _no_keywords(form, kwargs)
        x, ls = form.split(a)
        form.check(x)
        result = form.value(a)

        def pullback(result_bar: Any) -> tuple[Any, ...]:
            bar = unthunk(result_bar)
            if is_zero(bar):
                return (NoTangent(), *zeros(len(a)))
            x_bar = form.xgrad(x, ls, {}, [], bar)
            l_bars = [form.lgrad(x, ls, i, {}, [], bar) for i in range(len(ls))]
            return (NoTangent(), *form.join(tuple(x_bar), l_bars))

        pullback.__name__ = f"{form.name}_pullback"
        return result, pullback


class _Frule(FormFunction):
    """The forward rule of `rules.form`: called as emitted code calls a forward rule,
    `(dargs, *args)`, its tangents checked against the arguments they perturb."""

    __slots__ = ("function",)

    def __init__(self, rules: FormRules) -> None:
        super().__init__(Forward(rules.form))
        self.function = rules.function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _no_keywords(self.form, kwargs)
        if args and self.function is not None and isinstance(args[0], tuple | list):
            check_tangents(self.function, tuple(args[0]), args[1:])
        return self.form.value(args)


# The rule objects of forms: called as functions are, and differentiated through the rules
# `srcad.entry_rules` gives them (`rules/calls.py`: never through their class's `__call__`).
RULE_TYPES = FormFunction | ReverseRule

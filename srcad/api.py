"""The public API: `differentiate`, `grad`, `value_and_grad`, `rrule` and `source`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.callables import (
    Wrapper,
    Wrt,
    callee,
    check_perturbable,
    check_tangents,
    checked_mode,
    floating,
    name_of,
    padded,
    positional_parameters,
    resolve_wrt,
    unwrap,
)
from srcad.defaults import COMPILER
from srcad.entry import Dispatcher, check_scalar, explain_failure
from srcad.errors import SrcadError
from srcad.fitting import check_seed
from srcad.kinds import signature
from srcad.registry import RuleFn, scalar_frule, scalar_rrule
from srcad.requests import Mode, Request
from srcad.source import TRANSPARENT_WRAPPERS
from srcad.tangents import NoTangent, ZeroTangent, materialize, unthunk


class Differentiable(Wrapper):
    """A function together with its compiled gradient; what `@differentiate` returns.

    Calling it runs the primal, unchanged. `grad(*args)` gives the gradient with respect
    to `wrt` (one value, or a tuple for a tuple `wrt`), `value_and_grad(*args)` the primal
    value and the gradient; both compile on first use for the kinds of the arguments
    (`srcad.kinds`) and reuse the compiled code until a rule is registered or one of
    the facts it relies on changes (`srcad.guards`). They are entry functions srcad writes
    for this function (`srcad/entry.py`, a `Dispatcher` each), so that a call costs little
    more than the generated gradient function it calls.
    """

    grad: Callable[..., Any]
    value_and_grad: Callable[..., tuple[Any, Any]]

    def __init__(self, func: Callable[..., Any], wrt: Wrt = 0) -> None:
        callee(func)  # refuses what srcad cannot differentiate, now
        functools.update_wrapper(self, func)
        self.func = func
        self.wrt, self._wrt_is_tuple = resolve_wrt(func, wrt)
        params = positional_parameters(func)
        self._positions = tuple(params.index(name) for name in self.wrt)
        self._entries = {
            value: Dispatcher(
                COMPILER, func, self.wrt, self._positions, self._wrt_is_tuple, value, params
            )
            for value in (False, True)
        }
        for value, entry in self._entries.items():
            entry.function.__doc__ = (
                "The primal value and its gradient with respect to `wrt`."
                if value
                else "The gradient with respect to `wrt`: one value, or a tuple for a tuple `wrt`."
            )
            entry.function.__qualname__ = f"{name_of(func)}.{entry.name}"
            entry.function.srcad_gradient_of = self
            # `f`'s parameters, so that `wrt` names them when it is differentiated in turn.
            entry.function.__signature__ = _signature(func)
        self.grad = self._entries[False].function
        self.value_and_grad = self._entries[True].function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def rrule(self, *args: Any, **kwargs: Any) -> tuple[Any, RuleFn]:
        """`(y, pullback)`, the pullback returning a cotangent for every positional argument."""
        return rrule(self.func, *args, **kwargs)

    def frule(self, dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """`(y, y_dot)` for argument tangents `dargs = (f_dot, *arg_dots)`."""
        return frule(dargs, self.func, *args, **kwargs)

    def source(
        self, mode: str = "reverse", wrt: Wrt | None = None, args: tuple[Any, ...] = ()
    ) -> str:
        """The emitted source of the rule for `wrt` (default: the decorator's `wrt`), as
        specialised for arguments like `args` (default: for any arguments)."""
        return source(self.func, mode=mode, wrt=self.wrt if wrt is None else wrt, args=args)

    def __repr__(self) -> str:
        return f"<srcad.Differentiable {name_of(self.func)} wrt={self.wrt}>"


def _signature(func: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(func)
    except (TypeError, ValueError):
        return None


# Calling a `Differentiable` calls its function: srcad differentiates that function.
TRANSPARENT_WRAPPERS.add(Differentiable)


def differentiate(func: Callable[..., Any] | None = None, *, wrt: Wrt = 0) -> Any:
    """Decorator: `@differentiate` or `@differentiate(wrt=("w", "b"))`."""
    if func is None:
        return lambda f: Differentiable(f, wrt)
    return Differentiable(func, wrt)


def _unwrap(f: Any) -> Callable[..., Any]:
    return unwrap(f)


def grad(f: Callable[..., Any], wrt: Wrt = 0) -> Callable[..., Any]:
    """The gradient function of a real-scalar-valued `f` with respect to `wrt`.

    Given a gradient function (`srcad.grad(g)` or a decorated `g.grad`) with respect to one
    argument, it gives the second derivatives: `grad(grad(g))(x)` is g''(x), computed by
    reverse mode over the frule srcad generates for `g`.
    """
    inner = getattr(f, "srcad_gradient_of", None)
    if isinstance(inner, Differentiable) and f is inner.grad:
        return _second_derivative(inner, wrt)
    return Differentiable(_unwrap(f), wrt).grad


def value_and_grad(f: Callable[..., Any], wrt: Wrt = 0) -> Callable[..., tuple[Any, Any]]:
    """A function returning `(f(...), gradient)`."""
    return Differentiable(_unwrap(f), wrt).value_and_grad


def source(
    f: Callable[..., Any],
    mode: str = "reverse",
    wrt: Wrt | None = None,
    args: tuple[Any, ...] = (),
) -> str:
    """The emitted source of `f`'s rule (`mode="reverse"`: the rrule; `"forward"`: the
    frule), followed by the rules of the functions it calls.

    Given example arguments `args`, the reverse rule is the one srcad uses for arguments
    of their kinds (`srcad.kinds`: float, int, float or int arrays by number of dimensions):
    where kinds are known, derivatives are inlined as plain arithmetic. The forward rule
    is the one `frule` and `jvp` use for such arguments: an int among them is not
    differentiated. For a bound method, a callable object or a partial, it is the rule of
    the function they call."""
    f = _unwrap(f)
    call = callee(f)
    checked = checked_mode(mode)
    if not isinstance(args, tuple | list):
        raise SrcadError(
            f"source: args={args!r:.60} should be a tuple of example arguments, such as "
            "(1.0, np.zeros(3))"
        )
    reverse = checked is Mode.REVERSE
    names = None if wrt is None or not reverse else resolve_wrt(f, wrt)[0]
    kinds = signature(call.arguments(tuple(args), {})[0]) if args else ()
    if not reverse and args:
        names = COMPILER.wrt_for(
            call.function, call.arguments(tuple(args), {})[0], Request.frule(kinds)
        )
    request = Request.rrule(kinds) if reverse else Request.frule(kinds)
    return COMPILER.sources(call.function, names, request)


def jvp(f: Callable[..., Any], args: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    """`(f(*args), J @ tangents)`: the Jacobian-vector product, in forward mode. A
    tangent for a float argument is taken in that argument's float type."""
    if not isinstance(args, tuple | list) or not isinstance(tangents, tuple | list):
        raise SrcadError(
            "jvp takes a tuple of arguments and a tuple of tangents, one for each: "
            "srcad.jvp(f, (x,), (x_dot,))"
        )
    if len(args) != len(tangents):
        raise SrcadError(f"jvp: {len(args)} arguments but {len(tangents)} tangents")
    for position, (arg, tangent) in enumerate(zip(args, tangents, strict=True)):
        check_seed(f"jvp: the tangent of argument {position}", tangent, arg)
    tangents = tuple(floating(t, a) for t, a in zip(tangents, args, strict=True))
    check_tangents(f, (NoTangent(), *tangents), args)
    y, y_dot = frule((NoTangent(), *tangents), f, *args)
    return y, floating(_shaped_like(unthunk(y_dot), y), y)


def vjp(f: Callable[..., Any], *args: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """`(f(*args), vjp_fn)`; `vjp_fn(y_bar)` gives one cotangent per argument, projected
    onto it (NoTangent() for an int, the argument's float type for a float)."""
    y, pullback = rrule(f, *args)

    def vjp_fn(y_bar: Any) -> tuple[Any, ...]:
        check_seed("vjp: the cotangent of the result", y_bar, y)
        # One per argument passed (a compiled pullback has one per parameter besides).
        bars = pullback(y_bar)[1 : 1 + len(args)]
        return tuple(floating(unthunk(c), a) for c, a in zip(bars, args, strict=False))

    return y, vjp_fn


def _shaped_like(tangent: Any, primal: Any) -> Any:
    """A tangent as an array (or float) of its primal's shape: zeros materialised, a
    broadcast tangent expanded."""
    tangent = materialize(tangent, primal)
    if isinstance(primal, np.ndarray) and np.shape(tangent) != primal.shape:
        return np.broadcast_to(tangent, primal.shape).copy()
    return tangent


def _positions(func: Callable[..., Any], wrt: Wrt) -> tuple[list[int], bool]:
    """The positions of the arguments `wrt` names, and whether it is a tuple."""
    names, as_tuple = resolve_wrt(func, wrt)
    params = positional_parameters(func)
    return [params.index(n) for n in names], as_tuple


def jacobian(f: Callable[..., Any], wrt: Wrt = 0, mode: str = "reverse") -> Callable[..., Any]:
    """A function giving the Jacobian of `f` with respect to `wrt`: an array of shape
    `output.shape + argument.shape` (the argument's shape for a scalar output); a tuple of
    them for a tuple `wrt`. `mode="reverse"` takes one pullback per output element,
    `"forward"` one pushforward per input element."""
    func = _unwrap(f)
    callee(func)
    reverse = checked_mode(mode) is Mode.REVERSE
    positions, as_tuple = _positions(func, wrt)

    def jacobian_of(*args: Any) -> Any:
        check_perturbable(func, args, {}, positions)
        if reverse:
            y, vjp_fn = vjp(func, *args)
            blocks = _reverse_jacobian(vjp_fn, y, args, positions)
        else:
            blocks = [_forward_jacobian(func, args, p) for p in positions]
        return tuple(blocks) if as_tuple else blocks[0]

    return jacobian_of


def _second_derivative(first: Differentiable, wrt: Wrt) -> Callable[..., Any]:
    if first._wrt_is_tuple:
        raise SrcadError("grad of a gradient with respect to several arguments is not a "
                         "scalar function; use srcad.hessian")  # fmt: skip
    outer, as_tuple = _positions(first.func, wrt)
    (inner,) = first._positions

    def second_derivative(*args: Any) -> Any:
        callee(first.func).check_arguments(args, {})
        check_perturbable(first.func, args, {}, [inner, *outer])
        if np.ndim(args[inner]) != 0:
            raise SrcadError(
                "grad of a gradient needs the gradient to be a scalar: differentiate with "
                "respect to a scalar argument, or use srcad.hessian"
            )
        row = _hessian_row(first.func, args, inner, 1.0, "grad of a gradient")
        values = tuple(floating(_shaped_like(row[i], args[i]), args[i]) for i in outer)
        return values if as_tuple else values[0]

    return second_derivative


def _hessian_row(func: Callable[..., Any], args: tuple[Any, ...], position: int,
                 direction: Any, what: str) -> tuple[Any, ...]:  # fmt: skip
    """`(H @ v)` for each argument, with `v` the tangent `direction` of argument `position`:
    the reverse rule of `func`'s generated forward rule, seeded on the output tangent."""
    call = callee(func)
    full_args, keywords = call.arguments(args, {})
    wrt = COMPILER.wrt_for(call.function, full_args, Request.frule())
    forward = COMPILER.compiled(call.function, wrt, Request.frule()).function
    tangents: list[Any] = [ZeroTangent()] * len(args)
    tangents[position] = direction
    dargs = padded(call.tangents((NoTangent(), *tangents)), call.function)
    (y, _), pullback = rrule(forward, dargs, *full_args, **keywords)
    check_scalar(y, call.f, what)  # the seed 1.0 would sum the Hessians of an array's elements
    try:
        cotangents = pullback((ZeroTangent(), 1.0))
    except TypeError:
        explain_failure(call, args, {}, what)
        raise
    return tuple(unthunk(c) for c in cotangents[2 + len(call.bound) :])


def hessian(f: Callable[..., Any], wrt: Wrt = 0) -> Callable[..., Any]:
    """A function giving the Hessian of a real-scalar-valued `f` with respect to `wrt`: an
    array of shape `x.shape + x.shape` (for a tuple `wrt`, a tuple of tuples of blocks).
    Each column is a Hessian-vector product: reverse mode over `f`'s generated frule."""
    func = _unwrap(f)
    callee(func)
    positions, as_tuple = _positions(func, wrt)

    def hessian_of(*args: Any) -> Any:
        callee(func).check_arguments(args, {})
        check_perturbable(func, args, {}, positions)
        blocks = []
        for i in positions:
            row_blocks = []
            for j in positions:
                columns = []
                x = args[j]
                for index in range(int(np.size(x))):
                    basis = np.zeros(np.shape(x))
                    basis.reshape(-1)[index] = 1.0
                    direction = basis if isinstance(x, np.ndarray) else float(basis)
                    hv = _hessian_row(func, args, j, direction, "hessian")[i]
                    columns.append(np.asarray(_shaped_like(hv, args[i]), dtype=float))
                block = np.stack(columns, axis=-1).reshape(np.shape(args[i]) + np.shape(x))
                row_blocks.append(block)
            blocks.append(tuple(row_blocks))
        if as_tuple:
            return tuple(blocks)
        return blocks[0][0]

    return hessian_of


def hessian_vector_product(f: Callable[..., Any], wrt: int | str = 0) -> Callable[..., Any]:
    """A function `(*args, v) -> H @ v` for a real-scalar-valued `f` and one argument `wrt`,
    at the cost of one forward and one reverse sweep, whatever the size."""
    func = _unwrap(f)
    callee(func)
    if not isinstance(wrt, int | str):
        raise SrcadError(
            f"hessian_vector_product differentiates with respect to one argument: wrt "
            f"takes an int or a parameter name, not {wrt!r}"
        )
    (position,), _ = _positions(func, wrt)

    def product(*args_and_v: Any) -> Any:
        if not args_and_v:
            raise SrcadError(
                f"the Hessian-vector product of {name_of(func)} takes its arguments and "
                "then the vector v"
            )
        *args, v = args_and_v
        callee(func).check_arguments(tuple(args), {})
        check_perturbable(func, tuple(args), {}, [position])
        hv = _hessian_row(func, tuple(args), position, v, "hessian_vector_product")[position]
        return floating(_shaped_like(hv, args[position]), args[position])

    return product


def _reverse_jacobian(
    vjp_fn: Callable[[Any], tuple[Any, ...]], y: Any, args: tuple[Any, ...], positions: list[int]
) -> list[Any]:
    out_shape = np.shape(y)
    rows: list[list[Any]] = [[] for _ in positions]
    for index in range(int(np.prod(out_shape))):
        seed = np.zeros(out_shape)
        seed.reshape(-1)[index] = 1.0
        cotangents = vjp_fn(seed if out_shape else 1.0)
        for row, position in zip(rows, positions, strict=True):
            row.append(np.asarray(_shaped_like(cotangents[position], args[position])))
    return [
        np.stack(row).reshape(out_shape + np.shape(args[position]))
        for row, position in zip(rows, positions, strict=True)
    ]


def _forward_jacobian(func: Callable[..., Any], args: tuple[Any, ...], position: int) -> Any:
    x = args[position]
    columns = []
    for index in range(int(np.size(x))):
        basis = np.zeros(np.shape(x))
        basis.reshape(-1)[index] = 1.0
        tangent = basis if isinstance(x, np.ndarray) else float(basis)
        tangents = tuple(tangent if i == position else ZeroTangent() for i in range(len(args)))
        y, y_dot = jvp(func, args, tangents)
        columns.append(np.asarray(y_dot))
    out_shape = np.shape(y)
    stacked = np.stack(columns, axis=-1)
    return stacked.reshape(out_shape + np.shape(x))


class RRule:
    """`srcad.rrule(f, *args)` gives `(y, pullback)`: `f`'s registered rule, else a compiled one.

    `@srcad.rrule.register(f)` registers the decorated function as `f`'s reverse rule.
    """

    def __call__(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, RuleFn]:
        return COMPILER.rrule(f, *args, **kwargs)

    def register(
        self, primal: Callable[..., Any], *, config: bool = False
    ) -> Callable[[RuleFn], RuleFn]:
        """Decorator registering a reverse rule `rule(*args) -> (y, pullback)` for `primal`
        (with `config=True`, `rule(config, *args)`, for rules that call back into srcad).

        `primal` may be a function, a class (a rule for its constructor), or a class's
        `__call__` (a rule for calling its instances: the pullback's first cotangent is
        then the instance's)."""
        _check_registrable(primal)

        def register(rule: RuleFn) -> RuleFn:
            COMPILER.registry.register_rrule(_unwrap(primal), _checked_rule(rule), config=config)
            return rule

        return register


rrule = RRule()


class FRule:
    """`srcad.frule((f_dot, *arg_dots), f, *args)` gives `(y, y_dot)`: `f`'s registered
    forward rule, else the one srcad compiles from its source.

    `@srcad.frule.register(f)` registers one: `rule((f_dot, *arg_dots), *args)`. A nonzero
    tangent for an argument that cannot be perturbed (an int) is refused.
    """

    def __call__(
        self, dargs: tuple[Any, ...], f: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        return COMPILER.frule(dargs, f, *args, **kwargs)

    def register(
        self, primal: Callable[..., Any], *, config: bool = False
    ) -> Callable[[RuleFn], RuleFn]:
        """Decorator registering a forward rule `rule((f_dot, *arg_dots), *args)`."""
        _check_registrable(primal)

        def register(rule: RuleFn) -> RuleFn:
            COMPILER.registry.register_frule(_unwrap(primal), _checked_rule(rule), config=config)
            return rule

        return register


frule = FRule()


def _check_registrable(primal: Any) -> None:
    if not callable(primal) and not isinstance(primal, staticmethod | classmethod):
        raise SrcadError(
            f"rules are for functions (or classes, or a class's __call__), not for "
            f"{type(primal).__name__} {primal!r:.60}"
        )


def _checked_rule(rule: Any, what: str = "a rule") -> Any:
    if not callable(rule):
        raise SrcadError(f"{what} must be a function, not {type(rule).__name__} {rule!r:.60}")
    return rule


def scalar_rule(f: Callable[..., Any], *partials: Callable[..., Any]) -> None:
    """Both rules of a scalar (or elementwise) function from its partial derivatives, each
    taking the arguments and then the result: `scalar_rule(math.sinh, lambda x, y: math.cosh(x))`.
    """
    _check_registrable(f)
    for partial in partials:
        _checked_rule(partial, "a partial derivative")
    COMPILER.registry.register_rrule(f, scalar_rrule(f, *partials), projected=True)
    COMPILER.registry.register_frule(f, scalar_frule(f, *partials))


def non_differentiable(*functions: Callable[..., Any]) -> None:
    """Mark functions whose results carry no derivative (sizes, predicates, indices)."""
    for f in functions:
        _check_registrable(f)
    COMPILER.registry.register_non_differentiable(*(_unwrap(f) for f in functions))


def opt_out(f: Callable[..., Any], predicate: Callable[..., bool]) -> None:
    """Calls of `f` whose arguments satisfy `predicate(*args, **kwargs)` are differentiated
    through `f`'s own source instead of its registered rule."""
    _check_registrable(f)
    _checked_rule(predicate, "an opt-out predicate")
    COMPILER.registry.register_opt_out(_unwrap(f), predicate)

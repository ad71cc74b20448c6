"""The public API: `differentiate`, `grad`, `value_and_grad`, `rrule` and `source`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad import compiler
from srcad.entry import Entry
from srcad.errors import SrcadError
from srcad.guards import Guards
from srcad.kinds import Signature, signature
from srcad.registry import REGISTRY, RuleFn, scalar_frule, scalar_rrule
from srcad.source import TRANSPARENT_WRAPPERS
from srcad.tangents import NoTangent, ZeroTangent, materialize, unthunk

Wrt = int | str | tuple[int | str, ...]


def positional_parameters(func: Callable[..., Any]) -> list[str]:
    """The names of the parameters a pullback returns cotangents for, in order."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in inspect.signature(func).parameters.values() if p.kind in kinds]


def resolve_wrt(func: Callable[..., Any], wrt: Wrt) -> tuple[tuple[str, ...], bool]:
    """Turn `wrt` (an int, a parameter name, or a tuple of them) into parameter names.

    The flag says whether the caller asked for a tuple (and so gets a tuple back).
    """
    params = positional_parameters(func)
    items = wrt if isinstance(wrt, tuple) else (wrt,)
    names = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | str):
            raise SrcadError(f"wrt takes ints and parameter names, not {item!r}")
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                raise SrcadError(
                    f"wrt={item} is out of range: {func.__name__} has {len(params)} "
                    f"positional parameters {tuple(params)}"
                )
            names.append(params[item])
        elif item in params:
            names.append(item)
        else:
            raise SrcadError(
                f"wrt={item!r} names no positional parameter of {func.__name__}: "
                f"choose from {tuple(params)}"
            )
    if len(set(names)) != len(names):
        raise SrcadError(f"wrt={wrt!r} names a parameter twice")
    return tuple(names), isinstance(wrt, tuple)


def _seeded(rrule: RuleFn) -> RuleFn:
    """`(y, pullback(1.0))` from a registered rrule, as a generated `grad_f` gives it."""

    def gradient(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        y, pullback = rrule(*args, **kwargs)
        return y, pullback(1.0)

    return gradient


def _check_scalar(y: Any, func: Callable[..., Any]) -> None:
    integer = isinstance(y, int | np.integer) and not isinstance(y, bool)
    if isinstance(y, float | np.floating) or integer:
        return
    if isinstance(y, np.ndarray) and y.ndim == 0 and y.dtype.kind in "fiu":
        return
    raise SrcadError(
        f"grad needs {func.__name__} to return a real scalar, but it returned "
        f"{type(y).__name__} with shape {np.shape(y)}; use srcad.rrule for a pullback "
        "that takes any output cotangent"
    )


class Differentiable:
    """A function together with its compiled gradient; what `@differentiate` returns.

    Calling it runs the primal, unchanged. `grad(*args)` gives the gradient with respect
    to `wrt` (one value, or a tuple for a tuple `wrt`), `value_and_grad(*args)` the primal
    value and the gradient; both compile on first use for the kinds of the arguments
    (`srcad.kinds`) and reuse the compiled code until a rule is registered or one of
    the facts it relies on changes (`srcad.guards`). They are
    functions srcad writes for this function (`srcad/entry.py`), so that a call costs
    little more than the generated gradient function it calls.
    """

    grad: Callable[..., Any]
    value_and_grad: Callable[..., tuple[Any, Any]]

    def __init__(self, func: Callable[..., Any], wrt: Wrt = 0) -> None:
        functools.update_wrapper(self, func)
        self.func = func
        self.wrt, self._wrt_is_tuple = resolve_wrt(func, wrt)
        params = positional_parameters(func)
        self._positions = tuple(params.index(name) for name in self.wrt)
        self._single = None if self._wrt_is_tuple else self._positions[0]
        # The function giving `(y, cotangents)`, and whether it leaves `y` out (None,
        # proven a real float), by the kinds of the arguments and whether `y` is needed.
        self._gradients: dict[tuple[Signature, bool], tuple[RuleFn, bool, Guards]] = {}
        self._version = -1
        self._entries = {
            value: Entry(
                "value_and_grad" if value else "grad",
                params,
                self._positions,
                single=not self._wrt_is_tuple,
                value=value,
                general=functools.partial(self._general, value=value),
                finish=functools.partial(self._finish, value=value),
            )
            for value in (False, True)
        }
        for value, entry in self._entries.items():
            entry.function.__doc__ = (
                "The primal value and its gradient with respect to `wrt`."
                if value
                else "The gradient with respect to `wrt`: one value, or a tuple for a tuple `wrt`."
            )
            entry.function.__qualname__ = f"{func.__qualname__}.{entry.name}"
            entry.function.srcad_gradient_of = self
        self.grad = self._entries[False].function
        self.value_and_grad = self._entries[True].function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def _gradient_for(self, args: tuple[Any, ...], value: bool) -> tuple[RuleFn, bool]:
        """The function giving `(y, pullback(1.0))` for `wrt`, specialised for the kinds of
        `args`: the generated `grad_f`, or a registered rule's; and whether it gives None
        for `y`, proven a real float (only without `value`, for `grad`). The entry function
        gets a branch calling it."""
        kinds = signature(args)
        if self._version != REGISTRY.version:
            self._gradients.clear()
            self._version = REGISTRY.version
        found = self._gradients.get((kinds, value))
        if found is not None and found[2].hold():  # its guards: `srcad.guards`
            return found[:2]
        rule = REGISTRY.rrule_for(self.func)  # a registered rule wins over the source
        if rule is not None:
            found = (_seeded(rule.rrule), False, Guards())
        else:
            compiled = compiler.compiled(self.func, self.wrt, "reverse", kinds, True, value)
            found = (compiled.function, compiled.value_left_out, compiled.guards)
        self._gradients[(kinds, value)] = found
        self._entries[value].add(
            kinds, found[0], found[1], _entry_guards(self.func, found[2], args)
        )
        return found[:2]

    def _general(self, args: tuple[Any, ...], kwargs: dict[str, Any], value: bool) -> Any:
        """What an entry function gives, for any call."""
        gradient, value_left_out = self._gradient_for(args, value)
        y, cotangents = gradient(*args, **kwargs)
        return self._finish(y, cotangents, args, kwargs, value_left_out, value)

    def _finish(self, y: Any, cotangents: tuple[Any, ...], args: tuple[Any, ...],
                kwargs: dict[str, Any], value_left_out: bool, value: bool) -> Any:  # fmt: skip
        """The gradient (with `value`: `(y, gradient)`) from what a gradient function
        gave, in general: the result checked, zeros materialised, tuples for tuples."""
        if not (y is None and value_left_out):
            _check_scalar(y, self.func)
        if self._single is not None:
            gradient = self._gradient(cotangents[self._single + 1], args, kwargs, self._single)
        else:
            gradient = tuple(
                self._gradient(cotangents[i + 1], args, kwargs, i) for i in self._positions
            )
        return (y, gradient) if value else gradient

    def _gradient(
        self, cotangent: Any, args: tuple[Any, ...], kwargs: dict[str, Any], position: int
    ) -> Any:
        if position < len(args):
            primal = args[position]
        else:
            primal = _argument(args, kwargs, self.func, position)
        if isinstance(cotangent, NoTangent) or not _perturbable(primal):
            name = positional_parameters(self.func)[position]
            raise SrcadError(
                f"cannot take the gradient of {self.func.__name__} with respect to `{name}`: "
                f"it is a {type(primal).__name__}, which cannot be perturbed; pass a float "
                "(or a float array), or leave it out of wrt"
            )
        return materialize(cotangent, primal)

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
        return f"<srcad.Differentiable {self.func.__qualname__} wrt={self.wrt}>"


def _entry_guards(func: Callable[..., Any], guards: Guards, args: tuple[Any, ...]) -> Guards:
    """The guards an entry function's branch for `args` checks: a call passing every
    positional argument, and none keyword-only, never reads the function's default values
    (reading a function's attribute costs as much as the rest of the entry's checks)."""
    code = getattr(func, "__code__", None)
    if code is None or len(args) < code.co_argcount or code.co_kwonlyargcount:
        return guards
    return guards.without(func, ("__defaults__", "__kwdefaults__"))


# Calling a `Differentiable` calls its function: srcad differentiates that function.
TRANSPARENT_WRAPPERS.add(Differentiable)


def _perturbable(primal: Any) -> bool:
    """Whether a value has a derivative to take: not an int, bool, string or None."""
    if isinstance(primal, bool | int | str | bytes) or primal is None:
        return False
    if isinstance(primal, np.ndarray | np.generic):
        return primal.dtype.kind in "fc"
    return True


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], func: Any, position: int) -> Any:
    if position < len(args):
        return args[position]
    name = positional_parameters(func)[position]
    if name in kwargs:
        return kwargs[name]
    return inspect.signature(func).parameters[name].default


def differentiate(func: Callable[..., Any] | None = None, *, wrt: Wrt = 0) -> Any:
    """Decorator: `@differentiate` or `@differentiate(wrt=("w", "b"))`."""
    if func is None:
        return lambda f: Differentiable(f, wrt)
    return Differentiable(func, wrt)


def _unwrap(f: Any) -> Callable[..., Any]:
    return f.func if isinstance(f, Differentiable) else f


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
    where kinds are known, derivatives are inlined as plain arithmetic."""
    f = _unwrap(f)
    if mode not in ("reverse", "forward"):
        raise SrcadError(f"mode={mode!r}: choose 'reverse' or 'forward'")
    names = None if wrt is None or mode == "forward" else resolve_wrt(f, wrt)[0]
    kinds = signature(args) if mode == "reverse" else ()
    return compiler.sources(f, names, mode, kinds)


def jvp(f: Callable[..., Any], args: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    """`(f(*args), J @ tangents)`: the Jacobian-vector product, in forward mode."""
    if len(args) != len(tangents):
        raise SrcadError(f"jvp: {len(args)} arguments but {len(tangents)} tangents")
    y, y_dot = frule((NoTangent(), *tangents), f, *args)
    return y, _shaped_like(unthunk(y_dot), y)


def vjp(f: Callable[..., Any], *args: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """`(f(*args), vjp_fn)`; `vjp_fn(y_bar)` gives one cotangent per argument."""
    y, pullback = rrule(f, *args)

    def vjp_fn(y_bar: Any) -> tuple[Any, ...]:
        return tuple(unthunk(c) for c in pullback(y_bar)[1:])

    return y, vjp_fn


def _shaped_like(tangent: Any, primal: Any) -> Any:
    """A tangent as an array (or float) of its primal's shape: zeros materialised, a
    broadcast tangent expanded."""
    tangent = materialize(tangent, primal)
    if isinstance(primal, np.ndarray) and np.shape(tangent) != primal.shape:
        return np.broadcast_to(tangent, primal.shape).copy()
    return tangent


def jacobian(f: Callable[..., Any], wrt: Wrt = 0, mode: str = "reverse") -> Callable[..., Any]:
    """A function giving the Jacobian of `f` with respect to `wrt`: an array of shape
    `output.shape + argument.shape` (the argument's shape for a scalar output); a tuple of
    them for a tuple `wrt`. `mode="reverse"` takes one pullback per output element,
    `"forward"` one pushforward per input element."""
    func = _unwrap(f)
    names, as_tuple = resolve_wrt(func, wrt)
    positions = [positional_parameters(func).index(n) for n in names]

    def jacobian_of(*args: Any) -> Any:
        if mode == "reverse":
            y, vjp_fn = vjp(func, *args)
            blocks = _reverse_jacobian(vjp_fn, y, args, positions)
        elif mode == "forward":
            blocks = [_forward_jacobian(func, args, p) for p in positions]
        else:
            raise SrcadError(f"mode={mode!r}: choose 'reverse' or 'forward'")
        return tuple(blocks) if as_tuple else blocks[0]

    return jacobian_of


def _second_derivative(first: Differentiable, wrt: Wrt) -> Callable[..., Any]:
    if first._wrt_is_tuple:
        raise SrcadError("grad of a gradient with respect to several arguments is not a "
                         "scalar function; use srcad.hessian")  # fmt: skip
    names, as_tuple = resolve_wrt(first.func, wrt)
    params = positional_parameters(first.func)
    outer = [params.index(n) for n in names]
    (inner,) = first._positions

    def second_derivative(*args: Any) -> Any:
        if np.ndim(args[inner]) != 0:
            raise SrcadError(
                "grad of a gradient needs the gradient to be a scalar: differentiate with "
                "respect to a scalar argument, or use srcad.hessian"
            )
        row = _hessian_row(first.func, args, inner, 1.0)
        values = tuple(_shaped_like(row[i], args[i]) for i in outer)
        return values if as_tuple else values[0]

    return second_derivative


def _hessian_row(func: Callable[..., Any], args: tuple[Any, ...], position: int,
                 direction: Any) -> tuple[Any, ...]:  # fmt: skip
    """`(H @ v)` for each argument, with `v` the tangent `direction` of argument `position`:
    the reverse rule of `func`'s generated forward rule, seeded on the output tangent."""
    forward = compiler.compiled_frule(func).function
    tangents = [ZeroTangent()] * len(args)
    tangents[position] = direction
    _, pullback = rrule(forward, (NoTangent(), *tangents), *args)
    cotangents = pullback((ZeroTangent(), 1.0))
    return tuple(unthunk(c) for c in cotangents[2:])


def hessian(f: Callable[..., Any], wrt: Wrt = 0) -> Callable[..., Any]:
    """A function giving the Hessian of a real-scalar-valued `f` with respect to `wrt`: an
    array of shape `x.shape + x.shape` (for a tuple `wrt`, a tuple of tuples of blocks).
    Each column is a Hessian-vector product: reverse mode over `f`'s generated frule."""
    func = _unwrap(f)
    names, as_tuple = resolve_wrt(func, wrt)
    positions = [positional_parameters(func).index(n) for n in names]

    def hessian_of(*args: Any) -> Any:
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
                    hv = _hessian_row(func, args, j, direction)[i]
                    columns.append(np.asarray(_shaped_like(hv, args[i])))
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
    (name,), _ = resolve_wrt(func, wrt)
    position = positional_parameters(func).index(name)

    def product(*args_and_v: Any) -> Any:
        *args, v = args_and_v
        hv = _hessian_row(func, tuple(args), position, v)[position]
        return _shaped_like(hv, args[position])

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


# Whether srcad generates forward-mode code from source (RuleConfig.has_forward_mode).
FORWARD_MODE_AVAILABLE = True


class RRule:
    """`srcad.rrule(f, *args)` gives `(y, pullback)`: `f`'s registered rule, else a compiled one.

    `@srcad.rrule.register(f)` registers the decorated function as `f`'s reverse rule.
    """

    def __call__(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, RuleFn]:
        f = _unwrap(f)
        rule = REGISTRY.rrule_for(f)
        if rule is not None:
            result: tuple[Any, RuleFn] = rule.rrule(*args, **kwargs)
            return result
        kinds = signature(args)
        return compiler.compiled(f, None, "reverse", kinds).function(*args, **kwargs)

    def register(
        self, primal: Callable[..., Any], *, config: bool = False
    ) -> Callable[[RuleFn], RuleFn]:
        """Decorator registering a reverse rule `rule(*args) -> (y, pullback)` for `primal`
        (with `config=True`, `rule(config, *args)`, for rules that call back into srcad).

        `primal` may be a function, a class (a rule for its constructor), or a class's
        `__call__` (a rule for calling its instances: the pullback's first cotangent is
        then the instance's)."""

        def register(rule: RuleFn) -> RuleFn:
            REGISTRY.register_rrule(_unwrap(primal), rule, config=config)
            return rule

        return register


rrule = RRule()


class FRule:
    """`srcad.frule((f_dot, *arg_dots), f, *args)` gives `(y, y_dot)`: `f`'s registered
    forward rule, else the one srcad compiles from its source.

    `@srcad.frule.register(f)` registers one: `rule((f_dot, *arg_dots), *args)`.
    """

    def __call__(
        self, dargs: tuple[Any, ...], f: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        f = _unwrap(f)
        rule = REGISTRY.frule_for(f)
        if rule is not None:
            result: tuple[Any, Any] = rule.rrule(dargs, *args, **kwargs)
            return result
        result = compiler.compiled_frule(f).function(dargs, *args, **kwargs)
        return result

    def register(
        self, primal: Callable[..., Any], *, config: bool = False
    ) -> Callable[[RuleFn], RuleFn]:
        """Decorator registering a forward rule `rule((f_dot, *arg_dots), *args)`."""

        def register(rule: RuleFn) -> RuleFn:
            REGISTRY.register_frule(_unwrap(primal), rule, config=config)
            return rule

        return register


frule = FRule()


def scalar_rule(f: Callable[..., Any], *partials: Callable[..., Any]) -> None:
    """Both rules of a scalar (or elementwise) function from its partial derivatives, each
    taking the arguments and then the result: `scalar_rule(math.sinh, lambda x, y: math.cosh(x))`.
    """
    REGISTRY.register_rrule(f, scalar_rrule(f, *partials))
    REGISTRY.register_frule(f, scalar_frule(f, *partials))


def non_differentiable(*functions: Callable[..., Any]) -> None:
    """Mark functions whose results carry no derivative (sizes, predicates, indices)."""
    REGISTRY.register_non_differentiable(*(_unwrap(f) for f in functions))


def opt_out(f: Callable[..., Any], predicate: Callable[..., bool]) -> None:
    """Calls of `f` whose arguments satisfy `predicate(*args, **kwargs)` are differentiated
    through `f`'s own source instead of its registered rule."""
    REGISTRY.register_opt_out(_unwrap(f), predicate)

"""The public API: `differentiate`, `grad`, `value_and_grad`, `rrule` and `source`."""

from __future__ import annotations

import contextlib
import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad import pickling
from srcad.batched import batched_columns
from srcad.callables import (
    Wrapper,
    Wrt,
    callee,
    check_perturbable,
    check_tangents,
    checked_mode,
    floating,
    name_of,
    perturbable,
    positional_parameters,
    resolve_wrt,
    unwrap,
    wrt_parameters,
)
from srcad.defaults import COMPILER
from srcad.display import SourceText
from srcad.entry import Dispatcher, check_scalar, clear_entries, explain_failure, not_scalar
from srcad.entry_rules import (
    DERIVATIVE,
    FORM,
    GRADIENT,
    JACOBIAN,
    derivative_array,
    directional_gradient,
)
from srcad.errors import SrcadError
from srcad.fitting import check_seed
from srcad.forms import DerivativeArray, Form, Gradient, Pullback
from srcad.forward_entry import clear_forward_entries, forward_entry
from srcad.kinds import signature
from srcad.registry import RuleFn
from srcad.requests import Mode, Request
from srcad.rule_api import FRule as FRule
from srcad.rule_api import RRule as RRule
from srcad.rule_api import frule as frule
from srcad.rule_api import non_differentiable as non_differentiable
from srcad.rule_api import opt_out as opt_out
from srcad.rule_api import rrule as rrule
from srcad.rule_api import scalar_rule as scalar_rule
from srcad.second_derivatives import hessian_block, hessian_row, one_hot, one_leaf
from srcad.source import TRANSPARENT_WRAPPERS
from srcad.structured_jacobian import (
    forward_block,
    is_structured,
    reverse_blocks,
    reverse_jacobian,
)
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    materialize,
    structural,
    unthunk,
)
from srcad.tracebacks import annotate
from srcad.trees import children, leaves, refuse_foreign_values, structured, tree_map


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
        self.wrt, self._wrt_is_tuple = resolve_wrt(func, wrt, keywords=True)
        params = positional_parameters(func)
        self._positions = tuple(wrt_parameters(func).index(name) for name in self.wrt)
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
            # Pickled by that name where the module binds the function to this object (a
            # decorated function), else by the name `srcad.pickling` gives it, if any.
            entry.function.__module__ = getattr(func, "__module__", None)
            entry.function.srcad_gradient_of = self
            # `f`'s parameters, so that `wrt` names them when it is differentiated in turn.
            entry.function.__signature__ = _signature(func)
            pickling.name(entry.function, entry.name, func, wrt=self._wrt_as_given())
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

    def __reduce__(self) -> str | tuple[Any, ...]:
        """Pickled by reference: by its name where its module binds it to this object (a
        decorated function), else as the call that makes it again, with its function by
        reference (`srcad.pickling`)."""
        if pickling.found_by_name(self):
            qualname: str = vars(self)["__qualname__"]  # `functools.update_wrapper`'s
            return qualname
        return Differentiable, (self.func, self._wrt_as_given())

    def _wrt_as_given(self) -> str | tuple[str, ...]:
        """`wrt` as parameter names, as it may be passed again (`srcad.pickling`)."""
        return self.wrt if self._wrt_is_tuple else self.wrt[0]

    def __repr__(self) -> str:
        return f"<srcad.Differentiable {name_of(self.func)} wrt={self.wrt}>"


def _wrt_names(func: Callable[..., Any], wrt: Wrt) -> str | tuple[str, ...]:
    """`wrt` as parameter names, as it may be passed again (`srcad.pickling`)."""
    names, as_tuple = resolve_wrt(func, wrt, keywords=True)
    return names if as_tuple else names[0]


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


def grad(f: Callable[..., Any], wrt: Wrt = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The gradient function of a real-scalar-valued `f` with respect to `wrt`, shaped like
    the argument: a float or array, or the argument's own tuple, list, dict, NamedTuple or
    dataclass with a dense zero where it has no derivative (`srcad.tree_map`); a tuple of
    them for a tuple (or list) `wrt`.

    With `has_aux=True`, `f` returns a pair `(loss, aux)`: the gradient is the loss's, and
    the function gives `(gradient, aux)`, `aux` as `f` returned it (not differentiated).

    Given a gradient function (`srcad.grad(g)` or a decorated `g.grad`) with respect to one
    argument, it gives the second derivatives: `grad(grad(g))(x)` is g''(x), computed by
    reverse mode over the frule srcad generates for `g`.
    """
    if has_aux:
        return _with_aux(_unwrap(f), wrt, value=False)
    inner = getattr(f, "srcad_gradient_of", None)
    higher = getattr(f, DERIVATIVE, None)
    if isinstance(inner, Differentiable) and f is inner.grad:
        if inner._wrt_is_tuple:
            raise SrcadError("grad of a gradient with respect to several arguments is not a "
                             "scalar function; use srcad.hessian")  # fmt: skip
        func, directions = inner.func, list(inner._positions)
    elif higher is not None and higher[2] == GRADIENT:  # grad(grad(...(f))), to any order
        func, directions = higher[0], higher[1]
    else:
        return Differentiable(_unwrap(f), wrt).grad
    derivative = _higher_derivative(func, directions, wrt)
    pickling.name(derivative, "grad", f, wrt=_wrt_names(func, wrt))
    return derivative


def value_and_grad(
    f: Callable[..., Any], wrt: Wrt = 0, has_aux: bool = False
) -> Callable[..., tuple[Any, Any]]:
    """A function returning `(f(...), gradient)`, the gradient as `grad` gives it; with
    `has_aux=True`, `((loss, aux), gradient)` for an `f` returning `(loss, aux)`."""
    if has_aux:
        return _with_aux(_unwrap(f), wrt, value=True)
    return Differentiable(_unwrap(f), wrt).value_and_grad


def _with_aux(func: Callable[..., Any], wrt: Wrt, value: bool) -> Callable[..., Any]:
    """`grad` or `value_and_grad` (`value`) of the loss of an `f` that returns `(loss,
    aux)`: its reverse rule, pulled back from the cotangent `(1.0, ZeroTangent())`, so that
    no derivative flows into `aux`, whatever it holds (arrays, dicts, ints)."""
    call = callee(func)
    positions, as_tuple = _positions(func, wrt)
    what = f"{'value_and_grad' if value else 'grad'}(..., has_aux=True)"
    try:
        parameters: inspect.Signature | None = inspect.signature(func)
    except (TypeError, ValueError):
        parameters = None

    def gradient_with_aux(*args: Any, **kwargs: Any) -> Any:
        call.check_arguments(args, kwargs)
        if parameters is not None:  # every positional parameter in place, for its cotangent
            bound = parameters.bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        check_perturbable(func, args, kwargs, positions)
        refuse_foreign_values(func, args, kwargs)
        y, pullback = rrule(func, *args, **kwargs)
        if not isinstance(y, tuple) or len(y) != 2:
            raise SrcadError(
                f"{what} needs {name_of(func)} to return a pair (loss, aux), but it "
                f"returned {type(y).__name__} {y!r:.60}"
            )
        loss, aux = y
        problem = not_scalar(loss, func, what)
        if problem is not None:
            raise SrcadError(problem.replace(" to return ", " to return a loss that is ", 1))
        cotangents = pullback(Tangent(tuple, 1.0, ZeroTangent()))[1:]
        gradients = tuple(structured(cotangents[p], args[p]) for p in positions)
        gradient = gradients if as_tuple else gradients[0]
        return ((loss, aux), gradient) if value else (gradient, aux)

    gradient_with_aux.__name__ = "value_and_grad" if value else "grad"
    gradient_with_aux.__qualname__ = f"{name_of(func)}.{gradient_with_aux.__name__}"
    gradient_with_aux.__doc__ = f"{what} of {name_of(func)}: (gradient, aux)."
    maker = "value_and_grad" if value else "grad"
    pickling.name(gradient_with_aux, maker, func, wrt=_wrt_names(func, wrt), has_aux=True)
    return gradient_with_aux


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
    the function they call. The text shows highlighted as the last line of a notebook cell
    (a `srcad.display.SourceText`)."""
    f = _unwrap(f)
    call = callee(f)
    checked = checked_mode(mode)
    if not isinstance(args, tuple | list):
        raise SrcadError(
            f"source: args={args!r:.60} should be a tuple of example arguments, such as "
            "(1.0, np.zeros(3))"
        )
    reverse = checked is Mode.REVERSE
    names = None if wrt is None or not reverse else resolve_wrt(f, wrt, keywords=True)[0]
    kinds = signature(call.arguments(tuple(args), {})[0]) if args else ()
    if not reverse and args:
        names = COMPILER.wrt_for(
            call.function, call.arguments(tuple(args), {})[0], Request.frule(kinds)
        )
    request = Request.rrule(kinds) if reverse else Request.frule(kinds)
    return SourceText(COMPILER.sources(call.function, names, request))


def jvp(f: Callable[..., Any], args: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    """`(f(*args), J @ tangents)`: the Jacobian-vector product, in forward mode. A
    tangent for a float argument is taken in that argument's float type. An argument that
    is a structure (a tuple, list, dict, NamedTuple, dataclass: `srcad.tree_map`) takes a
    tangent of the same structure (or a `srcad.Tangent`, or a zero), and a result that is
    one gives its tangent in its structure.

    For a Python function, the call goes through the function's forward entry
    (`srcad/forward_entry.py`), which calls the forward rule compiled for the kinds of the
    arguments and tangents directly, and takes the path below for any other call."""
    if type(f) is _FUNCTION:
        # `forward_entry`'s lookup, written out: this is `jvp`'s whole fixed cost. The
        # attribute is the function's dispatcher (`forward_entry.ATTRIBUTE`); its entry
        # tests that `f` is its own (`functools.wraps` copies `__dict__`).
        try:  # (no cost unless it raises)
            try:
                entry: Callable[..., tuple[Any, Any]] = f.__srcad_jvp_entry__.function  # type: ignore[attr-defined]
            except AttributeError:  # none yet, or the `None` a pickled one is unpickled as
                entry = forward_entry(COMPILER, f, _general_jvp)
            return entry(f, args, tangents)
        except SrcadError as error:  # a rule's refusal: noted with the user's line it met
            annotate(error)
            raise
    return _general_jvp(f, args, tangents)


_FUNCTION = types.FunctionType


def _general_jvp(
    f: Callable[..., Any], args: tuple[Any, ...], tangents: tuple[Any, ...]
) -> tuple[Any, Any]:
    """`jvp` for any call: the tangents checked and seeded, the forward rule found (and
    compiled) anew, the result's tangent in its structure."""
    if not isinstance(args, tuple | list) or not isinstance(tangents, tuple | list):
        raise SrcadError(
            "jvp takes a tuple of arguments and a tuple of tangents, one for each: "
            "srcad.jvp(f, (x,), (x_dot,))"
        )
    if len(args) != len(tangents):
        raise SrcadError(f"jvp: {len(args)} arguments but {len(tangents)} tangents")
    tangents = tuple(
        _tangent_seed(f, position, tangent, arg)
        for position, (arg, tangent) in enumerate(zip(args, tangents, strict=True))
    )
    check_tangents(f, (NoTangent(), *tangents), args)
    refuse_foreign_values(f, tuple(args))
    refuse_foreign_values(f, tuple(tangents), what="a tangent")
    try:
        y, y_dot = frule((NoTangent(), *tangents), f, *args)
    except SrcadError as error:  # a rule's refusal: noted with the user's line it met
        annotate(error)
        raise
    return y, structured(y_dot, y)


def _tangent_seed(f: Callable[..., Any], position: int, tangent: Any, arg: Any) -> Any:
    """The tangent `jvp` passes for argument `position`: checked against the argument's
    shape, in its float type, leaf by leaf in a structure (a part that cannot be perturbed,
    an int, takes no tangent but a zero)."""
    structure = isinstance(tangent, Tangent) or children(tangent) is not None
    if isinstance(tangent, AbstractZero) or children(arg) is None or not structure:
        check_seed(f"jvp: the tangent of argument {position}", tangent, arg)
        return floating(tangent, arg)

    def leaf(primal: Any, dot: Any) -> Any:
        if not perturbable(primal):
            check_tangents(f, (NoTangent(), dot), (primal,))
            return NoTangent()
        check_seed(f"jvp: the tangent of a part of argument {position}", dot, primal)
        return floating(unthunk(dot), primal)

    return tree_map(leaf, arg, tangent)


def vjp(f: Callable[..., Any], *args: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """`(f(*args), vjp_fn)`; `vjp_fn(y_bar)` gives one cotangent per argument, in the
    argument's structure (`srcad.tree_map`), zeros materialised: the argument's float
    type for a float, NoTangent() for an int."""
    refuse_foreign_values(f, args)
    y, pullback = rrule(f, *args)

    def vjp_fn(y_bar: Any) -> tuple[Any, ...]:
        check_seed("vjp: the cotangent of the result", y_bar, y)
        refuse_foreign_values(f, (y_bar,), what="the cotangent")
        # One per argument passed (a compiled pullback has one per parameter besides).
        bars = pullback(structural(y_bar, y))[1 : 1 + len(args)]
        return tuple(structured(c, a) for c, a in zip(bars, args, strict=False))

    # Differentiated in turn (linear in `y_bar`) through its form, never from its source.
    name = f"vjp_of_{getattr(_unwrap(f), '__name__', 'f')}"
    vjp_fn.__dict__[DERIVATIVE] = None  # (without a form: refused, naming it)
    with contextlib.suppress(SrcadError):
        vjp_fn.__dict__[FORM] = Pullback(COMPILER, callee(_unwrap(f)), name, args, vjp_fn)
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
    `output.shape + argument.shape` (a structured output: its leaves' blocks in its
    structure, `srcad/structured_jacobian.py`); a tuple of them for a tuple `wrt`. `mode=
    "reverse"` takes one pullback per output element, `"forward"` one pushforward per input
    element (a float64 array of 8 or more: in one call where the rule allows, `batched`).
    Of a complex argument, both modes give the derivatives along its real directions:
    of a complex result, reverse mode from the pullbacks of the seeds 1 and 1j; of a real
    one, the real parts of its cotangents (`df/dx`, where `grad` gives `df/dx + 1j df/dy`).
    A complex leaf of a structured result is refused in reverse mode."""
    higher = getattr(f, DERIVATIVE, None)
    if higher is not None and higher[2] == JACOBIAN:  # jacobian(jacobian(...(f))), any order
        return _higher_jacobian(higher[0], higher[1], wrt)
    func = _unwrap(f)
    callee(func)
    reverse = checked_mode(mode) is Mode.REVERSE
    positions, as_tuple = _positions(func, wrt)

    def jacobian_of(*args: Any) -> Any:
        check_perturbable(func, args, {}, positions)
        refuse_foreign_values(func, args)
        if reverse:
            y, vjp_fn = vjp(func, *args)
            found = reverse_blocks if is_structured(y) else reverse_jacobian
            blocks = found(vjp_fn, y, args, positions)
        else:
            blocks = [_forward_jacobian(func, args, p) for p in positions]
        return tuple(blocks) if as_tuple else blocks[0]

    _named_like(jacobian_of, func, "jacobian")
    form = None if as_tuple else DerivativeArray(COMPILER, callee(func), jacobian_of.__name__,
                                                 tuple(positions), primal=jacobian_of)  # fmt: skip
    _derivative_of(jacobian_of, func, None if as_tuple else positions, JACOBIAN, form)
    pickling.name(jacobian_of, "jacobian", func, wrt=_wrt_names(func, wrt), mode=mode)
    return jacobian_of


def _higher_jacobian(func: Callable[..., Any], directions: list[int], wrt: Wrt) -> Any:
    """`jacobian` of `jacobian(...(jacobian(func)))` (or of `hessian(func)`), the inner ones
    with respect to the arguments at `directions` (innermost first): the array of `func`'s
    derivatives of that order, of shape `output.shape + x_1.shape + ... + x_k.shape`, each
    element in forward mode (`atoms.derivative_atom`)."""
    if not isinstance(wrt, int | str):
        raise SrcadError(
            "jacobian of a jacobian differentiates with respect to one argument at a time: "
            f"wrt takes an int or a parameter name, not {wrt!r}"
        )
    (outer,), _ = _positions(func, wrt)
    positions = [*directions, outer]

    def higher_jacobian(*args: Any) -> Any:
        callee(func).check_arguments(args, {})
        check_perturbable(func, args, {}, positions)
        refuse_foreign_values(func, args)
        for p in positions:
            if children(args[p]) is not None:  # its derivatives have no array layout
                raise SrcadError(
                    f"jacobian of a jacobian of {name_of(func)} differentiates with respect to "
                    f"floats and arrays, not a {type(args[p]).__name__} (srcad.hessian gives "
                    "a structure's second derivatives, in its structure)"
                )
        return derivative_array(COMPILER, callee(func), args, positions)

    _named_like(higher_jacobian, func, "jacobian")
    form = DerivativeArray(COMPILER, callee(func), higher_jacobian.__name__, tuple(positions),
                           primal=higher_jacobian)  # fmt: skip
    _derivative_of(higher_jacobian, func, positions, JACOBIAN, form)
    return higher_jacobian


def _higher_derivative(func: Callable[..., Any], directions: list[int], wrt: Wrt) -> Any:
    """`grad` of `grad(...(grad(func)))`, the inner ones with respect to the scalar
    arguments at `directions` (innermost first): the gradient with respect to `wrt` of
    `func`'s derivative along them (`entry_rules.directional_gradient`). Its own `grad`
    is one order higher, while `wrt` names a scalar argument."""
    outer, as_tuple = _positions(func, wrt)

    def higher_derivative(*args: Any) -> Any:
        callee(func).check_arguments(args, {})
        check_perturbable(func, args, {}, [*directions, *outer])
        refuse_foreign_values(func, args)
        if any(np.ndim(args[p]) != 0 for p in directions):
            raise SrcadError(
                "grad of a gradient needs the gradient to be a scalar: differentiate with "
                "respect to a scalar argument, or use srcad.hessian"
            )
        tangents = [
            tuple(1.0 if i == p else ZeroTangent() for i in range(len(args))) for p in directions
        ]
        try:
            y, row = directional_gradient(COMPILER, callee(func), args, tangents)
        except TypeError:  # the seed 1.0 is no cotangent of what `func` returns?
            explain_failure(callee(func), args, {}, "grad of a gradient")
            raise
        check_scalar(y, func, "grad of a gradient")
        values = tuple(floating(_shaped_like(row[i], args[i]), args[i]) for i in outer)
        return values if as_tuple else values[0]

    _named_like(higher_derivative, func, "grad")
    name = higher_derivative.__name__
    form = Gradient(COMPILER, callee(func), name, tuple(outer), single=not as_tuple,
                    fixed=tuple(directions), primal=higher_derivative)  # fmt: skip
    positions = None if as_tuple else [*directions, *outer]
    _derivative_of(higher_derivative, func, positions, GRADIENT, form)
    return higher_derivative


def _derivative_of(derivative: Any, func: Any, positions: list[int] | None, kind: str,
                   form: Form | None) -> None:  # fmt: skip
    """Mark a derivative function srcad returns (`entry_rules.DERIVATIVE`), so that it is
    differentiated only through the rules of its `form` (`srcad/forms.py`; refused where
    there is none), never from its own source."""
    derivative.__dict__[DERIVATIVE] = None if positions is None else (func, positions, kind)
    if form is not None:
        derivative.__dict__[FORM] = form


def _named_like(derivative: Any, func: Callable[..., Any], what: str) -> None:
    """Name a derivative function srcad returns after `func`, with `func`'s signature, so
    that `wrt` names `func`'s parameters when it is differentiated in turn."""
    derivative.__name__ = f"{what}_{getattr(func, '__name__', 'f')}"
    derivative.__qualname__ = f"{name_of(func)}.{what}"
    derivative.__doc__ = f"srcad.{what} of {name_of(func)}"
    signature = _signature(func)
    if signature is not None:
        derivative.__signature__ = signature


def hessian(f: Callable[..., Any], wrt: Wrt = 0) -> Callable[..., Any]:
    """A function giving the Hessian of a real-scalar-valued `f` with respect to `wrt`: an
    array of shape `x.shape + x.shape` (for a tuple `wrt`, a tuple of tuples of blocks; for
    a list, tuple, dict or dataclass `x`, `x`'s structure holding `x`'s structure of blocks,
    as JAX gives it).
    Each column is a Hessian-vector product: reverse mode over `f`'s generated frule."""
    func = _unwrap(f)
    callee(func)
    positions, as_tuple = _positions(func, wrt)

    def hessian_of(*args: Any) -> Any:
        callee(func).check_arguments(args, {})
        check_perturbable(func, args, {}, positions)
        refuse_foreign_values(func, args)
        blocks = [tuple(hessian_block(func, args, i, j) for j in positions) for i in positions]
        if not any(np.size(leaf) for p in positions for leaf in leaves(args[p])):
            func(*args)  # no entries, no product computed: `f` still raises what it raises
        if as_tuple:
            return tuple(blocks)
        return blocks[0][0]

    _named_like(hessian_of, func, "hessian")
    form = None if as_tuple else DerivativeArray(COMPILER, callee(func), hessian_of.__name__,
                                                 tuple(positions), gradient_at=positions[0],
                                                 primal=hessian_of)  # fmt: skip
    _derivative_of(hessian_of, func, None if as_tuple else positions * 2, JACOBIAN, form)
    pickling.name(hessian_of, "hessian", func, wrt=_wrt_names(func, wrt))
    return hessian_of


def hessian_vector_product(f: Callable[..., Any], wrt: int | str = 0) -> Callable[..., Any]:
    """A function `(*args, v) -> H @ v` for a real-scalar-valued `f` and one argument `wrt`,
    at the cost of one forward and one reverse sweep, whatever the size."""
    func = _unwrap(f)
    callee(func)
    if isinstance(wrt, np.integer):
        wrt = int(wrt)
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
        refuse_foreign_values(func, (*args, v))
        hv = hessian_row(func, tuple(args), position, v, "hessian_vector_product", position)
        hv = hv[position]
        if children(args[position]) is not None:  # a list, dict...: in its structure
            return structured(hv, args[position])
        return floating(_shaped_like(hv, args[position]), args[position])

    _named_like(product, func, "hessian_vector_product")
    form = Gradient(COMPILER, callee(func), product.__name__, (position,),
                    placements=(position,), primal=product)  # fmt: skip
    _derivative_of(product, func, None, GRADIENT, form)
    signature = _signature(func)
    if signature is not None:  # f's positional parameters (all passed), then the vector
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        parameters = [
            p.replace(kind=inspect.Parameter.POSITIONAL_ONLY, default=inspect.Parameter.empty)
            for p in signature.parameters.values()
            if p.kind in positional
        ]
        taken = {p.name for p in parameters}  # `f(u, v)`'s vector is shown as `v_`
        vector = next(n for n in ("v", "v_", "vector", "vector_") if n not in taken)
        v = inspect.Parameter(vector, inspect.Parameter.POSITIONAL_ONLY)
        product.__signature__ = signature.replace(parameters=[*parameters, v])  # type: ignore[attr-defined]
    pickling.name(product, "hessian_vector_product", func, wrt=_wrt_names(func, wrt))
    return product


def _forward_jacobian(func: Callable[..., Any], args: tuple[Any, ...], position: int) -> Any:
    """The Jacobian with respect to argument `position`, in its structure: a block for
    each leaf, one pushforward per element of the leaf."""
    x = args[position]
    count = len(leaves(x))
    try:
        blocks = [_forward_block(func, args, position, leaf) for leaf in range(count)]
    except _StructuredError:  # a structured result: its leaves' blocks in its structure
        return forward_block(jvp, func, args, position)
    numbered = iter(blocks)
    return tree_map(lambda _: next(numbered), x)


class _StructuredError(Exception):
    """The result is a structure (`srcad/structured_jacobian.py`)."""


def _forward_block(func: Callable[..., Any], args: tuple[Any, ...], position: int,
                   leaf: int) -> Any:  # fmt: skip
    x = args[position]
    part = leaves(x)[leaf]
    if not perturbable(part) or callable(part):
        return NoTangent()
    block = batched_columns(func, args, position) if part is x else None
    if block is not None:  # every column from one call
        return block
    columns = []
    for tangent in one_hot(part):
        seed = one_leaf(x, leaf, tangent)
        tangents = tuple(seed if i == position else ZeroTangent() for i in range(len(args)))
        y, y_dot = jvp(func, args, tangents)
        if is_structured(y):
            raise _StructuredError
        columns.append(np.asarray(y_dot))
    out_shape = np.shape(y)
    stacked = np.stack(columns, axis=-1)
    return stacked.reshape(out_shape + np.shape(part))


def clear_cache() -> None:
    """Forget everything srcad compiled, so that the next call of every gradient compiles
    again from the source as it is now: the compiled rules of every function, the
    branches of every function `grad` and `value_and_grad` returned, what the mutation
    check read of each function, and the parsed source files.

    Never needed for soundness (srcad recompiles when a fact its code relies on changes,
    `srcad.guards`); it frees memory, and makes a timing include the compile again."""
    COMPILER.clear_cache()
    clear_entries()
    clear_forward_entries()


# The functions srcad makes, made again by unpickling them in another process.
pickling.MAKERS.update(
    grad=grad,
    value_and_grad=value_and_grad,
    jacobian=jacobian,
    hessian=hessian,
    hessian_vector_product=hessian_vector_product,
)

"""The derivative tools the benchmark times: the hand-written derivative, srcad, and the
peers (autograd, jax eager, jax.jit, torch eager, tangent-ad), each for every kind of
derivative a case asks for (`cases.GRAD`, `JVP`, `JACOBIAN_FORWARD`, `HVP`).

A tool builds, for a case, its arguments and their seeds (`checks.seeds`), a call (a
function and its arguments, timed as `f(*args)`) and a function turning the call's result
into the leaves the hand-written derivative has (`trees.leaves_like`), to compare them.
The peers run the case's function with `np` bound to their own NumPy-like module
(`cases.written_with`). A peer that is not installed, or lacks the kind of derivative,
raises `NotAvailableError` (its cell says "n/a (why)").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cases import GRAD, HVP, JACOBIAN_FORWARD, JVP, Case, written_with
from trees import leaves, leaves_like, rebuilt

import srcad

Call = tuple[Callable[..., Any], tuple[Any, ...]]  # a function and its arguments
# How to call a tool's derivative, and how to turn its result into the hand-written leaves.
Built = tuple[Call, Callable[[Any], list[Any]]]


class NotAvailableError(Exception):
    """A tool that cannot run at all in this environment (not installed, not importable),
    or has no such kind of derivative."""


def expected_like(case: Case, args: tuple[Any, ...]) -> Any:
    """The structure of a case's derivative: a tuple of the differentiated arguments (a
    gradient), or a single value (JVP, Jacobian, HVP)."""
    return tuple(args[p] for p in case.wrt) if case.mode == GRAD else None


def as_leaves(case: Case, args: tuple[Any, ...], out: Any) -> list[Any]:
    """A derivative's leaves as NumPy values, read in the structure the hand-written one has."""
    like = expected_like(case, args)
    found = [out] if like is None else leaves_like(out, like)
    return [np.asarray(leaf.detach() if hasattr(leaf, "detach") else leaf) for leaf in found]


def _as_tuple(result: Any, case: Case) -> tuple[Any, ...]:
    return tuple(result) if len(case.wrt) > 1 else (result,)


def _only_wrt(case: Case, func: Callable[..., Any], args: tuple[Any, ...]) -> Callable[..., Any]:
    """`func` of the differentiated arguments only, the others fixed at `args`."""

    def of_wrt(*chosen: Any) -> Any:
        full = list(args)
        for position, value in zip(case.wrt, chosen, strict=True):
            full[position] = value
        return func(*full)

    return of_wrt


def hand_written(case: Case, args: tuple[Any, ...], seeded: tuple[Any, ...]) -> Built:
    return (case.hand_grad, (*args, *seeded)), lambda out: as_leaves(case, args, out)


def with_srcad(case: Case, args: tuple[Any, ...], seeded: tuple[Any, ...]) -> Built:
    f, position = case.func, case.wrt[0]
    convert = lambda out: as_leaves(case, args, out)  # noqa: E731
    if case.mode == GRAD:
        return (srcad.grad(f, wrt=case.wrt), args), convert
    if case.mode == JVP:
        tangents: list[Any] = [srcad.ZeroTangent()] * len(args)
        for p, tangent in zip(case.wrt, seeded, strict=True):
            tangents[p] = tangent
        fixed = tuple(tangents)
        return (lambda *a: srcad.jvp(f, a, fixed), args), lambda out: convert(out[1])
    if case.mode == JACOBIAN_FORWARD:
        return (srcad.jacobian(f, wrt=position, mode="forward"), args), convert
    assert case.mode == HVP
    return (srcad.hessian_vector_product(f, wrt=position), (*args, *seeded)), convert


def _argnums(case: Case) -> int | tuple[int, ...]:
    return case.wrt if len(case.wrt) > 1 else case.wrt[0]


def with_autograd(case: Case, args: tuple[Any, ...], seeded: tuple[Any, ...]) -> Built:
    autograd, anp = peer("autograd")
    from autograd import differential_operators as operators

    f, argnum = written_with(case.func, anp), _argnums(case)
    convert = lambda out: as_leaves(case, args, out)  # noqa: E731
    if case.mode == GRAD:
        gradient = autograd.grad(f, argnum=argnum)
        return (gradient, args), lambda out: convert(_as_tuple(out, case))
    if case.mode == JVP:  # autograd's forward mode
        tangent = seeded if len(case.wrt) > 1 else seeded[0]
        jvp = lambda *a: operators.make_jvp(f, argnum)(*a)(tangent)  # noqa: E731
        return (jvp, args), lambda out: convert(out[1])
    if case.mode == JACOBIAN_FORWARD:  # autograd has a Jacobian in reverse mode only
        return (autograd.jacobian(f, argnum=argnum), args), convert
    hvp = operators.hessian_vector_product(f, argnum=argnum)
    return (hvp, (*args, *seeded)), convert


def _to_jax(jnp: Any, value: Any) -> Any:
    return rebuilt(
        value, [jnp.asarray(x) if isinstance(x, np.ndarray) else x for x in leaves(value)]
    )


def with_jax(case: Case, args: tuple[Any, ...], seeded: tuple[Any, ...]) -> Built:
    return _jax_built(case, args, seeded, jit=False)


def with_jax_jit(case: Case, args: tuple[Any, ...], seeded: tuple[Any, ...]) -> Built:
    return _jax_built(case, args, seeded, jit=True)


def _jax_built(case: Case, args: tuple[Any, ...], seeded: tuple[Any, ...], jit: bool) -> Built:
    jax, jnp = peer("jax")
    f, argnum = written_with(case.func, jnp), _argnums(case)
    jargs, jseeds = _to_jax(jnp, args), _to_jax(jnp, seeded)
    wrt_args = tuple(jargs[p] for p in case.wrt)
    convert = lambda out: as_leaves(case, args, out)  # noqa: E731
    if case.mode == GRAD:
        derivative, call_args = jax.grad(f, argnums=argnum), jargs
        convert = lambda out: as_leaves(case, args, _as_tuple(out, case))  # noqa: E731
    elif case.mode == JVP:
        of_wrt = _only_wrt(case, f, jargs)
        n = len(case.wrt)
        derivative = lambda *a: jax.jvp(of_wrt, a[:n], a[n:])[1]  # noqa: E731
        call_args = (*wrt_args, *jseeds)
    elif case.mode == JACOBIAN_FORWARD:
        derivative, call_args = jax.jacfwd(f, argnums=argnum), jargs
    else:
        gradient = jax.grad(_only_wrt(case, f, jargs))
        derivative = lambda x, v: jax.jvp(gradient, (x,), (v,))[1]  # noqa: E731
        call_args = (*wrt_args, *jseeds)
    if jit:
        derivative = jax.jit(derivative)
    return (_blocking(jax, derivative), call_args), convert


def _blocking(jax: Any, derivative: Callable[..., Any]) -> Callable[..., Any]:
    """The derivative, returning once its (asynchronously computed) result is ready."""
    return lambda *args: jax.block_until_ready(derivative(*args))


def _to_torch(torch: Any, value: Any, requires_grad: bool = False) -> Any:
    """Tensors for arrays (in their dtype) and floats (float64); ints stay ints."""

    def tensor(leaf: Any) -> Any:
        if isinstance(leaf, np.ndarray):
            grad = requires_grad and leaf.dtype.kind == "f"
            return torch.tensor(leaf, requires_grad=grad)
        if isinstance(leaf, float):
            return torch.tensor(leaf, dtype=torch.float64, requires_grad=requires_grad)
        return leaf

    return rebuilt(value, [tensor(leaf) for leaf in leaves(value)])


def with_torch(case: Case, args: tuple[Any, ...], seeded: tuple[Any, ...]) -> Built:
    torch, _ = peer("torch")
    f = written_with(case.func, torch)
    convert = lambda out: as_leaves(case, args, out)  # noqa: E731
    if case.mode == GRAD:
        targs = tuple(_to_torch(torch, a, i in case.wrt) for i, a in enumerate(args))
        inputs = [leaf for p in case.wrt for leaf in leaves(targs[p])]
        like = tuple(targs[p] for p in case.wrt)

        def gradient() -> Any:
            return rebuilt(like, list(torch.autograd.grad(f(*targs), inputs)))

        return (gradient, ()), convert
    targs, tseeds = _to_torch(torch, args), _to_torch(torch, seeded)
    wrt_args = tuple(targs[p] for p in case.wrt)
    if case.mode == JVP:
        of_wrt = _only_wrt(case, f, targs)
        return (lambda: torch.func.jvp(of_wrt, wrt_args, tseeds)[1], ()), convert
    if case.mode == JACOBIAN_FORWARD:
        return (torch.func.jacfwd(f, argnums=case.wrt[0]), targs), convert
    of_x = _only_wrt(case, f, targs)
    (x,), (v,) = wrt_args, tseeds

    def hvp() -> Any:  # double backward, torch eager's Hessian-vector product
        x_var = x.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(of_x(x_var), x_var, create_graph=True)
        return torch.autograd.grad(g, x_var, v)[0]

    return (hvp, ()), convert


def with_tangent(case: Case, args: tuple[Any, ...], seeded: tuple[Any, ...]) -> Built:
    tangent, _ = peer("tangent")
    convert = lambda out: as_leaves(case, args, out)  # noqa: E731
    if case.mode == GRAD:
        gradient = tangent.grad(case.func, wrt=case.wrt, verbose=0)
        return (gradient, args), lambda out: convert(_as_tuple(out, case))
    if case.mode == JVP:
        forward = tangent.autodiff(case.func, mode="forward", wrt=case.wrt, verbose=0)
        return (forward, (*args, *seeded)), convert
    raise NotAvailableError("no forward Jacobian or Hessian-vector product")


TOOLS: dict[str, Callable[[Case, tuple[Any, ...], tuple[Any, ...]], Built]] = {
    "hand": hand_written,
    "srcad": with_srcad,
    "autograd": with_autograd,
    "jax": with_jax,
    "jax.jit": with_jax_jit,
    "torch": with_torch,
    "tangent": with_tangent,
}


# --------------------------------------------------------------------------------------
# Peers: imported once; a failure is remembered as the reason for "n/a".

_peers: dict[str, tuple[Any, Any] | str] = {}


def _import_peer(name: str) -> tuple[Any, Any]:
    if name == "autograd":
        import autograd
        import autograd.numpy

        return autograd, autograd.numpy
    if name == "jax":
        import jax
        import jax.numpy

        jax.config.update("jax_enable_x64", True)
        return jax, jax.numpy
    if name == "torch":
        import torch
        import torch.func

        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
        # As a float64 user sets it: `np.zeros(...)` in a case makes float64 tensors.
        torch.set_default_dtype(torch.float64)
        return torch, None
    if name == "tangent":
        import tangent

        return tangent, None
    raise ValueError(name)


def peer(name: str) -> tuple[Any, Any]:
    """The peer's module (and its NumPy-like module); raises `NotAvailableError` with a reason."""
    if name not in _peers:
        try:
            _peers[name] = _import_peer(name)
        except ModuleNotFoundError as error:
            _peers[name] = f"{error.name} is not installed"
        except Exception as error:  # anything else a broken install raises on import
            _peers[name] = short(error)
    found = _peers[name]
    if isinstance(found, str):
        raise NotAvailableError(found)
    return found


def short(error: BaseException, limit: int = 70) -> str:
    """An exception's type and the first line of its message, shortened for a table cell."""
    lines = str(error).strip().splitlines()
    text = type(error).__name__ + (f": {lines[0]}" if lines else "")
    text = text.replace("|", "/").replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"

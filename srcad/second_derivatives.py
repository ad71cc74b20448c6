"""The pieces of `srcad.hessian` and `srcad.hessian_vector_product`: one Hessian-vector
product, reverse mode over the generated forward rule, and the blocks of a Hessian built
of them, for arrays and for structures (lists, dicts) as JAX lays them out."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from srcad.callables import Call, callee, padded, perturbable
from srcad.defaults import COMPILER
from srcad.entry import check_scalar, explain_failure
from srcad.entry_rules import entry_rules
from srcad.errors import SrcadError
from srcad.kinds import signature
from srcad.requests import Request
from srcad.rule_api import rrule
from srcad.tangents import NoTangent, ZeroTangent, unthunk
from srcad.trees import leaves, structured, tree_map


def hessian_row(
    func: Callable[..., Any],
    args: tuple[Any, ...],
    position: int,
    direction: Any,
    what: str,
    wanted: int | None = None,
) -> tuple[Any, ...]:
    """`(H @ v)` for each argument, with `v` the tangent `direction` of argument `position`:
    the reverse rule of `func`'s generated forward rule, seeded on the output tangent.
    Given `wanted`, the index of the one argument whose entry is read, the others' may be
    zeros: the forward rule is then differentiated with respect to argument `position`
    alone, and its reverse rule with respect to argument `wanted` alone (`_narrowed`), so
    neither carries what the entry read does not depend on."""
    call = callee(func)
    full_args, keywords = call.arguments(args, {})
    tangents: list[Any] = [ZeroTangent()] * len(args)
    tangents[position] = direction
    dargs = padded(call.tangents((NoTangent(), *tangents)), call.function)
    reverse = None if wanted is None else _narrowed(call, full_args, position, wanted, dargs)
    if reverse is None:
        forward = COMPILER.forward_rule(call.function, full_args)
        (y, _), pullback = rrule(forward, dargs, *full_args, **keywords)
    else:
        (y, _), pullback = reverse(dargs, *full_args, **keywords)
    check_scalar(y, call.f, what)  # the seed 1.0 would sum the Hessians of an array's elements
    try:
        cotangents = pullback((ZeroTangent(), 1.0))
    except TypeError:
        explain_failure(call, args, {}, what)
        raise
    return tuple(unthunk(c) for c in cotangents[2 + len(call.bound) :])


def _narrowed(call: Call, full_args: tuple[Any, ...], position: int, wanted: int,
              dargs: tuple[Any, ...]) -> Callable[..., Any] | None:  # fmt: skip
    """The reverse rule, with respect to argument `wanted` alone, of `call`'s forward rule
    with respect to argument `position` alone: a plain function's, whose two arguments are
    named positional parameters. None for any other (a wrapper, a derivative srcad
    returned, `*args`), or where either rule is refused: the caller takes the rules with
    respect to every argument instead."""
    function = call.function
    if (
        not isinstance(function, types.FunctionType)
        or hasattr(function, "__wrapped__")
        or entry_rules(COMPILER, function) is not None
        or COMPILER.registry.knows(function)
    ):
        return None
    names = function.__code__.co_varnames[: function.__code__.co_argcount]
    first, second = len(call.bound) + position, len(call.bound) + wanted
    if max(first, second) >= len(names):
        return None
    try:
        forward = COMPILER.forward_rule(function, full_args, wrt=(names[first],))
        request = Request.rrule(signature((dargs, *full_args)))
        return COMPILER.compiled(forward, (names[second],), request).function
    except SrcadError:
        return None


def hessian_block(func: Callable[..., Any], args: tuple[Any, ...], i: int, j: int) -> Any:
    """The block of second derivatives of `func` with respect to arguments `i` and `j`,
    one Hessian-vector product per element of `j`: an array of shape `shape_i + shape_j`;
    for structures (a list, a dict...), as JAX gives it, `i`'s structure holding at each
    leaf `j`'s structure of such arrays (`NoTangent()` where a leaf cannot be perturbed)."""
    outer, inner = leaves(args[i]), leaves(args[j])
    varies = [perturbable(part) and not callable(part) for part in inner]
    if any(np.iscomplexobj(part) for part in (*outer, *inner) if perturbable(part)):
        raise SrcadError(
            "srcad.hessian takes real arguments only: of a complex one, the derivatives of "
            "the gradient along the imaginary directions are no multiple of those along the "
            "real ones (it is not holomorphic), so no matrix of the argument's shape holds "
            "them; use hessian_vector_product along the directions you want (complex ones "
            "too), or pass the real and imaginary parts as real arguments"
        )
    columns: list[list[list[Any]]] = [[[] for _ in inner] for _ in outer]
    for n, part in enumerate(inner):
        if not varies[n]:
            continue
        for element in one_hot(part):
            direction = one_leaf(args[j], n, element)
            hv = hessian_row(func, args, j, direction, "hessian", wanted=i)[i]
            for k, column in enumerate(leaves(structured(hv, args[i]))):
                columns[k][n].append(column)

    def block(k: int, n: int) -> Any:
        shape = np.shape(outer[k]) + np.shape(inner[n])
        if not varies[n] or not perturbable(outer[k]) or callable(outer[k]):
            return NoTangent()
        if not columns[k][n]:  # an empty array
            return np.zeros(shape)
        stacked = np.stack([np.asarray(c, dtype=float) for c in columns[k][n]], axis=-1)
        return stacked.reshape(shape)

    numbered_rows = iter(range(len(outer)))

    def row(_: Any) -> Any:  # leaf `k` of argument `i`: its blocks, in `j`'s structure
        k = next(numbered_rows)
        numbered = iter(range(len(inner)))
        return tree_map(lambda _: block(k, next(numbered)), args[j])

    return tree_map(row, args[i])


def one_leaf(tree: Any, leaf: Any, tangent: Any) -> Any:
    """A tangent of `tree`: `tangent` at its leaf numbered `leaf`, zero everywhere else."""
    numbered = iter(range(len(leaves(tree))))
    return tree_map(lambda _: tangent if next(numbered) == leaf else ZeroTangent(), tree)


def one_hot(part: Any) -> Iterator[Any]:
    """For each element of `part` (an array or a number), the tangent of `part` that is 1
    there and 0 elsewhere: an array of its shape, or a float."""
    for index in range(int(np.size(part))):
        basis = np.zeros(np.shape(part))
        basis.reshape(-1)[index] = 1.0
        yield basis if isinstance(part, np.ndarray) else float(basis)

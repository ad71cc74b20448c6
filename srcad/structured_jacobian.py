"""`srcad.jacobian` of a function whose result is a structure (a tuple, list, dict,
NamedTuple or dataclass that is not one array of numbers): the result's structure holding,
for each of its float leaves, the argument's structure of blocks, each of shape
`result_leaf.shape + argument_leaf.shape` (JAX's layout); a leaf of the result that is not
a float (an int, a bool, None) holds `NoTangent()`, as an argument's leaf that is not does.

Reverse mode pulls back one cotangent per element of each float leaf of the result (the
others zero); forward mode pushes one tangent per element of each leaf of the argument and
reads each leaf of the result's tangent. A result that NumPy reads as one array of numbers
(a list of arrays of one shape) keeps the array layout (`api._reverse_jacobian`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.callables import perturbable
from srcad.errors import SrcadError
from srcad.second_derivatives import one_hot, one_leaf
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, materialize, unthunk
from srcad.trees import children, leaves, tree_map


def is_structured(y: Any) -> bool:
    """Whether `y` is a structure that NumPy does not read as one array of numbers."""
    if children(y) is None:
        return False
    try:
        return np.asarray(y).dtype == object
    except (ValueError, TypeError):  # parts of different shapes
        return True


def _is_float(leaf: Any) -> bool:
    if isinstance(leaf, bool | int):
        return False
    if isinstance(leaf, float | complex):
        return True
    return isinstance(leaf, np.ndarray | np.generic) and np.issubdtype(leaf.dtype, np.inexact)


def _dense(value: Any, primal: Any) -> np.ndarray:
    value = unthunk(value)
    if isinstance(value, AbstractZero):
        return np.zeros(np.shape(primal))
    return np.asarray(materialize(value, primal))


def _with_leaves(tree: Any, parts: list[Any]) -> Any:
    """`tree`'s structure with its leaves replaced by `parts`, in order."""
    found = iter(parts)
    return tree_map(lambda _: next(found), tree)


def _tangent_parts(y: Any, y_dot: Any) -> list[Any]:
    """The parts of `y_dot`, a tangent of `y`, at each of `y`'s leaves."""
    parts: list[Any] = []
    tree_map(lambda _, d: parts.append(d), y, y_dot)
    return parts


def reverse_blocks(vjp_fn: Callable[[Any], tuple[Any, ...]], y: Any, args: tuple[Any, ...],
                   positions: list[int]) -> list[Any]:  # fmt: skip
    """The Jacobian of a structured result `y` with respect to each argument at
    `positions`, one pullback per element of each float leaf of `y` (real, so a complex
    argument's rows are the real parts of its cotangents: `_real_direction`)."""
    y_leaves = leaves(y)
    per_leaf: list[list[Any]] = []  # for each leaf of y: one tree of blocks per position
    for i, y_leaf in enumerate(y_leaves):
        if not _is_float(y_leaf):
            per_leaf.append([NoTangent() for _ in positions])
            continue
        if np.iscomplexobj(y_leaf):
            raise SrcadError(
                "srcad.jacobian in reverse mode takes the derivatives of a structured "
                "result's real leaves only, not of a complex one; use mode='forward'"
            )
        shape = np.shape(y_leaf)
        rows: list[list[Any]] = [[] for _ in positions]
        for index in range(int(np.prod(shape))):
            basis = np.zeros(shape)
            basis.reshape(-1)[index] = 1.0
            seed_leaf = basis if shape else 1.0
            seed = _with_leaves(y, [seed_leaf if k == i else ZeroTangent()
                                    for k in range(len(y_leaves))])  # fmt: skip
            cotangents = vjp_fn(seed)
            for row, position in zip(rows, positions, strict=True):
                row.append(cotangents[position])

        def block(primal: Any, *leaf_rows: Any, shape: tuple[int, ...] = shape) -> Any:
            if not perturbable(primal) or isinstance(unthunk(leaf_rows[0]), NoTangent):
                return NoTangent()
            stacked = np.stack([_real_direction(_dense(r, primal)) for r in leaf_rows])
            return stacked.reshape(shape + np.shape(primal))

        pairs = zip(rows, positions, strict=True)
        per_leaf.append([tree_map(block, args[p], *row) for row, p in pairs])
    return [_with_leaves(y, [found[k] for found in per_leaf]) for k in range(len(positions))]


def forward_block(jvp: Callable[..., tuple[Any, Any]], func: Callable[..., Any],
                  args: tuple[Any, ...], position: int) -> Any:  # fmt: skip
    """The Jacobian of `func`'s structured result with respect to argument `position`, one
    pushforward per element of each of the argument's leaves."""
    x = args[position]
    x_leaves = leaves(x)
    y: Any = None
    # for each leaf of x: the tangent of each leaf of y, per element of the leaf of x
    columns: list[list[list[Any]] | None] = []
    for j, x_leaf in enumerate(x_leaves):
        if not perturbable(x_leaf) or callable(x_leaf):
            columns.append(None)
            continue
        found: list[list[Any]] = []
        for tangent in one_hot(x_leaf):
            seed = one_leaf(x, j, tangent)
            tangents = tuple(seed if i == position else ZeroTangent() for i in range(len(args)))
            y, y_dot = jvp(func, args, tangents)
            found.append(_tangent_parts(y, y_dot))
        columns.append(found)
    if y is None:  # nothing to perturb
        y = func(*args)
    y_leaves = leaves(y)

    def blocks_for(i: int) -> Any:
        y_leaf = y_leaves[i]
        if not _is_float(y_leaf):
            return NoTangent()
        parts = []
        for x_leaf, found in zip(x_leaves, columns, strict=True):
            if found is None:
                parts.append(NoTangent())
                continue
            stacked = np.stack([_dense(column[i], y_leaf) for column in found], axis=-1)
            parts.append(stacked.reshape(np.shape(y_leaf) + np.shape(x_leaf)))
        return _with_leaves(x, parts)

    return _with_leaves(y, [blocks_for(i) for i in range(len(y_leaves))])


def reverse_jacobian(
    vjp_fn: Callable[[Any], tuple[Any, ...]], y: Any, args: tuple[Any, ...], positions: list[int]
) -> list[Any]:
    """The Jacobian of an array or number `y` with respect to each argument at `positions`,
    one pullback per element of `y` (two of a complex `y`: `_along_real`)."""
    out_shape = np.shape(y)
    rows: list[list[Any]] = [[] for _ in positions]
    for index in range(int(np.prod(out_shape))):
        seed = np.zeros(out_shape)
        seed.reshape(-1)[index] = 1.0
        cotangents = vjp_fn(seed if out_shape else 1.0)
        if np.iscomplexobj(y):  # a pullback reads a complex cotangent conjugate-linearly
            imaginary = vjp_fn(1j * seed if out_shape else 1j)
            cotangents = tuple(
                _along_real(c, d) for c, d in zip(cotangents, imaginary, strict=True)
            )
        else:
            cotangents = tuple(_real_direction(c) for c in cotangents)
        for row, position in zip(rows, positions, strict=True):
            row.append(cotangents[position])

    def block(primal: Any, *leaf_rows: Any) -> Any:
        if isinstance(leaf_rows[0], NoTangent):
            return NoTangent()
        return np.stack([np.asarray(r) for r in leaf_rows]).reshape(out_shape + np.shape(primal))

    return [
        tree_map(block, args[position], *row) for row, position in zip(rows, positions, strict=True)
    ]


def _real_direction(cotangent: Any) -> Any:
    """A row of a real result's Jacobian, as forward mode gives it: the derivatives along
    the argument's real directions. A complex argument's cotangent is `df/dx + 1j df/dy`
    (the gradient `grad` gives), whose real part is the row; it once kept the `1j df/dy`
    too, so the two modes gave different Jacobians of one function."""
    cotangent = unthunk(cotangent)
    if isinstance(cotangent, complex | np.ndarray | np.number) and np.iscomplexobj(cotangent):
        return np.real(cotangent)
    return cotangent


def _along_real(real: Any, imaginary: Any) -> Any:
    """A row of a complex result's Jacobian, as forward mode gives it (the derivatives
    along the argument's real directions), from the cotangents of the seeds 1 and 1j: for
    `y = J x`, the pullback of a cotangent `c` is `J^H c` (`Re <c, J v>` for every `v`),
    so the row is `Re(J^H 1) + 1j Re(J^H 1j)`; the real parts alone, as before, dropped
    its imaginary part (`x * (1 + 2j)` gave 1)."""
    if isinstance(real, NoTangent):
        return real
    for part in (real, imaginary):
        if not isinstance(unthunk(part), AbstractZero | np.ndarray | float | complex | np.number):
            raise SrcadError(
                "srcad.jacobian in reverse mode takes a complex result's derivatives with "
                "respect to arrays and numbers only; use mode='forward'"
            )
    parts = [unthunk(p) for p in (real, imaginary)]
    real, imaginary = (0.0 if isinstance(p, AbstractZero) else np.real(p) for p in parts)
    return real + 1j * imaginary

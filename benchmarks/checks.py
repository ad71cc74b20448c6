"""A case's derivative against central finite differences of its function, whatever the
derivative is (a gradient, a Jacobian-vector product, a forward Jacobian, a
Hessian-vector product): each is reduced to numbers that a difference quotient of the
function estimates, along random directions.

The function is evaluated in float64 (float32 arguments are widened), so a float32 case's
hand-written derivative is checked as precisely as a float64 one's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import GRAD, HVP, JACOBIAN_FORWARD, JVP, Case
from trees import leaves, random_like, rebuilt, shifted


def widened(value: Any) -> Any:
    """`value` with float32 arrays made float64."""
    wide = [
        leaf.astype(np.float64) if getattr(leaf, "dtype", None) == np.float32 else leaf
        for leaf in leaves(value)
    ]
    return rebuilt(value, wide)


def seeds(case: Case, args: tuple[Any, ...], rng: np.random.Generator) -> tuple[Any, ...]:
    """What the derivative takes after the arguments: one tangent per differentiated
    argument (JVP), the vector (HVP), nothing (gradient, Jacobian)."""
    if case.mode == JVP:
        return tuple(random_like(args[p], rng) for p in case.wrt)
    if case.mode == HVP:
        return (random_like(args[case.wrt[0]], rng),)
    return ()


def _along(case: Case, args: tuple[Any, ...], directions: dict[int, Any], step: float) -> Any:
    moved = list(args)
    for position, direction in directions.items():
        moved[position] = shifted(args[position], direction, step)
    return np.asarray(case.func(*moved), dtype=float)


def _slope(case: Case, args: tuple[Any, ...], directions: dict[int, Any], h: float) -> Any:
    return (_along(case, args, directions, h) - _along(case, args, directions, -h)) / (2 * h)


def _combined(a: float, v: Any, b: float, u: Any) -> Any:
    return rebuilt(v, [a * x + b * y for x, y in zip(leaves(v), leaves(u), strict=True)])


def _dot(a: Any, b: Any) -> float:
    return sum(
        float(np.sum(np.asarray(x) * np.asarray(y)))
        for x, y in zip(leaves(a), leaves(b), strict=True)
    )


def pairs(
    case: Case,
    args: tuple[Any, ...],
    seeded: tuple[Any, ...],
    derivative: Any,
    rng: np.random.Generator,
) -> list[tuple[Any, Any]]:
    """(what `derivative` says, what finite differences of the function say) along random
    directions; `derivative` is what the case's kind of derivative returns for `args`
    and `seeded`."""
    args = widened(args)
    # A 10⁶-step loop's sum rounds a thousand times more than a short one's: a wider step
    # keeps the rounding, over the step, below what the check tolerates.
    h = 1e-4 if case.big_loop else 1e-6
    if case.mode == GRAD:
        found = derivative if isinstance(derivative, tuple) else (derivative,)
        result = []
        for _ in range(2):
            directions = {p: random_like(widened(args[p]), rng) for p in case.wrt}
            said = sum(_dot(g, directions[p]) for p, g in zip(case.wrt, found, strict=True))
            result.append((said, _slope(case, args, directions, h)))
        return result
    if case.mode == JVP:
        directions = {p: widened(t) for p, t in zip(case.wrt, seeded, strict=True)}
        return [(np.asarray(derivative, dtype=float), _slope(case, args, directions, h))]
    if case.mode == JACOBIAN_FORWARD:
        (position,) = case.wrt
        result = []
        for _ in range(2):
            d = rng.standard_normal(np.shape(args[position]))
            said = np.tensordot(np.asarray(derivative), d, axes=np.ndim(d))
            result.append((said, _slope(case, args, {position: d}, h)))
        return result
    assert case.mode == HVP
    (position,), (v,) = case.wrt, seeded
    result = []
    h = 1e-3  # u.(H v) from four values: the error is O(h^2) and eps f / h^2
    for _ in range(2):
        u = random_like(args[position], rng)
        corners = [
            _along(case, args, {position: _combined(a, v, b, u)}, h)
            for a, b in ((1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0))
        ]
        estimate = (corners[0] - corners[1] - corners[2] + corners[3]) / (4 * h * h)
        result.append((_dot(derivative, u), estimate))
    return result


def check_hand_written(case: Case, args: tuple[Any, ...], rng: np.random.Generator) -> None:
    """Assert that the hand-written derivative (at float64) matches finite differences."""
    wide = widened(args)
    seeded = widened(seeds(case, args, rng))
    found = case.hand_grad(*wide, *seeded)
    for said, estimate in pairs(case, wide, seeded, found, rng):
        error = relative_error(said, estimate)
        assert error <= 1e-4, f"{case.name}: the hand-written derivative is off by {error:.1e}"


def relative_error(said: Any, estimate: Any) -> float:
    """How far a derivative is from its finite-difference estimate, relative to the
    estimate (or to 1e-6, below which differences of the function are noise)."""
    scale = max(1e-6, float(np.max(np.abs(estimate))))
    return float(np.max(np.abs(np.asarray(said) - estimate))) / scale

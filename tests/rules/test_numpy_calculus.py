"""Rules for `np.linspace`, `np.logspace`, `np.arange`, `np.gradient`, `np.trapezoid` and
`np.interp`, checked against finite differences: each rule alone, then through the public
API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule
from tests.rules.through_the_api import check_through_api

TANGENT_SEED = 7
RNG = np.random.default_rng(9)
V = RNG.standard_normal(7)
M = RNG.standard_normal((4, 6))
X = RNG.standard_normal((3, 4, 5))
GRID = np.cumsum(RNG.uniform(0.5, 1.5, 7))
GRID_2D = np.cumsum(RNG.uniform(0.5, 1.5, (4, 6)), axis=1)
Z = V + 1j * RNG.standard_normal(7)

Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

CALLS: list[Call] = [
    ("linspace", np.linspace, (0.5, 2.5), {}),
    ("linspace-num", np.linspace, (-1.0, 3.0, 5), {}),
    ("linspace-no-endpoint", np.linspace, (-1.0, 3.0, 4, False), {}),
    ("linspace-one", np.linspace, (-1.0, 3.0), {"num": 1}),
    ("linspace-retstep", np.linspace, (-1.0, 3.0, 6), {"retstep": True}),
    ("linspace-arrays", np.linspace, (V[:3], M[:, :3], 5), {}),
    ("linspace-axis", np.linspace, (V[:3], 2.0, 4), {"axis": -1}),
    ("logspace", np.logspace, (0.5, 2.5, 7), {}),
    ("logspace-base-no-endpoint", np.logspace, (V[:3], -1.0, 4, False, 2.5), {}),
    ("logspace-base-keyword-axis", np.logspace, (V[:2], 1.0, 3), {"base": 3.0, "axis": -1}),
    ("arange-start-stop", np.arange, (0.3, 4.0), {}),
    ("arange-start-stop-step", np.arange, (0.3, 4.0, 0.7), {}),
    ("arange-negative-step", np.arange, (2.5, -1.0, -0.45), {}),
    ("arange-int-start", np.arange, (1, 4.0, 0.35), {}),
    ("gradient", np.gradient, (V,), {}),
    ("gradient-spacing", np.gradient, (V, 0.3), {}),
    ("gradient-edge-order-2", np.gradient, (V, 0.7), {"edge_order": 2}),
    ("gradient-2d", np.gradient, (M,), {}),
    ("gradient-2d-spacings", np.gradient, (M, 0.5, 2.0), {"edge_order": 2}),
    ("gradient-axis", np.gradient, (X, 1.5), {"axis": 1}),
    ("gradient-axes", np.gradient, (X,), {"axis": (0, 2)}),
    ("gradient-complex", np.gradient, (Z, 0.5), {}),
    ("gradient-coordinates", np.gradient, (V, GRID), {}),
    ("gradient-coordinates-edge-order-2", np.gradient, (V, GRID), {"edge_order": 2}),
    ("gradient-coordinates-axis", np.gradient, (M, GRID[:6]), {"axis": 1}),
    ("gradient-mixed-spacings", np.gradient, (M, 0.5, GRID[:6]), {"edge_order": 2}),
    ("gradient-coordinates-complex", np.gradient, (Z, GRID), {}),
    ("gradient-coordinates-short", np.gradient, (V[:3], GRID[:3]), {"edge_order": 2}),
    ("trapezoid", np.trapezoid, (V,), {}),
    ("trapezoid-x", np.trapezoid, (V, GRID), {}),
    ("trapezoid-x-axis", np.trapezoid, (M, GRID[:4]), {"axis": 0}),
    ("trapezoid-x-2d", np.trapezoid, (M, GRID_2D), {}),
    ("trapezoid-dx", np.trapezoid, (M, None, 0.3), {}),
    ("trapezoid-dx-keyword", np.trapezoid, (X,), {"dx": 0.3, "axis": 1}),
    ("trapezoid-complex", np.trapezoid, (Z, GRID), {}),
    ("interp", np.interp, (V, GRID - 4.0, np.cos(V)), {}),
    ("interp-outside", np.interp, (np.array([-10.0, 0.2, 10.0]), GRID - 4.0, V), {}),
    ("interp-left-right", np.interp, (np.array([-10.0, 0.2, 10.0]), GRID - 4.0, V, -1.5, 2.5), {}),
    ("interp-float", np.interp, (0.3, GRID - 4.0, V), {}),
    ("interp-matrix", np.interp, (M, GRID - 4.0, V), {}),
    ("interp-complex", np.interp, (V, GRID - 4.0, Z), {}),
]


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_reverse_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_forward_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **kwargs, seed=TANGENT_SEED)


def test_gradient_refuses_second_derivatives_in_coordinates() -> None:
    from srcad.registry import REGISTRY
    from srcad.tangents import NoTangent

    gradient_frule = REGISTRY.frule_for(np.gradient).rrule
    with pytest.raises(TypeError, match="coordinate arrays"):
        srcad.rrule(gradient_frule, (NoTangent(), V, GRID), V, GRID)


def linspace_loss(x: np.ndarray) -> Any:
    samples = np.linspace(x[0, 0], x[1, 1], 9)
    return np.sum(np.sin(samples)) + np.sum(np.linspace(x[0], x[1], 3) ** 2)


def logspace_loss(x: np.ndarray) -> Any:
    powers = np.logspace(x[0, 0], x[1, 1], 5, base=x[0, 1] ** 2 + 1.5)
    return np.sum(np.sqrt(powers)) + np.sum(np.logspace(x[0] * 0.3, 0.5, 3, axis=1) ** 2)


def arange_loss(x: np.ndarray) -> Any:
    """`np.arange` of a differentiated start and step: srcad had taken it to have no
    derivative (0 with no error)."""
    start, step = x[0, 0], x[1, 1] ** 2 + 0.5
    return np.sum(np.sin(np.arange(start, start + 3.0, step))) + np.sum(np.arange(x[0, 1], 2.0))


def gradient_loss(x: np.ndarray) -> Any:
    both = np.gradient(x**2, 0.5, 2.0)
    return np.sum(both[0] * both[1]) + np.sum(np.gradient(x[0], x[1, 1] ** 2 + 1.0) ** 2)


def trapezoid_loss(x: np.ndarray) -> Any:
    return np.trapezoid(np.exp(x[0]), np.cumsum(x[1] ** 2)) + np.sum(np.trapezoid(x**3, axis=0))


def interp_loss(x: np.ndarray) -> Any:
    return np.sum(np.interp(x[0], GRID - 4.0, np.sin(V)) * x[1]) + np.interp(0.1, x[2], x[3])


def gradient_on_coordinates_loss(x: np.ndarray) -> Any:
    return np.sum(np.gradient(np.sin(x[0]), np.cumsum(x[1] ** 2 + 0.5), edge_order=2) ** 2)


LOSSES = [
    linspace_loss,
    logspace_loss,
    arange_loss,
    gradient_loss,
    gradient_on_coordinates_loss,
    trapezoid_loss,
    interp_loss,
]


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_first_order_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, np.sort(M, axis=1), second_order=False)


@pytest.mark.parametrize("f", [linspace_loss, logspace_loss, arange_loss, trapezoid_loss,
                               gradient_loss, interp_loss], ids=lambda f: f.__name__)  # fmt: skip
def test_second_order_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, np.sort(M, axis=1))


@pytest.mark.parametrize(
    "args",
    [
        pytest.param((M,), id="samples"),
        pytest.param((M, GRID[:6]), id="coordinates"),
        pytest.param((X, None, 0.4, 1), id="spacing"),
    ],
)
def test_reverse_rule_of_trapezoid_frule_matches_finite_differences(args: tuple[Any, ...]) -> None:
    from srcad.registry import REGISTRY
    from srcad.tangents import NoTangent

    trapezoid_frule = REGISTRY.frule_for(np.trapezoid).rrule
    rng = np.random.default_rng(TANGENT_SEED)
    dots = [
        rng.standard_normal(np.shape(a)) if isinstance(a, np.ndarray) else
        (0.3 if isinstance(a, float) else NoTangent())
        for a in args
    ]  # fmt: skip
    check_rrule(trapezoid_frule, (NoTangent(), *dots), *args)


def test_reverse_rule_of_linspace_frule_matches_finite_differences() -> None:
    from srcad.registry import REGISTRY
    from srcad.tangents import NoTangent

    linspace_frule = REGISTRY.frule_for(np.linspace).rrule
    dargs = (NoTangent(), V[:3] * 0.5, 1.5, NoTangent())
    check_rrule(linspace_frule, dargs, V[:3], 2.0, 4, retstep=True)


# -- functions that already had rules, in the forms issue 20 names -----------------------------

AVERAGE_WEIGHTS = RNG.uniform(0.5, 2.0, 6)
INDICES = np.argsort(M, axis=1)


def average_loss(x: np.ndarray) -> Any:
    return np.sum(np.average(np.sin(x), axis=1, weights=AVERAGE_WEIGHTS) ** 2)


def trace_offset_loss(x: np.ndarray) -> Any:
    return np.trace(x, 1) ** 2 + np.trace(x * x, -2)


def take_along_axis_loss(x: np.ndarray) -> Any:
    return np.sum(np.take_along_axis(x, INDICES, axis=1) ** 2 * np.arange(6.0))


def einsum_sublist_loss(x: np.ndarray) -> Any:
    return np.einsum(x, [0, 1], np.sin(x), [0, 1], []) + np.sum(np.einsum(x, [1, 0]) ** 3)


def argsort_loss(x: np.ndarray) -> Any:
    return np.sum(x[0][np.argsort(x[1])] * np.arange(6.0)) + np.sum(np.sort(x, axis=None) ** 2)


EXISTING = [
    average_loss,
    trace_offset_loss,
    take_along_axis_loss,
    einsum_sublist_loss,
    argsort_loss,
]


@pytest.mark.parametrize("f", EXISTING, ids=lambda f: f.__name__)
def test_existing_rules_in_these_forms_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, M, second_order=f in (trace_offset_loss, argsort_loss))


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        pytest.param((V,), {}, id="unit-spacing"),
        pytest.param((V, 0.3), {"edge_order": 2}, id="spacing"),
        pytest.param((M, 0.5, 2.0), {}, id="spacing-per-axis"),
        pytest.param((X, 1.5), {"axis": (0, 2)}, id="one-spacing-two-axes"),
    ],
)
def test_reverse_rule_of_gradient_frule_matches_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    from srcad.registry import REGISTRY
    from srcad.tangents import NoTangent

    gradient_frule = REGISTRY.frule_for(np.gradient).rrule
    rng = np.random.default_rng(TANGENT_SEED)
    dots = [rng.standard_normal(np.shape(a)) if isinstance(a, np.ndarray) else 0.3 for a in args]
    check_rrule(gradient_frule, (NoTangent(), *dots), *args, **kwargs)


# Repeated samples: segments of no width, which NumPy reads only for points outside the
# samples (and `x == xp[-1]`). The rules once divided by their width there and multiplied the
# NaN by the zero cotangent outside: NaN for `x` and `fp` where the derivative is 0 or the
# end's, with no error.
REPEATED = np.array([-1.0, -1.0, 0.25, 0.25, 0.5, 1.0, 1.0])
POINTS = np.array([[-2.5, -0.4, 0.3, 0.8, 1.7, 0.1], [3.0, -1.5, 0.6, -0.9, 0.45, 2.0]])


@pytest.mark.parametrize("point", [POINTS, POINTS[::-1], POINTS * 0.5])
def test_interp_at_repeated_samples_through_the_api(point: np.ndarray) -> None:
    def loss(x: np.ndarray) -> Any:
        fp = np.concatenate([x[1], x[0, :1]])
        inside = np.interp(x[0], REPEATED, fp**2)
        return np.sum(inside * x[1]) + np.sum(np.interp(x[1] * 3.0, REPEATED, fp, -0.5) * x[0])

    check_through_api(loss, point)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param((V, GRID - 4.0, np.cos(V)), id="inside-and-outside"),
        pytest.param((np.array([-10.0, 0.2, 10.0]), GRID - 4.0, V, -1.5, 2.5), id="left-right"),
        pytest.param((V, GRID - 4.0, Z), id="complex"),
    ],
)
def test_reverse_rule_of_interp_frule_matches_finite_differences(args: tuple[Any, ...]) -> None:
    from srcad.registry import REGISTRY
    from srcad.tangents import NoTangent

    interp_frule = REGISTRY.frule_for(np.interp).rrule
    rng = np.random.default_rng(TANGENT_SEED)
    dots = [
        rng.standard_normal(np.shape(a)) + (0j if np.iscomplexobj(a) else 0.0)
        if isinstance(a, np.ndarray) else 0.3
        for a in args
    ]  # fmt: skip
    check_rrule(interp_frule, (NoTangent(), *dots), *args)

"""Rules for NumPy's shape functions, checked against finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.rules import numpy_shape
from srcad.tangents import AbstractZero, NoTangent, Thunk, ZeroTangent
from srcad.testing import check_frule, check_rrule

# The seed of random tangents, apart from the data's: a tangent equal to its primal (both
# drawn from seed 0) would hide a rule that confuses the two.
TANGENT_SEED = 7

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4))
M = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
A = RNG.standard_normal((2, 3))
B = RNG.standard_normal((2, 3))
ROW = RNG.standard_normal((1, 3))
Z = X + 1j * RNG.standard_normal((2, 3, 4))
M32 = M.astype(np.float32)


def ravel_transposed_in_memory_order(x: np.ndarray) -> np.ndarray:
    # check_rrule perturbs arrays element by element through a C-order view, so layouts
    # other than C (where order "K" and "A" matter) are made inside the function checked.
    return np.ravel(np.transpose(x), "K")


def reshape_transposed_in_any_order(x: np.ndarray) -> np.ndarray:
    return np.reshape(np.transpose(x), (2, 6), order="A")


Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

# (id, function, positional arguments, keyword arguments) of one call.
RESHAPING: list[Call] = [
    ("reshape-shape-positional", np.reshape, (X, (6, 4)), {}),
    ("reshape-shape-keyword", np.reshape, (X,), {"shape": (4, 6)}),
    ("reshape-minus-one", np.reshape, (X, -1), {}),
    ("reshape-order-F", np.reshape, (X, (4, 3, 2), "F"), {}),
    ("reshape-order-F-keyword", np.reshape, (M, (2, 6)), {"order": "F"}),
    ("reshape-order-A-C-layout", np.reshape, (M, (6, 2)), {"order": "A"}),
    ("reshape-order-A-F-layout", reshape_transposed_in_any_order, (M,), {}),
    ("reshape-to-0d", np.reshape, (X[:1, :1, :1], ()), {}),
    ("reshape-complex", np.reshape, (Z, (3, 8)), {}),
    ("reshape-float32", np.reshape, (M32, (2, 6)), {}),
    ("ravel", np.ravel, (X,), {}),
    ("ravel-order-F", np.ravel, (X, "F"), {}),
    ("ravel-order-K-C-layout", np.ravel, (M,), {"order": "K"}),
    ("ravel-order-K-F-layout", ravel_transposed_in_memory_order, (M,), {}),
    ("ravel-0d", np.ravel, (np.array(1.5),), {}),
    ("ravel-complex", np.ravel, (Z,), {}),
    ("expand-dims-0", np.expand_dims, (M, 0), {}),
    ("expand-dims-last", np.expand_dims, (M,), {"axis": -1}),
    ("expand-dims-tuple", np.expand_dims, (V, (0, 2)), {}),
    ("expand-dims-float", np.expand_dims, (1.5, 0), {}),
    ("squeeze-all", np.squeeze, (X[:, :1, None, :],), {}),
    ("squeeze-axis", np.squeeze, (X[:, :1, None, :], 2), {}),
    ("squeeze-axis-tuple", np.squeeze, (X[:, :1, None, :],), {"axis": (1, -2)}),
    ("squeeze-to-0d", np.squeeze, (X[:1, :1, :1],), {}),
    ("squeeze-float32", np.squeeze, (M32[None],), {}),
    ("atleast-1d-0d", np.atleast_1d, (np.array(1.5),), {}),
    ("atleast-1d-float", np.atleast_1d, (1.5,), {}),
    ("atleast-1d-matrix", np.atleast_1d, (M,), {}),
    ("atleast-1d-several", np.atleast_1d, (1.5, V, M), {}),
    ("atleast-2d-vector", np.atleast_2d, (V,), {}),
    ("atleast-2d-several", np.atleast_2d, (np.array(1.5), V, X), {}),
    ("atleast-3d-vector", np.atleast_3d, (V,), {}),
    ("atleast-3d-several", np.atleast_3d, (M, V), {}),
    ("broadcast-to-leading-axes", np.broadcast_to, (V, (2, 3, 4)), {}),
    ("broadcast-to-stretched-axes", np.broadcast_to, (X[:1, :, :1], (2, 3, 4)), {}),
    ("broadcast-to-both", np.broadcast_to, (M[:1], (2, 3, 4)), {}),
    ("broadcast-to-same-shape", np.broadcast_to, (M, (3, 4)), {}),
    ("broadcast-to-shape-keyword", np.broadcast_to, (V,), {"shape": (3, 4)}),
    ("broadcast-to-float", np.broadcast_to, (1.5, (2, 3)), {}),
    ("broadcast-to-list", np.broadcast_to, ([1.5, -0.5, 2.0], (2, 3)), {}),
    ("broadcast-to-0d", np.broadcast_to, (np.array(1.5), (4,)), {}),
    ("broadcast-to-float32", np.broadcast_to, (M32[:, :1], (2, 3, 4)), {}),
    ("broadcast-to-complex", np.broadcast_to, (Z[0, 0], (3, 4)), {}),
]

PERMUTING: list[Call] = [
    ("swapaxes", np.swapaxes, (X, 0, 2), {}),
    ("swapaxes-negative", np.swapaxes, (X, -1, 1), {}),
    ("swapaxes-keywords", np.swapaxes, (M,), {"axis1": 0, "axis2": 1}),
    ("swapaxes-same-axis", np.swapaxes, (M, 1, 1), {}),
    ("moveaxis", np.moveaxis, (X, 0, -1), {}),
    ("moveaxis-tuples", np.moveaxis, (X, (0, 1), (2, 0)), {}),
    ("moveaxis-keywords", np.moveaxis, (X,), {"source": -1, "destination": 0}),
    ("moveaxis-complex", np.moveaxis, (Z, 2, 0), {}),
    ("flip-all", np.flip, (X,), {}),
    ("flip-axis", np.flip, (X, 1), {}),
    ("flip-negative-axis", np.flip, (X,), {"axis": -1}),
    ("flip-axis-tuple", np.flip, (X, (0, 2)), {}),
    ("flip-float32", np.flip, (M32, 0), {}),
    ("roll-flat", np.roll, (X, 5), {}),
    ("roll-flat-negative", np.roll, (M, -7), {}),
    ("roll-axis", np.roll, (X, 2, 2), {}),
    ("roll-negative-axis", np.roll, (X, -1), {"axis": -2}),
    ("roll-tuple", np.roll, (X, (1, -2), (0, 2)), {}),
    ("roll-tuple-same-axis", np.roll, (M, (1, 2), (1, 1)), {}),
    ("roll-more-than-length", np.roll, (V, 9), {}),
    ("roll-complex", np.roll, (Z, 1, 1), {}),
]

COPYING: list[Call] = [
    ("tile-int", np.tile, (V, 2), {}),
    ("tile-matrix", np.tile, (A, (2, 2)), {}),
    ("tile-more-reps-than-axes", np.tile, (V, (2, 1, 3)), {}),
    ("tile-fewer-reps-than-axes", np.tile, (X, 2), {}),
    ("tile-ones", np.tile, (A, (1, 1)), {}),
    ("tile-reps-keyword", np.tile, (A,), {"reps": (3, 1)}),
    ("tile-float", np.tile, (1.5, 3), {}),
    ("tile-float32", np.tile, (M32[0], (2, 2)), {}),
    ("tile-complex", np.tile, (Z[0, 0], 3), {}),
    ("repeat-flat", np.repeat, (A, 2), {}),
    ("repeat-axis", np.repeat, (A, 2, 1), {}),
    ("repeat-negative-axis", np.repeat, (X, 2), {"axis": -3}),
    ("repeat-array-flat", np.repeat, (V, [1, 0, 3, 2]), {}),
    ("repeat-array-axis", np.repeat, (A, np.array([3, 1]), 0), {}),
    ("repeat-array-axis-keyword", np.repeat, (A, [0, 2, 1]), {"axis": -1}),
    ("repeat-one-count-in-array", np.repeat, (A, [2], 1), {}),
    ("repeat-zero", np.repeat, (V, 0), {}),
    ("repeat-float", np.repeat, (1.5, 3), {}),
    ("repeat-0d", np.repeat, (np.array(1.5), 3), {}),
    ("repeat-float32", np.repeat, (M32[0], [1, 2, 0, 1]), {}),
    ("repeat-complex", np.repeat, (Z[0], 2, 0), {}),
]

PADDING: list[Call] = [
    ("pad-int", np.pad, (A, 1), {}),
    ("pad-before-after", np.pad, (A, (1, 2)), {}),
    ("pad-per-axis", np.pad, (A, ((0, 1), (2, 0))), {}),
    ("pad-one-pair-per-axis", np.pad, (A, ((1,), (2,))), {}),
    ("pad-zero", np.pad, (V, 0), {}),
    ("pad-constant-values", np.pad, (V, 2), {"constant_values": 4.5}),
    ("pad-constant-positional", np.pad, (V, (1, 2), "constant"), {"constant_values": (1.0, 2.0)}),
    ("pad-edge", np.pad, (A, 2, "edge"), {}),
    ("pad-edge-per-axis", np.pad, (A,), {"pad_width": ((0, 2), (3, 1)), "mode": "edge"}),
    ("pad-reflect", np.pad, (V, (2, 3), "reflect"), {}),
    ("pad-reflect-wider-than-array", np.pad, (V[:3], (5, 4), "reflect"), {}),
    ("pad-reflect-per-axis", np.pad, (A, ((1, 1), (2, 0))), {"mode": "reflect"}),
    ("pad-reflect-even", np.pad, (A, 1, "reflect"), {"reflect_type": "even"}),
    ("pad-reflect-length-1", np.pad, (ROW, 1, "reflect"), {}),
    ("pad-symmetric", np.pad, (A, (1, 3), "symmetric"), {}),
    ("pad-wrap", np.pad, (V, (3, 6), "wrap"), {}),
    ("pad-3d", np.pad, (X[:, :2, :2], ((1, 0), (0, 1), (1, 1)), "edge"), {}),
    ("pad-float32", np.pad, (M32, 1, "reflect"), {}),
    ("pad-complex", np.pad, (Z[0], ((1, 0), (0, 2)), "symmetric"), {}),
    ("pad-complex-constant", np.pad, (Z[0, 0], 2), {}),
]

CALLS = RESHAPING + PERMUTING + COPYING + PADDING


def _single_precision(args: tuple[Any, ...]) -> bool:
    flat = [e for a in args for e in (a if isinstance(a, list | tuple) else (a,))]
    return any(np.asarray(a).dtype == np.float32 for a in flat)


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if _single_precision(args) else {}
    check_rrule(f, *args, **tolerance, **kwargs)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"),
    [
        pytest.param(np.reshape, (X, (6, 4)), {}, id="reshape"),
        pytest.param(np.ravel, (X, "F"), {}, id="ravel"),
        pytest.param(np.tile, (A, 2), {}, id="tile"),
        pytest.param(np.repeat, (A, [1, 2], 0), {}, id="repeat"),
        pytest.param(np.pad, (A, 1, "edge"), {}, id="pad"),
        pytest.param(np.atleast_2d, (V, M), {}, id="atleast-2d-several"),
        pytest.param(np.broadcast_to, (V, (3, 4)), {}, id="broadcast-to"),
        pytest.param(np.roll, (X, 1, 0), {}, id="roll"),
    ],
)
def test_zero_cotangent_stays_symbolic(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    _, pullback = srcad.rrule(f, *args, **kwargs)
    cotangents = pullback(ZeroTangent())
    assert len(cotangents) == 1 + len(args)
    assert all(isinstance(c, AbstractZero) for c in cotangents)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        pytest.param((A, 1, "mean"), {}, "mode 'mean'", id="mean"),
        pytest.param((A, 1), {"mode": "linear_ramp"}, "mode 'linear_ramp'", id="linear-ramp"),
        pytest.param((A, 1, "reflect"), {"reflect_type": "odd"}, "reflect_type 'odd'", id="odd"),
        pytest.param(
            (A, 1), {"mode": "symmetric", "reflect_type": "odd"}, "reflect_type 'odd'", id="odd-sym"
        ),
    ],
)
def test_pad_refuses_modes_without_rules(
    args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message) as error:
        srcad.rrule(np.pad, *args, **kwargs)
    assert "'constant', 'edge', 'reflect', 'symmetric', 'wrap'" in str(error.value)


def test_positional_options_get_no_tangent() -> None:
    _, pullback = srcad.rrule(np.pad, A, 1, "edge")
    assert pullback(np.ones((4, 5)))[2:] == (NoTangent(), NoTangent())


# -- forward rules -----------------------------------------------------------------------------

# check_frule perturbs arrays and numbers; a list of numbers gets its tangent as a list.
FORWARD_TANGENTS = {"broadcast-to-list": ([0.3, -1.2, 0.5], NoTangent())}


@pytest.mark.parametrize(
    ("f", "args", "kwargs", "tangents"),
    [pytest.param(*c[1:], FORWARD_TANGENTS.get(c[0]), id=c[0]) for c in CALLS],
)
def test_forward_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], tangents: Any
) -> None:
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if _single_precision(args) else {}
    check_frule(f, *args, tangents=tangents, **tolerance, **kwargs, seed=TANGENT_SEED)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"),
    [
        pytest.param(np.ravel, (), {"order": "K"}, id="ravel-K"),
        pytest.param(np.ravel, ("A",), {}, id="ravel-A"),
        pytest.param(np.reshape, ((2, 6),), {"order": "A"}, id="reshape-A"),
    ],
)
@pytest.mark.parametrize("layout", ["C", "F"])
def test_forward_rule_reads_in_the_primal_layout(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], layout: str
) -> None:
    # Orders "A" and "K" follow the layout of the primal, whatever the tangent's: with the
    # tangent laid out as the primal is, finite differences keep the layout (and check the
    # rule); laid out the other way, the rule must give the same tangent.
    x = np.asfortranarray(M) if layout == "F" else M
    dot = RNG.standard_normal(M.shape)
    same = np.asfortranarray(dot) if layout == "F" else dot
    other = dot if layout == "F" else np.asfortranarray(dot)
    no_dots = (NoTangent(),) * len(args)
    check_frule(f, x, *args, tangents=(same, *no_dots), **kwargs, seed=TANGENT_SEED)
    expected = srcad.frule((NoTangent(), same, *no_dots), f, x, *args, **kwargs)[1]
    actual = srcad.frule((NoTangent(), other, *no_dots), f, x, *args, **kwargs)[1]
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize(
    "dots",
    [
        pytest.param((ZeroTangent(), np.ones(4), ZeroTangent()), id="one-of-three"),
        pytest.param((Thunk(lambda: 2.0), NoTangent(), np.ones((3, 4))), id="thunk-and-no-tangent"),
    ],
)
def test_atleast_nd_of_several_gives_a_tuple_with_symbolic_zeros(dots: tuple[Any, ...]) -> None:
    args = (1.5, V, M)
    check_frule(np.atleast_2d, *args, tangents=dots, seed=TANGENT_SEED)
    y_dot = srcad.frule((NoTangent(), *dots), np.atleast_2d, *args)[1]
    assert isinstance(y_dot, tuple)
    assert [isinstance(d, AbstractZero) for d in dots] == [
        isinstance(d, AbstractZero) for d in y_dot
    ]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        pytest.param((A, 1, "mean"), {}, id="mean"),
        pytest.param((A, 1, "reflect"), {"reflect_type": "odd"}, id="odd"),
    ],
)
def test_pad_forward_rule_refuses_modes_without_rules(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    dots = (NoTangent(), np.ones_like(A), *(NoTangent() for _ in args[1:]))
    with pytest.raises(TypeError, match=r"no rule for np\.pad with"):
        srcad.frule(dots, np.pad, *args, **kwargs)


def test_pad_forward_rule_pads_the_tangent_with_zeros() -> None:
    # The constant written is not differentiated: only the copied elements move.
    check_frule(np.pad, V, (1, 2), "constant", constant_values=(4.0, -2.0), seed=TANGENT_SEED)


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_shape.rules.rrules) <= set(numpy_shape.rules.frules)


MESH_VECTORS = (np.array([0.1, 0.5, 0.9]), np.array([1.0, -2.0]), np.array([0.3, 0.4, 0.7, 0.6]))


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid_rules_match_finite_differences(count: int, indexing: str, sparse: bool) -> None:
    vectors = MESH_VECTORS[:count]
    check_rrule(np.meshgrid, *vectors, indexing=indexing, sparse=sparse)
    check_frule(np.meshgrid, *vectors, indexing=indexing, sparse=sparse, seed=TANGENT_SEED)


def test_meshgrid_of_matrices_flattens_them() -> None:
    check_rrule(np.meshgrid, np.arange(1.0, 5.0).reshape(2, 2), MESH_VECTORS[0])


def surface(x: Any, y: Any) -> Any:
    grid_x, grid_y = np.meshgrid(x, y)
    return np.sum(np.sin(grid_x) * grid_y**2)


def test_meshgrid_through_the_api_to_second_order() -> None:
    x, y = MESH_VECTORS[:2]
    step = 1e-6
    for position, value in ((0, x), (1, y)):
        want = np.zeros(len(value))
        for k in range(len(value)):
            up, down = [x.copy(), y.copy()], [x.copy(), y.copy()]
            up[position][k] += step
            down[position][k] -= step
            want[k] = (surface(*up) - surface(*down)) / (2 * step)
        np.testing.assert_allclose(srcad.grad(surface, wrt=position)(x, y), want, rtol=1e-6)
    # d²/dx² of sum_ij sin(x_j) y_i²: diagonal, -sin(x_j) * sum_i y_i².
    hessian = srcad.hessian(surface, wrt=0)(x, y)
    np.testing.assert_allclose(hessian, np.diag(-np.sin(x) * np.sum(y**2)), atol=1e-12)

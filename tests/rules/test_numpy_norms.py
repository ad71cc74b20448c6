"""Rules for `np.linalg.norm`, checked against finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.api import frule, rrule
from srcad.rules import numpy_norms
from srcad.rules.numpy_norms import norm_rrule
from srcad.tangents import NoTangent, Thunk, ZeroTangent
from srcad.testing import check_frule, check_rrule, inner

# The arrays of test_numpy_reductions, drawn in the same order, so the cases are its own.
X = np.random.default_rng(0).standard_normal((2, 3, 2))
RNG = np.random.default_rng(1)
V = RNG.standard_normal(5)
RNG.standard_normal(4)  # its V_EVEN, which no norm case uses
M = RNG.standard_normal((3, 4))
Z = X + 1j * RNG.standard_normal((2, 3, 2))


def tolerances(args: tuple[Any, ...]) -> dict[str, float]:
    """Finite differences of float32 primals are only good to about 1e-4."""
    if any(np.asarray(a).dtype in (np.float32, np.complex64) for a in args):
        return {"rtol": 1e-4, "atol": 1e-5}
    return {}


NORM_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("vector", (V,), {}),
    ("vector-ord-1", (V, 1), {}),
    ("vector-ord-2", (V,), {"ord": 2}),
    ("vector-ord-3", (V,), {"ord": 3}),
    ("vector-ord-half", (V,), {"ord": 0.5}),
    ("vector-ord-minus-1", (V,), {"ord": -1}),
    ("vector-ord-inf", (V,), {"ord": np.inf}),
    ("vector-ord-minus-inf", (V,), {"ord": -np.inf}),
    ("vector-ord-0", (V,), {"ord": 0}),
    ("vector-keepdims", (V,), {"keepdims": True}),
    ("0d", (np.array(-1.5),), {}),
    ("python-float", (-1.5,), {}),
    ("flat", (X,), {}),
    ("flat-keepdims", (X,), {"keepdims": True}),
    ("rows", (M,), {"axis": 1}),
    ("columns-ord-1", (M, 1, 0), {}),
    # A float `ord` by position would be taken for a differentiable argument by check_rrule.
    ("rows-keepdims-positional", (M, None, -1, True), {}),
    ("rows-ord-inf-keepdims", (M,), {"ord": np.inf, "axis": -1, "keepdims": True}),
    ("axis-1-tuple", (X,), {"axis": (1,)}),
    ("matrix", (M,), {}),
    ("matrix-fro", (M, "fro"), {}),
    ("matrix-nuc", (M,), {"ord": "nuc"}),
    ("matrix-ord-1", (M,), {"ord": 1}),
    ("matrix-ord-minus-1", (M,), {"ord": -1}),
    ("matrix-ord-2", (M,), {"ord": 2}),
    ("matrix-ord-minus-2", (M,), {"ord": -2}),
    ("matrix-ord-inf", (M,), {"ord": np.inf}),
    ("matrix-ord-minus-inf", (M,), {"ord": -np.inf}),
    ("matrix-keepdims", (M,), {"ord": 2, "keepdims": True}),
    ("stack-fro", (X,), {"axis": (1, 2)}),
    ("stack-nuc", (X,), {"ord": "nuc", "axis": (0, 1)}),
    ("stack-transposed-ord-1", (X,), {"ord": 1, "axis": (2, 0)}),
    ("stack-transposed-ord-2-keepdims", (X,), {"ord": 2, "axis": (-1, 1), "keepdims": True}),
    ("stack-ord-minus-inf", (X,), {"ord": -np.inf, "axis": (1, 2)}),
    ("float32", (M.astype(np.float32),), {"axis": 0}),
    ("float32-nuc", (M.astype(np.float32),), {"ord": "nuc"}),
    ("complex-vector", (Z[0, :, 0],), {}),
    ("complex-vector-ord-1", (Z[0, :, 0],), {"ord": 1}),
    ("complex-vector-ord-inf", (Z[0, :, 0],), {"ord": np.inf}),
    ("complex-vector-ord-3", (Z[0, :, 0],), {"ord": 3}),
    ("complex-matrix-fro", (Z[0],), {"ord": "fro"}),
    ("complex-matrix-nuc", (Z[0],), {"ord": "nuc"}),
    ("complex-matrix-ord-2", (Z[0],), {"ord": 2}),
    ("complex-matrix-ord-inf", (Z[0],), {"ord": np.inf}),
]


@pytest.mark.parametrize(
    ("args", "kwargs"), [pytest.param(*call[1:], id=call[0]) for call in NORM_CALLS]
)
def test_norm_matches_finite_differences(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    check_rrule(np.linalg.norm, *args, **tolerances(args), **kwargs)


ZERO_ROWS = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])


KINKS = [
    # At zero every norm has a kink; central differences see the zero subgradient.
    pytest.param(np.zeros(3), {}, id="vector"),
    pytest.param(np.zeros(3), {"ord": 1}, id="vector-ord-1"),
    pytest.param(np.zeros(3), {"ord": np.inf}, id="vector-ord-inf"),
    pytest.param(np.zeros(3), {"ord": 3}, id="vector-ord-3"),
    pytest.param(ZERO_ROWS, {"axis": 1}, id="zero-row"),
    pytest.param(np.zeros((2, 3)), {"ord": "fro"}, id="matrix-fro"),
    pytest.param(np.zeros((2, 3)), {"ord": "nuc"}, id="matrix-nuc"),
    pytest.param(np.zeros((2, 3)), {"ord": 2}, id="matrix-ord-2"),
    pytest.param(np.zeros((2, 3)), {"ord": 1}, id="matrix-ord-1"),
    # Ties of two for the largest magnitude (or column sum): halves, as for np.max.
    pytest.param(np.array([3.0, -3.0, 1.0]), {"ord": np.inf}, id="vector-ord-inf-tie"),
    pytest.param(np.array([[1.0, -2.0], [-2.0, 1.0]]), {"ord": 1}, id="matrix-ord-1-tie"),
]


@pytest.mark.parametrize(("x", "kwargs"), KINKS)
def test_norm_at_kink_matches_finite_differences(x: np.ndarray, kwargs: dict[str, Any]) -> None:
    check_rrule(np.linalg.norm, x, **kwargs)


# --- Symbolic zeros ----------------------------------------------------------------------

ZERO_CALLS = [
    pytest.param(norm_rrule, (M, "nuc"), id="norm"),
]


@pytest.mark.parametrize(("rule", "args"), ZERO_CALLS)
def test_new_rules_keep_zero_cotangent_symbolic(
    rule: Callable[..., Any], args: tuple[Any, ...]
) -> None:
    _, pullback = rule(*args)
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), *[NoTangent()] * (len(args) - 1))


# --- Forward rules ------------------------------------------------------------------------


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_norms.rules.rrules) <= set(numpy_norms.rules.frules)


@pytest.mark.parametrize(
    ("args", "kwargs"), [pytest.param(*call[1:], id=call[0]) for call in NORM_CALLS]
)
def test_norm_frule_matches_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(np.linalg.norm, *args, **tolerances(args), **kwargs)


@pytest.mark.parametrize(("x", "kwargs"), KINKS)
def test_norm_frule_at_kink_matches_finite_differences(
    x: np.ndarray, kwargs: dict[str, Any]
) -> None:
    check_frule(np.linalg.norm, x, **kwargs)


@pytest.mark.parametrize(
    ("x", "kwargs"),
    [
        # Where central differences are no guide (a tie of three, a repeated singular value)
        # the frule still agrees with the rrule's choice of subgradient.
        pytest.param(np.array([3.0, -3.0, 3.0, 1.0]), {"ord": np.inf}, id="vector-inf-tie-3"),
        pytest.param(np.array([-1.0, 1.0, -1.0]), {"ord": -np.inf}, id="vector-minus-inf-tie-3"),
        pytest.param(np.eye(3), {"ord": 2}, id="matrix-ord-2-repeated"),
        pytest.param(np.ones((3, 3)), {"ord": np.inf}, id="matrix-inf-tie-3"),
    ],
)
def test_norm_frule_is_adjoint_of_rrule_at_kinks(x: np.ndarray, kwargs: dict[str, Any]) -> None:
    rng = np.random.default_rng(3)
    x_dot = rng.standard_normal(x.shape)
    y_bar = rng.standard_normal(np.shape(np.linalg.norm(x, **kwargs)))
    _, y_dot = frule((NoTangent(), x_dot), np.linalg.norm, x, **kwargs)
    x_bar = rrule(np.linalg.norm, x, **kwargs)[1](y_bar)[1]
    np.testing.assert_allclose(inner(y_bar, y_dot), inner(x_bar, x_dot), rtol=1e-12)


@pytest.mark.parametrize("zero", [ZeroTangent(), NoTangent()], ids=["zero", "no-tangent"])
def test_norm_frule_keeps_zero_tangent_symbolic(zero: Any) -> None:
    _, y_dot = frule((NoTangent(), zero, NoTangent()), np.linalg.norm, M, "nuc")
    assert y_dot is ZeroTangent()


def test_norm_frule_unthunks_its_tangent() -> None:
    x_dot = np.ones_like(M)
    _, expected = frule((NoTangent(), x_dot), np.linalg.norm, M, 2)
    _, y_dot = frule((NoTangent(), Thunk(lambda: x_dot)), np.linalg.norm, M, 2)
    np.testing.assert_equal(y_dot, expected)

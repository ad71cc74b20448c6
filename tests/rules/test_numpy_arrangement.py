"""Rules for NumPy's rearranging, masking and differencing functions (`numpy_arrangement`),
checked against finite differences: each rule alone, then through the public API."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.registry import REGISTRY
from srcad.rules import numpy_arrangement
from srcad.tangents import NoTangent
from srcad.testing import check_frule, check_rrule
from tests.rules.through_the_api import check_through_api

TANGENT_SEED = 7
RNG = np.random.default_rng(3)
M = RNG.standard_normal((4, 5))
S = RNG.standard_normal((4, 4))
X = RNG.standard_normal((2, 3, 4))
V = RNG.standard_normal(6)
Z = M + 1j * RNG.standard_normal((4, 5))
A3 = RNG.standard_normal((5, 3))
B3 = RNG.standard_normal((5, 3))
WEIGHTS = RNG.standard_normal((4, 5))

Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

CALLS: list[Call] = [
    ("tril", np.tril, (M,), {}),
    ("tril-k", np.tril, (M, -1), {}),
    ("tril-k-keyword", np.tril, (X,), {"k": 1}),
    ("tril-vector", np.tril, (V[:4],), {}),
    ("tril-complex", np.tril, (Z,), {}),
    ("triu", np.triu, (M,), {}),
    ("triu-k", np.triu, (X, 2), {}),
    ("fliplr", np.fliplr, (M,), {}),
    ("flipud", np.flipud, (X,), {}),
    ("rot90", np.rot90, (M,), {}),
    ("rot90-k", np.rot90, (X, 3, (1, 2)), {}),
    ("rot90-keywords", np.rot90, (X,), {"k": -1, "axes": (2, 0)}),
    ("rollaxis", np.rollaxis, (X, 2), {}),
    ("rollaxis-start", np.rollaxis, (X, 0, 3), {}),
    ("rollaxis-negative", np.rollaxis, (X,), {"axis": -1, "start": 1}),
    ("diagonal", np.diagonal, (M,), {}),
    ("diagonal-offset", np.diagonal, (M, 2), {}),
    ("diagonal-negative-offset", np.diagonal, (M, -2), {}),
    ("diagonal-axes", np.diagonal, (X, 1, 2, 0), {}),
    ("diagonal-complex", np.diagonal, (Z,), {"offset": 1}),
    ("diff", np.diff, (V,), {}),
    ("diff-n", np.diff, (V, 3), {}),
    ("diff-axis", np.diff, (X, 1, 1), {}),
    ("diff-prepend-append", np.diff, (M,), {"axis": 0, "prepend": 0.5, "append": M[:2]}),
    ("diff-n-0", np.diff, (V,), {"n": 0}),
    ("append-flat", np.append, (M, V), {}),
    ("append-axis", np.append, (M, M[:2], 0), {}),
    ("append-float", np.append, (V, 1.5), {}),
    ("select", np.select, ([V > 0, V < -1], [V**2, 3 * V]), {}),
    ("select-default", np.select, ([V > 0], [V], -V), {}),
    ("select-broadcast", np.select, ([M > 0, M < 0], [M, M[0]], M[:, :1]), {}),
    ("partition", np.partition, (V, 2), {}),
    ("partition-axis", np.partition, (M, (1, 3), 0), {}),
    ("partition-flat", np.partition, (M, 4), {"axis": None}),
    ("kron", np.kron, (S[:2, :3], M[:3, :2]), {}),
    ("kron-vectors", np.kron, (V[:3], V[3:]), {}),
    ("kron-mixed-ndim", np.kron, (V[:2], M[:2, :3]), {}),
    ("kron-complex", np.kron, (Z[:2, :2], M[:2, :3]), {}),
    ("cross", np.cross, (A3[0], B3[0]), {}),
    ("cross-stack", np.cross, (A3, B3), {}),
    ("cross-broadcast", np.cross, (A3, B3[0]), {}),
    ("cross-axis", np.cross, (A3.T, B3.T), {"axis": 0}),
    ("cross-axes", np.cross, (A3.T, B3), {"axisa": 0, "axisc": 0}),
    ("astype-float32", np.astype, (M, np.float32), {}),
    ("astype-complex", np.astype, (M, complex), {}),
    ("astype-int", np.astype, (M, int), {}),
    ("real-if-close-complex", np.real_if_close, (Z,), {}),
]


def _cross_takes_2_vectors() -> bool:
    """NumPy 2.0 deprecated 2-vectors in np.cross and 2.5 removed them."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            np.cross(np.ones(2), np.ones(2))
    except ValueError:
        return False
    return True


if _cross_takes_2_vectors():
    CALLS += [
        ("cross-2d", np.cross, (A3[:, :2], B3[:, :2]), {}),
        ("cross-2d-3d", np.cross, (A3[:, :2], B3), {}),
    ]


# NumPy 2 deprecates 2-vectors in np.cross, but still computes them.
pytestmark = pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors:DeprecationWarning")


def _tolerance(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, float]:
    single = any(a is np.float32 for a in args)
    return {"rtol": 1e-3, "atol": 1e-3} if single else {}


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_reverse_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs, **_tolerance(args, kwargs))


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_forward_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **kwargs, **_tolerance(args, kwargs), seed=TANGENT_SEED)


def test_real_if_close_of_a_nearly_real_array_has_a_real_tangent() -> None:
    # A complex tangent would move the imaginary parts away from zero: NumPy would then
    # return the complex array. Along a real tangent the result stays real.
    nearly_real = M + 1e-16j
    check_rrule(np.real_if_close, nearly_real)
    check_frule(np.real_if_close, nearly_real, tangents=(WEIGHTS + 0j,))
    assert not np.iscomplexobj(srcad.frule((NoTangent(), WEIGHTS + 0j), np.real_if_close,
                                           nearly_real)[1])  # fmt: skip


def test_every_reverse_rule_has_a_forward_rule() -> None:
    # The reverse rules of forward rules (second derivatives) are not primals.
    frules = {rule.rrule for rule in numpy_arrangement.rules.frules.values()}
    frules.add(numpy_arrangement.numpy_sorting.sort_frule)
    assert set(numpy_arrangement.rules.rrules) - frules <= set(numpy_arrangement.rules.frules)


# -- through the public API --------------------------------------------------------------------


def tril_loss(x: np.ndarray) -> Any:
    return np.sum(np.tril(x, -1) ** 2) + np.sum(np.triu(x) * WEIGHTS)


def flips_loss(x: np.ndarray) -> Any:
    return np.sum(np.sin(np.fliplr(x)) * np.flipud(x) * np.rot90(np.rot90(x)))


def rollaxis_loss(x: np.ndarray) -> Any:
    return np.sum(np.cos(np.rollaxis(x[None], 2, 1)) * np.transpose(x))


def diagonal_loss(x: np.ndarray) -> Any:
    return np.sum(np.exp(np.diagonal(x, 1))) + np.trace(x, -1) ** 2


def diff_loss(x: np.ndarray) -> Any:
    return np.sum(np.diff(x, 2, axis=0) ** 2) + np.sum(np.diff(np.tanh(x)) ** 3)


def append_loss(x: np.ndarray) -> Any:
    return np.sum(np.append(x, x[:1] ** 2, axis=0) ** 2) + np.sum(np.append(x, 1.0) * 2.0)


def select_loss(x: np.ndarray) -> Any:
    return np.sum(np.select([x > 0.5, x < -0.5], [x**3, np.sin(x)], x**2))


def partition_loss(x: np.ndarray) -> Any:
    return np.sum(np.partition(x**2, 3, axis=None) * np.arange(20.0))


def sort_loss(x: np.ndarray) -> Any:
    return np.sum(np.sort(np.sin(x), axis=0) ** 2 * WEIGHTS)


def kron_loss(x: np.ndarray) -> Any:
    return np.sum(np.kron(x, np.sin(x[:2, :2])) ** 2)


def cross_loss(x: np.ndarray) -> Any:
    return np.sum(np.cross(x[:, :3], x[:, 2:]) ** 2)


def conversion_loss(x: np.ndarray) -> Any:
    return np.real(np.sum(np.astype(x, np.complex128) ** 3)) + np.sum(np.real_if_close(x + 0j) ** 3)


# Second derivatives of the functions linear in one array (tril, flips, rollaxis,
# diagonal) come from `second_order.LINEAR`.
SECOND_ORDER = [select_loss, partition_loss, sort_loss, kron_loss, cross_loss, diff_loss,
                append_loss, conversion_loss]  # fmt: skip
LINEAR = [tril_loss, flips_loss, rollaxis_loss, diagonal_loss]


@pytest.mark.parametrize("f", [*SECOND_ORDER, *LINEAR], ids=lambda f: f.__name__)
def test_first_order_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, M, second_order=False)


@pytest.mark.parametrize("f", SECOND_ORDER, ids=lambda f: f.__name__)
def test_second_order_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, M)


@pytest.mark.parametrize("f", LINEAR, ids=lambda f: f.__name__)
def test_second_order_of_linear_functions_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, M)


# -- reverse rules of forward rules (second derivatives), each checked alone -------------------

FRULE_CASES = [
    ("select_frule", np.select, ([V > 0, V < -1], np.stack([V**2, 3 * V]), -V)),
    ("append_frule", np.append, (M, M[:2], 0)),
    ("diff_frule", np.diff, (M, 2, 0)),
    ("partition_frule", np.partition, (V, 2)),
    ("sort_frule", np.sort, (M, 0)),
    ("astype_frule", np.astype, (Z, np.complex128)),
    ("real_if_close_frule", np.real_if_close, (M + 1e-16j,)),
    ("float64_frule", np.float64, (M,)),
]


def _tangent_like(x: Any, rng: np.random.Generator) -> Any:
    if isinstance(x, list):
        return [_tangent_like(e, rng) for e in x]
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return rng.standard_normal(x.shape) + (0j if x.dtype.kind == "c" else 0.0)
    return NoTangent()


@pytest.mark.parametrize(("primal", "args"), [pytest.param(*c[1:], id=c[0]) for c in FRULE_CASES])
def test_reverse_rule_of_forward_rule_matches_finite_differences(
    primal: Any, args: tuple[Any, ...]
) -> None:
    frule = REGISTRY.frule_for(primal).rrule
    assert REGISTRY.rrule_for(frule) is not None
    rng = np.random.default_rng(TANGENT_SEED)
    dargs = (NoTangent(), *(_tangent_like(a, rng) for a in args))
    if primal is np.real_if_close:  # a real tangent keeps the result real (see above)
        dargs = (NoTangent(), WEIGHTS + 0j)
    check_rrule(frule, dargs, *args)


# -- np.float32(x): a cast that rounds, below what central differences resolve ----------------


def test_a_cast_to_float32_passes_derivatives_through() -> None:
    """Its rules (`float32_rrule`, `float32_frule`) pass derivatives through, rounded to
    float32: checked against the exact first and second derivatives of `sum(w * float32(x)
    ** 2)`, to float32's precision (a central difference of a function that rounds its
    argument to float32 is mostly rounding)."""
    x, w = M[0], WEIGHTS[0]

    def f(x):
        return np.sum(w * np.float32(x) ** 2)

    gradient = srcad.grad(f)(x)
    np.testing.assert_allclose(gradient, 2.0 * w * x, rtol=1e-6)
    np.testing.assert_allclose(
        srcad.jvp(f, (x,), (np.ones_like(x),))[1], np.sum(2.0 * w * x), rtol=1e-6
    )
    np.testing.assert_allclose(srcad.hessian(f)(x), np.diag(2.0 * w), rtol=1e-6)

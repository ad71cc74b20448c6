"""Rules for `np.ptp`, `np.cov`, `np.corrcoef`, `np.quantile`, `np.percentile`, and the
NaN-skipping reductions (`rules/numpy_statistics.py`, issue 20), checked against finite
differences: each rule alone in both modes, then through the public API (second order
too), and the options they refuse, located at the user's line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import MutationError, UnsupportedCallError
from srcad.testing import check_frule, check_rrule
from tests.conftest import user_module
from tests.rules.through_the_api import check_through_api

TANGENT_SEED = 5
RNG = np.random.default_rng(20)
V = RNG.standard_normal(7)
M = RNG.standard_normal((3, 5))
X = RNG.standard_normal((2, 3, 4))
HOLED = np.where(np.abs(M) > 1.0, np.nan, M)  # some NaNs, never a whole row
# Away from the knots `q (n - 1)` an integer, for every count `n` of a row below.
Q = np.array([0.13, 0.55, 0.91])
# Numbers apart by more than a finite difference's step (no order changes), four beyond 1.2.
X_API = RNG.permutation(np.linspace(-1.5, 1.5, 15)).reshape(3, 5) + 0.01 * M

Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

CALLS: list[Call] = [
    ("ptp", np.ptp, (M,), {}),
    ("ptp-axis", np.ptp, (M, 1), {}),
    ("ptp-axes-keepdims", np.ptp, (X,), {"axis": (0, 2), "keepdims": True}),
    ("cov", np.cov, (M,), {}),
    ("cov-vector", np.cov, (V,), {}),
    ("cov-columns", np.cov, (M,), {"rowvar": False}),
    ("cov-y", np.cov, (M[0], M[1]), {}),
    ("cov-y-keyword", np.cov, (M[:2],), {"y": M[2], "bias": True}),
    ("cov-ddof", np.cov, (M, None, True, False, 2), {}),
    ("cov-complex", np.cov, (M + 1j * M[::-1],), {}),
    ("corrcoef", np.corrcoef, (M,), {}),
    ("corrcoef-y-columns", np.corrcoef, (M[:, :2], M[:, 2:4]), {"rowvar": False}),
    ("corrcoef-one", np.corrcoef, (V,), {}),
    ("quantile", np.quantile, (V, 0.3), {}),
    ("quantile-many-axis", np.quantile, (M, Q, 1), {}),
    (
        "quantile-axes-keepdims",
        np.quantile,
        (X, np.array([[0.2], [0.75]])),
        {"axis": (0, 2), "keepdims": True},
    ),
    ("quantile-in-q", np.quantile, (V, Q), {}),
    ("quantile-q-keyword", np.quantile, (M,), {"q": Q, "axis": 0}),
    ("percentile", np.percentile, (M, 35.0), {"axis": 0}),
    ("percentile-many", np.percentile, (X, [10.0, 90.0]), {"axis": -1, "keepdims": True}),
    ("nanquantile", np.nanquantile, (HOLED, Q), {"axis": 1}),
    ("nanpercentile", np.nanpercentile, (HOLED, 63.0), {}),
    ("nanmedian", np.nanmedian, (HOLED,), {"axis": 1}),
    ("nanmedian-all", np.nanmedian, (HOLED,), {}),
    ("nanmean", np.nanmean, (HOLED,), {}),
    ("nanmean-axis", np.nanmean, (HOLED, 0), {"keepdims": True}),
    ("nanvar", np.nanvar, (HOLED,), {"axis": 1, "ddof": 1}),
    ("nanstd", np.nanstd, (HOLED, 0), {}),
    ("nanstd-correction", np.nanstd, (HOLED,), {"correction": 1}),
    ("nanmax", np.nanmax, (HOLED, 1), {}),
    ("nanmin", np.nanmin, (HOLED,), {}),
    ("nanprod", np.nanprod, (HOLED, 0), {}),
    ("nancumsum", np.nancumsum, (HOLED,), {"axis": 1}),
    ("nancumprod", np.nancumprod, (HOLED,), {}),
    ("polyfit", np.polyfit, (V, np.cos(V), 2), {}),
    (
        "polyfit-columns-weights",
        np.polyfit,
        (V, np.stack([V**2, np.sin(V)], 1), 1, None, False, np.exp(V)),
        {},
    ),
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


def holes(x: np.ndarray) -> Any:
    return np.where(np.abs(x) > 1.2, np.nan, x)


def ptp_loss(x: np.ndarray) -> Any:
    return np.sum(np.ptp(x, axis=0) ** 2) + np.ptp(x) * x[0, 0]


def cov_loss(x: np.ndarray) -> Any:
    both = np.cov(x[0], x[1] ** 2)
    return np.sum(np.cov(x) ** 2) + np.sum(both * both) + np.sum(np.cov(x, rowvar=False, ddof=0))


def corrcoef_loss(x: np.ndarray) -> Any:
    return np.sum(np.corrcoef(x) ** 3) + np.sum(np.corrcoef(x[0], np.sin(x[1])))


def quantile_loss(x: np.ndarray) -> Any:
    many = np.quantile(x, [0.15, 0.5, 0.9], axis=1)
    ends = np.quantile(x, [0.0, 1.0], axis=0)
    return (
        np.sum(many**2)
        + np.percentile(x, 42.0) ** 2
        + np.sum(np.quantile(x[0], x[1] ** 2 / 4))
        + np.sum(ends * x[:2])
    )


def nan_quantile_loss(x: np.ndarray) -> Any:
    y = holes(x)
    return np.sum(np.nanquantile(y, 0.35, axis=1) ** 2) + np.nanpercentile(y, 70.0) * np.nanmedian(
        y
    )


def nan_moments_loss(x: np.ndarray) -> Any:
    y = holes(x)
    return np.nanmean(y) ** 2 + np.sum(np.nanvar(y, axis=1, ddof=1) ** 2) + np.nanstd(y, 0)[1]


def nan_extrema_loss(x: np.ndarray) -> Any:
    y = holes(x)
    return np.sum(np.nanmax(y, axis=1) ** 2) + np.nanmin(y) * np.sum(np.nanprod(y, axis=0))


def nan_running_loss(x: np.ndarray) -> Any:
    y = holes(x)
    return np.sum(np.nancumsum(y, 1) ** 2) + np.sum(np.nancumprod(y, axis=0))


def polyfit_loss(x: np.ndarray) -> Any:
    grid = np.arange(5.0)
    line = np.polyfit(grid, x[0], 1)
    cubic = np.polyfit(x[1], x[0] * x[2], 3)
    return np.sum(line**2) + np.sum(cubic * np.arange(4.0)) + np.sum(
        np.polyfit(x[1], x.T, 2, w=np.exp(x[2])) ** 2
    )  # fmt: skip


LOSSES = [
    polyfit_loss,
    ptp_loss,
    cov_loss,
    corrcoef_loss,
    quantile_loss,
    nan_quantile_loss,
    nan_moments_loss,
    nan_extrema_loss,
    nan_running_loss,
]


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    assert 0 < np.sum(np.isnan(holes(X_API))) < 5
    check_through_api(f, X_API)


@pytest.mark.parametrize("f", [np.cov, np.quantile, np.nanmean, np.ptp], ids=lambda f: f.__name__)
def test_single_precision_gradients(f: Callable[..., Any]) -> None:
    x = M.astype(np.float32)
    args = (x, 0.4) if f is np.quantile else (x,)
    gradient = srcad.grad(lambda a: np.sum(f(a, *args[1:]) ** 2))(x)
    assert gradient.dtype == np.float32
    y, y_dot = srcad.jvp(lambda a: f(a, *args[1:]), (x,), (np.ones_like(x),))
    assert y_dot.dtype == np.asarray(y).dtype == f(*args).dtype


MODULE = """
import numpy as np


def lower_quantile(x):
    return np.quantile(x, 0.3, method="lower")


def weighted_cov(x):
    return np.sum(np.cov(x, fweights=np.array([1, 2, 1, 1, 3])))


def masked_nanmean(x):
    return np.nanmean(x, where=x > 0)


def ptp_out(x):
    return np.sum(np.ptp(x, 0, np.zeros(5)))


def nanmax_initial(x):
    return np.nanmax(x, initial=0.5)


def rank_deficient_polyfit(x):
    return np.sum(np.polyfit(x[0, :3], x[1, :3], 3))


def full_polyfit(x):
    return np.sum(np.polyfit(x[0], x[1], 2, full=True)[0])
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path: Path = tmp_path_factory.mktemp("statistics_refusals")
    return user_module(path, "statistics_refusals_module", MODULE)


@pytest.mark.parametrize(
    "name",
    [
        "lower_quantile",
        "weighted_cov",
        "masked_nanmean",
        "nanmax_initial",
        "rank_deficient_polyfit",
        "full_polyfit",
    ],
)
def test_unhandled_options_refused_with_the_users_line(module: ModuleType, name: str) -> None:
    f = getattr(module, name)
    for derivative in (
        lambda: srcad.grad(f)(M),
        lambda: srcad.jvp(f, (M,), (np.ones_like(M),)),
    ):
        with pytest.raises(UnsupportedCallError) as raised:
            derivative()
        notes = " ".join(getattr(raised.value, "__notes__", []))
        assert "statistics_refusals_module.py" in notes, notes


def test_out_by_position_refused_at_the_users_line(module: ModuleType) -> None:
    """`np.ptp(x, 0, out)`: NumPy's `out` by position, refused where it is written as
    `out=` is (E304, `srcad/out_arguments.py`), before the rule runs."""
    for derivative in (
        lambda: srcad.grad(module.ptp_out)(M),
        lambda: srcad.jvp(module.ptp_out, (M,), (np.ones_like(M),)),
    ):
        with pytest.raises(MutationError) as raised:
            derivative()
        (diagnostic,) = raised.value.diagnostics
        assert diagnostic.code == "E304"
        assert diagnostic.file.endswith("statistics_refusals_module.py")


# -- np.histogram ------------------------------------------------------------------------------

HISTOGRAM_DATA = np.array([0.3, -1.2, 0.7, 1.5, 0.1])


def histogram_edges(x: Any) -> Any:
    counts, edges = np.histogram(x, bins=4)
    return np.sum(edges**2) + np.sum(counts)


def histogram_weights(x: Any) -> Any:
    hist, _ = np.histogram(x, bins=3, weights=x**2)
    return np.sum(hist * np.arange(3.0))


def histogram_density(x: Any) -> Any:
    hist, _ = np.histogram(x, 3, density=True)
    return np.sum(hist**2)


def histogram_given_edges(x: Any) -> Any:
    edges = np.array([-2.0, 0.0, 0.5, 2.0])
    hist, _ = np.histogram(x, bins=edges, weights=np.sin(x))
    return np.sum(hist * np.array([1.0, 2.0, 3.0]))


def histogram_range(x: Any) -> Any:
    hist, edges = np.histogram(x, bins=3, range=(x[0] - 1.0, 2.0), weights=x)
    return np.sum(hist * np.array([1.0, 2.0, 3.0])) + np.sum(edges)


@pytest.mark.parametrize(
    "f",
    [histogram_edges, histogram_weights, histogram_density, histogram_given_edges, histogram_range],
    ids=lambda f: f.__name__,
)
def test_histogram_through_the_api(f: Callable[..., Any]) -> None:
    # Counts are flat in the data; its smallest and largest values move the edges (and a
    # density with them), a range's ends move them too, and weights are summed per bin.
    x = HISTOGRAM_DATA
    step = 1e-6
    want = np.array([(f(x + e) - f(x - e)) / (2 * step) for e in np.eye(len(x)) * step])
    np.testing.assert_allclose(srcad.grad(f)(x), want, rtol=1e-6, atol=1e-8)
    direction = np.linspace(1.0, -1.0, len(x))
    np.testing.assert_allclose(srcad.jvp(f, (x,), (direction,))[1], want @ direction, rtol=1e-6)
    grad = srcad.grad(f)
    second = np.array([(grad(x + e) - grad(x - e)) / (2 * step) for e in np.eye(len(x)) * step])
    np.testing.assert_allclose(srcad.hessian(f)(x), second, rtol=1e-5, atol=1e-6)


def test_histogram_bins_by_an_estimator_are_refused() -> None:
    with pytest.raises(UnsupportedCallError, match="bins='auto'"):
        srcad.grad(lambda x: np.sum(np.histogram(x, bins="auto")[1]))(HISTOGRAM_DATA)

"""Rules for NumPy's reductions, checked against finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.api import frule, rrule
from srcad.rules import numpy_reductions
from srcad.rules.numpy_reductions import (
    average_rrule,
    cumprod_rrule,
    cumsum_rrule,
    max_rrule,
    mean_rrule,
    median_rrule,
    min_rrule,
    nansum_rrule,
    prod_rrule,
    std_rrule,
    sum_rrule,
    var_rrule,
)
from srcad.tangents import NoTangent, Tangent, Thunk, ZeroTangent
from srcad.testing import check_frule, check_rrule, inner

X = np.random.default_rng(0).standard_normal((2, 3, 2))
REDUCTIONS = [pytest.param(np.sum, id="sum"), pytest.param(np.mean, id="mean")]

# (id, positional arguments, keyword arguments) of one call, array first.
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("all", (X,), {}),
    ("axis-0", (X,), {"axis": 0}),
    ("axis-1", (X,), {"axis": 1}),
    ("axis-negative", (X,), {"axis": -1}),
    ("axis-tuple", (X,), {"axis": (0, 2)}),
    ("axis-tuple-negative", (X,), {"axis": (-1, -3)}),
    ("axis-empty-tuple", (X,), {"axis": ()}),
    ("keepdims-all", (X,), {"keepdims": True}),
    ("keepdims-axis", (X,), {"axis": 1, "keepdims": True}),
    ("keepdims-axis-tuple", (X,), {"axis": (0, 2), "keepdims": True}),
    ("axis-positional", (X, 1), {}),
    ("axis-tuple-positional", (X, (0, 1)), {}),
    ("keepdims-positional", (X, (0, 2), None, None, True), {}),
    ("vector", (X[0, :, 0],), {}),
    ("matrix-axis-0", (X[0],), {"axis": 0}),
    ("0d", (np.array(1.5),), {}),
    ("numpy-scalar", (np.float64(1.5),), {}),
    ("python-float", (1.5,), {}),
    ("float32", (X.astype(np.float32),), {"axis": 1}),
    ("float32-to-float64", (X.astype(np.float32),), {"axis": 1, "dtype": np.float64}),
    ("complex", (X + 1j * X[::-1],), {"axis": (0, 1)}),
]


@pytest.mark.parametrize(("args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
@pytest.mark.parametrize("f", REDUCTIONS)
def test_reduction_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    float32 = np.asarray(args[0]).dtype == np.float32
    check_rrule(f, *args, rtol=1e-4 if float32 else 1e-6, atol=1e-5 if float32 else 1e-9, **kwargs)


def test_sum_of_0d_over_axis_0_matches_finite_differences() -> None:
    # np.sum (unlike np.mean) lets axis 0 or -1 "reduce" a 0-d array.
    check_rrule(np.sum, np.array(1.5), axis=-1)


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        pytest.param(sum_rrule, (X,), id="sum"),
        pytest.param(mean_rrule, (X, 1), id="mean-axis-positional"),
    ],
)
def test_zero_cotangent_stays_symbolic(rule: Callable[..., Any], args: tuple[Any, ...]) -> None:
    _, pullback = rule(*args)
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), *[NoTangent()] * (len(args) - 1))


@pytest.mark.parametrize(
    "rule", [pytest.param(sum_rrule, id="sum"), pytest.param(mean_rrule, id="mean")]
)
def test_cotangent_is_a_writable_array(rule: Callable[..., Any]) -> None:
    _, pullback = rule(X, axis=0)
    x_bar = pullback(np.ones((3, 2)))[1]
    assert x_bar.flags.writeable


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"where": X > 0}, "where", id="where"),
        pytest.param({"out": np.empty(())}, "out", id="out"),
    ],
)
@pytest.mark.parametrize(
    "rule", [pytest.param(sum_rrule, id="sum"), pytest.param(mean_rrule, id="mean")]
)
def test_unsupported_options_are_rejected(
    rule: Callable[..., Any], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        rule(X, **kwargs)


# --- Reductions beyond sum and mean -------------------------------------------------------

RNG = np.random.default_rng(1)
V = RNG.standard_normal(5)  # odd length: one middle element for the median
V_EVEN = RNG.standard_normal(4)
M = RNG.standard_normal((3, 4))
Z = X + 1j * RNG.standard_normal((2, 3, 2))


def tolerances(args: tuple[Any, ...]) -> dict[str, float]:
    """Finite differences of float32 primals are only good to about 1e-4."""
    if any(np.asarray(a).dtype in (np.float32, np.complex64) for a in args):
        return {"rtol": 1e-4, "atol": 1e-5}
    return {}


def call_params(
    functions: list[Callable[..., Any]], calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]]
) -> list[Any]:
    """One `pytest.param(f, args, kwargs)` per function and call, with id `f-call`."""
    return [
        pytest.param(f, args, kwargs, id=f"{f.__name__}-{name}")
        for f in functions
        for name, args, kwargs in calls
    ]


AXIS_REDUCTIONS: list[Callable[..., Any]] = [
    np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std, np.nansum, np.median, np.average,
]  # fmt: skip

# Calls every axis reduction takes alike: (id, positional arguments, keyword arguments).
AXIS_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("all", (X,), {}),
    ("axis-0", (X,), {"axis": 0}),
    ("axis-1", (X,), {"axis": 1}),
    ("axis-negative", (X,), {"axis": -1}),
    ("axis-tuple", (X,), {"axis": (0, 2)}),
    ("axis-tuple-unsorted", (X,), {"axis": (-1, 0)}),
    ("keepdims-all", (X,), {"keepdims": True}),
    ("keepdims-axis", (X,), {"axis": 1, "keepdims": True}),
    ("keepdims-axis-tuple", (X,), {"axis": (0, 2), "keepdims": True}),
    ("axis-positional", (X, 1), {}),
    ("vector-odd", (V,), {}),
    ("vector-even", (V_EVEN,), {}),
    ("matrix-axis-0", (M,), {"axis": 0}),
    ("matrix-axis-1", (M,), {"axis": 1}),
    ("0d", (np.array(1.5),), {}),
    ("numpy-scalar", (np.float64(-1.5),), {}),
    ("python-float", (1.5,), {}),
    ("float32", (X.astype(np.float32),), {"axis": 1}),
]


@pytest.mark.parametrize(("f", "args", "kwargs"), call_params(AXIS_REDUCTIONS, AXIS_CALLS))
def test_axis_reduction_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **tolerances(args), **kwargs)


COMPLEX_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("complex-all", (Z,), {}),
    ("complex-axis-1", (Z,), {"axis": 1}),
    ("complex-keepdims-axis-tuple", (Z,), {"axis": (0, 2), "keepdims": True}),
    ("complex64", (Z.astype(np.complex64),), {"axis": -1}),
]


@pytest.mark.parametrize(
    ("f", "args", "kwargs"),
    call_params([np.prod, np.var, np.std, np.nansum, np.average], COMPLEX_CALLS),
)
def test_axis_reduction_on_complex_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **tolerances(args), **kwargs)


# Options by position follow each function's own parameter order.
OPTION_CALLS = [
    pytest.param(np.prod, (X, (0, 2), None, None, True), {}, id="prod-keepdims-positional"),
    pytest.param(np.prod, (X,), {"axis": 1, "initial": 2.0}, id="prod-initial"),
    pytest.param(np.prod, (X.astype(np.float32),), {"dtype": np.float64}, id="prod-dtype"),
    pytest.param(np.max, (X, (0, 2), None, True), {}, id="max-keepdims-positional"),
    # An initial value above some slices' maxima takes their cotangent.
    pytest.param(np.max, (X,), {"axis": 1, "initial": 0.5}, id="max-initial"),
    pytest.param(np.min, (X,), {"axis": 0, "initial": -0.5}, id="min-initial"),
    pytest.param(np.var, (X, 1, None, None, 1), {}, id="var-ddof-positional"),
    pytest.param(np.var, (X,), {"axis": (0, 2), "ddof": 1}, id="var-ddof"),
    pytest.param(np.std, (X,), {"axis": -1, "ddof": 1, "keepdims": True}, id="std-ddof"),
    pytest.param(np.std, (X, None, np.float64), {}, id="std-dtype-positional"),
    pytest.param(np.median, (X, 1, None, False, True), {}, id="median-keepdims-positional"),
]


@pytest.mark.parametrize(("f", "args", "kwargs"), OPTION_CALLS)
def test_reduction_options_match_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **tolerances(args), **kwargs)


NUMPY2 = pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.0.0", reason="NumPy 2")
MOMENTS = [pytest.param(np.var, id="var"), pytest.param(np.std, id="std")]
MOMENT_NUMPY2_OPTIONS = [
    pytest.param({"axis": 1, "correction": 1}, id="correction"),
    pytest.param({"axis": 1, "mean": np.mean(X, axis=1, keepdims=True)}, id="mean"),
]


@NUMPY2
@pytest.mark.parametrize("f", MOMENTS)
@pytest.mark.parametrize("kwargs", MOMENT_NUMPY2_OPTIONS)
def test_variance_numpy2_options_match_finite_differences(
    f: Callable[..., Any], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, X, **kwargs)


PROD_WITH_ZEROS = [
    # The partial of each element is the product of the others, also when it is 0.
    pytest.param(np.array([1.5, 0.0, -2.0, 0.5]), id="one-zero"),
    pytest.param(np.array([1.5, 0.0, -2.0, 0.0]), id="two-zeros"),
    pytest.param(np.zeros(3), id="all-zeros"),
    pytest.param(np.array([[0.0, 1.5, 2.0], [0.0, 0.0, 3.0], [1.0, -2.0, 0.5]]), id="rows"),
    pytest.param(np.array([0.0 + 1.0j, 2.0 - 1.0j, 0.5j]), id="complex-one-zero"),
]
PROD_AXES = [pytest.param(None, id="all"), pytest.param(-1, id="last")]


@pytest.mark.parametrize("x", PROD_WITH_ZEROS)
@pytest.mark.parametrize("axis", PROD_AXES)
def test_prod_with_zeros_matches_finite_differences(x: np.ndarray, axis: Any) -> None:
    check_rrule(np.prod, x, axis=axis)


# Every row, and the whole, has its maximum twice and its minimum twice.
TIES = np.array([[3.0, -1.0, 3.0, -1.0], [2.0, 0.5, 2.0, 0.5]])


TIES_OF_TWO = [
    # A tie of two splits the cotangent in halves, which central differences also give.
    pytest.param(np.max, TIES, {}, id="max-all"),
    pytest.param(np.max, TIES, {"axis": 1}, id="max-rows"),
    pytest.param(np.amax, TIES, {"axis": 1, "keepdims": True}, id="amax-rows-keepdims"),
    pytest.param(np.min, TIES, {}, id="min-all"),
    pytest.param(np.min, TIES.T, {"axis": 0}, id="min-columns"),
    pytest.param(np.amin, TIES, {"axis": -1}, id="amin-rows"),
]


@pytest.mark.parametrize(("f", "x", "kwargs"), TIES_OF_TWO)
def test_extremum_tie_of_two_matches_finite_differences(
    f: Callable[..., Any], x: np.ndarray, kwargs: dict[str, Any]
) -> None:
    check_rrule(f, np.ascontiguousarray(x), **kwargs)


@pytest.mark.parametrize(
    ("rule", "x", "expected"),
    [
        # Central differences give 1/2 to each of three tied elements; the documented choice
        # shares the cotangent equally instead, a subgradient.
        pytest.param(max_rrule, np.array([1.0, 4.0, 4.0, 4.0]), [0, 1 / 3, 1 / 3, 1 / 3], id="max"),
        pytest.param(min_rrule, np.array([1.0, 1.0, 4.0, 1.0]), [1 / 3, 1 / 3, 0, 1 / 3], id="min"),
    ],
)
def test_extremum_tie_of_three_shares_equally(
    rule: Callable[..., Any], x: np.ndarray, expected: list[float]
) -> None:
    _, pullback = rule(x)
    np.testing.assert_allclose(pullback(3.0)[1], 3.0 * np.array(expected))


@pytest.mark.parametrize(
    "rule", [pytest.param(max_rrule, id="max"), pytest.param(min_rrule, id="min")]
)
def test_extremum_that_is_nan_sends_cotangent_to_the_nan(rule: Callable[..., Any]) -> None:
    # Finite differences of a NaN are NaN: the NaN is where the result comes from.
    _, pullback = rule(np.array([1.0, np.nan, 3.0]))
    np.testing.assert_array_equal(pullback(2.0)[1], [0.0, 2.0, 0.0])


XNAN = np.where(np.arange(12).reshape(2, 3, 2) % 5 == 1, np.nan, X)


NANSUM_OPTIONS = [
    pytest.param({}, id="all"),
    pytest.param({"axis": 1}, id="axis-1"),
    pytest.param({"axis": (0, 2), "keepdims": True}, id="keepdims-axis-tuple"),
]


@pytest.mark.parametrize("kwargs", NANSUM_OPTIONS)
def test_nansum_gives_nans_zero_cotangent(kwargs: dict[str, Any]) -> None:
    check_rrule(np.nansum, XNAN, **kwargs)


def test_std_of_constant_slices_has_zero_cotangent() -> None:
    check_rrule(np.std, np.array([[1.0, 1.0, 1.0], [0.5, -1.0, 2.0]]), axis=1)


# --- Cumulative sums and products ---------------------------------------------------------

CUMULATIVE_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("flat", (X,), {}),
    ("axis-0", (X,), {"axis": 0}),
    ("axis-1", (X,), {"axis": 1}),
    ("axis-negative", (X,), {"axis": -1}),
    ("axis-positional", (X, 1), {}),
    ("vector", (V,), {}),
    ("matrix-axis-1", (M,), {"axis": 1}),
    ("0d", (np.array(1.5),), {}),
    ("python-float", (1.5,), {}),
    ("float32", (X.astype(np.float32),), {"axis": 1}),
    ("float32-to-float64", (X.astype(np.float32),), {"axis": 1, "dtype": np.float64}),
    ("complex", (Z,), {"axis": 1}),
    ("complex-flat", (Z,), {}),
]


@pytest.mark.parametrize(
    ("f", "args", "kwargs"), call_params([np.cumsum, np.cumprod], CUMULATIVE_CALLS)
)
def test_cumulative_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **tolerances(args), **kwargs)


CUMPROD_WITH_ZEROS = [
    pytest.param(np.array([1.5, 0.0, -2.0, 0.5]), {}, id="one-zero"),
    pytest.param(np.array([0.0, 1.5, -2.0, 0.5]), {}, id="zero-first"),
    pytest.param(np.array([1.5, -2.0, 0.5, 0.0]), {}, id="zero-last"),
    pytest.param(np.array([1.5, 0.0, -2.0, 0.0, 0.5]), {}, id="two-zeros"),
    pytest.param(np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]]), {"axis": 0}, id="columns"),
    pytest.param(np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]]), {}, id="matrix-flat"),
    pytest.param(np.array([1.0 - 1.0j, 0.0j, 0.5 + 2.0j]), {}, id="complex-one-zero"),
]


@pytest.mark.parametrize(("x", "kwargs"), CUMPROD_WITH_ZEROS)
def test_cumprod_with_zeros_matches_finite_differences(
    x: np.ndarray, kwargs: dict[str, Any]
) -> None:
    check_rrule(np.cumprod, x, **kwargs)


# --- Weighted averages --------------------------------------------------------------------

W = RNG.uniform(0.5, 2.0, size=X.shape)  # positive: the sum of the weights stays away from 0


AVERAGE_CALLS = [
    # Weights by position are differentiated; `weights=` is a constant, like any keyword.
    pytest.param((X, None, W), {}, id="weights-positional"),
    pytest.param((X, 1, W[0, :, 0]), {}, id="weights-along-axis"),
    pytest.param((X, -1, W[0, 0, :]), {"keepdims": True}, id="weights-along-axis-keepdims"),
    pytest.param((X, (0, 1), W), {}, id="weights-full-axis-tuple"),
    pytest.param((X, 1), {"weights": W[0, :, 0]}, id="weights-keyword"),
    pytest.param((X,), {"axis": 0, "weights": W}, id="weights-keyword-full"),
    pytest.param((X, 1, W[0, :, 0], True), {}, id="returned"),
    pytest.param((X, None, W), {"returned": True}, id="returned-keyword"),
    pytest.param((X, 1, None, True), {}, id="returned-without-weights"),
    pytest.param((V, 0, np.arange(1, 6)), {}, id="integer-weights"),
    pytest.param((Z, 1, W[0, :, 0]), {}, id="complex-with-real-weights"),
    pytest.param((Z, 1, Z[0, :, 0] + 2.0), {}, id="complex-weights"),
    pytest.param((X.astype(np.float32), 1, W[0, :, 0].astype(np.float32)), {}, id="float32"),
]


@pytest.mark.parametrize(("args", "kwargs"), AVERAGE_CALLS)
def test_average_matches_finite_differences(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    check_rrule(np.average, *args, **tolerances(args), **kwargs)


AXIS_TUPLE_WEIGHTS = [
    # Weights shaped like the averaged axes, in the order `axis` names them (contiguous:
    # finite_difference_vjp cannot perturb a transposed view in place).
    pytest.param((0, 1), W[:, :, 0], id="sorted"),
    pytest.param((1, 0), np.ascontiguousarray(W[:, :, 0].T), id="unsorted"),
    pytest.param((2, 1), np.ascontiguousarray(W[0].T), id="unsorted-last"),
]


@NUMPY2
@pytest.mark.parametrize(("axis", "weights"), AXIS_TUPLE_WEIGHTS)
def test_average_with_weights_along_axis_tuple_matches_finite_differences(
    axis: tuple[int, ...], weights: np.ndarray
) -> None:
    check_rrule(np.average, X, axis, weights)


# --- Every rule: symbolic zeros, rejected options -----------------------------------------

ZERO_CALLS = [
    pytest.param(prod_rrule, (X, 1), id="prod"),
    pytest.param(max_rrule, (X, (0, 1)), id="max"),
    pytest.param(min_rrule, (X,), id="min"),
    pytest.param(var_rrule, (X, 1, None, None, 1), id="var"),
    pytest.param(std_rrule, (X,), id="std"),
    pytest.param(nansum_rrule, (XNAN, 0), id="nansum"),
    pytest.param(cumsum_rrule, (X, 1), id="cumsum"),
    pytest.param(cumprod_rrule, (X,), id="cumprod"),
    pytest.param(median_rrule, (X, -1), id="median"),
    pytest.param(average_rrule, (X, 1), id="average"),
]


@pytest.mark.parametrize(("rule", "args"), ZERO_CALLS)
def test_new_rules_keep_zero_cotangent_symbolic(
    rule: Callable[..., Any], args: tuple[Any, ...]
) -> None:
    _, pullback = rule(*args)
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), *[NoTangent()] * (len(args) - 1))


def test_average_zero_cotangent_gives_zero_for_positional_weights() -> None:
    _, pullback = average_rrule(X, 1, W[0, :, 0], True)
    weights_bar = pullback(ZeroTangent())[3]
    assert weights_bar == ZeroTangent()


@pytest.mark.parametrize(
    ("rule", "kwargs", "message"),
    [
        pytest.param(prod_rrule, {"where": X > 0}, "where", id="prod-where"),
        pytest.param(max_rrule, {"where": X > 0, "initial": 0.0}, "where", id="max-where"),
        pytest.param(var_rrule, {"where": X > 0}, "where", id="var-where"),
        pytest.param(nansum_rrule, {"out": np.empty(())}, "out", id="nansum-out"),
        pytest.param(cumsum_rrule, {"out": np.empty(12)}, "out", id="cumsum-out"),
        pytest.param(median_rrule, {"out": np.empty(())}, "out", id="median-out"),
        pytest.param(median_rrule, {"overwrite_input": True}, "in place", id="median-overwrite"),
    ],
)
def test_new_rules_reject_unsupported_options(
    rule: Callable[..., Any], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        rule(X, **kwargs)


# --- Forward rules: the same calls, along random input tangents ---------------------------


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_reductions.rules.rrules) <= set(numpy_reductions.rules.frules)


@pytest.mark.parametrize(("args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
@pytest.mark.parametrize("f", REDUCTIONS)
def test_reduction_frule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **tolerances(args), **kwargs)


def test_sum_of_0d_over_axis_0_frule_matches_finite_differences() -> None:
    check_frule(np.sum, np.array(1.5), axis=-1)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"),
    call_params(AXIS_REDUCTIONS, AXIS_CALLS)
    + call_params([np.prod, np.var, np.std, np.nansum, np.average], COMPLEX_CALLS)
    + OPTION_CALLS
    + call_params([np.cumsum, np.cumprod], CUMULATIVE_CALLS),
)
def test_axis_reduction_frule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **tolerances(args), **kwargs)


@NUMPY2
@pytest.mark.parametrize("f", MOMENTS)
@pytest.mark.parametrize("kwargs", MOMENT_NUMPY2_OPTIONS)
def test_variance_numpy2_options_frule_matches_finite_differences(
    f: Callable[..., Any], kwargs: dict[str, Any]
) -> None:
    check_frule(f, X, **kwargs)


@pytest.mark.parametrize("x", PROD_WITH_ZEROS)
@pytest.mark.parametrize("axis", PROD_AXES)
def test_prod_with_zeros_frule_matches_finite_differences(x: np.ndarray, axis: Any) -> None:
    check_frule(np.prod, x, axis=axis)


@pytest.mark.parametrize(("x", "kwargs"), CUMPROD_WITH_ZEROS)
def test_cumprod_with_zeros_frule_matches_finite_differences(
    x: np.ndarray, kwargs: dict[str, Any]
) -> None:
    check_frule(np.cumprod, x, **kwargs)


@pytest.mark.parametrize(("f", "x", "kwargs"), TIES_OF_TWO)
def test_extremum_tie_of_two_frule_matches_finite_differences(
    f: Callable[..., Any], x: np.ndarray, kwargs: dict[str, Any]
) -> None:
    # Central differences along a tangent give the mean of the two tied elements' tangents.
    check_frule(f, np.ascontiguousarray(x), **kwargs)


@pytest.mark.parametrize("kwargs", NANSUM_OPTIONS)
def test_nansum_frule_ignores_tangents_of_nans(kwargs: dict[str, Any]) -> None:
    check_frule(np.nansum, XNAN, **kwargs)


def test_std_of_constant_slices_has_zero_tangent() -> None:
    check_frule(np.std, np.array([[1.0, 1.0, 1.0], [0.5, -1.0, 2.0]]), axis=1)


@pytest.mark.parametrize(("args", "kwargs"), AVERAGE_CALLS)
def test_average_frule_matches_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(np.average, *args, **tolerances(args), **kwargs)


@NUMPY2
@pytest.mark.parametrize(("axis", "weights"), AXIS_TUPLE_WEIGHTS)
def test_average_with_weights_along_axis_tuple_frule_matches_finite_differences(
    axis: tuple[int, ...], weights: np.ndarray
) -> None:
    check_frule(np.average, X, axis, weights)


def forward_and_reverse_agree(f: Callable[..., Any], x: np.ndarray, **kwargs: Any) -> None:
    """`<y_bar, y_dot> == <x_bar, x_dot>`: the frule is the adjoint of the rrule's pullback."""
    rng = np.random.default_rng(3)
    x_dot, y_bar = rng.standard_normal(x.shape), rng.standard_normal(np.shape(f(x, **kwargs)))
    _, y_dot = frule((NoTangent(), x_dot), f, x, **kwargs)
    x_bar = rrule(f, x, **kwargs)[1](y_bar)[1]
    np.testing.assert_allclose(inner(y_bar, y_dot), inner(x_bar, x_dot), rtol=1e-12)


@pytest.mark.parametrize(
    ("f", "x"),
    [
        # Where central differences are no guide (a tie of three, a NaN result), the frule
        # still agrees with the rrule's choice of subgradient.
        pytest.param(np.max, np.array([1.0, 4.0, 4.0, 4.0]), id="max-tie-of-three"),
        pytest.param(np.amin, np.array([1.0, 1.0, 4.0, 1.0]), id="amin-tie-of-three"),
        pytest.param(np.max, np.array([1.0, np.nan, 3.0]), id="max-nan"),
        pytest.param(np.min, np.array([[1.0, np.nan, 3.0], [2.0, 2.0, 5.0]]), id="min-nan-rows"),
        pytest.param(np.median, np.array([2.0, 1.0, 2.0, 2.0]), id="median-tie"),
    ],
)
def test_frule_is_adjoint_of_rrule_at_kinks(f: Callable[..., Any], x: np.ndarray) -> None:
    forward_and_reverse_agree(f, x, **({"axis": -1} if x.ndim > 1 else {}))


FORWARD_ZERO_CALLS = [
    pytest.param(f, args, id=f.__name__)
    for f, args in [
        (np.sum, (X, 1)),
        (np.mean, (X,)),
        (np.prod, (X, 1)),
        (np.max, (X, (0, 1))),
        (np.amin, (X,)),
        (np.var, (X, 1, None, None, 1)),
        (np.std, (X,)),
        (np.nansum, (XNAN, 0)),
        (np.cumsum, (X, 1)),
        (np.cumprod, (X,)),
        (np.median, (X, -1)),
        (np.average, (X, 1, W[0, :, 0], True)),
    ]
]


@pytest.mark.parametrize(("f", "args"), FORWARD_ZERO_CALLS)
@pytest.mark.parametrize("zero", [ZeroTangent(), NoTangent()], ids=["zero", "no-tangent"])
def test_frule_keeps_zero_tangent_symbolic(
    f: Callable[..., Any], args: tuple[Any, ...], zero: Any
) -> None:
    _, y_dot = frule((NoTangent(), zero, *[zero] * (len(args) - 1)), f, *args)
    assert y_dot is ZeroTangent()


@pytest.mark.parametrize(("f", "args"), FORWARD_ZERO_CALLS)
def test_frule_unthunks_its_tangents(f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    dots = [np.ones_like(a) if isinstance(a, np.ndarray) else NoTangent() for a in args]
    _, expected = frule((NoTangent(), *dots), f, *args)
    _, y_dot = frule((NoTangent(), *(Thunk(lambda d=d: d) for d in dots)), f, *args)
    if isinstance(expected, Tangent):  # np.average's, with returned=True
        expected, y_dot = tuple(expected), tuple(y_dot)
    np.testing.assert_equal(y_dot, expected)


@pytest.mark.parametrize(
    ("f", "kwargs", "message"),
    [
        pytest.param(np.prod, {"where": X > 0}, "where", id="prod-where"),
        pytest.param(np.max, {"where": X > 0, "initial": 0.0}, "where", id="max-where"),
        pytest.param(np.sum, {"out": np.empty(())}, "out", id="sum-out"),
        pytest.param(np.cumsum, {"out": np.empty(12)}, "out", id="cumsum-out"),
        pytest.param(np.median, {"overwrite_input": True}, "in place", id="median-overwrite"),
    ],
)
def test_frule_rejects_unsupported_options(
    f: Callable[..., Any], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        frule((NoTangent(), np.ones_like(X)), f, X, **kwargs)

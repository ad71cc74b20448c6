"""Rules for NumPy's elementwise ufuncs, checked against finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.api import frule
from srcad.rules import numpy_elementwise
from srcad.tangents import NoTangent, Thunk, ZeroTangent
from srcad.testing import check_frule, check_rrule

Shape = tuple[int, ...]
Check = Callable[..., None]

# Every case checks both rules: the reverse rule's cotangents, then the forward rule's
# tangent along random input tangents, each against finite differences.
BOTH_RULES = pytest.mark.parametrize(
    "check", [pytest.param(check_rrule, id="rrule"), pytest.param(check_frule, id="frule")]
)


def test_every_reverse_rule_has_a_forward_rule() -> None:
    assert set(numpy_elementwise.rules.rrules) <= set(numpy_elementwise.rules.frules)


def sample(
    shape: Shape | type[float],
    low: float,
    high: float,
    *,
    signed: bool = False,
    dtype: Any = np.float64,
    seed: int = 0,
) -> Any:
    """Random values in [low, high] (times a random sign if `signed`); `float` for a
    Python float."""
    rng = np.random.default_rng(seed)
    size = () if shape is float else shape
    values = rng.uniform(low, high, size=size)
    if signed:
        values = values * rng.choice([-1.0, 1.0], size=size)
    if shape is float:
        return float(values)
    return np.asarray(values, dtype=dtype)


def grid(shape: Shape | type[float], offset: float, seed: int) -> Any:
    """Values on the grid `0.2 k + offset`: two grids with offsets 0 and 0.1 never come
    within 0.1 of each other, so `maximum` and `minimum` stay away from ties."""
    size = () if shape is float else shape
    values = np.random.default_rng(seed).integers(-10, 10, size=size) * 0.2 + offset
    return float(values) if shape is float else np.asarray(values)


# Each unary ufunc with an interval inside its domain, away from kinks and singularities.
UNARY: list[tuple[np.ufunc, float, float, bool]] = [
    (np.sin, -2.0, 2.0, False),
    (np.cos, -2.0, 2.0, False),
    (np.tan, -1.2, 1.2, False),
    (np.arcsin, -0.9, 0.9, False),
    (np.arccos, -0.9, 0.9, False),
    (np.arctan, -3.0, 3.0, False),
    (np.sinh, -2.0, 2.0, False),
    (np.cosh, -2.0, 2.0, False),
    (np.tanh, -2.0, 2.0, False),
    (np.arcsinh, -3.0, 3.0, False),
    (np.arccosh, 1.2, 4.0, False),
    (np.arctanh, -0.9, 0.9, False),
    (np.exp, -2.0, 2.0, False),
    (np.exp2, -2.0, 2.0, False),
    (np.expm1, -2.0, 2.0, False),
    (np.log, 0.3, 3.0, False),
    (np.log2, 0.3, 3.0, False),
    (np.log10, 0.3, 3.0, False),
    (np.log1p, -0.6, 3.0, False),
    (np.sqrt, 0.3, 3.0, False),
    (np.cbrt, 0.3, 3.0, True),
    (np.square, -2.0, 2.0, False),
    (np.reciprocal, 0.3, 3.0, True),
    (np.negative, -2.0, 2.0, False),
    (np.positive, -2.0, 2.0, False),
    (np.absolute, 0.2, 2.0, True),
    (np.conjugate, -2.0, 2.0, False),
    (np.deg2rad, -180.0, 180.0, False),
    (np.radians, -180.0, 180.0, False),
    (np.rad2deg, -3.0, 3.0, False),
    (np.degrees, -3.0, 3.0, False),
]

UNARY_SHAPES: list[Shape | type[float]] = [(3,), (2, 3), (), float]


def shape_id(shape: Shape | type[float]) -> str:
    return "float" if shape is float else str(shape).replace(" ", "")


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "x"),
    [
        pytest.param(
            f, sample(shape, low, high, signed=signed), id=f"{f.__name__}-{shape_id(shape)}"
        )
        for f, low, high, signed in UNARY
        for shape in UNARY_SHAPES
    ],
)
def test_unary_rule_matches_finite_differences(f: np.ufunc, x: Any, check: Check) -> None:
    check(f, x)


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "x"),
    [
        pytest.param(
            f, sample((2, 2), low, high, signed=signed, dtype=np.float32), id=f"{f.__name__}"
        )
        for f, low, high, signed in UNARY
    ],
)
def test_unary_rule_keeps_float32(f: np.ufunc, x: np.ndarray, check: Check) -> None:
    check(f, x, rtol=1e-3, atol=1e-4)


def complex_sample(shape: Shape, seed: int = 1) -> np.ndarray:
    """Complex values with positive real part, away from every branch cut used below."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.2, 0.8, size=shape) + 1j * rng.uniform(-0.8, 0.8, size=shape)


COMPLEX_UNARY = [
    np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh,
    np.arcsinh, np.arctanh, np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p,
    np.sqrt, np.square, np.reciprocal, np.negative, np.positive, np.absolute, np.conjugate,
]  # fmt: skip


@BOTH_RULES
@pytest.mark.parametrize("f", [pytest.param(f, id=f.__name__) for f in COMPLEX_UNARY])
def test_unary_rule_on_complex_matches_finite_differences(f: np.ufunc, check: Check) -> None:
    check(f, complex_sample((2, 2)), rtol=1e-5, atol=1e-8)


@BOTH_RULES
@pytest.mark.parametrize(
    "z",
    [
        # Re z < 0 is where d/dz arccosh differs from 1 / sqrt(z * z - 1).
        pytest.param(np.array([-0.5 + 0.8j, -1.5 - 0.4j, 2.0 + 0.3j]), id="arccosh-both-halves"),
        pytest.param(np.complex128(-0.5 + 0.8j), id="arccosh-complex-scalar"),
    ],
)
def test_arccosh_on_complex_matches_finite_differences(z: Any, check: Check) -> None:
    check(np.arccosh, z, rtol=1e-5, atol=1e-8)


@BOTH_RULES
def test_absolute_on_complex64_keeps_precision(check: Check) -> None:
    check(np.absolute, complex_sample((3,)).astype(np.complex64), rtol=1e-3, atol=1e-4)


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "x"),
    [
        # Central differences at a kink give the symmetric subgradient the rules choose.
        pytest.param(np.absolute, np.array([-1.0, 0.0, 2.0]), id="absolute-at-zero"),
        pytest.param(np.absolute, np.array([0.0j, 1.0 - 1.0j]), id="absolute-complex-at-zero"),
    ],
)
def test_unary_rule_at_kink_matches_finite_differences(
    f: np.ufunc, x: np.ndarray, check: Check
) -> None:
    check(f, x)


# Each binary ufunc with a sampler for each argument's values.
BINARY: list[tuple[np.ufunc, dict[str, Any], dict[str, Any]]] = [
    (np.add, {"low": -2.0, "high": 2.0}, {"low": -2.0, "high": 2.0}),
    (np.subtract, {"low": -2.0, "high": 2.0}, {"low": -2.0, "high": 2.0}),
    (np.multiply, {"low": -2.0, "high": 2.0}, {"low": -2.0, "high": 2.0}),
    (np.divide, {"low": -2.0, "high": 2.0}, {"low": 0.5, "high": 2.0, "signed": True}),
    (np.arctan2, {"low": 0.3, "high": 2.0, "signed": True}, {"low": -2.0, "high": 2.0}),
    (np.hypot, {"low": 0.3, "high": 2.0, "signed": True}, {"low": -2.0, "high": 2.0}),
    (np.logaddexp, {"low": -2.0, "high": 2.0}, {"low": -2.0, "high": 2.0}),
    (np.logaddexp2, {"low": -2.0, "high": 2.0}, {"low": -2.0, "high": 2.0}),
]

# (id, shape of a, shape of b): same shapes, then every kind of broadcasting.
SHAPE_PAIRS: list[tuple[str, Shape | type[float], Shape | type[float]]] = [
    ("same", (2, 3), (2, 3)),
    ("row", (3, 4), (4,)),
    ("outer", (3, 1), (1, 4)),
    ("0d-with-array", (), (3,)),
    ("array-with-0d", (3,), ()),
    ("float-with-array", float, (2, 3)),
    ("array-with-float", (2, 3), float),
    ("floats", float, float),
]


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(
            f,
            sample(shape_a, **a_kind, seed=2),
            sample(shape_b, **b_kind, seed=3),
            id=f"{f.__name__}-{pair}",
        )
        for f, a_kind, b_kind in BINARY
        for pair, shape_a, shape_b in SHAPE_PAIRS
    ],
)
def test_binary_rule_matches_finite_differences(f: np.ufunc, a: Any, b: Any, check: Check) -> None:
    check(f, a, b)


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(
            f, grid(shape_a, 0.0, seed=4), grid(shape_b, 0.1, seed=5), id=f"{f.__name__}-{pair}"
        )
        for f in (np.maximum, np.minimum)
        for pair, shape_a, shape_b in SHAPE_PAIRS
    ],
)
def test_maximum_and_minimum_match_finite_differences(
    f: np.ufunc, a: Any, b: Any, check: Check
) -> None:
    check(f, a, b)


TIED = np.array([[-1.0, 0.5, 2.0], [0.0, 1.0, -0.5]])


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        # At a tie central differences give each argument half, as the rules do.
        pytest.param(np.maximum, TIED, TIED.copy(), id="maximum-all-tied"),
        pytest.param(np.minimum, TIED, TIED.copy(), id="minimum-all-tied"),
        pytest.param(np.maximum, TIED, 0.0, id="maximum-tied-with-float"),
        pytest.param(np.minimum, TIED, np.array([0.5, 1.0, 2.0]), id="minimum-tied-broadcast"),
        pytest.param(np.hypot, np.array([0.0, 1.0]), np.array([0.0, 2.0]), id="hypot-at-origin"),
    ],
)
def test_binary_rule_at_kink_matches_finite_differences(
    f: np.ufunc, a: Any, b: Any, check: Check
) -> None:
    check(f, a, b)


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(
            f,
            sample((3, 4), -2.0, 2.0, dtype=np.float32, seed=6),
            sample((4,), 0.5, 2.0, dtype=np.float32, seed=7),
            id=f"{f.__name__}-row",
        )
        for f, *_ in BINARY
    ]
    + [
        pytest.param(
            np.multiply,
            sample((2, 3), -2.0, 2.0, dtype=np.float32, seed=6),
            1.5,
            id="multiply-with-float",
        ),
        pytest.param(
            np.maximum,
            grid((2, 3), 0.0, seed=6).astype(np.float32),
            grid((3,), 0.1, seed=7).astype(np.float32),
            id="maximum-row",
        ),
    ],
)
def test_binary_rule_keeps_float32(f: np.ufunc, a: Any, b: Any, check: Check) -> None:
    check(f, a, b, rtol=1e-3, atol=1e-4)


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(
            f,
            complex_sample((2, 3), seed=8),
            complex_sample(shape, seed=9),
            id=f"{f.__name__}-{name}",
        )
        for f in (np.add, np.subtract, np.multiply, np.divide)
        for name, shape in (("same", (2, 3)), ("row", (3,)))
    ]
    + [
        pytest.param(
            np.multiply,
            sample((2, 3), -2.0, 2.0, seed=8),
            complex_sample((3,), seed=9),
            id="multiply-real-with-complex",
        ),
        pytest.param(
            np.divide,
            complex_sample((2, 3), seed=8),
            sample((3,), 0.5, 2.0, seed=9),
            id="divide-complex-by-real",
        ),
        pytest.param(
            np.multiply, complex_sample((2,), seed=8), 1.5 - 0.5j, id="multiply-with-complex-scalar"
        ),
    ],
)
def test_binary_rule_on_complex_matches_finite_differences(
    f: np.ufunc, a: Any, b: Any, check: Check
) -> None:
    check(f, a, b, rtol=1e-5, atol=1e-8)


# --- sinc, float_power, fmax/fmin, heaviside ----------------------------------------------


@BOTH_RULES
@pytest.mark.parametrize(
    "x",
    [pytest.param(sample(shape, -2.0, 2.0), id=shape_id(shape)) for shape in UNARY_SHAPES]
    + [
        # sinc is smooth at 0, where its formula divides by zero; its derivative there is 0.
        pytest.param(np.array([-1.5, 0.0, 0.7]), id="through-zero"),
        pytest.param(0.0, id="zero-float"),
        pytest.param(sample((2, 2), -2.0, 2.0, dtype=np.float32), id="float32"),
        pytest.param(complex_sample((2, 2)), id="complex"),
    ],
)
def test_sinc_matches_finite_differences(x: Any, check: Check) -> None:
    float32 = np.asarray(x).dtype == np.float32
    check(np.sinc, x, rtol=1e-3 if float32 else 1e-6, atol=1e-4 if float32 else 1e-9)


@BOTH_RULES
@pytest.mark.parametrize(
    ("x", "p"),
    [
        pytest.param(sample(shape_x, 0.3, 2.0, seed=2), sample(shape_p, -2.0, 2.0, seed=3), id=pair)
        for pair, shape_x, shape_p in SHAPE_PAIRS
    ]
    + [
        # An integer exponent is a constant (NoTangent), also at negative x.
        pytest.param(sample((2, 3), 0.5, 2.0, signed=True), np.array([1, 2, 3]), id="int-array"),
        pytest.param(sample((3,), 0.5, 2.0, signed=True), 3, id="int"),
        pytest.param(
            sample((2, 3), 0.3, 2.0, dtype=np.float32), sample((3,), -1.0, 2.0), id="float32"
        ),
        pytest.param(complex_sample((2, 3)), complex_sample((3,), seed=2), id="complex"),
        pytest.param(complex_sample((2, 3)), 1.5, id="complex-base"),
    ],
)
def test_float_power_matches_finite_differences(x: Any, p: Any, check: Check) -> None:
    float32 = np.asarray(x).dtype == np.float32
    check(np.float_power, x, p, rtol=1e-4 if float32 else 1e-6, atol=1e-9)


BASES_WITH_ZERO = np.array([0.0, 0.5, 2.0])


def float_power_of_bases_with_zero(p: Any) -> Any:
    """At a zero base the exponent's partial is taken as 0, its limit for a positive power.
    (Finite differences in the base at 0 would step below 0, so the base is a constant.)"""
    return np.float_power(BASES_WITH_ZERO, p)


@BOTH_RULES
@pytest.mark.parametrize(
    "p", [pytest.param(2.5, id="float"), pytest.param(np.array([1.5, 0.5, 3.0]), id="array")]
)
def test_float_power_exponent_at_zero_base_matches_finite_differences(p: Any, check: Check) -> None:
    check(float_power_of_bases_with_zero, p)


@BOTH_RULES
@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(
            f, grid(shape_a, 0.0, seed=4), grid(shape_b, 0.1, seed=5), id=f"{f.__name__}-{pair}"
        )
        for f in (np.fmax, np.fmin)
        for pair, shape_a, shape_b in SHAPE_PAIRS
    ]
    + [
        # A NaN loses: the other argument gets the whole cotangent (finite differences of a
        # NaN argument are 0, as it never reaches the result).
        pytest.param(f, np.array([1.0, np.nan, -0.5]), np.array([0.3, 0.3, np.nan]), id=name)
        for f, name in ((np.fmax, "fmax-nan"), (np.fmin, "fmin-nan"))
    ]
    + [
        pytest.param(f, np.array([[np.nan], [0.5]]), np.array([0.3, 1.0]), id=name)
        for f, name in ((np.fmax, "fmax-nan-broadcast"), (np.fmin, "fmin-nan-broadcast"))
    ]
    + [
        # At a tie each argument gets half, as for maximum and minimum.
        pytest.param(np.fmax, TIED, TIED.copy(), id="fmax-all-tied"),
        pytest.param(np.fmin, TIED, 0.5, id="fmin-tied-with-float"),
    ],
)
def test_fmax_and_fmin_match_finite_differences(f: np.ufunc, a: Any, b: Any, check: Check) -> None:
    check(f, a, b)


@BOTH_RULES
@pytest.mark.parametrize(
    ("x", "h0"),
    [
        # heaviside is flat away from x == 0: zero cotangent for x, none reaching h0.
        pytest.param(sample((2, 3), 0.3, 2.0, signed=True), 0.5, id="float-h0"),
        pytest.param(sample((2, 3), 0.3, 2.0, signed=True), np.array([0.2, 0.5, 1.0]), id="row"),
    ],
)
def test_heaviside_matches_finite_differences(x: Any, h0: Any, check: Check) -> None:
    check(np.heaviside, x, h0)


STEP_POINTS = np.array([-1.0, 0.0, 2.0, 0.0])


def heaviside_at_step_points(h0: Any) -> Any:
    """Where x == 0 heaviside(x, h0) is h0: there the cotangent reaches h0. (Finite
    differences in x at 0 would see the jump, so x is a constant here.)"""
    return np.heaviside(STEP_POINTS, h0)


@BOTH_RULES
@pytest.mark.parametrize(
    "h0",
    [
        pytest.param(0.5, id="float"),
        pytest.param(np.array([0.1, 0.2, 0.3, 0.4]), id="array"),
        pytest.param(np.array(0.5), id="0d"),
    ],
)
def test_heaviside_value_at_zero_gets_cotangent(h0: Any, check: Check) -> None:
    check(heaviside_at_step_points, h0)


# --- clip ---------------------------------------------------------------------------------

A = grid((2, 3), 0.0, seed=6)  # on the grid 0.2 k; every bound below is on 0.2 k + 0.1


@BOTH_RULES
@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        # Bounds by position are differentiated where they clip; keywords are constants.
        pytest.param((A, -0.5, 0.7), {}, id="float-bounds"),
        pytest.param((A, np.array(-0.5), np.array(0.7)), {}, id="0d-bounds"),
        pytest.param((A, grid((3,), 0.1, seed=7), 0.9), {}, id="row-lower"),
        pytest.param((A, grid((2, 1), 0.1, seed=8) - 1.0, grid((3,), 0.1, seed=9) + 1.0), {}),
        pytest.param((A, None, 0.3), {}, id="no-lower"),
        pytest.param((A, -0.3, None), {}, id="no-upper"),
        pytest.param((A, 0.7, -0.5), {}, id="lower-above-upper"),
        pytest.param((A,), {"a_min": -0.5, "a_max": 0.7}, id="keyword-bounds"),
        pytest.param((A, -0.5), {"a_max": 0.7}, id="keyword-upper"),
        pytest.param((1.3, -0.5, 0.7), {}, id="float-above"),
        pytest.param((0.3, -0.5, 0.7), {}, id="float-inside"),
        pytest.param((A.astype(np.float32), np.float32(-0.5), np.float32(0.7)), {}, id="float32"),
        pytest.param((A.astype(np.float32), -0.5, 0.7), {}, id="float32-python-bounds"),
    ],
)
def test_clip_matches_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any], check: Check
) -> None:
    float32 = np.asarray(args[0]).dtype == np.float32
    check(np.clip, *args, rtol=1e-4 if float32 else 1e-6, atol=1e-9, **kwargs)


@BOTH_RULES
@pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.1.0", reason="min= needs NumPy 2.1")
def test_clip_with_min_and_max_keywords_matches_finite_differences(check: Check) -> None:
    check(np.clip, A, min=-0.5, max=0.7)


@BOTH_RULES
@pytest.mark.parametrize(
    "bounds",
    [
        # A value on a bound is a kink: it and the bound share the cotangent half and half
        # (central differences give the same), as for np.maximum and np.minimum.
        pytest.param((-0.4, 0.4), id="on-both-bounds"),
        pytest.param((np.array([-0.4, 0.0, 0.4]), 2.0), id="on-lower-row"),
    ],
)
def test_clip_at_bounds_matches_finite_differences(bounds: tuple[Any, Any], check: Check) -> None:
    check(np.clip, np.array([[-0.4, 0.0, 0.4], [1.0, -1.0, 0.4]]), *bounds)


# --- where --------------------------------------------------------------------------------

CONDITION = np.array([[True, False, True], [False, False, True]])


@BOTH_RULES
@pytest.mark.parametrize(
    ("condition", "a", "b"),
    [
        pytest.param(CONDITION, sample((2, 3), -2, 2, seed=1), sample((2, 3), -2, 2), id="same"),
        pytest.param(CONDITION, sample((3,), -2, 2, seed=1), sample((2, 1), -2, 2), id="outer"),
        pytest.param(CONDITION, sample((2, 3), -2, 2, seed=1), 0.5, id="float-b"),
        pytest.param(CONDITION, 1.5, np.array(0.5), id="scalars"),
        pytest.param(CONDITION[0], sample((2, 3), -2, 2, seed=1), sample((2, 1), -2, 2), id="row"),
        pytest.param(np.array(True), sample((3,), -2, 2, seed=1), sample((3,), -2, 2), id="0d"),
        pytest.param(CONDITION, sample((2, 3), -2, 2, seed=1), np.array([1, 2, 3]), id="int-b"),
        pytest.param(
            CONDITION,
            sample((2, 3), -2, 2, dtype=np.float32, seed=1),
            sample((3,), -2, 2, dtype=np.float32),
            id="float32",
        ),
        pytest.param(CONDITION, complex_sample((2, 3)), sample((3,), -2, 2), id="complex-a"),
    ],
)
def test_where_matches_finite_differences(condition: Any, a: Any, b: Any, check: Check) -> None:
    check(np.where, condition, a, b)


@BOTH_RULES
def test_where_with_condition_only_gives_indices_without_cotangents(check: Check) -> None:
    check(np.where, CONDITION)


# --- real and imag ------------------------------------------------------------------------


@BOTH_RULES
@pytest.mark.parametrize("f", [pytest.param(np.real, id="real"), pytest.param(np.imag, id="imag")])
@pytest.mark.parametrize(
    "x",
    [
        pytest.param(complex_sample((2, 3)), id="complex"),
        pytest.param(complex_sample((3,)).astype(np.complex64), id="complex64"),
        pytest.param(np.complex128(0.5 - 1.5j), id="complex-scalar"),
        pytest.param(0.5 - 1.5j, id="python-complex"),
        pytest.param(sample((2, 3), -2.0, 2.0), id="real"),
        pytest.param(1.5, id="python-float"),
    ],
)
def test_real_and_imag_match_finite_differences(f: Any, x: Any, check: Check) -> None:
    check(f, x, rtol=1e-5, atol=1e-7)


# --- Forward rules written by hand: symbolic zeros and thunks ------------------------------

HAND_WRITTEN = [
    pytest.param(np.absolute, (complex_sample((2, 3)),), id="absolute"),
    pytest.param(np.conjugate, (complex_sample((2, 3)),), id="conjugate"),
    pytest.param(np.float_power, (sample((2, 3), 0.3, 2.0), sample((3,), -1.0, 2.0)), id="pow"),
    pytest.param(np.clip, (A, grid((3,), 0.1, seed=7), 0.9), id="clip"),
    pytest.param(np.where, (CONDITION, sample((2, 3), -2, 2), sample((3,), -2, 2)), id="where"),
    pytest.param(np.real, (complex_sample((2, 3)),), id="real"),
    pytest.param(np.imag, (complex_sample((2, 3)),), id="imag"),
    pytest.param(np.angle, (complex_sample((2, 3)),), id="angle"),
    pytest.param(np.nan_to_num, (sample((2, 3), -2, 2),), id="nan_to_num"),
]


def tangents_of(args: tuple[Any, ...]) -> list[Any]:
    return [np.ones_like(a) if np.asarray(a).dtype.kind in "fc" else NoTangent() for a in args]


@pytest.mark.parametrize(("f", "args"), HAND_WRITTEN)
@pytest.mark.parametrize("zero", [ZeroTangent(), NoTangent()], ids=["zero", "no-tangent"])
def test_frule_keeps_zero_tangent_symbolic(f: Any, args: tuple[Any, ...], zero: Any) -> None:
    _, y_dot = frule((NoTangent(), *[zero] * len(args)), f, *args)
    assert y_dot is ZeroTangent()


@pytest.mark.parametrize(("f", "args"), HAND_WRITTEN)
def test_frule_unthunks_its_tangents(f: Any, args: tuple[Any, ...]) -> None:
    dots = tangents_of(args)
    _, expected = frule((NoTangent(), *dots), f, *args)
    _, y_dot = frule((NoTangent(), *(Thunk(lambda d=d: d) for d in dots)), f, *args)
    np.testing.assert_equal(y_dot, expected)


@pytest.mark.parametrize(
    ("f", "args"),
    [
        # Only some arguments vary: the others' tangents are zeros, and are skipped.
        pytest.param(np.float_power, (sample((2, 3), 0.3, 2.0), 1.5), id="pow-base"),
        pytest.param(np.clip, (A, np.array(-0.5), np.array(0.7)), id="clip-a"),
        pytest.param(np.where, (CONDITION, sample((2, 3), -2, 2), 0.5), id="where-a"),
    ],
)
@pytest.mark.parametrize("moving", [0, 1], ids=["first", "second"])
def test_frule_with_some_zero_tangents_matches_finite_differences(
    f: Any, args: tuple[Any, ...], moving: int
) -> None:
    differentiable = [k for k, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]
    tangents = [
        np.ones_like(a) if k == differentiable[moving] else ZeroTangent()
        for k, a in enumerate(args)
    ]
    check_frule(f, *args, tangents=tuple(tangents))


def test_where_frule_gives_indices_no_tangent() -> None:
    _, y_dot = frule((NoTangent(), NoTangent()), np.where, CONDITION)
    assert y_dot is NoTangent()


# --- np.angle and np.nan_to_num ---------------------------------------------------------------

ANGLES = [
    pytest.param((complex_sample((2, 3)),), {}, id="complex"),
    pytest.param((complex_sample((4,)), True), {}, id="degrees"),
    pytest.param((complex_sample((4,)),), {"deg": True}, id="degrees-keyword"),
    pytest.param((complex_sample(()).item(),), {}, id="complex-scalar"),
    pytest.param((sample((2, 3), -2, 2, signed=True),), {}, id="real"),
    pytest.param((-1.5,), {}, id="real-float"),
]


@pytest.mark.parametrize(("args", "kwargs"), ANGLES)
@BOTH_RULES
def test_angle_matches_finite_differences(args: Any, kwargs: Any, check: Check) -> None:
    check(np.angle, *args, **kwargs)


def test_angle_keeps_complex64_precision() -> None:
    z = complex_sample((3,)).astype(np.complex64)
    check_rrule(np.angle, z, rtol=1e-3, atol=1e-4)
    check_frule(np.angle, z, rtol=1e-3, atol=1e-4)


def test_angle_at_the_origin_has_zero_derivative_not_nan() -> None:
    from srcad.api import rrule

    z = np.array([0.0 + 0.0j, 1.0 + 1.0j])
    _, pullback = rrule(np.angle, z)
    assert np.all(np.isfinite(pullback(np.ones(2))[1]))
    _, y_dot = frule((NoTangent(), np.ones(2, complex)), np.angle, z)
    assert y_dot[0] == 0.0 and np.isfinite(y_dot[1])


NOT_FINITE = np.array([1.5, np.nan, -np.inf, -0.7, np.inf, 2.0])

NAN_TO_NUM = [
    # Replacement values kept small: finite differences of the largest float overflow.
    pytest.param((NOT_FINITE,), {"posinf": 5.0, "neginf": -4.0}, id="real"),
    pytest.param((NOT_FINITE, True, 3.0, 1.0, -2.0), {}, id="options-by-position"),
    pytest.param((sample((2, 3), -2, 2),), {}, id="all-finite"),
    pytest.param((2.5,), {}, id="float"),
    pytest.param(
        (np.array([1.0 + 1.0j, np.nan + 2.0j, 3.0 + np.inf * 1j]),), {"posinf": 5.0}, id="complex"
    ),
]


@pytest.mark.parametrize(("args", "kwargs"), NAN_TO_NUM)
@BOTH_RULES
def test_nan_to_num_matches_finite_differences(args: Any, kwargs: Any, check: Check) -> None:
    with np.errstate(invalid="ignore"):
        check(np.nan_to_num, *args, **kwargs)


@pytest.mark.parametrize("copy", [pytest.param((False,), id="position"), pytest.param({}, id="kw")])
def test_nan_to_num_refuses_to_write_into_its_argument(copy: Any) -> None:
    from srcad.api import rrule

    x = NOT_FINITE.copy()
    args, kwargs = ((x, *copy), {}) if isinstance(copy, tuple) else ((x,), {"copy": False})
    with pytest.raises(TypeError, match="copy=False"):
        rrule(np.nan_to_num, *args, **kwargs)
    with pytest.raises(TypeError, match="copy=False"):
        frule((NoTangent(), np.ones(6), NoTangent()), np.nan_to_num, *args, **kwargs)
    np.testing.assert_equal(x, NOT_FINITE)


def angle_model(x: np.ndarray) -> Any:
    z = (x + 0.5) * np.exp(1j * x) + 0.2j
    return np.sum(np.angle(z) ** 2 + np.angle(x) * x**2)


def nan_to_num_model(x: np.ndarray) -> Any:
    return np.sum(np.nan_to_num(np.log(x), neginf=-3.0) * x**2)


@pytest.mark.parametrize(
    ("f", "x"),
    [
        pytest.param(angle_model, np.array([0.3, -1.2, 0.8, 1.9]), id="angle"),
        pytest.param(nan_to_num_model, np.array([0.5, -1.0, 2.0, 3.0]), id="nan_to_num"),
    ],
)
def test_angle_and_nan_to_num_through_the_api(f: Any, x: np.ndarray) -> None:
    from tests.rules.through_the_api import check_through_api

    with np.errstate(invalid="ignore"):
        check_through_api(f, x)

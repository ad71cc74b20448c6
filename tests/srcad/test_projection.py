"""Tests for srcad/projection.py: ProjectTo and unbroadcast."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from srcad.projection import ProjectTo, unbroadcast
from srcad.tangents import NoTangent, Tangent, ZeroTangent

# (primal, cotangent, expected): the expected value's type is checked exactly, so a Python
# float must stay a float, a NumPy scalar a NumPy scalar.
PYTHON_NUMBERS = [
    pytest.param(2.0, 1.5, 1.5, id="float-float"),
    pytest.param(2.0, np.array([1.0, 2.0, 3.0]), 6.0, id="float-array-summed"),
    pytest.param(2.0, np.float32(1.5), 1.5, id="float-numpy-scalar"),
    pytest.param(2.0, np.array(2.5), 2.5, id="float-0d-array"),
    pytest.param(2.0, 1.0 + 2.0j, 1.0, id="float-complex-drops-imaginary"),
    pytest.param(1j, 2.0, 2.0 + 0j, id="complex-real-cotangent"),
    pytest.param(1j, np.array([1j, 2.0]), 2.0 + 1j, id="complex-array-summed"),
]


@pytest.mark.parametrize(("primal", "cotangent", "expected"), PYTHON_NUMBERS)
def test_project_onto_python_number(primal: Any, cotangent: Any, expected: Any) -> None:
    result = ProjectTo(primal)(cotangent)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    "primal",
    [
        pytest.param(True, id="bool"),
        pytest.param(3, id="int"),
        pytest.param(np.int64(3), id="numpy-int"),
        pytest.param(np.bool_(False), id="numpy-bool"),
        pytest.param(np.array([True, False]), id="bool-array"),
        pytest.param(np.array(["a", "b"]), id="string-array"),
        pytest.param(np.arange(2), id="int-array"),
        pytest.param(np.int64(2), id="numpy-int"),
    ],
)
def test_non_perturbable_primal_gets_no_tangent(primal: Any) -> None:
    assert ProjectTo(primal)(np.ones(2)) is NoTangent()


# (primal, cotangent, expected array): dtype, shape and values are all checked.
ARRAYS = [
    pytest.param(np.zeros(3), np.arange(3.0), np.arange(3.0), id="same-shape"),
    pytest.param(
        np.zeros(3, dtype=np.float32),
        np.ones(3),
        np.ones(3, dtype=np.float32),
        id="float32-kept",
    ),
    pytest.param(
        np.zeros(3, dtype=np.float32),
        np.ones((2, 3)),
        np.full(3, 2.0, dtype=np.float32),
        id="float32-kept-after-unbroadcast",
    ),
    pytest.param(
        np.zeros(3), np.arange(6.0).reshape(2, 3), np.array([3.0, 5.0, 7.0]), id="(3,)-vs-(2,3)"
    ),
    pytest.param(
        np.zeros((2, 1)),
        np.arange(6.0).reshape(2, 3),
        np.array([[3.0], [12.0]]),
        id="(2,1)-vs-(2,3)",
    ),
    pytest.param(
        np.zeros((1, 3)),
        np.arange(6.0).reshape(2, 3),
        np.array([[3.0, 5.0, 7.0]]),
        id="(1,3)-vs-(2,3)",
    ),
    pytest.param(np.zeros(2), 1.5, np.array([1.5, 1.5]), id="scalar-cotangent-broadcast"),
    pytest.param(
        np.zeros(2), np.array([1 + 2j, 3 - 1j]), np.array([1.0, 3.0]), id="real-drops-imaginary"
    ),
    pytest.param(
        np.zeros(2, dtype=np.float32),
        np.array([1 + 2j, 3 - 1j]),
        np.array([1.0, 3.0], dtype=np.float32),
        id="float32-drops-imaginary",
    ),
    pytest.param(
        np.zeros(2, dtype=complex),
        np.ones(2),
        np.ones(2, dtype=complex),
        id="complex-primal-keeps-complex",
    ),
]


@pytest.mark.parametrize(("primal", "cotangent", "expected"), ARRAYS)
def test_project_onto_array(primal: np.ndarray, cotangent: Any, expected: np.ndarray) -> None:
    result = ProjectTo(primal)(cotangent)
    assert type(result) is np.ndarray
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize(
    "cotangent",
    [
        pytest.param(np.array(2.5), id="0d"),
        pytest.param(2.5, id="float"),
        pytest.param(np.array([1.0, 1.5]), id="vector-summed"),
        pytest.param(np.ones((2, 2)) * 0.625, id="matrix-summed"),
    ],
)
def test_0d_array_stays_0d_array(cotangent: Any) -> None:
    result = ProjectTo(np.array(1.0))(cotangent)
    assert type(result) is np.ndarray
    assert result.shape == ()
    assert result == 2.5


@pytest.mark.parametrize(
    ("primal", "cotangent", "expected_type"),
    [
        pytest.param(np.float64(1.0), 2.5, np.float64, id="float64-from-float"),
        pytest.param(np.float32(1.0), np.array(2.5), np.float32, id="float32-from-0d"),
        pytest.param(np.float32(1.0), np.array([1.0, 1.5]), np.float32, id="float32-summed"),
        pytest.param(np.float64(1.0), 2.5 + 1j, np.float64, id="drops-imaginary"),
    ],
)
def test_numpy_scalar_stays_numpy_scalar(primal: Any, cotangent: Any, expected_type: type) -> None:
    result = ProjectTo(primal)(cotangent)
    assert type(result) is expected_type
    assert result == 2.5


@pytest.mark.parametrize(
    "primal",
    [
        pytest.param(1.0, id="float"),
        pytest.param(np.zeros(3), id="array"),
        pytest.param(np.float32(1.0), id="numpy-scalar"),
        pytest.param(True, id="bool"),
        pytest.param((1.0, 2.0), id="tuple"),
    ],
)
@pytest.mark.parametrize("zero", [ZeroTangent(), NoTangent()], ids=["ZeroTangent", "NoTangent"])
def test_symbolic_zeros_pass_through(primal: Any, zero: Any) -> None:
    assert ProjectTo(primal)(zero) is zero


def test_tuple_primal_gets_structural_tangent() -> None:
    assert ProjectTo((1.0, 2.0))((3.0, 4.0)) == Tangent(tuple, 3.0, 4.0)


def test_unknown_primal_passes_cotangent_through() -> None:
    cotangent = object()
    assert ProjectTo("text")(cotangent) is cotangent


def test_projector_records_shape_not_the_primal() -> None:
    primal = np.zeros((2, 1))
    project = ProjectTo(primal)
    primal.resize((5, 5), refcheck=False)
    assert project(np.ones((2, 3))).shape == (2, 1)


@pytest.mark.parametrize(
    ("primal", "text"),
    [
        pytest.param(1.0, "ProjectTo(float)", id="float"),
        pytest.param(
            np.zeros(3, np.float32), "ProjectTo(array, shape=(3,), dtype=float32)", id="array"
        ),
    ],
)
def test_projector_repr(primal: Any, text: str) -> None:
    assert repr(ProjectTo(primal)) == text


UNBROADCASTS = [
    pytest.param(np.ones((2, 3)), (2, 3), np.ones((2, 3)), id="same-shape"),
    pytest.param(np.ones((2, 3)), (3,), np.full(3, 2.0), id="leading-axis"),
    pytest.param(np.ones((2, 3)), (2, 1), np.full((2, 1), 3.0), id="stretched-axis"),
    pytest.param(np.ones((4, 2, 3)), (1, 3), np.full((1, 3), 8.0), id="leading-and-stretched"),
    pytest.param(np.ones((2, 3)), (), np.array(6.0), id="to-0d"),
    pytest.param(np.ones(3), (2, 3), np.ones((2, 3)), id="broadcast-up"),
]


@pytest.mark.parametrize(("dx", "shape", "expected"), UNBROADCASTS)
def test_unbroadcast(dx: np.ndarray, shape: tuple[int, ...], expected: np.ndarray) -> None:
    result = unbroadcast(dx, shape)
    assert type(result) is np.ndarray
    assert result.shape == shape
    np.testing.assert_array_equal(result, expected)


def _summed_back(dx: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """What `unbroadcast` gives, by NumPy's own sums over the axes broadcasting added or
    stretched (the reference for its faster ways)."""
    extra = dx.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + a for a, n in enumerate(shape) if n == 1 and dx.shape[extra + a] != 1
    )
    return np.sum(dx, axis=axes).reshape(shape)


# Summed axes last (rows times ones), first over narrow columns (ones times rows), first
# over wide columns or in the middle (NumPy's sum), and beyond the sizes a product serves.
SUMMED_BACK = [
    ((64, 10), (64, 1)),
    ((4, 3, 5), (4, 1, 1)),
    ((2, 1, 3, 4), (2, 1, 1, 1)),
    ((200, 5), (5,)),
    ((7, 3, 4), (1, 4)),
    ((6, 1, 4), (1, 4)),
    ((3, 4, 2), (4, 2)),
    ((5, 70), (70,)),
    ((4, 3, 5), (4, 1, 5)),
    ((3, 4), ()),
    ((70000, 2), (2,)),
    ((2, 70000), (2, 1)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("found", "shape"), SUMMED_BACK, ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
def test_unbroadcast_sums_as_numpy_does(found: Any, shape: Any, dtype: Any, order: str) -> None:
    dx = np.asarray(np.random.default_rng(1).standard_normal(found), dtype=dtype, order=order)
    result = unbroadcast(dx, shape)
    assert result.shape == shape and result.dtype == dtype
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(result, _summed_back(dx, shape), rtol=tolerance, atol=tolerance)
    result.reshape(-1)[:1] = 7.0  # a fresh array: writing it changes nothing else
    assert not np.shares_memory(result, dx)


def test_unbroadcast_keeps_nans_and_infinities() -> None:
    dx = np.array([[1.0, np.inf], [np.nan, 2.0], [-np.inf, np.inf]])
    with np.errstate(invalid="ignore"):  # inf - inf, which NumPy's sum warns of too
        np.testing.assert_array_equal(unbroadcast(dx, (3, 1)), [[np.inf], [np.nan], [np.nan]])
        np.testing.assert_array_equal(unbroadcast(dx, (2,)), [np.nan, np.inf])


# --- the helpers inlined derivatives call -------------------------------------------------


def test_sum_to_undoes_broadcasting_and_counts_a_uniform_float():
    from srcad.projection import sum_to

    np.testing.assert_array_equal(sum_to(np.ones((2, 3)), np.zeros((1, 3))), [[2.0, 2.0, 2.0]])
    assert sum_to(np.ones(4), 1.0) == 4.0 and type(sum_to(np.ones(4), 1.0)) is float
    y = np.zeros((2, 3))
    assert sum_to(0.5, np.zeros(3), y) == 1.0  # 0.5 everywhere in y: two rows per element
    assert sum_to(0.5, 2.0, y) == 3.0
    assert sum_to(0.5, np.zeros((2, 3)), y) == 0.5
    assert isinstance(sum_to(ZeroTangent(), np.zeros(3), y), ZeroTangent)


def test_expand_fills_a_uniform_float_in():
    from srcad.projection import expand

    np.testing.assert_array_equal(expand(0.5, np.zeros((2, 2))), np.full((2, 2), 0.5))
    full = np.ones(3)
    assert expand(full, np.zeros(3)) is full
    assert expand(0.5, 1.0) == 0.5
    assert isinstance(expand(ZeroTangent(), np.zeros(3)), ZeroTangent)


def test_repeated_indices_add_up():
    from srcad.projection import add_at_repeated, scatter_add

    rows, columns = np.array([0, 1, 0, 0]), np.array([2, 0, 2, 1])
    buffer = np.zeros((2, 3))
    add_at_repeated(buffer, (rows, columns), np.array([1.0, 2.0, 3.0, 4.0]))
    add_at_repeated(buffer, (rows, columns), ZeroTangent())
    np.testing.assert_array_equal(buffer, [[0.0, 4.0, 4.0], [2.0, 0.0, 0.0]])
    np.testing.assert_array_equal(scatter_add(np.zeros(3), np.array([1, 1]), 0.5), [0, 1.0, 0])
    assert isinstance(scatter_add(np.zeros(3), np.array([1]), ZeroTangent()), ZeroTangent)


def test_add_at_and_scatter_take_symbolic_zeros():
    from srcad.projection import add_at, scatter

    buffer = np.zeros(4)
    add_at(buffer, slice(1, 3), np.array([1.0, 2.0]))
    add_at(buffer, slice(0, 2), ZeroTangent())
    np.testing.assert_array_equal(buffer, [0.0, 1.0, 2.0, 0.0])
    np.testing.assert_array_equal(scatter(np.zeros(3), 1, 5.0), [0.0, 5.0, 0.0])
    assert isinstance(scatter(np.zeros(3), 1, ZeroTangent()), ZeroTangent)

"""Rules for `np.dot` and `np.transpose`, checked against finite differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from srcad.rules.numpy_linalg import dot_rrule, transpose_rrule
from srcad.tangents import NoTangent, ZeroTangent
from srcad.testing import check_rrule


def sample(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.standard_normal(shape)
    return np.asarray(values, dtype=dtype)


# (id, a, b): every case of np.dot, from a scalar factor to N-d with M-d.
DOT_CASES: list[tuple[str, Any, Any]] = [
    ("0d-with-matrix", np.array(1.5), sample((2, 3), 1)),
    ("float-with-vector", 1.5, sample((3,), 1)),
    ("matrix-with-float", sample((2, 3), 0), -0.7),
    ("floats", 1.5, -0.7),
    ("vector-vector", sample((3,), 0), sample((3,), 1)),
    ("matrix-vector", sample((2, 3), 0), sample((3,), 1)),
    ("vector-matrix", sample((3,), 0), sample((3, 2), 1)),
    ("matrix-matrix", sample((2, 3), 0), sample((3, 2), 1)),
    ("3d-vector", sample((2, 2, 3), 0), sample((3,), 1)),
    ("vector-3d", sample((3,), 0), sample((2, 3, 2), 1)),
    ("3d-matrix", sample((2, 2, 3), 0), sample((3, 2), 1)),
    ("matrix-3d", sample((2, 3), 0), sample((2, 3, 2), 1)),
    ("3d-3d", sample((2, 1, 3), 0), sample((2, 3, 2), 1)),
    ("complex-matrix-matrix", sample((2, 3), 0, complex), sample((3, 2), 1, complex)),
    ("real-vector-complex-matrix", sample((3,), 0), sample((3, 2), 1, complex)),
    ("complex-3d-real-vector", sample((2, 2, 3), 0, complex), sample((3,), 1)),
    ("complex-scalar-with-vector", 0.5 - 1.0j, sample((3,), 1)),
]


@pytest.mark.parametrize(("a", "b"), [pytest.param(a, b, id=name) for name, a, b in DOT_CASES])
def test_dot_matches_finite_differences(a: Any, b: Any) -> None:
    check_rrule(np.dot, a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param(
            sample((2, 3), 0, np.float32), sample((3, 2), 1, np.float32), id="matrix-matrix"
        ),
        pytest.param(
            sample((2, 3), 0, np.float32), sample((3,), 1, np.float32), id="matrix-vector"
        ),
        pytest.param(sample((3,), 0, np.float32), 1.5, id="vector-with-float"),
    ],
)
def test_dot_keeps_float32(a: Any, b: Any) -> None:
    check_rrule(np.dot, a, b, rtol=1e-4, atol=1e-5)


# (id, positional arguments, keyword arguments) of one np.transpose call.
TRANSPOSE_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("matrix", (sample((2, 3), 0),), {}),
    ("3d-reversed", (sample((2, 3, 2), 0),), {}),
    ("vector", (sample((3,), 0),), {}),
    ("0d", (np.array(1.5),), {}),
    ("axes-keyword", (sample((2, 3, 2), 0),), {"axes": (2, 0, 1)}),
    ("axes-positional", (sample((2, 3, 2), 0), (1, 2, 0)), {}),
    ("axes-negative", (sample((2, 3, 2), 0),), {"axes": (-1, 0, -2)}),
    ("axes-list", (sample((2, 3, 2), 0),), {"axes": [1, 0, 2]}),
    ("complex", (sample((2, 3), 0, complex),), {}),
]


@pytest.mark.parametrize(
    ("args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in TRANSPOSE_CALLS]
)
def test_transpose_matches_finite_differences(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(np.transpose, *args, **kwargs)


def test_transpose_keeps_float32() -> None:
    check_rrule(np.transpose, sample((2, 3, 2), 0, np.float32), (2, 0, 1), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("pullback", "expected"),
    [
        pytest.param(dot_rrule(sample((2, 3), 0), sample((3,), 1))[1], 3, id="dot"),
        pytest.param(transpose_rrule(sample((2, 3), 0))[1], 2, id="transpose"),
        pytest.param(transpose_rrule(sample((2, 3), 0), (1, 0))[1], 3, id="transpose-axes"),
    ],
)
def test_zero_cotangent_stays_symbolic(pullback: Any, expected: int) -> None:
    cotangents = pullback(ZeroTangent())
    assert len(cotangents) == expected
    assert cotangents[0] is NoTangent() and cotangents[1] is ZeroTangent()

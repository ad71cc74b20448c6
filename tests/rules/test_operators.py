"""Rules for Python's arithmetic operators, checked against finite differences."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.registry import REGISTRY
from srcad.rules.operators import matmul_rrule, pow_rrule
from srcad.tangents import NoTangent, ZeroTangent
from srcad.testing import check_rrule

Shape = tuple[int, ...]


def sample(
    shape: Shape | type[float],
    low: float = -2.0,
    high: float = 2.0,
    *,
    seed: int = 0,
    dtype: Any = np.float64,
) -> Any:
    """Random values in [low, high]; `float` gives a Python float."""
    rng = np.random.default_rng(seed)
    if shape is float:
        return float(rng.uniform(low, high))
    values = rng.uniform(low, high, size=shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.uniform(low, high, size=shape)
    return np.asarray(values, dtype=dtype)


def shape_id(shape: Shape | type[float]) -> str:
    return "float" if shape is float else str(shape).replace(" ", "")


# Operators of two arguments: same shapes, then every kind of broadcasting.
BINARY = [operator.add, operator.sub, operator.mul, operator.truediv]
SHAPE_PAIRS: list[tuple[Shape | type[float], Shape | type[float]]] = [
    ((2, 3), (2, 3)),
    ((3, 4), (4,)),
    ((3, 1), (1, 4)),
    ((), (3,)),
    ((3,), ()),
    (float, (2, 3)),
    ((2, 3), float),
    (float, float),
]


@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(
            f,
            sample(shape_a, seed=1),
            # Divisors stay in [0.5, 2], away from zero.
            sample(shape_b, 0.5, 2.0, seed=2),
            id=f"{f.__name__}-{shape_id(shape_a)}-{shape_id(shape_b)}",
        )
        for f in BINARY
        for shape_a, shape_b in SHAPE_PAIRS
    ],
)
def test_binary_operator_matches_finite_differences(f: Callable[..., Any], a: Any, b: Any) -> None:
    check_rrule(f, a, b)


@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(
            f,
            sample((2, 3), seed=1, dtype=complex),
            sample(shape, 0.5, 2.0, seed=2, dtype=complex),
            id=f"{f.__name__}-complex-{shape_id(shape)}",
        )
        for f in BINARY
        for shape in ((2, 3), (3,))
    ]
    + [
        pytest.param(
            operator.mul,
            sample((2, 3), seed=1),
            sample((3,), seed=2, dtype=complex),
            id="mul-real-complex",
        ),
        pytest.param(
            operator.truediv,
            1.5,
            sample((3,), 0.5, 2.0, seed=2, dtype=complex),
            id="truediv-float-complex",
        ),
        pytest.param(
            operator.mul, 1.5 - 0.5j, sample((3,), seed=2, dtype=complex), id="mul-python-complex"
        ),
    ],
)
def test_binary_operator_on_complex_matches_finite_differences(
    f: Callable[..., Any], a: Any, b: Any
) -> None:
    check_rrule(f, a, b, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize(
    ("f", "a", "b"),
    [
        pytest.param(
            f,
            sample((3, 4), seed=1, dtype=np.float32),
            sample((4,), 0.5, 2.0, seed=2, dtype=np.float32),
            id=f"{f.__name__}",
        )
        for f in BINARY
    ]
    + [pytest.param(operator.mul, sample((3,), seed=1, dtype=np.float32), 1.5, id="mul-float")],
)
def test_binary_operator_keeps_float32(f: Callable[..., Any], a: Any, b: Any) -> None:
    check_rrule(f, a, b, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize(
    "f", [pytest.param(operator.neg, id="neg"), pytest.param(operator.pos, id="pos")]
)
@pytest.mark.parametrize(
    "x",
    [
        pytest.param(sample((2, 3)), id="matrix"),
        pytest.param(sample(float), id="float"),
        pytest.param(sample((3,), dtype=complex), id="complex"),
        pytest.param(sample((3,), dtype=np.float32), id="float32"),
    ],
)
def test_unary_operator_matches_finite_differences(f: Callable[..., Any], x: Any) -> None:
    check_rrule(f, x, rtol=1e-5, atol=1e-6)


# (id, base, exponent): bases are positive wherever the exponent is a float.
POW_CASES: list[tuple[str, Any, Any]] = [
    ("arrays", sample((2, 3), 0.5, 2.0, seed=1), sample((2, 3), -1.5, 1.5, seed=2)),
    ("row-exponent", sample((3, 4), 0.5, 2.0, seed=1), sample((4,), -1.5, 1.5, seed=2)),
    ("float-exponent", sample((2, 3), 0.5, 2.0, seed=1), 2.5),
    ("float-base", 1.7, sample((3,), -1.5, 1.5, seed=2)),
    ("floats", 1.7, -0.6),
    ("square-root", sample((3,), 0.5, 2.0, seed=1), 0.5),
    ("integer-exponent-negative-base", sample((2, 3), -2.0, -0.5, seed=1), 3),
    ("integer-exponent-any-sign", sample((2, 3), seed=1), 2),
    ("integer-array-exponent", sample((3,), -2.0, -0.5, seed=1), np.array([1, 2, 3])),
    ("float-integer-exponent", -1.7, 2),
]


@pytest.mark.parametrize(
    "f", [pytest.param(operator.pow, id="pow"), pytest.param(np.power, id="np.power")]
)
@pytest.mark.parametrize(("x", "p"), [pytest.param(x, p, id=name) for name, x, p in POW_CASES])
def test_pow_matches_finite_differences(f: Callable[..., Any], x: Any, p: Any) -> None:
    check_rrule(f, x, p)


def test_pow_on_complex_matches_finite_differences() -> None:
    x = sample((3,), 0.5, 2.0, seed=1, dtype=complex)
    check_rrule(
        operator.pow, x, sample((3,), -1.0, 1.0, seed=2, dtype=complex), rtol=1e-5, atol=1e-8
    )


def test_pow_keeps_float32() -> None:
    x = sample((2, 3), 0.5, 2.0, seed=1, dtype=np.float32)
    check_rrule(
        operator.pow, x, sample((3,), -1.0, 1.0, seed=2, dtype=np.float32), rtol=1e-3, atol=1e-4
    )


def test_integer_exponent_gets_no_tangent() -> None:
    _, pullback = pow_rrule(sample((3,), -2.0, -0.5), 3)
    assert pullback(np.ones(3))[2] is NoTangent()


# (id, a, b): vectors, matrices, batches and broadcast batches.
MATMUL_CASES: list[tuple[str, Any, Any]] = [
    ("matrix-matrix", sample((2, 3), seed=1), sample((3, 2), seed=2)),
    ("vector-matrix", sample((3,), seed=1), sample((3, 2), seed=2)),
    ("matrix-vector", sample((2, 3), seed=1), sample((3,), seed=2)),
    ("vector-vector", sample((3,), seed=1), sample((3,), seed=2)),
    ("batch-matrix", sample((2, 2, 3), seed=1), sample((3, 2), seed=2)),
    ("batch-broadcast", sample((2, 1, 2, 3), seed=1), sample((3, 3, 2), seed=2)),
    ("vector-batch", sample((3,), seed=1), sample((2, 3, 2), seed=2)),
    ("complex", sample((2, 3), seed=1, dtype=complex), sample((3, 2), seed=2, dtype=complex)),
    ("real-complex", sample((2, 3), seed=1), sample((3,), seed=2, dtype=complex)),
]


@pytest.mark.parametrize(
    "f", [pytest.param(operator.matmul, id="matmul"), pytest.param(np.matmul, id="np.matmul")]
)
@pytest.mark.parametrize(("a", "b"), [pytest.param(a, b, id=name) for name, a, b in MATMUL_CASES])
def test_matmul_matches_finite_differences(f: Callable[..., Any], a: Any, b: Any) -> None:
    check_rrule(f, a, b)


def test_matmul_keeps_float32() -> None:
    a, b = sample((2, 3), seed=1, dtype=np.float32), sample((3, 2), seed=2, dtype=np.float32)
    check_rrule(operator.matmul, a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "pullback",
    [
        pytest.param(matmul_rrule(sample((2, 3)), sample((3,)))[1], id="matmul"),
        pytest.param(pow_rrule(sample((3,), 0.5, 2.0), 2.5)[1], id="pow"),
    ],
)
def test_zero_cotangent_stays_symbolic(pullback: Any) -> None:
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), ZeroTangent())


MODULO = [
    ("float_mod_float", operator.mod, (5.3, 1.7)),
    ("array_mod_scalar", operator.mod, (np.array([5.3, -2.2, 7.1]), 1.7)),
    ("np_mod_broadcast", np.mod, (np.array([[5.3], [-2.2]]), np.array([1.7, 2.9]))),
    ("np_remainder", np.remainder, (np.array([5.3, 2.2]), 1.3)),
]


@pytest.mark.parametrize(("primal", "args"), [m[1:] for m in MODULO], ids=[m[0] for m in MODULO])
def test_modulo_matches_finite_differences(primal, args):
    check_rrule(primal, *args)


# -- two Python floats: the pullbacks that skip building projections -------------------------

FLOAT_SEEDS = [0.7, np.float64(0.7), np.array(0.7), 0.7 + 0.3j, ZeroTangent()]


@pytest.mark.parametrize("seed", FLOAT_SEEDS, ids=repr)
@pytest.mark.parametrize(
    "op", [operator.add, operator.sub, operator.mul, operator.truediv], ids=lambda f: f.__name__
)
def test_pullbacks_of_two_floats_give_floats(op: Callable[..., Any], seed: Any) -> None:
    """Whatever the seed (a NumPy scalar, a 0-d array, a complex one from a complex value
    further on, a zero), the cotangents of two floats are floats (or zeros), equal to the
    real part of the seed times the partials, as the projections onto floats give; and
    the rule agrees with finite differences."""
    a, b = 1.5, -0.4
    check_rrule(op, a, b)
    rule = REGISTRY.rrule_for(op).rrule
    _, pullback = rule(a, b)
    _, a_bar, b_bar = pullback(seed)
    if isinstance(seed, ZeroTangent):
        assert isinstance(a_bar, ZeroTangent) and isinstance(b_bar, ZeroTangent)
        return
    real = float(np.real(seed))
    h = 1e-7
    for bar, partial in (
        (a_bar, (op(a + h, b) - op(a - h, b)) / (2 * h)),
        (b_bar, (op(a, b + h) - op(a, b - h)) / (2 * h)),
    ):
        assert type(bar) is float
        assert bar == pytest.approx(real * partial, rel=1e-6)

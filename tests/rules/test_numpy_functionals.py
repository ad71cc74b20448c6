"""Rules for NumPy's functions that call a function of the user's
(`rules/numpy_functionals.py`, issue 20): calling an `np.vectorize` object, `np.piecewise`
and `np.apply_along_axis`, checked against
finite differences through the public API in both modes and to second order (the
definition's `*args` are differentiated: `second_order._definition_wrt`), and the options
refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedCallError
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api


def wave(v: Any) -> Any:
    return v * v + np.sin(v)


def branchy(a: Any, b: Any) -> Any:
    return a * np.exp(b) if a > 0 else a - b


WAVE = np.vectorize(wave)


def vectorized_lambda_loss(x: np.ndarray) -> Any:
    return np.sum(np.vectorize(lambda v: v * v * v)(x))


def vectorized_global_loss(x: np.ndarray) -> Any:
    return np.sum(WAVE(x) ** 2)


def vectorized_broadcast_loss(x: np.ndarray) -> Any:
    """Two arguments broadcast together, a branch on each element's value."""
    return np.sum(np.vectorize(branchy)(x, x[0]) * x)


def vectorized_number_loss(x: np.ndarray) -> Any:
    return np.vectorize(wave)(x[0, 0]) * np.sum(np.vectorize(branchy)(x[1], 0.5))


@pytest.mark.parametrize(
    "f",
    [
        vectorized_lambda_loss,
        vectorized_global_loss,
        vectorized_broadcast_loss,
        vectorized_number_loss,
    ],
    ids=lambda f: f.__name__,
)
def test_vectorize_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, sample((3, 4), 5))


def test_vectorize_pullback_gives_the_argument_its_cotangent() -> None:
    """A registered `__call__` rule gives the instance's cotangent in the function's place
    (`calls.call_rrule`): with the function's own first, the argument's was dropped and
    grad was 0 with no error."""
    x = sample((2, 3), 6)
    np.testing.assert_allclose(srcad.grad(vectorized_lambda_loss)(x), 3 * x**2)


def square(v: Any) -> Any:
    return v**2


def piecewise_loss(x: np.ndarray) -> Any:
    two = np.piecewise(x, [x < 0.5], [lambda v: v**2, lambda v: v])
    return np.sum(two) + np.sum(np.piecewise(x, [x < -0.5, x > 0.5], [np.sin, square, 0.25]) * x)


def piecewise_domains_loss(x: np.ndarray) -> Any:
    """Each function sees only its own piece: `np.log` and `np.sqrt` never see a negative
    number (a nan derivative outside the piece would reach the result)."""
    logs = np.piecewise(x[0], [x[0] <= 0, x[0] > 0], [np.exp, np.log])
    return np.sum(logs**2) + np.sum(np.piecewise(x[1], x[1] > 0, [np.sqrt]))


@pytest.mark.parametrize("f", [piecewise_loss, piecewise_domains_loss], ids=lambda f: f.__name__)
def test_piecewise_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    x = sample((3, 4), 8)
    assert np.all(np.abs(np.abs(x) - 0.5) > 1e-3)  # no element at a boundary
    check_through_api(f, x)


def test_piecewise_extra_arguments_refused() -> None:
    x = sample((4,), 9)
    with pytest.raises(UnsupportedCallError):
        srcad.grad(lambda a: np.sum(np.piecewise(a, [a > 0], [lambda v, k: k * v], 2.0)))(x)


def row_wave(v: Any) -> Any:
    return np.sum(np.sin(v) * v)


def two_rows(v: Any) -> Any:
    return np.stack([v * v, np.cos(v)])


def along_axis_loss(x: np.ndarray) -> Any:
    sums = np.apply_along_axis(np.sum, 0, np.outer(x[0], x[1]))
    return np.sum(sums**2) + np.sum(np.apply_along_axis(row_wave, 1, x) ** 2)


def along_axis_layout_loss(x: np.ndarray) -> Any:
    """Each slice's result's axes go where the axis was: (2, 3, 4) from axis 0, and in
    the middle of a 3-d array."""
    cube = np.reshape(np.concatenate([x, x**2]), (2, 3, 4))
    middle = np.apply_along_axis(two_rows, 1, cube) * np.arange(48.0).reshape(2, 2, 3, 4)
    return np.sum(np.apply_along_axis(two_rows, 0, x) ** 3) + np.sum(middle)


@pytest.mark.parametrize("f", [along_axis_loss, along_axis_layout_loss], ids=lambda f: f.__name__)
def test_apply_along_axis_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, sample((3, 4), 10))


def test_apply_along_axis_extra_arguments_refused() -> None:
    x = sample((3, 4), 11)
    with pytest.raises(UnsupportedCallError):
        srcad.grad(lambda a: np.sum(np.apply_along_axis(np.roll, 1, a, 1)))(x)


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.vectorize(wave, signature="()->()"),
        lambda: np.vectorize(branchy, excluded={1}),
        lambda: np.vectorize(lambda v: (v, 2.0 * v)),
    ],
    ids=["signature", "excluded", "several-results"],
)
def test_vectorize_options_refused(make: Callable[[], Any]) -> None:
    vectorized = make()
    x = sample((3,), 7)
    with pytest.raises(UnsupportedCallError):
        srcad.grad(lambda a: np.sum(vectorized(a, 0.5) if vectorized.excluded else vectorized(a)))(
            x
        )

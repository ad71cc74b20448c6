"""`np.polyadd`, `np.polysub`, `np.polymul`, `np.polyder`, `np.polyint` and `np.vander`
(`rules/numpy_polynomials.py`): each rule alone in both modes against finite differences
(coefficients of different lengths, orders above one, constants of integration, `N` and
`increasing`), the values NumPy gives, `np.vander` at zero, whole functions through the
public API (second order too), and what is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedCallError
from srcad.testing import check_frule, check_rrule
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api

P = sample((4,), 1)
Q = sample((2,), 2)
POLY = np.poly1d([1.0, 2.0])

CALLS = [
    ("polyadd", np.polyadd, (P, Q), {}),
    ("polyadd-longer-second", np.polyadd, (Q, P), {}),
    ("polysub", np.polysub, (P, Q), {}),
    ("polysub-number", np.polysub, (0.5, P), {}),
    ("polymul", np.polymul, (P, Q), {}),
    ("polyder", np.polyder, (P,), {}),
    ("polyder-twice", np.polyder, (P, 2), {}),
    ("polyder-past-degree", np.polyder, (Q, 3), {}),
    ("polyint", np.polyint, (P,), {}),
    ("polyint-constants", np.polyint, (P, 2, Q), {}),
    ("polyint-one-constant", np.polyint, (Q,), {"m": 3, "k": 0.7}),
    ("vander", np.vander, (P,), {}),
    ("vander-N-increasing", np.vander, (P, 3, True), {}),
    ("vander-at-zero", np.vander, (np.array([0.0, 1.5, -0.5]),), {"N": 4}),
]


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_rules_match_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)
    check_frule(f, *args, **kwargs, seed=5)


def test_vander_has_a_finite_derivative_at_zero() -> None:
    """Column `x ** k` has slope `k x ** (k - 1)`: 1 for k == 1 at 0, 0 for the others."""
    jacobian = srcad.jacobian(lambda x: np.vander(x, 3, increasing=True)[0])(np.zeros(2))
    np.testing.assert_array_equal(jacobian, [[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])


def fitted(x):
    p = np.polyadd(x[:3] * x[3], np.polymul(x[1:3], x[4:]))
    q = np.polysub(np.polyint(p, 2, k=[x[0], 0.5]), np.polyder(x, 2))
    table = np.vander(x[:3], 4) @ q[-4:]
    return np.polyval(q, 0.3) * np.sum(table**2) + np.sum(np.polyder(q) ** 2)


def test_through_the_api() -> None:
    check_through_api(fitted, sample((6,), 7))


@pytest.mark.parametrize(
    ("f", "error"),
    [
        (lambda x: np.polymul(x, POLY), UnsupportedCallError),
        (lambda x: np.polyadd(x, POLY), UnsupportedCallError),
        (lambda x: np.polyder(x, -1), ValueError),
        (lambda x: np.polyint(x, 3, k=[1.0, 2.0]), ValueError),
        (lambda x: np.vander(np.outer(x, x)), ValueError),
    ],
    ids=["poly1d", "poly1d-added", "negative-order", "too-few-constants", "vander-2d"],
)
def test_refused(f: Callable[..., Any], error: type) -> None:
    with pytest.raises(error):
        srcad.grad(lambda x: np.sum(f(x)))(P)

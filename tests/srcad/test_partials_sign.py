"""`srcad.partials.sign`, the slope of `abs`, without NumPy's call for a Python float or a
NumPy float64: the value, type and sign bit `np.sign` gives, and `abs` of elements of a
float64 array differentiated both ways against central differences."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad.partials import sign
from tests.conftest import close, difference

SPECIAL = [2.5, -0.1, 0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e30]


@pytest.mark.parametrize("make", [float, np.float64, np.float32, np.asarray])
@pytest.mark.parametrize("value", SPECIAL)
def test_sign_is_numpys(make: type, value: float) -> None:
    x = make(value)
    got, want = sign(x), np.sign(x)
    if isinstance(x, float) and not isinstance(x, np.float64):
        assert type(got) is float
    else:
        assert type(got) is type(want)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.signbit(got) == np.signbit(want) or np.isnan(want)


def _absolute_sum(v):  # type: ignore[no-untyped-def]
    total = 0.0
    for i in range(len(v)):
        total = total + abs(v[i] - 0.5) * v[i]
    return total


def test_abs_of_float64_elements_both_ways() -> None:
    v = np.array([0.3, -1.2, 2.5, 0.7])
    want = difference(_absolute_sum, (v,))
    close(srcad.grad(_absolute_sum)(v), want)
    u = np.array([0.5, -1.0, 0.25, 2.0])
    close(srcad.jvp(_absolute_sum, (v,), (u,))[1], want @ u)

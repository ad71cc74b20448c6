"""Checking a NumPy function's rules through srcad's public API: `grad`, `jvp`, `jacobian`
and `hessian` of a user function that calls it, against central finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp


def check_through_api(
    f: Callable[[np.ndarray], Any], x: np.ndarray, *, second_order: bool = True, seed: int = 7
) -> None:
    """Check a real-scalar-valued `f(x)` (a user function calling the NumPy function under
    test) in both modes and, where `second_order`, its Hessian: `grad` against the finite-
    difference gradient, `jvp` and the forward-mode `jacobian` against finite-difference
    directional derivatives, and `hessian(f) @ v` against finite differences of `grad(f)`
    along `v`."""
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(np.shape(x))
    expected_gradient = finite_difference_vjp(f, (x,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(f)(x), expected_gradient, rtol=1e-6, atol=1e-8)
    y, y_dot = srcad.jvp(f, (x,), (v,))
    np.testing.assert_allclose(y, f(x))
    expected_dot = finite_difference_jvp(f, (x,), (v,))
    np.testing.assert_allclose(y_dot, expected_dot, rtol=1e-6, atol=1e-8)
    forward = srcad.jacobian(f, mode="forward")(x)
    np.testing.assert_allclose(forward, expected_gradient, rtol=1e-6, atol=1e-8)
    if second_order:
        hessian = np.reshape(srcad.hessian(f)(x), (np.size(x), np.size(x)))
        expected_hv = finite_difference_jvp(srcad.grad(f), (x,), (v,))
        np.testing.assert_allclose(hessian @ np.ravel(v), np.ravel(expected_hv),
                                   rtol=1e-5, atol=1e-7)  # fmt: skip

"""Second derivatives through the primitives whose second derivatives come from a plain-NumPy
definition (`rules/numpy_definitions.py`), at the points where their first-order rules
have special code: zeros in a product, weights that move, singular matrices."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from tests.rules.test_higher_order import check_second_order

WITH_ZEROS = np.array([[0.0, 0.7, 1.3], [0.0, 0.0, -0.4], [0.5, 0.0, 0.8], [1.1, -0.6, 0.9]])


def prod_with_zeros(m):
    """One zero in a slice (whose second derivatives pair it with each other element), two
    zeros (where one pair has a nonzero second derivative), and none."""
    rows = np.prod(m, 1)
    columns = np.prod(m * m + m, axis=0, keepdims=True)
    return np.sum(np.sin(rows)) + np.sum(columns**2) + np.prod(m[:, 1:], axis=(0, 1))


def prod_of_everything(m):
    return np.prod(m * 0.9 + 0.1) + np.prod(m[0], initial=2.0) ** 2


def cumprod_with_zeros(m):
    return np.sum(np.sin(np.cumprod(m, 1))) + np.sum(np.cumprod(m[:, ::-1], axis=0) ** 2)


def cumprod_flattened(m):
    return np.sum(np.cumprod(m + 0.5) * np.arange(12.0))


@pytest.mark.parametrize(
    "objective", [prod_with_zeros, prod_of_everything, cumprod_with_zeros, cumprod_flattened],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_products_with_zeros(objective):
    check_second_order(objective, (WITH_ZEROS,))


def products_of_a_list_and_of_complex_numbers(x):
    """`np.prod` of a list, along negative and tuple axes of a 3-d array, and of complex
    arrays (products are holomorphic: the real and imaginary parts both count)."""
    t = np.reshape(x, (2, 3, 2))
    z = t + 1j * t[::-1]
    complex_part = np.real(np.prod(z[0], axis=(0, 1)) * 3) + np.imag(np.sum(np.cumprod(z, 2)))
    listed = np.prod([t[0, 0, 0], t[1, 2, 1], 2.0]) ** 2
    return listed + np.sum(np.prod(t, -2) ** 2) + np.sum(np.cumprod(t, axis=-1) ** 2) + complex_part


def test_products_of_lists_of_complex_numbers_and_along_any_axes():
    x = np.linspace(-0.5, 1.2, 12)
    x[3] = 0.0
    check_second_order(products_of_a_list_and_of_complex_numbers, (x,))


def average_with_moving_weights(z):
    """Weights passed by position are differentiated, with the array: `a` and the weights
    both come from `z`."""
    a, w = np.reshape(z[:6], (2, 3)), z[6:]
    average, total = np.average(a * a, 1, w * w + 0.5, True)
    return np.sum(np.sin(average) * total) + np.average(a, None, np.exp(a))


def average_with_constant_weights(z):
    m = np.reshape(z, (3, 3))
    columns = np.average(np.sin(m), axis=0, weights=np.array([1.0, 2.0, 0.5]))
    kept = np.average(m * m, axis=(0, 1), weights=np.ones((3, 3)), keepdims=True)
    return np.sum(columns**2) + np.sum(np.cos(kept)) + np.average(m, 1, None, True)[0][1] ** 3


@pytest.mark.parametrize(
    "objective", [average_with_moving_weights, average_with_constant_weights],
    ids=lambda f: f.__name__,
)  # fmt: skip
def test_weighted_averages(objective):
    check_second_order(objective, (np.linspace(0.2, 1.1, 9),))


def determinants(m):
    """Of a matrix, of a stack, and of a complex matrix, whose sign turns."""
    complex_matrix = m + 1j * np.roll(m, 1, axis=0) * 0.3
    stack = np.stack([m, m @ m.T * 0.2])
    det = np.linalg.det(complex_matrix)
    return np.real(det * np.conj(det)) * 1e-3 + np.sum(np.linalg.det(stack)) + np.imag(det)


def test_determinants_of_invertible_matrices():
    m = np.array([[1.2, 0.3, -0.4], [0.1, 0.9, 0.5], [-0.3, 0.2, 1.1]])
    check_second_order(determinants, (m,))


def test_the_determinant_of_a_singular_matrix_is_refused_at_second_order():
    """Its first derivative (the adjugate) is right; its second is refused, not guessed."""
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])

    def objective(m):
        return np.linalg.det(m) ** 2 + np.linalg.det(m)

    np.testing.assert_allclose(srcad.grad(objective)(singular), [[4.0, -2.0], [-2.0, 1.0]])
    with pytest.raises(SrcadError, match="singular"):
        srcad.hessian(objective)(singular)

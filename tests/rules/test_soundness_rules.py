"""Soundness of rules on inputs that lack the property a routine assumes (issue 17).

A rule must give the derivative of what NumPy actually computes. Cholesky, eigh and
`svd(hermitian=True)` read one triangle of their argument (and the real part of its
diagonal): on a matrix that is not Hermitian, the entries they do not read have a zero
derivative. Every check perturbs every entry of a matrix that is *not* Hermitian, by central
finite differences, in both modes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.partials import log_base, power_slope, reciprocal, sign, strong_product
from srcad.testing import check_frule, check_rrule, finite_difference_jvp, finite_difference_vjp
from tests.conftest import sample


def lopsided(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    """A matrix (or stack) far from Hermitian whose either triangle, mirrored, is positive
    definite with eigenvalues far apart: a diagonal 3, 6, 9, ... plus small noise, then
    different noise added to each triangle (and to the imaginary part of the diagonal)."""
    n = shape[-1]
    base = np.diag(3.0 * np.arange(1, n + 1)) + 0.3 * sample(shape, seed, dtype)
    junk = sample(shape, seed + 1, dtype)
    return np.asarray(
        base
        + 0.5 * np.triu(junk, 1)
        - 0.4 * np.tril(junk.swapaxes(-1, -2), -1)
        + (0.7j * np.eye(n) if np.iscomplexobj(base) else 0),
        dtype=dtype,
    )


def eigh_values_lower(a):
    w, _v = np.linalg.eigh(a)
    return np.sum(w * np.arange(1.0, 1.0 + w.shape[-1]))


def eigh_values_upper(a):
    w, _v = np.linalg.eigh(a, "U")
    return np.sum(w * np.arange(1.0, 1.0 + w.shape[-1]))


def eigh_values_upper_keyword(a):
    w, _v = np.linalg.eigh(a, UPLO="u")
    return np.sum(w * w)


def eigh_function_lower(a):
    w, v = np.linalg.eigh(a)
    return np.sum(np.real(v * np.conj(v)) * np.sin(w)[..., np.newaxis, :] * np.cos(a.real))


def eigh_function_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(np.real((v * np.exp(0.1 * w)[..., np.newaxis, :]) @ np.conj(v).swapaxes(-1, -2)))


def cholesky_lower(a):
    return np.sum(np.abs(np.linalg.cholesky(a)) ** 2 * np.arange(1.0, 1.0 + a.shape[-1]))


def cholesky_upper(a):
    return np.sum(np.real(np.linalg.cholesky(a, upper=True)) * np.arange(1.0, 1.0 + a.shape[-1]))


def svd_hermitian_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False, hermitian=True) ** 3)


def svd_hermitian_product(a):
    u, s, vh = np.linalg.svd(a, hermitian=True)
    return np.sum(np.real((u * np.sqrt(s)[..., np.newaxis, :]) @ vh) * np.arange(1.0, 4.0))


TRIANGLE_READERS = [
    ("eigh-values-lower", eigh_values_lower, (3, 3), float),
    ("eigh-values-lower-complex", eigh_values_lower, (3, 3), complex),
    ("eigh-values-lower-stack", eigh_values_lower, (2, 3, 3), float),
    ("eigh-values-upper", eigh_values_upper, (3, 3), float),
    ("eigh-values-upper-complex", eigh_values_upper, (3, 3), complex),
    ("eigh-values-upper-keyword", eigh_values_upper_keyword, (4, 4), float),
    ("eigh-function-lower", eigh_function_lower, (3, 3), float),
    ("eigh-function-lower-complex", eigh_function_lower, (3, 3), complex),
    ("eigh-function-upper", eigh_function_upper, (3, 3), float),
    ("eigh-function-upper-stack", eigh_function_upper, (2, 3, 3), float),
    ("cholesky-lower", cholesky_lower, (3, 3), float),
    ("cholesky-lower-complex", cholesky_lower, (3, 3), complex),
    ("cholesky-lower-stack", cholesky_lower, (2, 4, 4), float),
    ("cholesky-upper", cholesky_upper, (3, 3), float),
    ("cholesky-upper-complex", cholesky_upper, (3, 3), complex),
    ("svd-hermitian-values", svd_hermitian_values, (3, 3), float),
    ("svd-hermitian-product", svd_hermitian_product, (3, 3), float),
]


@pytest.mark.parametrize(
    ("f", "shape", "dtype"), [pytest.param(*c[1:], id=c[0]) for c in TRIANGLE_READERS]
)
def test_triangle_readers_reverse_match_finite_differences(f: Any, shape: Any, dtype: Any) -> None:
    a = lopsided(shape, 0, dtype)
    assert not np.allclose(a, np.conj(a.swapaxes(-1, -2)))
    expected = finite_difference_vjp(f, (a,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(f)(a), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    ("f", "shape", "dtype"), [pytest.param(*c[1:], id=c[0]) for c in TRIANGLE_READERS]
)
def test_triangle_readers_forward_match_finite_differences(f: Any, shape: Any, dtype: Any) -> None:
    a = lopsided(shape, 0, dtype)
    a_dot = sample(shape, 5, dtype)
    _, y_dot = srcad.jvp(f, (a,), (a_dot,))
    expected = finite_difference_jvp(f, (a,), (a_dot,))
    np.testing.assert_allclose(y_dot, expected, rtol=1e-6, atol=1e-8)


def test_the_triangle_not_read_gets_a_zero_gradient() -> None:
    a = lopsided((4, 4), 3)
    lower, upper = srcad.grad(eigh_values_lower)(a), srcad.grad(eigh_values_upper)(a)
    assert np.all(np.triu(lower, 1) == 0.0) and np.any(np.tril(lower, -1) != 0.0)
    assert np.all(np.tril(upper, -1) == 0.0) and np.any(np.triu(upper, 1) != 0.0)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", [float, complex])
def test_cholesky_rules_on_a_matrix_that_is_not_hermitian(upper: bool, dtype: Any) -> None:
    """The factor is unique, so both rules are checked directly, entry by entry."""
    a = lopsided((3, 3), 7, dtype)
    check_rrule(np.linalg.cholesky, a, upper=upper)
    check_frule(np.linalg.cholesky, a, upper=upper)


SINGULAR = [
    pytest.param(np.array([[1.0, 2.0], [2.0, 4.0]]), id="rank-1"),
    pytest.param(np.zeros((3, 3)), id="zero"),
    pytest.param(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 1.0]]), id="rank-2"),
    pytest.param(np.stack([np.array([[1.0, 2.0], [2.0, 4.0]]), np.eye(2)]), id="stack"),
    pytest.param(np.array([[1.0, 2.0], [2.0, 4.0]]) * (1 + 1j), id="complex"),
]


@pytest.mark.parametrize("a", SINGULAR)
def test_det_of_a_singular_matrix(a: np.ndarray) -> None:
    """The determinant has a derivative (the adjugate) where the inverse does not exist."""
    check_rrule(np.linalg.det, a)
    check_frule(np.linalg.det, a)


def det_loss(a):
    return np.linalg.det(a) * 2.0 + np.sum(a)


def test_det_of_a_singular_matrix_in_both_modes() -> None:
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 1.0]])
    expected = finite_difference_vjp(det_loss, (a,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(det_loss)(a), expected, atol=1e-8)
    np.testing.assert_allclose(srcad.jacobian(det_loss, mode="forward")(a), expected, atol=1e-8)


def test_gradient_inside_a_loop_and_a_helper() -> None:
    def helper(m):
        return np.linalg.eigh(m, UPLO="U")[0]

    def f(a):
        total = 0.0
        for k in range(2):
            total = total + np.sum(helper(a + k * np.eye(3)) ** 2) + np.sum(np.linalg.cholesky(a))
        return total

    a = lopsided((3, 3), 11)
    np.testing.assert_allclose(
        srcad.grad(f)(a), finite_difference_vjp(f, (a,), 1.0, 0), rtol=1e-6, atol=1e-8
    )
    jac_fwd = srcad.jacobian(f, mode="forward")(a)
    np.testing.assert_allclose(jac_fwd, srcad.grad(f)(a), rtol=1e-9, atol=1e-12)


# --- powers and square roots at 0: NumPy's float semantics, never an exception -------------
#
# `x ** 0.5` at 0 has an infinite slope (Python's `0.0 ** -0.5` raises ZeroDivisionError, so
# the derivative must not compute it); where nothing depends on the value (a zero
# cotangent) or nothing moves it (a zero tangent), the derivative is 0, not `0 * inf`. The
# exponent's partial at base 0 is 0 (JAX's `pow_p`). Checked at Python floats, NumPy
# float64 scalars and arrays, by `grad`, `jvp` and `hessian`.


def sqrt_by_power(x):
    return x**0.5


def numpy_root(x):
    return np.sqrt(x)


def zero_base_power(y):
    return 0.0**y


def clipped_root(x):
    return np.maximum(x**0.5, 1.0)


def clipped_numpy_root(x):
    return np.maximum(np.sqrt(x), 1.0)


def clipped_math_root(x):
    return max(math.sqrt(x), 1.0)


def clipped_math_power(x):
    return max(math.pow(x, 0.25), 1.0)


def clipped_float_power(x):
    return np.maximum(np.float_power(x, 0.5), 1.0) + np.float_power(x, 0.0)


def zero_times_root(x):
    return np.where(x > 1.0, x**0.5, 1.0) + 0.0 * x


def squared(x):
    return x**2


def cubed_float(x):
    return x**3.0


def power(x, y):
    return x**y


def clipped_root_of_array(x):
    return np.sum(np.maximum(x**0.5, 1.0) + np.maximum(np.sqrt(x), 0.5) * 2.0)


def clipped_root_in_a_loop(x):
    total = 0.0
    for k in range(3):
        if k > 0:
            total = total + np.maximum((x * k) ** 0.5, 2.0) + np.maximum((x + 1.0) ** -0.5, x**0.25)
    return total


def scalar_forms(value: float) -> list[Any]:
    return [value, np.float64(value)]


def derivatives(f: Any, x: Any) -> tuple[Any, Any]:
    """The derivative of a function of one number by `grad`, and by `jvp` (tangent 1)."""
    return srcad.grad(f)(x), srcad.jvp(f, (x,), (type(x)(1.0),))[1]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("x", scalar_forms(0.0), ids=["float", "float64"])
@pytest.mark.parametrize(
    "f",
    [
        clipped_root,
        clipped_numpy_root,
        clipped_math_root,
        clipped_math_power,
        clipped_float_power,
        zero_times_root,
    ],
)
def test_a_zero_cotangent_or_tangent_stays_zero_at_an_infinite_slope(f: Any, x: Any) -> None:
    assert derivatives(f, x) == (0.0, 0.0)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("x", scalar_forms(0.0), ids=["float", "float64"])
def test_root_at_zero_has_an_infinite_slope(x: Any) -> None:
    assert derivatives(sqrt_by_power, x) == (math.inf, math.inf)
    assert derivatives(numpy_root, x) == (math.inf, math.inf)
    assert srcad.hessian(sqrt_by_power)(x) == -math.inf  # -x^(-3/2) / 4
    assert srcad.hessian(numpy_root)(x) == -math.inf


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("y", [0.5, 2.0, -0.0, np.float64(0.5)])
def test_exponent_at_base_zero_follows_jax(y: Any) -> None:
    """`0.0 ** y` is 0 for y > 0: its derivative in y is 0 (JAX's convention at base 0)."""
    assert derivatives(zero_base_power, y) == (0.0, 0.0)
    assert srcad.hessian(zero_base_power)(0.5) == 0.0


@pytest.mark.filterwarnings("error")
def test_power_of_two_variables_at_base_zero() -> None:
    grad = srcad.grad(power, wrt=(0, 1))
    assert grad(0.0, 0.5) == (math.inf, 0.0)
    assert grad(0.0, 2.0) == (0.0, 0.0)
    assert grad(0.0, 1.0) == (1.0, 0.0)
    assert srcad.jvp(power, (0.0, 2.0), (1.0, 1.0))[1] == 0.0
    assert srcad.jvp(power, (0.0, 0.5), (0.0, 1.0))[1] == 0.0


@pytest.mark.parametrize("x", [0.0, -2.0, 1.5, np.float64(-2.0)])
def test_integer_and_integral_exponents(x: Any) -> None:
    """`x ** 2` at 0 and negative bases with integral exponents, against finite
    differences (a negative base with a float exponent 3.0 included)."""
    for f in (squared, cubed_float):
        expected = finite_difference_vjp(f, (x,), 1.0, 0)
        assert derivatives(f, x) == pytest.approx((expected, expected), rel=1e-7, abs=1e-9)
        second = srcad.grad(srcad.grad(f))(float(x))
        assert srcad.hessian(f)(x) == pytest.approx(second)
        assert second == pytest.approx(2.0 if f is squared else 6.0 * x)
    grad = srcad.grad(power, wrt=(0, 1))(x, 3.0)
    assert grad[0] == pytest.approx(3.0 * x * x)
    if x < 0:  # `x ** y` is not real as y moves: NaN, as NumPy's log gives
        assert math.isnan(grad[1])


@pytest.mark.filterwarnings("error")
def test_arrays_with_zeros_in_both_modes() -> None:
    x = np.array([0.0, 0.25, 4.0, 0.0, 9.0])
    gradient = srcad.grad(clipped_root_of_array)(x)
    inside = x > 1.0
    expected = np.where(inside, 0.5 / np.sqrt(np.where(inside, x, 1.0)) * 3.0, 0.0)
    expected[1] = 1.0  # sqrt(0.25) = 0.5 ties in np.maximum: half of 2 * 0.5 / sqrt(0.25)
    np.testing.assert_allclose(gradient, expected)
    tangent = np.ones_like(x)
    _, y_dot = srcad.jvp(clipped_root_of_array, (x,), (tangent,))
    np.testing.assert_allclose(y_dot, np.sum(expected))


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("x", [0.0, np.float64(0.0), 0.5])
def test_inside_a_loop_and_a_branch(x: Any) -> None:
    # At 0 (where finite differences would step below the domain) only the two terms
    # `(x + 1) ** -0.5` count, each with slope -0.5; the clipped roots' infinite slopes do not.
    expected = -1.0 if x == 0 else finite_difference_vjp(clipped_root_in_a_loop, (x,), 1.0, 0)
    assert derivatives(clipped_root_in_a_loop, x) == pytest.approx((expected, expected))


def test_the_partials_helpers_have_rules() -> None:
    """`strong_product`, `reciprocal`, `power_slope` and `log_base` (srcad.partials), which
    rules and inlined derivatives call, have rules of their own, for second derivatives."""
    check_rrule(strong_product, 1.5, -0.7)
    check_frule(strong_product, np.array([1.5, 2.0]), np.array([-0.7, 3.0]))
    check_rrule(reciprocal, 1.5)
    check_frule(reciprocal, np.array([1.5, -2.0]))
    check_rrule(power_slope, 1.5, 0.7)
    check_frule(power_slope, np.array([1.5, 2.0]), 2.5)
    check_rrule(log_base, 1.5)
    check_frule(log_base, np.array([1.5, 2.0]))
    assert strong_product(math.inf, 0.0) == 0.0 and strong_product(0.0, -math.inf) == 0.0
    product = strong_product(np.array([math.inf, 2.0, 0.0]), np.array([0.0, 3.0, math.inf]))
    np.testing.assert_array_equal(product, [0.0, 6.0, 0.0])
    assert power_slope(0.0, 0.5) == math.inf and power_slope(0.0, -1.0) == -math.inf
    assert power_slope(0.0, 0.0) == 0.0 and power_slope(np.zeros(2), 0.0).tolist() == [0.0, 0.0]
    assert math.isnan(log_base(-1.0)) and log_base(0.0) == 0.0


@pytest.mark.parametrize("value", [2.5, -3.0, 0.0, -0.0, math.inf, -math.inf, math.nan])
@pytest.mark.parametrize("kind", [float, np.float64, np.float32, np.array])
def test_sign_is_numpys_sign(value: float, kind: Any) -> None:
    """`partials.sign`, the slope of `abs`, taken without NumPy's call for a Python float or
    a float64: the value and type `np.sign` gives (a float for a Python float), the sign
    of a zero included."""
    x = kind(value)
    got, want = sign(x), np.sign(x)
    assert type(got) is (float if kind is float else type(want))
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got) == np.signbit(want)


# --- shapes of tangents from outside srcad's rules: user rules and seeds ------------------
#
# A user's rule, or a seed passed to `vjp`/`jvp`, whose (co)tangent does not fit its value is
# refused with a `TangentShapeError` naming the rule (file and line) and the argument, on
# every path: compiled code calling the rule, `grad` of the primal itself, `srcad.rrule`,
# `vjp`, `jacobian`. A cotangent of a shape the argument broadcasts to is projected back.


def doubled(x):
    return x * 2.0


def wrong_shape(x):
    return x * 3.0


def broadcast_cotangent(x):
    return x * 3.0


def wrong_total(x):
    return np.sum(x) * 3.0


def forgets_the_function(x, y):
    return x * y


def configured(x):
    return x * 3.0


def lazy_wrong(x):
    return x * 3.0


@srcad.rrule.register(wrong_shape)
def wrong_shape_rrule(x):
    def wrong_shape_pullback(y_bar):
        return srcad.NoTangent(), np.ones(np.size(x) + 1) * 3.0  # one element too many

    return x * 3.0, wrong_shape_pullback


@srcad.frule.register(wrong_shape)
def wrong_shape_frule(dargs, x):
    return x * 3.0, np.ones(np.size(x) + 1)


@srcad.rrule.register(wrong_total)
def wrong_total_rrule(x):
    def wrong_total_pullback(y_bar):
        return srcad.NoTangent(), np.full(np.size(x) - 1, 3.0 * y_bar)  # one element short

    return np.sum(x) * 3.0, wrong_total_pullback


@srcad.rrule.register(broadcast_cotangent)
def broadcast_cotangent_rrule(x):
    def broadcast_cotangent_pullback(y_bar):
        # Shape (2, *x.shape): the argument broadcasts to it, so it is summed back; and
        # complex, for a real argument: the imaginary part is dropped.
        stacked = np.stack([np.asarray(y_bar) * 1.0, np.asarray(y_bar) * 2.0])
        return srcad.NoTangent(), stacked + 0j

    return x * 3.0, broadcast_cotangent_pullback


@srcad.rrule.register(forgets_the_function)
def forgets_the_function_rrule(x, y):
    def forgets_the_function_pullback(z_bar):
        return z_bar * y, z_bar * x  # no NoTangent() for the function: shifted by one

    return x * y, forgets_the_function_pullback


@srcad.rrule.register(configured, config=True)
def configured_rrule(config, x):
    def configured_pullback(y_bar):
        return srcad.NoTangent(), np.zeros(2)

    return x * 3.0, configured_pullback


@srcad.rrule.register(lazy_wrong)
def lazy_wrong_rrule(x):
    def lazy_wrong_pullback(y_bar):
        return srcad.NoTangent(), srcad.Thunk(lambda: np.ones(5))

    return x * 3.0, lazy_wrong_pullback


def sum_of_wrong_shape(x):
    return np.sum(wrong_shape(x))


def wrong_shape_in_a_loop(x):
    total = 0.0
    for k in range(2):
        if k > 0:
            total = total + np.sum(wrong_shape(x * k))
    return total


def sum_of_broadcast_cotangent(x):
    return np.sum(broadcast_cotangent(x))


def uses_forgets_the_function(x):
    return np.sum(forgets_the_function(x, 2.0 * x))


def sum_of_configured(x):
    return np.sum(configured(x))


def sum_of_lazy_wrong(x):
    return np.sum(lazy_wrong(x))


def _names_the_rule(error: Any, rule: Any) -> None:
    message = str(error.value)
    code = rule.__code__
    assert f"{rule.__qualname__} ({code.co_filename}:{code.co_firstlineno})" in message


@pytest.mark.parametrize("x", [np.ones(3), np.ones((2, 2)), 1.5])
def test_vjp_refuses_a_seed_of_the_wrong_shape(x: Any) -> None:
    y, back = srcad.vjp(doubled, x)
    with pytest.raises(srcad.TangentShapeError, match="vjp: the cotangent of the result"):
        back(np.ones(np.size(x) + 1))
    (gradient,) = back(np.ones(np.shape(y)) if np.ndim(y) else 1.0)
    np.testing.assert_allclose(gradient, 2.0 * np.ones(np.shape(x)))


def test_jvp_refuses_a_tangent_of_the_wrong_shape() -> None:
    with pytest.raises(srcad.TangentShapeError, match="jvp: the tangent of argument 0"):
        srcad.jvp(doubled, (np.ones(3),), (np.ones(2),))
    np.testing.assert_allclose(srcad.jvp(doubled, (np.ones(3),), (np.ones(3),))[1], 2.0)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda x: srcad.grad(sum_of_wrong_shape)(x), id="grad-compiled"),
        pytest.param(lambda x: srcad.value_and_grad(sum_of_wrong_shape)(x), id="value-and-grad"),
        pytest.param(lambda x: srcad.grad(wrong_shape_in_a_loop)(x), id="grad-in-a-loop"),
        pytest.param(lambda x: srcad.vjp(wrong_shape, x)[1](np.ones(3)), id="vjp-of-the-rule"),
        pytest.param(lambda x: srcad.rrule(wrong_shape, x)[1](np.ones(3)), id="srcad-rrule"),
        pytest.param(lambda x: srcad.jacobian(wrong_shape)(x), id="jacobian-reverse"),
    ],
)
def test_a_user_rrule_of_the_wrong_shape_is_refused_on_every_path(call: Any) -> None:
    with pytest.raises(srcad.TangentShapeError, match=r"argument 0 \(`x`\) that has shape") as e:
        call(np.ones(3))
    _names_the_rule(e, wrong_shape_rrule)


@pytest.mark.parametrize("value", [False, True])
def test_grad_of_a_function_with_a_wrong_rule_is_refused(value: bool) -> None:
    """`grad` of the rule's own primal calls the rule from its entry (no compiled code)."""
    grad = srcad.value_and_grad(wrong_total) if value else srcad.grad(wrong_total)
    with pytest.raises(srcad.TangentShapeError, match=r"has shape \(2,\)") as e:
        grad(np.ones(3))
    _names_the_rule(e, wrong_total_rrule)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda x: srcad.jvp(sum_of_wrong_shape, (x,), (x,)), id="jvp"),
        pytest.param(lambda x: srcad.jacobian(wrong_shape, mode="forward")(x), id="jacobian"),
        pytest.param(lambda x: srcad.hessian(sum_of_wrong_shape)(x), id="hessian"),
    ],
)
def test_a_user_frule_of_the_wrong_shape_is_refused(call: Any) -> None:
    with pytest.raises(srcad.TangentShapeError, match="returned a tangent that has shape") as e:
        call(np.ones(3))
    _names_the_rule(e, wrong_shape_frule)


@pytest.mark.parametrize("x", [np.array([0.5, -1.0, 2.0]), np.array([[1.0, 2.0]])])
def test_a_cotangent_the_argument_broadcasts_to_is_projected(x: np.ndarray) -> None:
    gradient = srcad.grad(sum_of_broadcast_cotangent)(x)
    assert gradient.dtype == np.float64 and gradient.shape == x.shape
    np.testing.assert_allclose(gradient, 3.0 * np.ones(x.shape))


def test_a_pullback_that_forgets_the_function_cotangent_is_refused() -> None:
    with pytest.raises(srcad.TangentShapeError, match="returned 2 cotangents") as e:
        srcad.grad(uses_forgets_the_function)(np.ones(3))
    _names_the_rule(e, forgets_the_function_rrule)


def test_a_configured_rule_is_named_as_written() -> None:
    with pytest.raises(srcad.TangentShapeError, match=r"argument 0 \(`x`\)") as e:
        srcad.grad(sum_of_configured)(np.ones(3))
    _names_the_rule(e, configured_rrule)


def test_a_thunk_is_checked_when_computed() -> None:
    with pytest.raises(srcad.TangentShapeError, match="has shape \\(5,\\)") as e:
        srcad.grad(sum_of_lazy_wrong)(np.ones(3))
    _names_the_rule(e, lazy_wrong_rrule)

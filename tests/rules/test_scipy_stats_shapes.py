"""The log cdfs (and cdfs) of `scipy.stats` `t`, `gamma` and `beta` in their shape
parameters (`rules/scipy_stats_shapes.py`, by quadrature; second derivatives through
`rules/scipy_stats_shape_rules.py`): the first against central differences of SciPy's
own `logcdf`, the second against central differences of srcad's first and second
differences of SciPy's, at small and large shapes and in both tails, in both modes,
mixed with the point, `loc` and `scale`, frozen, with constant shapes given by keyword;
no quadrature for a constant shape; the third derivative there refused, located; a
quadrature short of its tolerance refused, located. Skipped where SciPy is not installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import srcad  # noqa: E402
import srcad.rules.scipy_stats as scipy_stats  # noqa: E402
import srcad.rules.scipy_stats_shape_rules as shape_rules  # noqa: E402
import srcad.rules.scipy_stats_shapes as shapes_module  # noqa: E402
from srcad.testing import check_frule, check_rrule  # noqa: E402
from tests.conftest import difference  # noqa: E402

X = np.array([-2.5, -0.3, 0.4, 3.0])
UNIT = np.array([0.05, 0.3, 0.6, 0.97])


def _quantiles(dist: Any, *shapes: float) -> np.ndarray:
    """Points from far in the lower tail to far in the upper one."""
    return np.asarray(dist.ppf([1e-9, 0.02, 0.4, 0.6, 0.98, 1.0 - 1e-9], *shapes))


# (distribution, shapes): small and large shapes, `a < 1` (an integrand singular at 0),
# `b < 1` (at 1).
SHAPES = [
    pytest.param(stats.t, (0.4,), id="t-0.4"),
    pytest.param(stats.t, (3.5,), id="t-3.5"),
    pytest.param(stats.t, (300.0,), id="t-300"),
    pytest.param(stats.gamma, (0.05,), id="gamma-0.05"),
    pytest.param(stats.gamma, (2.5,), id="gamma-2.5"),
    pytest.param(stats.gamma, (800.0,), id="gamma-800"),
    pytest.param(stats.beta, (0.3, 0.5), id="beta-0.3-0.5"),
    pytest.param(stats.beta, (2.0, 3.0), id="beta-2-3"),
    pytest.param(stats.beta, (60.0, 0.7), id="beta-60-0.7"),
]


@pytest.mark.parametrize(("dist", "shapes"), SHAPES)
@pytest.mark.parametrize("method", ["logcdf", "cdf"])
def test_each_shape_matches_central_differences_of_scipy(dist: Any, shapes: tuple[float, ...],
                                                         method: str) -> None:  # fmt: skip
    x = _quantiles(dist, *shapes)
    function = getattr(dist, method)
    for index in range(len(shapes)):
        value = shapes[index]

        def in_shape(s: Any, index: int = index) -> Any:
            given = list(shapes)
            given[index] = s
            return function(x, *given)

        step = 1e-5 * value
        expected = (in_shape(value + step) - in_shape(value - step)) / (2.0 * step)
        args = list(shapes)
        _, pullback = srcad.rrule(function, x, *args)
        bar = pullback(np.ones(x.shape))[2 + index]
        np.testing.assert_allclose(srcad.unthunk(bar), np.sum(expected), rtol=1e-6, atol=1e-10)
        dots = [srcad.ZeroTangent()] * (2 + len(shapes))
        dots[2 + index] = 1.0
        _, y_dot = srcad.frule(tuple(dots), function, x, *args)
        np.testing.assert_allclose(y_dot, expected, rtol=1e-6, atol=1e-10)


RULE_CALLS = [
    pytest.param(stats.t.logcdf, (X, np.array([0.7, 2.0, 9.0, 40.0]), 0.2, 1.5), id="t.logcdf"),
    pytest.param(stats.t.cdf, (X, 3.0), id="t.cdf"),
    pytest.param(stats.gamma.logcdf, (X + 3.0, np.array([0.3, 1.0, 4.0, 20.0])), id="gamma"),
    pytest.param(stats.gamma.cdf, (X + 3.0, 1.7, 0.1, 2.0), id="gamma.cdf-loc-scale"),
    pytest.param(stats.beta.logcdf, (UNIT, 0.6, np.array([0.4, 2.0, 3.0, 8.0])), id="beta"),
    pytest.param(stats.beta.cdf, (2 * UNIT - 0.5, 2.0, 3.0, -0.6, 2.2), id="beta.cdf-loc-scale"),
]


@pytest.mark.parametrize(("f", "args"), RULE_CALLS)
@pytest.mark.parametrize("check", [check_rrule, check_frule])
def test_the_rules_in_every_argument_match_finite_differences(f: Any, args: Any,
                                                              check: Any) -> None:  # fmt: skip
    check(f, *args)


def likelihood(p: np.ndarray) -> Any:
    """Log cdfs and cdfs of every family with a shape, that shape differentiated, frozen
    too, with the point, `loc` and `scale`."""
    total = np.sum(stats.t.logcdf(X, p[0] ** 2 + 0.5, 0.1, 1.3))
    total = total + np.sum(stats.gamma.cdf(X + 3.0, p[1], 0.2, 1.5))
    total = total + np.sum(stats.beta.logcdf((X + 3.0) / 7.0, p[0], p[1] * p[0]))
    return total + np.sum(stats.t(p[1], p[0]).logcdf(X)) + stats.gamma(p[0]).cdf(p[1])


@pytest.mark.parametrize("p", [np.array([0.8, 2.3]), np.array([2.5, 0.4])])
def test_through_the_api_in_both_modes(p: np.ndarray) -> None:
    expected = difference(likelihood, (p,))
    np.testing.assert_allclose(srcad.grad(likelihood)(p), expected, rtol=1e-6)
    direction = np.array([1.0, -0.5])
    _, y_dot = srcad.jvp(likelihood, (p,), (direction,))
    np.testing.assert_allclose(y_dot, expected @ direction, rtol=1e-6)


def test_a_constant_shape_runs_no_quadrature(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shape's partial is computed where used: a derivative in the point alone
    never calls it (a thunk in reverse mode, a zero tangent in forward mode)."""

    def refused(*args: Any) -> Any:
        raise AssertionError("quadrature ran for a constant shape")

    monkeypatch.setattr(scipy_stats, "shape_partial", refused)

    def in_the_point(x: np.ndarray) -> Any:
        total = np.sum(stats.gamma.logcdf(x, 2.0) + stats.beta.cdf(x / 4.0, 0.5, 2.0))
        return total + np.sum(stats.t(3.0, 0.2).logcdf(x) + stats.beta(2.0, 3.0, 0.0, 4.0).cdf(x))

    x = np.array([0.5, 1.5, 3.0])
    expected = difference(in_the_point, (x,))
    np.testing.assert_allclose(srcad.grad(in_the_point)(x), expected, rtol=1e-6)
    _, y_dot = srcad.jvp(in_the_point, (x,), (np.ones(3),))
    np.testing.assert_allclose(y_dot, np.sum(expected), rtol=1e-6)


def _second_in_the_shapes(dist: Any, x: np.ndarray) -> tuple[Any, Any]:
    """srcad's first and second derivatives (Jacobians, forward over forward) of
    `dist.logcdf(x, *s)` at each point in the shapes `s`."""

    def pointwise(s: np.ndarray) -> Any:
        return dist.logcdf(x, *s)

    first = srcad.jacobian(pointwise, mode="forward")
    return first, srcad.jacobian(first, mode="forward")


@pytest.mark.parametrize(("dist", "shapes"), SHAPES)
def test_second_partials_in_the_shapes_match_differences(
    dist: Any, shapes: tuple[float, ...]
) -> None:
    """At every point from tail to tail, the second partials in the shapes (`a` with `b`
    too) against central differences of srcad's first (tight) and second differences of
    SciPy's own log cdf (looser: a difference of differences)."""
    x = _quantiles(dist, *shapes)
    s = np.array(shapes)
    first, second = _second_in_the_shapes(dist, x)
    found = second(s)
    steps = 1e-5 * s
    by_first = np.stack([(first(s + h) - first(s - h)) / (2.0 * h[k])
                         for k, h in enumerate(np.diag(steps))], axis=-1)  # fmt: skip
    np.testing.assert_allclose(found, by_first, rtol=1e-6, atol=1e-9)
    assert np.all(np.isfinite(found))

    def scipy_at(di: float, dj: float, i: int, j: int) -> Any:
        moved = s.copy()
        moved[i] += di
        moved[j] += dj
        return dist.logcdf(x, *moved)

    for i in range(len(s)):
        for j in range(len(s)):
            hi, hj = 1e-3 * s[i], 1e-3 * s[j]
            twice = scipy_at(hi, hj, i, j) - scipy_at(hi, -hj, i, j)
            twice = twice - scipy_at(-hi, hj, i, j) + scipy_at(-hi, -hj, i, j)
            np.testing.assert_allclose(found[:, i, j], twice / (4.0 * hi * hj), rtol=5e-4,
                                       atol=1e-6)  # fmt: skip


@pytest.mark.parametrize(("dist", "shapes"), SHAPES)
def test_mixed_partials_in_a_shape_and_the_point_match_differences(
    dist: Any, shapes: tuple[float, ...]
) -> None:
    """`∂x ∂θ log F`, each point moved by a step of its own size (its distance to the
    support's ends), against central differences of srcad's first derivative in the
    shape (reverse over forward: `test_second_derivatives_through_the_api_in_both_modes`)."""
    x = _quantiles(dist, *shapes)[1:-1]
    size = np.minimum(x, 1.0 - x) if dist is stats.beta else np.abs(x)

    def moved(p: np.ndarray) -> Any:
        return dist.logcdf(x + p[-1] * size, *p[:-1])

    p = np.array([*shapes, 0.0])
    first = srcad.jacobian(moved, mode="forward")
    found = srcad.jacobian(first, mode="forward")(p)
    h = np.zeros(len(p))
    h[-1] = 1e-6
    expected = (first(p + h) - first(p - h)) / 2e-6
    np.testing.assert_allclose(found[:, :, -1], expected, rtol=1e-6, atol=1e-9)


def family_likelihood(p: np.ndarray) -> Any:
    """The shapes differentiated with the point, `loc` and `scale`, through `cdf` and
    `logcdf`, frozen too, and constant shapes given by keyword."""
    total = np.sum(stats.t.logcdf(X, p[0] ** 2 + 0.5, 0.1, 1.3 + p[1]))
    total = total + np.sum(stats.gamma.cdf(X + 3.0, p[1], 0.1 * p[0], 1.5))
    total = total + np.sum(stats.beta.logcdf((X + 3.0) / 7.0, p[0], p[1] * p[0]))
    total = total + np.sum(stats.beta.cdf(UNIT * p[0] / 2.0, p[1], 2.0))
    total = total + np.sum(stats.t(p[1], p[0]).logcdf(X)) + stats.gamma(p[0]).cdf(p[1])
    return total + np.sum(stats.t.logcdf(X * p[0], df=3.0) + stats.gamma(a=2.0).cdf(p[1] * X + 3.0))


def test_second_derivatives_through_the_api_in_both_modes() -> None:
    """`hessian`, `jacobian(grad(f))` in both modes, the Hessian-vector product and
    `jacobian(jacobian(f))`, against central differences of srcad's gradient."""
    p = np.array([0.8, 2.3])
    gradient = srcad.grad(family_likelihood)
    expected = difference(gradient, (p,))
    np.testing.assert_allclose(srcad.hessian(family_likelihood)(p), expected, rtol=1e-6)
    for mode in ("reverse", "forward"):
        found = srcad.jacobian(gradient, mode=mode)(p)
        np.testing.assert_allclose(found, expected, rtol=1e-6)
    twice = srcad.jacobian(srcad.jacobian(family_likelihood, mode="forward"), mode="forward")
    np.testing.assert_allclose(twice(p), expected, rtol=1e-6)
    v = np.array([0.3, -1.2])
    product = srcad.hessian_vector_product(family_likelihood)(p, v)
    np.testing.assert_allclose(product, expected @ v, rtol=1e-6)


def test_a_constant_shape_runs_no_quadrature_at_second_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The second derivative in the point, `loc` and `scale` never computes the shape's
    integrals, first or second."""

    def refused(*args: Any) -> Any:
        raise AssertionError("quadrature ran for a constant shape")

    for name in ("shape_partial", "shape_second_partial", "shape_partial_in_point"):
        monkeypatch.setattr(shape_rules, name, refused)
    monkeypatch.setattr(scipy_stats, "shape_partial", refused)

    def in_the_point(x: np.ndarray) -> Any:
        total = np.sum(stats.gamma.logcdf(x, 2.0, 0.1 * x[0]) + stats.beta.cdf(x / 4.0, 0.5, 2.0))
        return total + np.sum(stats.t(3.0, 0.2).logcdf(x) + stats.t.logcdf(x, df=4.0))

    x = np.array([0.5, 1.5, 3.0])
    expected = difference(srcad.grad(in_the_point), (x,))
    np.testing.assert_allclose(srcad.hessian(in_the_point)(x), expected, rtol=1e-6)
    found = srcad.jacobian(srcad.jacobian(in_the_point, mode="forward"), mode="forward")(x)
    np.testing.assert_allclose(found, expected, rtol=1e-6)


def in_the_shape(p: np.ndarray) -> Any:
    return np.sum(stats.t.logcdf(X, p[0] ** 2 + 2.0))


SOURCE = "return np.sum(stats.t.logcdf(X, p[0] ** 2 + 2.0))"
LINE = in_the_shape.__code__.co_firstlineno + 1


@pytest.mark.parametrize("order", ["grad", "jacobian-of-hessian", "jacobian"])
def test_the_third_derivative_in_a_shape_is_refused_located(order: str) -> None:
    p = np.array([0.3, 1.1])
    with pytest.raises(srcad.SrcadError, match=r"third derivative of `t\.logcdf` in its shape"
                       ) as raised:  # fmt: skip
        if order == "grad":
            srcad.grad(lambda q: srcad.hessian(in_the_shape)(q)[0, 0])(p)
        elif order == "jacobian-of-hessian":
            srcad.jacobian(srcad.hessian(in_the_shape))(p)
        else:
            forward = srcad.jacobian(in_the_shape, mode="forward")
            twice = srcad.jacobian(forward, mode="forward")
            srcad.jacobian(twice, mode="forward")(p)
    assert f"{__file__}:{LINE}  {SOURCE}" in str(raised.value)  # located: the user's line


def test_a_quadrature_short_of_its_tolerance_is_refused_located(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shapes_module, "_TOLERANCE", 1e-300)  # (no estimate meets it)
    p = np.array([0.3, 1.1])
    for mode in ("reverse", "forward"):
        with pytest.raises(srcad.SrcadError, match=r"scipy\.integrate\.quad evaluated") as raised:
            if mode == "reverse":
                srcad.grad(in_the_shape)(p)
            else:
                srcad.jvp(in_the_shape, (p,), (np.ones(2),))
        assert f"{__file__}:{LINE}  {SOURCE}" in str(raised.value)  # located: the user's line


@pytest.mark.parametrize("mode", ["hessian", "forward-over-forward"])
def test_a_second_derivative_short_of_its_tolerance_is_refused_located(
    monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The first derivative's integrals met the tolerance; the second's do not."""
    second = shapes_module._two

    def strict(*args: Any) -> float:
        with monkeypatch.context() as patch:
            patch.setattr(shapes_module, "_TOLERANCE", 1e-300)  # (no estimate meets it)
            return second(*args)

    monkeypatch.setattr(shapes_module, "_two", strict)
    p = np.array([0.3, 1.1])
    message = r"second derivative of `t\.logcdf` in its shape parameter is an integral that "
    with pytest.raises(srcad.SrcadError, match=message + r"scipy\.integrate\.quad") as raised:
        if mode == "hessian":
            srcad.hessian(in_the_shape)(p)
        else:
            srcad.jacobian(srcad.jacobian(in_the_shape, mode="forward"), mode="forward")(p)
    assert f"{__file__}:{LINE}  {SOURCE}" in str(raised.value)  # located: the user's line


def test_deferred_cotangents_stay_unread_when_summed_and_add_up_flat() -> None:
    """`Deferred`, a shape's cotangent by quadrature: a sum with it (on either side, with
    an array, a float or a zero) computes nothing until read, and a loop's thousands of
    terms are added one by one, not through as many nested calls (a RecursionError)."""
    computed = []

    def leaf() -> Any:
        def compute() -> np.ndarray:
            computed.append(1)
            return np.array([1.0, 2.0])

        return shape_rules.Deferred(compute)

    total = srcad.ZeroTangent() + (0.5 + (np.zeros(2) + leaf()))
    for _ in range(5000):
        total = total + leaf()
    assert not computed
    assert isinstance(total + srcad.NotImplementedTangent("unknown", "here"),
                      srcad.NotImplementedTangent)  # fmt: skip
    np.testing.assert_allclose(srcad.unthunk(total), [5001.5, 10002.5])
    assert len(computed) == 5001
    np.testing.assert_allclose(np.multiply(total, 2.0), [10003.0, 20005.0])  # (computed once)
    assert len(computed) == 5001

"""The log cdfs (and cdfs) of `scipy.stats` `t`, `gamma` and `beta` in their shape
parameters (`rules/scipy_stats_shapes.py`, by quadrature, at first order): against central
differences of SciPy's own `logcdf` in the shape, at small and large shapes and in both
tails, in both modes; the second derivative there refused by name; a quadrature short of
its tolerance refused, located. Skipped where SciPy is not installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import srcad  # noqa: E402
import srcad.rules.scipy_stats as scipy_stats  # noqa: E402
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


def in_the_shape(p: np.ndarray) -> Any:
    return np.sum(stats.t.logcdf(X, p[0] ** 2 + 2.0))


SOURCE = "return np.sum(stats.t.logcdf(X, p[0] ** 2 + 2.0))"
LINE = in_the_shape.__code__.co_firstlineno + 1


@pytest.mark.parametrize("order", ["hessian", "forward-over-reverse"])
def test_the_second_derivative_in_a_shape_is_refused_by_name(order: str) -> None:
    p = np.array([0.3, 1.1])
    with pytest.raises(srcad.SrcadError, match=r"second derivative of `t\.logcdf` in its shape"
                       ) as raised:  # fmt: skip
        if order == "hessian":
            srcad.hessian(in_the_shape)(p)
        else:
            srcad.jacobian(srcad.grad(in_the_shape), mode="forward")(p)
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

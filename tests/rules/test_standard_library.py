"""Rules for `math.prod`, `math.fsum`, `math.dist`, `statistics`' averages and spreads,
`functools.reduce`, `itertools.starmap` and `itertools.accumulate`
(`rules/standard_library.py`): gradients, tangents and Hessians against central
differences, over lists, tuples, generators and arrays, with user functions and the
`operator` module's; the values and exceptions Python's own."""

from __future__ import annotations

import functools
import itertools
import math
import operator
import statistics
import sys

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from tests.conftest import difference
from tests.rules.test_higher_order import check_second_order

X = np.array([0.3, 0.7, 1.6])


def _times_plus(a, b):
    return a * b + 1.0


class _Scale:
    """A callable object holding a differentiated value."""

    def __init__(self, k):
        self.k = k

    def __call__(self, a, b):
        return a * self.k + b


def _scaled_product(k, a, b):
    return k * a * b + a


CASES = {
    "prod list": lambda x: math.prod([x[0], x[1], 2.0]),
    "prod array start": lambda x: math.prod(x * x, start=3.0),
    "prod generator": lambda x: math.prod(v + 1.0 for v in x),
    "fsum": lambda x: math.fsum([x[0], x[1] * x[2], 1e-17]),
    "fsum array": lambda x: math.fsum(x * x),
    "dist": lambda x: math.dist([x[0], 0.0, x[2]], (x[1], 1.0, 0.5)),
    "mean tuple": lambda x: statistics.mean((x[0], x[1] ** 2)),
    "mean generator": lambda x: statistics.mean(v * v for v in x),
    "mean array": lambda x: statistics.mean(x) ** 2,
    "fmean": lambda x: statistics.fmean([x[0], x[1], x[2] ** 3]),
    "fmean weights": lambda x: statistics.fmean(x, [x[1], 2.0, 1.0]),
    "variance": lambda x: statistics.variance([x[0], x[1], 1.0, x[2]]),
    "variance xbar": lambda x: statistics.variance(x, x[0]),
    "pvariance": lambda x: statistics.pvariance(x * x),
    "pvariance mu": lambda x: statistics.pvariance(list(x), 0.5),
    "stdev": lambda x: statistics.stdev(v for v in x),
    "pstdev": lambda x: statistics.pstdev((x[0], x[1], 1.0)),
    "median odd": lambda x: statistics.median([x[0], x[1] ** 2, x[2]]),
    "median even": lambda x: statistics.median(x * [1.0, 2.0, 3.0]) * statistics.median(x[:2]),
    "median_low": lambda x: statistics.median_low(list(x * x)),
    "median_high": lambda x: statistics.median_high(v for v in x),
    "geometric_mean": lambda x: statistics.geometric_mean([x[0], x[1] + 1.0, x[2]]),
    "harmonic_mean": lambda x: statistics.harmonic_mean(x),
    "harmonic_mean weights": lambda x: statistics.harmonic_mean([x[0], x[1]], [x[2], 1.0]),
    "reduce operator": lambda x: functools.reduce(operator.mul, x),
    "reduce initial": lambda x: functools.reduce(_times_plus, x, x[1]),
    "reduce lambda list": lambda x: functools.reduce(lambda a, b: a * b - b, [x[2], x[0], x[1]]),
    "reduce partial": lambda x: functools.reduce(functools.partial(_times_plus), x, 2.0),
    "reduce partial of x": lambda x: functools.reduce(functools.partial(_scaled_product, x[0]), x),
    "reduce object of x": lambda x: functools.reduce(_Scale(x[2]), x, 1.0),
    "starmap partial of x": lambda x: sum(
        itertools.starmap(functools.partial(_scaled_product, x[2]), [(x[0], x[1]), (x[1], x[2])])
    ),
    "accumulate partial of x": lambda x: sum(
        itertools.accumulate(x, functools.partial(_scaled_product, x[1]))
    ),
    "starmap": lambda x: sum(itertools.starmap(operator.mul, [(x[0], x[1]), (x[2], x[2])])),
    "starmap lambda": lambda x: sum(
        itertools.starmap(lambda a, b: a**b, ((v, w) for v, w in zip(x, x[::-1], strict=True)))
    ),
    "accumulate": lambda x: sum(v * v for v in itertools.accumulate(x)),
    "accumulate func": lambda x: list(itertools.accumulate(x, operator.mul))[-1],
    "accumulate initial": lambda x: sum(itertools.accumulate(x, _times_plus, initial=2.0)),
}


def _needs_weights(name):
    if name == "fmean weights" and sys.version_info < (3, 11):
        pytest.skip("statistics.fmean takes weights from Python 3.11")


@pytest.mark.parametrize("name", CASES)
def test_gradient_and_tangent_against_differences(name):
    _needs_weights(name)
    f = CASES[name]
    expected = difference(f, (X,))
    np.testing.assert_allclose(srcad.grad(f)(X), expected, rtol=1e-6, atol=1e-8)
    v = np.array([1.0, -0.5, 0.25])
    value, y_dot = srcad.jvp(f, (X,), (v,))
    np.testing.assert_allclose(y_dot, expected @ v, rtol=1e-6, atol=1e-8)
    assert value == f(X)  # (exactly Python's: `fsum` exactly rounded, `mean` exact)


# (each function's second derivatives are also walked by `test_higher_order.py`)
SECOND_ORDER = [
    "mean generator", "variance xbar", "median even", "harmonic_mean weights",
    "reduce initial", "reduce partial of x", "reduce object of x", "starmap partial of x",
    "accumulate partial of x", "accumulate initial",
]  # fmt: skip


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_against_differences_of_the_gradient(name):
    _needs_weights(name)
    check_second_order(CASES[name], (X,))


def test_the_value_is_pythons_own_where_the_definition_rounds_otherwise():
    data = [0.1, 0.2, 0.3]  # (`sum` gives 0.6000000000000001, `sum(data) / 3` 0.20000000000000004)

    def f(x):
        return math.fsum([x * v for v in data]) * statistics.mean([x * v for v in data])

    value, gradient = srcad.value_and_grad(f)(1.0)
    assert value == f(1.0) == 0.6 * 0.2
    assert gradient == pytest.approx(2.0 * 0.6 * 0.2)


@pytest.mark.parametrize(
    ("f", "error"),
    [
        (lambda x: statistics.mean([]) + x, statistics.StatisticsError),
        (lambda x: statistics.variance([x]), statistics.StatisticsError),
        (lambda x: statistics.stdev([x]), statistics.StatisticsError),
        (lambda x: statistics.pvariance([]) + x, statistics.StatisticsError),
        (lambda x: functools.reduce(operator.add, [v for v in [x] if v > 5.0]), TypeError),
        (lambda x: math.dist([x, 1.0], [x]), ValueError),
        (lambda x: math.prod([x, 2.0], 3.0), TypeError),  # (`start` is keyword-only)
        (lambda x: sum(itertools.accumulate([x, 2.0], operator.add, 1.0)), TypeError),
        (lambda x: functools.reduce(operator.add, [x, 2.0], 1.0, 4.0), TypeError),
        (lambda x: statistics.median([]) + x, statistics.StatisticsError),
        (lambda x: statistics.harmonic_mean([x, -1.0]), statistics.StatisticsError),
    ],
)
def test_pythons_exceptions(f, error):
    with pytest.raises(error):
        srcad.grad(f)(0.5)
    with pytest.raises(error):
        srcad.jvp(f, (0.5,), (1.0,))
    # Through the definition alone (`_validated`); a call Python refuses for its
    # arguments may be refused by srcad calling the definition's forward rule instead.
    with pytest.raises((error, SrcadError)):
        srcad.hessian(f)(0.5)


def test_reduce_of_nothing_with_an_initial_value_is_that_value():
    def f(x):
        return functools.reduce(operator.mul, [v for v in [x] if v > 5.0], x * x)

    assert srcad.grad(f)(0.5) == pytest.approx(1.0)


def test_an_iterator_passed_to_the_rule_is_refused():
    # (srcad makes the iterators of the code it compiles lists; one reaching the rule
    # otherwise would be read twice: for the value and for the derivative)
    with pytest.raises(SrcadError, match="iterator"):
        srcad.rrule(statistics.fmean, iter([1.0, 2.0]))
    with pytest.raises(SrcadError, match="iterator"):
        srcad.frule((srcad.NoTangent(), srcad.ZeroTangent()), math.fsum, iter([1.0, 2.0]))


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # (`statistics`' own)
@pytest.mark.parametrize("mean", [statistics.harmonic_mean, statistics.geometric_mean])
def test_a_mean_at_a_zero_item_is_refused_or_raises_pythons_error(mean):
    def f(x):
        return mean([x, 0.0, 2.0])

    try:
        expected = f(0.5)
    except statistics.StatisticsError:  # (`geometric_mean` before Python 3.12)
        with pytest.raises(statistics.StatisticsError):
            srcad.grad(f)(0.5)
        return
    assert expected == 0.0
    with pytest.raises(SrcadError, match="zero"):
        srcad.grad(f)(0.5)
    with pytest.raises(SrcadError, match="zero"):
        srcad.hessian(lambda x: mean(x * x))(np.array([0.0, 0.7]))


def _accumulated(x, initial):
    return sum(v * v for v in itertools.accumulate([x, 2.0 * x], _times_plus, initial=initial))


@pytest.mark.parametrize(
    "f",
    [
        lambda x: sum(itertools.accumulate([x, 2.0], initial=x * x)),
        lambda x: _accumulated(x, np.sin(x)),
        lambda x: _accumulated(x, None if x > 0.0 else x),  # (None: no initial item)
        lambda x: _accumulated(x, x if x > 0.0 else None),
        lambda x: list(itertools.accumulate((v * x for v in [1.0, 3.0]), initial=3.0))[-1] ** 2,
    ],
)
def test_accumulates_initial_is_differentiated_first_among_the_items(f):
    """`accumulate(xs, f, initial=v)` runs as `accumulate(with_initial(v, xs), f)`: `v`
    first, where it is not None."""
    for x in (0.5, -0.7):
        expected = difference(f, (x,))
        value, gradient = srcad.value_and_grad(f)(x)
        assert value == f(x)
        np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(srcad.jvp(f, (x,), (1.0,))[1], expected, rtol=1e-6)
        np.testing.assert_allclose(
            srcad.hessian(f)(x), difference(srcad.grad(f), (x,)), rtol=1e-5, atol=1e-7
        )


def test_math_prods_start_is_differentiated_among_the_items():
    """`math.prod(xs, start=s)` runs as `math.prod([s, *xs])`: `s` gets its derivative."""

    def f(x):
        return math.prod([x, 2.0], start=x * x)

    np.testing.assert_allclose(srcad.grad(f)(0.5), 6.0 * 0.5**2)
    np.testing.assert_allclose(srcad.jvp(f, (0.5,), (1.0,))[1], 6.0 * 0.5**2)
    np.testing.assert_allclose(srcad.hessian(f)(0.5), 12.0 * 0.5)


def test_the_distance_of_equal_points_has_derivative_zero_as_the_norm_has():
    def f(x):
        return math.dist([x[0], 1.0, x[1]], [x[0], 1.0, x[1]])

    x = np.array([0.3, -0.2])
    np.testing.assert_array_equal(srcad.grad(f)(x), np.zeros(2))
    assert srcad.jvp(f, (x,), (np.ones(2),)) == (0.0, 0.0)


def test_third_derivatives_through_the_definitions():
    def f(x):
        return statistics.mean(v**3 for v in x) * functools.reduce(operator.mul, x)

    third = srcad.jacobian(srcad.hessian(f))(X)
    expected = difference(srcad.hessian(f), (X,))
    np.testing.assert_allclose(third, expected, rtol=1e-5, atol=1e-6)

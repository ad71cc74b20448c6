"""Second derivatives through every primitive srcad has a forward rule for: the Hessian
(reverse mode over the generated forward rule), the Hessian-vector product, and the
Jacobian of the gradient in both modes, each against central differences of `srcad.grad`.

A walk over the registry (`test_every_forward_rule_is_walked`) fails on a primitive that
has a forward rule but neither an objective here nor a reason in `REFUSED`."""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.registry import REGISTRY, Linearity, Origin
from srcad.testing import finite_difference_jvp, inner
from tests.rules import higher_order_cases as cases
from tests.rules import higher_order_cases_issue20 as issue20

# The primitives whose second derivatives srcad refuses (with a SrcadError), and why: none
# now. (The refusals at particular points, a singular matrix for `det`, equal eigenvalues for
# `eigh`, are tested with their primitives: test_higher_order_definitions.py and
# test_higher_order_factorisations.py.)
REFUSED: dict[Any, str] = {}


def hessian_by_differences(f: Any, args: tuple[Any, ...]) -> np.ndarray:
    """The Hessian with respect to the first argument: columns of central differences of
    srcad's gradient (itself checked against differences of `f` elsewhere)."""
    gradient = srcad.grad(f)
    x = args[0]
    columns = []
    for index in range(int(np.size(x))):
        basis = np.zeros(np.shape(x))
        basis.reshape(-1)[index] = 1.0
        direction = basis if isinstance(x, np.ndarray) else float(basis)
        rest = tuple(srcad.ZeroTangent() for _ in args[1:])
        columns.append(np.asarray(finite_difference_jvp(gradient, args, (direction, *rest))))
    return np.stack(columns, axis=-1).reshape(np.shape(x) + np.shape(x))


def check_second_order(f: Any, args: tuple[Any, ...]) -> None:
    expected = hessian_by_differences(f, args)
    tolerance = {"rtol": 1e-5, "atol": 1e-7}
    np.testing.assert_allclose(srcad.hessian(f)(*args), expected, **tolerance)
    v = np.cos(np.arange(np.size(args[0])) + 1.0).reshape(np.shape(args[0]))
    v = v if isinstance(args[0], np.ndarray) else float(v)
    product = srcad.hessian_vector_product(f)(*args, v)
    np.testing.assert_allclose(product, np.tensordot(expected, v, np.ndim(v)), **tolerance)
    for mode in ("reverse", "forward"):
        jacobian = srcad.jacobian(srcad.grad(f), mode=mode)(*args)
        np.testing.assert_allclose(jacobian, expected, **tolerance)


def elementwise_cases() -> dict[Any, tuple[Any, tuple[Any, ...]]]:
    """An objective for each ufunc and `math` function with a forward rule."""
    found: dict[Any, tuple[Any, tuple[Any, ...]]] = {}
    # SciPy's functions differentiated in their last argument only (a Bessel function's
    # order, an incomplete gamma function's `a`: refused), where SciPy's rules are installed.
    special_functions = sys.modules.get("srcad.rules.scipy_special_functions")
    in_point_only = getattr(special_functions, "IN_POINT_ONLY", frozenset())
    for rule in REGISTRY.forward_rules():
        primal = rule.primal
        if isinstance(primal, np.ufunc) and primal.nin == 1:
            shift = 1.5 if primal is np.arccosh else 0.0
            found[primal] = (cases.unary(primal), (cases.POSITIVE + shift,))
        elif isinstance(primal, np.ufunc) and primal.nin == 2 and primal in in_point_only:
            found[primal] = (cases.in_second(primal, 2), (cases.POSITIVE,))
        elif isinstance(primal, np.ufunc) and primal.nin == 2:
            found[primal] = (cases.binary(primal), (cases.VECTOR,))
        elif getattr(primal, "__module__", None) == "math" or primal in MATH_BINARY:
            if primal in MATH_BINARY:
                found[primal] = (cases.scalar_binary(primal), (0.6, 0.4))
            else:
                at = 1.5 if primal is math.acosh else 0.6
                found[primal] = (cases.scalar_unary(primal), (at,))
    return found


MATH_BINARY = {math.atan2, math.hypot, math.pow}
CASES = {
    **elementwise_cases(),
    **cases.BY_PRIMITIVE,
    **{f: (objective, (cases.VECTOR,)) for f, (objective, _) in issue20.BY_PRIMITIVE.items()},
}


def label(primal: Any) -> str:
    return f"{getattr(primal, '__module__', None) or 'numpy'}.{getattr(primal, '__name__', primal)}"


def test_every_forward_rule_is_walked():
    """Every forward rule of the library, but those `rules/second_order.py` builds (forward
    rules of forward rules, reached by the third derivatives of `test_higher_order_api`)
    and SciPy's."""
    rules = [r for r in REGISTRY.forward_rules() if r.rule_set != "second_order"]
    rules = [r for r in rules if r.origin is not Origin.USER]  # other tests register some
    # SciPy's rules are installed once a test imports SciPy; their second derivatives are
    # checked by their own tests (`test_scipy_*.py`: `test_through_the_api_to_second_order`).
    rules = [r for r in rules if not r.rule_set.startswith("scipy_")]
    # A cast to float32 rounds below what differences resolve: test_numpy_arrangement.py.
    rules = [r for r in rules if r.primal is not np.float32]
    missing = [label(r.primal) for r in rules if r.primal not in CASES]
    assert not missing, missing


@pytest.mark.parametrize("primal", [p for p in CASES if p not in REFUSED], ids=label)
def test_second_derivatives_match_differences_of_the_gradient(primal):
    objective, args = CASES[primal]
    check_second_order(objective, args)


@pytest.mark.parametrize("primal", list(REFUSED), ids=label)
def test_a_refused_second_derivative_is_an_error_not_a_number(primal):
    objective, args = CASES[primal]
    np.testing.assert_allclose(srcad.grad(objective)(*args), srcad.grad(objective)(*args))
    with pytest.raises(SrcadError):
        srcad.hessian(objective)(*args)


@pytest.mark.parametrize("objective", cases.NAMED, ids=lambda f: f.__name__)
def test_the_functions_issue_20_names(objective):
    check_second_order(objective, (cases.SIGNED,))


def piecewise_linear() -> list[Any]:
    return [p.function for p in REGISTRY.primitives() if p.linearity is Linearity.PIECEWISE_LINEAR]


@pytest.mark.parametrize(
    ("primal", "args"),
    [
        (np.maximum, (np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0]))),
        (np.minimum, (np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0]))),
        (np.clip, (np.array([0.0, 0.5, 1.0, 2.0]), 0.5, 1.0)),
        (np.max, (np.array([[1.0, 2.0], [2.0, 2.0]]), 0)),
        (np.amin, (np.array([[1.0, 1.0], [0.0, 2.0]]),)),
        (np.median, (np.array([1.0, 2.0, 2.0, 3.0]),)),
        (np.absolute, (np.array([-1.0, 0.0, 2.0]),)),
        (np.where, (np.array([True, False]), np.array([1.0, 2.0]), np.array([3.0, 4.0]))),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_piecewise_linear_pullback_is_the_adjoint_of_the_tangent_at_ties(primal, args):
    """At a tie (a kink) the pullback of the tangent must be the adjoint of the tangent map
    the forward rule chose, so that second derivatives through it are one linear map."""
    assert primal in piecewise_linear()
    rng = np.random.default_rng(3)
    dots = tuple(
        rng.standard_normal(np.shape(a)) if np.asarray(a).dtype.kind == "f" else srcad.NoTangent()
        for a in args
    )
    (y, y_dot), pullback = REGISTRY.rrule_for(REGISTRY.frule_for(primal).rrule).rrule(
        (srcad.NoTangent(), *dots), *args
    )
    y_dot_bar = rng.standard_normal(np.shape(y))
    _, dargs_bar, *_ = pullback((srcad.ZeroTangent(), y_dot_bar))
    bars = list(dargs_bar)[1:]
    lhs = sum(inner(b, d) for b, d in zip(bars, dots, strict=True) if isinstance(d, np.ndarray))
    assert lhs == pytest.approx(inner(y_dot_bar, y_dot), rel=1e-12, abs=1e-12)


COMPLEX = np.array([1.0 + 2.0j, -0.5j])


def complex_where(x):
    return np.sum(np.abs(np.where(x > 0.0, x * COMPLEX, 1.0)) ** 2)


def test_a_complex_argument_is_refused_by_a_piecewise_linear_second_derivative():
    """`np.where` is registered piecewise linear, with no definition for complex numbers."""
    with pytest.raises(SrcadError, match="real arguments only"):
        srcad.hessian(complex_where)(np.array([0.3, 0.4]))


def complex_absolute(x):
    return np.sum(np.abs(x * COMPLEX + 1.0) ** 3)


def complex_builtin_abs(x):
    return abs(x[0] * COMPLEX[0] + 1.0) ** 3 + abs(x[1] * x[0] * 1j - 0.5) ** 2


@pytest.mark.parametrize("objective", [complex_absolute, complex_builtin_abs],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_the_absolute_value_of_a_complex_argument_goes_through_its_definition(objective):
    """|z| of a complex z is smooth but at 0, not piecewise linear: its second derivatives
    are those of `np.hypot` of its parts."""
    check_second_order(objective, (np.array([0.3, 0.4]),))


def test_forward_over_forward_of_the_absolute_value_of_a_complex_argument():
    """`jacobian(jacobian(f))` takes the forward rule of `np.abs`'s forward rule, linear
    over the reals only: of a complex argument it would give 0, so it refuses, and the
    derivative is taken by rows instead (`atoms.derivative_atom`), reverse mode over the
    forward rule, which goes through `np.abs`'s definition."""
    x = np.array([0.3, 0.4])
    got = srcad.jacobian(srcad.jacobian(complex_absolute))(x)
    expected = hessian_by_differences(complex_absolute, (x,))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def reversed_twice_read(x):
    return np.sum(np.asarray(tuple(reversed([x[0], x[1] ** 2, x[2]]))) ** 3)


def sorted_reversed(x):
    ys = sorted(reversed([x[2] * x[0], x[1] ** 2, x[0]]))
    return ys[0] * ys[1] ** 3 + ys[2] ** 2


@pytest.mark.parametrize(
    "objective", [reversed_twice_read, sorted_reversed], ids=lambda f: f.__name__
)
def test_an_iterator_is_read_whole_by_a_second_derivative(objective):
    """`reversed(xs)` is an iterator: the reverse rule of a forward rule that takes one reads
    it twice (for the value and for the tangent), and must see every item both times."""
    check_second_order(objective, (cases.POSITIVE,))


ROTATING = np.array([[1.0, 2.0, 0.0], [-2.0, 1.0, 0.3], [0.1, 0.0, 3.0]])  # a complex pair


def complex_eigenvalues(m):
    w = np.linalg.eigvals(m)
    return np.sum(np.real(w) ** 2 * np.imag(w)) + np.sum(np.real(np.sin(w) * np.conj(w)))


def complex_eigenvectors(m):
    """Through the moduli of the eigenvectors' entries, which do not depend on the phase
    `eig` picks, and the eigenvalues taken from the same call."""
    result = np.linalg.eig(m)
    w, v = result[0], result[1]
    return np.sum(np.real(v * np.conj(v)) ** 2 * np.arange(3.0)) + np.sum(np.real(w) * np.imag(w))


@pytest.mark.parametrize("objective", [complex_eigenvalues, complex_eigenvectors],
                         ids=lambda f: f.__name__)  # fmt: skip
def test_second_derivatives_of_complex_eigenvalues_and_eigenvectors(objective):
    """`eig` of a real matrix with a complex pair of eigenvalues: complex results."""
    assert np.iscomplexobj(np.linalg.eigvals(ROTATING))
    check_second_order(objective, (ROTATING,))


def sinc_near_zero(x):
    return np.sum(np.sin(np.sinc(x)) * x) + np.sum(np.sinc(3.0 * x) ** 2)


def float_power_at_zero(x):
    return np.sum(np.sin(np.float_power(x, 3.0)) * x) + np.sum(np.float_power(x * x + 0.5, 1.5))


def hypot_of_a_vector(x):
    return np.sum(np.hypot(x, x[::-1] * 2.0) ** 3) + np.sum(np.sin(np.hypot(x, 0.5)))


@pytest.mark.parametrize(
    ("objective", "x"),
    [
        # At 0 and around it, where sinc's partial switches to its Taylor series.
        (sinc_near_zero, np.array([0.0, 4e-4, -2e-3, 0.4, 1.3])),
        # A power of 0: its partials there (3 x^2 and 6 x) are 0, not NaN.
        (float_power_at_zero, np.array([0.0, 0.3, -0.7])),
        (hypot_of_a_vector, np.array([0.0, 0.3, -0.7, 1.5])),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_second_derivatives_of_elementwise_functions_at_their_special_points(objective, x):
    check_second_order(objective, (x,))

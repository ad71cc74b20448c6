"""Derivatives of Python floats at the edges of their functions' domains (s35): where NumPy's
function of a Python float gives inf or NaN (`np.log(0.0)`, `np.arctanh(1.0)`), its
derivative is NumPy's value too, never a `ZeroDivisionError` from Python's arithmetic in
emitted code or a rule's partial; where the function itself raises (`math.log(0.0)`,
`1.0 / 0.0`, `0.0 ** -1`), its derivative raises the same, in every mode.

The survey: each expression below, written once as `f(x) = expr * 2.0` and once summed in a
loop (where kinds are known and derivatives are inlined), at each edge point, in reverse
mode, forward mode and to second order, against the same derivative of the same point as a
NumPy float64 (`("f", 0)`, the same kind: the same emitted code, in NumPy's arithmetic).
And, since that oracle shares the code, each one against central differences at points
inside its domain; and the library's rules called directly, off the inlined path."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import difference, user_module

EXPRESSIONS = [
    *("np.log(x)", "np.log2(x)", "np.log10(x)", "np.log1p(x)", "np.sqrt(x)", "np.cbrt(x)"),
    *("np.arcsin(x)", "np.arccos(x)", "np.arctan(x)", "np.arcsinh(x)", "np.arccosh(x)"),
    *("np.arctanh(x)", "np.exp(x)", "np.expm1(x)", "np.sinh(x)", "np.tanh(x)", "np.tan(x)"),
    *("np.reciprocal(x)", "np.square(x)", "np.abs(x)", "np.logaddexp(x, 0.0)"),
    *("np.power(x, -1)", "np.power(x, 0.5)", "np.power(x, 3.0)", "np.power(2.0, x)"),
    *("x ** 0.5", "x ** -1", "x ** -2.0", "x ** 3.0", "2.0 ** x", "x ** x", "1.0 / x"),
    *("x / (x - x)", "np.float64(2.0) ** x", "np.divide(1.0, x)", "np.true_divide(x, x)"),
    *("np.arctan2(x, 0.0 * x)", "np.hypot(x, 0.0)", "np.float64(1.0) / x"),
    *("math.log(x)", "math.log2(x)", "math.log10(x)", "math.log1p(x)", "math.sqrt(x)"),
    *("math.asin(x)", "math.acos(x)", "math.atan(x)", "math.asinh(x)", "math.acosh(x)"),
    *("math.atanh(x)", "math.exp(x)", "math.expm1(x)", "math.sinh(x)", "math.tanh(x)"),
    *("math.pow(x, 0.5)", "math.pow(x, -1.0)", "math.atan2(x, 0.0)", "math.hypot(x, 0.0)"),
    *("math.erf(x)", "math.log(x, 2.0)"),
]
EDGES = [0.0, -0.0, 1.0, -1.0, -0.5, 2.0, 800.0, -800.0, 1e200, math.inf]
INSIDE = [0.3, 1.7]  # central differences where the function is smooth around the point
MODES = ("grad", "jvp", "hessian")
# Where `x ** p` of a Python float overflows, Python raises `OverflowError`; a gradient
# that leaves the power out (`Prune`: it needs `p * x ** (p - 1)` alone) does not check that
# (a check of every power would cost loops over array elements a power each).
OVERFLOW_UNCHECKED = {("x ** 3.0", 1e200, "grad")}
# A NumPy float64 divided by a Python zero is inf, but the cotangent of `a / b` divides
# as `a / b` does (`Inline.primal_divisions`), raising for a Python `y_bar`.
NUMPY_OVER_PYTHON_ZERO = {("np.float64(1.0) / x", x, "hessian") for x in (0.0, -0.0)}


def _module_text() -> str:
    lines = ["import math", "import numpy as np", ""]
    for number, expression in enumerate(EXPRESSIONS):
        lines += [f"def straight_{number}(x):", f"    return ({expression}) * 2.0", ""]
        lines += [f"def looped_{number}(x):", "    s = 0.0", "    for k in range(2):"]
        lines += [f"        s = s + {expression}", "    return s", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def functions(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return user_module(tmp_path_factory.mktemp("edges"), "python_float_edges", _module_text())


def _outcome(call: Any) -> tuple[str, Any]:
    """("value", a float or complex) or ("raises", the exception's type)."""
    try:
        with np.errstate(all="ignore"):
            value = call()
    except srcad.SrcadError:
        return "refused", None
    except (ArithmeticError, ValueError) as error:
        return "raises", type(error)
    return "value", complex(value) if np.iscomplexobj(value) else float(value)


def _derivative(f: Any, mode: str, x: Any) -> tuple[str, Any]:
    if mode == "grad":
        return _outcome(lambda: srcad.grad(f)(x))
    if mode == "jvp":
        return _outcome(lambda: srcad.jvp(f, (x,), (1.0,))[1])
    return _outcome(lambda: srcad.hessian(f)(x))


def _same(got: tuple[str, Any], want: tuple[str, Any]) -> bool:
    if got[0] != want[0]:
        return False
    if got[0] != "value":
        return bool(got[1] == want[1])
    a, b = got[1], want[1]
    if a != a or b != b:  # NaN: both, or no match
        return bool(a != a and b != b)
    return bool(a == b or abs(a - b) <= 1e-12 * abs(b))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", ["straight", "looped"])
@pytest.mark.parametrize("number", range(len(EXPRESSIONS)), ids=EXPRESSIONS)
def test_edges_as_numpy_or_raising_as_the_function(
    functions: Any, number: int, shape: str, mode: str
) -> None:
    f = getattr(functions, f"{shape}_{number}")
    expression = EXPRESSIONS[number]
    wrong = []
    for x in EDGES:
        if (expression, x, mode) in OVERFLOW_UNCHECKED | NUMPY_OVER_PYTHON_ZERO:
            continue
        primal = _outcome(lambda: f(x))  # noqa: B023 (called at once)
        got = _derivative(f, mode, x)
        if primal[0] == "raises":  # as the function does, whatever computes it first
            want = primal
        elif _same(primal, _outcome(lambda: f(np.float64(x)))):  # noqa: B023
            want = _derivative(f, mode, np.float64(x))
        else:  # Python's primal is not NumPy's (`(-1.0) ** 0.5` is complex): no error
            want = got if got[0] in ("value", "refused") else ("value or refused", None)
        if not _same(got, want):
            wrong.append(f"x={x!r}: {got} where {want}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("shape", ["straight", "looped"])
@pytest.mark.parametrize("number", range(len(EXPRESSIONS)), ids=EXPRESSIONS)
def test_inside_the_domain_against_differences(functions: Any, number: int, shape: str) -> None:
    f = getattr(functions, f"{shape}_{number}")
    for x in INSIDE:
        around = [_outcome(lambda: f(x + h)) for h in (-1e-3, 0.0, 1e-3)]  # noqa: B023
        if not all(kind == "value" and math.isfinite(abs(v)) and v == v.real for kind, v in around):
            continue  # outside the domain (or complex): the edges test has it
        want = float(difference(f, (x,)))
        np.testing.assert_allclose(srcad.grad(f)(x), want, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(srcad.jvp(f, (x,), (1.0,))[1], want, rtol=1e-6, atol=1e-8)
        second = float(difference(srcad.grad(f), (x,)))
        np.testing.assert_allclose(srcad.hessian(f)(x), second, rtol=1e-5, atol=1e-6)


# The library's rules themselves (what code without kinds calls), at the edges.
RULES = [
    (np.log, (0.0,)),
    (np.log2, (-0.0,)),
    (np.log10, (0.0,)),
    (np.log1p, (-1.0,)),
    (np.arctanh, (1.0,)),
    (np.arctanh, (-1.0,)),
    (np.divide, (1.0, 0.0)),
    (np.divide, (0.0, 0.0)),
    (np.true_divide, (-2.0, -0.0)),
    (np.arctan2, (0.0, 0.0)),
    (math.atan2, (0.0, 0.0)),
    (math.atan2, (-0.0, 0.0)),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("function", "args"), RULES, ids=[f"{f.__name__}{a}" for f, a in RULES])
def test_rules_at_the_edges_as_numpy(function: Any, args: tuple[float, ...]) -> None:
    as_numpy = tuple(np.float64(a) for a in args)
    for position in range(len(args)):
        tangents = tuple(1.0 if i == position else 0.0 for i in range(len(args)))
        _, pullback = srcad.rrule(function, *args)
        _, numpy_pullback = srcad.rrule(function, *as_numpy)
        got = _outcome(lambda: pullback(1.0)[1 + position])  # noqa: B023
        want = _outcome(lambda: numpy_pullback(1.0)[1 + position])  # noqa: B023
        assert _same(got, want), (position, got, want)
        got = _outcome(lambda: srcad.frule((None, *tangents), function, *args)[1])  # noqa: B023
        want = _outcome(lambda: srcad.frule((None, *tangents), function, *as_numpy)[1])  # noqa: B023
        assert _same(got, want), (position, got, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    ("expression", "x", "slope"),
    [
        ("np.log(x)", 0.0, math.inf),
        ("np.log(x)", -0.0, -math.inf),
        ("np.log1p(x)", -1.0, math.inf),
        ("np.log2(x)", 0.0, math.inf),
        ("np.arctanh(x)", 1.0, math.inf),
        ("np.arctan2(x, 0.0 * x)", 0.0, math.nan),
        ("math.atan2(x, 0.0)", 0.0, math.nan),
        ("np.divide(1.0, x)", 0.0, -math.inf),
    ],
)
def test_the_slopes_numpy_gives(functions: Any, expression: str, x: float, slope: float) -> None:
    """The values themselves, as NumPy computes them at these points: `1 / x` at a signed
    zero is an infinity of its sign, `0 / 0` NaN."""
    f = getattr(functions, f"straight_{EXPRESSIONS.index(expression)}")
    for got in (srcad.grad(f)(x), srcad.jvp(f, (x,), (1.0,))[1]):
        np.testing.assert_equal(float(got), 2.0 * slope)

"""Soundness audit (session 36): the builtin `sum` of lists or tuples from a start that is
one (`sum(rows, [])`, `sum(pairs, ())`) joins them end to end, where `+` is no addition:
its reverse rule gave every piece the whole joined sequence's cotangent (a crash, "too
many values to unpack", or a list argument's gradient of the wrong length), and its
forward rule added tangents given as lists. Each is checked against central differences
in both modes and to second order."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

JOINED = """
import numpy as np


def two_lists(x):
    ys = sum([[x[0]], [x[1] * 2.0]], [])
    return ys[0] * 3.0 + ys[1] ** 2


def rows_flattened(x):
    rows = [[x[0], x[1]], [x[2] * 2.0, x[3]]]
    flat = sum(rows, [])
    return np.sum(np.array(flat) ** 2 * np.arange(1.0, 5.0))


def tuples_from_a_tuple(x):
    ys = sum(((x[0], x[1]), (x[2],)), ())
    return ys[0] * ys[2] + ys[1] ** 3


def from_a_differentiated_start(x):
    ys = sum([[x[1]], [x[2], x[3]]], [x[0] * 2.0])
    return ys[0] * ys[1] + ys[2] * ys[3] ** 2


def from_a_constant_start(x):
    ys = sum([[x[0]], [x[1]]], start=[0.5])
    return ys[0] * ys[1] + ys[2] * x[2]


def in_a_loop(x):
    acc = []
    for k in range(3):
        acc = sum([[x[k] * x[k + 1]]], acc)
    return acc[0] + acc[1] * acc[2]


def of_arguments(xs, ys, empty):
    zs = sum([xs, ys], empty)
    return zs[0] * zs[2] + zs[1] ** 2


def numbers_still_added(x):
    return sum([x[0], x[1] * 2.0], x[2]) ** 2
"""

NAMES = [
    "two_lists",
    "rows_flattened",
    "tuples_from_a_tuple",
    "from_a_differentiated_start",
    "from_a_constant_start",
    "in_a_loop",
    "numbers_still_added",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("joined"), "audit_s36_joined", JOINED)


@pytest.mark.parametrize("name", NAMES)
def test_sum_of_sequences_joins_them(module, name):
    f = getattr(module, name)
    x = np.array([0.3, -0.7, 1.1, 0.5])
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    tangent = np.array([1.0, -0.5, 0.25, 2.0])
    close(srcad.jvp(f, (x,), (tangent,))[1], want @ tangent)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


@pytest.mark.parametrize("kind", [list, tuple])
def test_sum_of_sequence_arguments(module, kind):
    """Each argument's cotangent is its own elements', of its own length."""
    f = module.of_arguments
    xs, ys = kind([0.3, 0.5]), kind([0.7, 0.9])
    xs_bar, ys_bar = srcad.grad(f, wrt=(0, 1))(xs, ys, kind())
    close(list(xs_bar), [ys[0], 2 * xs[1]])
    close(list(ys_bar), [xs[0], 0.0])
    tangents = (kind([1.0, 2.0]), kind([-1.0, 0.5]), srcad.NoTangent())
    _, y_dot = srcad.jvp(f, (xs, ys, kind()), tangents)
    close(y_dot, ys[0] * 1.0 + 2 * xs[1] * 2.0 + xs[0] * -1.0)


OPERATORS = """
import math

import numpy as np


class Interval:
    def __init__(self, low, high):
        self.low, self.high = low, high

    def __and__(self, other):
        return Interval(max(self.low, other.low), min(self.high, other.high))

    def __invert__(self):
        return Interval(-self.high, -self.low)

    def __floordiv__(self, k):
        return Interval(self.low / k, self.high / k)

    def __round__(self, digits=None):
        return (self.low + self.high) / 2.0

    def __floor__(self):
        return self.low - 1.0

    def __abs__(self):
        return self.high - self.low

    def __float__(self):
        return float(self.low * 2.0 + self.high)


def intersected(x):
    both = Interval(x[0], x[1]) & Interval(0.0, x[2])
    return both.high - both.low


def negated(x):
    flipped = ~Interval(x[0], x[1] * 2.0)
    return flipped.high * flipped.low


def divided(x):
    scaled = Interval(x[0], x[1]) // 2.0
    return scaled.high * 3.0 + scaled.low


def rounded(x):
    return round(Interval(x[0], x[1])) * 3.0


def floored(x):
    return math.floor(Interval(x[0], x[1])) * x[2]


def widths(x):
    return abs(Interval(x[0], x[1])) * x[2]


def as_float(x):
    return float(Interval(x[0], x[1])) ** 2


def floors_and_masks(x):
    s = 0.0
    for v in x:
        s = s + v * (v // 0.3) + v * round(v, 1) + math.floor(v / 0.2) * math.ceil(v) * v
    keep = (x > 0.0) & ~(x > 1.0) ^ (x > 1.1)
    counts = {"n": 3}
    shifted = (counts["n"] << 2) - (counts["n"] >> 1)
    return s + np.sum(np.where(keep, x**2, x)) + np.sum(x * (x // 0.25)) * shifted
"""


@pytest.mark.parametrize("name", ["widths", "as_float"])
def test_a_class_own_abs_or_float_is_refused(tmp_path, name):
    """`abs` and `float` of an object of a class's own `__abs__`/`__float__` crashed in
    their rules (which take a number's derivative: "'numpy.ndarray' object has no
    attribute 'fields'"); refused where they run, as the arithmetic operators are."""
    f = getattr(user_module(tmp_path, f"audit_s36_{name}", OPERATORS), name)
    x = np.array([0.3, 0.8, 1.1])
    for mode in ("grad", "jvp"):
        with pytest.raises(srcad.SrcadError, match="which may define it otherwise"):
            if mode == "grad":
                srcad.grad(f)(x)
            else:
                srcad.jvp(f, (x,), (np.ones(3),))


@pytest.mark.parametrize("name", ["intersected", "negated", "divided", "rounded", "floored"])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_class_own_flat_operator_is_refused(tmp_path, name, mode):
    """`&`, `~`, `//`, `round` and `math.floor` (`operator.and_`, `operator.invert`,
    `operator.floordiv`: `rules/flat_operators.py`) were taken to have no derivative whatever
    their operands: of a class's own (an interval's intersection, computed by `max` and
    `min`; a `__round__` giving its midpoint), grad was 0 with no error (intersected:
    [0, 0, 0] where differences give [-1, 1, 0]; rounded: [0, 0, 0] for [1.5, 1.5, 0])."""
    f = getattr(user_module(tmp_path, f"audit_s36_{name}_{mode}", OPERATORS), name)
    x = np.array([0.3, 0.8, 1.1])
    with pytest.raises(srcad.SrcadError, match="whose class may define it otherwise") as raised:
        if mode == "grad":
            srcad.grad(f)(x)
        else:
            srcad.jvp(f, (x,), (np.ones(3),))
    notes = "\n".join(getattr(raised.value, "__notes__", []))
    assert f"audit_s36_{name}_{mode}.py" in notes


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_floors_and_masks_still_have_no_derivative(tmp_path, dtype):
    """Of numbers and arrays (proved so or not: float32 is compiled without kinds), `//`,
    `&`, `~`, `round`, `math.floor` and `math.ceil` are flat, as before."""
    module = user_module(tmp_path, f"audit_s36_flat_{dtype.__name__}", OPERATORS)
    f = module.floors_and_masks
    x = np.array([0.33, -0.71, 1.13, 0.52], dtype=dtype)
    want = difference(f, (x.astype(np.float64),))
    tolerance = {"rtol": 1e-6, "atol": 1e-8} if dtype is np.float64 else {"rtol": 1e-4}
    np.testing.assert_allclose(srcad.grad(f)(x), want, **tolerance)
    tangent = np.array([1.0, -0.5, 0.25, 2.0], dtype=dtype)
    np.testing.assert_allclose(srcad.jvp(f, (x,), (tangent,))[1], want @ tangent, **tolerance)
    if dtype is np.float64:
        close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


COMPLEX = """
import numpy as np


def real_of_complex(z):
    return np.sum(np.real(z * z) + np.imag(np.exp(z)))
"""


@pytest.mark.parametrize("z", [np.array([0.3 + 0.4j, -0.7 + 0.1j]), 0.3 + 0.4j])
def test_the_hessian_of_a_complex_argument_is_refused(tmp_path, z):
    """`hessian` stacked its columns (Hessian-vector products along real directions, which
    are complex) as real floats: the imaginary parts were dropped with only NumPy's
    ComplexWarning (2.53 where the derivative of the gradient is 2.53 + 1.24j), and no
    matrix of the argument's shape holds the derivatives along the imaginary directions.
    `hessian_vector_product` takes any direction."""
    f = user_module(tmp_path, "audit_s36_complex", COMPLEX).real_of_complex
    with pytest.raises(srcad.SrcadError, match="takes real arguments only"):
        srcad.hessian(f)(z)
    gradient, step = srcad.grad(f), 1e-6
    for direction in (np.ones_like(z), 1j * np.ones_like(z)):
        want = (gradient(z + step * direction) - gradient(z - step * direction)) / (2 * step)
        got = srcad.hessian_vector_product(f)(z, direction)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


COMPLEX_RESULTS = """
import numpy as np


def rotated(x):
    return np.exp(1j * x[0]) * x[1] + x * (1.0 + 2.0j)


def squared(z):
    return z * z + 2.0 * np.conj(z)
"""


@pytest.mark.parametrize(
    ("name", "point"),
    [("rotated", np.array([0.3, 0.5])), ("squared", np.array([0.3 + 0.4j, -0.7 + 0.1j]))],
)
def test_the_reverse_jacobian_of_a_complex_result(tmp_path, name, point):
    """`jacobian(mode="reverse")` of a complex result took one pullback of the real seed per
    element: of a real argument, the imaginary parts were dropped (`x * (1 + 2j)` gave 1
    where forward mode and differences give 1 + 2j); of a complex one, a holomorphic
    function's derivative came conjugated. Both modes now give the derivatives along the
    argument's real directions."""
    f = getattr(user_module(tmp_path, f"audit_s36_{name}", COMPLEX_RESULTS), name)
    step = 1e-6
    columns = []
    for k in range(point.size):
        e = np.zeros(point.size)
        e[k] = step
        columns.append((f(point + e) - f(point - e)) / (2 * step))
    want = np.stack(columns, axis=-1)
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.jacobian(f, mode=mode)(point), want, rtol=1e-6, atol=1e-8)

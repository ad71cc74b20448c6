"""A forward rule reads the tangent of a float64 vector that its loops index by an int as a
list of Python floats (`passes/transforms/float_items.py`): the same numbers, against
central differences, the tangent's type shown nowhere (a result's, a callee's, a
container's), no new exception where a tangent divides by a Python float zero, zero-trip
loops, second derivatives over the rule; float32, complex and 2-D arrays as they were."""

from __future__ import annotations

import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp
from tests.conftest import close, difference, sample, user_module

MODULE = """
import numpy as np


def mse(y, yhat):
    n = len(y)
    s = 0.0
    for i in range(n):
        s += (y[i] - yhat[i]) ** 2.0
    return s / n


def neighbours(x):
    s = 0.0
    for i in range(len(x) - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def weighted(w, xs):
    total = 0.0
    for k in range(len(xs)):
        r = w[0] + w[1] * xs[k]
        if abs(r) <= 1.0:
            total += 0.5 * r * r
        else:
            total += abs(r) - 0.5
    return total


def divided(x, c):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i]
    return s / c


def divided_in_loop(x, c):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] / c
    return s


def pair(x):
    s = 0.0
    p = 1.0
    for i in range(len(x)):
        s = s + x[i]
        p = p * x[i]
    return s, p


def appended(x):
    out = []
    for i in range(len(x)):
        out.append(x[i] * 2.0 + 1.0)
    return np.array(out)


def _powers(a):
    p = a
    k = 0
    while k < 2:
        p = p * a
        k += 1
    return p


def helper(x):
    s = 0.0
    for i in range(len(x)):
        s = s + _powers(x[i])
    return s


def last_first(x):
    s = 0.0
    for i in range(len(x)):
        s = s * 0.5 + x[-1 - i] * x[i]
    return s


def read_after_write(x):
    b = np.zeros(len(x))
    s = 0.0
    for i in range(len(x)):
        u = x[i]
        b[i] = u * x[i] + 1.0
        s = s + b[i] * x[i] + b[i]
        b[i] = s * u
        s = s + b[i] * u
    return s


def index_rebound(x):
    s = 0.0
    i = 0
    while i < len(x) - 1:
        u = x[i]
        i = i + 1
        s = s + u * x[i]
    return s


def branch_rebinds(x):
    s = 0.0
    for i in range(len(x) - 1):
        u = x[i]
        if u > 0.0:
            i = i + 1
        s = s + u * x[i] + (1.0 - x[i]) * x[i]
    return s


def grid(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s = s + a[i, j] * a[i, j]
    return s
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_float_items")
    return user_module(path, "forward_float_items_module", MODULE)


def _check(f: object, args: tuple[object, ...], position: int, items: bool) -> None:
    """`jvp` along a random direction of argument `position` against central
    differences, and whether the rule reads that argument's tangent as float items."""
    x = args[position]
    assert isinstance(x, np.ndarray)
    direction = sample(x.shape, 3, x.dtype)
    tangents = tuple(direction if i == position else srcad.ZeroTangent() for i in range(len(args)))
    value, tangent = srcad.jvp(f, args, tangents)
    close(value, f(*args))  # type: ignore[operator]
    close(tangent, finite_difference_jvp(f, args, tangents))
    source = srcad.source(f, mode="forward", args=args)
    assert ("float_items(" in source) is items, source


CASES = [
    ("mse", lambda: (sample((7,), 1), sample((7,), 2)), 0),
    ("neighbours", lambda: (sample((6,), 1),), 0),
    ("weighted", lambda: (sample((2,), 1), sample((9,), 2)), 0),
    ("weighted", lambda: (sample((2,), 1), sample((9,), 2)), 1),
    ("divided", lambda: (sample((5,), 1), 0.7), 0),
    ("pair", lambda: (sample((4,), 1),), 0),
    ("appended", lambda: (sample((4,), 1),), 0),
    ("helper", lambda: (sample((4,), 1),), 0),
    ("last_first", lambda: (sample((5,), 1),), 0),
]


@pytest.mark.parametrize(("name", "make", "position"), CASES)
def test_against_central_differences(
    module: types.ModuleType, name: str, make: object, position: int
) -> None:
    f = getattr(module, name)
    args = make()  # type: ignore[operator]
    # A tangent passed to a helper's rule or collected in a list is read as a float64
    # there (`float64_number`): in a loop, the rule is left as it is.
    _check(f, args, position, name not in ("appended", "helper"))


@pytest.mark.parametrize("name", ["mse", "neighbours", "weighted", "pair"])
def test_the_result_tangent_has_the_value_type(module: types.ModuleType, name: str) -> None:
    """The tangent leaves the rule as a float64, as the value is one: a caller (a rule
    that calls this one, the user) sees what it saw."""
    f = getattr(module, name)
    args = tuple(sample((3,), seed) for seed in range(2 if name in ("mse", "weighted") else 1))
    if name == "weighted":
        args = (sample((2,), 0), sample((3,), 1))
    tangents = (np.ones_like(args[0]), *[srcad.ZeroTangent()] * (len(args) - 1))
    value, tangent = srcad.jvp(f, args, tangents)
    for v, t in zip(np.atleast_1d(value), np.atleast_1d(tangent), strict=True):
        assert type(t) is type(v) is np.float64


def test_zero_trip_loops(module: types.ModuleType) -> None:
    empty = np.zeros(0)
    assert srcad.jvp(module.neighbours, (empty,), (empty,)) == (0.0, 0.0)
    one = np.array([0.3])  # `range(0)`: the items read, never indexed
    value, tangent = srcad.jvp(module.neighbours, (one,), (np.ones(1),))
    assert (value, float(tangent)) == (0.0, 0.0)
    value, tangent = srcad.jvp(module.pair, (empty,), (empty,))
    assert value == (0.0, 1.0)


def test_a_tangent_divided_by_a_python_float_zero(module: types.ModuleType) -> None:
    """The primal divides a float64 by 0.0 (an infinity, no exception); so does the
    tangent, as before, where it is a Python float in the loop."""
    x = sample((4,), 5)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        for f in (module.divided, module.divided_in_loop):
            value, tangent = srcad.jvp(f, (x, 0.0), (np.ones(4), srcad.ZeroTangent()))
            assert np.isinf(value) or np.isnan(value)
            assert np.isinf(tangent) or np.isnan(tangent)


def test_the_same_numbers_as_float64_arithmetic(module: types.ModuleType) -> None:
    """Python floats compute `+`, `-`, `*` as float64s do, bit for bit."""
    y, yhat = sample((50,), 1), sample((50,), 2)
    y_dot = sample((50,), 3)
    s_dot = np.float64(0.0)
    for i in range(50):
        s_dot = s_dot + (y_dot[i] - 0.0) * 2.0 * (y[i] - yhat[i])
    _, tangent = srcad.jvp(module.mse, (y, yhat), (y_dot, np.zeros(50)))
    assert tangent == s_dot / 50


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_other_dtypes_as_they_were(module: types.ModuleType, dtype: type) -> None:
    x = sample((5,), 1, dtype)
    source = srcad.source(module.last_first, mode="forward", args=(x,))
    assert "float_items(" not in source, source
    direction = sample((5,), 2, dtype)
    value, tangent = srcad.jvp(module.last_first, (x,), (direction,))
    assert type(tangent) is type(value)
    want = finite_difference_jvp(module.last_first, (x.astype(complex),), (direction,))
    np.testing.assert_allclose(tangent, want, rtol=1e-3 if dtype is np.float32 else 1e-6)


def test_a_matrix_as_it_was(module: types.ModuleType) -> None:
    a = sample((3, 4), 1)
    source = srcad.source(module.grid, mode="forward", args=(a,))
    assert "float_items(" not in source, source
    direction = sample((3, 4), 2)
    _, tangent = srcad.jvp(module.grid, (a,), (direction,))
    close(tangent, finite_difference_jvp(module.grid, (a,), (direction,)))


@pytest.mark.parametrize("name", ["neighbours", "last_first"])
def test_second_derivatives_over_the_rule(module: types.ModuleType, name: str) -> None:
    f = getattr(module, name)
    x = sample((4,), 1)
    hessian = srcad.hessian(f)(x)
    close(hessian, difference(srcad.grad(f), (x,)))


def test_a_batched_tangent_as_it_was(module: types.ModuleType) -> None:
    """`jacobian(mode="forward")` passes tangents with a trailing axis of directions:
    `float_items` leaves them as they are."""
    x = sample((5,), 1)
    jacobian = srcad.jacobian(module.neighbours, mode="forward")(x)
    close(jacobian, difference(module.neighbours, (x,)))


@pytest.mark.parametrize("name", ["read_after_write", "index_rebound", "branch_rebinds"])
def test_an_element_read_again_where_it_may_have_changed(
    module: types.ModuleType, name: str
) -> None:
    """`repeated_reads`: a read again is the earlier read's name only where nothing
    between can change it (an item written, the index rebound, in a branch too)."""
    f = getattr(module, name)
    x = sample((5,), 4)
    direction = sample((5,), 6)
    value, tangent = srcad.jvp(f, (x,), (direction,))
    close(value, f(x))
    close(tangent, finite_difference_jvp(f, (x,), (direction,)))
    close(srcad.grad(f)(x), difference(f, (x,)))


def test_an_element_read_again_named(module: types.ModuleType) -> None:
    x = sample((6,), 1)
    source = srcad.source(module.neighbours, mode="forward", args=(x,))
    assert source.count("x[i]") == 1 and source.count("x_dot_items[i]") == 1, source

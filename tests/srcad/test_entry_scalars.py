"""Arguments that are NumPy scalars (float64, float32) or 0-d float arrays: kinds of their
own (`kinds.kind_of` an argument), branches in the entries of `grad` and `jvp`
(`srcad/entry.py`, `srcad/forward_entry.py`), the rule specialised for them. What the
branch gives is what the general path gives (type, dtype, shape, value, warnings), the
derivatives are central differences', and the specialised rule computes what the
primal computes on those types (NumPy's division by zero, overflow, powers of negatives)."""

import math
import warnings
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.api import _general_jvp
from srcad.kinds import ZERO_D, ZERO_D32, kind_of, signature
from tests.conftest import difference


def polynomial(x: Any) -> Any:
    return x * x + 3.0 * x


def loop(x: Any) -> Any:
    s = 0.0
    for k in range(4):
        s = s + x * x * k + np.sin(x)
    return s


def quotient(x: Any) -> Any:
    return x / (x - 0.5)


def power(x: Any) -> Any:
    return x**2.5


def reciprocal(x: Any) -> Any:
    return 1.0 / x


def overflowing(x: Any) -> Any:
    return np.exp(x * 800.0)


def through_python(x: Any) -> Any:
    return math.sin(x) + float(x) * 2.0


def identity(x: Any) -> Any:
    return x


def constant(x: Any) -> Any:
    return 2.0


def branches(x: Any) -> Any:
    if x > 0.5:
        return x * 2.0
    return max(x, 0.3) * x


def mixed(x: Any) -> Any:
    return np.float32(2.0) * x + np.float64(x) * x - abs(x) ** 1.5


def remainders(x: Any) -> Any:
    return x % 0.3 + x // 0.2


def reduced(x: Any) -> Any:
    return np.sum(x * np.ones(3)) + np.sqrt(x) * np.log(x)


def two(x: Any, y: Any) -> Any:
    return x * y + np.cos(y)


FUNCTIONS = [
    polynomial, loop, quotient, power, reciprocal, overflowing, through_python, identity,
    constant, branches, mixed, reduced, remainders,
]  # fmt: skip


def arguments(value: float) -> list[Any]:
    return [
        value,
        np.float64(value),
        np.array(value),
        np.float32(value),
        np.array(value, dtype=np.float32),
    ]


def described(value: Any) -> Any:
    """What a result is, to compare: its type, dtype, shape and value (NaN equal to NaN)."""
    if isinstance(value, tuple):
        return tuple(described(item) for item in value)
    number = np.asarray(value, dtype=np.float64).item()
    shown = "nan" if math.isnan(number) else number
    return type(value), getattr(value, "dtype", None), np.shape(value), shown


def outcome(thunk: Any) -> Any:
    """What calling `thunk` gives (or the type of what it raises), and its warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: Any = described(thunk())
        except Exception as error:  # (compared: the same error either way)
            result = type(error)
    return result, sorted({w.category.__name__ for w in caught})


def tangent_like(x: Any) -> Any:
    return np.ones_like(x) if isinstance(x, np.ndarray) else type(x)(1.0)


def dispatcher(function: Any) -> Any:
    """The `srcad.entry.Dispatcher` of what `grad` or `value_and_grad` returned."""
    differentiable = function.srcad_gradient_of
    return differentiable._entries[function is differentiable.value_and_grad]


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_branch_gives_what_the_general_path_gives(function: Any) -> None:
    """Every argument kind, at ordinary points and where NumPy warns (a zero, a negative
    base of a power): the branch (the second call), the general path (the first call,
    and the dispatcher's `general` called directly), and `jvp`'s general path agree on
    everything."""
    for value in (0.7, -1.3, 0.0, 0.5):
        for x in arguments(value):
            for value_and_grad in (srcad.grad(function), srcad.value_and_grad(function)):
                general = outcome(lambda: dispatcher(value_and_grad).general((x,), {}))  # noqa: B023
                assert outcome(lambda: value_and_grad(x)) == general  # noqa: B023
                assert outcome(lambda: value_and_grad(x)) == general  # noqa: B023 (the branch)
            dx = tangent_like(x)
            plain = outcome(lambda: _general_jvp(function, (x,), (dx,)))  # noqa: B023
            for _ in range(2):  # compiling the branch, then through it
                assert outcome(lambda: srcad.jvp(function, (x,), (dx,))) == plain  # noqa: B023


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_the_value_is_the_primal_s_own(function: Any) -> None:
    """The specialised rule computes the primal's value with the primal's types: NumPy's
    inf and NaN with a warning where a Python float raises (`ZeroDivisionError`) or is
    complex, for NumPy scalars and 0-d arrays alike."""
    for value in (0.7, -1.3, 0.0, 0.5):
        for x in arguments(value)[1:]:
            primal = outcome(lambda: function(x))  # noqa: B023
            y = outcome(lambda: srcad.value_and_grad(function)(x)[0])  # noqa: B023
            assert y[0] == primal[0] and set(primal[1]) <= set(y[1])
            y, _ = outcome(lambda: srcad.jvp(function, (x,), (tangent_like(x),))[0])  # noqa: B023
            assert y == primal[0]


def test_numpy_arithmetic_is_kept() -> None:
    """Division by zero is inf with a warning, a fractional power of a negative NaN,
    overflow inf: as NumPy computes them, not as Python floats do."""
    for x in (np.float64(0.0), np.array(0.0), np.float32(0.0), np.array(0.0, np.float32)):
        with pytest.warns(RuntimeWarning):
            y, dx = srcad.value_and_grad(reciprocal)(x)
        assert y == np.inf and dx == -np.inf
        with pytest.warns(RuntimeWarning):
            y, y_dot = srcad.jvp(reciprocal, (x,), (tangent_like(x),))
        assert y == np.inf and y_dot == -np.inf
    for x in (np.float64(-2.0), np.array(-2.0), np.float32(-2.0)):
        with pytest.warns(RuntimeWarning):
            y, dx = srcad.value_and_grad(power)(x)
        assert np.isnan(y) and np.isnan(dx)
    for x in (np.float64(1.0), np.array(1.0)):
        with pytest.warns(RuntimeWarning):
            y, dx = srcad.value_and_grad(overflowing)(x)
        assert y == np.inf and dx == np.inf
    with pytest.raises(ZeroDivisionError):
        srcad.grad(reciprocal)(0.0)  # (a Python float's own arithmetic)


def test_result_types() -> None:
    """A NumPy float64 argument's gradient is a float64 (a Python float where the code
    gives one, as for a float); a 0-d array's a NumPy scalar of its dtype; a float32's
    a float32, even where the code gives a Python float (`d(x)/dx`, the seed 1.0)."""
    for function in (polynomial, identity, through_python, constant):
        for x, want in [
            (np.float64(0.7), (float, np.float64)),
            (np.array(0.7), (np.float64,)),
            (np.float32(0.7), (np.float32,)),
            (np.array(0.7, dtype=np.float32), (np.float32,)),
        ]:
            grad = srcad.grad(function)
            for _ in range(2):
                assert type(grad(x)) in want, (function.__name__, x)
    assert type(srcad.grad(polynomial)(np.float64(0.7))) is np.float64
    y, y_dot = srcad.jvp(polynomial, (np.float32(0.7),), (np.float32(1.0),))
    assert type(y) is type(y_dot) is np.float32


@pytest.mark.parametrize("function", [polynomial, loop, quotient, power, reduced, branches])
def test_derivatives_are_central_differences(function: Any) -> None:
    """Both modes, every argument kind, against central differences (float64 arguments;
    float32 ones against float32 tolerance)."""
    for x in arguments(0.7) + arguments(1.9):
        want = difference(function, (float(x),))
        tolerance = 1e-6 if np.asarray(x).dtype == np.float64 else 1e-4
        for _ in range(2):
            np.testing.assert_allclose(srcad.grad(function)(x), want, rtol=tolerance)
            y_dot = srcad.jvp(function, (x,), (tangent_like(x),))[1]
            np.testing.assert_allclose(y_dot, want, rtol=tolerance)


def test_two_arguments_of_any_kinds() -> None:
    """Each argument's gradient of its own kind's type, whatever the other is; a 0-d
    array argument is never handed back as another's gradient (`1.0 * y` is a scalar)."""
    grad = srcad.grad(two, wrt=(0, 1))
    for x in arguments(0.7):
        for y in arguments(0.3):
            want = (
                difference(two, (float(x), float(y)), 0),
                difference(two, (float(x), float(y)), 1),
            )
            for _ in range(2):
                dx, dy = grad(x, y)
                assert not isinstance(y, np.ndarray) or (dx is not y and dy is not y)
                assert not isinstance(dx, np.ndarray) and not isinstance(dy, np.ndarray)
                np.testing.assert_allclose((dx, dy), want, rtol=1e-5)
                y_dot = srcad.jvp(two, (x, y), (tangent_like(x), srcad.ZeroTangent()))[1]
                np.testing.assert_allclose(y_dot, want[0], rtol=1e-5)


def test_second_order() -> None:
    """`hessian` and `grad` of `grad` of a function called with a NumPy float64 or a 0-d
    array: its second derivative."""

    def f(x: Any) -> Any:
        return x * x * x + np.sin(x)

    for x in (np.float64(0.7), np.array(0.7), np.float32(0.7), np.array(0.7, np.float32)):
        want = 6 * 0.7 - np.sin(0.7)
        tolerance = 1e-9 if np.asarray(x).dtype == np.float64 else 1e-5
        np.testing.assert_allclose(srcad.hessian(f)(x), want, rtol=tolerance)
        np.testing.assert_allclose(srcad.grad(srcad.grad(f))(x), want, rtol=tolerance)


def test_kinds_and_the_entry_s_tests() -> None:
    """A 0-d float array has a kind as an argument (not inside a container, nor as a
    constant); the entry's branch tests it exactly, so that another dtype or byte order
    takes the general path."""
    assert signature((np.array(1.0), np.array(1.0, np.float32))) == (ZERO_D, ZERO_D32)
    assert kind_of(np.array(1.0, np.float16), argument=True) is None
    assert kind_of(np.array(1), argument=True) is None
    assert signature(((np.array(1.0), 2.0),))[0].items[0] is None  # type: ignore[union-attr]
    grad = srcad.grad(lambda x: x * x + 3.0 * x)
    grad(np.array(0.7))
    assert (
        "type(x) is ndarray and x.ndim == 0 and (x.dtype is float64)" in dispatcher(grad).source()
    )
    for x in (np.array(0.7, np.float16), np.array(0.7, ">f8"), np.float16(0.7)):
        assert np.allclose(grad(x), 2 * 0.7 + 3.0, rtol=1e-3) and grad(x).dtype.type is x.dtype.type
        y_dot = srcad.jvp(polynomial, (x,), (np.ones_like(x),))[1]
        assert np.allclose(y_dot, 2 * 0.7 + 3.0, rtol=1e-3)


def test_no_jvp_branch_for_another_byte_order() -> None:
    """A big-endian 0-d array has the kind (NumPy computes with it as with a float64) but
    fails the entry's test (`x.dtype is float64`): `jvp` makes no branch it never takes."""
    from srcad.forward_entry import ATTRIBUTE

    def cube(x: Any) -> Any:
        return x * x * x

    x = np.array(0.5, ">f8")
    for _ in range(2):
        assert np.isclose(srcad.jvp(cube, (x,), (np.ones_like(x),))[1], 0.75)
    assert not cube.__dict__[ATTRIBUTE].branches
    srcad.jvp(cube, (np.array(0.5),), (np.ones(()),))
    assert len(cube.__dict__[ATTRIBUTE].branches) == 1


def weighted(p: Any, x: Any) -> Any:
    return np.sum(p["w"] * x) + p["b"] * p["t"][0]


@pytest.mark.parametrize("b", [0.4, np.float64(0.4)], ids=["float", "float64"])
def test_a_float_inside_a_container_takes_the_branch(b: Any, monkeypatch: Any) -> None:
    """A float item of a structure is tested as a float or a NumPy float64, one test
    among the structure's (an `or` kept whole, not spread into its `and`: every call
    took the general path, 2.4 times slower on `benchmarks`' dict of parameters)."""
    p = {"w": np.linspace(0.5, 1.5, 3), "b": b, "t": (2.5, 1.0)}
    x = np.linspace(-1.0, 1.0, 3)
    for valued, derivative in enumerate((srcad.grad(weighted), srcad.value_and_grad(weighted))):
        first = derivative(p, x)
        entry = dispatcher(derivative)
        monkeypatch.setattr(entry, "general", None)  # the branch must not need it
        entry.namespace["general"] = None
        again = derivative(p, x)
        gradient = again[1] if valued else again
        np.testing.assert_allclose(gradient["w"], x)
        assert gradient["b"] == 2.5 and gradient["t"] == (0.4, 0.0)
        assert first is not again

"""The entry functions `grad` and `value_and_grad` give (`srcad/entry.py`): one branch per
kinds of arguments seen, the general path for everything else; the same gradients either
way, checked against central finite differences."""

import sys
import threading
from typing import Any

import numpy as np
import pytest

import srcad
from srcad import NoTangent, SrcadError
from tests.conftest import difference


def cubic(x: Any) -> Any:
    return np.sum(x**3) - 2.0 * np.sum(x)


def cubic_derivative_fd(x: Any, step: float = 1e-6) -> Any:
    if np.ndim(x) == 0:
        return (cubic(x + step) - cubic(x - step)) / (2 * step)
    gradient = np.zeros(np.shape(x))
    for i in np.ndindex(np.shape(x)):
        e = np.zeros(np.shape(x))
        e[i] = step
        gradient[i] = (cubic(x + e) - cubic(x - e)) / (2 * step)
    return gradient


def _entry_text(function: Any) -> str:
    return function.srcad_gradient_of._entries[
        function is function.srcad_gradient_of.value_and_grad
    ].source()


def test_entry_starts_general_and_gains_a_branch_per_kinds() -> None:
    f = srcad.differentiate(cubic)
    assert _entry_text(f.grad) == "def grad(*args, **kwargs):\n    return general(args, kwargs)\n"
    # (One positional-only parameter per argument the branches take: no tuple per call.)
    for x in (0.7, np.array([0.3, -1.2, 2.0]), np.ones((2, 2)) * 0.5, 1.5):
        np.testing.assert_allclose(f.grad(x), cubic_derivative_fd(x), rtol=1e-6, atol=1e-8)
    version = srcad.registry.REGISTRY.version
    assert (
        _entry_text(f.grad)
        == f"""\
def grad(x=UNGIVEN, /, *args, **kwargs):
    if not (args or kwargs) and REGISTRY.version == {version} and guards_hold():
        if x is not UNGIVEN:
            if type(x) is float or type(x) is float64_scalar:
                try:
                    y, cotangents = gradient_0(x)
                except Exception:
                    failed((x,), kwargs)
                    raise
                dx = cotangents[1]
                if type(dx) in FLOAT_GRADIENTS:
                    return dx
                return finish(y, cotangents, (x,), kwargs, True)
            if type(x) is ndarray and x.ndim == 1 and (x.dtype is float64):
                try:
                    y, cotangents = gradient_1(x)
                except Exception:
                    failed((x,), kwargs)
                    raise
                dx = cotangents[1]
                if type(dx) is ndarray and dx.dtype is float64:
                    return dx
                return finish(y, cotangents, (x,), kwargs, True)
            if type(x) is ndarray and x.ndim == 2 and (x.dtype is float64):
                try:
                    y, cotangents = gradient_2(x)
                except Exception:
                    failed((x,), kwargs)
                    raise
                dx = cotangents[1]
                if type(dx) is ndarray and dx.dtype is float64:
                    return dx
                return finish(y, cotangents, (x,), kwargs, True)
    return general(args, kwargs, x)
"""
    )


def _weighted(w: Any, b: Any, x: Any, n: Any) -> Any:
    return np.sum((x @ w + b) ** 2) / n


def test_value_and_grad_entry_checks_the_value_and_returns_a_tuple() -> None:
    rng = np.random.default_rng(4)
    w, x = rng.standard_normal(3), rng.standard_normal((5, 3))
    f = srcad.differentiate(_weighted, wrt=("w", "b"))
    value, (dw, db) = f.value_and_grad(w, 0.2, x, 5)
    assert value == pytest.approx(_weighted(w, 0.2, x, 5))
    step = 1e-6
    for i in range(3):
        e = np.zeros(3)
        e[i] = step
        expected = (_weighted(w + e, 0.2, x, 5) - _weighted(w - e, 0.2, x, 5)) / (2 * step)
        assert dw[i] == pytest.approx(expected, rel=1e-6)
    expected_b = (_weighted(w, 0.2 + step, x, 5) - _weighted(w, 0.2 - step, x, 5)) / (2 * step)
    assert db == pytest.approx(expected_b, rel=1e-6)
    text = _entry_text(f.value_and_grad)
    assert text.startswith(
        "def value_and_grad(w=UNGIVEN, b=UNGIVEN, x=UNGIVEN, n=UNGIVEN, /, *args, **kwargs):"
    )
    assert "type(n) is int" in text
    assert (
        "if type(y) in REAL and (type(dw) is ndarray and dw.dtype is float64)"
        " and (type(db) in FLOAT_GRADIENTS):" in text
    )
    assert "return (y, (dw, db))" in text
    assert f.value_and_grad(w, 0.2, x, 5)[1][1] == pytest.approx(db)  # through the branch


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda g: g(np.float64(0.7)), id="numpy-scalar"),
        pytest.param(lambda g: g(x=0.7), id="keyword"),
        pytest.param(lambda g: g(np.float32(0.7)), id="float32"),
    ],
)
def test_other_calls_take_the_general_path(call: Any) -> None:
    g = srcad.grad(cubic)
    assert g(0.7) == pytest.approx(cubic_derivative_fd(0.7), rel=1e-6)
    assert float(call(g)) == pytest.approx(cubic_derivative_fd(0.7), rel=1e-5)


def _constant(x: Any) -> Any:
    return 3.0


def test_a_symbolic_zero_gradient_is_materialised() -> None:
    g = srcad.grad(_constant)
    assert g(0.7) == 0.0 and type(g(0.7)) is float
    zeros = g(np.ones(3))
    assert isinstance(zeros, np.ndarray) and zeros.shape == (3,) and not zeros.any()


def _returns_none(x: Any) -> Any:
    x * 2.0


@pytest.mark.parametrize("make", [srcad.grad, srcad.value_and_grad])
def test_a_function_returning_none_is_refused(make: Any) -> None:
    with pytest.raises(SrcadError, match="returned NoneType"):
        make(_returns_none)(1.0)


def _clashing(args: Any, REGISTRY: Any, dargs: Any) -> Any:  # noqa: N803
    return args * REGISTRY * dargs


def _builtin_names(type: Any, len: Any, float: Any) -> Any:
    return type * len * float


@pytest.mark.parametrize("function", [_clashing, _builtin_names])
def test_parameter_names_never_clash_with_the_entrys_own(function: Any) -> None:
    """Nor with the builtins it reads (`type(x) is float`, `len`)."""
    g = srcad.grad(function, wrt=(0, 1, 2))
    for _ in range(2):  # the general path, then the branch
        assert g(2.0, 3.0, 5.0) == pytest.approx((15.0, 10.0, 6.0))
    assert "(arg0=UNGIVEN, arg1=UNGIVEN, arg2=UNGIVEN, /," in _entry_text(g) or (
        "(arg0=UNGIVEN, arg1=UNGIVEN, dargs=UNGIVEN, /," in _entry_text(g)
    )


def _scaled_power(x: Any, n: Any = 3, scale: Any = 1.0) -> Any:
    return scale * x**n


@pytest.mark.parametrize("make", [srcad.grad, srcad.value_and_grad])
def test_calls_passing_any_number_of_arguments_any_way(make: Any) -> None:
    """Branches for one, two and three positional arguments; then calls passing fewer,
    more (refused), and some by keyword, each against central differences."""
    g = make(_scaled_power)

    def derivative(*args: Any, **kwargs: Any) -> Any:
        if not args:
            args, kwargs = (kwargs.pop("x"),), kwargs
        return difference(lambda x: _scaled_power(x, *args[1:], **kwargs), (args[0],))

    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((0.7,), {}), ((0.7, 2), {}), ((0.7, 2, 1.5), {}), ((0.7,), {}), ((0.7, 4, 0.5), {}),
        ((0.7,), {"n": 2}), ((0.7, 2), {"scale": 3.0}), ((), {"x": 0.7, "scale": 2.0}),
        ((np.float64(0.7), 2, 1.5), {}),
    ]  # fmt: skip
    for _ in range(2):  # the general path, then the branches
        for args, kwargs in calls:
            got = g(*args, **kwargs)
            gradient = got[1] if make is srcad.value_and_grad else got
            assert gradient == pytest.approx(derivative(*args, **kwargs), rel=1e-6)
    text = _entry_text(g)
    assert "(x=UNGIVEN, n=UNGIVEN, scale=UNGIVEN, /, *args, **kwargs)" in text
    assert "if x is not UNGIVEN and n is UNGIVEN:" in text
    assert "if n is not UNGIVEN and scale is UNGIVEN:" in text
    assert "if scale is not UNGIVEN:" in text
    with pytest.raises(SrcadError, match="argument"):
        g(0.7, 2, 1.5, 4.0)  # one too many
    with pytest.raises(SrcadError, match="argument"):
        g()


def test_a_rule_registered_later_takes_over_the_branches() -> None:
    def scaled(x: Any) -> Any:
        return 2.0 * x

    def uses(x: Any) -> Any:
        return scaled(x) + 1.0

    g = srcad.grad(uses)
    assert g(1.5) == pytest.approx(2.0)
    assert g(1.5) == pytest.approx(2.0)

    @srcad.rrule.register(scaled)
    def _scaled_rrule(x: Any) -> Any:  # a deliberately different derivative, to tell
        return 2.0 * x, lambda y_bar: (NoTangent(), 3.0 * y_bar)

    assert g(1.5) == pytest.approx(3.0)
    assert f"REGISTRY.version == {srcad.registry.REGISTRY.version}" in _entry_text(g)
    assert g(1.5) == pytest.approx(3.0)


def test_second_derivative_of_a_gradient_entry() -> None:
    second = srcad.grad(srcad.grad(cubic))
    assert second(0.7) == pytest.approx(6.0 * 0.7)


def _numpy_scalar_gradient(x: Any) -> Any:
    return np.sin(x) * np.float64(2.0) + np.sum(np.array([np.cos(x * k) for k in range(3)]))


def test_a_numpy_float64_gradient_of_a_float_is_returned_by_the_branch() -> None:
    """A float argument's gradient the code computes as a NumPy float64 (`np.cos(x)`) is
    what `finish` would return: the branch returns it without going there."""
    g = srcad.grad(_numpy_scalar_gradient)
    first = g(0.7)
    assert type(first) is np.float64

    def finish(*args: Any) -> Any:
        raise AssertionError("the branch went to finish")

    g.srcad_dispatcher.namespace["finish"] = finish
    step = 1e-6
    for x in (0.7, -1.3, 2.0):
        f = _numpy_scalar_gradient
        expected = (f(x + step) - f(x - step)) / (2 * step)
        gradient = g(x)
        assert type(gradient) is np.float64
        assert gradient == pytest.approx(expected, rel=1e-6)


def _power_sum(x: Any, n: Any = 2, scale: Any = 1.0, shift: Any = 0.0) -> Any:
    return scale * x**n + shift * x


def test_threads_calling_while_the_entry_gains_parameters() -> None:
    """Branches for one to four arguments are added while other threads call the entry:
    its defaults grow before its code is replaced, so every call gets its own numbers."""
    calls = [(0.7,), (0.7, 3), (0.7, 3, 2.0), (0.7, 2, 0.5, 1.5), (np.float64(0.7), 2)]
    expected = [difference(lambda x, a=a: _power_sum(x, *a[1:]), (a[0],)) for a in calls]
    shared = srcad.grad(_power_sum)
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def work(index: int) -> None:
        try:
            start.wait()
            for round_ in range(40):
                k = (index + round_) % len(calls)
                assert shared(*calls[k]) == pytest.approx(expected[k], rel=1e-6)
        except BaseException as error:  # (handed to the main thread)
            errors.append(error)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors[0]
    assert "shift=UNGIVEN, /" in _entry_text(shared)

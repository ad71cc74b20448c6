"""Pickling: `@differentiate` functions and the functions `grad`, `value_and_grad`,
`jacobian`, `hessian` and `hessian_vector_product` return pickle by reference (the
function they differentiate by its module and name, `srcad.pickling`), so they go to
`multiprocessing`'s and joblib's workers, which make the same gradient there.

The user's functions live in a module of their own, written to a temporary folder, as a
user's would: a worker process imports it by name.
"""

from __future__ import annotations

import importlib
import multiprocessing
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_vjp
from tests.conftest import sample

MODULE = """
import numpy as np
import srcad


def loss(w, b, x):
    return np.sum(np.tanh(x @ w + b) ** 2)


@srcad.differentiate(wrt=("w", "b"))
def decorated(w, b, x):
    return np.sum(np.sin(x @ w) * b)


def cubic(t, s):
    return t**3 * s


def loss_and_activations(w, b, x):
    h = np.tanh(x @ w + b)
    return np.sum(h**2), {"h": h}
"""

W, B, X = sample((3,), 0), 0.3, sample((4, 3), 1)


@pytest.fixture
def model(tmp_path: Path) -> Iterator[ModuleType]:
    """The user's module, importable by name (`pickled_model`) here and in workers."""
    (tmp_path / "pickled_model.py").write_text(MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("pickled_model")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pickled_model", None)


def _numeric_grad(f: Callable[..., Any], args: tuple[Any, ...], position: int) -> Any:
    return finite_difference_vjp(f, args, 1.0, position)


# What a user pickles, made from the module, and what calling it should give, checked
# against central finite differences of the module's own functions.
CASES: dict[str, Callable[[ModuleType], tuple[Any, tuple[Any, ...], Callable[[Any], None]]]] = {}


def case(fn: Callable[[ModuleType], tuple[Any, tuple[Any, ...], Callable[[Any], None]]]) -> Any:
    CASES[fn.__name__] = fn
    return fn


def _close(expected: Any) -> Callable[[Any], None]:
    def check(got: Any) -> None:
        if isinstance(expected, tuple):
            assert isinstance(got, tuple) and len(got) == len(expected)
            for g, e in zip(got, expected, strict=True):
                np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)

    return check


@case
def grad(m: ModuleType) -> Any:
    args = (W, B, X)
    return srcad.grad(m.loss), args, _close(_numeric_grad(m.loss, args, 0))


@case
def value_and_grad(m: ModuleType) -> Any:
    args = (W, B, X)
    expected = (m.loss(*args), (_numeric_grad(m.loss, args, 0), _numeric_grad(m.loss, args, 1)))

    def check(got: Any) -> None:
        value, (w_bar, b_bar) = got
        _close(expected[0])(value)
        _close(expected[1])((w_bar, b_bar))

    return srcad.value_and_grad(m.loss, wrt=("w", 1)), args, check


@case
def grad_with_aux(m: ModuleType) -> Any:
    args = (W, B, X)
    expected_aux = np.tanh(X @ W + B)

    def check(got: Any) -> None:
        w_bar, aux = got
        _close(_numeric_grad(m.loss, args, 0))(w_bar)
        _close(expected_aux)(aux["h"])

    return srcad.grad(m.loss_and_activations, has_aux=True), args, check


@case
def value_and_grad_with_aux(m: ModuleType) -> Any:
    args = (W, B, X)

    def check(got: Any) -> None:
        (value, aux), b_bar = got
        _close(m.loss(*args))(value)
        _close(np.tanh(X @ W + B))(aux["h"])
        _close(_numeric_grad(m.loss, args, 1))(b_bar)

    return srcad.value_and_grad(m.loss_and_activations, wrt="b", has_aux=True), args, check


@case
def decorated_function(m: ModuleType) -> Any:
    args = (W, B, X)
    return m.decorated, args, _close(m.decorated.func(*args))


@case
def decorated_grad(m: ModuleType) -> Any:
    args = (W, B, X)
    f = m.decorated.func
    expected = (_numeric_grad(f, args, 0), _numeric_grad(f, args, 1))
    return m.decorated.grad, args, _close(expected)


@case
def grad_of_decorated(m: ModuleType) -> Any:
    args = (W, B, X)
    return srcad.grad(m.decorated, wrt=1), args, _close(_numeric_grad(m.decorated, args, 1))


@case
def differentiate_call(m: ModuleType) -> Any:
    args = (W, B, X)
    return srcad.differentiate(m.loss, wrt="b"), args, _close(m.loss(*args))


@case
def jacobian_forward(m: ModuleType) -> Any:
    args = (W, B, X)
    return srcad.jacobian(m.loss, mode="forward"), args, _close(_numeric_grad(m.loss, args, 0))


@case
def hessian(m: ModuleType) -> Any:
    args = (2.0, 3.0)
    return srcad.hessian(m.cubic), args, _close(6 * 2.0 * 3.0)


@case
def hessian_vector_product(m: ModuleType) -> Any:
    args = (2.0, 3.0, 0.5)
    return srcad.hessian_vector_product(m.cubic), args, _close(6 * 2.0 * 3.0 * 0.5)


@case
def second_derivative(m: ModuleType) -> Any:
    args = (2.0, 3.0)
    return srcad.grad(srcad.grad(m.cubic)), args, _close(6 * 2.0 * 3.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip_gives_the_function_back(model: ModuleType, name: str) -> None:
    fn, args, check = CASES[name](model)
    again = pickle.loads(pickle.dumps(fn))
    if name == "differentiate_call":
        # Not bound to a name of its module: pickled as the call that makes it again.
        assert again is not fn and again.wrt == fn.wrt and again.func is fn.func
    else:
        assert again is fn
    check(again(*args))


def test_each_gradient_of_one_function_comes_back_as_itself(model: ModuleType) -> None:
    first, second = srcad.grad(model.loss), srcad.grad(model.loss)
    assert pickle.loads(pickle.dumps(first)) is first
    assert pickle.loads(pickle.dumps(second)) is second


def test_a_function_no_name_finds_is_refused_as_pickle_refuses_it(model: ModuleType) -> None:
    def local(x: float) -> float:
        return x * x

    for fn in (srcad.grad(local), srcad.grad(lambda x: x * x), srcad.jacobian(local)):
        with pytest.raises((pickle.PicklingError, AttributeError)):
            pickle.dumps(fn)


WORKER = """
import pickle, sys
sys.path.insert(0, sys.argv[1])
with open(sys.argv[2], "rb") as file:
    payload = file.read()
fn, args = pickle.loads(payload)
# The same name unpickled again is the same function: compiled once per process (a
# `Differentiable` that no name finds is made again by its call).
import srcad
assert pickle.loads(payload)[0] is fn or sys.argv[3] == "differentiate_call"
print(repr(fn(*args)))
"""


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fresh_process_makes_the_same_function(
    model: ModuleType, name: str, tmp_path: Path
) -> None:
    fn, args, check = CASES[name](model)
    (tmp_path / "payload.pickle").write_bytes(pickle.dumps((fn, args)))
    result = subprocess.run(
        [sys.executable, "-c", WORKER, str(tmp_path), str(tmp_path / "payload.pickle"), name],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    check(eval(result.stdout, {"array": np.array, "np": np}))


def test_a_spawned_pool_maps_a_gradient(model: ModuleType) -> None:
    g = srcad.grad(model.loss, wrt=("w", "b"))
    points = [(W + i, B, X) for i in range(3)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.starmap(g, points)
        values = pool.starmap(model.decorated, points)
    for args, (w_bar, b_bar), value in zip(points, results, values, strict=True):
        np.testing.assert_allclose(w_bar, _numeric_grad(model.loss, args, 0), rtol=1e-6)
        np.testing.assert_allclose(b_bar, _numeric_grad(model.loss, args, 1), rtol=1e-6)
        np.testing.assert_allclose(value, model.decorated.func(*args))


def test_joblib_maps_a_gradient(model: ModuleType) -> None:
    joblib = pytest.importorskip("joblib")
    points = [(W + i, B, X) for i in range(3)]
    g = srcad.grad(model.loss)
    results = joblib.Parallel(n_jobs=2)(joblib.delayed(g)(*args) for args in points)
    for args, w_bar in zip(points, results, strict=True):
        np.testing.assert_allclose(w_bar, _numeric_grad(model.loss, args, 0), rtol=1e-6)
    results = joblib.Parallel(n_jobs=2)(joblib.delayed(model.decorated.grad)(*a) for a in points)
    for args, got in zip(points, results, strict=True):
        _close(model.decorated.grad(*args))(got)


def test_names_read_as_the_call_that_makes_the_function(model: ModuleType) -> None:
    g = srcad.value_and_grad(model.loss, wrt=("w", 1))
    assert g.__module__ == "srcad.pickling"
    # (followed by `  # 2` where a function made by the same call earlier is still alive)
    call = g.__qualname__.split("  # ")[0]
    assert call == "value_and_grad('pickled_model:loss', wrt=('w', 'b'))"
    text = textwrap.dedent(repr(srcad.grad(srcad.grad(model.cubic))))
    assert "grad(grad('pickled_model:cubic', wrt='t'), wrt='t')" in text

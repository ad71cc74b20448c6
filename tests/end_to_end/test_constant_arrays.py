"""Issue 19, item 1: a module-level float64 (or integer) array the code reads has a kind,
guarded on entry by its identity, dtype and number of dimensions, so the code after it
stays specialised. Rebinding it, reshaping or retyping it in place sends the next call to
code compiled for what it is then; changing its contents needs nothing: they are read when
the code runs. Each gradient is checked against central differences."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import user_module

MODULE = """
import numpy as np

WEIGHTS = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
INDEX = np.array([2, 0, 1])


def projected(x):
    return np.sum(np.tanh(WEIGHTS @ x) ** 2)


def gathered(x):
    return np.sum(np.sin(x[INDEX]) * x)


def rows(x):
    total = 0.0
    for row in WEIGHTS:
        total = total + np.sum(np.sin(row * x))
    return total
"""


@pytest.fixture
def module(tmp_path: Path) -> Any:
    return user_module(tmp_path, "constant_arrays", MODULE)


def central(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step.flat[i] = h
        out.flat[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def check(f: Any, x: np.ndarray) -> None:
    np.testing.assert_allclose(srcad.grad(f)(x), central(f, x), rtol=1e-6, atol=1e-8)


X = np.array([0.3, -0.8, 1.1])


@pytest.mark.parametrize("name", ["projected", "gathered", "rows"])
def test_code_reading_a_module_array_is_specialised(module: Any, name: str) -> None:
    f = getattr(module, name)
    check(f, X)
    text = COMPILER.compiled(f, None, Request.grad(signature((X,)))).source
    if name != "gathered":  # (an index array: a rule call, whose result has a kind)
        assert "_rrule(" not in text  # every derivative inlined: the array has a kind
    assert "WEIGHTS_2 = WEIGHTS" in text or "INDEX_2 = INDEX" in text


# What happens to the array after the first gradient: rebound to another array or value,
# changed in place (contents, shape, dtype).
def _rebind(value: Any) -> Any:
    return lambda module, name: setattr(module, name, value)


def _in_place(change: Any) -> Any:
    return lambda module, name: change(getattr(module, name))


def _reshape(a: np.ndarray) -> None:
    a.shape = (a.size,) if a.ndim > 1 else (1, a.size)


def _retype(a: np.ndarray) -> None:
    """Read its bytes as another dtype: a float array as small ints, an int array as floats."""
    if a.dtype == np.float64:
        a[...] = np.arange(a.size).reshape(a.shape).view(np.float64)
    a.dtype = np.int64 if a.dtype == np.float64 else np.float64


def _fill(a: np.ndarray) -> None:
    a[...] = a[::-1] if a.dtype.kind == "i" else 2.0 * a


CHANGES = {
    "another array": _rebind(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.2]])),
    "one dimension": _rebind(np.array([1.0, 2.0, 0.5])),
    "float32": _rebind(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.2]], dtype=np.float32)),
    "int array": _rebind(np.array([[1, 2, 0], [0, 1, 2]])),
    "a list": _rebind([[1.0, 2.0, 3.0]]),
    "a float": _rebind(0.5),
    "contents": _in_place(_fill),
    "reshaped": _in_place(_reshape),
    "retyped": _in_place(_retype),
}


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize(("name", "constant"), [("projected", "WEIGHTS"), ("gathered", "INDEX"),
                                                ("rows", "WEIGHTS")])  # fmt: skip
def test_a_changed_array_gives_the_right_numbers(
    module: Any, name: str, constant: str, change: str
) -> None:
    f = getattr(module, name)
    gradient = srcad.grad(f)
    gradient(X)  # compiled for the array as it was
    CHANGES[change](module, constant)
    try:
        expected = central(f, X)
    except Exception as error:  # the primal refuses it: so does the derivative
        with pytest.raises(type(error)):
            gradient(X)
        return
    if not np.all(np.isfinite(expected)):
        return
    rtol = 1e-4 if np.asarray(getattr(module, constant)).dtype == np.float32 else 1e-6
    np.testing.assert_allclose(gradient(X), expected, rtol=rtol, atol=1e-7)


def test_new_contents_need_no_new_compilation(module: Any) -> None:
    request = Request.grad(signature((X,)))
    first = COMPILER.compiled(module.projected, None, request)
    module.WEIGHTS *= 3.0
    assert COMPILER.compiled(module.projected, None, request) is first
    check(module.projected, X)
    module.WEIGHTS.shape = (3, 2)
    assert COMPILER.compiled(module.projected, None, request) is first  # still 2-d
    module.WEIGHTS.shape = (6,)
    assert COMPILER.compiled(module.projected, None, request) is not first

"""Issue 19, parameters in containers: an item read from a tuple, list or dict parameter by
a constant key (`params["w"]`, `layers[0]`, `t[-1]`) is plain indexing in the emitted
code, its cotangent added into a variable of that key's, and the parameter's cotangent made
from those once, at the end (`entries_tangent`), in place of a rule call and a structural
`Tangent` added per read. Each gradient against central differences of every leaf."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import srcad


def dict_reads(p, x):
    return np.sum(np.tanh(x @ p["w"] + p["b"])) + p["b"] * np.sum(p["w"] ** 2)


def tuple_reads(t, x):
    return np.sum(t[0] * x) + t[-1] ** 2 * np.sum(t[0])  # t[1] is not read


def loop_reads(p, x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(p["w"] * x) * p["c"] * i
    return s


def unpacked_and_read(t, x):
    a, b = t
    return np.sum(a * x) + np.sum(t[0] ** 2) + b * t[1]


def helper(p, x):
    return np.sum(p["w"] * x)


def passed_whole_and_read(p, x):
    return helper(p, x) * p["c"] + np.sum(np.sin(p["w"]))


def list_reads(layers, x):
    return np.sum(np.cos(x @ layers[0] + layers[1]))


def branch_reads(p, x):
    if np.sum(x) > 0:
        return np.sum(p["w"] * x)
    return p["c"] * 2.0


r = np.random.default_rng(0)
X = r.standard_normal((4, 3))
CASES = [
    (dict_reads, {"w": r.standard_normal(3), "b": 0.3}, X),
    (tuple_reads, (r.standard_normal(3), r.standard_normal(2), 0.7), r.standard_normal(3)),
    (loop_reads, {"w": r.standard_normal(3), "c": -1.2, "unused": 4.0}, r.standard_normal(3)),
    (unpacked_and_read, (r.standard_normal(3), 0.4), r.standard_normal(3)),
    (passed_whole_and_read, {"w": r.standard_normal(3), "c": 0.9}, r.standard_normal(3)),
    (list_reads, [r.standard_normal((3, 2)), r.standard_normal(2)], X),
    (branch_reads, {"w": r.standard_normal(3), "c": 0.9}, np.ones(3)),
    (branch_reads, {"w": r.standard_normal(3), "c": 0.9}, -np.ones(3)),
]


def _leaves(value: Any) -> list[tuple[Any, ...]]:
    """The paths to the float leaves of a container."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    return [(k,) for k, v in items if isinstance(v, float | np.ndarray)]


def _differences(f: Any, p: Any, x: np.ndarray, key: Any) -> Any:
    """The derivative of `f` in the leaf `p[key]`, by central differences."""
    leaf = np.asarray(p[key], dtype=float)
    found = np.zeros(leaf.shape)
    for index in np.ndindex(leaf.shape):
        values = []
        for step in (1e-6, -1e-6):
            moved = copy.deepcopy(p) if not isinstance(p, tuple) else list(p)
            shifted = leaf.copy()
            shifted[index] += step
            moved[key] = shifted if leaf.ndim else float(shifted)
            values.append(f(tuple(moved) if isinstance(p, tuple) else moved, x))
        found[index] = (values[0] - values[1]) / 2e-6
    return found


@pytest.mark.parametrize(("f", "p", "x"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradient_against_differences(f: Any, p: Any, x: np.ndarray) -> None:
    gradient = srcad.grad(f)(p, x)
    assert type(gradient) is type(p)
    for (key,) in _leaves(p):
        want = _differences(f, p, x, key)
        np.testing.assert_allclose(gradient[key], want, rtol=1e-6, atol=1e-8)
    if isinstance(p, dict) and "unused" in p:
        assert gradient["unused"] == 0.0


@pytest.mark.parametrize(("f", "p", "x"), CASES[:3], ids=lambda c: getattr(c, "__name__", ""))
def test_no_rule_call_for_the_reads(f: Any, p: Any, x: np.ndarray) -> None:
    text = srcad.source(f, args=(p, x))
    assert "getitem_rrule" not in text and "entries_tangent" in text, text


@pytest.mark.parametrize(("f", "p", "x"), CASES[:2], ids=lambda c: getattr(c, "__name__", ""))
def test_second_order_in_the_other_argument(f: Any, p: Any, x: np.ndarray) -> None:
    """The Hessian in `x`, with the container beside it, against differences of the
    gradient."""
    hessian = np.asarray(srcad.hessian(f, wrt=1)(p, x)).reshape(x.size, x.size)
    gradient = srcad.grad(f, wrt=1)
    for k in range(x.size):
        step = np.zeros(x.size)
        step[k] = 1e-5
        column = gradient(p, x + step.reshape(x.shape)) - gradient(p, x - step.reshape(x.shape))
        np.testing.assert_allclose(hessian[:, k], column.reshape(-1) / 2e-5, rtol=1e-5, atol=1e-7)


def unpacked(t, x):
    w, b = t
    return np.mean(np.exp(x @ w + b))


@pytest.mark.parametrize(
    ("f", "p", "x"),
    [*CASES[:2], (unpacked, (r.standard_normal(3), 0.5), X)],
    ids=lambda c: getattr(c, "__name__", ""),
)
def test_the_gradient_alone_leaves_the_value_out(f: Any, p: Any, x: np.ndarray) -> None:
    """The items' kinds are known in the emitted code too (plain reads, and the library's
    `unpack_rrule` read by `ValueKinds`), so the value is proven a float, and `grad` does
    not compute it."""
    from srcad.defaults import COMPILER, Request
    from srcad.kinds import signature

    compiled = COMPILER.compiled(f, None, Request.grad(signature((p, x)), value=False))
    assert compiled.value_left_out
    value, _ = compiled.function(p, x)
    assert value is None


def last_layer(layers, x):
    h = x
    for w, b in layers[:-1]:
        h = np.tanh(h @ w + b)
    w, b = layers[-1]
    return np.mean((h @ w + b) ** 2)


def test_an_item_that_is_a_container_too() -> None:
    """`W, b = layers[-1]`: the tuple's cotangent goes into the list's, at its place."""
    layers = [(r.standard_normal((3, 3)), r.standard_normal(3)) for _ in range(3)]
    x = r.standard_normal((2, 3))
    gradient = srcad.grad(last_layer)(layers, x)
    assert type(gradient) is list and all(type(g) is tuple for g in gradient)
    for position in range(3):
        for part in range(2):

            def moved(value: Any, position: int = position, part: int = part) -> Any:
                changed = [list(layer) for layer in layers]
                changed[position][part] = value
                return last_layer([tuple(layer) for layer in changed], x)

            leaf = layers[position][part]
            want = _differences(lambda d, _: moved(d[0]), {0: leaf}, x, 0)
            np.testing.assert_allclose(gradient[position][part], want, rtol=1e-6, atol=1e-8)
    assert "entries_tangent(layers, {2:" in srcad.source(last_layer, args=(layers, x))

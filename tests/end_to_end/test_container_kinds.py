"""Issue 19, item 1: a container parameter (tuple, list, dict, NamedTuple, dataclass of
arrays and floats) has a kind with its structure (`srcad.kinds.Structure`), which `grad`'s
entry tests inline, and what the code reads of it keeps its items' kinds. Each case is
checked against central differences; then the same gradient function is called with
another structure (length, keys, type, an item's dtype or dimensions), which must compile
again or take the general path, never reuse the code specialised for the first."""

from __future__ import annotations

import dataclasses
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

import srcad
from srcad.errors import MutationError
from srcad.kinds import Structure, argument_kind, describe, signature
from srcad.trees import children, leaves
from tests.conftest import user_module

MODULE = """
import numpy as np


def mlp(params, X, y):
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1 + b1)
    return np.mean((h @ W2 + b2 - y) ** 2)


def indexed(params, X, y):
    h = np.tanh(X @ params[0] + params[1])
    return np.mean((h @ params[-2] + params[-1] - y) ** 2)


def keyed(params, X, y):
    mean = X @ params["w"] + params["b"]
    return 0.5 * np.mean((y - mean) ** 2 * np.exp(-params["s"]) + params["s"])


def fields(params, X, y):
    mean = X @ params.w + params.b
    return np.mean(np.sin(mean - y) ** 2) * params.scale


def unpacked_fields(params, X, y):
    w, b, scale = params
    mean = X @ w + params[1]
    return np.mean(np.sin(mean - y) ** 2 * scale) + b


def layers(layers, X, y):
    h = X
    for W, b in layers[:-1]:
        h = np.tanh(h @ W + b)
    W, b = layers[-1]
    return np.mean((h @ W + b - y) ** 2)


def scalars(coefficients, x):
    a, b, c = coefficients
    return np.sum(a * x * x + b * np.sin(x)) + c * c


def any_length(items, x):
    total = 0.0
    for item in items:
        total = total + np.sum(item * x)
    return total


def by_index(items, x):
    total = 0.0
    for i in range(len(items)):
        total = total + np.sum(items[i] * x)
    return total


def appends(items, x):
    items.append(x)
    return items[0] * x
"""


class Params(NamedTuple):
    w: Any
    b: Any
    scale: Any


@dataclasses.dataclass
class DataParams:
    w: Any
    b: Any
    scale: Any


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return user_module(Path(tmp_path_factory.mktemp("containers")), "container_kinds", MODULE)


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _mlp_params(seed: int = 0) -> tuple[np.ndarray, ...]:
    r = _rng(seed)
    return (r.standard_normal((3, 4)), r.standard_normal(4), r.standard_normal(4), 0.3)


def _data(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    r = _rng(seed)
    return r.standard_normal((5, 3)), r.standard_normal(5)


def _replaced(tree: Any, new: list[float], widen: bool = False) -> Any:
    """`tree` with its float leaves taken in order from `new` (arrays element by element),
    in float64 where `widen`."""
    found = children(tree)
    if found is None:
        if isinstance(tree, np.ndarray):
            values = [new.pop(0) for _ in range(tree.size)]
            dtype = np.float64 if widen else tree.dtype
            return np.array(values, dtype=dtype).reshape(tree.shape)
        if isinstance(tree, float):
            return float(new.pop(0)) if widen else type(tree)(new.pop(0))
        return tree
    keys, rebuild = found
    parts = [tree[k] if not hasattr(tree, "_fields") and not dataclasses.is_dataclass(tree)
             else getattr(tree, k) for k in keys]  # fmt: skip
    return rebuild([_replaced(p, new, widen) for p in parts])


def _flat(tree: Any) -> list[float]:
    return [float(v) for leaf in leaves(tree) for v in np.ravel(leaf)
            if isinstance(leaf, float | np.ndarray)]  # fmt: skip


def numeric_gradient(f: Any, args: tuple[Any, ...], position: int = 0) -> list[float]:
    """Central differences of `f` with respect to every float of `args[position]`."""
    x = _flat(args[position])
    found = []
    for i in range(len(x)):
        h = 1e-6 * max(1.0, abs(x[i]))
        values = []
        for step in (h, -h):
            moved = list(x)
            moved[i] += step
            changed = list(args)
            changed[position] = _replaced(args[position], moved)
            values.append(f(*changed))
        found.append((values[0] - values[1]) / (2 * h))
    return found


def check(grad_f: Any, f: Any, args: tuple[Any, ...]) -> Any:
    """`grad_f(*args)` has the argument's structure and agrees with central differences
    (of the function in float64, where an item is a float32)."""
    got = grad_f(*args)
    assert type(got) is type(args[0])
    if isinstance(got, dict):
        assert list(got) == list(args[0])
    single = any(np.asarray(leaf).dtype == np.float32 for leaf in leaves(args[0]))
    wide = _replaced(args[0], _flat(args[0]), widen=True)
    expected = numeric_gradient(f, (wide, *args[1:]))
    rtol, atol = (1e-4, 1e-5) if single else (1e-6, 1e-8)
    np.testing.assert_allclose(_flat(got), expected, rtol=rtol, atol=atol)
    return got


def _branches(grad_f: Any) -> list[Any]:
    return [kinds[0] for kinds in grad_f.__dict__["srcad_dispatcher"].branches]


def test_a_container_has_its_structure_as_its_kind() -> None:
    kind = argument_kind((np.zeros((2, 3)), [1.0, {"w": np.zeros(2)}], Params(1.0, 2.0, 3.0)))
    assert isinstance(kind, Structure)
    expected = (
        "tuple(float[:, :], list(float, dict(w=float[:])), Params(w=float, b=float, scale=float))"
    )
    assert describe(kind) == expected
    assert argument_kind(("a", "b")) is None  # no item of a known kind: nothing to specialise
    assert argument_kind(()) is None and argument_kind([0.0] * 100) is None  # too long
    assert signature(({"w": 1.0, "b": 2.0},)) != signature(({"b": 2.0, "w": 1.0},))
    assert signature(((1.0, 2.0),)) != signature(([1.0, 2.0],))


@pytest.mark.parametrize("name", ["mlp", "indexed"])
def test_a_tuple_of_parameters_is_specialised(module: Any, name: str) -> None:
    f = getattr(module, name)
    grad_f = srcad.grad(f)
    args = (_mlp_params(), *_data())
    check(grad_f, f, args)
    text = srcad.source(f, args=args)
    assert "matmul_rrule" not in text and "tanh_rrule" not in text  # items' kinds known
    assert isinstance(_branches(grad_f)[0], Structure)  # the entry tests the structure
    check(grad_f, f, args)  # through the entry's branch


@pytest.mark.parametrize("name", ["mlp", "indexed"])
def test_a_tuple_of_another_structure_afterwards_is_not_given_the_old_code(
    module: Any, name: str
) -> None:
    f = getattr(module, name)
    grad_f = srcad.grad(f)
    w1, b1, w2, b2 = _mlp_params()
    x, y = _data()
    check(grad_f, f, ((w1, b1, w2, b2), x, y))
    check(grad_f, f, ([w1, b1, w2, b2], x, y))  # a list
    check(grad_f, f, ((w1, b1, w2, np.array([b2])), x, y))  # an item's dimensions
    check(grad_f, f, ((w1, b1, w2[:, None], b2), x, y[:, None]))
    check(grad_f, f, ((w1, b1.astype(np.float32), w2, b2), x, y))  # an item's dtype
    check(grad_f, f, ((w1, b1, w2, np.float32(b2)), x, y))
    check(grad_f, f, ((w1, b1, w2, b2), x, y))  # the first again
    if name == "indexed":
        check(grad_f, f, ((w1, b1, 0.0, w2, b2), x, y))  # another length
        check(grad_f, f, ((w1, b1, "unused", w2, b2), x, y))
    else:
        with pytest.raises(ValueError, match="unpack"):
            grad_f((w1, b1, w2), x, y)
    assert len(set(_branches(grad_f))) == len(_branches(grad_f))


def test_a_dict_of_parameters(module: Any) -> None:
    grad_f = srcad.grad(module.keyed)
    r = _rng(3)
    params = {"w": r.standard_normal(3), "b": 0.2, "s": r.standard_normal(5)}
    args = (params, *_data())
    check(grad_f, module.keyed, args)
    assert "exp_rrule" not in srcad.source(module.keyed, args=args)
    check(grad_f, module.keyed, args)
    reordered = {"s": params["s"], "b": params["b"], "w": params["w"]}
    check(grad_f, module.keyed, (reordered, *args[1:]))  # the same keys in another order
    check(grad_f, module.keyed, ({**params, "extra": 1.0}, *args[1:]))  # another key
    check(grad_f, module.keyed, ({**params, "s": 0.5}, *args[1:]))  # an item's kind
    with pytest.raises(KeyError):
        grad_f({"w": params["w"], "b": 0.2, "t": 0.5}, *args[1:])  # same length, other keys


@pytest.mark.parametrize("cls", [Params, DataParams])
def test_a_named_tuple_or_dataclass_of_parameters(module: Any, cls: type) -> None:
    grad_f = srcad.grad(module.fields)
    r = _rng(4)
    params = cls(r.standard_normal(3), 0.1, 2.0)
    args = (params, *_data())
    check(grad_f, module.fields, args)
    assert "sin_rrule" not in srcad.source(module.fields, args=args)
    check(grad_f, module.fields, args)
    check(grad_f, module.fields, (cls(params.w, r.standard_normal(5), 2.0), *args[1:]))
    check(grad_f, module.fields, (cls(params.w[:, None], 0.1, 2.0), *args[1:2], args[2][:, None]))


def test_a_named_tuple_unpacked_and_indexed(module: Any) -> None:
    grad_f = srcad.grad(module.unpacked_fields)
    args = (Params(_rng(6).standard_normal(3), 0.1, 2.0), *_data())
    check(grad_f, module.unpacked_fields, args)
    assert "sin_rrule" not in srcad.source(module.unpacked_fields, args=args)
    check(grad_f, module.unpacked_fields, args)
    check(grad_f, module.unpacked_fields, ((args[0].w, 0.1, 2.0), *args[1:]))  # a plain tuple
    check(grad_f, module.unpacked_fields, (Params(args[0].w, 0.1, np.ones(5)), *args[1:]))


def test_a_list_of_layers_iterated_and_sliced(module: Any) -> None:
    grad_f = srcad.grad(module.layers)
    r = _rng(5)
    widths = [3, 4, 4, 1]
    layers = [(r.standard_normal((a, b)), r.standard_normal(b)) for a, b in pairwise(widths)]
    x, y = _data()
    args = (layers, x, y[:, None])
    check(grad_f, module.layers, args)
    assert "tanh_rrule" not in srcad.source(module.layers, args=args)
    check(grad_f, module.layers, (layers[1:], x[:, :1] @ np.ones((1, 4)), y[:, None]))  # shorter
    mixed = [*layers[:-1], (layers[-1][0], 0.5)]  # the last layer's bias a float
    check(grad_f, module.layers, (mixed, x, y[:, None]))


def test_a_tuple_of_floats(module: Any) -> None:
    grad_f = srcad.grad(module.scalars)
    check(grad_f, module.scalars, ((1.5, -0.5, 2.0), 0.7))
    assert "sin_rrule" not in srcad.source(module.scalars, args=((1.5, -0.5, 2.0), 0.7))
    check(grad_f, module.scalars, ((1.5, -0.5, 2.0), 0.7))
    check(grad_f, module.scalars, ([1.5, -0.5, 2.0], 0.7))
    check(grad_f, module.scalars, ((1.5, np.array([-0.5, 1.0]), 2.0), 0.7 + np.zeros(2)))
    check(grad_f, module.scalars, ((1.5, -0.5, np.float32(2.0)), 0.7))


@pytest.mark.parametrize("name", ["any_length", "by_index"])
def test_items_of_one_kind_at_any_index(module: Any, name: str) -> None:
    f = getattr(module, name)
    grad_f = srcad.grad(f)
    for length in (1, 3, 2):
        r = _rng(length)
        items = tuple(r.standard_normal(4) for _ in range(length))
        check(grad_f, f, (items, r.standard_normal(4)))
    check(grad_f, f, ((np.ones(4), np.ones((2, 4))), np.ones(4)))  # items of two kinds


def test_a_list_parameter_is_never_changed(module: Any) -> None:
    with pytest.raises(MutationError):
        srcad.grad(module.appends)([1.0, 2.0], 3.0)


def test_value_and_grad_with_respect_to_a_container_and_more(module: Any) -> None:
    f = module.mlp
    args = (_mlp_params(), *_data())
    value, (dparams, dx) = srcad.value_and_grad(f, wrt=(0, 1))(*args)
    assert value == pytest.approx(f(*args))
    np.testing.assert_allclose(_flat(dparams), numeric_gradient(f, args), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(_flat(dx), numeric_gradient(f, args, 1), rtol=1e-6, atol=1e-8)

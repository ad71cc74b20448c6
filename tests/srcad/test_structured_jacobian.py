"""`srcad.jacobian` of a function whose result is a structure (srcad/structured_jacobian.py):
the result's structure holding, per float leaf, the argument's structure of blocks, in both
modes, against central differences. Before, reverse mode crashed (a NumPy error on the
result's shape, or a float indexed) and forward mode gave an object array of tangents."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import difference, user_module

SOURCE = """
import dataclasses
from typing import NamedTuple

import numpy as np


class Pair(NamedTuple):
    w: np.ndarray
    b: float


@dataclasses.dataclass
class Fit:
    mean: np.ndarray
    spread: float
    count: int


def as_dict(x):
    return {"a": x * x, "b": np.sum(x), "n": len(x)}


def as_pair(x):
    return Pair(np.sin(x)[:2], float(np.sum(x ** 2)))


def as_dataclass(x):
    return Fit(np.exp(x) * x[0], float(np.std(x)), 3)


def as_mixed_tuple(x):
    return np.sum(x * x), x[1:] * 2.0, 3, x[0] > 0, None


def as_nested(x):
    return {"inner": (x[:2] * x[1:], {"deep": np.cumsum(x)}), "total": np.prod(x)}


def of_a_structure(p, x):
    return {"y": x @ p["w"], "z": (p["b"] * 2.0, np.sum(p["w"] ** 2))}
"""

X = np.array([0.7, -1.3, 0.4])


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return user_module(Path(tmp_path_factory.mktemp("structured")), "structured_outputs", SOURCE)


def _leaf_blocks(f: Any, args: tuple[Any, ...], position: int) -> list[np.ndarray]:
    """Per float leaf of the result, its Jacobian in argument `position` by differences."""
    y = f(*args)
    found = []
    for k, leaf in enumerate(srcad.trees.leaves(y)):
        if isinstance(leaf, bool | int | type(None)) or np.asarray(leaf).dtype.kind in "biu":
            continue

        def part(*a: Any, k: int = k) -> Any:
            return np.asarray(srcad.trees.leaves(f(*a))[k], dtype=float)

        found.append(difference(part, args, position))
    return found


def _float_leaves(value: Any) -> list[Any]:
    return [v for v in srcad.trees.leaves(value) if not isinstance(v, srcad.NoTangent)]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize(
    "name", ["as_dict", "as_pair", "as_dataclass", "as_mixed_tuple", "as_nested"]
)
def test_the_jacobian_of_a_structured_result(module: Any, name: str, mode: str) -> None:
    f = getattr(module, name)
    got = srcad.jacobian(f, mode=mode)(X)
    y = f(X)
    assert type(got) is type(y)
    if dataclasses.is_dataclass(y):
        assert isinstance(got.count, srcad.NoTangent)
    blocks = _float_leaves(got)
    want = _leaf_blocks(f, (X,), 0)
    assert len(blocks) == len(want)
    for block, expected in zip(blocks, want, strict=True):
        np.testing.assert_allclose(block, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_structured_result_of_a_structured_argument(module: Any, mode: str) -> None:
    """`{"y": x @ w, "z": (2 b, sum(w^2))}` in `p = {"w", "b"}` and in `x`: each leaf of the
    result holds `p`'s structure of blocks (or `x`'s block)."""
    p = {"w": np.array([0.5, -0.2, 1.1]), "b": np.array([0.3, 0.9])}
    x = np.arange(6.0).reshape(2, 3) / 5.0
    f = module.of_a_structure
    in_p, in_x = srcad.jacobian(f, wrt=(0, 1), mode=mode)(p, x)

    def y_in_w(w: np.ndarray) -> Any:
        return f({**p, "w": w}, x)["y"]

    np.testing.assert_allclose(in_p["y"]["w"], difference(y_in_w, (p["w"],)), atol=1e-8)
    np.testing.assert_allclose(in_p["y"]["b"], np.zeros((2, 2)), atol=1e-12)
    np.testing.assert_allclose(in_p["z"][0]["b"], 2.0 * np.eye(2), atol=1e-8)
    np.testing.assert_allclose(in_p["z"][1]["w"], 2.0 * p["w"], atol=1e-8)
    np.testing.assert_allclose(in_p["z"][1]["b"], np.zeros(2), atol=1e-12)

    def y_in_x(x: np.ndarray) -> Any:
        return f(p, x)["y"]

    np.testing.assert_allclose(in_x["y"], difference(y_in_x, (x,)), atol=1e-8)
    np.testing.assert_allclose(in_x["z"][1], np.zeros((2, 3)), atol=1e-12)


def test_a_list_of_arrays_of_one_shape_keeps_the_array_layout(module: Any) -> None:
    def stacked(x: np.ndarray) -> Any:
        return [x * 2.0, np.cumsum(x)]

    for mode in ("reverse", "forward"):
        got = srcad.jacobian(stacked, mode=mode)(X)
        assert isinstance(got, np.ndarray) and got.shape == (2, 3, 3)
        np.testing.assert_allclose(got[1], np.tril(np.ones((3, 3))))

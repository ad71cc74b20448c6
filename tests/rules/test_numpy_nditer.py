"""`np.nditer` read-only (`rules/numpy_flat.py`): its items in the order NumPy iterates
(memory order by default: transposed arrays, axes with negative strides, several operands
broadcast together), through the public API against finite differences (second order too);
the multi-index srcad reads that order with takes NumPy's own; and the options whose items
are not the operands' elements (writes, casts, chunks, the iterator's state), refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedCallError
from srcad.rules.numpy_flat import iterated_items
from tests.conftest import sample
from tests.rules.through_the_api import check_through_api


def squares(x):
    total = 0.0
    for v in np.nditer(x):
        total += v * v
    return total


def in_memory_order(x):
    """Each item weighs the running total, so that the order counts: columns first for the
    transposed matrix, the reversed axis backwards."""
    total = 0.5
    for v in np.nditer(np.reshape(x, (2, 3)).T):
        total = total * np.sin(v) + v
    for v in np.nditer(np.reshape(x * x, (3, 2))[::-1, :]):
        total = total * 0.7 + v
    return total


def broadcast_pairs(x):
    total = 0.0
    weight = 1.0
    for a, b, c in np.nditer([np.reshape(x, (3, 2)).T, x[:3] ** 2, 0.5]):
        total = total + a * np.cos(b[()]) * weight * c
        weight = weight * 1.25
    return total


def in_a_chosen_order(x):
    m = np.reshape(x, (2, 3))[:, ::-1]
    total = 0.0
    for order in ("C", "F", "A", "K"):
        for v in np.nditer(m, order=order, flags=["zerosize_ok"], op_flags=["readonly"]):
            total = total * 0.8 + np.exp(v)
    return total + sum(v for v in np.nditer(x[:0], flags=["zerosize_ok"]))


@pytest.mark.parametrize(
    "f",
    [squares, in_memory_order, broadcast_pairs, in_a_chosen_order],
    ids=lambda f: f.__name__,
)
def test_both_orders_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, sample((6,), 5))


LAYOUTS = {
    "contiguous": np.arange(24.0).reshape(2, 3, 4),
    "transposed": np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1),
    "reversed": np.arange(24.0).reshape(2, 3, 4)[:, ::-1, ::-2],
    "fortran": np.asfortranarray(np.arange(24.0).reshape(4, 6))[1:, ::2],
    "broadcast": np.broadcast_to(np.arange(4.0), (3, 4)),
}


@pytest.mark.parametrize("order", ["K", "C", "F", "A"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_items_are_numpys_in_its_order(layout: str, order: str) -> None:
    """The items' values are those NumPy's iterator reads, and the multi-index srcad reads
    the order with changes nothing: with it, NumPy visits the same memory addresses."""
    m = LAYOUTS[layout]
    plain = [v.__array_interface__["data"][0] for v in np.nditer(m, order=order)]
    iterator = np.nditer(m, ["multi_index"], order=order)
    indexed = [v.__array_interface__["data"][0] for v in iterator]
    assert plain == indexed
    values = [float(v) for v in np.nditer(m, order=order)]
    assert [float(v) for v in iterated_items(m, order=order)] == values
    pairs = iterated_items([m, -m[0]], order=order)
    expected = [(float(a), float(b)) for a, b in np.nditer([m, -m[0]], order=order)]
    assert [(float(a), float(b)) for a, b in pairs] == expected


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"op_flags": [["readwrite"]]}, "readwrite"),
        ({"op_flags": ["writeonly"]}, "writeonly"),
        ({"flags": ["external_loop"]}, "external_loop"),
        ({"flags": ["buffered"], "op_dtypes": [np.float32]}, "op_dtypes"),
        ({"flags": ["multi_index"]}, "multi_index"),
        ({"op_axes": [[0]]}, "op_axes"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_options_that_change_the_items_are_refused(options: dict[str, Any], named: str) -> None:
    def f(x):
        total = 0.0
        for v in np.nditer(x, **options):
            total = total + np.sum(v)
        return total

    for derivative in (srcad.grad(f), lambda x: srcad.jvp(f, (x,), (x,))):
        with pytest.raises(UnsupportedCallError, match=named):
            derivative(np.ones(3))

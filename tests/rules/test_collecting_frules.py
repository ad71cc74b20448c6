"""The forward rules of a list display and of `np.array` of a list take a list of
tangents that are all Python floats or NumPy float64s as it is (`real_numbers`), and any
other (zeros, thunks, structures, another length) as they always did: the same tangents
either way, and derivatives through them against central differences."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad.rules.containers import array_frule, make_list_frule
from srcad.tangents import NoTangent, ZeroTangent, thunk
from tests.conftest import close, difference

F64 = np.float64


@pytest.mark.parametrize(
    ("dots", "want"),
    [
        ((0.5, F64(-1.0), 2.0), [0.5, -1.0, 2.0]),
        ((ZeroTangent(), 0.25, F64(1.0)), [0.0, 0.25, 1.0]),
        ((thunk(lambda: 0.5), 1.5, 2.0), [0.5, 1.5, 2.0]),
        ((ZeroTangent(), ZeroTangent(), ZeroTangent()), None),
    ],
)
def test_a_list_and_its_array(dots: tuple[object, ...], want: list[float] | None) -> None:
    values = (F64(1.0), 2.0, F64(3.0))
    items, items_dot = make_list_frule((NoTangent(), *dots), *values)
    assert items == list(values)
    y, y_dot = array_frule((NoTangent(), items_dot), items)
    assert np.array_equal(y, np.array(values))
    if want is None:
        assert isinstance(items_dot, ZeroTangent) and isinstance(y_dot, ZeroTangent)
    else:
        assert y_dot.dtype == np.float64 and np.array_equal(y_dot, want)


def test_other_lengths_and_kinds_take_the_general_way() -> None:
    assert isinstance(make_list_frule((NoTangent(),))[1], ZeroTangent)
    y, y_dot = array_frule((NoTangent(), [0.5, 1.0]), [1.0, 2.0], np.float32)
    assert y.dtype == np.float32 and y_dot.dtype == np.float32
    y, y_dot = array_frule((NoTangent(), [1, 2]), [3, 4])  # ints: no tangent
    assert isinstance(y_dot, ZeroTangent)
    rows = [[1.0, 2.0], [3.0, 4.0]]
    y, y_dot = array_frule((NoTangent(), [[0.5, 0.0], ZeroTangent()]), rows)
    assert np.array_equal(y_dot, [[0.5, 0.0], [0.0, 0.0]])


def _stacked(x, v):  # type: ignore[no-untyped-def]
    a = x * v[0]
    b = [a, v[1] * v[1], x]
    return np.array([b[0] + b[1], b[2] * a, v[0]])


@pytest.mark.parametrize("position", [0, 1])
def test_derivatives_through_them(position: int) -> None:
    args = (0.7, np.array([1.3, -0.4]))
    want = difference(_stacked, args, position)
    close(srcad.jacobian(_stacked, wrt=position, mode="forward")(*args), want)
    close(srcad.jacobian(_stacked, wrt=position)(*args), want)
    tangent = 0.5 if position == 0 else np.array([0.5, -2.0])
    tangents = (tangent, ZeroTangent()) if position == 0 else (ZeroTangent(), tangent)
    close(srcad.jvp(_stacked, args, tangents)[1], want.reshape(3, -1) @ np.reshape(tangent, -1))

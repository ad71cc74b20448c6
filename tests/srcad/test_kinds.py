"""Kinds of values and signatures, and their notation."""

import numpy as np
import pytest

from srcad.kinds import describe, kind_of, signature
from srcad.signatures import parse_signature


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (1.5, ("f", 0)),
        (np.float64(1.5), ("f", 0)),
        (3, ("i", 0)),
        (np.int32(3), ("i", 0)),
        (np.zeros(3), ("f", 1)),
        (np.zeros((2, 3)), ("f", 2)),
        (np.arange(3), ("i", 1)),
        (True, None),
        (np.float32(1.0), ("f4", 0)),
        (np.zeros(3, dtype=np.float32), ("f4", 1)),
        (np.zeros((2, 3), dtype=np.float32), ("f4", 2)),
        (np.float16(1.0), None),
        (np.zeros(3, dtype=np.float16), None),
        (np.complex64(1.0), ("c8", 0)),
        (np.zeros(3, dtype=np.complex64), ("c8", 1)),
        (np.zeros(3, dtype=complex), ("c", 1)),
        (1j, ("c", 0)),
        (np.complex128(1j), ("c", 0)),
        (np.clongdouble(1j), None),
        (np.array(1.0), None),  # 0-d arrays: the general rules keep them 0-d arrays
        ([1.0, 2.0], None),
        (np.zeros(3, dtype=bool), None),
    ],
)
def test_kind_of(value, kind):
    assert kind_of(value) == kind


def test_signature_and_notation_round_trip():
    args = (1.0, np.zeros((2, 2)), ["a"], np.arange(4))  # (a list of floats: a `Structure`)
    kinds = signature(args)
    assert kinds == (("f", 0), ("f", 2), None, ("i", 1))
    text = ", ".join(map(describe, kinds))
    assert text == "float, float[:, :], ?, int[:]"
    assert parse_signature(text) == kinds


@pytest.mark.parametrize("text", ["double", "float[1]", "?[:]", "float[:"])
def test_parse_signature_refuses_what_it_cannot_read(text):
    with pytest.raises(ValueError, match="kind"):
        parse_signature(text)


def test_list_kinds_join_by_their_elements():
    from srcad.kinds import EMPTY_LIST, FLOAT, INT, PYTHON_FLOAT, describe, join, list_of

    assert join(EMPTY_LIST, list_of(FLOAT)) == list_of(FLOAT) == join(list_of(FLOAT), EMPTY_LIST)
    assert join(list_of(FLOAT), list_of(PYTHON_FLOAT)) == list_of(FLOAT)
    assert join(list_of(FLOAT), FLOAT) is None
    assert list_of(("f", 1)) is None and list_of(None) is None
    assert describe(list_of(FLOAT)) == "list[float]" and describe(list_of(INT)) == "list[int]"

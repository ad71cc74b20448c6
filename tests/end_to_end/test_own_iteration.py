"""A value whose class reads its items its own way, in Python (`__iter__`, `__getitem__`,
`__array__`), has a tangent of its fields, not of those items: unpacking such a dataclass
took the fields' tangents for the items (`jvp` of `p, q = DC(a, b)` with `__iter__`
giving `(2a, 3b)` was 1.8 where 3.3 is right), and the other ways of reading them
crashed. Now each is refused where it runs, naming the user's line; a NamedTuple, which
iterates its fields as a tuple does, is differentiated."""

from typing import NamedTuple

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedCallError
from tests.conftest import close, difference, user_module

CLASSES = """
from dataclasses import dataclass

import numpy as np


@dataclass
class Doubled:
    a: float
    b: float

    def __iter__(self):
        return iter((2.0 * self.a, 3.0 * self.b))


class Generated:
    def __init__(self, v):
        self.v = v

    def __iter__(self):
        yield self.v[0]
        yield 5.0 * self.v[1]


class Indexed:
    def __init__(self, v):
        self.v = v

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return 5.0 * self.v[i]


def unpacked(x):
    p, q = Doubled(x[0], x[1])
    return p * q


def looped(x):
    s = 0.0
    for v in Generated(x):
        s = s + v * v
    return s


def summed(x):
    return sum(Doubled(x[0], x[1])) + max(Generated(x))


def listed(x):
    return sorted(Generated(x))[0] + list(Doubled(x[0], x[1]))[1]


def made_an_array(x):
    return np.sum(np.array(Indexed(x)) ** 2)
"""

READERS = ["unpacked", "looped", "summed", "listed", "made_an_array"]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("iteration"), "own_iteration_cases", CLASSES)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("name", READERS)
def test_items_a_class_computes_itself_are_refused(module, name, mode):
    f = getattr(module, name)
    x = np.array([0.3, 0.7])
    with pytest.raises(UnsupportedCallError, match="computes them") as raised:
        if mode == "grad":
            srcad.grad(f)(x)
        else:
            srcad.jvp(f, (x,), (np.array([1.0, -0.5]),))
    notes = "\n".join(getattr(raised.value, "__notes__", []))
    assert "own_iteration_cases.py" in notes


class Point(NamedTuple):
    a: float
    b: float


def named_tuple_items(x):
    p, q = Point(x[0], 2.0 * x[1])
    return p * q + sum(Point(x[1], x[0])) + max(Point(x[0], x[1]))


def test_a_named_tuple_iterates_its_fields():
    x = np.array([0.3, 0.7])
    want = difference(named_tuple_items, (x,))
    close(srcad.grad(named_tuple_items)(x), want)
    close(srcad.jvp(named_tuple_items, (x,), (np.array([1.0, -0.5]),))[1], want @ [1.0, -0.5])

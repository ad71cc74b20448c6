"""Functions that build dataclasses and NamedTuples, and `dataclasses.replace` them (issue 20).
Read by `test_structs.py`."""

import dataclasses
from typing import NamedTuple

import numpy as np


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float
    scale: float = 2.0


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: float


class Point(NamedTuple):
    x: float
    y: float


@dataclasses.dataclass
class Checked:
    w: float

    def __post_init__(self):
        self.w = self.w * 2.0


def by_keywords(x, y):
    p = Params(w=x * 2.0, b=y[0])
    return np.sum(p.w) * p.b * p.scale


def by_position_and_keyword(x, y):
    p = Params(np.sin(x), y[1], scale=y[0])
    return np.sum(p.w**2) * p.b + p.scale


def frozen_in_a_loop(x, y):
    total = 0.0
    for i in range(2):
        f = Frozen(b=x[i, 0] * y[0], a=y[1])
        total = total + f.a * f.b
    return total


def replaced(x, y):
    p = Params(x * 2.0, 1.0)
    q = dataclasses.replace(p, b=y[1], scale=y[0])
    return np.sum(q.w) * q.b + q.scale * p.b


def make_point(v, y):
    return Point(v[0] * 2.0, np.sin(y[1]))


def namedtuple_from_a_helper(x, y):
    p = make_point(x[1], y)
    return p.x * p.y + p[0] ** 2


def post_init_doubles(x, y):
    c = Checked(x[0, 0] * y[0])
    return c.w * y[1]


@dataclasses.dataclass
class Registered:
    a: float


def builds_registered(x, y):
    return Registered(x[0, 0]).a


STRUCTS = [
    by_keywords,
    by_position_and_keyword,
    frozen_in_a_loop,
    replaced,
    namedtuple_from_a_helper,
    post_init_doubles,  # (its `__post_init__` read: `srcad/dataclass_init.py`)
]

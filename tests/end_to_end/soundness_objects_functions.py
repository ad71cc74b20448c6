"""Functions for test_soundness_objects.py: objects srcad has no rule for (NumPy's index
tricks, classes with `__getitem__`, descriptors), and argument forms of library calls.
(Their source must live in a file, for srcad to read.)"""

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


class Squarer:
    """Indexing computes: `SQUARER[a, b]` is `a * b`, `SQUARER[a]` is `a`."""

    def __getitem__(self, key):
        return np.prod(key)


SQUARER = Squarer()
WEIGHTS = np.array([0.5, -1.5, 2.0])
WEIGHT_LIST = [0.5, -1.5, 2.0]
LABELS = {"a": 2.0, "b": -3.0}


def r_concat(x):
    return np.sum(np.r_[x, x] ** 2)


def c_stack(x):
    return np.sum(np.c_[x, 2.0 * x] ** 2)


def r_matrix(x):
    return np.sum(np.r_["r", x, x])


def r_in_loop(x):
    total = 0.0
    for k in range(2):
        total = total + np.sum(np.r_[x, k * x])
    return total


def index_global_object(x):
    return SQUARER[x, x]


def index_local_object(x):
    squarer = Squarer()
    return squarer[x, x]


def index_parameter(x, table):
    total = 0.0
    for i, xi in enumerate(x):
        total = total + table[i] * xi * xi
    return total


def index_global_array_and_list(x):
    total = 0.0
    for i, xi in enumerate(x):
        total = total + WEIGHTS[i] * xi + WEIGHT_LIST[i] * xi * xi
    return total


def index_global_dict(x):
    total = 0.0
    for key in ["a", "b"]:
        total = total + LABELS[key] * x
    return total


def slice_builder(x):
    total = 0.0
    for i, xi in enumerate(x):
        total = total + np.sum(x[np.s_[i:]]) * xi
    return total


@dataclass
class Point:
    a: float
    b: float
    scale = 2.0  # a class attribute, no field

    @property
    def a2(self):
        return self.a * self.a

    @property
    def ab(self):
        return self.a * self.b + self.a2

    @functools.cached_property
    def a3(self):
        return self.a * self.a * self.a


def through_property(p):
    return p.a2


def property_in_loop(p):
    total = 0.0
    for _ in range(3):
        total = total + p.ab
    return total


def helper_reads_property(p):
    return np.sin(p.a2)


def property_through_helper(p):
    return helper_reads_property(p) * p.b


def through_cached_property(p):
    return p.a3 + p.b


def class_attribute(p):
    return p.scale * p.a


class Lazy:
    """Every name it does not store is computed by `__getattr__`."""

    def __init__(self, v):
        self.v = v

    def __getattr__(self, name):
        return self.v * self.v


def through_getattr_hook(d):
    return d.anything + d.v


class Twice:
    """A descriptor whose `__get__` computes."""

    def __get__(self, obj, owner):
        return obj.v * 2.0


class WithDescriptor:
    twice = Twice()

    def __init__(self, v):
        self.v = v


def through_descriptor(d):
    return d.twice


class Intercepting:
    def __init__(self, v):
        self.v = v

    def __getattribute__(self, name):
        return object.__getattribute__(self, name)


def through_getattribute(d):
    return d.v * 3.0


class WithMethod:
    def __init__(self, v):
        self.v = v

    def double(self):
        return 2.0 * self.v


def method_as_value(d):
    m = d.double
    return m()


class Pair(NamedTuple):
    first: float
    second: float


@dataclass(slots=True)
class Slotted:
    u: float
    w: float


def plain_fields(p, s):
    return p.first * p.second + s.u * s.w


def einsum_sublists(a, b):
    return np.sum(np.sin(np.einsum(a, [0, 1], b, [1, 2])))


def einsum_sublists_output(a, b):
    return np.sum(np.einsum(a, [0, 1], b, [1, 2], [2, 0]) ** 2)


def einsum_sublists_in_loop(a, b):
    total = 0.0
    for k in range(2):
        total = total + np.sum(np.einsum(a, [Ellipsis, 1], b, [1, 2]) * (k + 1.0))
    return total


def dict_get(x):
    d = {"a": x, "b": 2.0}
    return d.get("a") * d.get("b") * d.get("c", x)


def dict_views(x):
    d = {"a": x, "b": x * x}
    total = 0.0
    for v in d.values():
        total = total + v
    for _, v in d.items():
        total = total + 2.0 * v
    return total + sum(d.copy().values()) + list(d.keys()).count("a")


def list_methods(x):
    items = [x, x * x]
    copied = items.copy()
    return copied[0] * copied[1] + items.index(copied[1]) + (items,).count(items)


def keyword_forms(x):
    total = sum(x, start=1.0)
    for i, xi in enumerate(x, start=1):
        total = total + i * xi
    for a, b in zip(x, x, strict=True):
        total = total + a * b
    return total


def rule_without_the_keyword(x):
    return np.sum(np.power(x, 2, dtype=float))


@dataclass
class Gas:
    """Fields that share their names with NumPy's attributes."""

    T: float
    size: float
    shape: float


def array_named_fields(g):
    return g.T * g.size + g.shape * g.shape


def mean_square(x):
    return np.sum(x * x) / x.shape[0] + x.size * np.sum(x)


def calls_mean_square(x):
    return mean_square(x) * 2.0 + np.sum(x.T)


class Scale:
    """A callable object: its Python `__call__` is compiled."""

    def __init__(self, k):
        self.k = k

    def __call__(self, t):
        return self.k * t * t


SCALE = Scale(3.0)
DOUBLE = functools.partial(np.multiply, 2.0)  # callable, with no Python `__call__`


def callable_object_in_loop(x):
    total = 0.0
    for _ in range(3):
        total = total + SCALE(x)
    return total


def callable_without_rule(x):
    return np.sum(DOUBLE(x))


def mgrid_from_inputs(x):
    return np.sum(np.mgrid[0.0:x:1.0])


def index_expression(x):
    total = 0.0
    for i, xi in enumerate(x):
        total = total + np.sum(x[np.index_exp[:i]]) * xi
    return total

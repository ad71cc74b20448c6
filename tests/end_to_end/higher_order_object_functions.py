"""Functions of one float through the fields and computed attributes of objects, for
third derivatives (`test_higher_order_objects.py`): each reads what it stored through a
nonlinear chain, so that the object's tangents of every order are nonzero."""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import numpy as np


class Box:
    """A plain class: its tangent is a `Tangent` by field, with no fields known ahead."""

    def __init__(self, a):
        self.a = a

    @property
    def energy(self):
        return np.sin(self.a) * self.a


@dataclasses.dataclass
class Pair:
    first: float
    second: float

    @property
    def ratio(self):
        return self.first / (1.0 + self.second**2)


class Point(NamedTuple):
    x: float
    y: float


class Lazy:
    def __init__(self, a):
        self.a = a

    def __getattr__(self, name):
        return self.a**3 if name == "cube" else None


class Cached:
    def __init__(self, a):
        self.a = a

    @functools.cached_property
    def square(self):
        return np.sin(self.a) * self.a


def through_a_field(t):
    box = Box(t * t)
    return np.sin(box.a) * box.a


def through_dataclass_fields(t):
    pair = Pair(np.exp(0.5 * t), t * t)
    return pair.first * np.cos(pair.second)


def through_a_dict(t):
    d = {"u": t * t, "v": np.sin(t)}
    return d["u"] * d["v"] ** 2


def through_a_named_tuple(t):
    p = Point(t * t, np.tanh(t))
    return p.x**2 * p.y


def through_a_property(t):
    return Box(t * t).energy ** 2


def through_a_dataclass_property(t):
    return Pair(t * t, np.sin(t)).ratio * t


def through_getattr_hooks(t):
    return Lazy(t + np.sin(t)).cube * t + Cached(2.0 * t * t).square


class Model:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, v):
        return np.tanh(self.scale * v) * v


def through_methods(t):
    """A user class's method, a dict's, and an array's (`.sum()`, `.max()`, `.dot()`,
    `.prod()`, `.reshape(*shape)`)."""
    model = Model(t * t)
    x = np.array([t, t * t, np.cos(t)])
    d = {"a": t * t, "b": np.sin(t)}
    arrays = x.sum() ** 3 + x.max() ** 2 + x.dot(np.sin(x)) + x.prod() + x.reshape(3, 1).sum() ** 2
    return model.apply(np.sin(t)) + arrays + d.get("a") * d.get("b", 0.0) ** 2


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, v):
        return np.sin(self.factor * v)


def helper(v, w):
    return np.tanh(v * w)


def through_function_values(t):
    """Calls of values: a ufunc, a module function and a lambda held by locals, and a
    callable object."""
    g, h = np.sin, helper
    cube = lambda v: v**3 + v  # noqa: E731
    return g(t * t) + h(t, 2.0 * t) + cube(np.cos(t)) + Scaler(t * t)(t) * 2.0


FUNCTIONS = [
    through_a_field, through_dataclass_fields, through_a_dict, through_a_named_tuple,
    through_a_property, through_a_dataclass_property, through_getattr_hooks, through_methods,
    through_function_values,
]  # fmt: skip


class Poly:
    """Methods that read fields, call another method and take arrays (fourth derivatives)."""

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def value(self, x):
        return self.a * x**3 + np.sin(self.b * x)

    def both(self, x, y):
        return self.value(x) * np.cos(y) + self.a * y

    def of_vector(self, v):
        return np.sum(np.tanh(self.a * v) * v)


def method_of_a_moving_object(t):
    return Poly(t, t * t).value(0.3)


def method_of_a_constant_object(t):
    return Poly(0.4, 1.5).value(t)


def method_calling_a_method(t):
    return Poly(t, 2.0).both(t * t, t)


def method_of_an_array(t):
    return Poly(t, 1.0).of_vector(np.array([t, 2.0 * t, 0.5]))


@dataclasses.dataclass
class Rate:
    w: float

    def at(self, x):
        return np.exp(self.w * x) / (1.0 + x * x)


def method_of_a_dataclass(t):
    return Rate(t).at(t + 1.0) * Rate(0.5).at(t)


METHODS = [
    method_of_a_moving_object, method_of_a_constant_object, method_calling_a_method,
    method_of_an_array, method_of_a_dataclass,
]  # fmt: skip


def calls_of_values(t):
    """A module function and a lambda held by locals, and a callable object (fourth
    derivatives): Python functions, through the nested forward rules of their source."""
    h = helper
    cube = lambda v: v**3 + np.sin(v)  # noqa: E731
    return h(t, 2.0 * t) + Scaler(t * t)(t) + cube(t * t)

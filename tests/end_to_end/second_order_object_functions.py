"""User-level functions through the constructs whose second derivatives dispatch at run time
or move structural tangents: dicts of parameters, dataclasses, user classes with methods
and properties, callable objects, functions as values,
`functools.partial`, `map`, `f(*args)`, keyword-only parameters and `**kwargs`. Read by
`test_second_order_objects.py`."""

import dataclasses
import functools
from typing import NamedTuple

import numpy as np


def parameter_dict(x):
    params = {"w": x * x, "b": np.sin(x)}
    total = params.get("w") * params["b"]
    for _name, value in params.copy().items():
        total = total + value**2
    return np.sum(np.cos(total)) + np.sum(sum(params.values()) ** 3)


@dataclasses.dataclass
class Layer:
    weight: np.ndarray
    bias: np.ndarray


def through_a_dataclass(x):
    layer = Layer(x * x, np.sin(x))
    moved = dataclasses.replace(layer, bias=layer.bias * x)
    return np.sum(np.tanh(moved.weight * x + moved.bias) ** 2)


class Point(NamedTuple):
    a: np.ndarray
    b: np.ndarray


def through_a_named_tuple(x):
    p = Point(np.sin(x), x**3)
    return np.sum(p[0] * p.b + p[1] ** 2)


class Model:
    """A user class with its own `__init__`, a method and a property."""

    def __init__(self, scale, shift):
        self.scale = scale
        self.shift = shift * scale

    def apply(self, v):
        return np.tanh(self.scale * v + self.shift)

    @property
    def energy(self):
        return np.sum(self.scale**2 * np.cos(self.shift))


def through_a_user_class(x):
    model = Model(x * 0.5, np.sin(x))
    return np.sum(model.apply(x) ** 2) + model.energy + getattr(model, "energy") ** 2  # noqa: B009


class Scaler:
    """A callable object whose field depends on the argument."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, v):
        return np.sin(self.factor * v)


def through_a_callable_object(x):
    scaler = Scaler(x * x)
    return np.sum(scaler(x) * x)


def through_function_values(x):
    g = np.sin
    fs = [np.cos, g]
    return np.sum(fs[0](x) * g(x * x) + fs[1](x) ** 3)


def _weighted(a, b, c):
    return a * np.sin(b) + c**2


def through_a_partial(x):
    weighted = functools.partial(_weighted, x * x)
    twice = functools.partial(weighted, np.cos(x))
    return np.sum(twice(x) * weighted(x, x))


def through_map(x):
    pieces = list(map(np.sin, [x, x * x]))
    scaled = list(map(functools.partial(np.multiply, x), pieces))
    return np.sum(scaled[0] * scaled[1]) + np.sum(sum(map(np.cos, pieces)) ** 2)


def through_star_arguments(x):
    args = (x * x, np.sin(x))
    rest = [x]
    return np.sum(_weighted(*args, *rest)) + np.sum(np.add(*args) ** 2)


def _keyword_only(v, *, scale, shift=0.0):
    return np.sin(v * scale) + shift


def _keywords(v, **options):
    return v * options["scale"] + options["shift"] ** 2


def through_keywords(x):
    options = {"scale": x, "shift": np.cos(x)}
    first = _keyword_only(x, scale=x * x, shift=np.sin(x))
    return np.sum(first * _keywords(x, **options) + _keywords(x, scale=x, shift=x**2))


def through_array_methods(x):
    m = (x * x).reshape(1, 3)
    return np.sin(x.sum()) * m.max() + np.sum(m.T**3) + np.sum(x.copy() * x.astype(float))


class Lazy:
    """Attributes computed by `__getattr__`."""

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


def through_computed_attributes(x):
    cached = Cached(x * x)
    return np.sum(Lazy(x * 2.0).cube * x) + np.sum(cached.square**2)


def through_methods_without_derivative(x):
    table = {"a": x, "b": x * x}
    total = 0.0
    for key in table.keys():  # noqa: SIM118 (the method `dict.keys`)
        total = total + table[key] ** 2
    items = [x[0], x[1] ** 2]
    return np.sum(total) * items[items.index(x[0])] + items[1] ** 2


def through_a_mapped_object(x):
    return np.sum(sum(map(Scaler(x[0] * x[1]), [x, x**2])) ** 2)


def through_a_class_value(x):
    kinds = [Model]
    model = kinds[0](x * x, np.sin(x))
    return np.sum(model.apply(x) ** 2)


FUNCTIONS = [
    parameter_dict,
    through_a_dataclass,
    through_a_named_tuple,
    through_a_user_class,
    through_a_callable_object,
    through_function_values,
    through_a_partial,
    through_map,
    through_star_arguments,
    through_keywords,
    through_array_methods,
    through_computed_attributes,
    through_methods_without_derivative,
    through_a_mapped_object,
    through_a_class_value,
]

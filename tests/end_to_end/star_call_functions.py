"""Functions whose calls unpack arguments (`f(*args)`, `f(**options)`), for
test_star_calls.py: they need source files of their own."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np


def times10(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return 10 * fn(*args, **kwargs)

    return wrapper


def doubled_first(fn: Any) -> Any:
    """A wrapper that changes an argument before passing the rest on."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(args[0] * 2, *args[1:], **kwargs)

    return wrapper


@times10
def h(x: Any) -> Any:
    return x * x


def hcall(x: Any) -> Any:
    return h(x) + x


def h_in_loop(x: Any) -> Any:
    total = 0.0 * x
    for _ in range(3):
        total = total + h(x)
    return total


@times10
def scaled_sum(x: Any, y: Any, scale: float = 1.0) -> Any:
    return np.sum(x * y) * scale


def scaled_sum_call(x: Any, y: Any) -> Any:
    return scaled_sum(x, y, scale=0.5)


@doubled_first
def product(x: Any, y: Any) -> Any:
    return np.sum(np.sin(x) * y)


def weighted(x: Any, y: Any, z: Any) -> Any:
    return x * np.cos(y) + z * y


def pair_call(x: Any, y: Any) -> Any:
    pair = (x, y)
    return weighted(*pair, x * y)


def rest_call(x: Any, y: Any) -> Any:
    rest = (y, x)
    return weighted(x, *rest)


def maximum_of_pair(x: Any, y: Any) -> Any:
    pair = (x * x, y)
    return np.sum(np.maximum(*pair))


def all_unpacked(*args: Any) -> Any:
    return weighted(*args)


def list_unpacked(x: Any, y: Any) -> Any:
    items = [x, y, x]
    return weighted(*items)


def options_passed(x: Any, **options: Any) -> Any:
    return scaled_sum(x, x, **options)


def options_active(x: Any) -> Any:
    options = {"scale": x}
    return scaled_sum(x, x, **options)


def method_unpacked(x: Any) -> Any:
    shape = (2, 2)
    return np.sum(x.reshape(*shape) ** 2)


def method_unpacked_values(x: Any, y: Any) -> Any:
    """A method of an object, `*` given differentiated values and an options dict."""
    pair = (x, y)
    options = {"scale": 2.0}
    return Weights(0.5).apply(*pair, **options)


class Weights:
    """A callable-free object whose method srcad compiles from its source."""

    def __init__(self, w: float) -> None:
        self.w = w

    def apply(self, a: Any, b: Any, scale: float = 1.0) -> Any:
        return scale * np.sum(np.sin(a) * b) * self.w


def noise_of_shape(x: Any) -> Any:
    """A method known only when the code runs, `*` given a shape: no derivative."""
    rng = np.random.default_rng(0)
    return np.sum(x * rng.standard_normal(*x.shape))


def mutating_method_unpacked(x: Any, box: Any) -> Any:
    args = (1.0, 2.0)
    k = box.push(*args)
    return np.sum(x) * k


class Box:
    """An object whose method changes it."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def push(self, *values: Any) -> float:
        self.items.append(values)
        return 1.0


def nested_unpacked(x: Any) -> Any:
    def inner(a: Any, b: Any) -> Any:
        return a * b

    pair = (x, x)
    return inner(*pair)


def nested_unpacked_after(x: Any, y: Any) -> Any:
    scale = 2.0

    def inner(a: Any, b: Any, c: Any) -> Any:
        return a * np.sin(b) * c * scale * y

    rest = [y, x * 3.0]
    return inner(x, *rest)


def nested_lambda_unpacked(x: Any) -> Any:
    g = lambda a, b: a**2 + b  # noqa: E731 (a lambda bound to a name, as users write)
    return g(*(x, 1.0)) + g(*[x * 2.0, x])


def nested_unpacked_rows(xs: Any) -> Any:
    def inner(a: Any, b: Any) -> Any:
        return a * b

    s = 0.0
    for row in xs:
        s = s + inner(*row)
    return s


def nested_unpacked_default(x: Any) -> Any:
    def inner(a: Any, b: Any = 1.0) -> Any:
        return a * b

    return inner(*(x,))


def starred_list_display(x: Any) -> Any:
    rest = (x, x)
    return sum([*rest, x])


def first_named(fn: Any) -> Any:
    """A wrapper naming its first parameter and forwarding the rest."""

    @functools.wraps(fn)
    def wrapper(x: Any, *rest: Any) -> Any:
        return fn(np.sin(x), *rest)

    return wrapper


@first_named
def sine_product(a: Any, b: Any, c: Any) -> Any:
    return np.sum(a * b * c)


def apply(f: Any, *args: Any) -> Any:
    return f(*args)


def applies(x: Any, y: Any) -> Any:
    return np.sum(apply(np.multiply, x, y) + apply(weighted, x, y, x))


def swapped(fn: Any) -> Any:
    """A wrapper whose parameters are named in the other order than the wrapped's."""

    @functools.wraps(fn)
    def wrapper(y: Any, x: Any) -> Any:
        return fn(y, x)

    return wrapper


@swapped
def first_cubed(x: Any, y: Any) -> Any:
    return x * x * x + 2.0 * y


def nested_star_parameter(x: Any, y: Any) -> Any:
    """A nested function whose `*rest` receives a differentiated argument."""

    def inner(a: Any, *rest: Any, **options: Any) -> Any:
        return a * rest[0] * options["scale"]

    return inner(x, y, scale=3.0) + x


def unpack_array(v: Any) -> Any:
    """An array unpacked into arguments: its rows."""
    return weighted(*v)


def poke(store: Any, *values: Any) -> float:
    """Changes what its caller passed: not differentiable as a plain call."""
    store.append(values[0])
    return 0.0


def passes_a_mutating_function(x: Any, f: Any) -> Any:
    kept = [1.0]
    pair = (kept, 2.0)
    f(*pair)
    return x * kept[0]

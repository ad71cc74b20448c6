"""A gradient is a value of its own: never the caller's argument, a global, or a view of
one, which a gradient changed in place (`g *= lr`) would change too. `grad`'s fused code
drops products by the seed 1.0 (`passes/transforms/fuse.py`), which left `x` itself as the
gradient of `np.sum(x * y)` in `y`."""

import dataclasses
import typing

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_vjp
from tests.conftest import close, sample

W = np.linspace(0.5, 1.5, 4)
PAIR = (np.linspace(-1.0, 1.0, 4), np.linspace(2.0, 3.0, 4))


def product(x, y):
    return np.sum(x * y)


def reversed_product(x, y):
    return np.sum(y * x)


def matrix_product(x, y):
    return np.sum(x @ y)


def with_an_alias(x, y):
    z = x
    return np.sum(z * y) + 0.0


def through_a_view(x, y):
    v = x[0:4]
    return np.sum(v * y)


def plus_an_element(x, y):
    return np.sum(x * y) + y[0] * 3.0


def summed(x, y):
    return np.sum(x * y) + np.sum(y)


def with_a_global(x, y):
    return np.sum(W * y) + np.sum(x * x)


def with_a_tuple_item(x, y):
    return np.sum(PAIR[0] * y) + np.sum(PAIR[1] * x)


def in_a_loop(x, y):
    s = 0.0
    for _ in range(2):
        s = s + np.sum(x * y)
    return s


FUNCTIONS = [
    product,
    reversed_product,
    matrix_product,
    with_an_alias,
    through_a_view,
    plus_an_element,
    summed,
    with_a_global,
    with_a_tuple_item,
    in_a_loop,
]


def _reachable(x, y):
    return [x, y, W, *PAIR]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradients_share_no_memory_with_what_the_caller_holds(f):
    x, y = sample((4,), 1), sample((4,), 2)
    kept = [a.copy() for a in _reachable(x, y)]
    for wrt in (0, 1, (0, 1)):
        positions = wrt if isinstance(wrt, tuple) else (wrt,)
        for gradients in (srcad.grad(f, wrt=wrt)(x, y), srcad.value_and_grad(f, wrt=wrt)(x, y)[1]):
            gradients = gradients if isinstance(wrt, tuple) else (gradients,)
            for g, position in zip(gradients, positions, strict=True):
                assert not any(np.shares_memory(g, held) for held in _reachable(x, y))
                close(g, finite_difference_vjp(f, (x, y), 1.0, position))
                g *= 2.0  # changing a gradient in place changes nothing the caller holds
            for held, before in zip(_reachable(x, y), kept, strict=True):
                np.testing.assert_array_equal(held, before)


@dataclasses.dataclass
class Pair:
    a: np.ndarray
    b: np.ndarray


class Named(typing.NamedTuple):
    a: np.ndarray
    b: np.ndarray


def unpacked(p):
    a, b = p
    return np.sum(a * b)


def by_key(p):
    return np.sum(p["a"] * p["b"])


def by_field(p):
    return np.sum(p.a * p.b)


def by_index(p):
    return np.sum(p[0] * W) + np.sum(p[1] * p[0]) * 0.5


def nested(p):
    (a, b), c = p
    return np.sum(a * c) + np.sum(b * W)


def looped(p):
    s = 0.0
    for u in p:
        s = s + np.sum(u * W)
    return s


def _leaves(tree):
    if isinstance(tree, np.ndarray):
        return [tree]
    if isinstance(tree, dict):
        return [leaf for value in tree.values() for leaf in _leaves(value)]
    if dataclasses.is_dataclass(tree):
        return [leaf for f in dataclasses.fields(tree) for leaf in _leaves(getattr(tree, f.name))]
    return [leaf for value in tree for leaf in _leaves(value)]


CONTAINERS = [
    (unpacked, lambda a, b: (a, b)),
    (unpacked, lambda a, b: [a, b]),
    (by_key, lambda a, b: {"a": a, "b": b}),
    (by_field, Pair),
    (by_field, Named),
    (by_index, lambda a, b: (a, b)),
    (by_index, lambda a, b: [a, b]),
    (nested, lambda a, b: ((a, b), b[::-1])),
    (looped, lambda a, b: (a, b)),
    (looped, lambda a, b: [a, b]),
]


@pytest.mark.parametrize(("f", "make"), CONTAINERS, ids=lambda c: getattr(c, "__name__", ""))
def test_gradients_of_containers_share_no_memory_with_their_arrays(f, make):
    """A container's gradient holds arrays of its own where the gradient of one item is
    another item or a global (`(b, a)` for `np.sum(a * b)` of `p = (a, b)`): a tuple's
    pullback, a sum with a zero tangent, or a list of items' cotangents set in a loop
    passes on what it is given."""
    p = make(sample((4,), 1), sample((4,), 2))
    held = [*_leaves(p), W]
    kept = [a.copy() for a in held]
    flat = np.concatenate([leaf.reshape(-1) for leaf in _leaves(p)])
    sizes = np.cumsum([leaf.size for leaf in _leaves(p)])[:-1]

    def flat_f(v):
        parts = np.split(v, sizes)
        leaves = iter(parts)

        def rebuild(tree):
            if isinstance(tree, np.ndarray):
                return next(leaves)
            if isinstance(tree, dict):
                return {k: rebuild(t) for k, t in tree.items()}
            if dataclasses.is_dataclass(tree) or isinstance(tree, Named):
                return type(tree)(*(rebuild(t) for t in _fields(tree)))
            return type(tree)(rebuild(t) for t in tree)

        return f(rebuild(p))

    want = finite_difference_vjp(flat_f, (flat,), 1.0, 0)
    for gradient in (srcad.grad(f)(p), srcad.value_and_grad(f)(p)[1]):
        leaves = _leaves(gradient)
        assert not any(np.shares_memory(g, h) for g in leaves for h in held)
        close(np.concatenate([g.reshape(-1) for g in leaves]), want)
        for g in leaves:
            g *= 2.0
        for array, before in zip(held, kept, strict=True):
            np.testing.assert_array_equal(array, before)


def _fields(tree):
    if dataclasses.is_dataclass(tree):
        return [getattr(tree, f.name) for f in dataclasses.fields(tree)]
    return list(tree)

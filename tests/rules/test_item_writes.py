"""The rules of `index_update` (`rules/item_writes.py`), of `sorted` and `reversed`
(`rules/builtins.py`), and the reverse rules of their forward rules (second derivatives):
against central finite differences, for every kind of index."""

import numpy as np
import pytest

from srcad import NoTangent, ZeroTangent
from srcad.primitives import index_update
from srcad.registry import REGISTRY
from srcad.rules.builtins import reversed_frule, sorted_frule
from srcad.rules.item_writes import index_update_frule
from srcad.testing import check_frule, check_rrule, finite_difference_vjp

ITEMS = np.arange(1.0, 13.0).reshape(3, 4) / 7 - 0.6

ARRAY_WRITES = [
    (1, np.array([0.5, -0.25, 1.5, 2.0])),
    ((2, 3), 0.75),
    ((slice(None), 1), np.array([0.1, 0.2, 0.3])),
    ((slice(1, None), slice(None, 2)), 0.5),  # a value broadcast over the slice
    (ITEMS > 0.2, 1.25),
    (([0, 2], [1, 3]), np.array([0.3, -0.7])),
]


@pytest.mark.parametrize("index, value", ARRAY_WRITES, ids=lambda v: type(v).__name__)
def test_array_rules(index, value):
    check_rrule(lambda items, v: index_update(items, index, v), ITEMS, value)
    check_frule(lambda items, v: index_update(items, index, v), ITEMS, value)


def test_list_rules():
    items = [0.5, -1.5, 2.0]
    check_rrule(lambda xs, v: index_update(xs, 1, v), items, 0.25)
    check_frule(lambda xs, v: index_update(xs, -1, v), items, 0.25)


def _second_order(frule, primal_args, dot_args, rest=()):
    """The reverse rule registered for `frule`, against finite differences of `frule` as a
    function of the primals and the tangents, for a random (y_bar, y_dot_bar)."""
    rng = np.random.default_rng(0)
    (y, y_dot), pullback = REGISTRY.rrule_for(frule).rrule(
        (NoTangent(), *dot_args), *primal_args, *rest
    )
    y_bar = [rng.standard_normal(np.shape(v)) for v in y]  # (lists of floats or arrays)
    y_dot_bar = [rng.standard_normal(np.shape(v)) for v in y_dot]
    _, dargs_bar, *primal_bars = pullback((y_bar, y_dot_bar))

    def as_function(*values):
        primals, dots = values[: len(primal_args)], values[len(primal_args) :]
        out, out_dot = frule((NoTangent(), *dots), *primals, *rest)
        return list(out), list(out_dot)

    values = (*primal_args, *dot_args)
    for position, got in enumerate([*primal_bars[:1], *list(dargs_bar)[1:2]]):
        want = finite_difference_vjp(as_function, values, (y_bar, y_dot_bar), position)
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), 1e-6, 1e-9)


def test_second_order_of_sorted_and_reversed():
    values, dots = np.array([0.3, -1.2, 0.7]), np.array([0.5, 0.25, -1.0])
    _second_order(sorted_frule, (values,), (dots,))
    _second_order(reversed_frule, (values,), (dots,))


def test_second_order_of_an_item_write():
    rule = REGISTRY.rrule_for(index_update_frule).rrule
    items, items_dot = ITEMS[0].copy(), np.full(4, 0.5)
    (y, y_dot), pullback = rule((NoTangent(), items_dot, NoTangent(), 0.25), items, 1, 0.75)
    np.testing.assert_allclose(y, [ITEMS[0, 0], 0.75, ITEMS[0, 2], ITEMS[0, 3]])
    np.testing.assert_allclose(y_dot, [0.5, 0.25, 0.5, 0.5])
    bars = (np.arange(4.0), np.arange(4.0) + 10)
    _, dargs_bar, items_bar, _, value_bar = pullback(bars)
    np.testing.assert_allclose(items_bar, [0.0, 0.0, 2.0, 3.0])
    assert value_bar == pytest.approx(1.0)
    np.testing.assert_allclose(dargs_bar[1], [10.0, 0.0, 12.0, 13.0])
    assert dargs_bar[3] == pytest.approx(11.0)
    _, zero_pullback = rule(
        (NoTangent(), ZeroTangent(), NoTangent(), ZeroTangent()), items, 1, 0.75
    )
    assert isinstance(zero_pullback(bars)[1][1], type(ZeroTangent()))

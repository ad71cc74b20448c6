"""A loop over a fresh dict's own keys writing their items (`for k in grads: grads[k] *= r`),
which the fuzzer's `--constructs` programs write: refused twice before, as a use of the dict
that may keep it (E301: the loop's iterator holds the dict) and as a write at a differentiated
key (E215: the loop over a dict of differentiated values was taken to give differentiated
keys). Python's iterator walks the keys the dict has, which writes of those keys keep, as the
normal form's new dicts do; a dict's keys take no derivative. Against central differences in
both modes and to second order; a loop that writes another key, adds one or takes one away,
or rebinds its variable, stays refused."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from tests.conftest import close, difference, user_module

MODULE = """
import numpy as np


def scaled_items(a):
    grads = {"w": a * a, "b": a[0] * 2.0}
    for k in grads:
        grads[k] *= np.tanh(a[2])
    for k in grads:
        grads[k] = np.cos(grads[k]) * a[1]
    for k in grads:
        grads[k] += a[0]
    return np.sum(grads["w"]) * grads["b"]


def nested_and_from_a_comprehension(a):
    d = {k: a[i] ** 2 for i, k in enumerate(("u", "v", "z"))}
    for step in range(2):
        for k in d:
            d[k] = d[k] * a[step] + np.sin(d[k])
            if d[k] > 0.5:
                break
    merged = {**d, "t": a[2] * 3.0}
    for name in merged:
        merged[name] -= a[1] * merged["t"]
    return d["u"] * d["v"] + d["z"] + merged["u"] * merged["t"]


def another_key(a):
    d = {"u": a[0] * 2.0, "v": a[1] * 1.0}
    for k in d:
        d["v"] = d[k] * a[2]
    return d["u"] + d["v"]


def a_new_key(a):
    d = {"u": a[0] * 2.0, "v": a[1] * 1.0}
    for k in d:
        d[k + "2"] = a[2]
    return d["u"] + d["v"]


def the_key_rebound(a):
    d = {"u": a[0] * 2.0, "v": a[1] * 1.0}
    for k in d:
        k = "u"
        d[k] = a[2] * d[k]
    return d["u"] + d["v"]


def a_key_taken_away(a):
    d = {"u": a[0] * 2.0, "v": a[1] * 1.0}
    for k in d:
        d[k] = a[2]
        d.pop("v")
    return d["u"]


def a_list_walked(a):
    xs = [0, 1]
    for k in xs:
        xs[k] = a[k] * 2.0
    return xs[0] + xs[1]
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("key_loops"), "dict_key_loops_module", MODULE)


A = np.array([0.7, -1.3, 0.4])
DIRECTION = np.array([1.0, -0.5, 0.25])


@pytest.mark.parametrize("name", ["scaled_items", "nested_and_from_a_comprehension"])
def test_items_of_own_keys_written_in_a_loop(module, name):
    f = getattr(module, name)
    want = difference(f, (A,))
    close(srcad.grad(f)(A.copy()), want)
    y, y_dot = srcad.jvp(f, (A.copy(),), (DIRECTION,))
    close(y, f(A.copy()))
    close(y_dot, want @ DIRECTION)
    close(srcad.hessian(f)(A.copy()), difference(srcad.grad(f), (A,)))


@pytest.mark.parametrize(
    "name", ["another_key", "a_new_key", "the_key_rebound", "a_key_taken_away", "a_list_walked"]
)
def test_other_writes_while_walking_stay_refused_at_the_line(module, name):
    with pytest.raises(SrcadError, match=r"may keep it|iterates over it") as caught:
        srcad.grad(getattr(module, name))(A.copy())
    assert "dict_key_loops_module.py" in str(caught.value)

"""`holder[index] op= v` where the item is an array or a list: Python changes the item in
place (`item.__iadd__(v)`), so whatever else holds it sees the change; srcad's normal form
rebinds the slot to a new value. With the caller's array put in a list (`xs = [a]; xs[0] *=
2.0`), or one array held twice (`[a, a]`), that gave a wrong gradient with no error
(`grad` 2a where Python's function has 8a). Such a write is now refused when it runs,
naming the user's line; number items, an array's own items and slices, which Python
rebinds too, and arrays made for the container alone (`grads = {"w": np.zeros(n)}`,
`passes/analyses/fresh_items.py`) are differentiated, in both modes and to second order."""

import numpy as np
import pytest

import srcad
from srcad.errors import MutationError
from srcad.tracebacks import notes_for
from tests.conftest import close, difference, user_module

MODULE = """
import numpy as np


def parameter_in_a_list(a):
    xs = [a]
    xs[0] -= 1.0
    return np.sum(a * a)


def one_array_twice(a):
    xs = [a, a]
    xs[0] *= 2.0
    return np.sum(xs[1] * a)


def parameter_in_a_dict(a):
    d = dict(k=a)
    d["k"] += 1.0
    return np.sum(d["k"] * a)


def list_in_a_list(a):
    first = [a[0]]
    rows = [first, [a[1]]]
    rows[0] += [a[1]]
    return sum(first)


def new_list_in_a_list(a):
    rows = [[a[0]], [a[1]]]
    rows[0] += [a[1]]
    return sum(rows[0]) * a[0]


def kept_by_setdefault(a):
    d = {}
    v = d.setdefault("k", np.zeros(2))
    d["k"] += a
    return np.sum(v * a)


class Scaled:
    def __init__(self, w):
        self.w = w
        self.w *= 2.0


def attribute_of_an_instance(a):
    return np.sum(Scaled(a).w * a)


def number_items(a):
    xs = [a[0] * 1.0, 2.0]
    xs[1] += 3.0 * a[0]
    totals = {"s": 0.0}
    for v in a:
        totals["s"] += v * v
    return xs[1] * a[1] + totals["s"]


def fresh_accumulators(a):
    grads = {"w": np.zeros(2), "b": 0.0}
    rows = [np.zeros(2) for _ in range(3)]
    for k in range(3):
        grads["w"] += a * (k + 1.0)
        grads["b"] += a[0] * a[1]
        rows[k] += np.sin(a) * k
    return np.sum(grads["w"] ** 2) + grads["b"] + np.sum(rows[1] * rows[2])


def array_slices(a):
    out = np.zeros((2, 2))
    out[:, 0] += a
    out[1] *= a[0]
    out[0, 1] -= a[1] ** 2
    return np.sum(out**2)
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("in_place"), "items_in_place_module", MODULE)


A = np.array([0.6, -1.3])


@pytest.mark.parametrize(
    "name",
    [
        "parameter_in_a_list",
        "one_array_twice",
        "parameter_in_a_dict",
        "list_in_a_list",
        "attribute_of_an_instance",
        "kept_by_setdefault",
    ],
)
def test_an_item_changed_in_place_is_refused_where_it_runs(module, name):
    f = getattr(module, name)
    for run in (
        lambda: srcad.grad(f)(A.copy()),
        lambda: srcad.jvp(f, (A.copy(),), (np.ones(2),)),
        lambda: srcad.hessian(f)(A.copy()),
    ):
        with pytest.raises(MutationError, match="changes in place") as caught:
            run()
        assert "items_in_place_module.py" in "".join(notes_for(caught.value)), caught.value


@pytest.mark.parametrize(
    "name", ["number_items", "array_slices", "fresh_accumulators", "new_list_in_a_list"]
)
def test_items_python_rebinds_are_differentiated(module, name):
    f = getattr(module, name)
    want = difference(f, (A,))
    close(srcad.grad(f)(A.copy()), want)
    close(srcad.jvp(f, (A.copy(),), (np.array([1.0, -0.5]),))[1], want @ np.array([1.0, -0.5]))
    close(srcad.hessian(f)(A.copy()), difference(srcad.grad(f), (A,)))

"""Methods that change an item of a container in place (`hist["loss"].append(v)`,
`rows[i % m].append(v)`, `groups.setdefault(k, []).append(v)`, `d[k].sort()`, `v =
state["xs"].pop()`), where the container is a value the function made and nothing else
holds, and each of its items was made for it alone (`FreshItems`): the item is read,
changed into a new value and written back (`change_rewrites._change_item`), in both modes and
to second order, against central differences. Where an item may be held by something
else too (a parameter's list stored in it, one list repeated, `[[]] * m`, an alias kept
in a local or read out before the change), the call stays refused at the user's line."""

import numpy as np
import pytest

import srcad
from srcad.errors import MutationError
from tests.conftest import close, difference, user_module

MODULE = """
import collections

import numpy as np


def history(w):
    hist = {"loss": [], "grad": []}
    for i in range(3):
        hist["loss"].append(np.sum(w * w) * (i + 1.0))
        hist["grad"].append(w[i] * 2.0)
    return sum(hist["loss"]) + hist["grad"][1] * hist["grad"][2]


def buckets(xs):
    m = 2
    rows = [[] for _ in range(m)]
    for i, v in enumerate(xs):
        rows[i % m].append(v * xs[0])
    return sum(rows[0]) * sum(rows[1]) + len(rows[1])


def grouped(xs):
    keys = ["a", "b", "a"]
    groups = {}
    for i, v in enumerate(xs):
        groups.setdefault(keys[i], []).append(v ** 2)
    groups.setdefault("b", [xs[0] * 5.0]).sort()  # (there already)
    groups.setdefault("c", [xs[0] * 5.0, xs[1]]).sort()
    return sum(groups["a"]) * groups["b"][0] + groups["c"][0] * groups["c"][1]


def default_lists(xs):
    d = collections.defaultdict(list)
    for i in range(len(xs)):
        d[i % 2].append(np.sin(xs[i]))
    d[7].extend([xs[0] * 3.0, xs[1]])
    return sum(d[0]) ** 2 + sum(d[1]) + d[7][0] * d[7][1]


def other_methods(xs):
    state = {"xs": [xs[2] * 1.0, xs[0] ** 2, xs[1] * 3.0], "ys": []}
    state["xs"].sort()
    last = state["xs"].pop()
    first = state["xs"].pop(0)
    state["ys"].extend([last * 2.0, first])
    state["ys"].insert(0, np.cos(xs[1]))
    state["ys"].reverse()
    rows = [np.zeros(3), np.ones(3)]
    rows[1].fill(xs[2] * xs[1])
    rows[0].sort()
    return last * first + state["ys"][0] * state["ys"][2] + np.sum(rows[1]) + state["xs"][0]


def dict_items(xs):
    params = {"a": {"w": xs[0] * 1.0}, "b": {}}
    params["a"].update({"w": xs[1] * xs[2], "v": xs[0]})
    params["b"].setdefault("w", xs[2] ** 3)
    gone = params["a"].pop("v")
    return params["a"]["w"] * params["b"]["w"] + gone * 2.0


def in_branches(xs):
    out = [[xs[0] * 1.0], []]
    for i in range(3):
        if xs[i] > 0.0:
            out[0].append(xs[i] * 2.0)
        else:
            out[1].append(xs[i] ** 2)
            out[0].sort()
    return sum(out[0]) * 3.0 + sum(out[1]) + len(out[0])


def bucketed(n):
    rows = [[] for _ in range(2)]
    for i in range(n):
        rows[i % 2].append(i * 1.0)
    return rows


def from_a_helper(xs):
    rows = bucketed(3)  # (a function that runs as it is, changing its own items)
    return xs[0] * len(rows[0]) + xs[1] * sum(rows[1]) + sum(rows[0]) * xs[2]


def into_the_callers_list(ys):
    d = {"a": ys}
    d["a"].append(1.0)


def a_helper_changing_the_callers_list(xs):
    ys = [1.0]
    into_the_callers_list(ys)
    return xs[0] * sum(ys)


def an_alias_kept_in_a_loop(xs):
    hist = {"a": []}
    for i in range(3):
        hist["a"].append(xs[i] * 2.0)
        last = hist["a"]
    return sum(last)


def an_array_item(xs):
    rows = [np.zeros(2)]
    rows[0].append(xs[0])
    return xs[0]


def a_dict_item(xs):
    d = {"a": {}}
    d["a"].append(xs[0])
    return xs[0]


def a_parameters_list(xs, ys):
    d = {"a": ys}
    d["a"].append(xs[0] * 2.0)
    return sum(d["a"])


def one_list_repeated(xs):
    rows = [[]] * 2
    rows[0].append(xs[0] * 2.0)
    return sum(rows[1])


def one_list_twice(xs):
    shared = []
    rows = [shared, shared]
    rows[0].append(xs[0] * 2.0)
    return sum(rows[1])


def an_alias_kept(xs):
    rows = [[xs[0] * 1.0] for _ in range(2)]
    first = rows[0]
    rows[0].append(xs[1] * 2.0)
    return sum(first)


def stored_twice(xs):
    rows = [[xs[0] * 1.0], []]
    rows[1] = rows[0]
    rows[0].append(xs[1] * 2.0)
    return sum(rows[1])


def walked_by_a_loop(xs):
    rows = [[xs[0] * 1.0, xs[1]], []]
    for v in rows[0]:
        rows[1].append(v * 2.0)
    for r in rows:
        r.append(1.0)
    return sum(rows[1])


def a_shared_container(xs):
    rows = [[xs[0] * 1.0], []]
    other = rows
    rows[1].append(xs[1] * 2.0)
    return sum(other[1])


def inside_an_expression(xs):
    rows = [[xs[0] * 1.0, xs[1]]]
    return [rows[0].pop() for _ in range(1)][0]


def a_slice(xs):
    rows = [[xs[0] * 1.0], [xs[1] * 1.0]]
    rows[0:1].append(xs[2])
    return sum(rows[0])
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("items"), "item_methods_module", MODULE)


X = np.array([0.7, -1.3, 0.4])
DIRECTION = np.array([1.0, -0.5, 0.25])


@pytest.mark.parametrize(
    "name",
    ["history", "buckets", "grouped", "default_lists", "other_methods", "dict_items",
     "in_branches", "from_a_helper"],
)  # fmt: skip
def test_methods_on_fresh_items(module, name):
    f = getattr(module, name)
    for x in (X, -X[::-1]):  # (the branches' other sides)
        want = difference(f, (x,))
        close(srcad.grad(f)(x.copy()), want)
        y, y_dot = srcad.jvp(f, (x.copy(),), (DIRECTION,))
        close(y, f(x.copy()))
        close(y_dot, want @ DIRECTION)
        close(srcad.hessian(f)(x.copy()), difference(srcad.grad(f), (x,)))


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("one_list_repeated", "may be held by something else too"),
        ("one_list_twice", "may be held by something else too"),
        ("stored_twice", "also used at line"),
        ("an_alias_kept", "also used at line"),
        ("an_alias_kept_in_a_loop", "also used at line"),
        ("a_helper_changing_the_callers_list", "may be held by something else too"),
        ("walked_by_a_loop", "also used at line"),
        ("a_shared_container", "may be shared"),
        ("inside_an_expression", "inside an expression"),
        ("a_slice", "changes its receiver in place"),
    ],
)
def test_items_that_may_be_shared_stay_refused_at_the_line(module, name, why):
    with pytest.raises(MutationError, match=why) as caught:
        srcad.grad(getattr(module, name))(X.copy())
    assert "item_methods_module.py" in str(caught.value)


def test_a_parameters_list_stored_in_a_dict_stays_refused(module):
    with pytest.raises(MutationError, match="may be held by something else too"):
        srcad.grad(module.a_parameters_list)(X.copy(), [1.0, 2.0])


FAR_SHARED = """
import collections


def helper():
    return []


def copied_rows(xs, ys):
    rows = [r for r in ys]
    rows[0].append(xs[0] * 2.0)
    return sum(ys[0])


def a_helpers_list(xs):
    d = {"a": helper()}
    d["a"].append(xs[0] * 2.0)
    return sum(d["a"])


def a_lambda_factory(xs):
    d = collections.defaultdict(lambda: [])
    d[0].append(xs[0] * 2.0)
    return sum(d[0])


def two_deep(xs):
    d = {"a": {"b": []}}
    d["a"]["b"].append(xs[0] * 2.0)
    return sum(d["a"]["b"])


def stored_by_a_method(xs):
    inner = []
    rows = [[]]
    rows.append(inner)
    rows[1].append(xs[0] * 2.0)
    return sum(inner)
"""


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("copied_rows", (X, [[1.0], [2.0]])),
        ("a_helpers_list", (X,)),
        ("a_lambda_factory", (X,)),
        ("two_deep", (X,)),
        ("stored_by_a_method", (X,)),
    ],
)
def test_items_not_proved_fresh_stay_refused(tmp_path, name, args):
    module = user_module(tmp_path, "far_shared_module", FAR_SHARED)
    with pytest.raises(MutationError, match="changes its receiver in place") as caught:
        srcad.grad(getattr(module, name))(*args)
    assert "far_shared_module.py" in str(caught.value)


@pytest.mark.parametrize("name", ["an_array_item", "a_dict_item"])
def test_an_item_without_the_method_raises_pythons_error_at_the_line(module, name):
    with pytest.raises(AttributeError, match="has no attribute 'append'"):
        srcad.grad(getattr(module, name))(X.copy())

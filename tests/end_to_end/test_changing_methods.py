"""Methods that change a list, dict, array or set in place (`xs.sort()`, `xs.pop()`,
`d.update(e)`, `x.fill(v)`, `seen.add(i)`, ...), on a value the function made and nothing
else holds, are written as new values (`primitives.changed`, `rules/changed_values.py`),
and so are the functions of `heapq` and `bisect` that change a list (`heapq.heappush(h, v)`,
`v = heapq.heappop(h)`, `bisect.insort(xs, v)`: `primitives.changed_by`), in both modes
and to second order, against central differences; on anything else they stay refused, at
the user's line, and so does a differentiated value added to a set (E215). Annotated
assignments (`out: list[float] = []`) make fresh values as plain ones do."""

import numpy as np
import pytest

import srcad
from srcad.errors import MutationError, UnsupportedSyntaxError
from tests.conftest import close, difference, user_module

MODULE = """
import bisect
import collections
import heapq

import numpy as np


def sorted_lists(a):
    xs = [a[0] * 1.0, a[1] ** 2, np.sin(a[2])]
    xs.sort()
    ys = list(a)
    ys.sort(key=lambda v: -v * v, reverse=True)
    return xs[0] * 10.0 + xs[2] + ys[0] * ys[1]


def reshaped_lists(a):
    xs = [a[0] * 2.0, a[1]]
    xs.reverse()
    xs.extend((a[2] ** 2, a[0] * a[1]))
    xs.insert(-1, a[1] * 3.0)
    xs.insert(100, a[2])
    first = xs.pop(0)
    last = xs.pop()
    xs.pop(-2)
    xs.remove(a[0] * 2.0)  # (the value made first)
    return first * 10.0 + last * xs[0] + sum(xs) ** 2


def changed_dicts(a):
    d = {"p": a[0] * 1.0, "q": a[1] * 2.0}
    d.update({"q": a[2] ** 2, "r": a[0] * a[1]}, s=2.0)
    kept = d.setdefault("p", 5.0)
    new = d.setdefault("t", a[2] * 4.0)
    gone = d.pop("r")
    missing = d.pop("zz", a[0] * 7.0)
    return kept * new + gone * d["q"] + missing * d["s"] + len(d)


def updated_by_keyword(a):
    d = {"p": a[0] * 1.0, "q": a[1] * 2.0}
    d.update(q=np.sin(a[2]), r=a[0] * a[1])  # (fuzz: E211, a keyword taken for an option)
    d.update({"p": a[1] ** 2, "s": a[2] * 3.0}, p=a[0] * a[2], t=2.0)  # (the keyword wins)
    for k in range(2):
        d.update(r=d["r"] * a[k], u=d["q"] + k)
    return d["p"] * d["q"] + d["r"] * d["s"] + d["t"] * d["u"] + len(d)


def changed_arrays(a):
    b = a * np.array([1.0, -2.0, 0.5])
    b.sort()
    m = np.outer(a, a[::-1])
    m.sort(axis=0)
    c = np.zeros(2)
    c.fill(a[1] ** 2)
    return b[0] * 10.0 + b[2] + np.sum(m[0] * m[2]) + np.sum(c * a[:2])


def annotated(a):
    out: list[float] = []
    for v in a:
        out.append(v * v)
    d: dict[str, float] = {}
    d["k"] = a[0] * 3.0
    s: float = 0.0
    s += a[1] * d["k"]
    return sum(out) + s


def appended_and_changed(a):
    xs = []
    for v in a:
        xs.append(v * v)
    xs.sort()
    for v in a:
        xs.append(np.sin(v))
    xs.reverse()
    stack = [a[0] * 1.0]
    for v in a[1:]:
        top = stack.pop()
        stack.append(top * v)
        stack.append(v + 1.0)
    rows = [np.zeros(2) for _ in range(2)]
    for i in range(2):
        rows[i] += a[:2] * (i + 1.0)
    rows.append(a[1:] * 1.0)
    total = 0.0
    for k in range(len(xs)):
        total = total + xs[k] * (k + 1.0)
    return total + sum(stack) + np.sum(rows[0] * rows[1]) + np.sum(rows[2])


def default_dicts(a):
    sums = collections.defaultdict(float)
    for i in range(len(a)):
        sums[i % 2] += a[i] * a[i]
    missing = sums[5]  # (a read of a missing key adds it)
    ordered = collections.OrderedDict()
    ordered["x"] = a[0] * 2.0
    return sums[0] * sums[1] + missing + sum(sums.values()) * len(sums) + ordered["x"]


def set_members(a):
    seen = set()
    total = 0.0
    for i in [0, 1, 0, 2, 1]:
        if i not in seen:
            total = total + a[i] ** 2
            seen.add(i)
    seen.discard(0)
    groups = {}
    for i in range(3):
        groups.setdefault(i % 2, set()).add(i)
    marks = {"a", "b"}
    marks.clear()
    return total * len(seen) + a[0] * len(groups[0]) + a[1] * len(groups[1]) + len(marks)


def a_differentiated_member(a):
    seen = set()
    seen.add(a[0] * 2.0)
    return sum(seen)


def heaps(a):
    h = []
    for v in a:
        heapq.heappush(h, v * v)
    heapq.heappush(h, a[0] * a[1])
    smallest = heapq.heappop(h)
    swapped = heapq.heappushpop(h, a[2] + 0.1)
    replaced = heapq.heapreplace(h, a[1] * 3.0)
    g = [np.sin(v) for v in a]
    heapq.heapify(g)
    return smallest * swapped + replaced * h[0] + h[-1] ** 2 + g[0] * g[1] + sum(g) * g[2]


def insorted(a):
    xs = sorted([a[0] * 2.0, a[1]])
    if a[2] > 0.0:
        bisect.insort(xs, a[2] ** 2)
    else:
        bisect.insort_left(xs, -a[2])
    ys = [a[0] * 1.0]
    for v in a[1:]:
        bisect.insort_right(ys, v * v, key=lambda w: -w)
    return xs[0] * 3.0 + xs[1] * xs[2] ** 2 + ys[0] * ys[1] + ys[2] ** 3


def heap_of_pairs(a):
    h = []
    for i in range(3):
        heapq.heappush(h, (a[i] * a[i], i))
    p, i = heapq.heappop(h)
    q, j = h[0]
    return p * 10.0 + q * (j + 1.0) + i


def drained(a):
    h = [v * v for v in a]
    heapq.heapify(h)
    total = 0.0
    while h:
        v = heapq.heappop(h)
        total = total * 2.0 + v
    stack = [np.sin(v) for v in a]
    while stack:
        top = stack.pop()
        total = total * 0.5 + top**2
    return total


def heap_on_a_parameter(xs):
    heapq.heappush(xs, 1.0)
    return xs[0]


def heap_on_an_alias(a):
    h = [a[0] * 1.0]
    kept = h
    heapq.heappush(h, a[1])
    return kept[0]


def heap_inside_an_expression(a):
    h = [a[0] * 1.0, a[1] * 2.0]
    return np.sin(heapq.heappop(h))


def insort_while_iterating(a):
    xs = [a[0] * 1.0, a[1] * 2.0]
    for v in xs:
        if len(xs) < 4:
            bisect.insort(xs, v)
    return xs[0]


def on_a_parameter(xs):
    xs.sort()
    return xs[0]


def on_an_alias(a):
    xs = [a[0] * 1.0, a[1] * 1.0]
    ys = xs
    xs.reverse()
    return ys[0]


def inside_an_expression(a):
    xs = [a[0] * 1.0, a[1] * 1.0]
    return np.sin(xs.pop()) if a[0] > 0.0 else 0.0  # (lifted where it runs unconditionally)


class Holder:
    def __init__(self, values):
        self.values = values


def on_an_attribute(a):
    holder = Holder([a[0] * 1.0, a[1] * 2.0])
    holder.values.sort()  # (once an AssertionError: srcad's own, found in np.polyder's source)
    return holder.values[0]


def while_iterating(a):
    xs = [a[0] * 1.0, a[1] * 2.0, a[2]]
    total = 0.0
    for v in xs:
        total = total + v
        xs.pop()
    return total
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("changing"), "changing_methods_module", MODULE)


A = np.array([0.7, -1.3, 0.4])
DIRECTION = np.array([1.0, -0.5, 0.25])


@pytest.mark.parametrize(
    "name",
    [
        "sorted_lists",
        "reshaped_lists",
        "changed_dicts",
        "updated_by_keyword",
        "changed_arrays",
        "annotated",
        "appended_and_changed",
        "default_dicts",
        "set_members",
        "heaps",
        "insorted",
        "heap_of_pairs",
        "drained",
    ],
)
def test_changing_methods_on_fresh_values(module, name):
    f = getattr(module, name)
    want = difference(f, (A,))
    close(srcad.grad(f)(A.copy()), want)
    y, y_dot = srcad.jvp(f, (A.copy(),), (DIRECTION,))
    close(y, f(A.copy()))
    close(y_dot, want @ DIRECTION)
    close(srcad.hessian(f)(A.copy()), difference(srcad.grad(f), (A,)))


@pytest.mark.parametrize(
    ("name", "args", "why"),
    [
        ("on_a_parameter", ([0.3, 0.1],), "changes its receiver in place"),
        ("on_an_alias", (A,), "may be shared"),
        ("inside_an_expression", (A,), "inside an expression"),
        ("while_iterating", (A,), "iterates over it"),
        ("on_an_attribute", (A,), "on an item or an attribute"),
        ("heap_on_a_parameter", ([0.3, 0.1],), "a parameter"),
        ("heap_on_an_alias", (A,), "may keep it"),
        ("heap_inside_an_expression", (A,), "not a statement of its own"),
        ("insort_while_iterating", (A,), "iterates over it"),
    ],
)
def test_other_changes_stay_refused_at_the_line(module, name, args, why):
    with pytest.raises(MutationError, match=why) as caught:
        srcad.grad(getattr(module, name))(*args)
    assert "changing_methods_module.py" in str(caught.value)


def test_a_differentiated_member_added_to_a_set_is_refused_at_the_line(module):
    with pytest.raises(UnsupportedSyntaxError, match="E215") as caught:
        srcad.grad(module.a_differentiated_member)(A)
    assert "changing_methods_module.py" in str(caught.value)

"""Mutations: each in-place change reported at its line and column, fresh values allowed."""

import pytest

from srcad.passes.checks.mutations import Mutations
from srcad.passes.testing import context_for

CASES = [
    ("item_assignment", "def f(x):\n    x[0] = 1.0\n    return x\n", [(2, 4, "E301")]),
    ("attribute_assignment", "def f(x):\n    x.a = 1.0\n    return x\n", [(2, 4, "E301")]),
    ("augmented_item", "def f(x):\n    x[0] += 1.0\n    return x\n", [(2, 4, "E301")]),
    ("unpacking_into_an_item", "def f(x):\n    a, x[1] = x, 2.0\n    return a\n",
     [(2, 7, "E301")]),
    ("delete_item", "def f(x):\n    del x[0]\n    return x\n", [(2, 8, "E301")]),
    ("append_to_parameter", "def f(xs, x):\n    xs.append(x)\n    return x\n",
     [(2, 4, "E302")]),
    ("append_to_copy", "def f(x):\n    a = []\n    b = a\n    b.append(x)\n    return b\n",
     [(4, 4, "E302")]),
    ("append_to_fresh_list", "def f(x):\n    a = []\n    a.append(x)\n    return a[0]\n", []),
    ("sort", "def f(x):\n    x.sort()\n    return x\n", [(2, 4, "E303")]),
    ("fill", "def f(x):\n    x.fill(0.0)\n    return x\n", [(2, 4, "E303")]),
    ("dict_update", "def f(d, x):\n    d.update(a=x)\n    return d\n", [(2, 4, "E303")]),
    ("list_pop", "def f(xs):\n    y = xs.pop()\n    return y\n", [(2, 8, "E303")]),
    ("out_argument", "def f(x):\n    np.add(x, 1.0, out=x)\n    return x\n",
     [(2, 23, "E304")]),
    ("copyto", "def f(x, y):\n    np.copyto(x, y)\n    return x\n", [(2, 4, "E305")]),
    ("ufunc_at", "def f(x, i):\n    np.add.at(x, i, 1.0)\n    return x\n", [(2, 4, "E305")]),
    ("ufunc_at_fresh", "def f(x, i):\n    a = np.zeros(3)\n    np.add.at(a, i, x)\n    return a\n",
     []),
    ("ufunc_at_after_a_view", "def f(x, i):\n    a = np.zeros(3)\n    b = a[1:]\n"
     "    np.add.at(a, i, x)\n    return b\n", [(4, 4, "E305")]),
    ("multiply_at_fresh", "def f(x, i):\n    a = np.ones(3)\n    np.multiply.at(a, i, x)\n"
     "    return a\n", []),
    ("arctan2_at_fresh", "def f(x, i):\n    a = np.ones(3)\n    np.arctan2.at(a, i, x)\n"
     "    return a\n", [(3, 4, "E305")]),
    ("augmented_parameter", "def f(x):\n    x += 1.0\n    return x\n", [(2, 4, "E306")]),
    ("augmented_copy", "def f(x):\n    y = x\n    y += 1.0\n    return y\n", [(3, 4, "E306")]),
    ("augmented_fresh_number", "def f(x):\n    s = 0.0\n    s += x\n    return s\n", []),
    ("augmented_fresh_array", "def f(x):\n    a = np.zeros(3)\n    a += x\n    return a\n", []),
    ("augmented_after_a_view", "def f(x):\n    a = np.zeros(3)\n    b = a[1:]\n    a += x\n"
     "    return b\n", [(4, 4, "E306")]),
    ("view_after_every_change", "def f(x):\n    a = np.zeros(3)\n    a += x\n    b = a[1:]\n"
     "    return b\n", []),
    ("augmented_in_a_loop_with_a_view", "def f(x):\n    a = np.zeros(3)\n    for i in range(2):"
     "\n        b = a.T\n        a += x\n    return b\n", [(5, 8, "E306")]),
    ("eval", "def f(x):\n    return eval('x * 2')\n", [(2, 11, "E307")]),
    ("exec", "def f(x):\n    exec('y = x')\n    return x\n", [(2, 4, "E307")]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_mutation_reported_at_line_and_column(name, text, expected):
    tree, ctx = context_for(text)
    found = ctx.analysis(Mutations, tree)
    assert [(d.line, d.column, d.code) for d in found] == expected
    assert all(d.hint and d.source_line for d in found)

"""A dict's keys take no derivative: `grad` and `jvp` perturb its values. So what
iterates a dict (its keys) has none from the dict, where rules had read the values'
tangents, or a dict of tangents' own keys, in their place (`jvp` of `sum(d)` gave the sum
of the keys); and a key computed from a differentiated value is refused (E215), where
its derivative would have been lost (`grad` of `max({x0: 1.0, x1: 2.0})` was 0)."""

import collections
import re

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

ITERATED = """
def max_key(d):
    return max(d) * d[max(d)]


def sorted_keys(d):
    return sum(sorted(d)) + sum(d.values())


def summed_keys(d):
    return sum(d) + d[0.5] * d[0.2]


def loop_over_keys(d):
    s = 0.0
    for k in d:
        s = s + k * d[k] ** 2
    return s


def listed_and_reversed(d):
    return sum(list(d)) + sum(reversed(list(d))) + d[0.2]


def smallest_and_keys(d):
    return min(d) + max(d.keys()) + d[0.2] * d[0.5]


def enumerated_and_zipped(d):
    s = 0.0
    for i, (k, v) in enumerate(zip(d, d.values())):
        s = s + (i + k) * v
    return s
"""

NAMES = [
    "max_key",
    "sorted_keys",
    "summed_keys",
    "loop_over_keys",
    "listed_and_reversed",
    "smallest_and_keys",
    "enumerated_and_zipped",
]
POINT = {0.5: 3.0, 0.2: 4.0}
DIRECTION = {0.5: 1.0, 0.2: -10.0}


def _differences(f):
    h = 1e-6
    return {
        k: (f({**POINT, k: POINT[k] + h}) - f({**POINT, k: POINT[k] - h})) / (2 * h) for k in POINT
    }


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("keys"), "dict_key_cases", ITERATED)


@pytest.mark.parametrize("name", NAMES)
def test_iterating_a_dict_gives_keys_without_derivatives(module, name):
    f = getattr(module, name)
    want = _differences(f)
    value, gradient = srcad.value_and_grad(f)(POINT)
    assert value == f(POINT)
    assert gradient.keys() == POINT.keys()
    for key in POINT:
        np.testing.assert_allclose(gradient[key], want[key], rtol=1e-6, atol=1e-8)
    y, y_dot = srcad.jvp(f, (POINT,), (DIRECTION,))
    assert y == f(POINT)
    np.testing.assert_allclose(y_dot, sum(want[k] * DIRECTION[k] for k in POINT), rtol=1e-6)


DIFFERENTIATED_KEYS = {
    "display": ("def f(x):\n    d = {x[0]: 1.0, x[1]: 2.0}\n    return max(d) * 3.0\n", 2),
    "item_written": ("def f(x):\n    d = {}\n    d[x[0] * 2.0] = 2.0\n    return sum(d)\n", 3),
    "in_a_loop": (
        "def f(x):\n    d = {}\n    for v in x:\n        d[v] = 1.0\n    return sorted(d)[0]\n",
        4,
    ),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIATED_KEYS))
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_key_computed_from_a_differentiated_value_is_refused(tmp_path, name, mode):
    text, line = DIFFERENTIATED_KEYS[name]
    f = user_module(tmp_path, f"differentiated_key_{name}_{mode}", text).f
    x = np.array([0.3, 0.7])
    with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
        if mode == "grad":
            srcad.grad(f)(x)
        else:
            srcad.jvp(f, (x,), (np.ones(2),))
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.line, diagnostic.code) == (line, "E215")
    assert "dict key computed from a differentiated value" in diagnostic.message


def test_int_keys_and_constant_keys_are_taken(tmp_path):
    """An int key (`int(10 * x0)`, piecewise constant) and constant float keys carry no
    derivative to lose."""
    text = (
        "def f(x):\n    d = {int(10.0 * x[0]): x[1], 0.5: x[0] ** 2}\n"
        "    d[3] = d[int(10.0 * x[0])] * 2.0\n    return sum(d.values()) + sum(d)\n"
    )
    f = user_module(tmp_path, "int_keys", text).f
    x = np.array([0.34, 0.7])
    np.testing.assert_allclose(srcad.grad(f)(x), [2 * 0.34, 2.0])  # d[3] is 2 x1
    np.testing.assert_allclose(srcad.jvp(f, (x,), (np.array([1.0, 1.0]),))[1], 2 * 0.34 + 2.0)


BUILT = """
def from_names(x):
    params = dict(zip(["a", "b"], x))
    return params["a"] * params["b"] ** 2


def key_given_twice(x):
    params = dict([("a", x[0]), ("b", x[1]), ("a", x[1])])
    return params["a"] * 3.0 + params["b"] * x[0]


def copied(x):
    base = {"a": x[0], "b": x[1]}
    copy = dict(base)
    return copy["a"] * copy["b"] + base["a"]


def by_position(x):
    d = dict(enumerate(x))
    return d[0] * d[1] ** 3
"""


@pytest.mark.parametrize("name", ["from_names", "key_given_twice", "copied", "by_position"])
def test_dict_of_a_mapping_or_of_pairs(tmp_path, name):
    """`dict(...)` moves the values to their keys (a key's last pair wins)."""
    f = getattr(user_module(tmp_path, f"dict_built_{name}", BUILT), name)
    x = np.array([0.3, 0.7])
    want = difference(f, (x,))
    close(srcad.grad(f)(x), want)
    close(srcad.jvp(f, (x,), (np.array([1.0, -0.5]),))[1], want @ [1.0, -0.5])
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


def test_dict_of_pairs_keyed_by_numbers_is_refused_at_the_users_line(tmp_path):
    text = "def f(x):\n    d = dict(zip(x, ['a', 'b']))\n    return sum(d)\n"
    f = user_module(tmp_path, "dict_numeric_keys", text).f
    with pytest.raises(srcad.SrcadError, match="keys take no derivative") as raised:
        srcad.grad(f)(np.array([0.3, 0.7]))
    notes = "\n".join(getattr(raised.value, "__notes__", []))
    assert "dict_numeric_keys.py:2" in notes


MERGED = """
def overridden(x):
    merged = {"a": x[0], "b": 2.0} | {"b": x[1] * 3.0}
    return merged["a"] * merged["b"] ** 2


def chained(x):
    merged = {"a": x[0]} | {"b": x[1]} | {"a": x[1] ** 2, "c": x[0]}
    return merged["a"] * merged["b"] + merged["c"] * x[1]


def of_arrays(x):
    merged = {"w": x, "b": 1.0} | {"b": x[0]}
    return np.sum(merged["w"] ** 2) * merged["b"]


def updated_in_a_loop(x):
    state = {"s": 0.0, "n": 0}
    for v in x:
        state = state | {"s": state["s"] * 0.5 + v * v}
    return sum(v * v for v in state.values())


def by_operator(x):
    merged = operator.or_({"a": x[0]}, {"b": x[1], "a": np.sin(x[1])})
    return merged["a"] * merged["b"]


def of_a_parameter(p, x):
    merged = p | {"b": x[1]}
    return np.sum(merged["w"] * merged["b"]) + merged["a"] ** 2
"""


@pytest.mark.parametrize(
    "name", ["overridden", "chained", "of_arrays", "updated_in_a_loop", "by_operator"]
)
def test_two_dicts_merged_by_bar(tmp_path, name):
    """`a | b` of dicts moves each value to the merged dict (the right one's where both
    hold a key): it was marked without derivative, so grad of `({'a': x0} | {'b': 3 x1})`'s
    product was 0 with no error."""
    text = "import operator\n\nimport numpy as np\n" + MERGED
    f = getattr(user_module(tmp_path, f"dict_merged_{name}", text), name)
    x = np.array([0.3, 0.7])
    want = difference(f, (x,))
    close(srcad.grad(f)(x), want)
    close(srcad.jvp(f, (x,), (np.array([1.0, -0.5]),))[1], want @ [1.0, -0.5])
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


def test_a_dict_argument_merged(tmp_path):
    text = "import operator\n\nimport numpy as np\n" + MERGED
    f = user_module(tmp_path, "dict_merged_argument", text).of_a_parameter
    p, x = {"w": np.array([0.5, -1.0]), "a": 0.4, "b": 7.0}, np.array([0.3, 0.7])
    h = 1e-6
    p_bar, x_bar = srcad.grad(f, wrt=(0, 1))(p, x)
    close(p_bar["a"], (f({**p, "a": 0.4 + h}, x) - f({**p, "a": 0.4 - h}, x)) / (2 * h))
    close(p_bar["w"], difference(lambda w: f({**p, "w": w}, x), (p["w"],)))
    assert isinstance(p_bar["b"], srcad.ZeroTangent) or p_bar["b"] == 0.0  # overridden
    close(x_bar, difference(lambda y: f(p, y), (x,)))
    p_dot = {"w": np.array([1.0, 2.0]), "a": -1.0, "b": 5.0}
    want = f({k: p[k] + h * p_dot[k] for k in p}, x) - f({k: p[k] - h * p_dot[k] for k in p}, x)
    close(srcad.jvp(f, (p, x), (p_dot, srcad.ZeroTangent()))[1], want / (2 * h))


def test_bar_of_masks_and_of_another_mapping(tmp_path):
    """`|` of masks has no derivative; of a mapping whose `|` is not a dict's merge (a
    Counter's, which takes the larger count) or of a class's own `|` it is refused at the
    user's line. An OrderedDict's merges as a dict's does."""
    text = (
        "import numpy as np\n\n\n"
        "def masked(x):\n    keep = (x > 0.5) | (x < -0.5)\n"
        "    return np.sum(np.where(keep, x ** 2, x))\n\n\n"
        "def ordered(p, x):\n    q = p | {'b': x[1]}\n    return q['a'] * q['b']\n\n\n"
        "class Hull:\n    def __init__(self, low, high):\n"
        "        self.low, self.high = low, high\n\n"
        "    def __or__(self, other):\n"
        "        return Hull(min(self.low, other.low), max(self.high, other.high))\n\n\n"
        "def hull(p, x):\n    h = p | Hull(x[0], x[1])\n    return h.high - h.low\n"
    )
    module = user_module(tmp_path, "dict_merged_other", text)
    x = np.array([0.3, 0.7])
    close(srcad.grad(module.masked)(x), difference(module.masked, (x,)))
    ordered = collections.OrderedDict(a=2.0)
    want = difference(lambda v: module.ordered(ordered, v), (x,))
    close(srcad.grad(module.ordered, wrt=1)(ordered, x), want)
    p = collections.Counter(a=2.0)  # (refused as an argument, before any `|`)
    for mode in ("grad", "jvp"):
        with pytest.raises(srcad.SrcadError, match=re.escape("collections.Counter")):
            if mode == "grad":
                srcad.grad(module.ordered, wrt=1)(p, x)
            else:
                srcad.jvp(module.ordered, (p, x), (srcad.ZeroTangent(), np.ones(2)))
    with pytest.raises(srcad.SrcadError, match=re.escape("`|` of a Hull")):
        srcad.grad(module.hull, wrt=1)(module.Hull(0.0, 1.0), x)


def test_a_merge_exported(tmp_path):
    """`srcad export` writes the merge's rule into a module that needs no srcad."""
    import importlib.util
    import sys

    from srcad.export import export_module

    text = "import operator\n\nimport numpy as np\n" + MERGED
    f = user_module(tmp_path, "dict_merged_exported", text).overridden
    file = tmp_path / "grad_overridden.py"
    file.write_text(export_module(f, {}, str(tmp_path)))
    assert "import srcad" not in file.read_text()
    spec = importlib.util.spec_from_file_location(file.stem, file)
    assert spec is not None and spec.loader is not None
    exported = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(tmp_path))
    try:
        spec.loader.exec_module(exported)
    finally:
        sys.path.remove(str(tmp_path))
    x = np.array([0.3, 0.7])
    close(exported.grad_overridden(x), difference(f, (x,)))

"""A nested function's default parameter value that reads a differentiated value
(`passes/transforms/nested_defaults.py`): computed once, where its `def` runs, as Python
computes it, and passed by each call that leaves it out, so its derivative flows as an
argument's; grad, jvp and hessian against central differences, in loops, branches,
recursion and nested helpers; what cannot be rewritten so stays refused, located (E214)."""

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

SOURCE = """
import math

import numpy as np


def straight(x):
    def g(y, s=x * 2.0):
        return np.sin(y * s)

    return np.sum(g(1.0) + g(x, 0.5) + g(x))


def mixed_defaults(x):
    def g(y, a=1.5, s=np.cos(x), t=(1.0, -2.0)):
        return y * a + s * t[0] + np.exp(s) * t[1]

    return np.sum(g(x) + g(x, 2.0) + g(x, t=(0.5, 0.5)) + g(x, s=x))


def positional_only(x):
    def g(y, s=x * x, /, k=3.0):
        return np.tanh(y + s) * k

    return np.sum(g(x) + g(1.0, k=2.0))


def defined_in_a_loop(x):
    total = 0.0
    for i in range(3):
        def g(y, s=x * (i + 1.0)):
            return np.sin(y) * s

        total = total + np.sum(g(x) * g(i * 1.0))
    return total


def defined_in_a_branch(x):
    if np.sum(x) > 0.0:
        def g(y, s=np.exp(x)):
            return y * s
    else:
        def h(y, s=x ** 3):
            return y * s

        return np.sum(h(x))
    return np.sum(g(x) + g(2.0))


def value_of_the_def_time(x):
    k = x * 1.0

    def g(y, s=k):
        return y * s

    k = x * x
    return np.sum(g(x) + k)


def recursive(x):
    def power(y, n, s=x * 0.5):
        if n == 0:
            return s
        return y * power(y, n - 1)

    return np.sum(power(x, 3))


def through_a_helper(x):
    def g(y, s=np.sin(x)):
        return y * s

    def h(v):
        return g(v) * v

    return np.sum(h(x) + g(x))


def from_a_lambda(x):
    scale = lambda y, s=x * 3.0: y * s  # noqa: E731
    return np.sum(scale(x) * scale(1.0))


def scalar(x):
    def g(y, s=math.sin(x)):
        return y * s + s * s

    return g(x) + g(2.0)
"""

CASES = [
    "straight",
    "mixed_defaults",
    "positional_only",
    "defined_in_a_loop",
    "defined_in_a_branch",
    "value_of_the_def_time",
    "through_a_helper",
    "from_a_lambda",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("nested_defaults"), "nested_default_cases", SOURCE)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_default_reading_a_differentiated_value(module, name, sign):
    f = getattr(module, name)
    x = sign * np.array([0.3, -0.7, 1.1])
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    direction = np.array([1.0, -2.0, 0.5])
    y, y_dot = srcad.jvp(f, (x,), (direction,))
    close(y, f(x))
    close(y_dot, want @ direction)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


def test_a_scalar_default(module):
    f = module.scalar
    close(srcad.grad(f)(0.4), difference(f, (0.4,)))
    close(srcad.jvp(f, (0.4,), (1.0,))[1], difference(f, (0.4,)))
    close(srcad.hessian(f)(0.4), difference(srcad.grad(f), (0.4,)))


def test_the_emitted_function_takes_the_value_computed_at_the_def(module):
    text = srcad.source(module.straight)
    assert "def g(y, s):" in text
    assert "g(1.0, g_s)" in text.replace("g_s_", "g_s")


REFUSED = {
    "a_keyword_only_default": (
        "def f(x):\n    def g(y, *, s=x * 2.0):\n        return y * s\n    return g(x)\n", 2,
        "E214"),
    "returned": (
        "def f(x):\n    def g(y, s=x * 2.0):\n        return y * s\n    h = g\n"
        "    return h(x)\n", 2, "E214"),
    "recursive": (
        "def f(x):\n    def g(y, n, s=x * 2.0):\n        if n == 0:\n            return s\n"
        "        return y * g(y, n - 1)\n    return g(x, 2)\n", 2, "E214"),
    "called_unpacking": (
        "def f(x):\n    def g(y, s=x * 2.0):\n        return y * s\n    return g(*(x,))\n", 4,
        "E102"),
    "rebound": (
        "def f(x):\n    def g(y, s=x * 2.0):\n        return y * s\n    a = g(x)\n"
        "    def g(y, s=x):\n        return y\n    return a + g(x)\n", 2, "E214"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_default_that_cannot_be_passed_stays_refused(tmp_path, name):
    text, line, code = REFUSED[name]
    module = user_module(tmp_path, f"nested_default_refused_{name}", text)
    for derivative in (srcad.grad(module.f), lambda x: srcad.jvp(module.f, (x,), (1.0,))):
        with pytest.raises(srcad.SrcadError) as raised:
            derivative(1.5)
        found = [d for d in raised.value.diagnostics if d.code == code]
        assert line in [d.line for d in found]

"""A lazy iterator read across statements (`passes/transforms/iterator_positions.py`): the
list of its items and a position that each read advances as Python's iterator does
(`next`, `next` with a default, a `for` loop left by `break` and another that goes on, a
reader of the rest, `zip(it, it)`), against the primal and central differences in grad,
jvp and hessian; where what it reads may change before it is read, or a read is of no form
taken, it stays refused, located (E103)."""

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

SOURCE = """
import numpy as np


def squares(x):
    for v in x:
        yield v * v


def first_then_the_rest(x):
    it = iter(x)
    first = next(it)
    total = first * 2.0
    for v in it:
        total = total + np.sin(v) * first
    return total


def previous_in_a_loop(x):
    it = iter(x)
    prev = next(it)
    total = 0.0
    for i in range(len(x) - 1):
        cur = next(it)
        total = total + (cur - prev) ** 2 * cur
        prev = cur
    return total


def with_defaults(x):
    it = (v * 2.0 for v in x)
    a = next(it)
    b = next(it, 0.5)
    for _ in it:
        pass
    c = next(it, x[0] * 3.0)
    return a * b + c


def from_a_generator_function(x):
    g = squares(x)
    a = next(g)
    b = next(g)
    return a * np.sin(b) + sum(g)


def pairs(x):
    it = iter(x)
    total = 0.0
    for a, b in zip(it, it):
        total = total + a * b
    return total + sum(it)


def listed_pairs(x):
    it = iter(x[1:])
    first = next(it)
    return first * sum(a - b * b for a, b in list(zip(it, it)))


def break_then_go_on(x):
    it = iter(x)
    total = 0.0
    for a in it:
        total = total + a
        if a > 0.5:
            break
    for b in it:
        total = total + b * b * a
    return total


def inside_expressions(x):
    it = iter(x)
    total = np.sin(next(it)) * next(it)
    total = total + sum(it) * 2.0
    return total + next(it, 1.5)


def rows_of_a_matrix(x):
    it = iter(np.reshape(x[:4], (2, 2)))
    top = next(it)
    return np.sum(top * next(it)) + np.sum(next(it, top))


def in_a_branch(x):
    it = enumerate(x)
    i, first = next(it)
    if first > 0.0:
        j, second = next(it)
    else:
        j, second = 7, first * first
    return (i + j) * second + sum(v for _, v in it)


def made_in_a_loop(x):
    total = 0.0
    for k in range(2):
        it = map(np.cos, x[k:])
        total = total + next(it) * next(it)
    return total


def until_none(x):
    it = iter(x)
    total = 0.0
    while True:
        v = next(it, None)
        if v is None:
            break
        total = total + v * v * np.cos(total)
    return total


def in_a_while_loop(x):
    it = iter(x)
    total = next(it)
    i = 1
    while i < 3:
        total = total * next(it) + 0.5
        i += 1
    return total


def skipped(x):
    it = iter(x)
    next(it)
    next(it)
    return np.sum(np.array(list(it)) ** 2)
"""

TAKEN = [
    "first_then_the_rest",
    "previous_in_a_loop",
    "with_defaults",
    "from_a_generator_function",
    "pairs",
    "listed_pairs",
    "break_then_go_on",
    "inside_expressions",
    "rows_of_a_matrix",
    "in_a_branch",
    "made_in_a_loop",
    "until_none",
    "in_a_while_loop",
    "skipped",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("positions"), "iterator_position_cases", SOURCE)


@pytest.mark.parametrize("name", TAKEN)
@pytest.mark.parametrize("x", [[0.3, 0.7, -0.2, 1.1, 0.4], [-0.6, 0.2, 0.9, 0.35, -1.3, 0.8]])
def test_an_iterator_read_across_statements(module, name, x):
    f = getattr(module, name)
    x = np.array(x)
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    direction = np.linspace(-1.0, 1.0, len(x))
    y, y_dot = srcad.jvp(f, (x,), (direction,))
    close(y, f(x))
    close(y_dot, want @ direction)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


def test_a_spent_iterator_raises_stop_iteration_as_python_does(module):
    x = np.array([0.3])
    with pytest.raises(StopIteration):
        module.inside_expressions(x)
    for derivative in (srcad.grad, lambda f: lambda v: srcad.jvp(f, (v,), (v,))):
        with pytest.raises(StopIteration):
            derivative(module.inside_expressions)(x)


def test_the_emitted_code_reads_a_position(module):
    text = srcad.source(module.first_then_the_rest)
    assert "it_at = 0" in text and "it_at = it_at + 1" in text


REFUSED = {
    "a_name_it_reads_rebound": (
        "def f(x):\n    k = 2.0\n    it = (v * k for v in x)\n    a = next(it)\n"
        "    k = 3.0\n    return a + next(it)\n", 6),
    "appended_to_between_reads": (
        "def f(x):\n    xs = [x[0]]\n    it = iter(xs)\n    a = next(it)\n"
        "    xs.append(x[1])\n    return a + next(it)\n", 6),
    "written_in_a_loop_around_it": (
        "import numpy as np\ndef f(x):\n    out = np.zeros(3)\n    total = 0.0\n"
        "    for i in range(2):\n        it = iter(out)\n        total = total + next(it)\n"
        "        out[i] = x[i]\n        total = total + next(it)\n    return total\n", 9),
    "read_in_a_comprehension": (
        "def f(x):\n    it = iter(x)\n    a = next(it)\n"
        "    return a + sum([next(it) for _ in range(2)])\n", 4),
    "read_in_a_conditional_expression": (
        "def f(x):\n    it = iter(x)\n    a = next(it)\n"
        "    return a * (next(it) if a > 0.0 else 1.0)\n", 4),
    "passed_to_a_function": (
        "def helper(values):\n    return next(values)\ndef f(x):\n    it = iter(x)\n"
        "    a = next(it)\n    return a + helper(it)\n", 6),
    "a_loop_reading_it_too": (
        "def f(x):\n    it = iter(x)\n    total = 0.0\n    for a in it:\n"
        "        total = total + a * next(it)\n    return total\n", 4),
    "pairs_left_by_break": (
        "def f(x):\n    it = iter(x)\n    total = 0.0\n    for a, b in zip(it, it):\n"
        "        total = total + a * b\n        if total > 1.0:\n            break\n"
        "    return total + sum(it)\n", 4),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_read_python_could_answer_otherwise_stays_refused(tmp_path, name):
    text, line = REFUSED[name]
    module = user_module(tmp_path, f"iterator_position_refused_{name}", text)
    x = np.array([0.3, -0.4, 0.8, 1.2])
    for derivative in (srcad.grad(module.f), lambda v: srcad.jvp(module.f, (v,), (v,))):
        with pytest.raises(srcad.SrcadError) as raised:
            derivative(x)
        found = [d for d in raised.value.diagnostics if d.code == "E103"]
        assert found, raised.value
        assert line in [d.line for d in found], raised.value

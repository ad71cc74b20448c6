"""Methods that change a value in place called inside an expression (`total +=
xs.pop()`, `return d.pop("k")`, `ys.append(xs.pop())`, `rows[i].pop() * w`): lifted into
statements before the one that holds them, where Python runs the call
(`change_rewrites._lift_change`), in both modes and to second order, against central
differences. Where Python runs the call on condition, more than once or later, or the
statement reads the changed value again (whose order of reads and changes a rebinding
does not keep), it stays refused at the user's line (`passes/checks/lifted_changes.py`)."""

import numpy as np
import pytest

import srcad
from srcad.errors import MutationError
from tests.conftest import close, difference, user_module

MODULE = """
import numpy as np


def popped_values(x):
    xs = [x[0] * 1.0, x[1] ** 2, x[2] * 3.0]
    total = 0.0
    total += xs.pop()
    ys = []
    ys.append(xs.pop() * 2.0)
    d = {"k": x[2] * x[0], "j": x[1]}
    s = np.sin(xs.pop(0)) + d.pop("k")
    s = s * d.setdefault("m", x[0] * 5.0)
    return total * ys[0] + s + d["j"] + len(xs)


def items_popped(x):
    rows = [[x[0] * 1.0, x[1] ** 2, x[2]], [x[2] * 1.0, x[0], x[1] * 1.0]]
    a = rows[0].pop() * x[1]
    a = a * rows[1].pop(0)
    if rows[0].pop() > 0.0:
        a = a + np.cos(rows[1].pop())
    for v in [rows[1].pop() * 2.0]:
        a = a + v
    return a + len(rows[0])


def returned(x):
    d = {"a": x[0] * x[1], "b": x[2]}
    return d.pop("a") * 2.0 + d.pop("b")


def in_a_loop(x):
    stack = [x[0] * 1.0]
    for v in x[1:]:
        stack.append(stack.pop() * v + 1.0)
        stack.insert(0, stack.pop() * 2.0)
        stack.append(v * 3.0)
    out = 0.0
    while stack:
        out = out * 0.5 + np.sin(stack.pop())
    return out


def returns_none(x):
    xs = [x[1] * 1.0, x[0] * 2.0]
    v = xs.sort()
    ys = [xs.reverse(), x[2]]
    return xs[0] * ys[1] + (v is None)


def on_condition(x):
    xs = [x[0] * 1.0, x[1] * 2.0]
    return xs.pop() if x[0] > 0.0 else 0.0


def in_a_second_operand(x):
    xs = [x[0] * 1.0, x[1] * 2.0]
    return x[0] > 0.0 and xs.pop() > 0.0


def in_a_comprehension(x):
    xs = [x[0] * 1.0, x[1] * 2.0]
    return sum([xs.pop() for _ in range(2)])


def read_again(x):
    xs = [x[0] * 1.0, x[1] * 2.0]
    return xs[0] + xs.pop()


def kept_with_it(x):
    xs = [x[0] * 1.0, x[1] * 2.0]
    both = [xs, xs.pop()]
    return both[1]


def the_same_item_twice(x):
    rows = [[x[0] * 1.0, x[1] * 2.0]]
    rows[0].append(rows[0].pop())
    return sum(rows[0])


def read_in_an_argument(x):
    xs = [x[0] * 1.0, x[1] * 2.0]
    xs.insert(len(xs), xs.pop())
    return xs[0]


def in_a_while_test(x):
    xs = [x[0] * 1.0, x[1] * 2.0]
    while xs.pop() > 5.0:
        pass
    return len(xs) * x[0]
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("lifted"), "lifted_changes_module", MODULE)


X = np.array([0.7, -1.3, 0.4])
DIRECTION = np.array([1.0, -0.5, 0.25])


@pytest.mark.parametrize(
    "name", ["popped_values", "items_popped", "returned", "in_a_loop", "returns_none"]
)
def test_changes_lifted_out_of_expressions(module, name):
    f = getattr(module, name)
    for x in (X, -X):  # (the branches' other sides)
        want = difference(f, (x,))
        close(srcad.grad(f)(x.copy()), want)
        y, y_dot = srcad.jvp(f, (x.copy(),), (DIRECTION,))
        close(y, f(x.copy()))
        close(y_dot, want @ DIRECTION)
        close(srcad.hessian(f)(x.copy()), difference(srcad.grad(f), (x,)))


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("on_condition", "runs it on condition"),
        ("in_a_second_operand", "runs it on condition"),
        ("in_a_comprehension", "runs it on condition"),
        ("in_a_while_test", "inside this statement"),
        ("read_again", "reads `xs` again"),
        ("kept_with_it", "reads `xs` again"),
        ("the_same_item_twice", "reads `rows` again"),
        ("read_in_an_argument", "reads `xs` again"),
    ],
)
def test_changes_python_runs_otherwise_stay_refused(module, name, why):
    with pytest.raises(MutationError, match=why) as caught:
        srcad.grad(getattr(module, name))(X.copy())
    assert "lifted_changes_module.py" in str(caught.value)

"""`with` statements whose managers change no value and swallow no exception
(`passes/transforms/contexts.py`): differentiated as their bodies, in both modes and at
second order, against central differences; the derivative code runs under the manager's
state (a warning the function silences stays silent, an error it raises is raised); the
other managers refused, located, with why."""

import warnings

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

SOURCE = """
import contextlib
import warnings
from contextlib import nullcontext

import numpy as np


def errstate_where(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(x > 0, np.log(x), 0.0)
    return np.sum(y * x)


def catch_warnings_filter(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y = np.sqrt(x) * x
    return np.sum(y)


def null_as_target(x):
    with nullcontext(x * 2.0) as doubled, contextlib.nullcontext():
        y = np.sin(doubled)
    return np.sum(y * x)


def two_items_and_nested(x):
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(under="ignore") as state:
            y = np.exp(x) * x
            assert state is None
        z = np.tanh(y)
    return np.sum(z * y)


def in_a_loop_and_a_branch(x):
    s = 0.0
    for i in range(len(x)):
        with np.errstate(divide="ignore"):
            s = s + x[i] * np.log(x[i] + 2.0)
        if s > 0.0:
            with warnings.catch_warnings():
                s = s * 1.5
    return s


def returns_inside(x):
    y = x * x
    with np.errstate(all="ignore"):
        z = np.log(y + 1.0)
        return np.sum(z * x)


def returns_inside_nested(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.exp(-x) * x
        with np.errstate(divide="ignore"), nullcontext(y) as alias:
            return np.sum(np.log(alias * alias + 1.0))


def in_a_nested_function(x):
    def inner(v):
        with np.errstate(invalid="ignore"):
            return np.cos(v) * v

    return np.sum(inner(x) * inner(x * 0.5))


def sqrt_ignoring(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(np.sqrt(x))


def log_raising(x):
    with np.errstate(divide="raise"):
        y = np.log(x)
    return np.sum(y)


def log_raising_nested(x):
    with warnings.catch_warnings():
        with np.errstate(divide="raise"):
            y = np.log(x)  # needed by nothing but itself: it runs, and raises
    return np.sum(x * x)


def log_filtered_to_error(x):
    with warnings.catch_warnings():
        warnings.simplefilter(action="error")
        y = np.log(x)
    return np.sum(x * x)


def sqrt_filtered(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.sqrt(x)
    return np.sum(y)
"""

TAKEN = [
    "errstate_where",
    "catch_warnings_filter",
    "null_as_target",
    "two_items_and_nested",
    "in_a_loop_and_a_branch",
    "returns_inside",
    "returns_inside_nested",
    "in_a_nested_function",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("withs"), "with_statement_cases", SOURCE)


@pytest.mark.parametrize("name", TAKEN)
@pytest.mark.parametrize("x", [np.array([0.3, 0.7, 1.1]), np.array([1.4, 0.2, 0.9, 0.05])])
def test_differentiated_as_its_body(module, name, x):
    f = getattr(module, name)
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    direction = np.linspace(1.0, -0.5, x.size)
    y, y_dot = srcad.jvp(f, (x,), (direction,))
    close(y, f(x))
    close(y_dot, want @ direction)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


def test_the_emitted_code_enters_the_manager_around_the_body_and_its_pullback(module):
    text = srcad.source(module.errstate_where)
    assert text.count("with np.errstate(divide='ignore', invalid='ignore'):") == 2
    forward = srcad.source(module.errstate_where, mode="forward")
    assert forward.count("with np.errstate(divide='ignore', invalid='ignore'):") == 1
    assert "enter_context" not in text + forward


# The derivative of sqrt at 0 divides by zero where the primal does not: the derivative
# code runs under the state the function set, in each mode and at second order.
DERIVATIVES = {
    "grad": lambda f, x: srcad.grad(f)(x),
    "jvp": lambda f, x: srcad.jvp(f, (x,), (np.ones_like(x),))[1],
    "hessian": lambda f, x: srcad.hessian(f)(x),
}


@pytest.mark.parametrize("derivative", sorted(DERIVATIVES))
@pytest.mark.parametrize("name", ["sqrt_ignoring", "sqrt_filtered"])
def test_a_warning_the_function_silences_stays_silent(module, name, derivative):
    x = np.array([0.0, 1.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = DERIVATIVES[derivative](getattr(module, name), x)
    assert not np.all(np.isfinite(got))  # the infinite slope at 0, with no warning


RAISING = {
    "log_raising": (FloatingPointError, [1.0, 0.25]),
    "log_raising_nested": (FloatingPointError, [2.0, 8.0]),
    "log_filtered_to_error": (RuntimeWarning, [2.0, 8.0]),
}


@pytest.mark.parametrize("derivative", sorted(DERIVATIVES))
@pytest.mark.parametrize("name", sorted(RAISING))
def test_an_error_the_function_raises_is_raised_and_the_state_restored(module, name, derivative):
    f = getattr(module, name)
    error, gradient = RAISING[name]
    before, filters = np.geterr(), list(warnings.filters)
    with pytest.raises(error):
        f(np.array([0.0, 1.0]))
    with pytest.raises(error):
        DERIVATIVES[derivative](f, np.array([0.0, 1.0]))
    assert (np.geterr(), warnings.filters) == (before, filters)
    close(srcad.grad(f)(np.array([1.0, 4.0])), gradient)


REFUSED = {
    "suppress": (
        "import contextlib\ndef f(x):\n    with contextlib.suppress(ValueError):\n"
        "        x = x * 2.0\n    return x\n",
        3,
        "it swallows an exception",
    ),
    "a_user_class": (
        "class Quiet:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *exc):\n        return True\n"
        "def f(x):\n    with Quiet():\n        x = x * 2.0\n    return x\n",
        7,
        "returns a value other than None or False: a true one swallows an exception",
    ),
    "an_open_file": (
        "def f(x):\n    with open('data.txt') as stream:\n        x = x * 2.0\n    return x\n",
        2,
        "supported only for `np.errstate`",
    ),
    "a_computed_setting": (
        "import numpy as np\ndef f(x, mode='ignore'):\n    with np.errstate(divide=mode):\n"
        "        x = x * 2.0\n    return x\n",
        3,
        "constant arguments only",
    ),
    "a_manager_in_a_local": (
        "import numpy as np\ndef f(x):\n    state = np.errstate\n    with state(divide='ignore'):\n"
        "        x = x * 2.0\n    return x\n",
        4,
        "supported only for",
    ),
    "a_return_inside_a_branch": (
        "import numpy as np\ndef f(x):\n    with np.errstate(all='ignore'):\n"
        "        if x > 0:\n            return x * 2.0\n        x = x * 3.0\n    return x\n",
        3,
        "a `return` other than its last statement",
    ),
    "a_break_out_of_the_body": (
        "import numpy as np\ndef f(x):\n    for i in range(3):\n"
        "        with np.errstate(all='ignore'):\n            x = x * 2.0\n            break\n"
        "    return x\n",
        4,
        "left by `break`",
    ),
    "record_as": (
        "import warnings\ndef f(x):\n    with warnings.catch_warnings(record=True) as caught:\n"
        "        x = x * 2.0\n    return x * len(caught)\n",
        3,
        "the manager's own record",
    ),
    "a_filter_of_a_local": (
        "import warnings\ndef f(x, kind=RuntimeWarning):\n    with warnings.catch_warnings():\n"
        "        warnings.simplefilter('ignore', kind)\n        x = x * 2.0\n    return x\n",
        3,
        "calls it again",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_other_managers_are_refused_at_their_line(tmp_path, name):
    text, line, message = REFUSED[name]
    module = user_module(tmp_path, f"with_refused_{name}", text)
    for derivative in (srcad.grad(module.f), lambda x: srcad.jvp(module.f, (x,), (1.0,))):
        with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
            derivative(1.5)
        (diagnostic,) = raised.value.diagnostics
        assert (diagnostic.line, diagnostic.code) == (line, "E101")
        assert message in diagnostic.message

"""`with` statements of the user's own managers, a class or a `@contextlib.contextmanager`
function, whose source srcad proves swallows no exception and changes no value the
function reads (`passes/transforms/own_managers.py`): differentiated as their bodies, in
both modes and at second order, against central differences; the manager runs once per
run of the function, around the body, and the pullback outside it; each manager not
proved refused, located, with why."""

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

SOURCE = '''
import contextlib
import logging
import math
import time
import warnings

import numpy as np

log = logging.getLogger("srcad.tests.own_managers")
LEVEL = 10


class Timer:
    def __init__(self, name="section"):
        self.name = name
        self.elapsed = 0.0

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.elapsed = time.perf_counter() - self.start
        print(f"{self.name}: {self.elapsed:.1e} s")
        return False


class Logged:
    """Logs its section; `__exit__` says whether it failed, and falls off its end."""

    def __init__(self, name, level=LEVEL):
        self.name, self.level = name, level

    def __enter__(self):
        log.log(self.level, "start %s", self.name)

    def __exit__(self, kind, error, traceback):
        if kind is not None:
            log.error("%s failed: %s", self.name, error)
            return None
        log.debug("done " + self.name)


class Flagged:
    active = False  # a constant of the class, shadowed by the instance's

    def __enter__(self):
        self.active = True
        self.depth = math.floor(2.5)
        return self

    def __exit__(self, *exc):
        self.active = False
        self.done, self.why = True, str(exc[0])


class Laps:
    def __init__(self):
        self.laps = []
        self.names = {}

    def __enter__(self):
        self.laps.append(time.perf_counter())
        self.names.update(first=len(self.laps))
        return self

    def __exit__(self, kind, error, traceback):
        self.laps.append(time.perf_counter())
        if len(self.laps) > 2:
            warnings.warn("more than one lap")
        return False


@contextlib.contextmanager
def section(name):
    started = time.perf_counter()
    try:
        yield
    finally:
        print("{}: {:.1e} s".format(name, time.perf_counter() - started))


@contextlib.contextmanager
def tagged(tag="t", scale=2):
    tagged = scale * 2
    log.info("enter %s", tag)
    try:
        yield tag
    except ValueError as error:
        log.error("%s: %s", tag, error)
        raise
    log.info("exit %s", tag)


def timed(x):
    with Timer("timed") as t:
        y = np.sin(x) * x
    print(t.elapsed >= 0.0, t.name)
    return np.sum(y * y)


def logged_in_a_loop(x):
    s = 0.0
    for i in range(len(x)):
        with Logged(f"step {i} of {len(x)}: {x[i]:.2f}"):
            s = s + np.exp(-x[i]) * x[i]
    return s * s


def flagged_and_nested(x):
    with Flagged() as flag, np.errstate(divide="ignore"):
        with section("inner"):
            y = np.log(x + 1.0) * x
        z = np.tanh(y)
    assert flag.done and not flag.active
    return np.sum(z * y)


def laps_returned_inside(x):
    y = x * x
    with Laps() as laps:
        z = np.cos(y) + x
        return np.sum(z * x)


def tagged_as(x):
    with tagged("w") as tag, Timer():
        w = np.sqrt(x + 2.0) * len(tag * 2)
    return np.sum(w * x)


def in_a_nested_function(x):
    def inner(v):
        with section("inner"):
            return np.sin(v) * v

    return np.sum(inner(x) * inner(x * 0.5))


def as_in_a_while_loop(x):
    s = x * 1.0
    k, total = 0, 0.0
    while k < 3:
        with Timer("step") as t:
            s = np.tanh(s) * x
        total = total + t.elapsed
        k = k + 1
    return np.sum(s) + 0.0 * total


def helper(v):
    with Timer() as t, section("helper"):
        w = np.sin(v) * v
    return w * (t.elapsed >= 0.0)


def in_a_callee(x):
    s = 0.0
    for i in range(2):
        s = s + np.sum(helper(x * i))
    return s + np.sum(helper(x))


def prints_once(x):
    with Timer("once"):
        y = np.exp(x) * x
    return np.sum(y)
'''

TAKEN = [
    "timed",
    "logged_in_a_loop",
    "flagged_and_nested",
    "laps_returned_inside",
    "tagged_as",
    "in_a_nested_function",
    "in_a_callee",
    "as_in_a_while_loop",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("own"), "own_manager_cases", SOURCE)


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


def test_the_manager_runs_once_around_the_body_and_the_pullback_outside(module, capsys):
    x = np.array([0.5, 1.5])
    srcad.grad(module.prints_once)(x)
    assert capsys.readouterr().out.count("once:") == 1
    srcad.jvp(module.prints_once, (x,), (np.ones(2),))
    assert capsys.readouterr().out.count("once:") == 1
    text = srcad.source(module.prints_once)
    assert text.count("with Timer('once'):") == 1
    pullback = text[text.index("def prints_once_pullback") :]
    assert "with" not in pullback
    forward = srcad.source(module.prints_once, mode="forward")
    assert forward.count("with Timer('once'):") == 1
    assert "enter_own_context" not in text + forward


HEAD = "import contextlib\nimport time\nimport numpy as np\n"
CLASS = (
    "class M:\n{members}    def __enter__(self):\n{enter}\n    def __exit__(self, *exc):\n{exit}\n"
)
WITH = "def f(x):\n    with {manager} as m:\n        x = x * 2.0\n    return x\n"


def _class(enter="        return self", exit="        return False", **more):
    manager, before, members = (
        more.get("manager", "M()"),
        more.get("before", ""),
        more.get("members", ""),
    )
    text = CLASS.format(members=members, enter=enter, exit=exit)
    return HEAD + before + text + WITH.format(manager=manager)


def _generator(body, manager="g()", before=""):
    text = "@contextlib.contextmanager\ndef g():\n" + body + "\n"
    return HEAD + before + text + WITH.format(manager=manager)


REFUSED = {
    "exit_returns_true": (_class(exit="        return True"), "a true one swallows"),
    "exit_returns_computed": (
        _class(exit="        return exc[0] is ValueError"),
        "returns a value other than None or False",
    ),
    "enter_writes_a_global": (
        _class(enter="        global N\n        N = 1\n        return self", before="N = 0\n"),
        "declares a global",
    ),
    "enter_appends_to_a_global": (
        _class(enter="        SEEN.append(1)\n        return self", before="SEEN = []\n"),
        "which may change a value",
    ),
    "enter_calls_a_function_of_the_user": (
        _class(enter="        helper()\n        return self", before="def helper():\n    pass\n"),
        "calls `helper`",
    ),
    "exit_writes_the_exception": (
        _class(exit="        exc[1].note = 1"),
        "assigns or deletes what is not a local name",
    ),
    "a_property_set": (
        _class(
            enter="        self.p = 1", members="    p = property(lambda s: 0, lambda s, v: None)\n"
        ),
        "which its class defines",
    ),
    "a_setattr_hook": (
        _class(members="    def __setattr__(self, k, v):\n        pass\n"),
        "defines `__setattr__`",
    ),
    "a_computed_argument": (
        _class(members="    def __init__(self, v):\n        self.v = v\n", manager="M(x)"),
        "constants and f-strings as arguments only",
    ),
    "the_body_reads_the_manager": (
        _class().replace("x = x * 2.0", "x = x * m.__class__.__name__.count('M')"),
        "is read in its body",
    ),
    "a_default_that_is_a_list": (
        _class(members="    def __init__(self, seen=[]):\n        self.seen = seen\n"),
        "default value that is not a constant",
    ),
    "exit_a_generator": (
        _class(exit="        yield"),
        "is a generator or a coroutine",
    ),
    "the_manager_printed": (
        _class(enter="        print(f'entered {self}')\n        return self"),
        "uses `self` other than for its attributes",
    ),
    "a_container_the_caller_gave": (
        _class(enter="        self.seen.append(1)", members="    seen = []\n"),
        "calls `seen.append`",
    ),
    "a_container_unpacked_into": (
        _class(
            enter="        self.laps, n = [], 0\n        self.laps.append(n)",
            members="    def __init__(self):\n        self.laps = []\n",
        ),
        "calls `laps.append`",
    ),
    "the_manager_rebound": (
        _class(enter="        self = SEEN\n        self.n = 1", before="SEEN = []\n"),
        "binds `self` to another value",
    ),
    "a_generator_that_swallows": (
        _generator("    try:\n        yield\n    except ValueError:\n        pass"),
        "yields other than",
    ),
    "a_generator_yielding_in_a_loop": (
        _generator("    for i in range(2):\n        yield"),
        "yields other than",
    ),
    "a_generator_yielding_twice": (
        _generator("    yield\n    yield"),
        "yields 2 times",
    ),
    "a_generator_yielding_a_value": (
        _generator("    yield time.perf_counter()"),
        "yields a value other than a constant or an argument",
    ),
    "a_generator_returning_in_finally": (
        _generator("    try:\n        yield\n    finally:\n        return"),
        "may swallow",
    ),
    "suppress": (HEAD + WITH.format(manager="contextlib.suppress(ValueError)"), "swallows"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_manager_not_proved_is_refused_at_its_line(tmp_path, name):
    text, message = REFUSED[name]
    module = user_module(tmp_path, f"own_refused_{name}", text)
    line = text.splitlines().index(next(s for s in text.splitlines() if "with " in s)) + 1
    for derivative in (srcad.grad(module.f), lambda x: srcad.jvp(module.f, (x,), (1.0,))):
        with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
            derivative(1.5)
        (diagnostic,) = raised.value.diagnostics
        assert (diagnostic.line, diagnostic.code) == (line, "E101")
        assert message in diagnostic.message


GUARDED = """
import numpy as np

class Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

def f(x):
    with Quiet():
        y = np.sin(x) * x
    return np.sum(y)
"""


def test_a_manager_changed_after_compiling_is_read_again(tmp_path):
    module = user_module(tmp_path, "own_guarded", GUARDED)
    x = np.array([0.2, 0.9])
    close(srcad.grad(module.f)(x), difference(module.f, (x,)))

    def swallowing(self, *exc):
        return True

    module.Quiet.__exit__ = swallowing  # now it swallows: its source is read again
    with pytest.raises(srcad.UnsupportedSyntaxError, match="a true one swallows"):
        srcad.grad(module.f)(x)

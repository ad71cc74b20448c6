"""A `jvp` entry's branch running its forward rule inline (`srcad/forward_inline.py`): the
same values and tangents as the general path, checked against central differences; the
globals it reads followed when rebound; the rules it keeps as calls; names of the rule's
and the entry's that would clash."""

import functools
import math
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad import ZeroTangent
from srcad.api import _general_jvp
from srcad.forward_entry import ATTRIBUTE
from srcad.tracebacks import notes_for
from tests.conftest import user_module as load

MODULE = """
import math
import numpy as np

TOLERANCE = 1e-13
COEFFICIENTS = (0.5, -1.0, 2.0, 0.25)
y = 2.0  # the entry's own local names, as globals and parameters of the user's
REGISTRY = 3.0
FUNCTION = 0.5

def kepler(M, e):
    E = M
    while abs(E - e * math.sin(E) - M) > TOLERANCE:
        E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    return E

def horner(x):
    p = 0.0
    for c in COEFFICIENTS:
        p = p * x + c
    return math.sin(p) + math.exp(-p * p)

def piecewise(x, s):
    if x > 1.0:
        return s * x * x
    for k in range(3):
        if x < -k:
            return math.exp(s * x) + k
    return s * math.tanh(x)

def clash(arg1, y_dot, finish):
    result = arg1 * y_dot + finish
    hold = result * y * REGISTRY
    return hold * arg1 + FUNCTION * math.sin(finish)

def norm_scaled(v, s):
    return s * np.sqrt(np.sum(v * v))

def factorial_power(x, n):
    if n <= 1.0:
        return x
    return x * factorial_power(x, n - 1.0)

def divided(x, d):
    q = x * x
    return q / d
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return load(tmp_path_factory.mktemp("inline"), "forward_inline_cases", MODULE)


def _central(f: Any, args: tuple[Any, ...], tangents: tuple[Any, ...], h: float = 1e-6) -> Any:
    dense = [0.0 if isinstance(t, ZeroTangent) else t for t in tangents]
    moved = [[a + s * h * t for a, t in zip(args, dense, strict=True)] for s in (1.0, -1.0)]
    return (np.asarray(f(*moved[0])) - np.asarray(f(*moved[1]))) / (2 * h)


def _text(f: Any) -> str:
    return str(f.__dict__[ATTRIBUTE].source())


def _through_branch(f: Any, args: tuple[Any, ...], tangents: tuple[Any, ...]) -> Any:
    """`jvp` through the entry's branch (its second call on), checked against the general
    path and central differences."""
    first = srcad.jvp(f, args, tangents)
    found = srcad.jvp(f, args, tangents)
    want = _general_jvp(f, args, tangents)
    for y, y_dot in (first, found):
        np.testing.assert_allclose(y, f(*args), rtol=1e-13)
        np.testing.assert_allclose(y_dot, want[1], rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(y_dot, _central(f, args, tangents), rtol=1e-6, atol=1e-8)
        assert type(y) is type(want[0]) and type(y_dot) is type(want[1])
    return found


CASES = [
    ("kepler", (1.2, 0.3), [(1.0, 0.0), (0.3, -2.0), (ZeroTangent(), 0.7), (1.0, ZeroTangent())]),
    ("kepler", (np.float64(0.4), 0.9), [(np.float64(1.0), 0.5)]),
    ("horner", (0.7,), [(1.0,), (-0.4,)]),
    ("piecewise", (1.5, 0.5), [(1.0, 0.2)]),
    ("piecewise", (-1.5, 0.5), [(1.0, 0.2), (ZeroTangent(), 1.0)]),
    ("piecewise", (0.3, 2.0), [(1.0, 0.2)]),
    ("clash", (1.5, 0.5, 2.0), [(1.0, 0.2, 0.1), (ZeroTangent(), ZeroTangent(), 1.0)]),
    ("norm_scaled", (np.array([0.3, -1.2, 2.0]), 1.5), [(np.array([1.0, 0.5, -0.2]), 0.3)]),
]


@pytest.mark.parametrize(("name", "args", "each"), CASES)
def test_the_inlined_branch_gives_the_general_paths_products(
    module: Any, name: str, args: Any, each: Any
) -> None:
    f = getattr(module, name)
    for tangents in each:
        _through_branch(f, args, tangents)
    text = _text(f)
    assert "frule_0(" not in text and "finish(y, y_dot)" in text  # the rule's body, inline
    if name == "clash":  # the globals `y`, `REGISTRY` read from the user's module
        assert "globals__g0['y']" in text and "globals__g0['REGISTRY']" in text


def test_second_order_through_the_inlined_branch(module: Any) -> None:
    h = srcad.hessian(module.horner)
    x = 0.7
    d = 1e-4
    want = (module.horner(x + d) - 2 * module.horner(x) + module.horner(x - d)) / d**2
    np.testing.assert_allclose(h(x), want, rtol=1e-5)
    for _ in range(2):
        np.testing.assert_allclose(srcad.jvp(srcad.grad(module.horner), (x,), (1.0,))[1], want,
                                   rtol=1e-5)  # fmt: skip


def test_rebound_globals_are_seen(module: Any) -> None:
    f = module.kepler
    _through_branch(f, (1.2, 0.3), (1.0, 0.0))
    module.TOLERANCE = 1e-3  # another float: read live, no new compilation
    try:
        y, _ = srcad.jvp(f, (1.2, 0.3), (1.0, 0.0))
        assert y == f(1.2, 0.3) and "globals__g" in _text(f)
    finally:
        module.TOLERANCE = 1e-13
    g = module.horner
    _through_branch(g, (0.7,), (1.0,))
    module.COEFFICIENTS = (1.0, 0.5)  # another tuple: its identity is guarded
    try:
        _through_branch(g, (0.7,), (1.0,))
        module.math = types_module_like_math()  # `math` itself rebound: compiled again
        _through_branch(g, (0.7,), (1.0,))
    finally:
        module.COEFFICIENTS = (0.5, -1.0, 2.0, 0.25)
        module.math = math


def types_module_like_math() -> Any:
    """A module whose `sin` and `exp` are math's, scaled: a callee srcad has rules for."""
    import types

    fake = types.ModuleType("fake_math")
    fake.sin = np.sin  # type: ignore[attr-defined]
    fake.exp = np.exp  # type: ignore[attr-defined]
    return fake


def test_functools_wraps_copies_and_recursion(module: Any) -> None:
    f = module.kepler
    _through_branch(f, (1.2, 0.3), (1.0, 0.0))

    @functools.wraps(f)
    def wrapped(M: float, e: float) -> float:  # noqa: N803
        return 2.0 * f(M, e)

    for _ in range(2):  # its own entry, not kepler's (whose `__dict__` it copied)
        _, y_dot = srcad.jvp(wrapped, (1.2, 0.3), (1.0, 0.0))
        np.testing.assert_allclose(y_dot, _central(wrapped, (1.2, 0.3), (1.0, 0.0)), rtol=1e-6)
    recursive = module.factorial_power  # calls itself: kept as a call of its rule
    _through_branch(recursive, (1.3, 4.0), (1.0, ZeroTangent()))
    assert "frule_0(" in _text(recursive)


def test_a_rule_over_the_users_cells_is_called(module: Any) -> None:
    def scaled_by(scale: float) -> Any:
        def f(x: float) -> float:
            return scale * math.sin(x) * x

        return f

    f = scaled_by(1.5)
    _through_branch(f, (0.8,), (1.0,))
    assert "frule_0(" in _text(f)  # a cell of the user's, read by the rule when called
    f.__closure__[0].cell_contents = 2.5  # type: ignore[index]
    _through_branch(f, (0.8,), (1.0,))


def test_a_refusal_or_error_in_the_inlined_rule_names_the_users_line(
    module: Any, tmp_path: Path
) -> None:
    f = module.divided
    _through_branch(f, (1.5, 2.0), (1.0, 0.0))
    with pytest.raises(ZeroDivisionError) as raised:
        srcad.jvp(f, (1.5, 0.0), (1.0, 0.0))
    frames = traceback.extract_tb(raised.value.__traceback__)
    assert "entry jvp of" in frames[-1].filename  # raised in the entry itself
    notes = notes_for(raised.value)
    assert notes and "return q / d" in notes[-1] and "forward_inline_cases.py" in notes[-1]

"""Issue 19, item 1: module constants and closure cells the code reads get kinds, so code
reading them stays specialised (`passes/transforms/constants.py`), and a guard on entry
sends any other value of them to code compiled for it: never a wrong number."""

from __future__ import annotations

import math
import re
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import user_module

MODULE = """
import math
import numpy as np

SCALE = 0.7
STEPS = 5
COEFFICIENTS = (0.05, -0.3, 0.8, -1.1)


def scaled(x):
    return SCALE * math.sin(x) * x


def stepped(x):
    y = x
    for _ in range(STEPS):
        y = y - 0.1 * SCALE * y * y
    return y


def horner(x):
    p = 0.0
    for c in COEFFICIENTS:
        p = p * x + c
    return math.sin(p) + math.exp(-p * p)


def indexed(x):
    return COEFFICIENTS[0] * x * x + COEFFICIENTS[1] * x + SCALE


def while_scaled(a):
    x = a
    while abs(x * x - a) > 1e-12 * SCALE:
        x = 0.5 * (x + a / x)
    return SCALE * x


def array_scaled(x):
    return np.sum(SCALE * x * x)
"""


@pytest.fixture
def module(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"constants_{abs(hash(str(tmp_path)))}", MODULE)


def central(f: Any, x: Any, h: float = 1e-6) -> Any:
    if np.ndim(x) == 0:
        return (f(x + h) - f(x - h)) / (2 * h)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def check(func: Any, x: Any) -> None:
    """grad, value_and_grad and rrule's pullback agree with central differences."""
    expected = central(func, x)
    np.testing.assert_allclose(srcad.grad(func)(x), expected, rtol=1e-6, atol=1e-8)
    value, gradient = srcad.value_and_grad(func)(x)
    np.testing.assert_allclose(value, func(x), rtol=1e-12)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)
    _, pullback = srcad.rrule(func, x)
    np.testing.assert_allclose(pullback(1.0)[1], expected, rtol=1e-6, atol=1e-8)


FUNCTIONS = ["scaled", "stepped", "horner", "indexed", "while_scaled"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_code_reading_constants_is_specialised_and_right(module: Any, name: str) -> None:
    func = getattr(module, name)
    check(func, 0.6)
    text = COMPILER.compiled(func, None, Request.grad(signature((0.6,)))).source
    assert "_rrule(" not in text  # every derivative inlined: the constants have kinds
    if name == "horner":  # a loop over a tuple of floats, written out: its items, the
        # tuple's identity guarded (`Unroll._item`)
        assert "c = 0.05" in text and "c = -0.3" in text and "COEFFICIENTS" not in text
    else:
        assert "SCALE_2 = SCALE" in text or "COEFFICIENTS_2 = COEFFICIENTS" in text


# What a constant may be rebound to: another value of its kind (no new compilation), or
# a value of another kind or none (compiled again, for it).
REBOUND = [
    ("SCALE", 1.3),
    ("SCALE", 2),
    ("SCALE", np.float64(0.4)),
    ("SCALE", np.float32(0.4)),
    ("SCALE", np.array(0.4)),
    ("SCALE", 1.5 + 0.0j),
    ("STEPS", 3),
    ("STEPS", np.int32(2)),
    ("COEFFICIENTS", (1.0, 2.0)),
    ("COEFFICIENTS", (0.5, 1.5, -2.0, 0.25)),  # (as long: its items, another tuple's)
    ("COEFFICIENTS", [1.0, -2.0, 0.5]),
    ("COEFFICIENTS", (1, 2.0, 3)),
    ("COEFFICIENTS", np.array([1.0, 2.0, 3.0])),
]


@pytest.mark.parametrize(("constant", "value"), REBOUND, ids=repr)
@pytest.mark.parametrize("name", [*FUNCTIONS, "array_scaled"])
def test_a_rebound_constant_gives_the_right_numbers(
    module: Any, name: str, constant: str, value: Any
) -> None:
    func = getattr(module, name)
    x = np.linspace(0.2, 0.9, 4) if name == "array_scaled" else 0.6
    srcad.grad(func)(x)  # compiled for the constants as they were
    setattr(module, constant, value)
    try:
        func(x)
    except Exception as error:  # the primal refuses it: so does the derivative
        with pytest.raises(type(error)):
            srcad.grad(func)(x)
        return
    if np.iscomplexobj(func(x)):
        return  # no real gradient to compare with
    gradient = srcad.grad(func)(x)
    if isinstance(value, np.float32):  # differences of float32 values are too coarse:
        setattr(module, constant, float(value))  # those of the same number in float64
    np.testing.assert_allclose(gradient, central(func, x), rtol=1e-6, atol=1e-7)


def test_another_float_needs_no_new_compilation(module: Any) -> None:
    request = Request.grad(signature((0.6,)))
    first = COMPILER.compiled(module.scaled, None, request)
    module.SCALE = 2.5
    assert COMPILER.compiled(module.scaled, None, request) is first
    np.testing.assert_allclose(srcad.grad(module.scaled)(0.6), central(module.scaled, 0.6))
    module.SCALE = 3
    assert COMPILER.compiled(module.scaled, None, request) is not first


def test_a_deleted_constant_is_a_name_error_as_in_the_primal(module: Any) -> None:
    gradient = srcad.grad(module.scaled)
    gradient(0.6)
    del module.SCALE
    with pytest.raises(NameError):
        gradient(0.6)


def test_a_pullback_uses_the_constant_its_forward_sweep_read(module: Any) -> None:
    module.SCALE = 0.3
    expected = central(module.scaled, 0.6)
    y, pullback = srcad.rrule(module.scaled, 0.6)
    module.SCALE = 5.0  # rebound between the forward sweep and the pullback
    np.testing.assert_allclose(pullback(1.0)[1], expected, rtol=1e-6)
    np.testing.assert_allclose(y, 0.3 * math.sin(0.6) * 0.6)


def make_closure(scale: Any) -> Any:
    def scaled(x):
        return scale * math.sin(x) * x

    def rebind(value: Any) -> None:
        nonlocal scale
        scale = value

    return scaled, rebind


@pytest.mark.parametrize("value", [1.7, 4, np.float32(0.5), [1.0]], ids=repr)
def test_a_closure_cell_is_a_constant_too(value: Any) -> None:
    func, rebind = make_closure(0.4)
    check(func, 0.6)
    text = COMPILER.compiled(func, None, Request.grad(signature((0.6,)))).source
    assert "scale_2 = scale" in text
    rebind(value)
    try:
        func(0.6)
    except TypeError:
        with pytest.raises(TypeError):
            srcad.grad(func)(0.6)
        return
    gradient = srcad.grad(func)(0.6)
    if isinstance(value, np.float32):  # differences of float32 values are too coarse
        rebind(float(value))
    np.testing.assert_allclose(gradient, central(func, 0.6), rtol=1e-6)


# Constants read as attributes of modules: `math.pi`, `np.e`, a user's configuration
# module (`config.SCALE`), and a module's module (`config.math.pi`).
CONFIG = """
import math

SCALE = 0.7
COEFFICIENTS = (0.05, -0.3, 0.8, -1.1)
WEIGHTS = [0.5, 2.0]
"""

ATTRIBUTES = """
import math
import types

import numpy as np

import {config} as config

SETTINGS = types.SimpleNamespace(scale=0.7)


def pi_scaled(x):
    return math.pi * math.sin(x) * x + 0.5 * math.log(2.0 * math.pi)


def numpy_constants(x):
    return np.pi * np.exp(-x * x) + np.e * x - math.e * x * x


def power_of_e(x):
    return np.e**x * np.pi


def config_scaled(x):
    y = x
    for _ in range(3):
        y = y - 0.1 * config.SCALE * y * y
    return config.SCALE * y


def config_horner(x):
    p = 0.0
    for c in config.COEFFICIENTS:
        p = p * x + c
    return math.sin(p) * config.math.pi


def config_list(x):
    return config.WEIGHTS[0] * x * x + config.WEIGHTS[1] * x


def settings_scaled(x):
    return SETTINGS.scale * math.sin(x) * x
"""


@pytest.fixture
def attributes(tmp_path: Path) -> types.ModuleType:
    config = user_module(tmp_path, f"config_{abs(hash(str(tmp_path)))}", CONFIG)
    text = ATTRIBUTES.replace("{config}", config.__name__)
    return user_module(tmp_path, f"attributes_{abs(hash(str(tmp_path)))}", text)


@pytest.mark.parametrize(
    "name", ["pi_scaled", "numpy_constants", "config_scaled", "config_horner", "config_list"]
)
def test_code_reading_a_modules_constants_is_specialised_and_right(
    attributes: Any, name: str
) -> None:
    """A module's float or tuple of floats has a kind, and its list a structure (guarded on
    every entry: `tests/end_to_end/test_global_containers.py`), read once on entry into a
    local, like a global's: the derivatives are inlined (the Gaussian log-likelihood loop of
    `benchmarks/as_written.py`, reading `math.pi`, took the general path, 19x the primal)."""
    func = getattr(attributes, name)
    check(func, 0.6)
    text = COMPILER.compiled(func, None, Request.grad(signature((0.6,)))).source
    assert "_rrule(" not in text
    assert re.search(r"^    \w+ = (math|np|config)\.[A-Za-z]+$", text, re.MULTILINE), text


def test_a_power_of_a_module_constant(attributes: Any) -> None:
    check(attributes.power_of_e, 0.6)


def test_what_is_no_modules_constant_is_read_where_the_code_reads_it(attributes: Any) -> None:
    """An attribute of an object that is not a module (which may be a new object at each
    read) gets no kind: the code reads it as the primal does."""
    func = attributes.settings_scaled
    check(func, 0.6)
    text = COMPILER.compiled(func, None, Request.grad(signature((0.6,)))).source
    assert "scale = " not in text


CONFIG_REBOUND = [
    ("SCALE", 1.3),
    ("SCALE", 2),
    ("SCALE", np.float32(0.4)),
    ("SCALE", np.array(0.4)),
    ("SCALE", np.array([0.4, 0.5])),
    ("COEFFICIENTS", (1.0, 2.0)),
    ("COEFFICIENTS", (0.5, 1.5, -2.0, 0.25)),  # (as long: its items, another tuple's)
    ("COEFFICIENTS", [1.0, -2.0, 0.5]),
    ("COEFFICIENTS", np.array([1.0, 2.0, 3.0])),
    ("math", types.SimpleNamespace(pi=2.0)),
]


@pytest.mark.parametrize(("constant", "value"), CONFIG_REBOUND, ids=repr)
@pytest.mark.parametrize("name", ["config_scaled", "config_horner"])
def test_a_rebound_module_constant_gives_the_right_numbers(
    attributes: Any, name: str, constant: str, value: Any
) -> None:
    """The guard checks the modules on the way by identity and the constant's type: any
    other value, or a module replaced by an object, sends the call to code compiled for it."""
    func = getattr(attributes, name)
    srcad.grad(func)(0.6)  # compiled for the constants as they were
    setattr(attributes.config, constant, value)
    try:
        expected_value = func(0.6)
    except Exception as error:  # the primal refuses it: so does the derivative
        with pytest.raises(type(error)):
            srcad.grad(func)(0.6)
        return
    if np.ndim(expected_value) != 0:
        return  # no gradient of an array: nothing to compare
    gradient = srcad.grad(func)(0.6)
    if isinstance(value, np.float32):  # differences of float32 values are too coarse
        setattr(attributes.config, constant, float(value))
    np.testing.assert_allclose(gradient, central(func, 0.6), rtol=1e-6, atol=1e-7)


def test_a_pullback_uses_the_module_constant_its_forward_sweep_read(attributes: Any) -> None:
    config = attributes.config
    config.SCALE = 0.3
    expected = central(attributes.config_scaled, 0.6)
    _, pullback = srcad.rrule(attributes.config_scaled, 0.6)
    config.SCALE = 5.0  # rebound between the forward sweep and the pullback
    np.testing.assert_allclose(pullback(1.0)[1], expected, rtol=1e-6)
    config.SCALE = 0.7


def test_a_module_constant_in_forward_mode(attributes: Any) -> None:
    for name in ("pi_scaled", "config_scaled", "config_horner"):
        func = getattr(attributes, name)
        _, tangent = srcad.jvp(func, (0.6,), (1.0,))
        np.testing.assert_allclose(tangent, central(func, 0.6), rtol=1e-6)


@pytest.mark.parametrize("value", [(0.5, 1.5, -2.0, 0.25), (0.5, -0.0, 2.0, 1e-300), (1.0, 2.0)])
def test_a_rebound_tuple_gives_the_right_tangents(module: Any, value: Any) -> None:
    """A loop over a tuple of floats is written out with its items (`Unroll._item`), the
    tuple guarded by its identity: another tuple, as long or not, gives its own."""
    before = module.COEFFICIENTS
    try:
        srcad.jvp(module.horner, (0.6,), (1.0,))
        module.COEFFICIENTS = value
        y, y_dot = srcad.jvp(module.horner, (0.6,), (1.0,))
        assert y == module.horner(0.6)
        np.testing.assert_allclose(y_dot, central(module.horner, 0.6), rtol=1e-6, atol=1e-7)
    finally:
        module.COEFFICIENTS = before

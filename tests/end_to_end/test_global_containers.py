"""Issue 19, item 1: module-level containers of parameters (a list of coefficients, a dict of
rates, a NamedTuple of settings, a tuple of arrays), and closure cells holding
one, get their structure as their kind (`FunctionSource.constant_structure`), so code
reading their items stays specialised. A list or dict may change in place between calls:
the guard reads its structure on every entry (`Fact.by_structure`), and any other
structure sends the call to code compiled for it. Never a wrong number."""

from __future__ import annotations

import dataclasses
import re
import types
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

import srcad
from srcad import SrcadError
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import difference, user_module

MODULE = """
import math
import numpy as np
from dataclasses import dataclass
from typing import NamedTuple

COEFFICIENTS = [0.05, -0.3, 0.8, -1.1]
RATES = {"decay": 0.1, "drive": -0.3}
LAYERS = [(np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([0.1, -0.1])),
          (np.array([[0.2, 0.4], [-0.3, 0.6]]), np.array([0.0, 0.2]))]


class Settings(NamedTuple):
    gain: float
    offset: float


@dataclass
class Physics:
    gravity: float
    length: float


SETTINGS = Settings(1.5, -0.25)
PHYSICS = Physics(9.81, 2.0)


def horner(x):
    p = 0.0
    for c in COEFFICIENTS:
        p = p * x + c
    return math.sin(p) + p * p


def polynomial(x):  # (no `math` call: a complex or array item flows to the result)
    p = 0.0
    for c in COEFFICIENTS:
        p = p * x + c
    return p


def ends(x):
    total = 0.0
    for _ in range(3):
        total = total + COEFFICIENTS[0] * x * x + COEFFICIENTS[-1] * math.sin(x)
    return total


def unbound(x, flag):
    if flag:
        rate = RATES["decay"]
    return rate * x


def relax(x):
    y = x
    for _ in range(6):
        y = y - RATES["decay"] * (y * y + RATES["drive"])
    return y


def network(x):
    h = x
    for W, b in LAYERS:
        h = np.tanh(h @ W + b)
    return np.sum(h * h)


def settled(x):
    return SETTINGS.gain * math.tanh(x) + SETTINGS[1] * x * x


def pendulum(theta):  # (a dataclass: an object, read as the code reads it, not specialised)
    omega = 0.0
    for _ in range(20):
        omega = omega - 0.01 * PHYSICS.gravity / PHYSICS.length * math.sin(theta)
        theta = theta + 0.01 * omega
    return theta
"""

SCALARS = ["horner", "relax", "settled", "pendulum"]


@pytest.fixture
def module(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"global_containers_{abs(hash(str(tmp_path)))}", MODULE)


def central(f: Any, x: Any) -> Any:
    return difference(f, (x,))


def point(name: str) -> Any:
    return np.array([0.3, -0.6]) if name == "network" else 0.4


def check(func: Any, x: Any) -> None:
    """grad, jvp and the second derivative agree with central differences."""
    expected = central(func, x)
    np.testing.assert_allclose(srcad.grad(func)(x), expected, rtol=1e-6, atol=1e-8)
    if np.ndim(x) == 0:
        _, tangent = srcad.jvp(func, (x,), (1.0,))
        np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)
        second = srcad.grad(srcad.grad(func))(x)
        np.testing.assert_allclose(second, central(srcad.grad(func), x), rtol=1e-5, atol=1e-7)
    else:
        np.testing.assert_allclose(
            srcad.hessian(func)(x), central(srcad.grad(func), x), rtol=1e-5, atol=1e-7
        )


SPECIALISED = ["horner", "relax", "settled", "network"]


@pytest.mark.parametrize("name", [*SCALARS, "network"])
def test_code_reading_a_global_container_is_right(module: Any, name: str) -> None:
    check(getattr(module, name), point(name))


@pytest.mark.parametrize("name", SPECIALISED)
def test_code_reading_a_global_container_is_specialised_and_right(module: Any, name: str) -> None:
    func = getattr(module, name)
    check(func, point(name))
    text = COMPILER.compiled(func, None, Request.grad(signature((point(name),)))).source
    # Every scalar derivative inlined: the container's items have kinds.
    assert "add_rrule(" not in text and "mul_rrule(" not in text, text
    assert "getitem_rrule(" not in text and "getattr_rrule(" not in text, text


# In-place changes and rebindings, each to another value of the same structure (no new
# compilation needed) or of another (compiled again, for it).
CHANGES = [
    ("horner", lambda m: m.COEFFICIENTS.__setitem__(0, 0.9)),
    ("horner", lambda m: m.COEFFICIENTS.append(0.25)),
    ("horner", lambda m: m.COEFFICIENTS.__setitem__(1, 2)),
    ("horner", lambda m: m.COEFFICIENTS.__setitem__(1, np.float64(0.3))),
    ("horner", lambda m: setattr(m, "COEFFICIENTS", (0.5, 0.25))),
    ("horner", lambda m: setattr(m, "COEFFICIENTS", np.array([0.5, 0.25]))),
    ("relax", lambda m: m.RATES.__setitem__("decay", 0.2)),
    ("relax", lambda m: m.RATES.__setitem__("decay", 1)),
    ("relax", lambda m: m.RATES.__setitem__("extra", 1.0)),
    ("relax", lambda m: setattr(m, "RATES", {"drive": -0.1, "decay": 0.05})),
    ("network", lambda m: m.LAYERS.pop()),
    ("network", lambda m: m.LAYERS.__setitem__(0, (np.eye(2), np.zeros(2)))),
    ("network", lambda m: m.LAYERS.__setitem__(0, (np.eye(2, dtype=np.float32), np.zeros(2)))),
    ("settled", lambda m: setattr(m, "SETTINGS", m.Settings(2.0, 0.5))),
    ("settled", lambda m: setattr(m, "SETTINGS", m.Settings(2, 0.5))),
    ("pendulum", lambda m: setattr(m.PHYSICS, "gravity", 1.62)),
    ("pendulum", lambda m: setattr(m.PHYSICS, "gravity", 3)),
]


@pytest.mark.parametrize(("name", "change"), CHANGES)
def test_a_changed_container_gives_the_right_numbers(module: Any, name: str, change: Any) -> None:
    func = getattr(module, name)
    x = point(name)
    srcad.grad(func)(x)  # compiled for the container as it was
    change(module)
    gradient = srcad.grad(func)(x)
    np.testing.assert_allclose(gradient, central(func, x), rtol=1e-5, atol=1e-7)


def test_the_same_structure_needs_no_new_compilation(module: Any) -> None:
    request = Request.grad(signature((0.4,)))
    first = COMPILER.compiled(module.relax, None, request)
    module.RATES["decay"] = 0.3
    assert COMPILER.compiled(module.relax, None, request) is first
    module.RATES["decay"] = 3
    assert COMPILER.compiled(module.relax, None, request) is not first


def test_a_pullback_reads_the_items_its_forward_sweep_read(module: Any) -> None:
    expected = central(module.horner, 0.4)
    _, pullback = srcad.rrule(module.horner, 0.4)
    module.COEFFICIENTS[:] = [5.0, 5.0, 5.0, 5.0]  # changed between the sweeps
    np.testing.assert_allclose(pullback(1.0)[1], expected, rtol=1e-6)


class Gains(NamedTuple):
    a: float
    b: float


@dataclasses.dataclass
class Box:
    width: float


def make_closure(params: Any) -> Any:
    def scaled(x):
        return params[0] * x * x + params[1] * np.sin(x)

    return scaled


@pytest.mark.parametrize("params", [[0.5, 1.5], (0.5, np.float64(1.5)), Gains(0.5, 1.5)])
def test_a_closure_cell_holding_a_container(params: Any) -> None:
    func = make_closure(params)
    check(func, 0.4)
    if isinstance(params, list):
        params[0] = 2.5  # in place: the guard sees it
        np.testing.assert_allclose(srcad.grad(func)(0.4), central(func, 0.4), rtol=1e-6)


# Changes between calls to an item's kind the code was not compiled for: each must give
# the derivative of the function as it now is, or srcad's refusal where `grad` has none.
LIST_CHANGES = {
    "append an int": lambda m: m.COEFFICIENTS.append(2),
    "append a bool": lambda m: m.COEFFICIENTS.append(True),
    "append a complex": lambda m: m.COEFFICIENTS.append(0.5 + 1j),
    "set a complex with no imaginary part": lambda m: m.COEFFICIENTS.__setitem__(0, 0.05 + 0j),
    "append an array": lambda m: m.COEFFICIENTS.append(np.array([0.5, -1.0])),
    "append a 0-d array": lambda m: m.COEFFICIENTS.append(np.array(0.5)),
    "append a NumPy float64": lambda m: m.COEFFICIENTS.append(np.float64(0.5)),
    "append a float subclass": lambda m: m.COEFFICIENTS.append(type("F", (float,), {})(0.5)),
    "empty it": lambda m: m.COEFFICIENTS.clear(),
    "rebind to a tuple": lambda m: setattr(m, "COEFFICIENTS", (0.5, 0.25)),
    "rebind to an array": lambda m: setattr(m, "COEFFICIENTS", np.array([0.5, 0.25])),
}
DICT_CHANGES = {
    "set a rate to an int": lambda m: m.RATES.__setitem__("decay", 1),
    "set a rate to a complex": lambda m: m.RATES.__setitem__("decay", 0.1 + 0j),
    "set a rate to a NumPy float64": lambda m: m.RATES.__setitem__("decay", np.float64(0.1)),
    "set a rate to an array": lambda m: m.RATES.__setitem__("drive", np.array([0.1, 0.2])),
}
ITEM_CHANGES = [
    *[(name, change) for name in ("polynomial", "horner") for change in LIST_CHANGES],
    *[("relax", change) for change in DICT_CHANGES],
]


@pytest.mark.parametrize(("name", "change"), ITEM_CHANGES)
def test_an_item_of_another_kind_between_calls(module: Any, name: str, change: str) -> None:
    func = getattr(module, name)
    gradient = srcad.grad(func)
    for _ in range(2):  # compiled, then through the entry's branch and its guard
        np.testing.assert_allclose(gradient(0.4), central(func, 0.4), rtol=1e-6, atol=1e-8)
    {**LIST_CHANGES, **DICT_CHANGES}[change](module)
    try:
        expected = central(func, 0.4)
    except TypeError:  # `math.sin` of a complex or an array: the function fails
        with pytest.raises(TypeError):
            gradient(0.4)
        return
    for _ in range(2):
        if np.iscomplexobj(expected) or np.ndim(func(0.4)) != 0:
            with pytest.raises(SrcadError, match="return a real scalar"):
                gradient(0.4)
        else:
            np.testing.assert_allclose(gradient(0.4), expected, rtol=1e-6, atol=1e-8)
        _, tangent = srcad.jvp(func, (0.4,), (1.0,))
        np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)


def test_a_dict_of_the_same_length_with_another_key(module: Any) -> None:
    """The guard tests a dict's length and reads each key: a key replaced by another is
    a missing key, which the function fails on, as its primal does."""
    gradient = srcad.grad(module.relax)
    gradient(0.4)
    module.RATES["other"] = module.RATES.pop("drive")
    for call in (module.relax, gradient, lambda x: srcad.jvp(module.relax, (x,), (1.0,))):
        with pytest.raises(KeyError, match="drive"):
            call(0.4)
    module.RATES["drive"] = -0.5
    np.testing.assert_allclose(gradient(0.4), central(module.relax, 0.4), rtol=1e-6)


def test_items_read_by_a_constant_key_are_read_on_entry(module: Any) -> None:
    """`RATES["decay"]` in a loop is read once, on entry (`Constants`; the guard proved the
    key is there), so the loop's tape keeps none of them; the numbers follow the container
    as it is at each call."""
    for name in ("relax", "ends"):
        func = getattr(module, name)
        text = COMPILER.compiled(func, None, Request.grad(signature((0.4,)))).source
        loop = text[text.index("    for ") :]
        assert not re.search(r"(RATES|COEFFICIENTS)_\d+\[", loop), text
        assert ".append(y_2)" in loop or name == "ends", text
        check(func, 0.4)
    module.COEFFICIENTS[-1] = 2.5
    module.RATES["decay"] = 0.4
    for name in ("relax", "ends"):
        func = getattr(module, name)
        np.testing.assert_allclose(srcad.grad(func)(0.4), central(func, 0.4), rtol=1e-6)


def test_an_item_read_into_a_variable_of_the_users_stays_where_it_is(module: Any) -> None:
    """Where the function assigns an item to a name of its own, on one branch, the name is
    left unbound on the other, as the function has it."""
    gradient = srcad.grad(module.unbound)
    assert gradient(0.4, True) == pytest.approx(module.RATES["decay"])
    for call in (module.unbound, gradient):
        with pytest.raises(UnboundLocalError):
            call(0.4, False)

"""Soundness audit (session 32): an exported gradient (`srcad export`) reads the user's
globals when it runs, as srcad's rules do, and refuses to run where a fact its rules were
compiled on has changed (a callee rebound, its code replaced); each value is checked
against central differences."""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad import Tangent, ZeroTangent
from srcad.errors import SrcadError
from srcad.export import export_module
from tests.conftest import close, user_module

MODEL = """
import numpy as np

C = 2.0
PARAMS = [1.0, 2.0]


def helper(x):
    return x * x


def f(x):
    return C * x * x + PARAMS[1] * x


def g(x):
    return helper(x) * 3.0


def h(x):
    return np.sum(x * x) * C
"""


def central(f: Any, x: Any, step: float = 1e-6) -> Any:
    """Central differences of `f` at a float or along each element of an array."""
    if np.ndim(x) == 0:
        return (f(x + step) - f(x - step)) / (2 * step)
    basis = np.eye(np.size(x))
    return np.array([(f(x + step * e) - f(x - step * e)) / (2 * step) for e in basis])


def exported(
    tmp_path: Path, name: str, functions: str = "fgh"
) -> tuple[types.ModuleType, dict[str, Any]]:
    """The user's module (a fresh one per test) and the gradients of `functions` (of f, g
    and h) exported from it, imported as modules that need no srcad."""
    module_name = f"model_{name}"
    model = user_module(tmp_path, module_name, MODEL)
    grads = {}
    for func in (getattr(model, function) for function in functions):
        file = tmp_path / f"grad_{func.__name__}.py"
        file.write_text(export_module(func, {}, str(tmp_path)))
        grads[func.__name__] = _imported(file)
    return model, grads


def _imported(file: Path) -> Any:
    spec = importlib.util.spec_from_file_location(file.stem, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(file.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(file.parent))
    return getattr(module, file.stem)


@pytest.mark.parametrize(
    "value", [5.0, 3, np.float64(-1.5), np.int64(4), True], ids=lambda v: type(v).__name__
)
def test_an_exported_gradient_reads_a_rebound_global_when_called(tmp_path: Path, value) -> None:
    model, grads = exported(tmp_path, f"rebound_{type(value).__name__}", "fh")
    x = 1.3
    close(grads["f"](x), central(model.f, x))
    model.C = value
    close(grads["f"](x), central(model.f, x))
    close(grads["h"](np.array([1.0, -2.0])), central(model.h, np.array([1.0, -2.0])))


def test_an_exported_gradient_reads_a_module_list_changed_in_place(tmp_path: Path) -> None:
    model, grads = exported(tmp_path, "in_place", "f")
    grads["f"](1.3)
    model.PARAMS[1] = 10.0
    close(grads["f"](1.3), central(model.f, 1.3))
    model.PARAMS[1] = np.float64(-4.0)
    close(grads["f"](1.3), central(model.f, 1.3))


@pytest.mark.parametrize("value", [2.0 + 1j, np.array([1.0, 2.0])], ids=["complex", "array"])
def test_an_exported_gradient_refuses_a_result_no_longer_a_real_scalar(
    tmp_path: Path, value: Any
) -> None:
    model, grads = exported(tmp_path, f"result_{type(value).__name__}", "fh")
    model.C = value
    for name, x in (("f", 1.3), ("h", np.array([1.0, -2.0]))):
        with pytest.raises(TypeError, match=f"grad_{name} needs {name} to return a real scalar"):
            grads[name](x)


def test_an_exported_gradient_refuses_a_foreign_global(tmp_path: Path) -> None:
    model, grads = exported(tmp_path, "foreign", "h")
    model.C = np.ma.masked_array([2.0, 3.0], mask=[False, True])
    with pytest.raises(Exception, match="MaskedArray"):
        grads["h"](np.array([1.0, -2.0]))


@pytest.mark.parametrize("change", ["callee", "list", "code", "defaults", "numpy"])
def test_an_exported_gradient_refuses_once_a_fact_its_rules_rely_on_fails(
    tmp_path: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, grads = exported(tmp_path, f"fact_{change}")
    x = 1.3
    close(grads["g"](x), central(model.g, x))
    if change == "callee":
        model.helper = lambda v: v**3
        name, grad = "helper was rebound", grads["g"]
    elif change == "list":
        model.PARAMS = [0.0, 10.0]
        name, grad = "PARAMS was rebound", grads["f"]
    elif change == "code":
        model.helper.__code__ = (lambda v: v**3).__code__
        name, grad = "helper.__code__ was rebound", grads["g"]
    elif change == "defaults":
        model.f.__defaults__ = (1.0,)
        name, grad = "f.__defaults__ was set", grads["f"]
    else:
        monkeypatch.setattr(np, "sum", lambda v: np.add.reduce(v) * 2.0)
        name, grad = "np.sum was rebound", grads["h"]
        x = np.array([1.0, 2.0])
    with pytest.raises(RuntimeError, match=f"{name} since this gradient was exported"):
        grad(x)


def test_an_exported_gradient_refuses_to_import_over_a_rebound_callee(tmp_path: Path) -> None:
    model = user_module(tmp_path, "model_before_import", MODEL)
    file = tmp_path / "grad_g.py"
    file.write_text(export_module(model.g, {}, str(tmp_path)))
    model.helper = lambda v: v**3
    with pytest.raises(
        ImportError,
        match=r"helper is a builtins.function .*<lambda>, not the builtins.function helper",
    ):
        _imported(file)


def test_an_exported_gradient_reads_a_global_the_command_line_did_not_run(tmp_path: Path) -> None:
    """`srcad export` runs a script's simple assignments only; a global it skipped (an
    array made by a call) is read from the module when the gradient is called."""
    (tmp_path / "skipped_s32.py").write_text(
        "import numpy as np\n\nW = np.array([1.0, 2.0])\n\n\n"
        "def f(x):\n    return np.sum(W * x * x)\n"
    )
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    command = [sys.executable, "-m", "srcad", "export", "skipped_s32.py:f", "-o", "grad_f.py"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        model = importlib.import_module("skipped_s32")
        grad = _imported(tmp_path / "grad_f.py")
    finally:
        sys.path.remove(str(tmp_path))
    x = np.array([0.5, -1.5])
    close(grad(x), central(model.f, x))
    model.W[1] = 4.0
    close(grad(x), central(model.f, x))


# -- a value of a class that computes its own way, read where no entry looks for one ------

FOREIGN = """
import numpy as np

MASKED = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])


class Box:
    def __init__(self, w):
        self.w = w


BOX = Box(MASKED)
NESTED = Box(Box(MASKED))
ITEMS = [MASKED, 1.0]
TABLE = {"w": MASKED}


def made():
    box = Box(MASKED)

    def inner(x):
        return np.sum(np.multiply(box.w, x))

    return inner


def attribute(x):
    return np.sum(np.multiply(BOX.w, x))


def nested(x):
    return np.sum(np.divide(x, NESTED.w.w))


def item(x):
    return np.sum(np.maximum(ITEMS[0], x))


def key(x):
    return np.mean(np.hypot(TABLE["w"], x))


def summed(x):
    return np.sum(np.add(BOX.w, x) * x)


def argument(x, c):
    return np.sum(np.multiply(c[0], x))
"""


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    return user_module(tmp_path_factory.mktemp("foreign"), "foreign_reads", FOREIGN)


@pytest.mark.parametrize("name", ["attribute", "nested", "item", "key", "summed", "made"])
def test_a_masked_array_read_from_an_object_or_a_container_is_refused(
    foreign: types.ModuleType, name: str
) -> None:
    """NumPy's derivative of a masked array's product is a plain array's (it gave [1, 2, 3]
    where the sum, which skips the masked element, has [1, 0, 3]): refused in both modes,
    by the rule that meets it."""
    f = foreign.made() if name == "made" else getattr(foreign, name)
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(SrcadError, match=r"numpy\.ma\.MaskedArray"):
        srcad.grad(f)(x)
    with pytest.raises(SrcadError, match=r"numpy\.ma\.MaskedArray"):
        srcad.jvp(f, (x,), (np.array([1.0, 1.0, 0.0]),))


def test_a_masked_array_inside_an_argument_of_no_kind_is_refused_after_a_branch(
    foreign: types.ModuleType,
) -> None:
    x, plain = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])
    for position in range(3):
        direction = np.eye(3)[position]
        want = central(lambda v, d=direction: foreign.argument(x + v * d, [plain, "a"]), 0.0)
        _, got = srcad.jvp(foreign.argument, (x, [plain, "a"]), (direction, ZeroTangent()))
        close(got, want)
    close(srcad.grad(foreign.argument)(x, [plain, "a"]), plain)
    masked = [foreign.MASKED, "a"]
    with pytest.raises(SrcadError, match=r"numpy\.ma\.MaskedArray"):
        srcad.jvp(foreign.argument, (x, masked), (np.array([0.0, 1.0, 0.0]), ZeroTangent()))
    with pytest.raises(SrcadError, match=r"numpy\.ma\.MaskedArray"):
        srcad.grad(foreign.argument)(x, masked)


def test_plain_arrays_in_the_same_places_are_differentiated(foreign: types.ModuleType) -> None:
    plain = np.array([1.0, 2.0, 3.0])
    saved = (foreign.BOX.w, foreign.ITEMS[0])
    foreign.BOX.w, foreign.ITEMS[0] = plain, plain
    try:
        x = np.array([0.5, 2.5, -1.0])
        for f in (foreign.attribute, foreign.item, foreign.summed):
            close(srcad.grad(f)(x), central(f, x))
            close(srcad.jvp(f, (x,), (np.ones(3),))[1], np.sum(central(f, x)))
    finally:
        foreign.BOX.w, foreign.ITEMS[0] = saved


# -- a derivative that reaches an object through its conversion to a number ---------------

CONVERSIONS = """
import math
from dataclasses import dataclass


class Doubled:
    def __init__(self, v):
        self.v = v

    def __float__(self):
        return self.v * 2.0


def sine(a):
    return math.sin(a)


def exponential(a):
    return math.exp(a) * 2.0


@dataclass
class Pair:
    a: float
    b: float


def product(p):
    return p.a * p.a * p.b
"""


@pytest.fixture(scope="module")
def conversions(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    return user_module(tmp_path_factory.mktemp("conversions"), "conversions_s32", CONVERSIONS)


@pytest.mark.parametrize("name", ["sine", "exponential"])
def test_jvp_through_float_of_an_object_is_a_located_refusal(
    conversions: types.ModuleType, name: str
) -> None:
    f = getattr(conversions, name)
    value = conversions.Doubled(0.7)
    with pytest.raises(SrcadError, match="a derivative reached a Doubled as a number") as error:
        srcad.jvp(f, (value,), (Tangent(conversions.Doubled, v=1.0),))
    assert any("conversions_s32.py" in note for note in error.value.__notes__)
    with pytest.raises(SrcadError, match="a derivative reached a Doubled as a number"):
        srcad.grad(f)(value)


def test_jvp_of_a_dataclass_whose_field_a_property_shadows_is_refused(
    conversions: types.ModuleType,
) -> None:
    pair = conversions.Pair(1.3, 0.7)
    tangent = Tangent(conversions.Pair, a=1.0, b=0.0)
    close(srcad.jvp(conversions.product, (pair,), (tangent,))[1], 2 * 1.3 * 0.7)
    conversions.Pair.a = property(lambda self: 2.0 * self.__dict__["a"])
    try:
        with pytest.raises(SrcadError, match="its field a is shadowed by the class's property"):
            srcad.jvp(conversions.product, (pair,), (tangent,))
        with pytest.raises(SrcadError):
            srcad.grad(conversions.product)(pair)
    finally:
        del conversions.Pair.a

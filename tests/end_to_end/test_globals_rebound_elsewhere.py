"""A global rebound, while the differentiated function runs, by a function srcad does not
read (one a rule covers, or one marked `srcad.non_differentiable`): srcad reads a global
once, on entry, so such a call is refused where it is made (`ReboundGlobals`, E309)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.errors import MutationError
from srcad.registry import REGISTRY
from tests.conftest import close, user_module

CODE = """
import sys

import srcad
import {name}_config as config

SCALE = 1.5
OTHER = 0.0

def bump():
    global SCALE
    SCALE += 1.0
    return 0.0

def through_helper():
    return bump()

def bump_other():
    global OTHER
    OTHER += 1.0
    return 0.0

def reads_only():
    return SCALE * 0.0

def bump_through_globals():
    globals()["SCALE"] = SCALE + 1.0
    return 0.0

def bump_config_by_setattr():
    setattr(config, "RATE", config.RATE + 1.0)
    return 0.0

def bump_through_sys_modules():
    sys.modules[__name__].SCALE = SCALE + 1.0
    return 0.0

def bump_config():
    config.RATE = config.RATE + 1.0
    return 0.0

def ruled(x):
    {body}
    return x * 2.0

@srcad.rrule.register(ruled)
def ruled_rrule(x):
    return ruled(x), lambda dy: (srcad.NoTangent(), 2.0 * dy)

def f(x):
    y = x * {read}
    {callee}()
    return y + {read} * x * x

def g(x):
    y = x * SCALE
    ruled(x)
    return y + SCALE * x * x
"""

CASES = {
    "direct": ("bump", "SCALE"),
    "helper": ("through_helper", "SCALE"),
    "module_attribute": ("bump_config", "config.RATE"),
    "globals_dict": ("bump_through_globals", "SCALE"),
    "setattr": ("bump_config_by_setattr", "config.RATE"),
    "sys_modules": ("bump_through_sys_modules", "SCALE"),
}

MARKED = (
    "bump",
    "through_helper",
    "bump_other",
    "reads_only",
    "bump_config",
    "bump_through_globals",
    "bump_config_by_setattr",
    "bump_through_sys_modules",
)


def _module(tmp_path: Path, name: str, callee: str, read: str, body: str = "pass") -> Any:
    user_module(tmp_path, f"{name}_config", "RATE = 1.5\n")
    text = CODE.format(name=name, callee=callee, read=read, body=body)
    module = user_module(tmp_path, name, text)
    for marked in MARKED:
        srcad.non_differentiable(getattr(module, marked))
    return module


@pytest.fixture(autouse=True)
def _restore_marks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(REGISTRY, "_non_differentiables", set(REGISTRY._non_differentiables))


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_rebinding_call_is_refused_where_it_is_made(tmp_path: Path, case: str, mode: str) -> None:
    callee, read = CASES[case]
    module = _module(tmp_path, f"rebound_{case}_{mode}", callee, read)
    with pytest.raises(MutationError) as error:
        if mode == "grad":
            srcad.value_and_grad(module.f)(1.3)
        else:
            srcad.jvp(module.f, (1.3,), (1.0,))
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.code == "E309"
    assert diagnostic.file == module.__file__
    assert diagnostic.line == CODE.splitlines().index("    {callee}()") + 1
    assert read.rpartition(".")[2] in diagnostic.message and callee in diagnostic.message
    assert "argument" in diagnostic.hint


def test_a_user_function_a_rule_covers_that_rebinds_is_refused(tmp_path: Path) -> None:
    body = "global SCALE\n    SCALE = SCALE + 1.0"
    module = _module(tmp_path, "rebound_ruled", "bump_other", "SCALE", body)
    with pytest.raises(MutationError, match="`ruled"):
        srcad.grad(module.g)(1.3)
    with pytest.raises(MutationError, match="`ruled"):
        srcad.jvp(module.g, (1.3,), (1.0,))


@pytest.mark.parametrize("callee", ["bump_other", "reads_only"])
def test_a_call_that_rebinds_nothing_the_function_reads_is_differentiated(
    tmp_path: Path, callee: str
) -> None:
    """A global stored but not read by `f`, or read but not stored: the value is fixed."""
    module = _module(tmp_path, f"rebound_not_{callee}", callee, "SCALE")

    def want(x: float) -> float:
        return x * 1.5 + 1.5 * x * x

    value, gradient = srcad.value_and_grad(module.f)(1.3)
    close(value, want(1.3))
    close(gradient, (want(1.3 + 1e-6) - want(1.3 - 1e-6)) / 2e-6)
    close(srcad.jvp(module.f, (1.3,), (2.0,))[1], 2.0 * np.asarray(gradient))
    close(srcad.grad(module.g)(1.3), (want(1.3 + 1e-6) - want(1.3 - 1e-6)) / 2e-6)

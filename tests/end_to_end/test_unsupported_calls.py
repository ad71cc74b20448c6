"""A library rule that meets an option it has no derivative for (`where=` in a reduction,
`np.linalg.qr(mode="complete")`, `np.interp(period=)`, `np.pad(mode="mean")`, ...) raises
`srcad.UnsupportedCallError` when it runs: a `SrcadError` noted with the user's line (and a
`TypeError`, as the call is one the rule cannot take). These rules once raised a bare
`TypeError` from srcad's own code, with no note of where."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedCallError
from tests.conftest import user_module

MODULE = """
import numpy as np


def summed_where(x):
    return np.sum(x * x, where=x > 0)


def mean_where(x):
    return np.sum(np.mean(np.sin(x), axis=0, where=x > -1.0))


def largest_where(x):
    return np.max(x, initial=-5.0, where=x < 1.0)


def complete_qr(x):
    return np.sum(np.linalg.qr(x, mode="complete")[1])


def periodic(x):
    return np.sum(np.interp(x[0], np.sort(x[1]), x[2], period=3.0))


def padded_mean(x):
    return np.sum(np.pad(x, 1, mode="mean"))
"""

NAMES = ["summed_where", "mean_where", "largest_where", "complete_qr", "periodic", "padded_mean"]
X = np.array([[0.3, -1.2, 0.8], [1.4, 0.5, -0.6], [-0.9, 2.1, 0.2]])


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path: Path = tmp_path_factory.mktemp("unsupported_calls")
    return user_module(path, "unsupported_calls_module", MODULE)


@pytest.mark.parametrize("name", NAMES)
def test_refused_with_the_users_line(module: ModuleType, name: str) -> None:
    f = getattr(module, name)
    for derivative in (  # (jvp twice: its first call compiles the forward rule)
        lambda: srcad.grad(f)(X),
        lambda: srcad.jvp(f, (X,), (np.ones_like(X),)),
        lambda: srcad.jvp(f, (X,), (np.ones_like(X),)),
    ):
        with pytest.raises(UnsupportedCallError) as raised:
            derivative()
        assert isinstance(raised.value, srcad.SrcadError)
        assert isinstance(raised.value, TypeError)
        notes = " ".join(getattr(raised.value, "__notes__", []))
        assert "unsupported_calls_module.py" in notes, notes

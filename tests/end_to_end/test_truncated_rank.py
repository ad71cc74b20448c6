"""`np.linalg.pinv(a, rcond)` (or `rtol=`) and `np.linalg.lstsq(a, b, rcond)` with a cutoff that
drops a nonzero singular value: their rules differentiate at constant rank, where dropped
values are zeros, so they once gave wrong derivatives of the truncated pseudo-inverse with
no error. Refused now, in both modes, naming the dropped value; where the cutoff drops
nothing, or NumPy's default is used, the derivatives are checked against central
differences."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import srcad
from tests.conftest import difference, user_module

MODULE = """
import numpy as np


def pinv_rcond(a):
    return np.sum(np.linalg.pinv(a, 0.3) ** 2)


def pinv_rtol(a):
    return np.sum(np.linalg.pinv(a, rtol=0.3) * a)


def pinv_hermitian(a):
    return np.sum(np.linalg.pinv(a + a.T, rcond=0.3, hermitian=True) ** 2)


def lstsq_rcond(a):
    return np.sum(np.linalg.lstsq(a, a[:, 0] + 1.0, rcond=0.3)[0] ** 2)


def lstsq_by_position(a):
    return np.sum(np.linalg.lstsq(a, a, 0.3)[0])


def pinv_small_cutoff(a):
    return np.sum(np.linalg.pinv(a, 1e-3) ** 2) + np.sum(np.linalg.pinv(a, rtol=1e-3) * a)


def lstsq_small_cutoff(a):
    return np.sum(np.linalg.lstsq(a, a[:, 0] + 1.0, rcond=1e-3)[0] ** 2)
"""

# Singular values 3.0, 1.0 and 0.2 (and the symmetric part's well apart): a cutoff of 0.3
# drops the last, one of 1e-3 drops none.
U = np.linalg.qr(np.arange(9.0).reshape(3, 3) ** 1.5 + np.eye(3))[0]
V = np.linalg.qr(np.cos(np.arange(9.0)).reshape(3, 3))[0]
A = U @ np.diag([3.0, 1.0, 0.2]) @ V.T


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path: Path = tmp_path_factory.mktemp("truncated_rank")
    return user_module(path, "truncated_rank_module", MODULE)


@pytest.mark.parametrize(
    "name", ["pinv_rcond", "pinv_rtol", "pinv_hermitian", "lstsq_rcond", "lstsq_by_position"]
)
def test_a_cutoff_dropping_a_singular_value_is_refused(module: ModuleType, name: str) -> None:
    f = getattr(module, name)
    dropped = "0.406" if name == "pinv_hermitian" else "0.2"  # (A + A.T's smallest |eigenvalue|)
    with pytest.raises(srcad.SrcadError, match=f"drops a singular value of {dropped},") as raised:
        srcad.grad(f)(A)
    assert "truncated_rank_module.py" in " ".join(getattr(raised.value, "__notes__", []))
    for _ in range(2):  # the first call compiles the forward rule, the second calls it
        with pytest.raises(srcad.SrcadError, match="at constant rank") as raised:
            srcad.jvp(f, (A,), (np.ones((3, 3)),))
        assert "truncated_rank_module.py" in " ".join(getattr(raised.value, "__notes__", []))


@pytest.mark.parametrize("name", ["pinv_small_cutoff", "lstsq_small_cutoff"])
@pytest.mark.parametrize("scale", [1.0, 0.5, 3.0])
def test_a_cutoff_dropping_nothing_is_differentiated(
    module: ModuleType, name: str, scale: float
) -> None:
    f = getattr(module, name)
    a = A * scale + 0.01 * np.sin(np.arange(9.0)).reshape(3, 3)
    want = difference(f, (a,))
    np.testing.assert_allclose(srcad.grad(f)(a), want, rtol=1e-6, atol=1e-8)
    direction = np.linspace(-1.0, 1.0, 9).reshape(3, 3)
    _, y_dot = srcad.jvp(f, (a,), (direction,))
    np.testing.assert_allclose(y_dot, np.sum(want * direction), rtol=1e-6, atol=1e-8)

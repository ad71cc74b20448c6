"""A forward rule's tangent written as arithmetic, once its temporaries are nested, has
its negations folded into the sums that read them (`forward_tidy.negations_folded`):
`p - -q` is written `p + q`, `p + a * -b` is written `p - a * b`, the same numbers exactly.
Every case against central differences, scalars and arrays, in loops and branches, and
to second order (forward over reverse)."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import close, difference, user_module

MODULE = """
import math
import numpy as np


def newton_cos(x, a):
    # x - cos(x) = a, by Newton: cos's tangent negated inside a quotient's numerator
    y = x
    for _ in range(6):
        y = y - (y - math.cos(y) - a) / (1.0 + math.sin(y))
    return y


def branches(x, y):
    if x > 0.0:
        z = y - math.cos(x) * y
    else:
        z = y + x * math.cos(y)
    return z - math.cos(z)


def of_arrays(v, w):
    return np.sum(v - np.cos(v) * w)


def negated_operands(x, y):
    t = -x
    u = y - t * math.cos(y)
    return u + -y * math.cos(t)
"""

POINTS = {
    "newton_cos": (0.4, 0.3),
    "branches": (0.8, -0.6),
    "negated_operands": (0.8, -0.6),
    "of_arrays": (np.array([0.2, -1.1, 2.0]), np.array([0.5, 0.4, -0.3])),
}


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_negations")
    return user_module(path, "forward_negations_module", MODULE)


@pytest.mark.parametrize("name", list(POINTS))
def test_folded_negations_against_differences(module: types.ModuleType, name: str) -> None:
    f = getattr(module, name)
    args = POINTS[name]
    variants = [args, (-args[0], args[1])] if name == "branches" else [args]
    for point in variants:
        want = [difference(f, point, p) for p in (0, 1)]
        tangents = tuple(
            np.linspace(0.3, -0.7, np.size(a)).reshape(np.shape(a)) + 0.0 for a in point
        )
        tangents = tuple(float(t) if np.ndim(t) == 0 else t for t in tangents)
        _, y_dot = srcad.jvp(f, point, tangents)
        close(y_dot, sum(np.sum(w * t) for w, t in zip(want, tangents, strict=True)))
        close(srcad.jacobian(f, wrt=0, mode="forward")(*point), want[0])
        gradient = srcad.grad(f, wrt=0)
        v = tangents[0]
        h = 1e-5
        plus = gradient(point[0] + h * v, point[1])
        minus = gradient(point[0] - h * v, point[1])
        np.testing.assert_allclose(
            srcad.hessian_vector_product(f, wrt=0)(*point, v), (plus - minus) / (2 * h), atol=1e-5
        )
    text = COMPILER.compiled(f, None, Request.frule(signature(args))).source
    assert "- -" not in text and "+ -" not in text, text

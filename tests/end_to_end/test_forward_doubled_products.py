"""A forward rule writes the tangent of a product of two multiples of one pair of numbers
by one power of two, `(0.5 * r) * r` or `-p * p`, as one product doubled
(`passes/transforms/doubled_products.py`): the same numbers as the product rule's two
terms, against central differences, in `jvp`, the forward Jacobian and second
derivatives; other multiples (not powers of two, of other names, of a name bound again
between) keep the product rule."""

from __future__ import annotations

import math
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp
from tests.conftest import close, difference, sample, user_module

MODULE = """
import math

import numpy as np


def half_square(r):
    return 0.5 * r * r


def negated_square(p):
    return math.exp(-p * p)


def quarter_right(r):
    return r * 0.25 * r


def twice(r, q):
    return 2.0 * r * (2.0 * q) + math.sin(r)


def huber(w, xs):
    total = 0.0
    for k in range(len(xs)):
        r = w[0] + w[1] * xs[k]
        if abs(r) <= 1.0:
            total = total + 0.5 * r * r
        else:
            total = total + abs(r) - 0.5
    return total


def third(r):
    return r / 3.0 * r


def other_name(r, q):
    return 0.5 * r * q


def rebound(r):
    t = 0.5 * r
    r = r + 1.0
    return t * r


def in_loop(r, n):
    s = 0.0
    t = -r
    for _ in range(n):
        s = s + t * r
        r = r * 0.5
    return s
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_doubled_products")
    return user_module(path, "forward_doubled_products_module", MODULE)


def _doubled(f: Any, args: tuple[Any, ...]) -> bool:
    return "* 2.0" in srcad.source(f, mode="forward", args=args).split("\n", 3)[3]


def _jvp(f: Any, args: tuple[Any, ...]) -> None:
    """`jvp` along a direction of each float argument against central differences."""
    for position, x in enumerate(args):
        if isinstance(x, int):
            continue
        direction = sample(np.shape(x), 3 + position)
        if not isinstance(x, np.ndarray):
            direction = float(direction)
        tangents = tuple(direction if i == position else srcad.ZeroTangent()
                         for i in range(len(args)))  # fmt: skip
        value, tangent = srcad.jvp(f, args, tangents)
        close(value, f(*args))
        close(tangent, finite_difference_jvp(f, args, tangents))


@pytest.mark.parametrize("name", ["half_square", "negated_square", "quarter_right"])
@pytest.mark.parametrize("r", [0.7, -1.3, 0.0, 1e-160, np.float64(2.5)])
def test_squares_of_one_name(module: types.ModuleType, name: str, r: float) -> None:
    f = getattr(module, name)
    assert _doubled(f, (r,))
    _jvp(f, (r,))
    if abs(r) > 1e-100:
        close(srcad.hessian(f)(r), difference(srcad.grad(f), (r,)))


def test_the_doubled_product_is_the_product_rule_exactly(module: types.ModuleType) -> None:
    """Scaling by a power of two and negating round nowhere: the two terms are equal, and
    their sum is the doubled product, digit for digit."""
    rng = np.random.default_rng(7)
    for r in [*rng.standard_normal(20) * 10.0 ** rng.integers(-30, 30, 20), 3.0e307, -0.0]:
        for r_dot in (1.0, -0.3, 1e-300):
            _, got = srcad.jvp(module.half_square, (float(r),), (r_dot,))
            assert got == (0.5 * r_dot) * r + (0.5 * r) * r_dot
            _, got = srcad.jvp(module.negated_square, (float(r),), (r_dot,))
            p = float(r)
            want = (-r_dot * p + -p * r_dot) * math.exp(-p * p)
            assert got == want or (math.isnan(got) and math.isnan(want))


def test_two_names_scaled_alike(module: types.ModuleType) -> None:
    _jvp(module.twice, (0.8, -1.1))


def test_a_branch_of_a_loop(module: types.ModuleType) -> None:
    args = (np.array([0.2, 0.4]), sample((9,), 2))
    assert _doubled(module.huber, args)
    _jvp(module.huber, args)
    close(srcad.jacobian(module.huber, mode="forward")(*args), difference(module.huber, args))


@pytest.mark.parametrize(
    ("name", "args"),
    [("third", (0.7,)), ("other_name", (0.7, 1.9)), ("rebound", (0.7,)), ("in_loop", (0.7, 4))],
)
def test_other_products_keep_the_product_rule(
    module: types.ModuleType, name: str, args: tuple[Any, ...]
) -> None:
    f = getattr(module, name)
    assert not _doubled(f, args)
    _jvp(f, args)

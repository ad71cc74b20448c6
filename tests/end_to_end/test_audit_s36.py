"""Soundness audit (session 36): the builtin `sum` of lists or tuples from a start that is
one (`sum(rows, [])`, `sum(pairs, ())`) joins them end to end, where `+` is no addition:
its reverse rule gave every piece the whole joined sequence's cotangent (a crash, "too
many values to unpack", or a list argument's gradient of the wrong length), and its
forward rule added tangents given as lists. Each is checked against central differences
in both modes and to second order."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

JOINED = """
import numpy as np


def two_lists(x):
    ys = sum([[x[0]], [x[1] * 2.0]], [])
    return ys[0] * 3.0 + ys[1] ** 2


def rows_flattened(x):
    rows = [[x[0], x[1]], [x[2] * 2.0, x[3]]]
    flat = sum(rows, [])
    return np.sum(np.array(flat) ** 2 * np.arange(1.0, 5.0))


def tuples_from_a_tuple(x):
    ys = sum(((x[0], x[1]), (x[2],)), ())
    return ys[0] * ys[2] + ys[1] ** 3


def from_a_differentiated_start(x):
    ys = sum([[x[1]], [x[2], x[3]]], [x[0] * 2.0])
    return ys[0] * ys[1] + ys[2] * ys[3] ** 2


def from_a_constant_start(x):
    ys = sum([[x[0]], [x[1]]], start=[0.5])
    return ys[0] * ys[1] + ys[2] * x[2]


def in_a_loop(x):
    acc = []
    for k in range(3):
        acc = sum([[x[k] * x[k + 1]]], acc)
    return acc[0] + acc[1] * acc[2]


def of_arguments(xs, ys, empty):
    zs = sum([xs, ys], empty)
    return zs[0] * zs[2] + zs[1] ** 2


def numbers_still_added(x):
    return sum([x[0], x[1] * 2.0], x[2]) ** 2
"""

NAMES = [
    "two_lists",
    "rows_flattened",
    "tuples_from_a_tuple",
    "from_a_differentiated_start",
    "from_a_constant_start",
    "in_a_loop",
    "numbers_still_added",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("joined"), "audit_s36_joined", JOINED)


@pytest.mark.parametrize("name", NAMES)
def test_sum_of_sequences_joins_them(module, name):
    f = getattr(module, name)
    x = np.array([0.3, -0.7, 1.1, 0.5])
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    tangent = np.array([1.0, -0.5, 0.25, 2.0])
    close(srcad.jvp(f, (x,), (tangent,))[1], want @ tangent)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


@pytest.mark.parametrize("kind", [list, tuple])
def test_sum_of_sequence_arguments(module, kind):
    """Each argument's cotangent is its own elements', of its own length."""
    f = module.of_arguments
    xs, ys = kind([0.3, 0.5]), kind([0.7, 0.9])
    xs_bar, ys_bar = srcad.grad(f, wrt=(0, 1))(xs, ys, kind())
    close(list(xs_bar), [ys[0], 2 * xs[1]])
    close(list(ys_bar), [xs[0], 0.0])
    tangents = (kind([1.0, 2.0]), kind([-1.0, 0.5]), srcad.NoTangent())
    _, y_dot = srcad.jvp(f, (xs, ys, kind()), tangents)
    close(y_dot, ys[0] * 1.0 + 2 * xs[1] * 2.0 + xs[0] * -1.0)

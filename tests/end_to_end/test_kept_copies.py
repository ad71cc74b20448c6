"""The values inlined derivatives read, kept once: one copy of `x` for `x * x * x`, shared
by the statements of one block that read it before anything assigns it again
(`InlinedDerivatives._copy_before`), and a new copy where an assignment, another branch
or another loop comes between. Gradients and Hessians against central differences."""

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp
from tests.conftest import close, user_module

SOURCE = """
import numpy as np


def cubed_in_a_loop(x, rate):
    for _ in range(5):
        x = x + 0.1 * (rate - x * x * x)
    return x


def assigned_between_reads(x, rate):
    y = x
    s = 0.0
    for k in range(3):
        a = y * y
        y = y * 0.5 + a * rate
        b = y * y * y
        s = s + a + b
    return s


def read_in_branches(x, rate):
    y = x
    s = 0.0
    for k in range(4):
        a = y * y
        if k % 2:
            c = y * y * rate
            y = y * 0.9
        else:
            c = y * rate
        s = s + a * c + y * y
    return s


def nested_loop_reads(x, rate):
    y = x
    s = 0.0
    for k in range(3):
        a = y * y
        for j in range(2):
            s = s + y * y * rate
            y = y * 0.8 + 0.1
        s = s + a * y
    return s


def arrays_read_twice(x, rate):
    v = np.linspace(0.5, 1.5, 4) * x
    for _ in range(3):
        v = v * v * rate + np.sin(v) * v
    return np.sum(v)
"""

NAMES = ["cubed_in_a_loop", "assigned_between_reads", "read_in_branches",
         "nested_loop_reads", "arrays_read_twice"]  # fmt: skip


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("copies"), "kept_copies_functions", SOURCE)


@pytest.mark.parametrize("name", NAMES)
def test_gradient_and_hessian_with_shared_copies(module, name):
    f = getattr(module, name)
    args = (0.7, 0.3)
    gradient = srcad.grad(f, wrt=(0, 1))
    for position, got in enumerate(gradient(*args)):
        close(got, finite_difference_vjp(f, args, 1.0, position))
    first = srcad.grad(f)
    close(srcad.hessian(f)(*args), finite_difference_jvp(first, args, (1.0, 0.0)))
    close(np.asarray(srcad.value_and_grad(f)(*args)[0]), f(*args))

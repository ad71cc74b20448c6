"""Issue 19: forward rules of array code written as arithmetic (`ForwardAD._inlined` on
arrays, `_indexed` on slices, `_product`), a tangent widened to its value's shape where a
term may be smaller (`expand`), Hessian-vector products through the rules with respect
to one argument (`second_derivatives._narrowed`), and forward Jacobians pushing every
direction in one call (`srcad.batched`). Every case against central differences, with
each argument's tangent a zero in turn (where widening matters)."""

from __future__ import annotations

import inspect
import types
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from srcad.testing import check_frule, finite_difference_jvp
from tests.conftest import close, difference, sample, user_module

MODULE = """
import math
import numpy as np


def broadcast_sub(a, b):
    return np.sum((a - b) ** 2 * b)


def scalar_plus_array(s, u):
    return np.sum(np.sin(s + u) * u)


def rebinding(x, c):
    s = x
    for _ in range(3):
        s = s - c
        s = s * s * 0.5
    return np.sum(s)


def zeros_then_add(x, c):
    y = np.zeros(4)
    y = y + c
    return np.sum(y * x)


def slices(m):
    return np.sum(m[1:, 0] * m[:-1, 1] + m[0, 1:3] ** 2 + m[2] @ m[1])


def products(W, h):
    for _ in range(2):
        h = np.tanh(W @ h)
    return np.sum(h * h)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def logistic(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def chain(v):
    a = 0.0
    b = 1.0
    for i in range(len(v)):
        a = a + math.sin(v[i]) * b
        b = b * 0.5 + v[i] * a
    return np.array([a, b])


def chain_sum(v):
    total = 0.0
    for i in range(len(v)):
        total = total + math.exp(-v[i] * v[i]) * (i + 1.0)
    return total


def chain_with_constant(v):
    return np.array([v[0] * v[1], 1.0, math.cos(v[2])])


def elementwise(v):
    return np.sin(v) * v
"""

ARRAY_CASES = {
    "broadcast_sub": lambda: (sample((1, 3), 1), sample((2, 3), 2)),
    "scalar_plus_array": lambda: (0.3, sample((5,), 3)),
    "rebinding": lambda: (sample((4,), 4) * 0.5, 0.2),
    "zeros_then_add": lambda: (sample((4,), 5), 0.7),
    "slices": lambda: (sample((3, 4), 6),),
    "products": lambda: (sample((3, 3), 7) * 0.5, sample((3,), 8)),
    "rosenbrock": lambda: (sample((6,), 9),),
    "logistic": lambda: (sample((3,), 10), 0.1, sample((7, 3), 11), (sample((7,), 12) > 0) * 1.0),
}


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    path: Path = tmp_path_factory.mktemp("forward_arrays")
    return user_module(path, "forward_arrays_module", MODULE)


def _float_positions(args: tuple[object, ...]) -> list[int]:
    return [i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]


@pytest.mark.parametrize("name", sorted(ARRAY_CASES))
def test_array_forward_rules_against_differences(module: types.ModuleType, name: str) -> None:
    f, args = getattr(module, name), ARRAY_CASES[name]()
    check_frule(f, *args)
    for position in _float_positions(args):  # one tangent at a time, the others zeros
        direction = np.ones_like(args[position]) * 0.7 if np.ndim(args[position]) else 0.7
        tangents = tuple(direction if i == position else srcad.ZeroTangent()
                         for i in range(len(args)))  # fmt: skip
        _, y_dot = srcad.jvp(f, args, tangents)
        close(y_dot, finite_difference_jvp(f, args, tangents))
        close(srcad.jacobian(f, wrt=position, mode="forward")(*args),
              difference(f, args, position))  # fmt: skip


@pytest.mark.parametrize("name", sorted(ARRAY_CASES))
def test_array_second_derivatives_against_differences_of_the_gradient(
    module: types.ModuleType, name: str
) -> None:
    f, args = getattr(module, name), ARRAY_CASES[name]()
    positions = [p for p in _float_positions(args) if name != "logistic" or p in (0, 2)]
    for position in positions:
        gradient = srcad.grad(f, wrt=position)
        direction = sample(np.shape(args[position]), 13) if np.ndim(args[position]) else 0.9
        tangents = tuple(direction if i == position else srcad.ZeroTangent()
                         for i in range(len(args)))  # fmt: skip
        want = finite_difference_jvp(gradient, args, tangents)
        hv = srcad.hessian_vector_product(f, wrt=position)(*args, direction)
        close(hv, want)
    if len(positions) == 1:
        return
    # the mixed blocks: the rules with respect to one argument and another
    first, second = positions[0], positions[-1]
    blocks = srcad.hessian(f, wrt=(first, second))(*args)
    close(blocks[0][1], difference(srcad.grad(f, wrt=first), args, second))
    close(blocks[1][0], difference(srcad.grad(f, wrt=second), args, first))


def test_array_arithmetic_is_written_out_in_the_forward_rule(module: types.ModuleType) -> None:
    x = sample((6,), 9)
    text = str(srcad.source(module.rosenbrock, mode="forward", args=(x,)))
    assert "x_dot[1:]" in text and "getitem_frule" not in text and "pow_frule" not in text
    assert "expand(" in text  # `a - b` of two arrays: a term may be smaller than `y`
    text = str(srcad.source(module.logistic, mode="forward", args=ARRAY_CASES["logistic"]()))
    assert "X @ w_dot" in text and "matmul_frule" not in text


def _batches(f: object, args: tuple[object, ...]) -> bool:
    request = Request.frule(signature(args))
    return COMPILER.compiled(f, COMPILER.wrt_for(f, args, request), request).batches


@pytest.mark.parametrize("size", [8, 13])
@pytest.mark.parametrize(
    ("name", "batches"),
    [("chain", True), ("chain_sum", True), ("chain_with_constant", True), ("elementwise", False)],
)
def test_forward_jacobians_push_every_direction_at_once(
    module: types.ModuleType, name: str, batches: bool, size: int
) -> None:
    f = getattr(module, name)
    v = sample((size,), 20) * 0.5
    assert _batches(f, (v,)) is batches
    jacobian = srcad.jacobian(f, mode="forward")(v)
    close(jacobian, difference(f, (v,)))
    close(jacobian, srcad.jacobian(f)(v))  # reverse mode agrees


def test_few_directions_go_through_the_rule_for_that_many(module: types.ModuleType) -> None:
    # (`tests/end_to_end/test_forward_directions.py` has more of them.)
    from srcad.batched import FEWEST, batched_columns

    v = sample((FEWEST - 1,), 21)
    close(batched_columns(module.chain, (v,), 0), difference(module.chain, (v,)))
    close(srcad.jacobian(module.chain, mode="forward")(v), difference(module.chain, (v,)))
    assert batched_columns(module.chain, (sample((FEWEST,), 21),), 0) is not None
    assert batched_columns(module.elementwise, (sample((FEWEST - 1,), 21),), 0) is None


def test_a_hessian_vector_product_of_a_function_of_a_parameter_named_v() -> None:
    def f(u, v):
        return np.sum(np.sin(u) * v * v)

    u, v, w = sample((3,), 30), sample((3,), 31), sample((3,), 32)
    product = srcad.hessian_vector_product(f, wrt=1)
    assert list(inspect.signature(product).parameters) == ["u", "v", "v_"]
    close(product(u, v, w), finite_difference_jvp(srcad.grad(f, wrt=1), (u, v),
                                                  (srcad.ZeroTangent(), w)))  # fmt: skip

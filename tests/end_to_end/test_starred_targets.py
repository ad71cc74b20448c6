"""Starred assignment targets (`first, *rest = xs`, `*init, last = t`, nested, in `for`
targets and comprehensions, over lists, tuples, arrays and calls' results): reverse mode,
forward mode and second order against central finite differences, Python's own error
where there are too few items, and the emitted code they become."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import check_frule, check_rrule, finite_difference_jvp, finite_difference_vjp
from srcad.trees import leaves, tree_map
from tests.end_to_end import starred_functions as sf
from tests.rules.test_higher_order import check_second_order, hessian_by_differences

X = np.array([0.3, -0.7, 0.55, 1.2])


def _name(value: Any) -> str:
    return getattr(value, "__name__", "")


@pytest.mark.parametrize("f", sf.ARRAY_FUNCTIONS, ids=_name)
def test_gradient_against_finite_differences(f: Any) -> None:
    expected = finite_difference_vjp(f, (X,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(f)(X), expected, rtol=1e-6, atol=1e-9)
    check_rrule(f, X)


@pytest.mark.parametrize("f", sf.ARRAY_FUNCTIONS, ids=_name)
def test_forward_mode_against_finite_differences(f: Any) -> None:
    direction = np.cos(np.arange(4.0))
    _, derivative = srcad.jvp(f, (X,), (direction,))
    expected = finite_difference_jvp(f, (X,), (direction,))
    np.testing.assert_allclose(derivative, expected, rtol=1e-6, atol=1e-9)
    check_frule(f, X)


@pytest.mark.parametrize("f", sf.ARRAY_FUNCTIONS, ids=_name)
def test_second_order_against_differences_of_the_gradient(f: Any) -> None:
    check_second_order(f, (X,))


@pytest.mark.parametrize("f", sf.ARRAY_FUNCTIONS, ids=_name)
def test_forward_over_forward(f: Any) -> None:
    expected = hessian_by_differences(f, (X,))
    got = srcad.jacobian(srcad.jacobian(f, mode="forward"), mode="forward")(X)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def test_third_order() -> None:
    second = srcad.grad(srcad.grad(sf.scalar_items))
    expected = finite_difference_jvp(second, (0.7,), (1.0,))
    assert srcad.grad(second)(0.7) == pytest.approx(expected, rel=1e-6)


def _one_at(tree: Any, leaf: int) -> Any:
    """A tangent of `tree`: 1.0 at its leaf numbered `leaf`, 0.0 elsewhere."""
    numbered = iter(range(len(leaves(tree))))
    return tree_map(lambda _: 1.0 if next(numbered) == leaf else 0.0, tree)


@pytest.mark.parametrize(("f", "arg"), sf.CONTAINER_CASES, ids=_name)
def test_lists_and_tuples_in_every_mode(f: Any, arg: Any) -> None:
    """A list or tuple argument: its gradient, its directional derivative and its Hessian
    (a block per pair of leaves, in the argument's structure twice, as JAX gives it)."""
    count = len(leaves(arg))
    if count == len(arg):  # (srcad.testing's checks walk one level of a sequence)
        check_rrule(f, arg)
        check_frule(f, arg)
    gradient = srcad.grad(f)
    expected = [float(finite_difference_jvp(f, (arg,), (_one_at(arg, n),))) for n in range(count)]
    got = gradient(arg)
    assert type(got) is type(arg)
    np.testing.assert_allclose(np.array(leaves(got), dtype=float), expected, rtol=1e-6)
    direction = _one_at(arg, count - 1)
    _, derivative = srcad.jvp(f, (arg,), (direction,))
    assert derivative == pytest.approx(expected[-1], rel=1e-6)
    columns = [
        np.array(leaves(finite_difference_jvp(gradient, (arg,), (_one_at(arg, n),))), dtype=float)
        for n in range(count)
    ]
    hessian = srcad.hessian(f)(arg)
    assert type(hessian) is type(arg)
    first_leaf = hessian[0] if count == len(arg) else hessian[0][0]
    assert type(first_leaf) is type(arg)  # its row: a block per leaf, in the argument's form
    flat = np.array(leaves(hessian), dtype=float).reshape(count, count)
    np.testing.assert_allclose(flat, np.stack(columns, axis=-1), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("items", [[1.0], []], ids=["one item", "none"])
def test_too_few_items_raise_pythons_error(items: list[float]) -> None:
    with pytest.raises(ValueError) as python:
        sf.star_of_tuple(tuple(items))
    for derivative in (
        lambda: srcad.grad(sf.star_of_tuple)(tuple(items)),
        lambda: srcad.jvp(sf.star_of_tuple, (tuple(items),), (tuple(items),)),
        lambda: srcad.hessian(sf.star_of_tuple)(tuple(items)),
    ):
        with pytest.raises(ValueError) as caught:
            derivative()
        assert str(caught.value) == str(python.value)


def test_an_empty_starred_part_is_an_empty_list() -> None:
    assert srcad.grad(sf.star_of_list)([2.0]) == [0.0]
    expected = [np.exp(0.3) * -0.7, np.exp(0.3), 0.0, 0.0]
    np.testing.assert_allclose(srcad.grad(sf.empty_star)(X), expected)


def test_emitted_code_indexes_and_slices_the_items() -> None:
    text = srcad.source(sf.first_middle_last)
    assert "items, items_pullback = list_rrule(x)" in text
    assert "raise ValueError(f'not enough values to unpack (expected at least 2" in text
    assert "slice(1, -1, None)" in text
    forward = srcad.source(sf.several_after, mode="forward")
    assert "slice(1, -2, None)" in forward


def test_jacobian_of_a_jacobian_of_a_list_is_refused_clearly() -> None:
    """Derivatives of order two and more as one array have no layout for a list: a
    located error, not NumPy's TypeError (which `hessian` gave before it took structures)."""
    for outer in (srcad.jacobian, srcad.hessian):
        with pytest.raises(srcad.SrcadError, match="floats and arrays, not a list"):
            srcad.jacobian(outer(sf.star_of_list))([1.0, 2.0, 3.0])

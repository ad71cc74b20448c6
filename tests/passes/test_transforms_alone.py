"""Each transform alone: the tree the passes before it leave, and what it makes of it.

`passes_input_and_output` runs the compiler as `grad` or `rrule` would, and prints the
tree just before the named transform runs and just after, so that each test shows that
one pass's work (the doctests of the transforms show the whole pipeline's result). Each
function is differentiated too, and its gradient compared with central finite
differences: the text shows the pass, the numbers that its output is right."""

from __future__ import annotations

import contextlib
import inspect
import math
import textwrap
from collections.abc import Iterator
from typing import Any

import numpy as np

import srcad
from srcad import syntax
from srcad.passes.base import Transform
from srcad.passes.testing import show_reverse
from srcad.passes.transforms.fuse import Fuse
from srcad.passes.transforms.prune import Prune
from srcad.passes.transforms.release import Release
from srcad.passes.transforms.shapes import Shapes
from srcad.passes.transforms.simplify import Simplify
from srcad.passes.transforms.stores import Stores
from srcad.passes.transforms.to_anf import ToANF
from srcad.testing import finite_difference_vjp
from tests.conftest import sample


@contextlib.contextmanager
def _watching(transform: type[Transform], seen: list[tuple[str, str]]) -> Iterator[None]:
    """While open, each run of `transform` appends the text of the tree it was given and
    of the tree it left."""
    run = transform.run

    def watched(self: Transform, tree: Any, ctx: Any) -> bool:
        before = syntax.unparse(tree)
        changed = run(self, tree, ctx)
        seen.append((before, syntax.unparse(tree)))
        return changed

    transform.run = watched  # type: ignore[method-assign]
    try:
        yield
    finally:
        transform.run = run  # type: ignore[method-assign]


def passes_input_and_output(
    transform: type[Transform], func: Any, **options: Any
) -> tuple[str, str]:
    """The text `transform` is given and the text it leaves, compiling `func` (its own
    source) with `show_reverse`'s `options`."""
    seen: list[tuple[str, str]] = []
    with _watching(transform, seen):
        show_reverse(inspect.getsource(func), **options)
    assert len(seen) == 1
    return seen[0]


def _text(block: str) -> str:
    return textwrap.dedent(block).lstrip("\n")


def _assert_gradient(func: Any, *args: Any) -> None:
    """`srcad.grad(func)` against finite differences, for every argument."""
    gradient = srcad.grad(func, wrt=tuple(range(len(args))))(*args)
    for position, computed in enumerate(gradient):
        expected = finite_difference_vjp(func, args, 1.0, position)
        np.testing.assert_allclose(computed, expected, rtol=1e-6, atol=1e-9)


# The functions each test compiles (their source is read, as `grad` reads it).


def product_of_calls(x):
    return np.sin(np.cos(x)) * x


def product_plus(x, y):
    return x * y + x


def scaled_sine(x, y):
    return np.sin(x) * y


def summed_product_plus(x, y):
    return np.sum(x * y + x)


def summed_square_of_exp(x):
    return np.sum(np.exp(x) ** 2)


def indexed_products(x):
    return x[0] * x[1] + x[0]


def summed_product_of_calls(x):
    return np.sum(np.sin(x) * np.exp(x))


def test_to_anf_names_every_intermediate():
    before, after = passes_input_and_output(ToANF, product_of_calls, kinds="float")
    assert before == _text("""
        def product_of_calls(x):
            return np.sin(np.cos(x)) * x
        """)
    assert after == _text("""
        def product_of_calls(x):
            cos_x = np.cos(x)
            sin_cos_x = np.sin(cos_x)
            out = sin_cos_x * x
            return out
        """)
    _assert_gradient(product_of_calls, 0.7)


def test_simplify_folds_copies_and_single_use_cotangents():
    before, after = passes_input_and_output(Simplify, product_plus, kinds="float, float")
    assert before == _text("""
        def rrule_product_plus(x, y):
            x_times_y = x * y
            out = x_times_y + x

            def product_plus_pullback(out_bar):
                # <doctest>:2  return x * y + x
                x_times_y_bar = out_bar
                x_bar = out_bar
                x_bar = x_bar + x_times_y_bar * y
                y_bar = x * x_times_y_bar
                return (NoTangent(), x_bar, y_bar)
            return (out, product_plus_pullback)
        """)
    assert after == _text("""
        def rrule_product_plus(x, y):
            x_times_y = x * y
            out = x_times_y + x

            def product_plus_pullback(out_bar):
                # <doctest>:2  return x * y + x
                x_bar = out_bar
                x_bar = x_bar + out_bar * y
                return (NoTangent(), x_bar, x * out_bar)
            return (out, product_plus_pullback)
        """)
    _assert_gradient(product_plus, 0.3, -1.2)


def test_fuse_inlines_the_pullback_with_the_seed_one():
    before, after = passes_input_and_output(Fuse, scaled_sine, kinds="float, float", fused=True)
    assert before == _text("""
        def rrule_scaled_sine(x, y):
            sin_x = np.sin(x)
            out = sin_x * y

            def scaled_sine_pullback(out_bar):
                # <doctest>:2  return np.sin(x) * y
                x_bar = out_bar * y * cos(x)
                return (NoTangent(), x_bar, sin_x * out_bar)
            return (out, scaled_sine_pullback)
        """)
    assert after == _text("""
        def grad_scaled_sine(x, y):
            sin_x = np.sin(x)
            out = sin_x * y
            # <doctest>:2  return np.sin(x) * y
            x_bar = y * cos(x)
            return (out, (NoTangent(), x_bar, sin_x))
        """)
    _assert_gradient(scaled_sine, 0.4, 1.7)


def powered(x):
    return math.pow(x, 0.5) * 3.0


def test_fuse_folds_the_seed_one_out_of_a_product_that_keeps_zeros():
    """`strong_product(p, 3.0)` is `p * 3.0`: it differs from the plain product only where
    a factor is zero and the other infinite or NaN. The slope of `math.pow(x, 0.5)` at 0
    stays inf."""
    before, after = passes_input_and_output(Fuse, powered, kinds="float", fused=True)
    assert "strong_product(power_slope(x, 0.5), out_bar" in before
    assert "strong_product" not in after and "power_slope(x, 0.5) * 3.0" in after
    _assert_gradient(powered, 0.7)
    assert srcad.grad(powered)(0.0) == math.inf


def test_shapes_drops_the_sums_a_cotangent_of_its_operands_shape_needs_not():
    before, after = passes_input_and_output(
        Shapes, summed_product_plus, kinds="float[:], float[:]", fused=True
    )
    assert before == _text("""
        def grad_summed_product_plus(x, y):
            x_times_y = x * y
            x_times_y_plus_x = x_times_y + x
            out = np.sum(x_times_y_plus_x)
            # <doctest>:2  return np.sum(x * y + x)
            x_times_y_bar = sum_to(1.0, x_times_y, x_times_y_plus_x)
            x_bar = sum_to(1.0, x, x_times_y_plus_x)
            x_bar = x_bar + sum_to(x_times_y_bar * y, x, x_times_y)
            y_bar = sum_to(x * x_times_y_bar, y, x_times_y)
            return (out, (NoTangent(), expand(x_bar, x), y_bar))
        """)
    assert after == _text("""
        def grad_summed_product_plus(x, y):
            x_times_y = x * y
            x_times_y_plus_x = x_times_y + x
            out = np.sum(x_times_y_plus_x)
            # <doctest>:2  return np.sum(x * y + x)
            x_bar = sum_to(1.0, x, x_times_y_plus_x)
            x_bar = x_bar + sum_to(1.0 * y, x, x_times_y)
            y_bar = sum_to(x * 1.0, y, x_times_y)
            return (out, (NoTangent(), expand(x_bar, x), y_bar))
        """)
    _assert_gradient(summed_product_plus, sample((4,), 1), sample((4,), 2))


def test_prune_leaves_out_the_value_grad_does_not_need():
    before, after = passes_input_and_output(
        Prune, summed_square_of_exp, kinds="float[:]", fused=True, value=False
    )
    assert before == _text("""
        def grad_summed_square_of_exp(x):
            exp_x = np.exp(x)
            exp_x_pow_2 = exp_x ** 2
            out = np.sum(exp_x_pow_2)
            # <doctest>:2  return np.sum(np.exp(x) ** 2)
            return (out, (NoTangent(), 2 * exp_x * exp_x))
        """)
    assert after == _text("""
        def grad_summed_square_of_exp(x):
            exp_x = np.exp(x)
            # <doctest>:2  return np.sum(np.exp(x) ** 2)
            return (None, (NoTangent(), 2 * exp_x * exp_x))
        """)
    _assert_gradient(summed_square_of_exp, sample((5,), 3))


def test_stores_writes_an_element_still_zero_instead_of_adding_to_it():
    before, after = passes_input_and_output(
        Stores, indexed_products, kinds="float[:]", fused=True, value=False
    )
    assert before == _text("""
        def grad_indexed_products(x):
            x_0 = x[0]
            x_1 = x[1]
            x_bar = zeros(x.shape)
            # <doctest>:2  return x[0] * x[1] + x[0]
            x_bar[0] += 1.0
            x_bar[1] += x_0
            x_bar[0] += x_1
            return (None, (NoTangent(), x_bar))
        """)
    assert after == _text("""
        def grad_indexed_products(x):
            x_0 = x[0]
            x_1 = x[1]
            x_bar = zeros(x.shape)
            # <doctest>:2  return x[0] * x[1] + x[0]
            x_bar[0] = 1.0
            x_bar[1] = x_0
            x_bar[0] += x_1
            return (None, (NoTangent(), x_bar))
        """)
    _assert_gradient(indexed_products, sample((3,), 4))


def test_release_deletes_each_array_after_its_last_read():
    before, after = passes_input_and_output(
        Release, summed_product_of_calls, kinds="float[:]", fused=True, value=False
    )
    assert before == _text("""
        def grad_summed_product_of_calls(x):
            sin_x = np.sin(x)
            exp_x = np.exp(x)
            # <doctest>:2  return np.sum(np.sin(x) * np.exp(x))
            x_bar = sin_x * exp_x
            x_bar = x_bar + exp_x * cos(x)
            return (None, (NoTangent(), x_bar))
        """)
    assert after == _text("""
        def grad_summed_product_of_calls(x):
            sin_x = np.sin(x)
            exp_x = np.exp(x)
            # <doctest>:2  return np.sum(np.sin(x) * np.exp(x))
            x_bar = sin_x * exp_x
            del sin_x
            x_bar = x_bar + exp_x * cos(x)
            return (None, (NoTangent(), x_bar))
        """)
    _assert_gradient(summed_product_of_calls, sample((5,), 5))

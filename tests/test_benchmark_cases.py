"""The benchmark's functions: srcad's gradients, and the hand-written ones the benchmark
times srcad against, checked against central finite differences (one random direction
per differentiated argument)."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import srcad

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "benchmark_cases", HERE.parent / "benchmarks" / "cases.py"
)
cases = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = cases  # dataclasses look their module up
_spec.loader.exec_module(cases)


def _robust_fit_args(rng):
    x = rng.standard_normal(40)
    return rng.standard_normal(3), x, 2.0 * x + rng.standard_normal(40), 1.0, 3.0


DISTINCT = {case.func.__name__: case for case in reversed(cases.CASES)}  # the smallest
FUNCTIONS = [
    *((case.func, case.make_args, case.wrt, case.hand_grad) for case in DISTINCT.values()),
    (cases.robust_fit_loss, _robust_fit_args, (0,), None),
]


def _directional_derivative(func, args, position, direction, step=1e-6):
    def at(t):
        moved = list(args)
        moved[position] = args[position] + t * direction
        return func(*moved)

    return (at(step) - at(-step)) / (2 * step)


@pytest.mark.parametrize(
    ("func", "make_args", "wrt", "hand_grad"), FUNCTIONS, ids=[f[0].__name__ for f in FUNCTIONS]
)
def test_gradients_match_finite_differences(func, make_args, wrt, hand_grad):
    rng = np.random.default_rng(7)
    args = make_args(rng)
    found = srcad.differentiate(func, wrt=wrt).grad(*args)
    found = found if isinstance(found, tuple) else (found,)
    by_hand = hand_grad(*args) if hand_grad is not None else found
    for position, gradient, written in zip(wrt, found, by_hand, strict=True):
        direction = rng.standard_normal(np.shape(args[position]))
        direction = float(direction) if np.ndim(direction) == 0 else direction
        expected = _directional_derivative(func, args, position, direction)
        for derivative in (gradient, written):
            assert np.shape(derivative) == np.shape(args[position])
            np.testing.assert_allclose(
                np.sum(derivative * direction), expected, rtol=1e-5, atol=1e-7
            )

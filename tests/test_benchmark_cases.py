"""The benchmark's functions: the hand-written derivatives the benchmark times srcad
against, and srcad's own, checked against central finite differences of the function
(`benchmarks/checks.py`: along random directions, in float64)."""

import pathlib
import sys

import numpy as np
import pytest

import srcad

BENCHMARKS = pathlib.Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import cases  # noqa: E402
import checks  # noqa: E402
import trees  # noqa: E402

sys.path.remove(str(BENCHMARKS))


def _kinds(case):
    """What makes two cases of one function differ for srcad: the mode and the dtypes."""
    args = case.make_args(np.random.default_rng(0)) if not case.big_loop else ()
    return case.func, case.mode, tuple(str(getattr(a, "dtype", type(a).__name__)) for a in args)


# Every case but the 10^6-step loops (their smaller twins are here), each (function, mode,
# dtypes) once, at its first (smallest) size.
_first: dict = {}
for _case in cases.CASES:
    if not _case.big_loop:
        _first.setdefault(_kinds(_case), _case)
DISTINCT = list(_first.values())


def _srcad_derivative(case, args, seeded):
    if case.mode == cases.GRAD:
        return srcad.grad(case.func, wrt=case.wrt)(*args)
    if case.mode == cases.JVP:
        tangents = [srcad.ZeroTangent()] * len(args)
        for position, tangent in zip(case.wrt, seeded, strict=True):
            tangents[position] = tangent
        return srcad.jvp(case.func, args, tuple(tangents))[1]
    if case.mode == cases.JACOBIAN_FORWARD:
        return srcad.jacobian(case.func, wrt=case.wrt[0], mode="forward")(*args)
    return srcad.hessian_vector_product(case.func, wrt=case.wrt[0])(*args, *seeded)


@pytest.mark.parametrize("case", DISTINCT, ids=[c.name for c in DISTINCT])
def test_hand_written_derivative_matches_finite_differences(case):
    rng = np.random.default_rng(7)
    checks.check_hand_written(case, case.make_args(rng), rng)


@pytest.mark.parametrize("case", DISTINCT, ids=[c.name for c in DISTINCT])
def test_srcad_derivative_matches_finite_differences(case):
    rng = np.random.default_rng(7)
    args = case.make_args(rng)
    seeded = checks.seeds(case, args, rng)
    found = _srcad_derivative(case, args, seeded)
    if case.mode == cases.GRAD:  # srcad's structural tangents read as the parameters' containers
        found = tuple(
            trees.rebuilt(args[p], trees.leaves_like(g, args[p]))
            for p, g in zip(case.wrt, found, strict=True)
        )
    float32 = any(getattr(leaf, "dtype", None) == np.float32 for leaf in trees.leaves(args))
    for said, estimate in checks.pairs(case, args, seeded, found, rng):
        assert checks.relative_error(said, estimate) <= (1e-4 if float32 else 1e-5)
    if case.mode == cases.GRAD:  # each gradient in its argument's float type and shape
        for position, gradient in zip(case.wrt, found, strict=True):
            for leaf, arg in zip(trees.leaves(gradient), trees.leaves(args[position]), strict=True):
                assert np.shape(leaf) == np.shape(arg)
                assert np.result_type(leaf) == np.result_type(arg)


def test_robust_fit_loss_gradient_matches_finite_differences():
    """The function whose compile time the benchmark reports."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(40)
    args = (rng.standard_normal(3), x, 2.0 * x + rng.standard_normal(40), 1.0, 3.0)
    found = srcad.differentiate(cases.robust_fit_loss).grad(*args)
    direction = rng.standard_normal(3)
    moved = [cases.robust_fit_loss(args[0] + t * direction, *args[1:]) for t in (1e-6, -1e-6)]
    expected = (moved[0] - moved[1]) / 2e-6
    np.testing.assert_allclose(np.sum(found * direction), expected, rtol=1e-5, atol=1e-7)

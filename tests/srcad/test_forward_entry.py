"""The entry `srcad.jvp` calls for a Python function (`srcad/forward_entry.py`): one branch
per kinds of arguments and tangents seen, the general path for everything else; the same
products either way, checked against central finite differences; the entry's branches
dropped when a fact their forward rules rely on changes."""

import functools
import math
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad import NoTangent, SrcadError, ZeroTangent
from srcad.errors import TangentShapeError
from srcad.forward_entry import ATTRIBUTE
from srcad.tangents import AbstractZero
from tests.conftest import sample
from tests.conftest import user_module as load


def kepler(M: float, e: float) -> float:  # noqa: N803 (the equation's names)
    E = M  # noqa: N806
    while abs(E - e * math.sin(E) - M) > 1e-13:
        E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))  # noqa: N806
    return E


def weighted_loop(w: Any, xs: Any, n: int) -> Any:
    total = 0.0
    for i in range(n):
        total += math.tanh(w[0] + w[1] * xs[i]) ** 2
    return total / n


def scaled(x: Any, s: float) -> Any:
    return np.sin(x) * s


def fd_product(f: Any, args: tuple[Any, ...], tangents: tuple[Any, ...],
               step: float = 1e-6) -> Any:  # fmt: skip
    """The directional derivative of `f` along `tangents` (zeros for ints and zeros)."""

    def moved(sign: float) -> tuple[Any, ...]:
        out = []
        for a, t in zip(args, tangents, strict=True):
            zero = isinstance(t, AbstractZero) or isinstance(a, int)
            out.append(a if zero else a + sign * step * t)
        return tuple(out)

    return (np.asarray(f(*moved(1.0))) - np.asarray(f(*moved(-1.0)))) / (2 * step)


def _dispatcher(f: Any) -> Any:
    return f.__dict__[ATTRIBUTE]


def _check(f: Any, args: tuple[Any, ...], tangents: tuple[Any, ...]) -> Any:
    y, y_dot = srcad.jvp(f, args, tangents)
    np.testing.assert_allclose(y, f(*args), rtol=1e-12)
    np.testing.assert_allclose(y_dot, fd_product(f, args, tangents), rtol=1e-6, atol=1e-8)
    return y, y_dot


@pytest.mark.parametrize(
    "tangents",
    [(1.0, 0.0), (0.0, 1.0), (0.3, -2.0), (1.0, ZeroTangent()), (ZeroTangent(), 0.7)],
)
def test_scalar_products_through_a_branch_match_finite_differences(tangents: Any) -> None:
    for _ in range(3):  # the first call takes the general path, the next ones the branch
        _check(kepler, (1.2, 0.3), tangents)
    assert _dispatcher(kepler).branches


def test_a_zero_tangent_folds_the_argument_out_of_the_compiled_rule() -> None:
    w, xs = np.array([0.4, -0.8]), sample((7,), 1)
    for tangents in [(np.array([1.0, 0.5]), ZeroTangent(), ZeroTangent()),
                     (np.array([0.0, 1.0]), sample((7,), 2), ZeroTangent()),
                     (ZeroTangent(), sample((7,), 3), ZeroTangent())]:  # fmt: skip
        for _ in range(2):
            y, y_dot = _check(weighted_loop, (w, xs, 7), tangents)
            assert type(y) is float and type(y_dot) in (float, np.float64)
    dispatcher = _dispatcher(weighted_loop)
    assert len(dispatcher.branches) == 3
    text = dispatcher.source()
    assert "type(arg1_dot) is ZeroTangent" in text and "arg0_dot.shape == arg0.shape" in text


def test_array_results_and_their_tangents() -> None:
    x = sample((3, 2), 4)
    for _ in range(2):
        _, y_dot = _check(scaled, (x, 2.5), (np.ones((3, 2)), 1.0))
        assert isinstance(y_dot, np.ndarray) and y_dot.shape == (3, 2)


def test_calls_the_branches_do_not_take_go_the_general_way() -> None:
    """Lists of arguments, NumPy scalars, int tangents, structures, NoTangent: the same
    results as the general path gives, and no branch added for them."""
    for _ in range(2):
        assert srcad.jvp(kepler, [1.2, 0.3], [1.0, 0.0])[1] == pytest.approx(
            srcad.jvp(kepler, (1.2, 0.3), (1.0, 0.0))[1]
        )
    before = dict(_dispatcher(kepler).branches)
    for args, tangents in [
        ((np.float64(1.2), 0.3), (1.0, 0.0)),
        ((1.2, 0.3), (1, 0)),  # int tangents, taken as floats
        ((1.2, 0.3), (np.float64(1.0), NoTangent())),
    ]:
        for _ in range(2):
            _check(kepler, args, tangents)
    assert _dispatcher(kepler).branches.keys() == before.keys()
    for _ in range(2):  # a tuple of floats and its tangent
        y, y_dot = srcad.jvp(lambda p: p[0] * p[1], ((2.0, 3.0),), ((1.0, 0.0),))
        assert (y, y_dot) == (6.0, 3.0)


def test_misfits_are_refused_on_every_call() -> None:
    x = sample((3,), 5)
    for _ in range(3):
        srcad.jvp(scaled, (x, 2.0), (np.ones(3), 0.0))
    assert _dispatcher(scaled).branches
    for _ in range(2):
        with pytest.raises(TangentShapeError, match="shape"):
            srcad.jvp(scaled, (x, 2.0), (np.ones(4), 0.0))
        with pytest.raises(SrcadError, match="with respect to `n`"):
            srcad.jvp(weighted_loop, (np.ones(2), x, 3), (np.ones(2), ZeroTangent(), 1))
        with pytest.raises(SrcadError, match="2 arguments but 1 tangents"):
            srcad.jvp(kepler, (1.2, 0.3), (1.0,))
        with pytest.raises(SrcadError, match="a tuple of arguments"):
            srcad.jvp(kepler, np.array([1.2, 0.3]), (1.0, 0.0))


def test_defaults_and_wrapped_functions_take_the_general_path() -> None:
    def with_default(x: float, s: float = 2.0) -> float:
        return s * x * x

    @functools.wraps(with_default)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return 10.0 * with_default(*args, **kwargs)

    for _ in range(2):
        assert srcad.jvp(with_default, (3.0,), (1.0,)) == (18.0, 12.0)
        assert srcad.jvp(wrapper, (3.0,), (1.0,)) == (180.0, 120.0)
    assert not _dispatcher(with_default).branches
    assert wrapper.__dict__[ATTRIBUTE].func is wrapper  # not the wrapped function's entry


def test_a_copied_or_unpickled_dispatcher_is_not_used() -> None:
    """`jvp` reads the dispatcher as an attribute of the function; one copied from
    another function (`functools.wraps`, after the other's branches were made) sends the
    call to the function's own, and a pickled one (`None` when unpickled) is made anew."""

    def inner(x: float) -> float:
        return x * x * x

    def outer(x: float) -> float:
        return 2.0 * inner(x)

    for _ in range(2):
        assert srcad.jvp(inner, (2.0,), (1.0,)) == (8.0, 12.0)
    assert _dispatcher(inner).branches
    outer.__dict__.update(inner.__dict__)  # as `functools.wraps(inner)(outer)` does
    for _ in range(2):
        assert srcad.jvp(outer, (2.0,), (1.0,)) == (16.0, 24.0)
        assert srcad.jvp(inner, (2.0,), (1.0,)) == (8.0, 12.0)
    assert _dispatcher(outer).func is outer and _dispatcher(inner).func is inner
    inner.__dict__[ATTRIBUTE] = None  # what a cloudpickled function comes back with
    for _ in range(2):
        assert srcad.jvp(inner, (2.0,), (0.5,)) == (8.0, 6.0)
    assert _dispatcher(inner).func is inner


GUARDED = """
import math

SCALE = 2.0

def helper(x):
    return math.sin(x)

def f(x):
    return SCALE * helper(x) * x
"""


def test_a_branch_follows_rebound_globals(tmp_path: Path) -> None:
    module = load(tmp_path, "forward_entry_guarded", GUARDED)
    f = module.f
    for _ in range(2):
        assert srcad.jvp(f, (0.5,), (1.0,))[1] == pytest.approx(
            2.0 * (math.cos(0.5) * 0.5 + math.sin(0.5))
        )
    module.helper = lambda x: x * x  # another callee: compiled again
    for _ in range(2):
        assert srcad.jvp(f, (0.5,), (1.0,))[1] == pytest.approx(2.0 * 3 * 0.25)
    module.SCALE = 3.0  # another float: read as the primal reads it
    assert srcad.jvp(f, (0.5,), (1.0,))[1] == pytest.approx(3.0 * 3 * 0.25)
    module.SCALE = np.array([1.0, 2.0])  # no longer a float: compiled again
    _, y_dot = srcad.jvp(f, (0.5,), (1.0,))
    np.testing.assert_allclose(y_dot, np.array([1.0, 2.0]) * 3 * 0.25)


def test_a_registered_rule_and_clear_cache_drop_the_branches() -> None:
    def cube(x: float) -> float:
        return x * x * x

    def uses_cube(x: float) -> float:
        return cube(x) + x

    for _ in range(2):
        assert srcad.jvp(uses_cube, (2.0,), (1.0,)) == (10.0, 13.0)

    @srcad.frule.register(cube)
    def cube_frule(dargs: Any, x: float) -> Any:  # deliberately wrong: seen at once
        return x * x * x, 100.0 * dargs[1]

    assert srcad.jvp(uses_cube, (2.0,), (1.0,)) == (10.0, 101.0)
    srcad.clear_cache()
    assert not _dispatcher(uses_cube).branches
    assert srcad.jvp(uses_cube, (2.0,), (1.0,)) == (10.0, 101.0)


def test_forward_jacobians_through_the_entry() -> None:
    def step(state: Any) -> Any:
        x, y = state[0], state[1]
        for _ in range(5):
            x, y = x + 0.1 * y * y, y - 0.1 * math.sin(x)
        return np.array([x, y])

    state = np.array([0.3, -0.4])
    forward = srcad.jacobian(step, mode="forward")
    reverse = srcad.jacobian(step)
    for _ in range(2):
        np.testing.assert_allclose(forward(state), reverse(state), rtol=1e-12)


def test_generated_functions_are_not_differentiated_from_their_source() -> None:
    g = srcad.grad(lambda x: x**3)
    for _ in range(2):
        assert srcad.jvp(g, (2.0,), (1.0,)) == (12.0, 12.0)
    assert isinstance(g, types.FunctionType) and not _dispatcher(g).branches


def _square(x):  # type: ignore[no-untyped-def]
    return x * x


def _element(v):  # type: ignore[no-untyped-def]
    return v[0] * 2.0


def _scaled_element(x, v):  # type: ignore[no-untyped-def]
    return x * v[0]


def _float_plus_element(x, v):  # type: ignore[no-untyped-def]
    return x + v[0] - v[0]


@pytest.mark.parametrize(
    ("f", "args", "tangents"),
    [
        (_square, (1.3,), (0.5,)),
        (_element, (np.array([0.4, 2.0]),), (np.array([1.5, -1.0]),)),
        (_scaled_element, (1.3, np.array([0.4, 2.0])), (0.5, ZeroTangent())),
        (_scaled_element, (1.3, np.array([0.4, 2.0])), (ZeroTangent(), np.array([1.0, 3.0]))),
        (_float_plus_element, (1.3, np.array([0.4, 2.0])), (0.5, ZeroTangent())),
    ],
)
def test_a_float_results_tangent_is_the_general_paths(f: Any, args: Any, tangents: Any) -> None:
    # A result whose kind is a float64 number: the branch returns the rule's tangent where
    # its type is the result's, else what the general path gives (`structured`).
    h = 1e-6
    dense = [0.0 if isinstance(t, ZeroTangent) else t for t in tangents]
    moved = [[a + s * h * t for a, t in zip(args, dense, strict=True)] for s in (1.0, -1.0)]
    want = (f(*moved[0]) - f(*moved[1])) / (2 * h)
    found = [srcad.jvp(f, args, tangents) for _ in range(2)]  # general path, then branch
    assert _dispatcher(f).branches
    for y, y_dot in found:
        assert type(y) is type(f(*args)) and type(y_dot) in (float, np.float64)
        np.testing.assert_allclose(y_dot, want, rtol=1e-6, atol=1e-9)
    assert type(found[0][1]) is type(found[1][1]) and found[0][1] == found[1][1]

"""The rule specialised for the arguments' kinds (inlined derivatives, buffers) against the
general one (rule calls) on every end-to-end case: same primal, same cotangents. The
cases' own tests check the specialised rule against finite differences."""

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import Structure, signature
from srcad.tangents import AbstractZero, unthunk
from srcad.trees import leaves, structured
from tests.end_to_end import test_closures_and_calls as calls
from tests.end_to_end import test_containers as containers
from tests.end_to_end import test_control_flow as control_flow
from tests.end_to_end import test_straight_line as straight_line


def _cases():
    for module in (straight_line, control_flow, containers, calls):
        for case in module.CASES:
            if len(case) == 3:
                name, function, args = case
            else:
                function, args = case
                name = function.__name__
            yield pytest.param(function, args, id=f"{module.__name__.rsplit('_', 1)[-1]}-{name}")


def _plain(value):
    value = unthunk(value)
    if isinstance(value, AbstractZero):
        return 0.0
    return value


@pytest.mark.parametrize(("function", "args"), list(_cases()))
def test_specialised_rule_agrees_with_the_general_one(function, args):
    kinds = signature(args)
    general = COMPILER.compiled(function, None, Request.rrule()).function
    specialised = COMPILER.compiled(function, None, Request.rrule(kinds)).function
    y, general_pullback = general(*args)
    y_specialised, specialised_pullback = specialised(*args)
    np.testing.assert_allclose(np.asarray(y_specialised), np.asarray(y), rtol=1e-12)
    seed = np.random.default_rng(5).standard_normal(np.shape(y))
    seed = float(seed) if np.ndim(y) == 0 else seed
    _assert_same_cotangents(general_pullback(seed), specialised_pullback(seed), args)


def _assert_same_cotangents(expected, found, args):
    assert len(found) == len(expected)
    for position, (e, f) in enumerate(zip(expected, found, strict=True)):
        if position == 0 or signature((args[position - 1],)) == (None,):
            continue  # no kind: the same rule calls in both, structural tangents and all
        if isinstance(args[position - 1], int):
            continue
        if isinstance(signature((args[position - 1],))[0], Structure):
            # A container's kind (its structure): compared leaf by leaf, shaped like it.
            e, f = (leaves(structured(t, args[position - 1])) for t in (e, f))
            for index, (e_leaf, f_leaf) in enumerate(zip(e, f, strict=True)):
                _assert_close(e_leaf, f_leaf, f"argument {position - 1}, leaf {index}")
            continue
        _assert_close(e, f, f"argument {position - 1}")


def _assert_close(expected, found, what):
    np.testing.assert_allclose(
        np.asarray(_plain(found), dtype=float),
        np.asarray(_plain(expected), dtype=float),
        rtol=1e-10,
        atol=1e-12,
        err_msg=f"cotangent of {what}",
    )


@pytest.mark.parametrize(("function", "args"), list(_cases()))
@pytest.mark.parametrize("value", [True, False], ids=["value_and_grad", "grad"])
def test_gradient_function_agrees_with_the_general_rule(function, args, value):
    """`grad_f`, specialised and fused (for `grad` alone, without the work done only for the
    value, where not `value`), against the general rule's pullback seeded with 1.0."""
    y, general_pullback = COMPILER.compiled(function, None, Request.rrule()).function(*args)
    if np.ndim(y) != 0 or np.iscomplexobj(y) or isinstance(y, tuple | list):
        return  # `grad` takes real scalars alone
    gradient = COMPILER.compiled(function, None, Request.grad(signature(args), value))
    y_fused, found = gradient.function(*args)
    if y_fused is None:
        assert not value and isinstance(y, float)  # proven a float, so left out
    else:
        np.testing.assert_allclose(np.asarray(y_fused), np.asarray(y), rtol=1e-12)
    _assert_same_cotangents(general_pullback(1.0), found, args)


def _unused_broadcast(x, y):
    z = x + y  # the value nothing reads, but which raises for shapes that do not broadcast
    return np.sum(x**2) + 0.0 * np.sum(z)


def _unused_sum(x, y):
    z = x * y  # noqa: F841 (unused on purpose)
    return np.sum(x**2)


def _unused_broadcast_in_loop(x, y):
    for _ in range(2):
        z = x + y  # noqa: F841 (unused on purpose; raises for shapes that do not broadcast)
    return np.sum(x**2)


def _unused_reassigned_parameter(x, y):
    y = -(y * x)  # a parameter's new value, unused (its shape class is not the argument's)
    return np.sum(x**2)


@pytest.mark.parametrize(
    "function",
    [_unused_broadcast, _unused_sum, _unused_broadcast_in_loop, _unused_reassigned_parameter],
)
def test_gradient_alone_raises_where_the_function_does(function):
    """The work `grad` leaves out still raises where it would have: arrays whose shapes do
    not broadcast together are an error, not a gradient."""
    args = (np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="broadcast"):
        function(*args)
    gradient = COMPILER.compiled(function, None, Request.grad(signature(args), value=False))
    with pytest.raises(ValueError, match="broadcast"):
        gradient.function(*args)
    args = (np.ones(3), np.ones((2, 3)))
    _, found = gradient.function(*args)
    np.testing.assert_allclose(found[1], 2.0 * args[0])


def _unused_divisions(x, n, m):
    scale = 1.0 / n  # the value nothing reads, but which raises for n = 0
    rest = 7 // m + 3 % m
    return np.sum(x**2) + scale + rest


def _unused_division_of_a_numpy_float(x, c, n):
    scale = c[0] / n  # a NumPy float over a Python zero: inf, and no error
    return np.sum(x**2) + scale


@pytest.mark.parametrize("n", [0.0, 0])
def test_gradient_alone_does_not_raise_where_the_function_divides_a_numpy_float(n):
    """The division left out is NumPy's (its numerator is an element of an array): the
    function gives inf for a zero divisor, so the gradient must not raise either."""
    c = np.array([1.5, 2.0])
    x = np.array([0.3, -1.2, 0.8])
    with np.errstate(divide="ignore"):
        assert _unused_division_of_a_numpy_float(x, c, n) == np.inf
        gradient = srcad.grad(_unused_division_of_a_numpy_float)(x, c, n)
    step = 1e-6
    finite = [
        (_unused_division_of_a_numpy_float(x + step * e, c, 2.0)
         - _unused_division_of_a_numpy_float(x - step * e, c, 2.0)) / (2 * step)
        for e in np.eye(3)
    ]  # fmt: skip
    np.testing.assert_allclose(gradient, finite, rtol=1e-6)


def _divides_anyway(x, n):
    return np.sum(x**2) / n  # the gradient divides by n too: no check needed


@pytest.mark.parametrize(("n", "m"), [(0, 2), (2, 0), (0.0, 2), (2, 0)])
def test_gradient_alone_divides_by_zero_where_the_function_does(n, m):
    """A division of Python numbers the gradient leaves out still raises for a zero
    divisor: a check (the division itself) takes its place, unless the gradient divides
    by `n` anyway."""
    args = (np.ones(3), n, m)
    with pytest.raises(ZeroDivisionError):
        _unused_divisions(*args)
    request = Request.grad(signature(args), value=False)
    gradient = COMPILER.compiled(_unused_divisions, None, request)
    with pytest.raises(ZeroDivisionError):
        gradient.function(*args)
    _, found = gradient.function(np.ones(3), 2, 3)
    np.testing.assert_allclose(found[1], 2.0 * np.ones(3))
    text = COMPILER.compiled(
        _divides_anyway, None, Request.grad(signature((np.ones(3), 2)), value=False)
    ).source
    assert "a divisor: zero raises" not in text
    with pytest.raises(ZeroDivisionError):
        srcad.grad(_divides_anyway)(np.ones(3), 0)

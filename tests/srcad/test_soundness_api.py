"""Issue 17, the API's part: one integer policy at every entry point, gradients in the float
type of their argument, bound callables (partials, bound methods, callable objects), and
clean `SrcadError`s, naming the user's function and never srcad's own, for bad input to
every public function.

Every derivative is checked against central finite differences of the primal. The functions
differentiated here are defined in this file, one to a line, so their source is available.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import numpy as np
import pytest

import srcad
from srcad import NoTangent, SourceUnavailableError, SrcadError, Tangent, ZeroTangent

STEP = 1e-6


def cube(x):
    return x**3


def cube_sum(x):
    return np.sum(x**3)


def times(x, n):
    return x * n


def times_sum(x, n):
    return np.sum(x * n)


def weighted(x, w, k=1.0):
    return np.sum(np.sin(x) * w) * k


def scaled(a, scale=2.0):
    return a * a * scale


def pair(x):
    return (x, x * 2.0)


def as_list(x):
    return [x, x * 2.0]


def as_vector(x):
    return x * x * np.ones(2)


def alternating(x, k):
    if k % 2 == 0:
        return x * k
    return x**2 * k


def loop_of_helpers(x, n):
    total = 0.0
    for k in range(n):
        total = total + alternating(x, k)
    return total


def summed_loop(x, n):
    return np.sum(loop_of_helpers(x, n))


class Spring:
    """A callable object, with a method, a classmethod and a staticmethod."""

    def __init__(self, stiffness: float) -> None:
        self.stiffness = stiffness

    def __call__(self, x):
        return self.stiffness * x * x * 0.5

    def energy(self, x, rest=1.0):
        return self.stiffness * (x - rest) ** 3

    @classmethod
    def cubed(cls, x):
        return x**3 * 2.0

    @staticmethod
    def quartic(x):
        return x**4


class Damper:
    """A callable object whose `__call__` has a registered rule (see the test)."""

    def __init__(self, c: float) -> None:
        self.c = c

    def __call__(self, x):
        return self.c * x * x


def central(f: Any, x: Any) -> Any:
    """The central finite-difference derivative of `f` at `x` (a float or a float array):
    an array of shape `f(x).shape + x.shape`."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(f(x if x.ndim else float(x)))
    out = np.zeros(y.shape + x.shape)
    for index in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[index] = STEP
        plus, minus = (x + e, x - e) if x.ndim else (float(x + e), float(x - e))
        difference = (np.asarray(f(plus)) - np.asarray(f(minus))) / (2 * STEP)
        out[(..., *index)] = difference
    return out


def close(actual: Any, expected: Any) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=float), expected, rtol=1e-5, atol=1e-6)


INTERNAL = re.compile(r"__srcad|grad_\w+\(|<srcad entry|general\(|__srcad_bind__|gradient_\d")


def refused(make: Any, match: str | None = None, error: type[Exception] = SrcadError) -> str:
    """The message of the `SrcadError` `make()` raises: it names none of srcad's internals."""
    with pytest.raises(error, match=match) as caught:
        make()
    message = str(caught.value)
    assert not INTERNAL.search(message), message
    return message


# --- 10. integers: one policy at every entry point ------------------------------------------

INTEGERS = [
    pytest.param(2, id="int"),
    pytest.param(np.int64(2), id="np.int64"),
    pytest.param(True, id="bool"),
    pytest.param(np.array([1, 2]), id="int-array"),
]

ENTRY_POINTS = [
    pytest.param(lambda x: srcad.grad(cube_sum)(x), id="grad"),
    pytest.param(lambda x: srcad.value_and_grad(cube_sum)(x), id="value_and_grad"),
    pytest.param(lambda x: srcad.differentiate(cube_sum).grad(x), id="differentiate.grad"),
    pytest.param(lambda x: srcad.hessian(cube_sum)(x), id="hessian"),
    pytest.param(lambda x: srcad.hessian_vector_product(cube_sum)(x, 1.0), id="hvp"),
    pytest.param(lambda x: srcad.jacobian(cube)(x), id="jacobian-reverse"),
    pytest.param(lambda x: srcad.jacobian(cube, mode="forward")(x), id="jacobian-forward"),
    pytest.param(lambda x: srcad.jvp(cube, (x,), (np.ones(np.shape(x)) * 1.8,)), id="jvp"),
    pytest.param(lambda x: srcad.frule((NoTangent(), 1.0), cube, x), id="frule"),
    pytest.param(
        lambda x: srcad.differentiate(cube).frule((NoTangent(), 1.0), x), id="differentiate.frule"
    ),
]


@pytest.mark.parametrize("x", INTEGERS)
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_every_entry_point_refuses_an_integer_to_differentiate(entry: Any, x: Any) -> None:
    message = refused(lambda: entry(x), "cannot be perturbed")
    assert "`x`" in message and "pass a float" in message


@pytest.mark.parametrize("x", [2, np.int64(2)])
def test_second_derivative_refuses_an_integer(x: Any) -> None:
    refused(lambda: srcad.grad(srcad.grad(cube))(x), "cannot be perturbed")


@pytest.mark.parametrize("x", [2.0, np.float64(2.0)])
def test_the_same_functions_at_a_float_give_the_derivatives(x: Any) -> None:
    assert srcad.hessian(cube)(x) == pytest.approx(12.0, rel=1e-12)
    assert srcad.grad(srcad.grad(cube))(x) == pytest.approx(12.0, rel=1e-12)
    close(srcad.jacobian(cube)(x), central(cube, x))
    close(srcad.jacobian(cube, mode="forward")(x), central(cube, x))
    close(srcad.hessian_vector_product(cube)(x, 1.0), 12.0)


def test_rrule_and_vjp_give_no_tangent_for_integers() -> None:
    _, pullback = srcad.rrule(times, 2.0, 3)
    assert pullback(1.0)[2] == NoTangent()
    _, vjp_fn = srcad.vjp(times_sum, np.array([2.0, 1.0]), np.array([3, 4]))
    x_bar, n_bar = vjp_fn(1.0)
    assert n_bar == NoTangent()
    assert x_bar.dtype == np.float64
    close(x_bar, [3.0, 4.0])
    _, vjp_fn = srcad.vjp(cube, 2)
    assert vjp_fn(1.0) == (NoTangent(),)


@pytest.mark.parametrize("zero", [NoTangent(), ZeroTangent(), 0, 0.0, np.int64(0)])
def test_jvp_takes_a_zero_tangent_for_an_integer(zero: Any) -> None:
    y, y_dot = srcad.jvp(times, (2.0, 3), (1.5, zero))
    assert y == 6.0
    assert y_dot == pytest.approx(4.5) and isinstance(y_dot, float | np.floating)


def test_wrt_leaves_an_integer_argument_out() -> None:
    dx = srcad.grad(times)(2.0, 3)
    assert type(dx) is float and dx == 3.0
    refused(lambda: srcad.grad(times, wrt="n")(2.0, 3), "`n`: it is an int")
    assert srcad.hessian(times)(2.0, 3) == pytest.approx(0.0)


# --- gradients keep the float type of their argument ----------------------------------------


def test_gradient_of_a_float_is_a_float_though_computed_from_ints() -> None:
    g = srcad.grad(times)
    for _ in range(3):  # the general path, then the entry's branch
        dx = g(2.0, 3)
        assert type(dx) is float and dx == 3.0
    assert type(g(2.0, np.int64(3))) is float
    value, dx = srcad.value_and_grad(times)(2.0, 3)
    assert (value, dx) == (6.0, 3.0) and type(dx) is float
    assert type(srcad.vjp(times, 2.0, 3)[1](1.0)[0]) is float


@pytest.mark.parametrize("n", [np.array([3, 4]), 3, np.array([[3], [4]])[:, 0]])
def test_gradient_of_a_float_array_is_a_float_array(n: Any) -> None:
    x = np.array([2.0, 1.0])
    g = srcad.grad(times_sum)
    for _ in range(3):
        dx = g(x, n)
        assert dx.dtype == np.float64
        close(dx, central(lambda x: times_sum(x, n), x))
    assert srcad.jacobian(times_sum)(x, n).dtype == np.float64


@pytest.mark.parametrize(
    ("x", "tangent"),
    [
        pytest.param(2.0, 1.8, id="float"),
        pytest.param(2.0, 1, id="int-tangent"),
        pytest.param(np.array([2.0, 3.0]), np.array([1.8, -0.5]), id="array"),
        pytest.param(np.array([2.0, 3.0]), np.array([1, 2]), id="int-array-tangent"),
    ],
)
def test_jvp_never_casts_a_tangent_to_int(x: Any, tangent: Any) -> None:
    for f in (cube, cube_sum, lambda v: 2 * v):
        _, y_dot = srcad.jvp(f, (x,), (tangent,))
        expected = np.tensordot(central(f, x), np.asarray(tangent, dtype=float), axes=np.ndim(x))
        assert np.asarray(y_dot).dtype.kind == "f"
        close(y_dot, expected)


@pytest.mark.parametrize("x", [2.0, np.array([2.0, -0.5])], ids=["scalar", "array"])
def test_integers_inside_loops_and_helpers_keep_the_policy(x: Any) -> None:
    def f(v: Any) -> Any:
        return np.sum(loop_of_helpers(v, 4))

    expected = central(f, x)
    g = srcad.grad(summed_loop)
    for _ in range(2):
        gradient = g(x, 4)
        assert np.asarray(gradient).dtype == np.float64 and type(gradient) is type(x)
        close(gradient, expected)
    close(
        srcad.jacobian(loop_of_helpers, mode="forward")(x, 4),
        central(lambda v: loop_of_helpers(v, 4), x),
    )
    close(srcad.jacobian(loop_of_helpers)(x, 4), central(lambda v: loop_of_helpers(v, 4), x))
    _, y_dot = srcad.jvp(loop_of_helpers, (x, 4), (np.ones(np.shape(x)), NoTangent()))
    close(
        y_dot,
        np.tensordot(
            central(lambda v: loop_of_helpers(v, 4), x), np.ones(np.shape(x)), axes=np.ndim(x)
        ),
    )
    refused(lambda: srcad.grad(summed_loop, wrt="n")(x, 4), "`n`: it is an int")
    refused(lambda: srcad.jvp(loop_of_helpers, (x, 4), (np.ones(np.shape(x)), 1.0)), "`n`")
    integral = np.asarray(x).astype(int) if np.ndim(x) else 2
    refused(lambda: srcad.jacobian(loop_of_helpers)(integral, 4), "cannot be perturbed")
    refused(lambda: srcad.hessian(summed_loop)(integral, 4), "cannot be perturbed")
    close(srcad.hessian(summed_loop)(x, 4), central(lambda v: srcad.grad(summed_loop)(v, 4), x))


# --- wrt ------------------------------------------------------------------------------------


def test_an_empty_wrt_gives_an_empty_tuple_everywhere() -> None:
    g = srcad.grad(cube, wrt=())
    assert g(2.0) == () and g(2.0) == ()  # the general path, then the entry's branch
    assert srcad.value_and_grad(cube, wrt=())(2.0) == (8.0, ())
    assert srcad.differentiate(cube, wrt=()).grad(2.0) == ()
    assert srcad.jacobian(cube, wrt=())(2.0) == ()
    assert srcad.hessian(cube, wrt=())(2.0) == ()
    refused(lambda: srcad.grad(pair, wrt=())(1.0), "grad needs pair to return a real scalar")


def test_wrt_may_be_a_list() -> None:
    x, w = np.array([0.3, -1.2]), np.array([2.0, 0.5])
    dx, dw = srcad.grad(weighted, wrt=["x", 1])(x, w)
    close(dx, central(lambda v: weighted(v, w), x))
    close(dw, central(lambda v: weighted(x, v), w))


# --- bound callables: partials, bound methods, callable objects ------------------------------

SPRING = Spring(3.0)
BOUND = [
    pytest.param(functools.partial(weighted, w=np.array([2.0, -1.0]), k=3.0), id="partial-kw"),
    pytest.param(functools.partial(scaled, scale=0.5), id="partial-default-override"),
    pytest.param(functools.partial(times, n=2.5), id="partial-keyword-parameter"),
    pytest.param(SPRING, id="callable-object"),
    pytest.param(SPRING.energy, id="bound-method"),
    pytest.param(functools.partial(SPRING.energy, rest=0.25), id="partial-of-method"),
    pytest.param(Spring.cubed, id="classmethod"),
    pytest.param(Spring.quartic, id="staticmethod"),
    pytest.param(srcad.differentiate(functools.partial(scaled, scale=4.0)), id="differentiate"),
]


def second_derivatives(f: Any, x: Any) -> None:
    """Check hessian, hessian_vector_product and grad(grad(f)) of `f` at `x`: the right
    values, or a clean refusal (reverse mode over the forward rule of a method reading a
    field of `self` needs a rule for getattr's forward rule: srcad refuses it)."""
    expected = central(lambda v: srcad.grad(f)(v), x)
    v = np.ones(np.shape(x)) * 0.3
    checks = [
        (lambda: srcad.hessian(f)(x), expected),
        (
            lambda: srcad.hessian_vector_product(f)(x, v),
            expected @ v if np.ndim(x) else expected * v,
        ),
    ]
    if np.ndim(x) == 0:
        checks.append((lambda: srcad.grad(srcad.grad(f))(x), expected))
    for compute, value in checks:
        try:
            result = compute()
        except SrcadError as error:
            assert not INTERNAL.search(str(error)), str(error)
            assert "getattr" in str(error)
            continue
        close(result, value)


@pytest.mark.parametrize("f", BOUND)
@pytest.mark.parametrize("x", [0.7, np.array([0.7, -0.4])], ids=["scalar", "array"])
def test_bound_callables_differentiate_what_they_call(f: Any, x: Any) -> None:
    def total(v: Any) -> Any:
        return np.sum(f(v))

    expected = central(total, x)
    if np.ndim(f(x)) == 0:
        close(srcad.grad(f)(x), expected)
        close(srcad.grad(f)(x), expected)  # again: nothing is compiled twice wrongly
        value, gradient = srcad.value_and_grad(f)(x)
        close(value, f(x))
        close(gradient, expected)
        second_derivatives(f, x)
    close(srcad.jacobian(f)(x), central(f, x))
    close(srcad.jacobian(f, mode="forward")(x), central(f, x))
    y, y_dot = srcad.jvp(f, (x,), (np.ones(np.shape(x)),))
    close(y, f(x))
    close(y_dot, np.tensordot(central(f, x), np.ones(np.shape(x)), axes=np.ndim(x)))
    _, vjp_fn = srcad.vjp(f, x)
    close(vjp_fn(np.ones(np.shape(f(x))))[0], central(total, x))


def test_a_partial_takes_keywords_that_override_its_own() -> None:
    p = functools.partial(scaled, scale=3.0)
    assert srcad.grad(p)(2.0) == pytest.approx(12.0)
    assert srcad.grad(p)(2.0, scale=5.0) == pytest.approx(20.0)
    p = functools.partial(weighted, np.array([0.2, 0.4]))  # binds x: differentiate w
    w = np.array([1.0, 2.0])
    close(srcad.grad(p)(w), central(lambda v: weighted(np.array([0.2, 0.4]), v), w))


def test_rrule_of_a_callable_object_gives_the_instance_cotangent_first() -> None:
    spring = Spring(3.0)
    y, pullback = srcad.rrule(spring, 2.0)
    own, x_bar = pullback(1.0)
    assert y == 6.0 and x_bar == pytest.approx(6.0)
    assert isinstance(own, Tangent) and own.primal_type is Spring
    assert own["stiffness"] == pytest.approx(central(lambda k: Spring(k)(2.0), 3.0))
    own, x_bar, rest_bar = srcad.rrule(spring.energy, 2.0)[1](1.0)
    assert own["stiffness"] == pytest.approx(1.0) and x_bar == pytest.approx(9.0)
    assert rest_bar == pytest.approx(-9.0)
    _, y_dot = srcad.frule((Tangent(Spring, stiffness=1.0), 0.5), spring, 2.0)
    assert y_dot == pytest.approx(2.0 + 3.0)  # d/dk (k x^2 / 2) + k x * 0.5
    assert srcad.rrule(functools.partial(times, n=2.0), 3.0)[1](1.0) == (NoTangent(), 2.0)


def test_a_registered_call_rule_is_used_for_the_instance() -> None:
    @srcad.rrule.register(Damper.__call__)
    def damper_rrule(damper, x):
        def damper_pullback(y_bar):
            return Tangent(Damper, c=y_bar * x * x), y_bar * 2.0 * damper.c * x

        return damper(x), damper_pullback

    damper = Damper(1.5)
    assert srcad.grad(damper)(2.0) == pytest.approx(6.0)
    own, x_bar = srcad.rrule(damper, 2.0)[1](1.0)
    assert own["c"] == pytest.approx(4.0) and x_bar == pytest.approx(6.0)


def test_source_of_a_bound_callable_is_its_function_rule() -> None:
    text = srcad.source(functools.partial(scaled, scale=3.0), args=(1.0,))
    assert "def grad_scaled" in text or "def rrule_scaled" in text
    assert "def rrule___call__" in srcad.source(SPRING) or "Spring" in srcad.source(SPRING)


# --- callables without source ---------------------------------------------------------------


def test_functions_with_rules_need_no_source() -> None:
    assert srcad.grad(abs)(-2.0) == -1.0
    assert srcad.grad(np.sin)(0.5) == pytest.approx(math.cos(0.5))
    close(srcad.jacobian(np.exp)(np.array([0.1, 0.2])), central(np.exp, np.array([0.1, 0.2])))
    _, vjp_fn = srcad.vjp(np.sum, np.ones(3))
    close(vjp_fn(1.0)[0], np.ones(3))
    assert srcad.jvp(math.sin, (0.5,), (2.0,))[1] == pytest.approx(2.0 * math.cos(0.5))


# np.poly has no rule, and its source calls what srcad does not differentiate: refused.
NODES = np.arange(1.0, 4.0)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: srcad.vjp(np.poly, NODES), id="vjp-np.poly"),
        pytest.param(lambda: srcad.grad(lambda x: np.sum(np.poly(x)))(NODES), id="grad-np.poly"),
        pytest.param(lambda: srcad.jvp(np.poly, (NODES,), (NODES,)), id="jvp-np.poly"),
        pytest.param(lambda: srcad.grad(math.gamma)(1.5), id="builtin"),
        pytest.param(lambda: srcad.rrule(math.gamma, 1.5), id="rrule-builtin"),
        pytest.param(lambda: srcad.grad(dict)(1.5), id="class"),
        pytest.param(lambda: srcad.grad(max)(1.0, 2.0), id="no-signature"),
    ],
)
def test_a_callable_without_rule_or_source_is_refused_cleanly(make: Any) -> None:
    message = refused(make)
    assert "weak reference" not in message
    assert "register" in message or "wrap it" in message


def test_no_rule_and_no_source_is_a_source_unavailable_error() -> None:
    message = refused(lambda: srcad.grad(math.gamma), "gamma", SourceUnavailableError)
    assert "@srcad.rrule.register(gamma)" in message


# --- outputs that are not a real scalar -----------------------------------------------------


@pytest.mark.parametrize("f", [pair, as_list, as_vector])
@pytest.mark.parametrize(
    ("entry", "name"),
    [
        (lambda f: srcad.grad(f)(1.0), "grad"),
        (lambda f: srcad.value_and_grad(f)(1.0), "value_and_grad"),
        (lambda f: srcad.hessian(f)(1.0), "hessian"),
        (lambda f: srcad.hessian_vector_product(f)(1.0, 1.0), "hessian_vector_product"),
        (lambda f: srcad.grad(srcad.grad(f))(1.0), "grad of a gradient"),
    ],
)
def test_scalar_only_entry_points_refuse_other_outputs(f: Any, entry: Any, name: str) -> None:
    refused(lambda: entry(f), f"{name} needs {f.__name__} to return a real scalar")


# --- defaults -------------------------------------------------------------------------------


def test_jvp_and_frule_with_a_default_left_out() -> None:
    assert srcad.jvp(scaled, (3.0,), (1.0,)) == (18.0, pytest.approx(12.0))
    assert srcad.frule((NoTangent(), 1.0), scaled, 3.0) == (18.0, pytest.approx(12.0))
    close(srcad.jacobian(scaled, mode="forward")(np.array([1.0, 2.0])),
          central(scaled, np.array([1.0, 2.0])))  # fmt: skip


# --- bad input to every public function -----------------------------------------------------


def always(*args: Any) -> bool:
    return True


BAD_INPUT = [
    # not a function
    *(
        pytest.param(make, "which cannot be called", id=f"not-callable-{name}")
        for name, make in [
            ("grad", lambda: srcad.grad(5)),
            ("value_and_grad", lambda: srcad.value_and_grad("f")),
            ("differentiate", lambda: srcad.differentiate(5)),
            ("jacobian", lambda: srcad.jacobian(5)),
            ("hessian", lambda: srcad.hessian(5)),
            ("hvp", lambda: srcad.hessian_vector_product(5)),
            ("source", lambda: srcad.source(5)),
            ("jvp", lambda: srcad.jvp(5, (1.0,), (1.0,))),
            ("vjp", lambda: srcad.vjp(5, 1.0)),
            ("rrule", lambda: srcad.rrule(5, 1.0)),
            ("frule", lambda: srcad.frule((NoTangent(), 1.0), 5, 1.0)),
            ("check_rrule", lambda: srcad.testing.check_rrule(5, 1.0)),
            ("check_frule", lambda: srcad.testing.check_frule(5, 1.0)),
        ]
    ),
    pytest.param(lambda: srcad.rrule.register(5), "not for int 5", id="rrule.register"),
    pytest.param(lambda: srcad.frule.register(5), "not for int 5", id="frule.register"),
    pytest.param(lambda: srcad.rrule.register(cube)(5), "a rule must be a function", id="rule"),
    pytest.param(lambda: srcad.scalar_rule(5, always), "not for int 5", id="scalar_rule"),
    pytest.param(lambda: srcad.scalar_rule(cube, 5), "a partial derivative", id="partial"),
    pytest.param(lambda: srcad.non_differentiable(5), "not for int 5", id="non_differentiable"),
    pytest.param(lambda: srcad.opt_out(5, always), "not for int 5", id="opt_out"),
    pytest.param(lambda: srcad.opt_out(cube, 5), "an opt-out predicate", id="opt_out-predicate"),
    pytest.param(lambda: srcad.thunk(5), "a function computing the tangent", id="thunk"),
    # arguments that do not fit the function
    *(
        pytest.param(make, r"cannot call cube\(x\) with", id=f"arguments-{name}")
        for name, make in [
            ("grad-too-many", lambda: srcad.grad(cube)(2.0, 3.0)),
            ("grad-none", lambda: srcad.grad(cube)()),
            ("grad-keyword", lambda: srcad.grad(cube)(2.0, y=3.0)),
            ("value_and_grad", lambda: srcad.value_and_grad(cube)(2.0, 3.0)),
            ("differentiate", lambda: srcad.differentiate(cube).grad(2.0, 3.0)),
            ("jacobian", lambda: srcad.jacobian(cube)(2.0, 3.0)),
            ("jacobian-forward", lambda: srcad.jacobian(cube, mode="forward")(2.0, 3.0)),
            ("hessian", lambda: srcad.hessian(cube)(2.0, 3.0)),
            ("hvp", lambda: srcad.hessian_vector_product(cube)(2.0, 3.0, 1.0)),
            ("grad-of-grad", lambda: srcad.grad(srcad.grad(cube))(2.0, 3.0)),
            ("jvp", lambda: srcad.jvp(cube, (2.0, 3.0), (1.0, 1.0))),
            ("vjp", lambda: srcad.vjp(cube, 2.0, 3.0)),
            ("vjp-none", lambda: srcad.vjp(cube)),
            ("rrule", lambda: srcad.rrule(cube, 2.0, z=1.0)),
            ("frule", lambda: srcad.frule((NoTangent(), 1.0, 1.0), cube, 2.0, 3.0)),
            ("differentiate.rrule", lambda: srcad.differentiate(cube).rrule(2.0, 3.0)),
            ("check_rrule", lambda: srcad.testing.check_rrule(cube, 1.0, 2.0)),
        ]
    ),
    pytest.param(lambda: srcad.grad(times)(2.0), "missing a required argument: 'n'", id="missing"),
    pytest.param(
        lambda: srcad.grad(SPRING.energy)(1.0, 2.0, 3.0),
        r"Spring.energy\(x, rest=1.0\)",
        id="method-arguments",
    ),
    pytest.param(
        lambda: srcad.grad(functools.partial(times, n=2.0))(1.0, 2.0),
        r"functools.partial\(times\)",
        id="partial-arguments",
    ),
    # wrt and mode
    *(
        pytest.param(make, "names no positional parameter of cube", id=f"wrt-name-{name}")
        for name, make in [
            ("grad", lambda: srcad.grad(cube, wrt="z")),
            ("value_and_grad", lambda: srcad.value_and_grad(cube, wrt="z")),
            ("jacobian", lambda: srcad.jacobian(cube, wrt="z")),
            ("hessian", lambda: srcad.hessian(cube, wrt="z")),
            ("hvp", lambda: srcad.hessian_vector_product(cube, wrt="z")),
            ("source", lambda: srcad.source(cube, wrt="z")),
            ("grad-of-grad", lambda: srcad.grad(srcad.grad(cube), wrt="z")),
        ]
    ),
    *(
        pytest.param(make, "wrt=3 is out of range: cube has 1", id=f"wrt-range-{name}")
        for name, make in [
            ("grad", lambda: srcad.grad(cube, wrt=3)),
            ("jacobian", lambda: srcad.jacobian(cube, wrt=3)),
            ("hessian", lambda: srcad.hessian(cube, wrt=3)),
            ("hvp", lambda: srcad.hessian_vector_product(cube, wrt=3)),
        ]
    ),
    pytest.param(lambda: srcad.hessian_vector_product(cube, wrt=(0,)), "one argument", id="hvp-t"),
    pytest.param(lambda: srcad.hessian_vector_product(cube)(), "then the vector v", id="hvp-0"),
    pytest.param(lambda: srcad.jacobian(cube, mode="sideways"), "choose 'reverse'", id="mode"),
    pytest.param(lambda: srcad.source(cube, mode="sideways"), "choose 'reverse'", id="src-mode"),
    pytest.param(  # example arguments passed where the mode goes
        lambda: srcad.source(cube, np.ones(2)), "choose 'reverse'", id="src-mode-array"
    ),
    pytest.param(lambda: srcad.source(cube, args=5), "tuple of example arguments", id="src-args"),
    pytest.param(lambda: srcad.jvp(cube, 2.0, 1.0), "a tuple of arguments", id="jvp-tuples"),
    pytest.param(lambda: srcad.jvp(cube, (2.0,), ()), "1 arguments but 0", id="jvp-count"),
    pytest.param(lambda: srcad.frule(1.0, cube, 2.0), "the tangents first", id="frule-tangents"),
]


@pytest.mark.parametrize(("make", "match"), BAD_INPUT)
def test_bad_input_gives_a_clean_error(make: Any, match: str) -> None:
    refused(make, match)


def test_bad_arguments_after_the_fast_path_is_warm() -> None:
    g = srcad.grad(times)
    assert g(2.0, 3.0) == 3.0 and g(2.0, 3.0) == 3.0  # a branch for (float, float)
    refused(lambda: g(2.0, 3.0, 4.0), "too many positional arguments")
    refused(lambda: g(2.0, 3.0, k=1.0), "unexpected keyword argument 'k'")
    refused(lambda: g(2.0, n=3.0, x=1.0), "multiple values for argument 'x'")

"""Tests for srcad/api.py: differentiate, grad, value_and_grad, rrule, rrule.register, source.

The functions differentiated here are defined in this file, so their source is available.
Rules registered for a test live in that test's body, on functions defined there, so no
test leaves a rule behind that another could see.
"""

from __future__ import annotations

import math
import traceback
from typing import Any

import numpy as np
import pytest

import srcad
from srcad import MissingRuleError, NoTangent, SrcadError, ZeroTangent


def affine_loss(w, b, x):
    z = x * w + b
    return np.sum(z * z)


@srcad.differentiate
def bare_loss(w, b, x):
    z = x * w + b
    return np.sum(z * z)


@srcad.differentiate(wrt=("w", "b"))
def named_loss(w, b, x):
    z = x * w + b
    return np.sum(z * z)


def ignores_y(x, y):
    return np.sum(x * 2.0)


def doubled(x):
    return x * 2.0


def complex_square(z):
    return z * z


def scaled(x, scale=3.0):
    return x * scale


W = np.array([1.0, 2.0, 3.0])
B = 0.5
X = np.array([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]])
Z = X * W + B
VALUE = float(np.sum(Z * Z))
# d/dw sum((x*w + b)^2) and friends, with w broadcast over the rows of x.
W_BAR = np.sum(2 * Z * X, axis=0)
B_BAR = float(np.sum(2 * Z))
X_BAR = 2 * Z * W
ARGS = (W, B, X)


def _assert_same(actual: Any, expected: Any) -> None:
    """Equal values, and a float where a float is expected."""
    if isinstance(expected, float):
        assert type(actual) is float
    np.testing.assert_allclose(actual, expected)


# --- differentiate -----------------------------------------------------------------------


def test_bare_decorator_keeps_the_primal() -> None:
    assert isinstance(bare_loss, srcad.Differentiable)
    assert bare_loss.__name__ == "bare_loss"
    assert bare_loss(*ARGS) == VALUE


def test_bare_decorator_differentiates_the_first_argument() -> None:
    assert bare_loss.wrt == ("w",)
    _assert_same(bare_loss.grad(*ARGS), W_BAR)


def test_decorator_with_wrt_names_gives_a_tuple() -> None:
    w_bar, b_bar = named_loss.grad(*ARGS)
    _assert_same(w_bar, W_BAR)
    _assert_same(b_bar, B_BAR)


def test_decorator_value_and_grad() -> None:
    value, (w_bar, b_bar) = named_loss.value_and_grad(*ARGS)
    assert value == VALUE
    _assert_same(w_bar, W_BAR)
    _assert_same(b_bar, B_BAR)


# --- wrt ---------------------------------------------------------------------------------

WRT = [
    pytest.param(0, W_BAR, id="int"),
    pytest.param("b", B_BAR, id="name"),
    pytest.param(-1, X_BAR, id="negative-int"),
    pytest.param(1, B_BAR, id="int-float-argument"),
]


@pytest.mark.parametrize(("wrt", "expected"), WRT)
def test_grad_wrt_one_argument(wrt: Any, expected: Any) -> None:
    _assert_same(srcad.grad(affine_loss, wrt=wrt)(*ARGS), expected)


WRT_TUPLES = [
    pytest.param(("w", 2), (W_BAR, X_BAR), id="name-and-int"),
    pytest.param((1,), (B_BAR,), id="one-element"),
    pytest.param((-1, "w"), (X_BAR, W_BAR), id="order-kept"),
    pytest.param((0, 1, 2), (W_BAR, B_BAR, X_BAR), id="all"),
]


@pytest.mark.parametrize(("wrt", "expected"), WRT_TUPLES)
def test_grad_wrt_tuple_gives_tuple(wrt: tuple[Any, ...], expected: tuple[Any, ...]) -> None:
    result = srcad.grad(affine_loss, wrt=wrt)(*ARGS)
    assert type(result) is tuple
    assert len(result) == len(expected)
    _assert_same(result[0], expected[0])
    _assert_same(result[-1], expected[-1])


BAD_WRT = [
    pytest.param(3, r"wrt=3 is out of range: affine_loss has 3 positional parameters", id="3"),
    pytest.param(-4, r"wrt=-4 is out of range", id="-4"),
    pytest.param("q", r"wrt='q' names no positional parameter of affine_loss", id="unknown"),
    pytest.param(("w", 0), r"names a parameter twice", id="duplicate-name-and-int"),
    pytest.param(("b", "b"), r"names a parameter twice", id="duplicate-name"),
    pytest.param(1.5, r"wrt takes ints and parameter names, not 1.5", id="float"),
    pytest.param(True, r"wrt takes ints and parameter names, not True", id="bool"),
]


@pytest.mark.parametrize(("wrt", "message"), BAD_WRT)
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda wrt: srcad.grad(affine_loss, wrt=wrt), id="grad"),
        pytest.param(lambda wrt: srcad.value_and_grad(affine_loss, wrt=wrt), id="value_and_grad"),
        pytest.param(lambda wrt: srcad.differentiate(wrt=wrt)(affine_loss), id="differentiate"),
        pytest.param(lambda wrt: srcad.source(affine_loss, wrt=wrt), id="source"),
    ],
)
def test_bad_wrt_raises_with_clear_message(make: Any, wrt: Any, message: str) -> None:
    with pytest.raises(SrcadError, match=message):
        make(wrt)


def test_bad_wrt_lists_the_parameters() -> None:
    with pytest.raises(SrcadError, match=r"choose from \('w', 'b', 'x'\)"):
        srcad.grad(affine_loss, wrt="q")


def test_grad_takes_keyword_arguments() -> None:
    _assert_same(srcad.grad(affine_loss, wrt="b")(W, x=X, b=B), B_BAR)


def test_grad_uses_the_primal_defaults() -> None:
    assert srcad.grad(scaled)(2.0) == 3.0
    assert srcad.grad(scaled, wrt="scale")(2.0) == 2.0


# --- grad's output must be a real scalar --------------------------------------------------

NON_SCALAR = [
    pytest.param(doubled, (np.ones(3),), r"returned ndarray with shape \(3,\)", id="vector"),
    pytest.param(doubled, (np.ones((2, 2)),), r"with shape \(2, 2\)", id="matrix"),
    pytest.param(complex_square, (1.0 + 2.0j,), r"returned complex", id="complex"),
]


@pytest.mark.parametrize(("func", "args", "message"), NON_SCALAR)
def test_grad_of_non_scalar_output_raises(func: Any, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(SrcadError, match=message) as raised:
        srcad.grad(func)(*args)
    assert "use srcad.rrule" in str(raised.value)


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        pytest.param(2.0, 2.0, id="float"),
        pytest.param(np.float64(2.0), 2.0, id="numpy-scalar"),
        pytest.param(np.array(2.0), 2.0, id="0d-array"),
    ],
)
def test_grad_accepts_scalar_like_outputs(arg: Any, expected: float) -> None:
    assert srcad.grad(doubled)(arg) == expected


def test_value_and_grad_returns_both() -> None:
    value, w_bar = srcad.value_and_grad(affine_loss)(*ARGS)
    assert value == VALUE
    _assert_same(w_bar, W_BAR)


def test_grad_of_differentiable_uses_its_function() -> None:
    _assert_same(srcad.grad(bare_loss, wrt="x")(*ARGS), X_BAR)


# --- rrule -------------------------------------------------------------------------------

RRULES = [
    pytest.param(lambda *args: srcad.rrule(affine_loss, *args), id="srcad.rrule"),
    pytest.param(lambda *args: bare_loss.rrule(*args), id="Differentiable.rrule"),
    pytest.param(lambda *args: named_loss.rrule(*args), id="Differentiable.rrule-with-wrt"),
]


@pytest.mark.parametrize("rrule", RRULES)
def test_rrule_pullback_returns_one_cotangent_per_argument(rrule: Any) -> None:
    y, pullback = rrule(*ARGS)
    cotangents = pullback(2.0)
    assert y == VALUE
    assert len(cotangents) == 4
    assert cotangents[0] is NoTangent()
    _assert_same(cotangents[1], 2.0 * W_BAR)
    _assert_same(cotangents[2], 2.0 * B_BAR)
    _assert_same(cotangents[3], 2.0 * X_BAR)


@pytest.mark.parametrize("rrule", RRULES)
def test_rrule_pullback_is_named_after_the_function(rrule: Any) -> None:
    _, pullback = rrule(*ARGS)
    assert pullback.__name__.endswith("_loss_pullback")
    assert pullback.__code__.co_name == pullback.__name__


def test_rrule_of_non_scalar_function() -> None:
    y, pullback = srcad.rrule(doubled, np.arange(3.0))
    np.testing.assert_array_equal(y, [0.0, 2.0, 4.0])
    no_tangent, x_bar = pullback(np.array([1.0, 10.0, 100.0]))
    assert no_tangent is NoTangent()
    np.testing.assert_array_equal(x_bar, [2.0, 20.0, 200.0])


# --- inputs the output does not depend on -------------------------------------------------


def test_unused_input_gets_symbolic_zero_from_pullback() -> None:
    _, pullback = srcad.rrule(ignores_y, np.ones(3), np.ones((2, 2)))
    _, x_bar, y_bar = pullback(1.0)
    np.testing.assert_array_equal(x_bar, [2.0, 2.0, 2.0])
    assert y_bar is ZeroTangent()


UNUSED = [
    pytest.param(np.ones((2, 2)), np.zeros((2, 2)), id="array"),
    pytest.param(np.ones(3, dtype=np.float32), np.zeros(3, dtype=np.float32), id="float32-array"),
    pytest.param(4.0, 0.0, id="float"),
]


@pytest.mark.parametrize(("y", "expected"), UNUSED)
def test_grad_materialises_zero_for_unused_input(y: Any, expected: Any) -> None:
    y_bar = srcad.grad(ignores_y, wrt="y")(np.ones(3), y)
    assert type(y_bar) is type(expected)
    assert np.shape(y_bar) == np.shape(expected)
    assert np.asarray(y_bar).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(y_bar, expected)


# --- rrule.register ----------------------------------------------------------------------


def test_registered_rule_is_what_rrule_returns() -> None:
    def square(x):
        return x * x

    _, compiled_pullback = srcad.rrule(square, 3.0)
    assert compiled_pullback(1.0) == (NoTangent(), 6.0)

    @srcad.rrule.register(square)
    def square_rrule(x):
        def square_pullback(y_bar):
            return NoTangent(), 100.0 * y_bar

        return x * x, square_pullback

    y, pullback = srcad.rrule(square, 3.0)
    assert y == 9.0
    assert pullback.__qualname__ == "test_registered_rule_is_what_rrule_returns.<locals>." + (
        "square_rrule.<locals>.square_pullback"
    )
    assert pullback(1.0) == (NoTangent(), 100.0)


def test_register_returns_the_rule_unchanged() -> None:
    def identity(x):
        return x

    def identity_rrule(x):
        return x, lambda y_bar: (NoTangent(), y_bar)

    assert srcad.rrule.register(identity)(identity_rrule) is identity_rrule


def test_registering_a_rule_invalidates_compiled_callers() -> None:
    def cube(x):
        return x * x * x

    def outer(x):
        y = cube(x)
        return y * 2.0

    differentiable = srcad.differentiate(outer)
    assert differentiable.grad(2.0) == 24.0  # through cube's own source
    assert "rrule_cube" in srcad.source(outer)

    @srcad.rrule.register(cube)
    def cube_rrule(x):
        def cube_pullback(y_bar):
            return NoTangent(), 3.0 * x * x * y_bar

        return x * x * x, cube_pullback

    assert differentiable.grad(2.0) == 24.0
    assert srcad.grad(outer)(2.0) == 24.0

    # A second rule for the same function replaces the first; the cached gradient must go.
    @srcad.rrule.register(cube)
    def wrong_cube_rrule(x):
        def cube_pullback(y_bar):
            return NoTangent(), 10.0 * y_bar

        return x * x * x, cube_pullback

    assert differentiable.grad(2.0) == 20.0
    assert srcad.grad(outer)(2.0) == 20.0
    assert "wrong_cube_rrule" in srcad.source(outer)


def test_missing_rule_error_says_how_to_register() -> None:
    def caller(x):
        return math.gamma(x)  # a C function: no source to compile, and no rule

    with pytest.raises(MissingRuleError) as raised:
        srcad.grad(caller)(1.0)
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.file == __file__
    assert diagnostic.hint == "register a rule with @srcad.rrule.register(gamma)"


# --- source ------------------------------------------------------------------------------


SOURCES = [
    pytest.param(lambda: srcad.source(affine_loss), "affine_loss", "w, b, x", id="srcad.source"),
    pytest.param(
        lambda: srcad.source(affine_loss, mode="reverse"),
        "affine_loss",
        "w, b, x",
        id="mode=reverse",
    ),
    pytest.param(lambda: bare_loss.source(), "bare_loss", "w", id="Differentiable.source"),
    pytest.param(
        lambda: named_loss.source(), "named_loss", "w, b", id="Differentiable.source-with-wrt"
    ),
    pytest.param(
        lambda: srcad.source(bare_loss), "bare_loss", "w, b, x", id="srcad.source-Differentiable"
    ),
]


@pytest.mark.parametrize(("get_source", "name", "wrt"), SOURCES)
def test_source_shows_rrule_and_nested_pullback(get_source: Any, name: str, wrt: str) -> None:
    text = get_source()
    assert f"\ndef rrule_{name}(w, b, x):\n" in text
    assert f"\n    def {name}_pullback(" in text
    assert f"\n# differentiated with respect to: {wrt}\n" in text


def test_source_with_wrt_names_it() -> None:
    text = srcad.source(affine_loss, wrt="b")
    assert "differentiated with respect to: b" in text
    assert "b_bar" in text
    assert "w_bar" not in text


def test_source_is_deterministic() -> None:
    assert srcad.source(affine_loss) == srcad.source(affine_loss, wrt=(0, 1, 2))


def test_source_is_valid_python() -> None:
    compile(srcad.source(affine_loss), "<test>", "exec")


def test_unknown_mode_raises() -> None:
    with pytest.raises(SrcadError, match="mode='sideways'"):
        srcad.source(affine_loss, mode="sideways")


# --- tracebacks through generated code -----------------------------------------------------


def _failing_pullback_traceback() -> tuple[list[traceback.FrameSummary], str]:
    """Differentiate a function calling one whose rule's pullback raises ValueError."""

    def fragile(x):
        return x + 1.0

    @srcad.rrule.register(fragile)
    def fragile_rrule(x):
        def fragile_pullback(y_bar):
            raise ValueError("fragile pullback failed")

        return x + 1.0, fragile_pullback

    def uses_fragile(x):
        z = fragile(x)
        return z * 3.0

    _, pullback = srcad.rrule(uses_fragile, 1.0)
    with pytest.raises(ValueError, match="fragile pullback failed") as raised:
        pullback(1.0)
    return traceback.extract_tb(raised.value.__traceback__), srcad.source(uses_fragile)


def test_traceback_shows_generated_pullback_and_line() -> None:
    frames, text = _failing_pullback_traceback()
    generated = [f for f in frames if f.name == "uses_fragile_pullback"]
    assert len(generated) == 1
    (frame,) = generated
    assert frame.filename.startswith("<srcad ")
    assert frame.line == "_, x_bar = z_pullback(z_bar)"
    # The line numbers in tracebacks are those of the text `srcad.source` shows.
    assert frame.lineno is not None
    assert text.splitlines()[frame.lineno - 1].strip() == frame.line


def test_traceback_ends_in_the_user_pullback() -> None:
    frames, _ = _failing_pullback_traceback()
    assert frames[-1].name == "fragile_pullback"
    assert frames[-1].filename == __file__


def _softplus_mean(w: Any, x: Any) -> Any:
    return np.mean(np.log(1.0 + np.exp(x @ w)))


def test_grad_alone_leaves_the_value_out_and_agrees_with_finite_differences() -> None:
    """`grad` calls a function that does not compute the value (it is proven a float);
    `value_and_grad` calls one that does: both gradients match finite differences."""
    rng = np.random.default_rng(3)
    w, x = rng.standard_normal(4), rng.standard_normal((6, 4))
    f = srcad.differentiate(_softplus_mean)
    gradient = f.grad(w, x)
    value, same = f.value_and_grad(w, x)
    assert value == pytest.approx(_softplus_mean(w, x))
    step = 1e-6
    for i in range(4):
        e = np.zeros(4)
        e[i] = step
        expected = (_softplus_mean(w + e, x) - _softplus_mean(w - e, x)) / (2 * step)
        assert gradient[i] == pytest.approx(expected, rel=1e-6, abs=1e-9)
        assert same[i] == pytest.approx(expected, rel=1e-6, abs=1e-9)
    alone = srcad.source(_softplus_mean, args=(w, x))
    assert "log" in alone  # the rrule computes the value; `grad`'s function need not


def test_grad_compiles_again_after_a_rule_is_registered() -> None:
    def scaled(x: Any) -> Any:
        return 2.0 * x

    def uses(x: Any) -> Any:
        return scaled(x) + 1.0

    f = srcad.differentiate(uses)
    assert f.grad(1.5) == pytest.approx(2.0)

    @srcad.rrule.register(scaled)
    def _scaled_rrule(x: Any) -> Any:  # a deliberately different derivative, to tell
        return 2.0 * x, lambda y_bar: (NoTangent(), 3.0 * y_bar)

    assert f.grad(1.5) == pytest.approx(3.0)  # `scaled` is local: no other test sees it

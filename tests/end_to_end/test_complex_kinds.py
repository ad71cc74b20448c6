"""Complex numbers and arrays on the specialised path (`srcad.kinds`: `("c", n)`, `("c8", n)`,
`("cw", 0)`): the operations that state their complex cotangents (`Inline.complex`, with
`conj`) are inlined, the others call their rules. Gradients and tangents of complex scalar
loops and complex array code against central differences in the real and the imaginary
direction of each element, in both modes; mixed real and complex arithmetic (a real
operand's cotangent stays real); complex64; the specialised rules against the general ones;
second order through complex intermediates of real arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.defaults import COMPILER, Request
from srcad.kinds import signature
from tests.conftest import close, difference


def scalar_loop(z):
    s = 0.0
    for k in range(20):
        s = s + abs(z * z + k) ** 2
    return s


def array_code(z):
    return np.sum(np.abs(np.exp(1j * z) * z) ** 2)


def holomorphic_scalars(z):
    w = z * z * z - 1.0 / z + z**4 - (-z) / 3 + (+z) ** 2 * 0.5
    v = w / (z + 2.0) - np.exp(z) * np.sin(z) + np.cos(w * 0.1) - np.log(z * 1j)
    return abs(v) + (v * np.conj(v)).real * 0.25


def holomorphic_arrays(z):
    w = np.sin(z) * z - np.exp(z) / (z + 2.0) + np.cos(z) ** 3 - np.tanh(z * 0.5)
    u = np.square(w) + np.cosh(z) * np.sinh(0.5 * z) + np.tan(z * 0.2) + np.arctan(z * 0.3)
    return np.sum(np.abs(u)) + np.abs(np.mean(w)) + np.abs(np.sum(np.expm1(z) * 1j)) ** 2


def with_ints(z):
    s = 0.0
    for k in range(1, 4):
        w = z * k + k / z - z / k
        s = s + abs(w) ** 2
    return s


def mixed(z, x):
    w = z * x + x / z - x**2 * z + 2.0 * x - x * 1j
    return abs(w) ** 2 + abs(x * z) * 0.5 + (w - x).imag


def mixed_arrays(z, x):
    w = z * x + np.exp(x * 1j) * z - x / (z + 3.0)
    return np.sum(np.abs(w) ** 2) + np.sum(x * np.abs(z))


def parts_and_conjugates(z):
    w = z * z + np.conj(z) * 0.5 - 1j * z
    u = np.real(w) * np.imag(z) + np.conjugate(w) * z
    return np.sum(np.abs(u)) + np.sum(w.real * z.imag) - np.sum(np.imag(np.conj(w)) ** 2)


def parts_of_scalars(z, x):
    w = z * x + np.conj(z) / (x + 1.0)
    return np.real(w) * w.imag + np.imag(np.conjugate(w) * z) + np.real(x) * x.imag


def elements_in_a_loop(z):
    s = 0.0
    for i in range(len(z)):
        w = z[i] * z[i - 1] + 0.5j
        s = s + abs(w) ** 2 + (z[i] * 2.0).real
    return s


def parts_of_a_complex_array(z, rows):
    head = z[1:] * z[:-1]
    picked = z[rows] * 1j
    return np.sum(np.abs(head) ** 2) + np.sum(np.abs(picked + z[0]))


def _gradient_by_differences(f: Any, args: tuple[Any, ...], position: int) -> Any:
    """`df/dx + i df/dy` for each element of a complex argument (ChainRules' convention
    for a real `f`), `df/dx` for a real one, by central differences."""
    x = args[position]
    found = np.zeros(np.shape(x), np.result_type(x, float))
    step = 1e-6
    for index in np.ndindex(np.shape(x)):
        for unit in (1.0, 1j) if np.iscomplexobj(x) else (1.0,):
            moved = []
            for sign in (1, -1):
                delta = np.zeros(np.shape(x), complex)
                delta[index] = sign * step * unit
                value = x + (delta if np.ndim(x) else delta[()])
                if not np.iscomplexobj(x):
                    value = np.real(value)
                moved.append(f(*args[:position], value, *args[position + 1 :]))
            found[index] += unit * (moved[0] - moved[1]) / (2 * step)
    return found if np.ndim(x) else found[()]


Z_ARRAY = np.array([0.3 + 0.1j, 0.2 - 0.5j, -0.7 + 0.4j])
CASES = [
    (scalar_loop, (0.3 + 0.4j,)),
    (scalar_loop, (np.complex128(-0.6 + 0.2j),)),
    (array_code, (Z_ARRAY,)),
    (holomorphic_scalars, (0.6 - 0.8j,)),
    (holomorphic_arrays, (Z_ARRAY,)),
    (holomorphic_arrays, (np.array([[0.5 + 0.5j, -0.2 + 0.3j], [0.1 - 0.9j, 1.1 + 0.2j]]),)),
    (with_ints, (-1.1 + 0.3j,)),
    (mixed, (0.6 - 0.8j, 0.7)),
    (mixed, (0.6 - 0.8j, 0.7 + 0.2j)),
    (mixed_arrays, (Z_ARRAY, np.array([0.5, -1.5, 2.0]))),
    (mixed_arrays, (Z_ARRAY, 0.8)),
    (parts_and_conjugates, (Z_ARRAY,)),
    (parts_of_scalars, (0.6 - 0.8j, 0.7)),
    (parts_of_scalars, (-0.2 + 0.5j, 1.3 - 0.4j)),
    (elements_in_a_loop, (Z_ARRAY,)),
    (elements_in_a_loop, (Z_ARRAY.astype(np.complex64),)),
]
IDS = [f"{f.__name__}-{'-'.join(type(a).__name__ for a in args)}" for f, args in CASES]


@pytest.mark.parametrize(("f", "args"), CASES, ids=IDS)
def test_gradient_against_differences_in_both_directions(f, args):
    positions = tuple(range(len(args)))
    gradient = srcad.grad(f, wrt=positions)
    for _ in range(2):  # compiled, then through the entry's branch
        found = gradient(*args)
        for position, g in enumerate(found):
            expected = _gradient_by_differences(f, args, position)
            np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-7)
            if not np.iscomplexobj(args[position]):  # a real argument's gradient is real
                assert not np.iscomplexobj(g), (position, g)
            else:  # a complex argument's is complex, of its shape (`callables.floating`)
                assert np.shape(g) == np.shape(args[position]) and np.iscomplexobj(g)


@pytest.mark.parametrize(("f", "args"), CASES, ids=IDS)
def test_jvp_against_differences_along_complex_directions(f, args):
    rng = np.random.default_rng(4)
    tangents = []
    for a in args:
        t = rng.standard_normal(np.shape(a)) + (
            1j * rng.standard_normal(np.shape(a)) if np.iscomplexobj(a) else 0
        )
        tangents.append(type(a)(t) if np.ndim(a) == 0 else np.asarray(t, np.asarray(a).dtype))
    for _ in range(2):  # compiled, then through the entry's branch
        y, y_dot = srcad.jvp(f, args, tuple(tangents))
        step = 1e-6
        wide = [np.asarray(a, complex) if np.asarray(a).dtype == np.complex64 else a for a in args]
        plus = f(*(a + step * t for a, t in zip(wide, tangents, strict=True)))
        minus = f(*(a - step * t for a, t in zip(wide, tangents, strict=True)))
        close(y, f(*wide))
        single = any(np.asarray(a).dtype == np.complex64 for a in args)
        tolerance = {"rtol": 1e-5, "atol": 1e-5} if single else {"rtol": 1e-6, "atol": 1e-7}
        np.testing.assert_allclose(y_dot, (plus - minus) / (2 * step), **tolerance)


@pytest.mark.parametrize(("f", "args"), CASES, ids=IDS)
def test_specialised_rules_agree_with_the_general_ones(f, args):
    kinds = signature(args)
    assert None not in kinds
    y, general = COMPILER.compiled(f, None, Request.rrule()).function(*args)
    y_special, special = COMPILER.compiled(f, None, Request.rrule(kinds)).function(*args)
    close(y_special, y)
    for want, got in zip(general(1.0)[1:], special(1.0)[1:], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    rng = np.random.default_rng(5)
    dots = tuple(
        np.asarray(rng.standard_normal(np.shape(a)) * (1 + 0.5j if np.iscomplexobj(a) else 1))[()]
        for a in args
    )
    general_frule = COMPILER.compiled(f, None, Request.frule()).function
    special_frule = COMPILER.compiled(f, None, Request.frule(kinds)).function
    want = general_frule((srcad.NoTangent(), *dots), *args)[1]
    got = special_frule((srcad.NoTangent(), *dots), *args)[1]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_complex_operations_are_inlined():
    """The specialised gradient of the issue's loop calls no rule: the product and the sum
    are arithmetic with `conj`, `abs` its slope `direction(a, y)`; its forward rule too,
    `abs`'s tangent by its own template (not holomorphic: `Inline.complex_tangents`)."""
    kinds = signature((0.3 + 0.4j,))
    text = COMPILER.compiled(scalar_loop, None, Request.grad(kinds, False)).source
    assert "conj(z)" in text and "direction(" in text
    assert "_rrule" not in text and "pullback(" not in text
    frule = COMPILER.compiled(scalar_loop, None, Request.frule(kinds)).source
    assert "_frule" not in frule.split("def ", 1)[1] and "real_part(conj(direction(" in frule
    text = COMPILER.compiled(holomorphic_arrays, None, Request.rrule(signature((Z_ARRAY,)))).source
    for name in ("sin", "cos", "exp", "tanh", "square", "cosh", "sinh", "tan", "arctan", "sum"):
        assert f"{name}_rrule" not in text, name
    frule = COMPILER.compiled(array_code, None, Request.frule(signature((Z_ARRAY,)))).source
    assert "mul_frule" not in frule and "exp_frule" not in frule
    kinds = signature((Z_ARRAY,))
    text = COMPILER.compiled(parts_and_conjugates, None, Request.rrule(kinds)).source
    for name in ("real", "imag", "conjugate", "absolute"):
        assert f"{name}_rrule" not in text, name


def test_indexing_complex_arrays_is_inlined():
    """`z[i]` of a complex array: its cotangent adds into a complex buffer (`z_bar[i]`), by
    slices and by repeated integer arrays too (`np.add.at`), its tangent `z_dot[i]`."""
    z = Z_ARRAY + 0.1
    rows = np.array([0, 2, 2, 1])
    for f, args in ((elements_in_a_loop, (z,)), (parts_of_a_complex_array, (z, rows))):
        kinds = signature(args)
        text = COMPILER.compiled(f, None, Request.grad(kinds, False)).source
        assert "getitem" not in text and "add_at" in text  # (`.real`: `getattr`'s rule)
        found = srcad.grad(f)(*args)
        np.testing.assert_allclose(found, _gradient_by_differences(f, args, 0), rtol=1e-6)
        dz = np.array([0.3 - 1j, 1.0 + 0.2j, -0.5 + 0.5j])
        step = 1e-6
        moved = [f(z + sign * step * dz, *args[1:]) for sign in (1, -1)]
        _, y_dot = srcad.jvp(f, args, (dz, *[srcad.ZeroTangent()] * (len(args) - 1)))
        np.testing.assert_allclose(y_dot, (moved[0] - moved[1]) / (2 * step), rtol=1e-6)


def real_part_only(z):
    return np.real(z) * 3.0


def test_a_real_cotangent_of_a_complex_argument_is_given_complex():
    """`np.real(z)`'s inlined cotangent is real; the gradient of a complex `z` is complex
    all the same, from the compiled path and from the entry's branch."""
    for _ in range(2):
        found = srcad.grad(real_part_only)(0.5 + 1j)
        assert type(found) is complex and found == 3.0


def test_complex_valued_result_tangent():
    """A holomorphic function's own tangent: `f'(z) * dz`, complex."""

    def cube_plus(z):
        return z * z * z + np.exp(z) / z

    z, dz = 0.4 - 0.3j, 0.2 + 1.1j
    y, y_dot = srcad.jvp(cube_plus, (z,), (dz,))
    close(abs(y), abs(cube_plus(z)))
    derivative = 3 * z * z + np.exp(z) / z - np.exp(z) / z**2
    np.testing.assert_allclose(y_dot, derivative * dz, rtol=1e-12)
    _, pullback = srcad.rrule(cube_plus, z)
    np.testing.assert_allclose(pullback(1.0 + 0.5j)[1], np.conj(derivative) * (1.0 + 0.5j))


def test_complex64_arrays_keep_their_precision():
    z = np.array([0.3 + 0.1j, 0.2 - 0.5j], np.complex64)
    assert signature((z,)) == (("c8", 1),)
    gradient = srcad.grad(array_code)(z)
    assert gradient.dtype == np.complex64
    expected = _gradient_by_differences(array_code, (z.astype(complex),), 0)
    np.testing.assert_allclose(gradient, expected, rtol=2e-4, atol=2e-5)
    _, y_dot = srcad.jvp(array_code, (z,), (np.ones(2, np.complex64),))
    step = 1e-6
    wide = z.astype(complex)
    np.testing.assert_allclose(
        y_dot, (array_code(wide + step) - array_code(wide - step)) / (2 * step), rtol=2e-4
    )


def complex_from_reals(x):
    z = x[0] + 1j * x[1]
    w = z * z * x[2] - np.exp(z) / (z + 3.0) + z**3
    return abs(w) ** 2 + (w * x[0]).real - abs(z * z + 1.0)


def complex_array_from_reals(x):
    z = x * (1.0 + 0.5j)
    w = np.exp(z * 0.3) * z - np.sin(z) * x
    return np.sum(np.abs(w) ** 2) + np.abs(np.sum(w * z))


@pytest.mark.parametrize(
    ("f", "x"),
    [
        (complex_from_reals, np.array([0.4, -0.7, 1.3])),
        (complex_array_from_reals, np.array([0.4, -0.7, 1.3])),
    ],
    ids=["scalars", "arrays"],
)
def test_second_order_through_complex_values(f, x):
    """The Hessian (reverse over the forward rule, compiled for the complex locals' kinds,
    `abs`'s inline tangent through `direction`'s rules) against differences of the
    gradient, and the gradient's forward derivatives."""
    close(srcad.grad(f)(x), difference(f, (x,)))
    hessian = difference(srcad.grad(f), (x,))
    close(srcad.hessian(f)(x), hessian)
    close(srcad.jacobian(srcad.grad(f), mode="forward")(x), hessian)
    close(srcad.jvp(srcad.grad(f), (x,), (np.ones(3),))[1], hessian @ np.ones(3))


def test_abs_at_zero_and_zero_cotangents():
    """`abs` of 0 takes its rule's slope 0, as the general path does; a complex value whose
    cotangent stays a symbolic zero (never read after) passes nothing on."""

    def unused(z):
        w = z * 2.0  # noqa: F841 (its cotangent stays zero)
        return abs(z * z) + abs(z - z)

    for z in (0j, 0.5 - 0.25j):
        expected = _gradient_by_differences(unused, (z,), 0) if z else 0.0
        np.testing.assert_allclose(srcad.grad(unused)(z), expected, rtol=1e-6, atol=1e-7)


def test_conjugated_templates_are_linear_in_the_seed():
    """`RuleSet.holomorphic` derives complex cotangents by conjugating real templates
    (`templates.conjugated`): only those linear in `y_bar` (products, quotients by
    something else, negations) are taken, anything else is refused where it is declared."""
    from srcad.templates import conjugated

    assert conjugated("a * y_bar") == "conj(a) * y_bar"
    assert conjugated("-y_bar * y / b") == "-y_bar * conj(y) / conj(b)"
    for text in ("y_bar + a", "a / y_bar", "y_bar * y_bar", "cos(y_bar)", "y_bar * 1j"):
        with pytest.raises(AssertionError):
            conjugated(text)


def _indexed_product(x, y, z):
    a10 = np.array([0.59, 0.49]) * (z * np.array([0.59, 0.49]))
    return a10[1]


@pytest.mark.parametrize("z", [0.7, np.float64(0.7), np.array(0.7), 0.7 + 0.2j])
def test_a_part_of_an_array_known_by_its_shape_alone(z):
    """The cotangent of `a10[1]`, where the gradient keeps `a10`'s shape alone (an
    `np.broadcast`, `passes/transforms/shapes.py`): a buffer of the part's cotangent's
    dtype (fuzz seed 410254 crashed reading the shape's dtype)."""
    if not isinstance(z, complex):
        assert srcad.grad(_indexed_product, wrt=2)(0.3, 0.2, z) == pytest.approx(0.49 * 0.49)
    _, pullback = srcad.vjp(_indexed_product, 0.3, 0.2, z)
    seed = 1.0 - 0.5j if isinstance(z, complex) else 1.0
    gradient = pullback(seed)[2]
    assert complex(gradient) == pytest.approx(0.49 * 0.49 * seed)  # (conj of a real slope)
    assert np.iscomplexobj(gradient) == isinstance(z, complex)

"""Reverse rules of linear and bilinear forward rules: second derivatives through NumPy."""

import functools
import operator

import numpy as np
import pytest

import srcad
from srcad.primitives import (
    append,
    index_concatenate,
    iterate,
    make_dict,
    make_list,
    make_struct,
    make_tuple,
    replace_fields,
    unpack,
    with_attribute,
)
from srcad.projection import (
    array_operand,
    conj,
    expand,
    numpy_operand,
    operand_tangent,
    real_part,
)
from srcad.registry import REGISTRY, Linearity
from srcad.tangents import elements_of, float64_number, float_items, unthunk
from srcad.testing import check_rrule, finite_difference_vjp
from tests.rules.test_higher_order import check_second_order

rng = np.random.default_rng(11)


def frule_of(primal):
    return REGISTRY.frule_for(primal).rrule


CASES = [
    ("sum_axis", np.sum, (rng.standard_normal((2, 3)),), {"axis": 0}),
    ("mean", np.mean, (rng.standard_normal(4),), {}),
    ("reshape", np.reshape, (rng.standard_normal(6), (2, 3)), {}),
    ("transpose", np.transpose, (rng.standard_normal((2, 3)),), {}),
    ("cumsum", np.cumsum, (rng.standard_normal(4),), {}),
    ("dot", np.dot, (rng.standard_normal((2, 3)), rng.standard_normal(3)), {}),
    ("outer", np.outer, (rng.standard_normal(2), rng.standard_normal(3)), {}),
    ("matmul", np.matmul, (rng.standard_normal((2, 3)), rng.standard_normal((3, 2))), {}),
]


def tangent_like(x):
    return rng.standard_normal(np.shape(x)) if isinstance(x, np.ndarray) else srcad.NoTangent()


@pytest.mark.parametrize(("primal", "args", "kwargs"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_reverse_rule_of_forward_rule_matches_finite_differences(primal, args, kwargs):
    frule = frule_of(primal)
    dargs = (srcad.NoTangent(), *(tangent_like(a) for a in args))

    def forward(*primal_args):
        return frule(dargs, *primal_args, **kwargs)

    # The registered rule is keyed on the frule; check it through a function calling it.
    y, _ = REGISTRY.rrule_for(frule).rrule(dargs, *args, **kwargs)
    np.testing.assert_allclose(y[1], forward(*args)[1])
    check_rrule(frule, dargs, *args, **kwargs, rtol=1e-6, atol=1e-8)


def linear(linearity):
    return {p.function for p in REGISTRY.primitives() if p.linearity is linearity}


def test_every_linear_function_gets_one():
    for primal in {p.function for p in REGISTRY.primitives() if p.linearity or p.definition}:
        assert REGISTRY.frule_for(primal) is not None, primal
        assert REGISTRY.rrule_for(primal) is not None, primal
        assert REGISTRY.rrule_for(frule_of(primal)) is not None, primal


def test_the_entries_say_which_functions_are_linear():
    """The functions whose entries in the rule library say they are (bi)linear."""
    assert linear(Linearity.LINEAR) == {
        np.sum, np.mean, np.cumsum, np.reshape, np.transpose, np.swapaxes, np.moveaxis,
        np.expand_dims, np.squeeze, np.ravel, np.flip, np.roll, np.tile, np.repeat,
        np.broadcast_to, np.diag, np.trace, np.real, np.imag, np.conjugate, operator.getitem,
        np.take, np.take_along_axis, np.split, np.array_split,
        np.tril, np.triu, np.fliplr, np.flipud, np.rot90, np.rollaxis, np.diagonal,
        np.fft.fft, np.fft.ifft, np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn,
        np.fft.rfft, np.fft.rfft2, np.fft.rfftn, np.fft.irfft, np.fft.irfft2, np.fft.irfftn,
        np.fft.hfft, np.fft.ihfft, np.fft.fftshift, np.fft.ifftshift, float, unthunk,
        elements_of, expand, operand_tangent, conj, real_part, float_items, float64_number,
    }  # fmt: skip
    bilinear = {np.dot, np.inner, np.outer, np.tensordot, np.matmul, operator.matmul,
                np.vdot, np.kron, np.cross, np.convolve, np.correlate}  # fmt: skip
    assert linear(Linearity.BILINEAR) == bilinear
    assert linear(Linearity.MULTILINEAR) == {np.einsum}
    # Moving values whole, with no pieces: complex values pass (tests below).
    assert linear(Linearity.LINEAR_IN_ALL) == {
        make_tuple, make_list, make_dict, append, sum, np.array, np.asarray, unpack, iterate,
        list, tuple, zip, enumerate, dict.get, dict.values, dict.items, dict.copy, list.copy,
        make_struct, replace_fields, with_attribute, functools.partial,
        np.concatenate, np.stack, np.hstack, np.vstack, np.dstack, np.column_stack,
        np.atleast_1d, np.atleast_2d, np.atleast_3d, index_concatenate, array_operand,
        numpy_operand, dict, operator.or_,
    }  # fmt: skip


# Complex values through building and unpacking containers, to second order: a matrix with
# complex eigenvalues (-0.25 +- 1.39j) and a complex one for `slogdet`.
EIG = np.array([[0.0, -2.0], [1.0, 0.5]])
PHASES = np.array([[0.3, 0.1], [-0.2, 0.4]])
AT = np.array([0.1, 0.2, -0.3, 0.05])


def eig_squares(x):
    w, _ = np.linalg.eig(EIG + x.reshape(2, 2))
    return np.real(np.sum(w * w))


def eig_modulus(x):
    w, _ = np.linalg.eig(EIG + x.reshape(2, 2))
    return np.abs(w[0]) ** 2 + np.abs(w[1])


def eig_vector_ratio(x):
    _, v = np.linalg.eig(EIG + x.reshape(2, 2))
    return np.abs(v[0, 0] / v[1, 0]) ** 2  # (independent of the vectors' phases)


def complex_slogdet(x):
    sign, logdet = np.linalg.slogdet(EIG + x.reshape(2, 2) + 1j * PHASES)
    return logdet + np.real(sign)


def complex_items(x):
    z = x[0] + 1j * x[1]
    first, *rest = [z * z, np.exp(1j * x[2]), x[3]]
    pair = (first, rest[0])
    a, b = pair
    return np.real(a * np.conj(b)) * rest[1]


def complex_joined(x):
    z = np.concatenate([x[:2] * 1j, np.atleast_1d(x[2] + 2j * x[3])])
    return np.sum(np.abs(np.stack([z, z * z])) ** 2)


COMPLEX_OBJECTIVES = [
    eig_squares,
    eig_modulus,
    eig_vector_ratio,
    complex_slogdet,
    complex_items,
    complex_joined,
]


@pytest.mark.parametrize("objective", COMPLEX_OBJECTIVES, ids=lambda f: f.__name__)
def test_complex_values_through_containers_in_both_modes(objective):
    expected = finite_difference_vjp(objective, (AT,), 1.0, 0)
    np.testing.assert_allclose(srcad.grad(objective)(AT), expected, rtol=1e-6, atol=1e-8)
    direction = np.cos(np.arange(4.0))
    _, derivative = srcad.jvp(objective, (AT,), (direction,))
    np.testing.assert_allclose(derivative, expected @ direction, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("objective", COMPLEX_OBJECTIVES, ids=lambda f: f.__name__)
def test_complex_values_through_containers_to_second_order(objective):
    check_second_order(objective, (AT,))

"""Dataclasses and NamedTuples built inside the function (`primitives.make_struct`: the
normal form of `Kind(a, b=v)`, keywords put in field order, where `struct_fields` proves the
initialiser stores its fields as they are), `dataclasses.replace` (`replace_fields`), and a
NamedTuple returned by a helper: against central finite differences, in both modes. One
whose `__post_init__` computes its fields is built through it (`srcad/dataclass_init.py`,
`test_post_init.py`)."""

import importlib.util
import pathlib

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_jvp, finite_difference_vjp

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("struct_functions", HERE / "struct_functions.py")
st = importlib.util.module_from_spec(spec)
spec.loader.exec_module(st)

X = np.arange(1.0, 7.0).reshape(2, 3) / 7 + 0.1
Y = np.array([0.4, -0.3])
ARGS = (X, Y)


def close(got, want):
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), 1e-6, 1e-8)


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("function", st.STRUCTS, ids=lambda f: f.__name__)
def test_both_modes(function, position):
    want = finite_difference_vjp(function, ARGS, 1.0, position)
    close(srcad.grad(function, wrt=position)(*ARGS), want)
    value, got = srcad.value_and_grad(function, wrt=position)(*ARGS)
    close(value, function(*ARGS))
    close(got, want)
    close(srcad.jacobian(function, wrt=position, mode="forward")(*ARGS), want)
    tangents = tuple(
        np.full(a.shape, 0.7) if i == position else srcad.ZeroTangent() for i, a in enumerate(ARGS)
    )
    _, y_dot = srcad.jvp(function, ARGS, tangents)
    close(y_dot, finite_difference_jvp(function, ARGS, tangents))


def test_the_fields_that_are_proved_stored():
    from srcad.primitives import struct_fields

    assert struct_fields(st.Params) == ("w", "b", "scale")
    assert struct_fields(st.Point) == ("x", "y")
    assert struct_fields(st.Checked) is None  # `__post_init__`
    assert struct_fields(dict) is None


def test_a_rule_registered_for_the_class_is_used():
    """The normal form builds a struct itself only where no rule is registered for it."""

    @srcad.rrule.register(st.Registered)
    def registered_rrule(a):
        def registered_pullback(bar):
            return srcad.NoTangent(), 5.0  # not the structural cotangent: the user's word

        return st.Registered(a), registered_pullback

    close(srcad.grad(st.builds_registered)(*ARGS), [[5.0, 0, 0], [0, 0, 0]])

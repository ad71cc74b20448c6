"""Soundness audit (session 37): NumPy takes the array a call writes its result into, `out`,
by position too: `np.multiply(a, 3.0, a)` is `np.multiply(a, 3.0, out=a)`, and so are a
ufunc's argument after its inputs, `np.clip(a, lo, hi, a)`, `np.cumsum(a, 0, None, a)`,
`np.sum(a, 0, None, c)`, `np.add.reduce(a, 0, None, c)`, `a.clip(lo, hi, a)`,
`a.sum(0, None, c)`, `a.round(1, a)`, `np.multiply(*(a, 3.0, a))`, `a.clip(*(lo, hi, a))`
and `functools.partial(np.multiply, a, 3.0)(a)`. srcad refused `out=` (E304) but took
these as calls that change nothing: the gradient and the tangent were computed as if `a`
kept its value (`np.multiply(a, 3.0, a); return np.sum(a * x)` with `a = x * 1.0`: 4x
where the derivative is 6x). Each is refused now, at the call's line where the function
is known when srcad compiles, when the call runs for an array's method, a partial or
unpacked arguments; the same calls without `out` are checked against central
differences in both modes and to second order.

Likewise the in-place operators called by name, `operator.imul(a, 3.0)` (4x where 6x) and
`a.__ipow__(2.0)`, but for `operator.iadd` and the dunders of `+=`, `-=`, `*=`, `/=`, `|=`
and `&=`, were taken as calls that change nothing.

`getattr(obj, name, default)` where `obj` has no attribute `name` gave the default's value
with no derivative, in both modes (0 where 5 for `getattr(Empty(), "w", x[0] * 5.0)`).

A method that changes its receiver called on an attribute or an item
(`box.table.update(...)`, `tables[0].update(...)`, `copy.copy`'s source) crashed the
mutation check with an AssertionError: refused, with its line.

And `super()` without arguments in a method srcad compiles crashed with Python's
RuntimeError (the compiled code has no `__class__` cell): refused where it is written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

WRITTEN = """
import numpy as np


def binary_ufunc(x):
    a = x * 1.0
    np.multiply(a, 3.0, a)
    return np.sum(a * x)


def through_another_name(x):
    a = x * 1.0
    b = a
    np.add(b, x, b)
    return np.sum(a * x)


def unary_ufunc_kept(x):
    a = x * 1.0
    b = np.exp(a, a)
    return np.sum(a * x) + np.sum(b)


def into_a_fresh_array(x):
    a = np.zeros(4)
    np.subtract(x, 1.0, a)
    return np.sum(a * x)


def clipped(x):
    a = x * 1.0
    np.clip(a, 0.0, 1.0, a)
    return np.sum(a * x)


def running_sum(x):
    a = x * 1.0
    np.cumsum(a, 0, None, a)
    return np.sum(a * x)


def reduced_into(x):
    total = np.zeros(())
    np.sum(x * 2.0, 0, None, total)
    return total * x[0]


def ufunc_method_reduce(x):
    total = np.zeros(())
    np.multiply.reduce(x, 0, None, total)
    return total + x[1]


def matrix_product(x):
    a = x.reshape(2, 2) * 1.0
    np.matmul(a, a, a)
    return np.sum(a * x.reshape(2, 2))
"""

WRITTEN_NAMES = [
    ("binary_ufunc", "np.multiply(a, 3.0, a)"),
    ("through_another_name", "np.add(b, x, b)"),
    ("unary_ufunc_kept", "b = np.exp(a, a)"),
    ("into_a_fresh_array", "np.subtract(x, 1.0, a)"),
    ("clipped", "np.clip(a, 0.0, 1.0, a)"),
    ("running_sum", "np.cumsum(a, 0, None, a)"),
    ("reduced_into", "np.sum(x * 2.0, 0, None, total)"),
    ("ufunc_method_reduce", "np.multiply.reduce(x, 0, None, total)"),
    ("matrix_product", "np.matmul(a, a, a)"),
]

METHODS = """
import functools

import numpy as np


def clipped_in_place(x):
    a = x * 1.0
    a.clip(0.0, 1.0, a)
    return np.sum(a * x)


def clipped_and_kept(x):
    a = x * 1.0
    b = a.clip(0.0, 1.0, a)
    return np.sum(b * x) + np.sum(a)


def summed_into(x):
    a = x * 1.0
    total = np.zeros(())
    a.sum(0, None, total)
    return total * x[0]


def rounded_in_place(x):
    a = x * 2.0
    a.round(1, a)
    return np.sum(a * x)


def unpacked(x):
    a = x * 1.0
    arguments = (a, 3.0, a)
    np.multiply(*arguments)
    return np.sum(a * x)


def unpacked_and_kept(x):
    a = x * 1.0
    arguments = (a, 3.0, a)
    b = np.multiply(*arguments)
    return np.sum(a * x) + np.sum(b)


def unpacked_into_a_method(x):
    a = x * 1.0
    bounds = (0.0, 1.0, a)
    a.clip(*bounds)
    return np.sum(a * x)


def through_a_partial(x):
    a = x * 1.0
    tripled = functools.partial(np.multiply, a, 3.0)
    tripled(a)
    return np.sum(a * x)
"""

METHOD_NAMES = [
    "clipped_in_place",
    "clipped_and_kept",
    "summed_into",
    "rounded_in_place",
    "unpacked",
    "unpacked_and_kept",
    "unpacked_into_a_method",
    "through_a_partial",
]

OPERATORS = """
import operator

import numpy as np


def multiplied(x):
    a = x * 1.0
    operator.imul(a, 3.0)
    return np.sum(a * x)


def divided(x):
    a = x * 1.0
    operator.itruediv(a, 2.0)
    return np.sum(a * x)


def subtracted(x):
    a = x * 1.0
    operator.isub(a, x * x)
    return np.sum(a * x)


def powered(x):
    a = x * 1.0
    a.__ipow__(2.0)
    return np.sum(a * x)


def matrix_powered(x):
    a = x.reshape(2, 2) * 1.0
    a.__imatmul__(a)
    return np.sum(a)
"""

OPERATOR_NAMES = [
    ("multiplied", "E305"),
    ("divided", "E305"),
    ("subtracted", "E305"),
    ("powered", "E303"),
    ("matrix_powered", "E303"),
]

SUPER = """
import numpy as np


class Layer:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return self.w * x


class Squashed(Layer):
    def forward(self, x):
        return np.tanh(super().forward(x)) + self.w


class ByName(Layer):
    def forward(self, x):
        return np.tanh(Layer.forward(self, x)) + self.w


def squashed(w, x):
    return np.sum(Squashed(w).forward(x) ** 2)


def by_name(w, x):
    return np.sum(ByName(w).forward(x) ** 2)
"""

DEFAULTS = """
import numpy as np

WEIGHTS = np.array([0.5, 1.0, 2.0, -1.0])


def softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def huber(r, delta=1.0, weights=WEIGHTS):
    small = np.abs(r) <= delta
    return np.sum(weights * np.where(small, 0.5 * r * r, delta * (np.abs(r) - 0.5 * delta)))


def attention(q):
    scores = q.reshape(2, 2) @ q.reshape(2, 2).T
    return np.sum(softmax(scores) * np.array([[1.0, 2.0], [3.0, 4.0]])) + huber(q * 3.0)
"""

DEFAULTED_ATTRIBUTES = """
import numpy as np


class Empty:
    pass


class Weighted:
    def __init__(self, w):
        self.w = w


def missing_field(x):
    return getattr(Empty(), "w", x[0] * 5.0) * x[1]


def one_stored_one_missing(x):
    b = Weighted(x[1] ** 2)
    return getattr(b, "w", x[0] * 5.0) + getattr(b, "v", x[2] * 7.0) ** 2


def from_a_nested_class(x):
    class Local:
        pass

    scale = x[3] * 2.0
    return getattr(Local(), "scale", scale) * np.sum(x)


def missing_on_an_array(x):
    return getattr(x, "weights", x[0] * 3.0) * x[2]


def present_on_a_number(x):
    return getattr(2.5, "real", x[0]) * x[1]
"""

DEFAULTED_NAMES = [
    "missing_field",
    "one_stored_one_missing",
    "from_a_nested_class",
    "missing_on_an_array",
    "present_on_a_number",
]

CHANGED_ITEMS = """
import copy

import numpy as np


class Box:
    def __init__(self):
        self.table = {}


def attribute_updated(x):
    box = Box()
    box.table.update({"a": x[0]})
    return box.table["a"] * 2.0


def item_updated(x):
    tables = [{"a": x[0]}]
    tables[0].update({"a": x[1] * 3.0})
    return tables[0]["a"]


def copied(x):
    y = copy.copy(x * 2.0)
    return np.sum(y**2)
"""

RETURNED = """
import operator

import numpy as np


def doubled_buffer(v):
    buffer = np.empty(4)
    np.multiply(v, 2.0, buffer)
    return buffer


def returned_values(x):
    a = x * 1.0
    b = np.multiply(a, 3.0) + np.clip(a, -1.0, 1.0) + np.cumsum(a, 0)
    c = a.clip(-1.0, 1.0) * a.sum(0) + a.max(0) + np.add.reduce(a, 0) + np.sum(a, 0, None)
    d = operator.mul(a, 2.0) + operator.truediv(a, 4.0)
    return np.sum(b * c * x * d) + np.sum(doubled_buffer(np.arange(4.0)) * x)
"""

X = np.array([0.5, -0.3, 0.2, 0.8])


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    directory = tmp_path_factory.mktemp("out_by_position")
    return (
        user_module(directory, "audit_s37_written", WRITTEN),
        user_module(directory, "audit_s37_methods", METHODS),
        user_module(directory, "audit_s37_returned", RETURNED),
        user_module(directory, "audit_s37_operators", OPERATORS),
        user_module(directory, "audit_s37_super", SUPER),
        user_module(directory, "audit_s37_defaults", DEFAULTS),
        user_module(directory, "audit_s37_getattr", DEFAULTED_ATTRIBUTES),
        user_module(directory, "audit_s37_changed_items", CHANGED_ITEMS),
    )


def _line(f, text):
    lines = Path(f.__code__.co_filename).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


@pytest.mark.parametrize(("name", "text"), WRITTEN_NAMES)
def test_out_by_position_is_refused_at_its_line(modules, name, text):
    f = getattr(modules[0], name)
    for compute in (
        lambda: srcad.grad(f)(X),
        lambda: srcad.jvp(f, (X,), (np.ones(4),)),
        lambda: srcad.jacobian(f, mode="forward")(X),
    ):
        with pytest.raises(srcad.SrcadError) as raised:
            compute()
        (diagnostic,) = raised.value.diagnostics
        assert (diagnostic.code, diagnostic.line) == ("E304", _line(f, text))
        assert "its `out`" in diagnostic.message


@pytest.mark.parametrize("name", METHOD_NAMES)
def test_an_array_method_given_out_by_position_is_refused_when_it_runs(modules, name):
    f = getattr(modules[1], name)
    for compute in (lambda: srcad.grad(f)(X), lambda: srcad.jvp(f, (X,), (np.ones(4),))):
        with pytest.raises(srcad.SrcadError, match="its `out` by position"):
            compute()


@pytest.mark.parametrize(("name", "code"), OPERATOR_NAMES)
def test_in_place_operators_called_by_name_are_refused(modules, name, code):
    """`operator.imul(a, b)` and `a.__ipow__(b)` change an array as `a *= b` does: only
    `operator.iadd` and the dunders of `+=`, `-=`, `*=`, `/=`, `|=`, `&=` were known."""
    f = getattr(modules[3], name)
    for compute in (lambda: srcad.grad(f)(X), lambda: srcad.jvp(f, (X,), (np.ones(4),))):
        with pytest.raises(srcad.SrcadError) as raised:
            compute()
        assert raised.value.diagnostics[0].code == code


def test_the_same_calls_returning_their_values_are_differentiated(modules):
    f = modules[2].returned_values
    want = difference(f, (X,))
    value, gradient = srcad.value_and_grad(f)(X)
    close(value, f(X))
    close(gradient, want)
    tangent = np.array([1.0, -0.5, 0.25, 2.0])
    close(srcad.jvp(f, (X,), (tangent,))[1], want @ tangent)
    close(srcad.hessian(f)(X), difference(srcad.grad(f), (X,)))


def test_super_without_arguments_is_refused_at_its_line(modules):
    """A compiled method has no `__class__` cell: `super()` in it crashed with Python's
    RuntimeError. Refused where it is written; the base's method called by name is
    differentiated."""
    f = modules[4].squashed
    for compute in (
        lambda: srcad.grad(f, wrt=(0, 1))(0.7, X),
        lambda: srcad.jvp(f, (0.7, X), (1.0, np.ones(4))),
    ):
        with pytest.raises(srcad.SrcadError) as raised:
            compute()
        (diagnostic,) = raised.value.diagnostics
        assert (diagnostic.code, diagnostic.line) == ("E102", _line(f, "super().forward(x)"))
    f = modules[4].by_name
    w_bar, x_bar = srcad.grad(f, wrt=(0, 1))(0.7, X)
    close(w_bar, difference(f, (0.7, X), 0))
    close(x_bar, difference(f, (0.7, X), 1))
    tangent = np.array([1.0, -0.5, 0.25, 2.0])
    _, y_dot = srcad.jvp(f, (0.7, X), (0.5, tangent))
    close(y_dot, difference(f, (0.7, X), 0) * 0.5 + difference(f, (0.7, X), 1) @ tangent)


def test_a_parameter_left_to_its_default_is_not_differentiated(modules):
    """`softmax(scores)` of `def softmax(z, axis=-1)` was refused (E211: the keyword
    `axis=axis` "depends on a differentiated input"): a parameter the call leaves to its
    default was taken as one that may vary. Its default is the same object whatever the
    caller's inputs; the callee is differentiated with respect to what the call passes."""
    f = modules[5].attention
    want = difference(f, (X,))
    value, gradient = srcad.value_and_grad(f)(X)
    close(value, f(X))
    close(gradient, want)
    tangent = np.array([1.0, -0.5, 0.25, 2.0])
    close(srcad.jvp(f, (X,), (tangent,))[1], want @ tangent)
    close(srcad.hessian(f)(X), difference(srcad.grad(f), (X,)))


@pytest.mark.parametrize("name", DEFAULTED_NAMES)
def test_getattr_of_a_missing_attribute_is_its_default(modules, name):
    """`getattr(obj, "w", x[0] * 5.0)` where `obj` has no `w` is the default, whose
    derivative both rules dropped (0 where 5), or crashed over (`getattr(2.5, "real", v)`:
    the pullback left out the default's cotangent)."""
    f = getattr(modules[6], name)
    want = difference(f, (X,))
    value, gradient = srcad.value_and_grad(f)(X)
    close(value, f(X))
    close(gradient, want)
    tangent = np.array([1.0, -0.5, 0.25, 2.0])
    close(srcad.jvp(f, (X,), (tangent,))[1], want @ tangent)
    close(srcad.hessian(f)(X), difference(srcad.grad(f), (X,)))


def test_a_changing_method_of_an_item_is_differentiated(modules):
    """`tables[0].update(...)` on a list made for its items alone: the item changed and
    written back (s37-items' `change_rewrites._change_item`), against differences."""
    f = modules[7].item_updated
    want = difference(f, (X,))
    close(srcad.grad(f)(X), want)
    close(srcad.jvp(f, (X,), (np.ones(4),))[1], want @ np.ones(4))


@pytest.mark.parametrize("name", ["attribute_updated", "copied"])
def test_a_changing_method_of_an_attribute_or_item_is_refused(modules, name):
    """`box.table.update(...)`, `tables[0].update(...)` (and `copy.copy`, whose source
    does `y.__dict__.update(state)`) crashed the mutation check with an AssertionError (it
    took every receiver of a changing method for a variable); refused now, with a line."""
    f = getattr(modules[7], name)
    for compute in (lambda: srcad.grad(f)(X), lambda: srcad.jvp(f, (X,), (np.ones(4),))):
        with pytest.raises(srcad.SrcadError) as raised:
            compute()
        assert raised.value.diagnostics

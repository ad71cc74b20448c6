"""Soundness audit (session 31): state that changes between calls, and method calls that
do not run the class's function with the instance first. Each derivative is checked
against central differences, or refused with srcad's error."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.errors import MissingRuleError, SrcadError
from tests.conftest import close, user_module


def central(f, x: float, step: float = 1e-6) -> float:
    return (f(x + step) - f(x - step)) / (2 * step)


def all_modes(f, x: float) -> None:
    """grad, jvp, forward jacobian and the Hessian-vector product of `f` at `x`, against
    central differences (of `f`, and of its derivative)."""
    want = central(f, x)
    close(srcad.grad(f)(x), want)
    close(srcad.jvp(f, (x,), (1.0,))[1], want)
    close(srcad.jacobian(f, mode="forward")(x), want)
    second = central(lambda y: central(f, y, 1e-4), x, 1e-4)
    np.testing.assert_allclose(srcad.hessian_vector_product(f)(x, 1.0), second, rtol=1e-4)


# -- a method call that is not the class's function with the instance first ---------------

METHODS = """
class Shadowed:
    def outer(self, x):
        return self.part(x) + x

    def part(self, x):
        return x * x


class Static:
    def outer(self, x):
        return self.scale(x)

    @staticmethod
    def scale(a, b=2.0):
        return b * 3.0 + a


class Classy:
    k = 3.0

    def outer(self, x):
        return self.cm(x) + x

    @classmethod
    def cm(cls, x):
        return cls.k * x * x


class Computed:
    def outer(self, x):
        return self.fn(x)

    @property
    def fn(self):
        return lambda x: x * x * x


MODEL = Shadowed()
MODEL.part = lambda y: y ** 4


def shadowed(x):
    return MODEL.outer(x)


def static(x):
    return Static().outer(x)


def classy(x):
    return Classy().outer(x)


def computed(x):
    return Computed().outer(x)
"""


@pytest.fixture
def methods(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"audit_methods_{abs(hash(str(tmp_path)))}", METHODS)


@pytest.mark.parametrize("name", ["static", "classy"])
def test_a_staticmethod_or_classmethod_through_the_instance_is_called_as_python_does(methods, name):
    # A staticmethod once got the instance as its first argument; now it gets none, and a
    # classmethod the class (`rules/method_lookup.py`).
    f = getattr(methods, name)
    step = 1e-6
    slope = (f(1.3 + step) - f(1.3 - step)) / (2 * step)
    curvature = (f(1.3 + step) - 2 * f(1.3) + f(1.3 - step)) / step**2
    assert srcad.grad(f)(1.3) == pytest.approx(slope, rel=1e-6)
    assert srcad.jvp(f, (1.3,), (1.0,)) == pytest.approx((f(1.3), slope), rel=1e-6)
    assert srcad.hessian(f)(1.3) == pytest.approx(curvature, rel=1e-3, abs=1e-6)


@pytest.mark.parametrize("name", ["shadowed", "computed"])
def test_a_method_call_that_is_not_the_class_function_is_refused(methods, name):
    # `self.part(x)` with `part` in the instance's __dict__ ran the class's `part` (a
    # wrong value and derivative).
    f = getattr(methods, name)
    f(1.3)  # the primal runs
    for derivative in (
        lambda: srcad.grad(f)(1.3),
        lambda: srcad.jvp(f, (1.3,), (1.0,)),
        lambda: srcad.hessian(f)(1.3),
    ):
        with pytest.raises(MissingRuleError, match="does not differentiate through"):
            derivative()


# -- operands whose class defines its own arithmetic -----------------------------------------

OPERANDS = """
import numpy as np


class Vec:
    def __init__(self, a):
        self.a = a

    def __mul__(self, other):
        return Vec(self.a * other.a * 3.0)

    def __add__(self, other):
        return Vec(self.a + other.a * 2.0)


class Tripled(np.ndarray):
    def __mul__(self, other):
        return np.asarray(self) * np.asarray(other) * 3.0


def product(v):
    return (v * v).a


def total(v):
    return (v + v).a


def squares(x):
    return np.sum(x * x)


def doubled(x):
    return x * 2.0 + x


class Box:
    def __init__(self, weights):
        self.weights = weights


BOX = Box(np.array([1.0, 2.0]).view(Tripled))


def weighted(x):
    return np.sum(BOX.weights * x)


def masked_sum(x):
    return np.sum(np.sin(x))


class Reversed(list):
    def __getitem__(self, i):
        return list.__getitem__(self, -1 - i)


class Short(list):
    def __len__(self):
        return 1


class Doubled(dict):
    def __getitem__(self, key):
        return dict.__getitem__(self, key) * 2.0


def first(xs):
    return xs[0] * xs[0] * 3.0 + xs[1]


def weighted_by_position(xs):
    total = 0.0
    for i in range(len(xs)):
        total = total + xs[i] * xs[i] * (i + 1.0)
    return total


def entries(d):
    return d["a"] * d["a"] + d["b"]


class Converted:
    def __init__(self, v):
        self.v = v

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.v) * 2.0


def sines(a):
    return np.sum(np.sin(a))


def weighted_sum(m, x):
    return np.sum(np.multiply(m, x))


class Duck:
    # an array-like whose NumPy functions compute on twice its values

    def __init__(self, v):
        self.v = np.asarray(v, float)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [i.v * 2.0 if isinstance(i, Duck) else i for i in inputs]
        return getattr(ufunc, method)(*inputs, **kwargs)


DUCK = Duck([1.0, 2.0])


def by_duck(x):
    return np.sum(np.multiply(DUCK, x))


COEFFICIENTS = [1.0] * 20


def by_global(x):
    return np.sum(np.multiply(COEFFICIENTS, x))


def make_by_cell(m):
    def by_cell(x):
        return np.sum(np.multiply(m, x))

    return by_cell
"""


@pytest.fixture
def operands(tmp_path: Path) -> types.ModuleType:
    return user_module(tmp_path, f"audit_operands_{abs(hash(str(tmp_path)))}", OPERANDS)


@pytest.mark.parametrize("name", ["product", "total"])
def test_an_object_with_its_own_operator_is_refused(operands, name):
    # `v + v` of a class whose `__add__` is `a + 2 b` had the gradient of `a + b` (2.0
    # where it is 3.0), and `jvp` of `v * v` with `__mul__` tripling was wrong too.
    f = getattr(operands, name)
    v = operands.Vec(1.3)
    f(v)
    with pytest.raises(MissingRuleError, match="its operand is a"):
        srcad.grad(f)(v)
    with pytest.raises(MissingRuleError, match="its operand is a"):
        srcad.jvp(f, (v,), (srcad.Tangent(operands.Vec, a=1.0),))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
@pytest.mark.parametrize("kind", ["matrix", "subclass"])
def test_an_array_subclass_with_its_own_operator_is_refused(operands, kind):
    # `x * x` of an `np.matrix` is a matrix product: its gradient was the elementwise one's.
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    x = np.matrix(a) if kind == "matrix" else a.view(operands.Tripled)
    operands.squares(x)
    with pytest.raises(SrcadError, match="may compute otherwise"):
        srcad.grad(operands.squares)(x)
    with pytest.raises(SrcadError, match="may compute otherwise"):
        srcad.jvp(operands.squares, (x,), (np.ones((2, 2)),))
    with pytest.raises(MissingRuleError, match="its operand is a"):  # an attribute's
        srcad.grad(operands.weighted)(np.ones(2))
    with pytest.raises(MissingRuleError, match="its operand is a"):
        srcad.jvp(operands.weighted, (np.ones(2),), (np.ones(2),))


class Plain(np.ndarray):
    """An array subclass that keeps NumPy's arithmetic: still differentiated."""


def test_numbers_and_arrays_that_keep_numpys_arithmetic_are_differentiated(operands):
    x = np.array([1.0, 2.0]).view(Plain)
    close(srcad.grad(operands.squares)(x), 2 * np.asarray(x))
    close(srcad.jvp(operands.squares, (x,), (np.ones(2),))[1], 6.0)
    for value in (np.float64(1.5), 1.5):
        all_modes(operands.doubled, value)


def test_an_argument_holding_a_masked_array_is_refused_by_every_derivative(operands):
    # `np.sum` of a masked array leaves out its masked elements; NumPy's rule did not: the
    # gradient was cos(x) at a masked element too, and `jvp` summed every element.
    f = operands.masked_sum
    x = np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False])
    v = np.ones(3)
    derivatives = {
        "grad": lambda: srcad.grad(f)(x),
        "value_and_grad": lambda: srcad.value_and_grad(f)(x),
        "jvp": lambda: srcad.jvp(f, (x,), (v,)),
        "vjp": lambda: srcad.vjp(f, x),
        "jacobian": lambda: srcad.jacobian(f)(x),
        "forward jacobian": lambda: srcad.jacobian(f, mode="forward")(x),
        "hessian": lambda: srcad.hessian(f)(x),
        "hessian_vector_product": lambda: srcad.hessian_vector_product(f)(x, v),
        "in a list": lambda: srcad.grad(lambda xs: f(xs[0]))([x]),
        # (a masked tangent made `jvp` skip its masked direction)
        "as a tangent": lambda: srcad.jvp(f, (x.data,), (x,)),
        "as a vector": lambda: srcad.hessian_vector_product(f)(x.data, x),
        "as a cotangent": lambda: srcad.vjp(np.sin, x.data)[1](x),
    }
    for name, derivative in derivatives.items():
        for _ in range(2):  # the second call, after the first compiled
            with pytest.raises(SrcadError, match=r"holds a numpy\.ma\.MaskedArray, which"):
                derivative()
            assert name


def test_an_array_subclass_of_its_own_name_only_is_differentiated_in_every_mode(operands):
    # (its gradient used to be the argument itself: taken apart by its empty __dict__)
    a = np.array([0.5, 1.0, 2.0])
    x = a.view(Plain)
    want = np.cos(a)
    close(srcad.grad(operands.masked_sum)(x), want)
    close(srcad.jvp(operands.masked_sum, (x,), (np.ones(3),))[1], want.sum())
    close(srcad.jacobian(operands.masked_sum, mode="forward")(x), want)
    close(srcad.hessian(operands.masked_sum)(x), np.diag(-np.sin(a)))
    close(srcad.grad(lambda xs: operands.masked_sum(xs[0]))([x])[0], want)


@pytest.mark.parametrize(
    ("name", "cls", "f"),
    [
        ("reversed", "Reversed", "first"),
        ("short", "Short", "weighted_by_position"),
        ("doubled", "Doubled", "entries"),
    ],
)
def test_an_argument_holding_a_container_that_reads_its_own_way_is_refused(operands, name, cls, f):
    # A list whose `__getitem__` reverses had its item's cotangent at the other position;
    # one whose `__len__` is 1 a gradient of one element; a dict doubling what it gives a
    # gradient half the true one.
    f = getattr(operands, f)
    pairs = [("a", 1.3), ("b", 0.7)]
    x = getattr(operands, cls)(pairs if name == "doubled" else [1.3, 0.7])
    f(x)
    for derivative in (
        lambda: srcad.grad(f)(x),
        lambda: srcad.jvp(
            f, (x,), (srcad.tree_map(lambda _: 1.0, dict(x) if name == "doubled" else list(x)),)
        ),
        lambda: srcad.hessian(f)(x),
        lambda: srcad.grad(lambda pair: f(pair[0]))((x, 1.0)),
    ):
        with pytest.raises(SrcadError, match="may compute otherwise"):
            derivative()


def test_a_derivative_through_an_objects_conversion_to_an_array_is_refused(operands):
    # (the gradient of an object NumPy converted by its `__array__` was an array, which
    # srcad then failed to read as the object's parts: an AttributeError)
    a = operands.Converted(np.array([1.0, 2.0]))
    operands.sines(a)
    with pytest.raises(SrcadError, match="a conversion"):
        srcad.grad(operands.sines)(a)
    with pytest.raises(SrcadError, match="a conversion"):
        srcad.vjp(operands.sines, a)[1](1.0)


def test_a_masked_array_with_a_zero_tangent_is_refused_by_jvp_after_a_branch(operands):
    # `jvp` of `np.sum(np.multiply(m, x))` in `x`, with a masked `m` and a zero tangent
    # for it, gave 6.0 (every element) where the function's slope is 4.0: the forward
    # entry's branch for an argument of no kind took any value.
    f = operands.weighted_sum
    x, dx, zero = np.ones(3), np.ones(3), srcad.ZeroTangent()
    m = np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False])
    for first in ([1.0, 2.0, 3.0], np.array([1.0, 2.0, 3.0])):  # a branch of no kind, of f[:]
        srcad.clear_cache()
        close(srcad.jvp(f, (first, x), (zero, dx))[1], 6.0)
        for _ in range(2):
            with pytest.raises(SrcadError, match="MaskedArray"):
                srcad.jvp(f, (m, x), (zero, dx))
        close(srcad.jvp(f, (first, x), (zero, dx))[1], 6.0)


def test_a_masked_array_not_differentiated_is_refused_by_grad_after_a_branch(operands):
    # grad's entry had made a branch for a list too long to have a kind; a masked array
    # (no kind either) took it, and its masked element had a cotangent of 1.0, not 0.0.
    g = srcad.grad(operands.weighted_sum, wrt=1)
    x = np.ones(20)
    close(g([2.0] * 20, x), np.full(20, 2.0))
    m = np.ma.array(np.ones(20), mask=[True] + [False] * 19)
    for _ in range(2):
        with pytest.raises(SrcadError, match="MaskedArray"):
            g(m, x)
    close(g([2.0] * 20, x), np.full(20, 2.0))


def test_a_masked_array_read_from_a_global_or_a_cell_is_refused_after_a_rebinding(operands):
    # A global read as it is (a list too long to have a kind) rebound to a masked array
    # kept the gradient compiled for the list: 1.0 at the masked element, for 0.0.
    x = np.ones(20)
    masked = np.ma.array(np.ones(20), mask=[True] + [False] * 19)
    f = operands.by_global
    for value in ([1.0] * 20, masked, [2.0] * 20, np.full(20, 2.0), masked):
        operands.COEFFICIENTS = value
        if isinstance(value, np.ma.MaskedArray):
            with pytest.raises(SrcadError, match="COEFFICIENTS holds a numpy"):
                srcad.grad(f)(x)
            with pytest.raises(SrcadError, match="COEFFICIENTS holds a numpy"):
                srcad.jvp(f, (x,), (np.ones(20),))
        else:
            close(srcad.grad(f)(x), np.asarray(value))
            close(srcad.jvp(f, (x,), (np.ones(20),))[1], np.sum(value))
    with pytest.raises(SrcadError, match="m holds a numpy"):
        srcad.grad(operands.make_by_cell(masked))(x)


def test_an_argument_numpy_hands_itself_to_is_refused(operands):
    # (`np.sin` of an object with `__array_ufunc__` runs the object's code, not NumPy's sine)
    d = operands.Duck([1.0, 2.0])
    operands.sines(d)
    with pytest.raises(SrcadError, match="Duck, which may compute otherwise"):
        srcad.grad(operands.sines)(d)
    with pytest.raises(SrcadError, match="Duck, which may compute otherwise"):
        srcad.jvp(operands.weighted_sum, (d, np.ones(2)), (srcad.ZeroTangent(), np.ones(2)))
    with pytest.raises(SrcadError, match="DUCK holds a"):
        srcad.grad(operands.by_duck)(np.ones(2))

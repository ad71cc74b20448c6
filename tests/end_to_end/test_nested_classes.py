"""Issue 20: a class defined inside the differentiated function
(`passes/transforms/nested_classes.py`): one whose body is plain methods and constant
class attributes is made once and differentiated as a module's class is, in both modes
and to second order; the others are refused where they are defined (E101), with why."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcad
from tests.conftest import difference


def squared_field(x):
    class P:
        def __init__(self, a):
            self.a = a

    return np.sum(P(x).a ** 2)


def spring_energy(x):
    class Spring:
        """Two ends and a stiffness."""

        STIFFNESS = 2.0
        OFFSET = -0.5

        def __init__(self, a, b):
            self.a = a
            self.b = b

        def stretch(self):
            return self.a - self.b + self.OFFSET

        def energy(self):
            return self.STIFFNESS * np.sum(self.stretch() ** 2)

    spring = Spring(x, np.sin(x))
    return spring.energy() + np.sum(spring.a * spring.b)


def instances_in_a_loop(x):
    class Term:
        def __init__(self, weight, value):
            self.weight = weight
            self.value = value

        def contribution(self):
            return self.weight * np.exp(self.value)

    total = 0.0
    for k in range(3):
        total = total + Term(k + 1.0, x * (k + 0.5)).contribution()
    return np.sum(total)


def used_by_a_nested_function(x):
    class Pair:
        def __init__(self, first, second):
            self.first = first
            self.second = second

    def product(pair):
        return pair.first * pair.second

    return np.sum(product(Pair(x, np.tanh(x))))


def two_classes(x):
    class Scale:
        def __init__(self, s):
            self.s = s

    class Shift:
        def __init__(self, t):
            self.t = t

    return np.sum((Scale(x).s * x + Shift(np.cos(x)).t) ** 2)


FUNCTIONS = [squared_field, spring_energy, instances_in_a_loop, used_by_a_nested_function,
             two_classes]  # fmt: skip
X = np.array([0.3, 1.2, -0.7])


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradient_and_tangent_match_finite_differences(f: Any) -> None:
    expected = difference(f, (X,))
    np.testing.assert_allclose(srcad.grad(f)(X), expected, rtol=1e-6, atol=1e-8)
    v = np.array([0.4, -1.0, 0.5])
    np.testing.assert_allclose(srcad.jvp(f, (X,), (v,))[1], expected @ v, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_hessian_matches_differences_of_the_gradient(f: Any) -> None:
    expected = difference(srcad.grad(f), (X,))
    np.testing.assert_allclose(srcad.hessian(f)(X), expected, rtol=1e-5, atol=1e-7)


def test_the_primal_is_the_functions_own() -> None:
    value, _ = srcad.value_and_grad(spring_energy)(X)
    assert value == pytest.approx(spring_energy(X))


# --- refused --------------------------------------------------------------------------------


def reads_a_local(x):
    y = 2.0

    class Q:
        def __init__(self, a):
            self.a = a * y

    return np.sum(Q(x).a)


def computed_attribute(x):
    class R:
        SIZE = len(x)

        def __init__(self, a):
            self.a = a

    return np.sum(R(x).a)


def with_a_base(x):
    class S(dict):
        pass

    return np.sum(x)


def inside_a_branch(x):
    if x[0] > 0.0:

        class T:
            def __init__(self, a):
                self.a = a

        return np.sum(T(x).a)
    return np.sum(x)


def builds_itself(x):
    class U:
        def __init__(self, a):
            self.a = a

        def doubled(self):
            return U(self.a * 2.0)

    return np.sum(U(x).doubled().a)


def decorated_method(x):
    class V:
        def __init__(self, a):
            self.a = a

        @property
        def twice(self):
            return 2.0 * self.a

    return np.sum(V(x).twice)


SCALE = 2.0


def default_from_a_global(x):
    class W:
        def __init__(self, a, k=SCALE):
            self.a = a * k

    return np.sum(W(x).a)


@pytest.mark.parametrize(
    ("f", "line", "reason"),
    [
        (reads_a_local, "class Q:", "its method `__init__` reads the function's own `y`"),
        (computed_attribute, "class R:", "a class attribute that is not a constant"),
        (with_a_base, "class S(dict):", "it has base classes or a metaclass"),
        (inside_a_branch, "class T:", "it is defined inside a block or a nested function"),
        (builds_itself, "class U:", "its method `doubled` reads the function's own `U`"),
        (decorated_method, "class V:", "its method `twice` is decorated"),
        (
            default_from_a_global,
            "class W:",
            "a default value of its method `__init__` is not a constant",
        ),
    ],
    ids=lambda value: getattr(value, "__name__", None),
)
def test_a_class_that_cannot_be_made_once_is_refused_where_it_is_defined(
    f: Any, line: str, reason: str
) -> None:
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(f)(X)
    found = [d for d in caught.value.diagnostics if d.code == "E101"]
    assert found, str(caught.value)
    assert found[0].file == __file__
    assert found[0].source_line.strip() == line
    assert reason in found[0].message

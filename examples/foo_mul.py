"""The pedagogical example from ChainRules: a struct `Foo`, a function `foo_mul`, and its
rule returning a structural tangent for `foo` and a thunk for `b`, checked against finite
differences."""

from dataclasses import dataclass

import numpy as np

import srcad
from srcad.testing import check_rrule


@dataclass
class Foo:
    A: np.ndarray
    c: float


def foo_mul(foo, b):
    return foo.A @ b


@srcad.rrule.register(foo_mul)
def foo_mul_rrule(foo, b):
    y = foo_mul(foo, b)
    project_b = srcad.ProjectTo(b)

    def foo_mul_pullback(y_bar):
        f_bar = srcad.NoTangent()
        foo_bar = srcad.Tangent(Foo, A=y_bar @ b.T, c=srcad.ZeroTangent())
        b_bar = srcad.thunk(lambda: project_b(foo.A.T @ y_bar))
        return f_bar, foo_bar, b_bar

    return y, foo_mul_pullback


def loss(foo, b):
    return np.sum(foo_mul(foo, b) ** 2) * foo.c


def main():
    rng = np.random.default_rng(0)
    foo, b = Foo(rng.random((3, 3)), 3.0), rng.random((3, 3))
    check_rrule(foo_mul, foo, b)
    print("check_rrule(foo_mul, Foo(...), b): passed")
    print(srcad.source(loss))
    foo_bar, b_bar = srcad.grad(loss, wrt=(0, 1))(foo, b)
    print("d loss / d foo:", foo_bar)
    print("d loss / d b:", srcad.unthunk(b_bar))


if __name__ == "__main__":
    main()

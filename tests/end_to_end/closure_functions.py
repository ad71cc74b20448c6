"""Functions with nested functions, lambdas, free variables, `*args` and calls across modules."""

import numpy as np

SCALE = 1.5


def nested_def(x, w):
    def g(t):
        return t * w + np.sin(t)

    return g(x) * g(w)


def assigned_lambda(x, c):
    f = lambda t: t * t * c  # noqa: E731 (the construct under test)
    return f(x) + f(2.0 * x)


def nested_in_loop(xs, w):
    def step(s, x):
        return s * w + x

    s = 0.0
    for x in xs:
        s = step(s, x)
    return s


def rebinding_after_def(x, c):
    def g(t):
        return t * c

    c = c * 3.0
    return g(x)


def nested_without_capture(x):
    def cube(t):
        return t * t * t

    return cube(x) + cube(2.0)


def nested_with_docstring(x, w):
    def g(t):
        """`t` scaled by `w`.

        The docstring spans lines: the emitted code keeps it, indented.
        """
        return w * t * t

    return g(x) + x


def reads_global(x):
    return SCALE * x * x


def total(*xs):
    s = 0.0
    for x in xs:
        s = s + x * x
    return s


def star_caller(a, b):
    return total(a, b, a * b) + total(b)


def make_scaled(factor):
    def scaled(x):
        return factor * np.tanh(x)

    return scaled


scaled_by_three = make_scaled(3.0)


def calls_a_closure(x):
    return scaled_by_three(x) * x


def keyword_only(x, *, power=2):
    return x**power


def calls_keyword_only(x):
    return keyword_only(x, power=3) + keyword_only(x)


class _Pair:
    """A callable object that is unhashable (it defines `__eq__`), giving a tuple."""

    def __init__(self, scale):
        self.scale = scale

    def __eq__(self, other):
        return isinstance(other, _Pair) and other.scale == self.scale

    def __call__(self, x):
        return (x * self.scale, x * x)


_pair = _Pair(2.0)


def element_of_unhashable_call(x):
    return _pair(x)[1] + _pair(x)[0]

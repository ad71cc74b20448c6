"""Functions calling bound methods and classmethods held in globals."""

from __future__ import annotations


class Scaled:
    def __init__(self, k: float) -> None:
        self.k = k

    def square(self, x):
        return self.k * x * x

    @classmethod
    def cube(cls, x):
        return x**3


SCALED = Scaled(3.0)
SQUARE = SCALED.square  # a bound method in a global
CUBE = Scaled.cube  # a classmethod bound to its class


def through_bound_method(x):
    return SQUARE(x)


def through_bound_method_twice(x, y):
    return SQUARE(x) * y


def through_classmethod_name(x):
    return CUBE(x)


def through_classmethod_attribute(x):
    return Scaled.cube(x)

"""Functions that build instances of user classes with their own `__init__`, call their
methods and read their properties, on instances built inside and passed in; and callable
objects. Read by `test_classes.py`."""

import numpy as np


class Point:
    def __init__(self, a, b=1.0):
        self.a = a
        self.b = b

    def norm(self):
        return np.sqrt(self.a * self.a + self.b * self.b)

    def scaled_norm(self, k):
        return k * self.norm()

    @property
    def total(self):
        return self.a + self.b


class Polar:
    """An `__init__` that computes its fields, reads the ones it stored, and adds to one."""

    def __init__(self, x, y, turns=1):
        self.r = np.sqrt(x * x + y * y)
        self.theta = np.arctan2(y, x)
        self.area = self.r * self.r
        for _ in range(turns):
            self.area += 0.5 * self.r
        if x > 0:
            self.theta = self.theta * 2.0
        else:
            return

    def value(self):
        return self.r * np.cos(self.theta) + self.area


class Point3(Point):
    """Inherits `__init__` and `norm` from `Point`."""

    def lifted(self):
        return self.norm() + self.a * self.b


class Weighted(Point):
    """An `__init__` of its own, and the base class's methods."""

    def __init__(self, a, b, w):
        self.a = a * w
        self.b = b
        self.w = w

    def norm(self):  # overrides Point.norm: the MRO picks this one
        return self.w * (self.a + self.b)


class Segment:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def length(self):
        da = self.end.a - self.start.a
        db = self.end.b - self.start.b
        return np.sqrt(da * da + db * db)


class Layer:
    """A callable object built inside, holding arrays."""

    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __call__(self, x):
        return np.tanh(self.w * x + self.b)


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, x):
        return np.sum(self.scale * x * x)

    def __call__(self, x):
        return np.sum(np.sin(x)) * self.scale


MODEL = Model(3.0)


def build_and_read(x, y):
    p = Point(x, 2.0 * y)
    return p.a * p.b + p.a


def build_by_keyword(x, y):
    p = Point(b=np.sin(y), a=x)
    q = Point(y)  # the default
    return p.a * p.b + q.a * q.b


def build_and_call_method(x, y):
    p = Point(x, 2.0 * y)
    return p.norm() + p.scaled_norm(y)


def build_and_read_property(x, y):
    p = Point(x, 2.0 * y)
    return p.total * x


def computed_fields(x, y):
    return Polar(x, y, turns=2).value()


def computed_fields_other_branch(x, y):
    return Polar(-x, y).value()


def inherited(x, y):
    return Point3(x, y).lifted()


def overridden(x, y):
    p = Weighted(x, y, y * y)
    return p.norm() + p.scaled_norm(2.0)


def nested_objects(x, y):
    s = Segment(Point(x, y), Point(y * y, x + 1.0))
    return s.length()


def make_point(x, y):
    return Point(x * y, y)


def built_by_a_helper(x, y):
    p = make_point(x, y)
    return p.norm()


def built_in_a_loop(x, y):
    points = []
    for i in range(3):
        points.append(Point(x * i, y + i))
    total = 0.0
    for p in points:
        total = total + p.norm()
    return total


def callable_built_inside(x, y):
    layer = Layer(y, 0.5 * y)
    return np.sum(layer(x))


def callable_global(x, y):
    return MODEL(x) * y


def method_of_a_parameter(p, x):
    return p.norm() * x + p.total


# -- refused ---------------------------------------------------------------------------------

KEPT = []


def keep(value):
    return value


class Escapes:
    def __init__(self, a):
        self.a = a
        alias = keep(self)  # holds the instance before its last write
        self.b = alias.a * 2.0


class ReadsUnset:
    scale = 2.0

    def __init__(self, a):
        self.a = a * self.scale  # a class attribute, read before the instance is complete
        self.b = a


class WithSetter:
    def __init__(self, a):
        self.value = a

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, v):
        self._value = v * 2.0


class Slotted:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


class CallsSuper(Point):
    def __init__(self, a):
        super().__init__(a, a)


def escapes(x):
    return Escapes(x).b


def reads_unset(x):
    return ReadsUnset(x).a


def with_setter(x):
    return WithSetter(x).value


def slotted(x):
    return Slotted(x).a


def calls_super(x):
    return CallsSuper(x).norm()


def changes_after_building(x):
    p = Point(x, x)
    p.a = 2.0 * x
    return p.norm()


def changes_a_parameter(p, x):
    p.a = x
    return p.norm()

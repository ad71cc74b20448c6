"""Dataclasses whose `__post_init__` computes or checks fields (`srcad/dataclass_init.py`:
the generated `__init__` written as its field stores and the `__post_init__`'s body):
derived fields, validation, `InitVar`s, `default_factory`, `init=False` defaults, frozen
classes setting fields with `object.__setattr__`, an inherited `__post_init__`, in both
modes and at second order against central differences; what would not be what Python
runs refused, located at the `__post_init__`."""

import dataclasses

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

SOURCE = """
import dataclasses
from dataclasses import InitVar, field

import numpy as np


def softplus(v):
    return np.log1p(np.exp(v))


@dataclasses.dataclass
class Box:
    w: float
    h: float
    scale: float = 2.0
    area: float = field(init=False)

    def __post_init__(self):
        if self.w < 0:
            raise ValueError("a box of negative width")
        self.area = self.w * self.h * self.scale


@dataclasses.dataclass(frozen=True)
class Unit:
    v: np.ndarray
    tags: list = field(default_factory=list)
    norm: float = field(init=False, default=0.0)

    def __post_init__(self):
        norm = np.sqrt(np.sum(self.v * self.v))
        object.__setattr__(self, "norm", norm)
        object.__setattr__(self, "v", self.v / norm)


@dataclasses.dataclass
class Shifted:
    a: float
    shift: InitVar[float] = 0.5
    b: float = field(init=False)

    def __post_init__(self, shift):
        self.b = softplus(self.a + shift)
        for i in range(2):
            self.b = self.b * self.a + i


@dataclasses.dataclass
class Base:
    x: float

    def __post_init__(self):
        self.y = np.tanh(self.x) * 3.0


@dataclasses.dataclass
class Derived(Base):
    z: float = 1.0


def derived_area(x):
    b = Box(x[0], np.sin(x[1]))
    return b.area * b.w + Box(x[1], x[2], scale=x[0]).area


def frozen_unit(x):
    u = Unit(x * 2.0)
    return np.sum(u.v * np.arange(1.0, 1.0 + x.size)) * u.norm + len(u.tags)


def init_var(x):
    return Shifted(x[0], x[1]).b + Shifted(x[2]).b


def inherited(x):
    d = Derived(x[0] * x[1], z=x[2])
    return d.y * d.z + d.x


def in_a_loop(x):
    total = 0.0
    for i in range(len(x)):
        total = total + Box(x[i], x[i] * x[i]).area
    return total
"""

TAKEN = ["derived_area", "frozen_unit", "init_var", "inherited", "in_a_loop"]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("post_init"), "post_init_cases", SOURCE)


@pytest.mark.parametrize("name", TAKEN)
@pytest.mark.parametrize("x", [np.array([0.3, 0.7, 1.1]), np.array([1.4, 0.2, 0.9])])
def test_differentiated_through_its_post_init(module, name, x):
    f = getattr(module, name)
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    direction = np.array([1.0, -0.5, 0.25])
    y, y_dot = srcad.jvp(f, (x,), (direction,))
    close(y, f(x))
    close(y_dot, want @ direction)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


def test_a_check_in_post_init_raises_as_it_does(module):
    x = np.array([-0.5, 0.7, 1.1])
    with pytest.raises(ValueError, match="negative width"):
        module.derived_area(x)
    for derivative in (srcad.grad, lambda f: lambda x: srcad.jvp(f, (x,), (x,))):
        with pytest.raises(ValueError, match="negative width"):
            derivative(module.derived_area)(x)


def test_the_instance_built_is_the_one_python_builds(module):
    x = np.array([0.3, 0.7, 1.1])
    value, _ = srcad.vjp(module.Unit, x)
    want = module.Unit(x)
    assert type(value) is module.Unit and vars(value).keys() == vars(want).keys()
    assert value.tags == [] and value.tags is not want.tags
    close(value.v, want.v)
    close(value.norm, want.norm)
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.norm = 1.0


HEAD = "import dataclasses\nimport numpy as np\n"
CLASS = "@dataclasses.dataclass{options}\nclass C:\n    a: float\n{more}\n"
CALL = "\ndef f(x):\n    return C(x * 2.0).a\n"

REFUSED = {
    "super": (
        "    def __post_init__(self):\n        super().__post_init__()",
        "",
        "calls a value known only when the code runs",  # (the callee's own check)
    ),
    "frozen_assignment": (
        "    def __post_init__(self):\n        self.a = self.a * 2.0",
        "(frozen=True)",
        "raises `FrozenInstanceError`",
    ),
    "a_parameter_that_is_no_init_var": (
        "    def __post_init__(self, k=2.0):\n        self.b = self.a * k",
        "",
        "other parameters than the `InitVar`s",
    ),
    "a_global_named_as_a_field": (
        "    b: float = 1.0\n    def __post_init__(self):\n        self.c = self.a * b",
        "",
        "a field is named, `b`",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_post_init_not_written_as_python_runs_it_is_refused(tmp_path, name):
    more, options, message = REFUSED[name]
    text = HEAD + "b = 3.0\n" + CLASS.format(options=options, more=more) + CALL
    module = user_module(tmp_path, f"post_init_refused_{name}", text)
    line = text.splitlines().index(next(s for s in text.splitlines() if "__post_init__" in s))
    for derivative in (srcad.grad(module.f), lambda x: srcad.jvp(module.f, (x,), (1.0,))):
        with pytest.raises(srcad.SrcadError) as raised:
            derivative(1.5)
        found = [d for d in raised.value.diagnostics if d.line > line and message in d.message]
        assert found, raised.value

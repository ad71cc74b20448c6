"""A staticmethod or classmethod called through an instance (`self.helper(x)`,
`model.scaled(x)`): Python calls its function without the instance (a classmethod with the
instance's class first), so srcad differentiates that call, in both modes and to second
order, against central differences. Beyond second order, and where the instance's own
attribute hides the class's, the call is refused where it runs."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from tests.conftest import close, difference, user_module

MODULE = """
import numpy as np


class Base:
    scale = 2.0

    @classmethod
    def scaled(cls, x):
        return cls.scale * np.sin(x)


class Model(Base):
    scale = 3.0

    def __init__(self, w):
        self.w = w

    @staticmethod
    def activation(z):
        return np.tanh(z) + 0.1 * z * z

    def predict(self, x):
        return self.activation(self.w * x) + self.scaled(x)


def through_instance(w, x):
    return np.sum(Model(w).predict(x))


def static_of_parameter(model, x):
    return np.sum(model.activation(x) * model.w)


def static_in_loop(w, x):
    model = Model(w)
    total = 0.0
    for v in x:
        total = total + model.activation(v * w)
    return total


def hidden(model, x):
    return model.activation(x)
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("static"), "static_method_module", MODULE)


X = np.array([0.3, -1.1, 0.8])


@pytest.mark.parametrize("name", ["through_instance", "static_in_loop"])
def test_both_modes_and_second_order(module, name):
    f = getattr(module, name)
    args = (0.7, X)
    for position in (0, 1):
        want = difference(f, args, position)
        close(srcad.grad(f, wrt=position)(*args), want)
        tangents = tuple(
            np.ones_like(a) if p == position else np.zeros_like(a) for p, a in enumerate(args)
        )
        close(srcad.jvp(f, args, tangents)[1], np.sum(want))
    h = srcad.hessian(f, wrt=1)(*args)
    close(h, difference(srcad.grad(f, wrt=1), args, 1))


def test_the_instance_itself_an_argument(module):
    model = module.Model(1.5)
    f = module.static_of_parameter
    want = difference(f, (model, X), 1)
    close(srcad.grad(f, wrt=1)(model, X), want)
    close(srcad.jvp(f, (model, X), (srcad.ZeroTangent(), np.ones(3)))[1], np.sum(want))
    gradient = srcad.grad(f, wrt=0)(model, X)
    close(gradient.w, np.sum(model.activation(X)))


def test_an_instance_attribute_hiding_the_method_is_refused(module):
    model = module.Model(1.5)
    model.activation = np.cos
    with pytest.raises(SrcadError, match="attribute of the instance"):
        srcad.grad(module.hidden, wrt=1)(model, X[0])

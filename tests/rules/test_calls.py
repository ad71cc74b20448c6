"""Calling values: functions passed in, callable objects, methods of arrays and objects,
struct fields, `map`, rules for constructors and instances, opt-outs, configs."""

import dataclasses
import inspect
from typing import NamedTuple

import numpy as np
import pytest

import srcad
from srcad.testing import check_rrule

rng = np.random.default_rng(5)


def apply(f, x):
    return f(x) * 2.0


def square(t):
    return t * t


def uses_apply(x):
    return apply(square, x) + apply(np.sin, x)


class Affine:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __call__(self, x):
        return np.tanh(self.w @ x + self.b)

    def energy(self, x):
        return np.sum(self(x) ** 2)


def calls_an_object(model, x):
    return np.sum(model(x)) + model.energy(x)


def array_methods(x):
    return (
        x.sum(axis=0).mean()
        + x.T.dot(x).sum()
        + x.reshape(-1).mean()
        + x.astype(np.float64).sum()
        + x.copy().prod()
        + x.ravel().var()
        + np.sum(x.transpose(1, 0) ** 2)
        + x.max()
        + x.min(axis=0).sum()
        + x.std()
        + x.cumsum().sum()
        + x[None].squeeze().clip(0.6, 1.4).sum()
    )


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


class Point(NamedTuple):
    x: float
    y: float


def struct_loss(p, x):
    return np.sum((x * p.w + p.b) ** 2)


def point_norm(pt):
    return (pt.x**2 + pt.y**2) ** 0.5


def indexed_point(pt):
    return pt[0] * pt.y


def complex_parts(z):
    return z.real * 2.0 + z.imag**2


def uses_map(xs, ys):
    return sum(map(square, xs)) + sum(list(map(np.multiply, xs, ys)))


CASES = [
    ("function_passed_in", uses_apply, (0.7,)),
    ("array_methods", array_methods, (rng.uniform(0.5, 1.5, (3, 3)),)),
    ("dataclass_fields", struct_loss, (Params(rng.standard_normal(3), 0.5), rng.normal(size=3))),
    ("namedtuple_fields", point_norm, (Point(0.3, 0.4),)),
    ("namedtuple_index_and_field", indexed_point, (Point(0.3, 0.4),)),
    ("real_and_imag", complex_parts, (np.array([1.0 + 2.0j, -0.5 + 0.3j]),)),
    ("map_over_user_function", uses_map, (np.array([0.3, 0.5, 0.9]), np.array([1.0, 2.0, 3.0]))),
    ("map_over_lists", uses_map, ([0.3, 0.5], [1.0, 2.0])),
]  # fmt: skip


@pytest.mark.parametrize(("function", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_matches_finite_differences(function, args):
    check_rrule(function, *args)


def test_callable_object_gets_a_structural_tangent():
    model, x = Affine(rng.standard_normal((2, 3)), rng.standard_normal(2)), rng.standard_normal(3)
    _, pullback = srcad.rrule(calls_an_object, model, x)
    _, model_bar, x_bar = pullback(1.0)
    step = 1e-6
    for name in ("w", "b"):
        value = getattr(model, name)
        flat_bar = np.asarray(model_bar[name]).reshape(-1)
        for index in range(value.size):
            bumped = value.copy()
            bumped.reshape(-1)[index] += step
            up = calls_an_object(Affine(**{**vars(model), name: bumped}), x)
            bumped.reshape(-1)[index] -= 2 * step
            down = calls_an_object(Affine(**{**vars(model), name: bumped}), x)
            assert flat_bar[index] == pytest.approx((up - down) / (2 * step), rel=1e-5, abs=1e-8)
    assert x_bar.shape == x.shape


class Scaled:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, x):
        return self.factor * x


def make_scaled(factor):
    return Scaled(factor)


def uses_scaled(factor, x):
    return make_scaled(factor)(x) + Scaled(factor)(x)


def test_rules_for_a_constructor_and_for_instances_are_distinct():
    @srcad.rrule.register(Scaled)
    def scaled_rrule(factor):
        def scaled_pullback(y_bar):
            return srcad.NoTangent(), y_bar.factor

        return Scaled(factor), scaled_pullback

    @srcad.rrule.register(Scaled.__call__)
    def scaled_call_rrule(instance, x):
        def scaled_call_pullback(y_bar):
            # A rule for calling an instance: the instance's cotangent comes first.
            return srcad.Tangent(Scaled, factor=y_bar * x), y_bar * instance.factor

        return instance(x), scaled_call_pullback

    check_rrule(uses_scaled, 1.5, 0.7)


def test_opt_out_sends_matching_calls_through_the_source():
    def softplus(x):
        return np.log1p(np.exp(x))

    def uses_softplus(x):
        return softplus(x) * 3.0

    @srcad.rrule.register(softplus)
    def wrong_softplus_rrule(x):  # deliberately wrong, to see which path ran
        def softplus_pullback(y_bar):
            return srcad.NoTangent(), 0.0 * y_bar

        return softplus(x), softplus_pullback

    assert srcad.grad(uses_softplus)(0.3) == 0.0
    srcad.opt_out(softplus, lambda x: x > 0)
    expected = 3.0 / (1.0 + np.exp(-0.3))
    assert srcad.grad(uses_softplus)(0.3) == pytest.approx(expected)
    assert srcad.grad(uses_softplus)(-0.3) == 0.0  # the predicate is false: the rule runs


def test_not_implemented_cotangent_raises_with_the_rules_location():
    def half_known(x, y):
        return x * y

    @srcad.rrule.register(half_known)
    def half_known_rrule(x, y):
        def half_known_pullback(z_bar):
            return srcad.NoTangent(), z_bar * y, srcad.not_implemented("the y part is unknown")

        return x * y, half_known_pullback

    lines, start = inspect.getsourcelines(half_known_rrule)
    line = start + next(i for i, text in enumerate(lines) if "not_implemented(" in text)
    assert srcad.grad(half_known, wrt=0)(2.0, 3.0) == 3.0  # the gap is never used
    with pytest.raises(srcad.SrcadError, match=rf"test_calls.py:{line}: .*the y part is unknown"):
        srcad.grad(half_known, wrt=1)(2.0, 3.0)
    _, pullback = srcad.rrule(half_known, 2.0, 3.0)
    gap = pullback(1.0)[2]
    assert isinstance(gap + srcad.ZeroTangent(), srcad.NotImplementedTangent)
    with pytest.raises(srcad.SrcadError, match="not implemented"):
        gap * 2.0

    def used_twice(x, y):
        return half_known(x, y) + x * y * y

    # `y`'s cotangents add to the gap: unread where `y` is not differentiated, an error
    # where it is, in either order of the terms.
    assert srcad.grad(used_twice, wrt=0)(2.0, 3.0) == pytest.approx(3.0 + 9.0)
    with pytest.raises(srcad.SrcadError, match="the y part is unknown"):
        srcad.grad(used_twice, wrt=1)(2.0, 3.0)
    with pytest.raises(srcad.SrcadError, match="the y part is unknown"):
        srcad.grad(lambda x, y: x * y * y + half_known(x, y), wrt=1)(2.0, 3.0)


def test_config_reports_its_capabilities():
    assert srcad.CONFIG.has_reverse_mode
    y, pullback = srcad.CONFIG.rrule_via_ad(square, 3.0)
    assert (y, pullback(1.0)[1]) == (9.0, 6.0)

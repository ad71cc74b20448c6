"""Tests for srcad/registry.py: rule sets, their composition, user rules, scalar rules."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from srcad.registry import REGISTRY, Origin, Registry, RuleSet, primal_name, scalar_rrule
from srcad.tangents import NoTangent


def identity_rrule(x: Any) -> tuple[Any, Any]:
    def identity_pullback(y_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), y_bar

    return x, identity_pullback


def first_primal(x: float) -> float:
    return x


def second_primal(x: float) -> float:
    return x


# --- RuleSet -----------------------------------------------------------------------------


DUPLICATES = [
    pytest.param(
        lambda rules: (
            rules.rrule(first_primal)(identity_rrule),
            rules.rrule(first_primal)(identity_rrule),
        ),
        "a rule for first_primal twice",
        id="rule-then-rule",
    ),
    pytest.param(
        lambda rules: rules.rrule(first_primal, first_primal)(identity_rrule),
        "a rule for first_primal twice",
        id="one-decorator-twice",
    ),
    pytest.param(
        lambda rules: (
            rules.non_differentiable(first_primal),
            rules.rrule(first_primal)(identity_rrule),
        ),
        "a rule for first_primal twice",
        id="non-differentiable-then-rule",
    ),
    pytest.param(
        lambda rules: (
            rules.rrule(first_primal)(identity_rrule),
            rules.non_differentiable(first_primal),
        ),
        "first_primal as non-differentiable twice",
        id="rule-then-non-differentiable",
    ),
    pytest.param(
        lambda rules: (
            rules.attribute("T")(identity_rrule),
            rules.attribute("T")(identity_rrule),
        ),
        "attribute .T twice",
        id="attribute-twice",
    ),
]


@pytest.mark.parametrize(("define", "message"), DUPLICATES)
def test_rule_set_rejects_a_primal_defined_twice(define: Any, message: str) -> None:
    rules = RuleSet("topic")
    with pytest.raises(ValueError, match=f"rule set 'topic' defines {message}"):
        define(rules)


def test_rule_set_registers_one_rule_for_several_primals() -> None:
    rules = RuleSet("topic")
    rules.rrule(first_primal, second_primal)(identity_rrule)
    assert rules.rrules[first_primal].rrule is identity_rrule
    assert rules.rrules[second_primal].rrule is identity_rrule
    assert rules.rrules[second_primal].rule_set == "topic"


# --- Registry ----------------------------------------------------------------------------


def _set_with_rule(name: str) -> RuleSet:
    rules = RuleSet(name)
    rules.rrule(first_primal)(identity_rrule)
    return rules


def _set_with_non_differentiable(name: str) -> RuleSet:
    rules = RuleSet(name)
    rules.non_differentiable(first_primal)
    return rules


def _set_with_attribute(name: str) -> RuleSet:
    rules = RuleSet(name)
    rules.attribute("T")(identity_rrule)
    return rules


CONFLICTS = [
    pytest.param(
        _set_with_rule,
        _set_with_rule,
        "first_primal has rules in both rules.alpha and rules.beta",
        id="rule-rule",
    ),
    pytest.param(
        _set_with_non_differentiable,
        _set_with_rule,
        "first_primal has rules in both a non-differentiable table and rules.beta",
        id="non-differentiable-rule",
    ),
    pytest.param(
        _set_with_attribute,
        _set_with_attribute,
        "attribute .T has rules in rules.alpha and rules.beta",
        id="attribute-attribute",
    ),
]


@pytest.mark.parametrize(("make_first", "make_second", "message"), CONFLICTS)
def test_install_rejects_a_primal_in_two_sets_naming_both(
    make_first: Any, make_second: Any, message: str
) -> None:
    registry = Registry()
    with pytest.raises(ValueError) as raised:
        registry.install([make_first("rules.alpha"), make_second("rules.beta")])
    assert str(raised.value) == message


def test_install_composes_sets_and_bumps_version() -> None:
    registry = Registry()
    other = RuleSet("rules.other")
    other.rrule(second_primal)(identity_rrule)
    other.non_differentiable(len)
    other.non_differentiable_attribute("shape")
    registry.install([_set_with_rule("rules.alpha"), other])
    assert registry.version == 1
    assert registry.rrule_for(first_primal).rule_set == "rules.alpha"
    assert registry.rrule_for(second_primal).rule_set == "rules.other"
    assert registry.is_non_differentiable(len)
    assert registry.is_non_differentiable_attribute("shape")
    assert len(registry.rules()) == 2


def test_register_rrule_bumps_version_and_overrides_library_rule() -> None:
    registry = Registry()
    registry.install([_set_with_rule("rules.alpha")])
    before = registry.version

    def user_rrule(x: Any) -> tuple[Any, Any]:
        return identity_rrule(x)

    registry.register_rrule(first_primal, user_rrule)
    assert registry.version == before + 1
    # The registry holds the user's rule behind the check of its cotangents (issue 17).
    assert registry.rrule_for(first_primal).rrule.user_rule is user_rrule
    assert registry.rrule_for(first_primal).origin is Origin.USER


def test_register_rrule_replaces_non_differentiable_mark() -> None:
    registry = Registry()
    registry.register_non_differentiable(first_primal)
    version = registry.version
    registry.register_rrule(first_primal, identity_rrule)
    assert registry.version == version + 1
    assert not registry.is_non_differentiable(first_primal)


def test_register_non_differentiable_bumps_version_and_drops_rule() -> None:
    registry = Registry()
    registry.register_rrule(first_primal, identity_rrule)
    registry.register_non_differentiable(first_primal)
    assert registry.version == 2
    assert registry.rrule_for(first_primal) is None
    assert registry.is_non_differentiable(first_primal)


@pytest.mark.parametrize(
    "lookup",
    [
        pytest.param(lambda r, key: r.rrule_for(key), id="rrule_for"),
        pytest.param(lambda r, key: r.is_non_differentiable(key) or None, id="non_differentiable"),
    ],
)
def test_unhashable_callables_have_no_rules(lookup: Any) -> None:
    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

        def __call__(self) -> None:
            pass

    assert lookup(Registry(), Unhashable()) is None


def test_library_registry_has_rules() -> None:
    import srcad.defaults  # noqa: F401  (its compiler installs the library's rule sets)

    assert REGISTRY.version >= 1
    assert REGISTRY.rrule_for(np.sin) is not None


# --- scalar rules ------------------------------------------------------------------------


def _pullback_of(rrule: Any, *args: Any) -> Any:
    return rrule(*args)[1]


SCALAR_RULES = [
    pytest.param(
        scalar_rrule(math.sinh, lambda x, y: math.cosh(x)), (0.5,), "sinh", id="unary-auto"
    ),
    pytest.param(
        scalar_rrule(math.sinh, lambda x, y: math.cosh(x), name="hyperbolic_sine"),
        (0.5,),
        "hyperbolic_sine",
        id="unary-named",
    ),
    pytest.param(
        scalar_rrule(math.atan2, lambda a, b, y: b, lambda a, b, y: -a),
        (1.0, 2.0),
        "atan2",
        id="binary",
    ),
    pytest.param(
        scalar_rrule(np.tanh, lambda x, y: 1 - y * y), (np.ones(2),), "tanh", id="numpy-ufunc"
    ),
]


@pytest.mark.parametrize(("rrule", "args", "name"), SCALAR_RULES)
def test_scalar_rrule_names_rule_and_pullback(rrule: Any, args: tuple[Any, ...], name: str) -> None:
    pullback = _pullback_of(rrule, *args)
    assert rrule.__name__ == f"{name}_rrule"
    assert rrule.__code__.co_name == f"{name}_rrule"
    assert pullback.__name__ == f"{name}_pullback"
    assert pullback.__qualname__ == f"{name}_pullback"
    assert pullback.__code__.co_name == f"{name}_pullback"


def test_scalar_rrule_unary_values() -> None:
    y, pullback = scalar_rrule(math.sinh, lambda x, y: math.cosh(x))(0.5)
    assert y == math.sinh(0.5)
    assert pullback(2.0) == (NoTangent(), 2.0 * math.cosh(0.5))


def test_scalar_rrule_binary_values_projected_onto_arguments() -> None:
    rrule = scalar_rrule(np.multiply, lambda a, b, y: b, lambda a, b, y: a)
    a, b = np.array([1.0, 2.0, 3.0]), 2.0
    y, pullback = rrule(a, b)
    no_tangent, a_bar, b_bar = pullback(np.ones(3))
    np.testing.assert_array_equal(y, [2.0, 4.0, 6.0])
    assert no_tangent is NoTangent()
    np.testing.assert_array_equal(a_bar, [2.0, 2.0, 2.0])
    assert type(b_bar) is float
    assert b_bar == 6.0


def test_scalar_rrule_conjugates_partials() -> None:
    _, pullback = scalar_rrule(np.multiply, lambda a, b, y: b, lambda a, b, y: a)(2j, 1 + 1j)
    assert pullback(1.0) == (NoTangent(), 1 - 1j, -2j)


def test_scalar_rrule_real_argument_gets_real_part() -> None:
    _, pullback = scalar_rrule(np.multiply, lambda a, b, y: b, lambda a, b, y: a)(2j, 3.0)
    assert pullback(1.0) == (NoTangent(), 3.0 + 0j, 0.0)


def test_scalar_rrule_takes_a_partial_per_argument() -> None:
    with pytest.raises(ValueError, match="a partial derivative for each argument"):
        scalar_rrule(math.sinh)
    # Any number of them (issue 21): tested against finite differences in test_api_shapes.
    y, pullback = scalar_rrule(lambda *xs: sum(xs), *[lambda *args: 1.0] * 3)(1.0, 2.0, 3.0)
    assert (y, pullback(2.0)) == (6.0, (NoTangent(), 2.0, 2.0, 2.0))


@pytest.mark.parametrize(
    ("primal", "name"),
    [
        pytest.param(math.sinh, "sinh", id="function"),
        pytest.param(lambda x: x, "lambda", id="lambda"),
        pytest.param(np.add, "add", id="ufunc"),
        pytest.param(object(), "object", id="nameless-object"),
    ],
)
def test_primal_name(primal: Any, name: str) -> None:
    assert primal_name(primal) == name

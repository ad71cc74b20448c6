"""srcad never differentiates its own machinery (`srcad/machinery.py`): a function that
reads the registry, the rule configuration or the compiler is refused where it reads it
(E210, in the user's file), and a call that reaches one of their methods only when the
code runs is refused with the reason, never by problems found in srcad's own source."""

from typing import Any

import numpy as np
import pytest

import srcad
from srcad.compiler import Compiler
from srcad.defaults import COMPILER
from srcad.machinery import is_machinery
from srcad.registry import CONFIG, REGISTRY, Registry, RuleConfig, RuleSet
from tests.srcad import machinery_functions as m


def test_what_is_machinery() -> None:
    for value in (REGISTRY, CONFIG, COMPILER, RuleSet("probe"), Registry, Compiler,
                  REGISTRY.is_non_differentiable, Registry.is_non_differentiable,
                  RuleConfig.frule_via_ad, CONFIG.frule_via_ad, Compiler.frule):  # fmt: skip
        assert is_machinery(value), value
    for value in (np.sin, m.reads_the_registry, srcad.grad, srcad.registry, 1.0, None, object()):
        assert not is_machinery(value), value


@pytest.mark.parametrize(
    ("f", "line", "name"),
    [
        (m.reads_the_registry, 14, "REGISTRY"),
        (m.reads_the_configuration_through_modules, 18, "srcad.registry.CONFIG"),
        (m.make_closure(), 25, "config"),
    ],
    ids=["global", "through modules", "closure"],
)
def test_a_function_that_reads_the_machinery_is_refused_where_it_does(
    f: Any, line: int, name: str
) -> None:
    for transform in (srcad.grad, lambda g: srcad.jacobian(g, mode="forward")):
        with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
            transform(f)(np.array([0.3, 0.5]))
        (diagnostic,) = raised.value.diagnostics
        assert diagnostic.code == "E210"
        assert diagnostic.file == m.__file__ and diagnostic.line == line
        assert f"`{name}`" in diagnostic.message and "srcad's own machinery" in diagnostic.message


@pytest.mark.parametrize("receiver", [REGISTRY, Registry()], ids=["the registry", "another"])
def test_a_method_of_the_machinery_reached_when_the_code_runs_is_refused(receiver: Any) -> None:
    x = np.array([0.3, 0.5])
    for transform in (srcad.grad, lambda g: srcad.jacobian(g, mode="forward")):
        with pytest.raises(srcad.MissingRuleError, match=r"Registry\.is_non_differentiable`: it "
                           "is srcad's own machinery"):  # fmt: skip
            transform(lambda x, r: np.sum(m.calls_a_method_of_what_it_is_given(x, r)))(x, receiver)

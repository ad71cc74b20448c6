"""The driver's shape (`srcad/compiler.py`, `srcad/requests.py`, `passes/__init__.py`):
a `Compiler` owns its registry and its caches, a typed request names a target, each target
has one pipeline, and the passes write what they produce into typed results."""

import linecache
import math
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.compiler import Compiler
from srcad.defaults import COMPILER
from srcad.kinds import FLOAT, signature
from srcad.passes import OPTIMISING, PIPELINES, pipeline
from srcad.passes.base import RuntimeNames
from srcad.passes.checks.call_graph import CallGraph
from srcad.passes.testing import context_for
from srcad.passes.transforms.forward_ad import ForwardAD
from srcad.passes.transforms.prune import Prune
from srcad.passes.transforms.reverse_ad import ReverseAD
from srcad.registry import CONFIG, REGISTRY, RuleConfig
from srcad.requests import Mode, Request, Target
from srcad.rules import RULE_SETS
from srcad.testing import check_scalar


def scaled(x: Any) -> Any:
    return 2.0 * x


def uses_scaled(x: Any) -> Any:
    return math.sin(scaled(x)) * x


def _central_difference(f: Any, x: float, step: float = 1e-6) -> float:
    return float((f(x + step) - f(x - step)) / (2 * step))


def test_the_default_compiler_owns_the_registry_and_the_config() -> None:
    assert COMPILER.registry is REGISTRY
    assert CONFIG.ad is COMPILER and srcad.CONFIG is CONFIG
    assert REGISTRY.rrule_for(np.sin) is not None  # the library, installed by the compiler
    check_scalar(uses_scaled, 0.4)


def test_a_second_compiler_has_its_own_rules_and_caches() -> None:
    """A rule registered with one compiler's registry changes what that compiler compiles,
    and nothing the default compiler compiles."""
    own = Compiler(config=RuleConfig(), rule_sets=RULE_SETS)
    assert own.registry is not REGISTRY and own.config.ad is own

    def scaled_rrule(x: Any) -> Any:  # a deliberately different derivative, to tell
        return 2.0 * x, lambda y_bar: (srcad.NoTangent(), 3.0 * y_bar)

    own.registry.register_rrule(scaled, scaled_rrule)
    x = 0.4
    _, by_default = COMPILER.rrule(uses_scaled, x)
    _, by_own = own.rrule(uses_scaled, x)
    exact = _central_difference(uses_scaled, x)
    assert by_default(1.0)[1] == pytest.approx(exact, rel=1e-6)
    assert by_own(1.0)[1] == pytest.approx(exact + math.cos(2.0 * x) * x, rel=1e-6)
    default_rule = COMPILER.compiled(uses_scaled, None, Request.rrule())
    own_rule = own.compiled(uses_scaled, None, Request.rrule())
    assert default_rule is not own_rule
    assert COMPILER.compiled(uses_scaled, None, Request.rrule()) is default_rule


@pytest.mark.parametrize(
    ("request_", "specialised", "target"),
    [
        (Request.rrule(), False, Target.RRULE),
        (Request.rrule((FLOAT,)), True, Target.SPECIALISED_RRULE),
        (Request.grad((FLOAT,)), True, Target.GRADIENT),
        (Request.grad((FLOAT,), value=False), True, Target.GRADIENT_WITHOUT_VALUE),
        (Request.grad((None,), value=False), False, Target.GENERAL_GRADIENT),
        (Request.frule(), False, Target.FRULE),
    ],
)
def test_a_request_names_its_target(request_: Request, specialised: bool, target: Target) -> None:
    assert request_.target(specialised) is target


def test_each_target_has_one_pipeline_with_the_call_graph_checked_first() -> None:
    assert set(PIPELINES) == set(Target)
    for target, passes in PIPELINES.items():
        transform = ForwardAD if target in (Target.FRULE, Target.SPECIALISED_FRULE) else ReverseAD
        assert passes.index(CallGraph) + 1 == passes.index(transform)
    assert Prune in PIPELINES[Target.GRADIENT_WITHOUT_VALUE]
    assert Prune not in PIPELINES[Target.GRADIENT]
    assert not set(pipeline(Target.GRADIENT, optimise=False)) & set(OPTIMISING)


def test_the_context_holds_the_request_it_was_made_for() -> None:
    _, ctx = context_for("def f(x, n):\n    return x * n\n", kinds="float, int")
    assert ctx.request.mode is Mode.REVERSE
    assert ctx.request.target is Target.SPECIALISED_RRULE
    assert dict(ctx.request.kinds) == {"x": FLOAT, "n": ("i", 0)}
    with pytest.raises(AttributeError):
        ctx.fused = True  # type: ignore[attr-defined]  # a stale flag fails loudly


def test_runtime_names_give_one_name_per_object_both_ways() -> None:
    names = RuntimeNames()
    assert names.bind(np.zeros, "zeros") == "zeros"
    assert names.bind(np.zeros, "zeros_2") == "zeros"
    assert names.name_of(np.zeros) == "zeros" and names.name_of(np.ones) is None
    assert dict(names) == {"zeros": np.zeros}


def test_the_gradient_function_the_request_asks_for() -> None:
    x = np.linspace(0.1, 0.9, 4)
    kinds = signature((x,))

    def loss(x: Any) -> Any:
        return np.sum(np.sin(x) * x)

    exact = np.cos(x) * x + np.sin(x)
    with_value = COMPILER.compiled(loss, None, Request.grad(kinds))
    alone = COMPILER.compiled(loss, None, Request.grad(kinds, value=False))
    y, cotangents = with_value.function(x)
    assert y == pytest.approx(loss(x)) and not with_value.value_left_out
    np.testing.assert_allclose(cotangents[1], exact, rtol=1e-12)
    y, cotangents = alone.function(x)
    assert y is None and alone.value_left_out
    np.testing.assert_allclose(cotangents[1], exact, rtol=1e-12)


def test_the_entry_is_emitted_text_tracebacks_show() -> None:
    g = srcad.grad(uses_scaled)
    assert g(0.4) == pytest.approx(_central_difference(uses_scaled, 0.4), rel=1e-6)
    code = g.__code__
    lines = linecache.getlines(code.co_filename)
    assert code.co_filename == "<srcad entry grad of uses_scaled>"
    assert lines[0].startswith("# srcad: entry grad of uses_scaled, 1 branch\n")
    assert "".join(lines[1:]) == g.srcad_gradient_of._entries[False].source()


def _unreadable_helper(x):  # a `try`: srcad does not compile it
    try:
        return x * 2.0
    except ValueError:
        return x


def test_a_callee_that_does_not_compile_is_compiled_once_for_its_result_kind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each round of kinds asks a callee's result kind again: one that does not compile is
    unknown (the sound answer) without compiling it again (which made compiling a
    logistic loss 8 times slower through srcad's own `sum_to`)."""
    tried = []
    compiled = type(COMPILER).compiled

    def counting(self: Any, func: Any, wrt: Any, request: Any) -> Any:
        if func is _unreadable_helper:
            tried.append(request)
        return compiled(self, func, wrt, request)

    monkeypatch.setattr(type(COMPILER), "compiled", counting)
    for _ in range(3):
        assert COMPILER._result_kind(_unreadable_helper, (FLOAT,)) == (None, ())
    assert len(tried) == 1


def clipped_loss(theta: Any, x: Any, delta: float) -> Any:
    """Loops, branches, inlined derivatives and a tape: most of ReverseAD's parts."""
    total = 0.0
    for i in range(len(x)):
        r = theta[0] * x[i] - theta[1]
        if abs(r) <= delta:
            loss = 0.5 * r * r
        else:
            excess = abs(r) - 0.5 * delta
            loss = delta * excess
        total = total + loss
    return total / len(x)


@pytest.mark.parametrize(
    "request_",
    [
        Request.grad(signature((np.ones(2), np.ones(3), 1.0)), value=False),
        Request.rrule(),
        Request.frule(signature((np.ones(2), np.ones(3), 1.0))),
    ],
    ids=["gradient", "rrule", "frule"],
)
def test_a_compilation_leaves_no_reference_cycles(request_: Request) -> None:
    """What compiling made is freed by reference counting when it returns, not left to the
    cycle collector (whose time was a tenth of compiling robust_fit_loss): no context,
    pass, analysis or tree of it is found among the unreachable objects after it."""
    import gc

    import gast

    from srcad.passes.base import Analysis, Context, Transform

    compiler = Compiler(config=RuleConfig(), rule_sets=RULE_SETS)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        compiler.compiled(clipped_loss, None, request_)
        gc.collect()
        left = [
            type(o).__qualname__
            for o in gc.garbage
            if isinstance(o, Context | Transform | Analysis | gast.AST)
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []

"""The rule library: each topic module's rule set, composed in one explicit order."""

from __future__ import annotations

from importlib.util import find_spec

from srcad.registry import DeferredRuleSet, RuleSet
from srcad.rules import (
    builtins,
    calls,
    complex_parts,
    containers,
    dicts,
    flat_operators,
    fourth_order_calls,
    item_writes,
    keywords,
    linear_helpers,
    math,
    nondiff,
    numpy_arrangement,
    numpy_calculus,
    numpy_decompositions,
    numpy_definitions,
    numpy_eig,
    numpy_elementwise,
    numpy_factorisations,
    numpy_fft,
    numpy_functionals,
    numpy_indexing,
    numpy_joining,
    numpy_linalg,
    numpy_norms,
    numpy_reductions,
    numpy_shape,
    numpy_signals,
    numpy_sorting,
    numpy_statistics,
    numpy_ufunc_methods,
    operators,
    second_order,
    second_order_calls,
    standard_library,
    structs,
    third_order_calls,
)

RULE_SETS: tuple[RuleSet, ...] = (
    operators.rules,
    linear_helpers.rules,
    containers.rules,
    dicts.rules,
    calls.rules,
    keywords.rules,
    builtins.rules,
    math.rules,
    numpy_elementwise.rules,
    complex_parts.rules,
    numpy_reductions.rules,
    numpy_norms.rules,
    numpy_linalg.rules,
    numpy_decompositions.rules,
    numpy_factorisations.rules,
    numpy_shape.rules,
    numpy_joining.rules,
    numpy_indexing.rules,
    item_writes.rules,
    structs.rules,
    numpy_sorting.rules,
    numpy_arrangement.rules,
    numpy_fft.rules,
    numpy_eig.rules,
    numpy_calculus.rules,
    numpy_definitions.rules,
    numpy_statistics.rules,
    numpy_signals.rules,
    numpy_ufunc_methods.rules,
    numpy_functionals.rules,
    standard_library.rules,
    flat_operators.rules,
    nondiff.rules,
)
# Last, as it is built from the others: reverse rules of their linear forward rules.
RULE_SETS += (
    second_order_calls.rules,
    third_order_calls.rules,
    fourth_order_calls.rules,
    second_order.build(RULE_SETS),
)

# SciPy's rules, where SciPy is installed (an optional dependency: `pip install srcad[scipy]`):
# each set is installed once the user imports the SciPy module it covers (`Registry.defer`).
SCIPY_RULE_SETS: tuple[DeferredRuleSet, ...] = (
    DeferredRuleSet("scipy.special", "srcad.rules.scipy_special"),
    DeferredRuleSet("scipy.linalg", "srcad.rules.scipy_linalg"),
    DeferredRuleSet("scipy.integrate", "srcad.rules.scipy_integrate"),
    DeferredRuleSet("scipy.integrate", "srcad.rules.scipy_integrate_tangents"),
    DeferredRuleSet("scipy.integrate", "srcad.rules.scipy_integrate_third_order"),
    DeferredRuleSet("scipy.stats", "srcad.rules.scipy_stats"),
    DeferredRuleSet("scipy.stats", "srcad.rules.scipy_stats_shape_rules"),
    DeferredRuleSet("scipy.stats", "srcad.rules.scipy_multivariate"),
    DeferredRuleSet("scipy.stats", "srcad.rules.scipy_stats_third_order"),
)
DEFERRED_RULE_SETS = SCIPY_RULE_SETS if find_spec("scipy") is not None else ()

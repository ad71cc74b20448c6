"""The rule library: each topic module's rule set, composed in one explicit order."""

from __future__ import annotations

from srcad.registry import RuleSet
from srcad.rules import (
    builtins,
    calls,
    containers,
    item_writes,
    math,
    nondiff,
    numpy_arrangement,
    numpy_calculus,
    numpy_decompositions,
    numpy_eig,
    numpy_elementwise,
    numpy_factorisations,
    numpy_fft,
    numpy_indexing,
    numpy_joining,
    numpy_linalg,
    numpy_norms,
    numpy_reductions,
    numpy_shape,
    numpy_sorting,
    operators,
    second_order,
    structs,
)

RULE_SETS: tuple[RuleSet, ...] = (
    operators.rules,
    containers.rules,
    calls.rules,
    builtins.rules,
    math.rules,
    numpy_elementwise.rules,
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
    nondiff.rules,
)
# Last, as it is built from the others: reverse rules of their linear forward rules.
RULE_SETS += (second_order.build(RULE_SETS),)

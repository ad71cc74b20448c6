"""The statements of a function's text that srcad runs once where it compiles the
function, or drops, before any check reads its tree: each one's own module says when
(`nested_classes`, `local_imports`, `deletions`, `assignment_expressions`, `lambdas`,
`nested_defaults`, `iterator_positions`, `declarations`, `closure_values`, `generators`,
`contexts`)."""

from __future__ import annotations

import gast

from srcad.passes.transforms.assignment_expressions import lower_assignment_expressions
from srcad.passes.transforms.closure_values import pass_captured_values
from srcad.passes.transforms.contexts import lower_contexts
from srcad.passes.transforms.declarations import drop_declarations
from srcad.passes.transforms.deletions import drop_deletions
from srcad.passes.transforms.generators import collect_yields, is_generator
from srcad.passes.transforms.iterator_positions import lower_iterator_positions
from srcad.passes.transforms.lambdas import hoist_lambdas
from srcad.passes.transforms.local_imports import hoist_imports
from srcad.passes.transforms.nested_classes import hoist_classes
from srcad.passes.transforms.nested_defaults import pass_defaults
from srcad.source import FunctionSource


def run_once(node: gast.FunctionDef, source: FunctionSource) -> None:
    """`node`, the tree of `source`'s function, with the classes it defines and the modules
    it imports made once and bound in its closure, the `del`s that change nothing dropped,
    its assignment expressions made assignments, its lambdas made nested functions, their
    defaults passed by the calls that leave them out (`nested_defaults`), its lazy
    iterators read across statements made lists and positions (`iterator_positions`), the
    `global` and `nonlocal` declarations that change nothing dropped, the variables a
    nested function passed as a value reads passed to it (`closure_values`), a
    generator's `yield`s collected and the `with` statements srcad takes written as their
    bodies between markers, in place."""
    hoist_classes(node, source)
    hoist_imports(node, source)
    drop_deletions(node)
    lower_assignment_expressions(node)
    hoist_lambdas(node)
    pass_defaults(node)
    lower_iterator_positions(node, source)
    drop_declarations(node)
    pass_captured_values(node, source)
    if is_generator(source.func):  # as the list of what it yields
        collect_yields(node)
    lower_contexts(node, source)

"""The compiler passes over gast trees, one per module, and the pipelines that run them.

A pipeline is data: one tuple per target (`srcad.requests.Target`), run in order, each
step in full (no pass decides for itself whether it runs). `CHECKS` run before any of them.
"""

from __future__ import annotations

from srcad.passes.base import Transform
from srcad.passes.checks.call_graph import CallGraph
from srcad.passes.checks.callees import Callees
from srcad.passes.checks.mutations import Mutations
from srcad.passes.checks.one_shot_iterators import OneShotIterators
from srcad.passes.checks.rebound_globals import ReboundGlobals
from srcad.passes.checks.text_numbers import TextOfNumbers
from srcad.passes.checks.unsupported_constructs import UnsupportedConstructs
from srcad.passes.transforms.constants import Constants
from srcad.passes.transforms.contexts import WrapContexts
from srcad.passes.transforms.forward_ad import ForwardAD
from srcad.passes.transforms.fuse import Fuse
from srcad.passes.transforms.iteration import Iteration
from srcad.passes.transforms.nesting import Nest
from srcad.passes.transforms.prune import Prune
from srcad.passes.transforms.release import Release
from srcad.passes.transforms.reverse_ad import ReverseAD
from srcad.passes.transforms.shapes import Shapes
from srcad.passes.transforms.simplify import Simplify
from srcad.passes.transforms.stores import Stores
from srcad.passes.transforms.to_anf import ToANF
from srcad.passes.transforms.unroll import Unroll
from srcad.passes.transforms.zero_names import ZeroNames
from srcad.requests import Target

# Analyses whose diagnostics must be empty before anything is transformed.
CHECKS = (
    UnsupportedConstructs,
    Mutations,
    ReboundGlobals,
    Callees,
    OneShotIterators,
    TextOfNumbers,
)

_RRULE = (ToANF, CallGraph, ReverseAD, Simplify)
# For known kinds: loops over short module constants written out, the module constants
# specialised on read once on entry, and loops over arrays made loops over their indices,
# first.
_SPECIALISED_RRULE = (ToANF, Unroll, Constants, Iteration, CallGraph, ReverseAD, Simplify)
# A gradient function for known kinds: the rrule fused with its pullback's call, then the
# passes that need the kinds (shapes resolved, buffers accumulated into, arrays released).
_GRADIENT = (*_SPECIALISED_RRULE, Fuse, Shapes, Stores, Nest, Release)

PIPELINES: dict[Target, tuple[type[Transform], ...]] = {
    # Each reverse pipeline ends with ZeroNames: the passes before it recognise a symbolic
    # zero by its call, `NoTangent()`, which the emitted code reads by name.
    # Each ends with WrapContexts: the passes before it see a `with` body as straight-line
    # code between markers (`passes/transforms/contexts.py`).
    Target.RRULE: (*_RRULE, ZeroNames, WrapContexts),
    # The same passes: ReverseAD inlines the derivatives the known kinds allow.
    Target.SPECIALISED_RRULE: (*_SPECIALISED_RRULE, ZeroNames, WrapContexts),
    Target.GRADIENT: (*_GRADIENT, ZeroNames, WrapContexts),
    # Also drops the work done for the value alone, where it is proven a float.
    Target.GRADIENT_WITHOUT_VALUE: (
        *_SPECIALISED_RRULE,
        Fuse,
        Shapes,
        Prune,
        Stores,
        Nest,
        Release,
        ZeroNames,
        WrapContexts,
    ),
    # Without a known kind, nothing for the kind-specialised passes to go on.
    Target.GENERAL_GRADIENT: (*_RRULE, Fuse, ZeroNames, WrapContexts),
    Target.FRULE: (ToANF, CallGraph, ForwardAD, WrapContexts),
    # ForwardAD writes the tangents the known kinds allow as arithmetic.
    Target.SPECIALISED_FRULE: (
        ToANF,
        Unroll,
        Constants,
        Iteration,
        CallGraph,
        ForwardAD,
        WrapContexts,
    ),
}

# The passes that only optimise: left out of a pipeline when a request says not to optimise
# (to show the code before them).
OPTIMISING: tuple[type[Transform], ...] = (
    Unroll,
    Iteration,
    Simplify,
    Shapes,
    Prune,
    Stores,
    Nest,
    Release,
)


def pipeline(target: Target, optimise: bool = True) -> tuple[type[Transform], ...]:
    """The passes that compile `target`, in order."""
    passes = PIPELINES[target]
    return passes if optimise else tuple(p for p in passes if p not in OPTIMISING)

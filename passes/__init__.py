"""The compiler passes over gast trees, one per module, and the pipelines that run them."""

from __future__ import annotations

from srcad.passes.callees import Callees
from srcad.passes.forward_ad import ForwardAD
from srcad.passes.fuse import Fuse
from srcad.passes.mutations import Mutations
from srcad.passes.prune import Prune
from srcad.passes.release import Release
from srcad.passes.reverse_ad import ReverseAD
from srcad.passes.shapes import Shapes
from srcad.passes.simplify import Simplify
from srcad.passes.stores import Stores
from srcad.passes.to_anf import ToANF
from srcad.passes.unsupported_constructs import UnsupportedConstructs

# Analyses whose diagnostics must be empty before anything is transformed.
CHECKS = (UnsupportedConstructs, Mutations, Callees)
# The reverse-mode and forward-mode pipelines, in order.
REVERSE = (ToANF, ReverseAD, Simplify, Fuse, Shapes, Prune, Stores, Release)
FORWARD = (ToANF, ForwardAD)

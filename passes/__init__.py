"""The compiler passes over gast trees, one per module, and the pipelines that run them."""

from __future__ import annotations

from srcad.passes.checks.callees import Callees
from srcad.passes.checks.mutations import Mutations
from srcad.passes.checks.unsupported_constructs import UnsupportedConstructs
from srcad.passes.transforms.forward_ad import ForwardAD
from srcad.passes.transforms.fuse import Fuse
from srcad.passes.transforms.prune import Prune
from srcad.passes.transforms.release import Release
from srcad.passes.transforms.reverse_ad import ReverseAD
from srcad.passes.transforms.shapes import Shapes
from srcad.passes.transforms.simplify import Simplify
from srcad.passes.transforms.stores import Stores
from srcad.passes.transforms.to_anf import ToANF

# Analyses whose diagnostics must be empty before anything is transformed.
CHECKS = (UnsupportedConstructs, Mutations, Callees)
# The reverse-mode and forward-mode pipelines, in order.
REVERSE = (ToANF, ReverseAD, Simplify, Fuse, Shapes, Prune, Stores, Release)
FORWARD = (ToANF, ForwardAD)

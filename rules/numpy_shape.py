"""Rules for NumPy's shape functions: reshaping, joining, splitting, tiling, flipping, padding."""

from __future__ import annotations

from srcad.registry import RuleSet

rules = RuleSet("numpy_shape")

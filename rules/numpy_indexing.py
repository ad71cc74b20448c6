"""Rules for NumPy's indexing functions."""

from __future__ import annotations

from srcad.registry import RuleSet

rules = RuleSet("numpy_indexing")

"""Rules for NumPy's sorting functions."""

from __future__ import annotations

from srcad.registry import RuleSet

rules = RuleSet("numpy_sorting")

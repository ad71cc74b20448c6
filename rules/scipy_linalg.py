"""Rules for `scipy.linalg`."""

from __future__ import annotations

from srcad.registry import RuleSet

rules = RuleSet("scipy_linalg")

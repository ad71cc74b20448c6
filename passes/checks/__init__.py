"""Checks: analyses whose diagnostics must be empty before anything is transformed (the
constructs srcad refuses, changes in place, calls that cannot be resolved)."""

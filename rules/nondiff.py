"""Functions and attributes whose results carry no derivative: sizes, shapes, predicates."""

from __future__ import annotations

import math
import operator

import numpy as np

from srcad.registry import RuleSet

rules = RuleSet("nondiff")

rules.non_differentiable(
    len, range, int, bool, str, isinstance, type, print, repr, id, hash, round,
    operator.floordiv, np.floor_divide,
    math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
    np.shape, np.ndim, np.size, np.zeros, np.ones, np.empty, np.arange, np.eye,
    np.zeros_like, np.ones_like, np.empty_like,
    np.sign, np.floor, np.ceil, np.rint, np.trunc, np.round, np.isnan, np.isinf, np.isfinite,
    np.argmax, np.argmin, np.argsort,
    np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
    np.logical_and, np.logical_or, np.logical_not,
)  # fmt: skip
rules.non_differentiable_attribute("shape", "ndim", "size", "dtype", "itemsize", "nbytes")

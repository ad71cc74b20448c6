"""Functions and attributes whose results carry no derivative: sizes, shapes, predicates."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from srcad.kinds import (
    COUNT,
    EMPTY_TUPLE,
    FLOAT,
    INT,
    PYTHON_FLOAT,
    PYTHON_INT,
    RANGE_OF_INTS,
    ZERO_D,
    Kind,
    ResultKind,
)
from srcad.partials import sign
from srcad.primitives import changes_item_in_place
from srcad.projection import python_numbers
from srcad.registry import Linearity, RuleSet
from srcad.rules._support import integer_valued, refuse_dropped_rank

rules = RuleSet("nondiff")

rules.non_differentiable(
    len, range, slice, int, bool, str, isinstance, type, print, repr, id, hash,
    np.floor_divide,
    math.isnan, math.isinf, math.isfinite,
    np.shape, np.ndim, np.size, np.zeros, np.ones, np.empty, np.eye,
    np.zeros_like, np.ones_like, np.empty_like,
    np.sign, np.floor, np.ceil, np.rint, np.trunc, np.round, np.isnan, np.isinf, np.isfinite,
    np.fix, np.argmax, np.argmin, np.argsort, np.result_type,
    np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
    np.logical_and, np.logical_or, np.logical_not,
)  # fmt: skip
# Predicates, counts and positions: booleans and integers, which cannot be perturbed (a
# `slice`'s bounds too: slicing takes ints or None, and a selection by float labels is flat in
# them).
# (operator.or_ is not here: it merges dicts, `rules/dicts.py`; nor are `//`, `&`, `~`,
# `round`, `math.floor`, `math.ceil` and `math.trunc`, which a class may define
# otherwise: `rules/flat_operators.py`.)
# (np.heaviside is not here: it is flat in x, but equal to its second argument where x == 0,
# so numpy_elementwise gives it a rule. np.histogram is not here either: its bin edges, and
# its densities, vary with the data's range. Nor are np.linspace, np.logspace, np.full_like:
# they vary with their start, stop and fill value.)
rules.non_differentiable(
    np.isclose, np.allclose, np.isreal, np.iscomplex, np.iscomplexobj, np.signbit,
    np.any, np.all, np.count_nonzero, np.nonzero, np.argwhere, np.searchsorted,
    np.nanargmax, np.nanargmin, np.digitize, np.lexsort, np.argpartition, np.isin,
)  # fmt: skip
# The slope of `abs` its inline derivative calls (a float's without NumPy): flat as np.sign.
rules.non_differentiable(sign)
# Whether `np.power`'s and `np.mod`'s operands are two Python numbers: a type test.
rules.non_differentiable(python_numbers)
# Whether a value is of integers or booleans (forward rules test their results): a type test.
rules.non_differentiable(integer_valued)
# Whether `items[i] += v` changes the item in place (the normal form's guard): a type test.
rules.non_differentiable(changes_item_in_place)
# A check of the rank np.linalg.pinv's and np.linalg.lstsq's rules differentiate at.
rules.non_differentiable(refuse_dropped_rank)
if np.around is not np.round:  # one function in NumPy 1.x, two in 2.x
    rules.non_differentiable(np.around)
rules.non_differentiable_attribute("shape", "ndim", "size", "dtype", "itemsize", "nbytes")


# The kinds of some of their results (`srcad.kinds`), for specialised code.
def _arange(args: Sequence[Kind | None]) -> Kind | None:
    """`np.arange(stop)`, `(start, stop[, step])` of numbers: of Python ints, an int
    vector (of NumPy ints, a uint64 gives floats); with a float64 or Python float among
    them (and no float32), a float64 vector."""
    if not 1 <= len(args) <= 3 or any(a is None or a[1] != 0 for a in args):
        return None
    codes = {a[0] for a in args if a is not None}
    if codes == {PYTHON_INT[0]}:
        return (INT[0], 1)
    numbers = {INT[0], PYTHON_INT[0], FLOAT[0], PYTHON_FLOAT[0]}
    if codes & {FLOAT[0], PYTHON_FLOAT[0]} and codes <= numbers:
        return (FLOAT[0], 1)
    return None


# `np.arange` of numbers: a vector of ints or floats.
ARANGE = ResultKind("range of numbers", _arange)
rules.primitive(len, result=COUNT)
rules.primitive(range, result=RANGE_OF_INTS)
# (`np.arange`'s rules: `numpy_calculus`, affine in its start and step.)
rules.primitive(np.arange, result=ARANGE, linearity=Linearity.PIECEWISE_LINEAR)


def _of_no_shape(args: Sequence[Kind | None]) -> Kind | None:
    """`np.zeros(())`, `np.ones(())`, `np.empty(())`: a 0-d float64 array (`ZERO_D`)."""
    return ZERO_D if list(args) == [EMPTY_TUPLE] else None


OF_NO_SHAPE = ResultKind("0-d array of the shape ()", _of_no_shape)
for _constructor in (np.zeros, np.ones, np.empty):
    rules.primitive(_constructor, result=OF_NO_SHAPE)

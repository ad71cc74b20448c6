"""What library functions do to their arguments, as the mutation check needs to know it:
which change an argument in place, which give a new value, which read a list without
keeping it. Functions of the modules in `TRUSTED_MODULES` are judged by these tables (and
`out=`, and `callees.IN_PLACE_METHODS`), never by reading their source."""

from __future__ import annotations

import bisect
import collections
import heapq
import math
import operator
import random
import sys
from typing import Any

import numpy as np

# Methods that change their receiver besides `IN_PLACE_METHODS` (which `Callees` also
# reads): `append` other than `name.append(value)` (`self.items.append(v)`), and the
# special methods behind assignment, called by name.
IN_PLACE_DUNDERS = frozenset({
    "append", "__setitem__", "__delitem__", "__setattr__", "__delattr__", "__iadd__",
    "__isub__", "__imul__", "__itruediv__", "__ior__", "__iand__", "__ipow__", "__imatmul__",
    "__ifloordiv__", "__imod__", "__ixor__", "__ilshift__", "__irshift__",
})  # fmt: skip

# Library functions that change an argument in place (the first, unless named).
IN_PLACE_FUNCTIONS = (
    np.copyto,
    np.put,
    np.place,
    np.putmask,
    np.fill_diagonal,
    np.put_along_axis,
    np.random.shuffle,
    random.shuffle,
    heapq.heappush,
    heapq.heappop,
    heapq.heapify,
    heapq.heapreplace,
    heapq.heappushpop,
    bisect.insort,
    bisect.insort_left,
    bisect.insort_right,
    operator.setitem,
    operator.delitem,
    operator.iadd,
    operator.iconcat,
    # (an array's in-place operators, as `a *= b` is: a float's give a new value)
    operator.isub,
    operator.imul,
    operator.itruediv,
    operator.ifloordiv,
    operator.imod,
    operator.ipow,
    operator.imatmul,
    operator.iand,
    operator.ior,
    operator.ixor,
    operator.ilshift,
    operator.irshift,
    setattr,
    delattr,
)


def is_ufunc_at(callee: Any) -> bool:
    """Whether `callee` is a ufunc's `at` method (`np.add.at`), which changes its first
    argument in place: rewritten as a new value where that is fresh (`primitives.ufunc_at`)."""
    return getattr(callee, "__name__", None) == "at" and isinstance(
        getattr(callee, "__self__", None), np.ufunc
    )


def changes_first_argument(callee: Any) -> bool:
    """Whether `callee` changes its first argument in place: one of `IN_PLACE_FUNCTIONS`, or
    a ufunc's `at`."""
    return any(callee is f for f in IN_PLACE_FUNCTIONS) or is_ufunc_at(callee)


# Modules whose functions change their arguments only where their documentation says so
# (`out=`, the functions above, the methods in `IN_PLACE_METHODS`): their source is not read.
TRUSTED_MODULES = frozenset({"numpy", "scipy", "srcad"}) | frozenset(sys.stdlib_module_names)


# Builtins whose iterator reads the list it was given as it goes, so sees items appended
# while it runs.
LAZY_ITERATORS = (enumerate, zip, iter, map, filter)

# Functions that read a list without keeping it: a list passed only to these (and indexed,
# iterated, returned, appended to) is shared with nothing that could see an append.
LIST_READERS = (
    len,
    sum,
    tuple,
    list,
    zip,
    enumerate,
    max,
    min,
    sorted,
    np.array,
    np.asarray,
    np.stack,
    np.vstack,
    np.hstack,
    np.concatenate,
)

# Functions whose result is a new value, never a view of an argument.
FRESH_RESULTS = (
    np.zeros,
    np.ones,
    np.empty,
    np.full,
    np.zeros_like,
    np.ones_like,
    np.empty_like,
    np.full_like,
    np.array,
    np.copy,
    np.arange,
    np.linspace,
    np.eye,
    np.identity,
    np.sum,
    np.mean,
    np.prod,
    np.dot,
    np.matmul,
    np.outer,
    np.stack,
    np.concatenate,
    np.vstack,
    np.hstack,
    np.where,
    np.clip,
    float,
    int,
    complex,
    dict,  # (of pairs or keywords: an array's rows, which would be views, make no dict)
    collections.defaultdict,
    collections.OrderedDict,
    len,
    abs,
    sum,
    print,
    round,
)


def is_fresh_function(value: Any) -> bool:
    """Whether calling `value` gives a new value and keeps no reference to its arguments."""
    if isinstance(value, np.ufunc):
        return True
    if getattr(value, "__module__", None) == "math" or value in vars(math).values():
        return True
    if getattr(value, "__self__", None) is dict and getattr(value, "__name__", "") == "fromkeys":
        return True  # `dict.fromkeys`: a bound method, made anew on each read
    return any(value is f for f in FRESH_RESULTS)

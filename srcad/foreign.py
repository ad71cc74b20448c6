"""Values that compute their own way: a subclass of `np.ndarray` that defines anything of
its own (`np.matrix`, a masked array, whose `np.sum` leaves out its masked elements), of
a list, tuple or dict that reads its items its own way (a `__getitem__` of its own), or an
object NumPy's functions hand themselves to (`__array_ufunc__`, `__array_function__`: a
duck array, another library's array).
srcad's rules are NumPy's, for arrays, and Python's, for lists, tuples and dicts: such a
value is refused where a derivative function is given one (`trees.refuse_foreign_values`,
the entries' `branch_kind`), and where the code reads one from a global or a closure
cell (`FunctionSource.constant_kind`)."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from srcad.errors import MissingRuleError
from srcad.kinds import kind_of

# What a subclass of `np.ndarray` may define and still compute as an array does.
_ARRAY_BOOKKEEPING = frozenset(
    {
        "__module__",
        "__qualname__",
        "__doc__",
        "__dict__",
        "__weakref__",
        "__annotations__",
        "__firstlineno__",
        "__static_attributes__",
        "__orig_bases__",
        "__parameters__",
    }
)


# The methods through which srcad's rules read a list, tuple or dict (indexing, iterating,
# unpacking, `len`, joining): a subclass that defines one of its own reads otherwise.
_CONTAINER_READS = frozenset(
    {
        "__getitem__",
        "__iter__",
        "__len__",
        "__reversed__",
        "__contains__",
        "__add__",
        "__radd__",
        "__mul__",
        "__rmul__",
        "__getattribute__",
        "keys",
        "values",
        "items",
        "get",
        "index",
        "count",
        "copy",
    }
)
_CONTAINERS = (list, tuple, dict)
# Subclasses of dict in the standard library that read an existing key as a dict does.
_PLAIN_MAPPINGS = frozenset({collections.OrderedDict, collections.defaultdict})


def foreign_class(value: Any) -> str | None:
    """What makes `value` compute otherwise than srcad's rules take it to: a subclass of
    `np.ndarray` that defines anything of its own (`np.matrix`, a masked array, whose
    `np.sum` leaves out its masked elements), or of a list, tuple or dict that reads its
    items its own way (`_CONTAINER_READS`), or an object with NumPy's dispatch of its own
    (`__array_ufunc__`, `__array_function__`); else None. A subclass that defines nothing
    but its name (or, for a NamedTuple, its fields) computes as its base does."""
    cls = value.__class__
    if cls is np.ndarray or cls in _CONTAINERS:
        return None
    if isinstance(value, np.ndarray):
        own = next(k for k in cls.__mro__ if k is np.ndarray or set(vars(k)) - _ARRAY_BOOKKEEPING)
        return None if own is np.ndarray else f"{own.__module__}.{own.__qualname__}"
    if isinstance(value, _CONTAINERS) and cls not in _PLAIN_MAPPINGS:
        for k in cls.__mro__:
            if k in _CONTAINERS:
                return None
            if not _CONTAINER_READS.isdisjoint(vars(k)):
                return f"{k.__module__}.{k.__qualname__}"
        return None
    if getattr(cls, "__array_ufunc__", None) is not None or hasattr(cls, "__array_function__"):
        # (an array of another library, a duck array: NumPy's functions call its own)
        return None if isinstance(value, np.generic) else f"{cls.__module__}.{cls.__qualname__}"
    return None


def branch_kind(value: Any) -> Any:
    """`kind_of(value, argument=True)`, as a branch tests an argument of no kind (`_test`):
    a value of a class that computes its own way (`foreign_class`: a masked array) fails the
    test, and takes the general path, which refuses it. (A branch is made only where no
    argument holds one; one held inside an argument of no kind, a container, is not
    looked for on later calls.)"""
    kind = kind_of(value, argument=True)
    if kind is None and foreign_class(value) is not None:
        return foreign_class
    return kind


def refuse_foreign(x: Any) -> None:
    """Refuse a value whose class computes its own way (`foreign_class`) where a rule meets
    one that no entry looked for (read from an object's attribute, from inside a global
    container or an argument of no kind): a rule projecting onto it (`ProjectTo`), a
    partial of one times a tangent (`partials.strong_product`). NumPy's derivative of it
    would be wrong (a masked array's `np.sum` skips its masked elements)."""
    foreign = foreign_class(x)
    if foreign is not None:
        raise MissingRuleError(
            f"srcad's rules follow NumPy's and Python's arithmetic, but a value reaching one "
            f"is a {foreign}, which may compute otherwise (a masked array's reductions skip "
            "its masked elements); convert it first (np.asarray, x.filled(0.0), list(x))"
        )

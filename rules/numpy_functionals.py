"""Rules for NumPy's functions that call a function of the user's: calling an
`np.vectorize` object, `np.apply_along_axis` and `np.piecewise`.

Each is srcad's own rule of a plain definition (`rules/_support.by_definition`) that calls
the user's function as Python code does (a call of a function value, which srcad
differentiates through that function's own rule or source, to any order), one element, row
or piece at a time, and puts the results together as NumPy does. What the definitions do
not compute (a `signature=`, `excluded=` or `cache=` of `np.vectorize`, a function returning
several results, extra arguments of `np.apply_along_axis`) is refused by name."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("numpy_functionals")


# -- np.vectorize: the function of each element --------------------------------------------------


def _vectorize_layout(vectorized: Any, args: Any, keywords: Any) -> tuple[tuple[int, ...], int]:
    """The shape the arguments broadcast to, and their number of elements; refuses the
    options `vectorized_call` does not compute."""
    if vectorized.signature is not None or vectorized.excluded or vectorized.cache:
        raise UnsupportedCallError(
            "srcad has no rule for an np.vectorize with signature=, excluded= or cache="
        )
    if keywords:
        raise UnsupportedCallError("srcad has no rule for an np.vectorize called by keyword")
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return shape, int(np.prod(shape))


def _refuse_several(result: Any) -> None:
    if isinstance(result, tuple):
        raise UnsupportedCallError(
            "srcad has no rule for an np.vectorize whose function returns several results"
        )


def vectorized_call(vectorized: Any, *args: Any, **keywords: Any) -> Any:
    """Calling `np.vectorize(f)`: `f` of each element of the arguments broadcast together,
    the results in an array of their shape (an element of it where they are all numbers)."""
    shape, count = _vectorize_layout(vectorized, args, keywords)
    function = vectorized.pyfunc
    flat = [np.ravel(np.broadcast_to(a, shape)) for a in args]
    results = []
    for k in range(count):
        result = function(*[f[k] for f in flat])
        _refuse_several(result)
        results.append(result)
    return np.reshape(np.array(results), shape)


rules.non_differentiable(_vectorize_layout, _refuse_several)
by_definition(
    rules,
    np.vectorize.__call__,
    vectorized_call,
    "vectorize_call",
    numpy_value=False,
    instance_call=True,
)


# -- np.piecewise: each piece's function of the elements its condition picks ---------------------


def _piecewise_conditions(x: Any, condlist: Any, pieces: int, args: Any, keywords: Any) -> Any:
    """NumPy's conditions of `np.piecewise`, one boolean array of `x`'s shape per function
    (with the "otherwise" one last where there is one function more than conditions)."""
    if args or keywords:
        raise UnsupportedCallError("srcad has no rule for np.piecewise with extra arguments")
    if np.ndim(x) == 0:
        raise UnsupportedCallError("srcad has a rule for np.piecewise of an array only")
    if np.isscalar(condlist) or not isinstance(condlist[0], list | np.ndarray):
        condlist = [condlist]  # as NumPy reads it
    conditions = np.asarray(condlist, dtype=bool)
    if len(conditions) == pieces - 1:
        otherwise = np.logical_not(np.any(conditions, axis=0, keepdims=True))
        conditions = np.concatenate([conditions, otherwise], axis=0)
    conditions = np.broadcast_to(conditions, (len(conditions), *np.shape(x)))
    return [conditions[k] for k in range(len(conditions))]


def _picks_any(condition: Any) -> bool:
    return bool(np.any(condition))


def _is_function(value: Any) -> bool:
    return callable(value)


def piecewise_definition(x: Any, condlist: Any, funclist: Any, *args: Any, **keywords: Any) -> Any:
    """`np.piecewise`: each function of the elements of `x` its condition picks, written
    into them in order (a later piece over an earlier one), a constant as it is; zeros where
    no condition holds. Each function sees only its own elements (never a value outside its
    piece, where its derivative may not be finite)."""
    conditions = _piecewise_conditions(x, condlist, len(funclist), args, keywords)
    y = np.zeros_like(x)
    for k in range(len(conditions)):
        condition = conditions[k]
        piece = funclist[k]
        if not _is_function(piece):
            y[condition] = piece
        elif _picks_any(condition):
            y[condition] = piece(x[condition])
    return y


rules.non_differentiable(_piecewise_conditions, _picks_any, _is_function)
by_definition(rules, np.piecewise, piecewise_definition, numpy_value=False)


# -- np.apply_along_axis: the function of each slice along the axis -----------------------------


def _along_axis_layout(arr: Any, axis: Any, args: Any, keywords: Any) -> tuple[Any, ...]:
    """How `along_axis` reads `arr`: the axis (non-negative), the number of slices along it,
    the shape of their rows, and the kept axes' shape."""
    if args or keywords:
        raise UnsupportedCallError(
            "srcad has no rule for np.apply_along_axis with extra arguments; "
            "bind them in the function (a lambda or functools.partial)"
        )
    shape = np.shape(arr)
    along = int(axis) % len(shape)
    kept = (*shape[:along], *shape[along + 1 :])
    return along, int(np.prod(kept)), (int(np.prod(kept)), shape[along]), kept


def _result_axes(kept: int, count: int, along: int) -> tuple[list[int], list[int]]:
    """Where the axes of each slice's result go: from after the kept axes to `along`."""
    return list(range(kept, kept + count)), list(range(along, along + count))


def along_axis(func1d: Any, axis: Any, arr: Any, *args: Any, **keywords: Any) -> Any:
    """`np.apply_along_axis`: `func1d` of each slice of `arr` along `axis`, its results'
    axes in the place of `axis` (NumPy's layout)."""
    along, count, rows_shape, kept = _along_axis_layout(arr, axis, args, keywords)
    rows = np.reshape(np.moveaxis(arr, along, -1), rows_shape)
    results = []
    for k in range(count):
        results.append(func1d(rows[k]))
    stacked = np.stack(results)
    result_shape = np.shape(stacked)[1:]
    laid_out = np.reshape(stacked, (*kept, *result_shape))
    source, destination = _result_axes(len(kept), len(result_shape), along)
    return np.moveaxis(laid_out, source, destination)


rules.non_differentiable(_along_axis_layout, _result_axes)
by_definition(rules, np.apply_along_axis, along_axis, numpy_value=False)

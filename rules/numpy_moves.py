"""Rules for the NumPy functions that only move elements, choosing which to keep and where
to put them by positions, masks, index arrays and shapes, never by the values themselves:
`np.compress`, `np.delete`, `np.insert`, `np.choose`, `np.diagflat`, `np.block` and
`np.lib.stride_tricks.sliding_window_view`.

Each is srcad's own rule of a plain-NumPy definition (`rules/_support.by_definition`): NumPy
runs the function itself on arrays of labels in the place of the arrays it moves (one label
for each element of each, numbered on end to end from 1: `labels`), so that its result
says where each of its elements came from (0 where NumPy put a zero of its own,
`np.diagflat` off its diagonal), with NumPy's own rules for negative indices, slices,
broadcast values, masks shorter than the axis, the modes of `np.choose` and the nesting of
`np.block`; the definition then gathers those elements (`np.take` of a zero and the raveled
arrays, joined), linear in each, an element read twice (overlapping windows) gathering its
cotangent twice. An index NumPy refuses is refused by the same call, with NumPy's error.
`out=`, and a window view made writeable, are refused by name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("numpy_moves")


def labels(*arrays: Any) -> list[Any]:
    """An array of ints of each array's shape, numbering the elements of all of them in
    turn from 1, each array's in C order: the positions of `_joined(*arrays)`."""
    found, start = [], 1
    for array in arrays:
        size = int(np.size(array))
        found.append(np.arange(start, start + size).reshape(np.shape(array)))
        start += size
    return found


def _refuse_out(name: str, out: Any) -> None:
    if out is not None:
        raise UnsupportedCallError(f"srcad has no rule for {name} with out=: use its result")


def compressed_labels(condition: Any, a: Any, axis: Any) -> Any:
    """Where the elements of `np.compress(condition, a, axis)` come from."""
    return np.compress(condition, labels(a)[0], axis)


def deleted_labels(arr: Any, obj: Any, axis: Any) -> Any:
    """Where the elements of `np.delete(arr, obj, axis)` come from."""
    return np.delete(labels(arr)[0], obj, axis)


def inserted_labels(arr: Any, obj: Any, values: Any, axis: Any) -> Any:
    """Where the elements of `np.insert(arr, obj, values, axis)` come from: `arr`'s or,
    numbered after them, `values`'."""
    of_arr, of_values = labels(arr, values)
    return np.insert(of_arr, obj, of_values, axis)


def chosen_labels(a: Any, choices: Any, mode: Any) -> Any:
    """Where the elements of `np.choose(a, choices, mode=mode)` come from."""
    return np.choose(a, labels(*choices), mode=mode)


def diagonal_labels(v: Any, k: Any) -> Any:
    """Where the elements of `np.diagflat(v, k)` come from (0: a zero)."""
    return np.diagflat(labels(v)[0], k)


def window_labels(x: Any, window_shape: Any, axis: Any, writeable: Any) -> Any:
    """Where the elements of `sliding_window_view(x, window_shape, axis)` come from."""
    if writeable:
        raise UnsupportedCallError(
            "srcad reads sliding_window_view's windows, not writeable=True: a write through "
            "them changes the array they view"
        )
    return np.lib.stride_tricks.sliding_window_view(labels(x)[0], window_shape, axis)


def leaf_paths(arrays: Any) -> list[tuple[int, ...]]:
    """The indices that reach each array (or number) in `np.block`'s nested lists, in
    order."""
    if not isinstance(arrays, list):
        return [()]
    return [(i, *path) for i, item in enumerate(arrays) for path in leaf_paths(item)]


def blocked_labels(arrays: Any) -> Any:
    """Where the elements of `np.block(arrays)` come from: NumPy's `np.block` of the same
    nesting with each array's labels in its place."""
    paths = leaf_paths(arrays)
    leaves = labels(*(_at(arrays, path) for path in paths))
    nested = _nested(arrays, iter(leaves))
    return np.block(nested)


def _nested(arrays: Any, leaves: Any) -> Any:
    """`arrays`' nesting of lists, with the next of `leaves` for each array."""
    if isinstance(arrays, list):
        return [_nested(item, leaves) for item in arrays]
    return next(leaves)


rules.non_differentiable(labels, _refuse_out)
rules.non_differentiable(compressed_labels, deleted_labels, inserted_labels, chosen_labels)
rules.non_differentiable(diagonal_labels, window_labels, leaf_paths, blocked_labels)


def _joined(*arrays: Any) -> Any:
    """A zero, then the arrays raveled, joined end to end in a common dtype."""
    return np.concatenate([np.zeros(1), *(np.ravel(array) for array in arrays)])


def _at(arrays: Any, path: tuple[int, ...]) -> Any:
    """The item of the nested lists `arrays` that the indices `path` reach."""
    item = arrays
    for i in path:
        item = item[i]
    return item


def numpy_compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> Any:
    """`np.compress`: the elements of `a` (along `axis`) where `condition` holds."""
    _refuse_out("np.compress", out)
    return np.take(_joined(a), compressed_labels(condition, a, axis))


def numpy_delete(arr: Any, obj: Any, axis: Any = None) -> Any:
    """`np.delete`: `arr` without the entries `obj` names along `axis`."""
    return np.take(_joined(arr), deleted_labels(arr, obj, axis))


def numpy_insert(arr: Any, obj: Any, values: Any, axis: Any = None) -> Any:
    """`np.insert`: `arr` with `values` put before the entries `obj` names along `axis`."""
    return np.take(_joined(arr, values), inserted_labels(arr, obj, values, axis))


def numpy_choose(a: Any, choices: Any, out: Any = None, mode: Any = "raise") -> Any:
    """`np.choose`: at each place, the element of the choice `a` names there."""
    _refuse_out("np.choose", out)
    return np.take(_joined(*choices), chosen_labels(a, choices, mode))


def numpy_diagflat(v: Any, k: Any = 0) -> Any:
    """`np.diagflat`: `v`'s elements on the `k`-th diagonal, zeros elsewhere."""
    return np.take(_joined(v), diagonal_labels(v, k))


def numpy_block(arrays: Any) -> Any:
    """`np.block`: the arrays of the nested lists joined, the innermost along the last
    axis."""
    leaves = [_at(arrays, path) for path in leaf_paths(arrays)]
    return np.take(_joined(*leaves), blocked_labels(arrays))


def sliding_window_view(x: Any, window_shape: Any, axis: Any = None, *, subok: Any = False,
                        writeable: Any = False) -> Any:  # fmt: skip
    """`np.lib.stride_tricks.sliding_window_view`: every window of `x` (a new array where
    NumPy's is a read-only view)."""
    return np.take(_joined(x), window_labels(x, window_shape, axis, writeable))


by_definition(rules, np.compress, numpy_compress)
by_definition(rules, np.delete, numpy_delete)
by_definition(rules, np.insert, numpy_insert)
by_definition(rules, np.choose, numpy_choose)
by_definition(rules, np.diagflat, numpy_diagflat)
by_definition(rules, np.block, numpy_block)
by_definition(rules, np.lib.stride_tricks.sliding_window_view, sliding_window_view)

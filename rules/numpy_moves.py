"""Rules for the NumPy functions that only move elements, choosing which to keep and where
to put them by positions, masks or index arrays and never by the values themselves:
`np.compress`, `np.delete`, `np.insert` and `np.choose`.

Each is srcad's own rule of a plain-NumPy definition (`rules/_support.by_definition`): NumPy
runs the function itself on arrays of labels in the place of the arrays it moves (one label
for each element of each, numbered on end to end: `labels`), so that its result says where
each of its elements came from, with NumPy's own rules for negative indices, slices,
broadcast values, masks shorter than the axis and the modes of `np.choose`; the definition
then gathers those elements (`np.take` of the raveled arrays, joined), linear in each, an
element read twice gathering its cotangent twice. An index NumPy refuses is refused by the
same call, with NumPy's error. `out=` is refused by name.
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
    turn, each array's in C order: the positions of `_joined(*arrays)`."""
    found, start = [], 0
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


rules.non_differentiable(labels, _refuse_out)
rules.non_differentiable(compressed_labels, deleted_labels, inserted_labels, chosen_labels)


def _joined(*arrays: Any) -> Any:
    """The arrays raveled and joined end to end, in a common dtype."""
    return np.concatenate([np.ravel(array) for array in arrays])


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


by_definition(rules, np.compress, numpy_compress)
by_definition(rules, np.delete, numpy_delete)
by_definition(rules, np.insert, numpy_insert)
by_definition(rules, np.choose, numpy_choose)

"""Rules of the methods that change a list, dict or array in place, written as new values.

The normal form writes `xs.sort()` as `xs = changed(xs, "sort")` and `v = xs.pop(i)` as
`v = popped(xs, i)` then `xs = changed(xs, "pop", i)` (`srcad/primitives.py`), where the
checks proved that nothing else holds `xs` (`passes/checks/mutations.py`). Their rules are
srcad's own rules of the plain definitions below, which compute the same values from
functions srcad differentiates to any order (`rules/_support.by_definition`): `sorted` and
`np.sort`, slices and joins of lists, `dict` of a dict's pairs. A method or receiver with
no definition here (a subclass's, an `OrderedDict`'s) is refused when the rule runs; the
checks let only these methods' names through (`primitives.CHANGING_METHODS`).

`heapq.heappush(h, v)`, `heapify`, `heappop`, `heapreplace`, `heappushpop` and
`bisect.insort` (`insort_left`, `insort_right`) change the list they are given in place:
written `h = changed_by(heapq.heappush, h, v)` (and `v = returned_by(heapq.heappop, h)`
before `h = changed_by(heapq.heappop, h)`). Their definitions ask the function itself
where it puts each item, running it on stand-ins that compare as the items (or their
`key=`) compare (`_arrangement`, non-differentiable: where items go is flat in their
values), then read the items by position: each item's derivative goes where it goes, and
at a tie (items that compare equal) to the place `heapq` or `bisect` put it, as `max`
takes the derivative of the item it returns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import MissingRuleError
from srcad.primitives import (
    CHANGING_METHODS,
    ITEM_RETURNING_FUNCTIONS,
    LIST_CHANGING_FUNCTIONS,
    changed,
    changed_by,
    popped,
    returned_by,
)
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("changed_values")


def _refuse(value: Any, method: str) -> None:
    """Raise unless `changed` has a definition of `value.method(...)`."""
    known = CHANGING_METHODS.get(type(value), frozenset())
    if method not in known and not (method == "append" and type(value) is list):
        # (a list's `append` comes here only on an item, `rows[i].append(v)`: on a name,
        # `xs.append(v)` is `primitives.append` of a list display's variable)
        raise MissingRuleError(
            f"srcad has no derivative of .{method}(...) on a {type(value).__name__}, which "
            "changes it in place; compute a new value instead (sorted(x), np.sort(x), x + [v])"
        )


def _refuse_pairs(other: Any) -> None:
    """Raise unless `d.update(other)` is given a dict (not pairs, or another mapping)."""
    if not isinstance(other, dict):
        raise MissingRuleError(
            f"srcad differentiates d.update(...) of a dict, not of a {type(other).__name__}"
        )


def _position(length: int, index: int) -> int:
    """The position `list.insert(index, v)` puts its item at, from the start: a negative
    index counts from the end, and one past either end means that end."""
    if index < 0:
        index += length
    return min(max(index, 0), length)


def _popped_index(length: int, index: int) -> int:
    """The position `list.pop(index)` removes; Python's own `IndexError` where none."""
    if not -length <= index < length:
        raise IndexError("pop index out of range" if length else "pop from empty list")
    return index % length


def _changed_set(value: Any, method: str, member: Any) -> Any:
    """A set's: its members take no derivative (one computed from a differentiated value
    is refused where the function is compiled, E215: `operation_rules._active_key`)."""
    if method == "clear":
        return set()
    return value | {member} if method == "add" else value - {member}


rules.non_differentiable(_refuse, _refuse_pairs, _position, _popped_index, _changed_set)


def changed_definition(value: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """`changed`, from functions srcad differentiates (each receiver's type its own
    function, compiled only where it is called)."""
    _refuse(value, method)
    if isinstance(value, set):
        return _changed_set(value, method, args[0] if args else None)
    if isinstance(value, np.ndarray):
        return _changed_array(value, method, *args, **kwargs)
    if isinstance(value, list):
        return _changed_list(value, method, *args, **kwargs)
    return _changed_dict(value, method, *args, **kwargs)


def _changed_array(value: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    if method == "sort":  # (`kind=` and `order=` change no number's place among equals)
        return np.sort(value, kwargs.get("axis", args[0] if args else -1))
    return np.zeros_like(value) + args[0]  # fill


def _changed_list(value: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    if method == "append":
        return [*value, args[0]]
    if method == "sort":
        return sorted(value, key=kwargs.get("key"), reverse=kwargs.get("reverse", False))
    if method == "reverse":
        return value[::-1]
    if method == "extend":
        return value + list(args[0])
    if method == "insert":
        at = _position(len(value), args[0])
        return [*value[:at], args[1], *value[at:]]
    if method == "pop":
        at = _popped_index(len(value), args[0] if args else -1)
        return value[:at] + value[at + 1 :]
    if method == "remove":
        at = value.index(args[0])
        return value[:at] + value[at + 1 :]
    return []  # clear


def _changed_dict(value: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """A dict's, as `dict` of its pairs (`rules/dicts.py`: where a key comes again, its
    first place and its last value, as `update` and `setdefault` leave them)."""
    if method == "clear":
        return {}
    pairs = [pair for pair in value.items() if not (method == "pop" and pair[0] == args[0])]
    if method == "update":
        for other in args:
            _refuse_pairs(other)
            pairs = pairs + list(other.items())
        pairs = pairs + list(kwargs.items())
    if method == "setdefault" and args[0] not in value:
        pairs = [*pairs, (args[0], args[1] if len(args) > 1 else None)]
    return dict(pairs)


def popped_definition(value: Any, *args: Any) -> Any:
    """`popped`, from functions srcad differentiates."""
    if isinstance(value, list):
        return value[_popped_index(len(value), args[0] if args else -1)]
    if len(args) > 1 and args[0] not in value:
        return args[1]
    return value[args[0]]


class _StandIn:
    """An item of a list `heapq` or `bisect` changes, compared by its `key` (the item, or
    `key=` of it), and knowing its position among the items the function was given."""

    __slots__ = ("key", "position")

    def __init__(self, key: Any, position: int) -> None:
        self.key = key
        self.position = position

    def __lt__(self, other: _StandIn) -> Any:  # (the only comparison they make)
        return self.key < other.key


def _arrangement(function: Any, items: list[Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> tuple[list[int], int | None]:  # fmt: skip
    """Where `function(items, *args, **kwargs)` puts the items: the position, among the
    items then the item it is given (`heappush`'s, `insort`'s), of each item of the list it
    leaves; and of the item it returns (`heappop`'s), or None."""
    if not any(function is f for f in LIST_CHANGING_FUNCTIONS):
        raise MissingRuleError(f"srcad has no derivative of {function!r} changing a list")
    key = kwargs.get("key")
    options = {k: v for k, v in kwargs.items() if k != "key"}
    pool = [*items, *args[:1]]
    stand_ins = [_StandIn(v if key is None else key(v), i) for i, v in enumerate(pool)]
    changing = stand_ins[: len(items)]
    returned = function(changing, *stand_ins[len(items) :], *args[1:], **options)
    return [s.position for s in changing], (
        returned.position if isinstance(returned, _StandIn) else None
    )


rules.non_differentiable(_arrangement)


def changed_by_definition(function: Any, items: Any, *args: Any, **kwargs: Any) -> Any:
    """`changed_by`, from functions srcad differentiates: the items (and the one given)
    read where the function puts them."""
    values = list(items)
    pool = [*values, *args[:1]]
    return [pool[i] for i in _arrangement(function, values, args, kwargs)[0]]


def returned_by_definition(function: Any, items: Any, *args: Any, **kwargs: Any) -> Any:
    """`returned_by`: the item the function returns (`heappop`'s smallest)."""
    if not any(function is f for f in ITEM_RETURNING_FUNCTIONS):
        raise MissingRuleError(f"srcad has no derivative of what {function!r} returns")
    values = list(items)
    pool = [*values, *args[:1]]
    at = _arrangement(function, values, args, kwargs)[1]
    assert at is not None  # (each of them returns an item)
    return pool[at]


by_definition(rules, changed, changed_definition, "changed")
by_definition(rules, changed_by, changed_by_definition, "changed_by")
by_definition(rules, returned_by, returned_by_definition, "returned_by")
by_definition(rules, popped, popped_definition, "popped")

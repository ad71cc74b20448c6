"""Rules for the iterators of `itertools` that choose and rearrange their items (`chain`,
`chain.from_iterable`, `islice`, `compress`, `takewhile`, `dropwhile`, `filterfalse`,
`pairwise`, `product`, `combinations`, `permutations`, `zip_longest`, `repeat`), for
`heapq`'s `nlargest`, `nsmallest` and `merge`, which pick and order items, and for
`bisect`'s searches.

Each gives some of the items it is passed, in some order, computing none: it is
differentiated through a *definition* (`standard_library.definition_rules`), plain Python
that asks the function itself, on the items' positions, which items it gives in which
order (`_positions`, non-differentiable: the choice is flat in the values, which a
predicate or a key only tests), then reads those items by position. So the value, the
order, the choice at ties and the exceptions are Python's own (`islice` of a negative
stop), and the derivative of each item given is that of the item it is: at a tie, of the
item Python chose, as `max` takes the derivative of the item it returns. The iterators
are lists here, as srcad makes every lazy iterator of the code it compiles
(`passes/checks/one_shot_iterators.py` refuses one read other than once, at once, where
it is made).

`bisect.bisect_left` and `bisect_right` (and `bisect.bisect`) give a position: an int,
flat in the values searched for and among, so with no derivative, as `np.searchsorted`.

Refused, each for its reason: `repeat` of a differentiated value with no count (when its
rule runs), and `count` and `cycle` of differentiated values (no rule, E210): endless, no
list holds them (of constants, Python makes them, and `zip` takes them:
`_support.zipped_columns`); `groupby` and `tee` (no rule, E210: iterators that share the
one they read, so that a group is spent when the next one is asked for, which a list of
lists would not reproduce: **unsound** to take without following how they are read).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from typing import Any

from srcad.errors import MissingRuleError
from srcad.registry import RuleSet
from srcad.rules.standard_library import definition_rules

rules = RuleSet("iterator_tools")

rules.non_differentiable(bisect.bisect_left, bisect.bisect_right)


def _positions(function: Any, lengths: list[int], args: tuple[Any, ...] = ()) -> list[Any]:
    """What `function` gives of `range`s of the `lengths` given (one per iterable it is
    passed), then `args`: the positions of the items it gives, in its order (a tuple of
    positions per item for `product` and the others that give tuples). (The definitions
    pass `args` as a tuple: srcad's forward rule of a call that unpacks its arguments
    compiles the function called, not marked non-differentiable here.)"""
    return list(function(*[range(n) for n in lengths], *args))


def _keyed_positions(function: Any, values: list[Any], n: int, key: Any) -> list[Any]:
    """`heapq.nlargest`'s (or `nsmallest`'s) choice among `values`, as positions: it is
    given the positions, ordered by `key` of the value at each (the value itself by
    default), so it compares what it would compare, and chooses the same at ties."""

    def keyed(i: int) -> Any:
        return values[i] if key is None else key(values[i])

    return list(function(n, range(len(values)), key=keyed))


def _tested_positions(function: Any, predicate: Any, values: list[Any]) -> list[int]:
    """`itertools.takewhile`'s (`dropwhile`'s, `filterfalse`'s) choice among `values`, as
    positions: it is given the positions, tested by `predicate` of the value at each."""
    return list(function(lambda i: predicate(values[i]), range(len(values))))


def _merged_positions(lists: list[list[Any]], key: Any, reverse: bool) -> list[tuple[int, int]]:
    """`heapq.merge`'s order of the items of `lists`, as (list, position) pairs."""
    tagged = [[(k, i) for i in range(len(items))] for k, items in enumerate(lists)]

    def keyed(pair: tuple[int, int]) -> Any:
        value = lists[pair[0]][pair[1]]
        return value if key is None else key(value)

    return list(heapq.merge(*tagged, key=keyed, reverse=reverse))


def _refuse_endless(times: Any) -> None:
    if times is None:
        raise MissingRuleError(
            "srcad cannot differentiate itertools.repeat with no count, which never ends: "
            "pass the count, `repeat(v, n)`"
        )


rules.non_differentiable(
    _positions, _keyed_positions, _tested_positions, _merged_positions, _refuse_endless
)


def chain_definition(*iterables: Any) -> Any:
    """`itertools.chain`, as the list of what it gives: the items of each in turn."""
    items: list[Any] = []
    for iterable in iterables:
        items = items + list(iterable)
    return items


def from_iterable_definition(iterable: Any) -> Any:
    """`itertools.chain.from_iterable`, as the list of what it gives."""
    items: list[Any] = []
    for inner in iterable:
        items = items + list(inner)
    return items


def islice_definition(iterable: Any, *bounds: Any) -> Any:
    """`itertools.islice`: the items at the positions its bounds give."""
    values = list(iterable)
    return [values[i] for i in _positions(itertools.islice, [len(values)], bounds)]


def compress_definition(data: Any, selectors: Any) -> Any:
    """`itertools.compress`: the items whose selector is true (the selectors read as
    Python reads them, by truth: no derivative)."""
    values = list(data)
    return [values[i] for i in _positions(itertools.compress, [len(values)], (selectors,))]


def takewhile_definition(predicate: Any, iterable: Any) -> Any:
    """`itertools.takewhile`: the items before the first that `predicate` rejects (its
    tests read by truth, with no derivative)."""
    values = list(iterable)
    return [values[i] for i in _tested_positions(itertools.takewhile, predicate, values)]


def dropwhile_definition(predicate: Any, iterable: Any) -> Any:
    """`itertools.dropwhile`: the items from the first that `predicate` rejects on."""
    values = list(iterable)
    return [values[i] for i in _tested_positions(itertools.dropwhile, predicate, values)]


def filterfalse_definition(predicate: Any, iterable: Any) -> Any:
    """`itertools.filterfalse`: the items that `predicate` rejects (all false ones where it
    is None)."""
    values = list(iterable)
    test = bool if predicate is None else predicate
    return [values[i] for i in _tested_positions(itertools.filterfalse, test, values)]


def pairwise_definition(iterable: Any) -> Any:
    """`itertools.pairwise`: each item with the next."""
    values = list(iterable)
    return [(values[i], values[j]) for i, j in _positions(itertools.pairwise, [len(values)])]


def product_definition(*iterables: Any, repeat: int = 1) -> Any:
    """`itertools.product`: a tuple per choice of one item of each iterable (`repeat`
    times over), the last varying fastest."""
    lists = [list(items) for items in iterables] * repeat
    return [
        tuple([lists[k][i] for k, i in enumerate(chosen)])
        for chosen in _positions(itertools.product, [len(items) for items in lists])
    ]


def combinations_definition(iterable: Any, r: int) -> Any:
    """`itertools.combinations`: the tuples of `r` items in their order, without repeats."""
    values = list(iterable)
    return [
        tuple([values[i] for i in chosen])
        for chosen in _positions(itertools.combinations, [len(values)], (r,))
    ]


def permutations_definition(iterable: Any, r: Any = None) -> Any:
    """`itertools.permutations`: the orderings of `r` items (of all of them by default)."""
    values = list(iterable)
    return [
        tuple([values[i] for i in chosen])
        for chosen in _positions(itertools.permutations, [len(values)], (r,))
    ]


def zip_longest_definition(*iterables: Any, fillvalue: Any = None) -> Any:
    """`itertools.zip_longest`: a tuple of the items at each position, `fillvalue` where an
    iterable has ended."""
    lists = [list(items) for items in iterables]
    return [
        tuple([fillvalue if i is None else lists[k][i] for k, i in enumerate(chosen)])
        for chosen in _positions(itertools.zip_longest, [len(items) for items in lists])
    ]


def repeat_definition(obj: Any, times: Any = None) -> Any:
    """`itertools.repeat(obj, times)`: `obj`, `times` times (refused with no count)."""
    _refuse_endless(times)
    return [obj for _ in _positions(itertools.repeat, [], (None, times))]


def nlargest_definition(n: int, iterable: Any, key: Any = None) -> Any:
    """`heapq.nlargest`: the `n` largest items (by `key`), largest first, as `heapq`
    chooses them."""
    values = list(iterable)
    return [values[i] for i in _keyed_positions(heapq.nlargest, values, n, key)]


def nsmallest_definition(n: int, iterable: Any, key: Any = None) -> Any:
    """`heapq.nsmallest`: the `n` smallest items (by `key`), smallest first."""
    values = list(iterable)
    return [values[i] for i in _keyed_positions(heapq.nsmallest, values, n, key)]


def merge_definition(*iterables: Any, key: Any = None, reverse: bool = False) -> Any:
    """`heapq.merge`, as the list of what it gives: the items of the (sorted) iterables in
    the order `heapq.merge` gives them."""
    lists = [list(items) for items in iterables]
    return [lists[k][i] for k, i in _merged_positions(lists, key, reverse)]


definition_rules(rules, itertools.chain, chain_definition, own_value=False)
definition_rules(
    rules, itertools.chain.from_iterable, from_iterable_definition, own_value=False,
    short="chain_from_iterable",
)  # fmt: skip
definition_rules(rules, itertools.islice, islice_definition, own_value=False)
definition_rules(rules, itertools.compress, compress_definition, own_value=False)
definition_rules(rules, itertools.pairwise, pairwise_definition, own_value=False)
definition_rules(rules, itertools.takewhile, takewhile_definition, own_value=False)
definition_rules(rules, itertools.dropwhile, dropwhile_definition, own_value=False)
definition_rules(rules, itertools.filterfalse, filterfalse_definition, own_value=False)
definition_rules(rules, itertools.product, product_definition, own_value=False)
definition_rules(rules, itertools.combinations, combinations_definition, own_value=False)
definition_rules(rules, itertools.permutations, permutations_definition, own_value=False)
definition_rules(rules, itertools.zip_longest, zip_longest_definition, own_value=False)
definition_rules(rules, itertools.repeat, repeat_definition, own_value=False)
definition_rules(rules, heapq.nlargest, nlargest_definition, own_value=False)
definition_rules(rules, heapq.nsmallest, nsmallest_definition, own_value=False)
definition_rules(rules, heapq.merge, merge_definition, own_value=False)

"""Rules for functions of Python's standard library written in C or in code srcad does not
compile: `math.prod`, `math.fsum`, `math.dist`, the averages and spreads of `statistics`,
`functools.reduce`, `itertools.starmap` and `itertools.accumulate`.

Each is differentiated through a *definition*: plain Python computing the same values from
operations srcad differentiates to any order (a loop, `sum`, `math.sqrt`, calls of the
function passed in), which srcad compiles. Its reverse and forward rules are those srcad
compiles for the definition, and so are its second derivatives (`Primitive.definition`,
`rules/second_order.py`). The first-order rules return the function's own value, computed
first (`math.fsum` exactly rounded, `statistics.mean` through exact fractions: the
definitions may round otherwise, in the last digit), and each definition calls the function
first too, through `_validated` (non-differentiable), so that every order raises Python's
exceptions (`StatisticsError` for too few points; `TypeError` for `reduce` of nothing, by
`_refuse_empty`) and the refusals below. Exact data
(`Fraction`, `Decimal`, which `statistics` keeps exact) holds no float to differentiate:
`statistics` turns data mixing them with floats into floats, and refuses `Decimal` with
floats. An iterator reaching a rule is refused: it would be read twice, for the value and
for the derivative (srcad makes the lazy iterators of the code it compiles lists where
they are read at once: `passes/checks/one_shot_iterators.py`).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import math
import statistics
from collections.abc import Callable, Iterator
from typing import Any

from srcad.errors import MissingRuleError
from srcad.primitives import with_initial
from srcad.registry import CONFIG, RuleSet, named
from srcad.rules._support import by_definition

rules = RuleSet("standard_library")

Pullback = Any


# -- definitions: plain Python srcad compiles ---------------------------------------------


# The means that are 0 where an item is 0 (Python >= 3.12 for `geometric_mean`), and
# whose definitions are not finite there.
_AT_ZERO_ITEMS = (statistics.geometric_mean, statistics.harmonic_mean)


def _validated(function: Any, *args: Any) -> None:
    """Raise what `function(*args)` raises (its trailing `None` options left out: each
    is the default), or refuse what srcad cannot differentiate: an iterator (read again
    by the definition), a mean at data holding a zero. Marked non-differentiable: each
    definition calls it first, so that its derivatives at every order (`grad`, and
    `hessian` through the definition alone) see Python's errors."""
    name = f"{function.__module__}.{function.__name__}"
    _refuse_iterators(name, args)
    while args and args[-1] is None:
        args = args[:-1]
    y = function(*args)
    if y == 0 and function in _AT_ZERO_ITEMS:
        raise MissingRuleError(
            f"srcad cannot differentiate {name} at data holding a zero: it is 0 there, and "
            "has no derivative (its logarithms or reciprocals are infinite); keep the data "
            "positive"
        )


def _refuse_empty(values: list[Any]) -> None:
    """`reduce`'s error for nothing to reduce and no initial value."""
    if not values:
        raise TypeError("reduce() of empty iterable with no initial value")


def _refuse_iterators(name: str, args: tuple[Any, ...]) -> None:
    """Refuse an iterator reaching a rule: srcad would read it once for the value and again
    for the derivative."""
    for arg in args:
        if isinstance(arg, Iterator):
            raise MissingRuleError(
                f"srcad cannot differentiate {name} of an iterator passed in from outside "
                "the code it compiles: pass a list (or make the iterator in that code)"
            )


rules.non_differentiable(_validated, _refuse_empty)


def prod_definition(iterable: Any, *, start: Any = 1) -> Any:
    """`math.prod`: the product of `start` and the items, from the left (`start`
    keyword-only, as `math.prod` takes it)."""
    result = start
    for value in iterable:
        result = result * value
    return result


def fsum_definition(iterable: Any) -> Any:
    """`math.fsum`: the sum of the items (exactly rounded by `math.fsum` itself), a float."""
    _validated(math.fsum, iterable)
    total = 0.0
    for value in iterable:
        total = total + value
    return total


def dist_definition(p: Any, q: Any) -> Any:
    """`math.dist`: the Euclidean distance between two points, the `math.hypot` of their
    differences (whose rule takes the derivative 0 where they are all 0, as `np.linalg.norm`
    does)."""
    return math.hypot(*[a - b for a, b in zip(p, q, strict=True)])


def mean_definition(data: Any) -> Any:
    """`statistics.mean`: the sum over the count."""
    _validated(statistics.mean, data)
    values = list(data)
    return sum(values) / len(values)


def fmean_definition(data: Any, weights: Any = None) -> Any:
    """`statistics.fmean`: the mean, or the weighted mean."""
    _validated(statistics.fmean, data, weights)
    values = list(data)
    if weights is None:
        return sum(values) / len(values)
    total = 0.0
    for w, v in zip(weights, values, strict=True):
        total = total + w * v
    return total / sum(weights)


def _variance(values: list[Any], centre: Any, ddof: int) -> Any:
    """The sum of the squared deviations of `values` from `centre` (their mean where it is
    None) over their count less `ddof`."""
    if centre is None:
        centre = sum(values) / len(values)
    total = 0.0
    for v in values:
        total = total + (v - centre) * (v - centre)
    return total / (len(values) - ddof)


def variance_definition(data: Any, xbar: Any = None) -> Any:
    """`statistics.variance`: the sample variance, about `xbar` where given."""
    _validated(statistics.variance, data, xbar)
    return _variance(list(data), xbar, 1)


def pvariance_definition(data: Any, mu: Any = None) -> Any:
    """`statistics.pvariance`: the population variance, about `mu` where given."""
    _validated(statistics.pvariance, data, mu)
    return _variance(list(data), mu, 0)


def stdev_definition(data: Any, xbar: Any = None) -> Any:
    """`statistics.stdev`: the square root of the sample variance."""
    _validated(statistics.stdev, data, xbar)
    return math.sqrt(_variance(list(data), xbar, 1))


def pstdev_definition(data: Any, mu: Any = None) -> Any:
    """`statistics.pstdev`: the square root of the population variance."""
    _validated(statistics.pstdev, data, mu)
    return math.sqrt(_variance(list(data), mu, 0))


def median_definition(data: Any) -> Any:
    """`statistics.median`: the middle item, or the mean of the two middle ones."""
    _validated(statistics.median, data)
    ordered = sorted(data)
    half = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[half]
    return (ordered[half - 1] + ordered[half]) / 2


def median_low_definition(data: Any) -> Any:
    """`statistics.median_low`: the lower of the two middle items where there are two."""
    _validated(statistics.median_low, data)
    ordered = sorted(data)
    return ordered[(len(ordered) - 1) // 2]


def median_high_definition(data: Any) -> Any:
    """`statistics.median_high`: the higher of the two middle items where there are two."""
    _validated(statistics.median_high, data)
    ordered = sorted(data)
    return ordered[len(ordered) // 2]


def geometric_mean_definition(data: Any) -> Any:
    """`statistics.geometric_mean`: the exponential of the mean logarithm (of positive
    data: `statistics` refuses the others, or gives 0 for a zero, which `_validated`
    refuses)."""
    _validated(statistics.geometric_mean, data)
    values = list(data)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def harmonic_mean_definition(data: Any, weights: Any = None) -> Any:
    """`statistics.harmonic_mean`: the count (or total weight) over the sum of the
    reciprocals (weighted)."""
    _validated(statistics.harmonic_mean, data, weights)
    values = list(data)
    if weights is None:
        return len(values) / sum(1.0 / v for v in values)
    total = 0.0
    for w, v in zip(weights, values, strict=True):
        total = total + w / v
    return sum(weights) / total


class _Nothing:
    """No initial value given (`reduce_definition`'s default; Python's `reduce` takes
    `None` as one)."""


_NOTHING = _Nothing()


def reduce_definition(function: Any, iterable: Any, initial: Any = _NOTHING) -> Any:
    """`functools.reduce`: `function` folded over the items from the left, from `initial`
    where given, else from the first item (`reduce` itself refuses an empty one). Its
    parameters are all named, not `*initial`: second derivatives differentiate the
    named ones (`second_order._through_definition`)."""
    values = list(iterable) if initial is _NOTHING else [initial, *iterable]
    _refuse_empty(values)
    result = values[0]
    for value in values[1:]:
        result = function(result, value)
    return result


def starmap_definition(function: Any, iterable: Any) -> Any:
    """`itertools.starmap`, as the list of what it gives: `function(*items)` per item."""
    return [function(*items) for items in iterable]


def accumulate_definition(iterable: Any, func: Any = None, *, initial: Any = None) -> Any:
    """`itertools.accumulate`, as the list of what it gives: the running sums (or running
    folds of `func`), after `initial` where given."""
    values = list(iterable) if initial is None else [initial, *iterable]
    if not values:
        return []
    result = values[0]
    results = [result]
    for value in values[1:]:
        result = result + value if func is None else func(result, value)
        results = [*results, result]
    return results


# -- rules -----------------------------------------------------------------------------------


def definition_rules(
    rule_set: RuleSet,
    function: Any,
    definition: Callable[..., Any],
    own_value: bool,
    short: str = "",
) -> None:
    """Register in `rule_set` `function`'s rules through `definition` (and its entry, for
    second derivatives), named after `short` (default: its name). With `own_value`, the
    value returned is `function`'s own, computed first; else the definition's, which is
    the same (the same calls in the same order), after `function` has raised what it
    raises for its arguments where it does."""
    short = short or function.__name__
    module = getattr(function, "__module__", None) or function.__self__.__module__
    name = f"{module}.{function.__qualname__}"  # (a class's method: `chain.from_iterable`)
    try:
        signature: inspect.Signature | None = inspect.signature(function)
    except ValueError:  # (`reduce`, and more under Python 3.10)
        signature = None

    def check(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        _refuse_iterators(name, args)
        if own_value:
            return function(*args, **kwargs)
        if signature is not None:
            signature.bind(*args, **kwargs)  # (Python's TypeError for a call it refuses)
        elif function is functools.reduce and (
            kwargs or not (len(args) == 3 or (len(args) == 2 and list(args[1])))
        ):
            function(*args, **kwargs)  # its TypeError (of nothing, of keywords...)
        return None

    def definition_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        y = check(args, kwargs)
        found, pullback = CONFIG.rrule_via_ad(definition, *args, **kwargs)
        count = 1 + len(args)

        def definition_pullback(y_bar: Any) -> tuple[Any, ...]:
            # One cotangent per argument passed (the compiled pullback has one per
            # parameter, the defaults' too).
            return tuple(pullback(y_bar))[:count]

        return (found if y is None else y), definition_pullback

    def definition_frule(dargs: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        y = check(args, kwargs)
        found, y_dot = CONFIG.frule_via_ad(dargs, definition, *args, **kwargs)
        return (found if y is None else y), y_dot

    rule_set.primitive(
        function,
        rrule=named(definition_rrule, f"{short}_rrule", definition_pullback=f"{short}_pullback"),
        frule=named(definition_frule, f"{short}_frule"),
        definition=definition,
    )


definition_rules(rules, math.prod, prod_definition, own_value=False)
definition_rules(rules, math.fsum, fsum_definition, own_value=True)
definition_rules(rules, math.dist, dist_definition, own_value=True)
definition_rules(rules, statistics.mean, mean_definition, own_value=True)
definition_rules(rules, statistics.fmean, fmean_definition, own_value=True)
definition_rules(rules, statistics.variance, variance_definition, own_value=True)
definition_rules(rules, statistics.pvariance, pvariance_definition, own_value=True)
definition_rules(rules, statistics.stdev, stdev_definition, own_value=True)
definition_rules(rules, statistics.pstdev, pstdev_definition, own_value=True)
definition_rules(rules, statistics.median, median_definition, own_value=True)
definition_rules(rules, statistics.median_low, median_low_definition, own_value=True)
definition_rules(rules, statistics.median_high, median_high_definition, own_value=True)
definition_rules(rules, statistics.geometric_mean, geometric_mean_definition, own_value=True)
definition_rules(rules, statistics.harmonic_mean, harmonic_mean_definition, own_value=True)
definition_rules(rules, functools.reduce, reduce_definition, own_value=False)
definition_rules(rules, itertools.starmap, starmap_definition, own_value=False)
definition_rules(rules, itertools.accumulate, accumulate_definition, own_value=False)


def with_initial_definition(initial: Any, items: Any) -> Any:
    """`primitives.with_initial`: `initial` before the items, unless it is None."""
    if initial is None:
        return list(items)
    return [initial, *items]


by_definition(rules, with_initial, with_initial_definition, "with_initial")

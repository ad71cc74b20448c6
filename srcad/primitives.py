"""Python's syntax-level operations as plain functions, so that rules can be keyed on them;
and the elements of tuple results that have derivatives of their own (`PROJECTIONS`)."""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import inspect
from typing import Any

import numpy as np

from srcad.constructors import attribute_descriptor
from srcad.errors import UnsupportedCallError
from srcad.out_arguments import refuse_positional_out


def make_tuple(*elements: Any) -> tuple[Any, ...]:
    """The primal of a tuple display `(a, b, ...)`."""
    return elements


def make_list(*elements: Any) -> list[Any]:
    """The primal of a list display `[a, b, ...]`."""
    return list(elements)


def make_dict(keys: tuple[Any, ...], *values: Any) -> dict[Any, Any]:
    """The primal of a dict display `{k: v, ...}`; the keys are not differentiated."""
    return dict(zip(keys, values, strict=True))


def append(items: list[Any], value: Any) -> list[Any]:
    """`items.append(value)` as a new list, one longer: the normal form rebinds the name to
    it, which changes nothing for a list no one else holds (the checks in
    `passes/checks/mutations.py` make sure). A new list, not the old one changed: a rule that read
    the list whole before the append (`sum(items)`, `len`, `np.array`, indexing) may keep
    it for its pullback or its tangent, and must see the list it was given, not one that
    grew after it."""
    return [*items, value]


def index_update(items: Any, index: Any, value: Any) -> Any:
    """`items[index] = value` as a new value: a copy of the array, list or dict `items` with
    the item written. The normal form rebinds the name to it (`passes/transforms/to_anf.py`),
    which changes nothing for a value no one else holds (the checks in
    `passes/checks/mutations.py` make sure); a rule that read the old value keeps it as it was."""
    if not isinstance(items, np.ndarray | list | dict):
        raise TypeError(
            f"srcad differentiates item assignment into arrays, lists and dicts, "
            f"not into a {type(items).__name__}"
        )
    result = items.copy()
    result[index] = value
    return result


# The methods that change their receiver in place which `changed` takes, by the type of the
# receiver (`rules/changed_values.py` defines each; `passes/checks/mutations.py` lets a call
# of one of these names through on a value nothing else holds).
CHANGING_METHODS: dict[type, frozenset[str]] = {
    list: frozenset(["sort", "reverse", "extend", "insert", "pop", "remove", "clear"]),
    dict: frozenset(["update", "pop", "setdefault", "clear"]),
    np.ndarray: frozenset(["sort", "fill"]),
    set: frozenset(["add", "discard", "clear"]),  # (of values not differentiated: E215)
}


def changed(value: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """`value.method(*args, **kwargs)` (`xs.sort()`, `d.update(e)`, `x.fill(v)`), a method
    that changes its receiver in place, as a new value: what the method leaves in a copy of
    `value`. The normal form rebinds the name to it (`passes/transforms/to_anf.py`), which
    changes nothing for a value no one else holds (the checks in
    `passes/checks/mutations.py` make sure); its rules are `rules/changed_values.py`'s."""
    new = value.copy()
    getattr(new, method)(*args, **kwargs)
    return new


def popped(value: Any, *args: Any) -> Any:
    """What `value.pop(*args)` returns (a list's item, a dict's value), `value` unchanged:
    the normal form writes `v = xs.pop(i)` as `v = popped(xs, i)`, then `xs = changed(xs,
    "pop", i)`."""
    return value.copy().pop(*args)


def changes_item_in_place(holder: Any, item: Any, operator: str) -> bool:
    """Whether Python's `holder[index] op= v` (or `holder.name op= v`) changes `item`, the
    value it read, in place (`item.__iadd__(v)` of an array or a list) rather than
    rebinding the slot to a new value, as srcad's normal form does: an item of a list,
    dict or instance, which something else may hold too. An array's item is a number, or a
    view of the array itself, which the write changes as a whole."""
    return not isinstance(holder, np.ndarray) and hasattr(type(item), f"__i{operator}__")


def ufunc_at(ufunc: Any, items: Any, indices: Any, *values: Any) -> Any:
    """`ufunc.at(items, indices, values)` as a new value: a copy of the array `items` with
    the ufunc applied at the indices, unbuffered (an index named twice takes it twice). The
    normal form rebinds the name to it, as it does an item written (`index_update`)."""
    if not isinstance(items, np.ndarray):
        raise TypeError(f"srcad differentiates ufunc.at on arrays, not on a {type(items).__name__}")
    result = items.copy()
    ufunc.at(result, indices, *values)
    return result


# The ufuncs whose `at` is differentiated into a fresh array (`passes/checks/fresh_values.py`):
# those that add or subtract, linear in the array and the values (`ufunc_at`), and those
# applied in turn at each index named (`ufunc_at_in_turn`; `rules/ufunc_at.py`).
LINEAR_AT = (np.add, np.subtract)
IN_TURN_AT = (np.multiply, np.divide, np.power, np.maximum, np.minimum, np.fmax, np.fmin)


def ufunc_at_in_turn(ufunc: Any, items: Any, indices: Any, *values: Any) -> Any:
    """`ufunc_at` for a ufunc of `IN_TURN_AT`, which is not linear: its own primitive, so
    that its derivatives are those of its definition (`rules/ufunc_at.py`), never the
    linear map `ufunc_at`'s second derivatives take."""
    return ufunc_at(ufunc, items, indices, *values)


def with_initial(initial: Any, items: Any) -> Any:
    """The items `itertools.accumulate(items, func, initial=initial)` folds: `initial`
    first, where it is not None. The normal form passes them so, without `initial=`, which
    `accumulate`'s rule would take as an option, not differentiated (`to_anf.py`)."""
    return list(items) if initial is None else [initial, *items]


# The functions of `heapq` and `bisect` that change the list they are given first in place,
# which the normal form writes as new values where nothing else holds the list
# (`changed_by`), and those of them that return an item (`returned_by`).
LIST_CHANGING_FUNCTIONS = (
    heapq.heappush,
    heapq.heappop,
    heapq.heapify,
    heapq.heapreplace,
    heapq.heappushpop,
    bisect.insort_left,
    bisect.insort_right,
)
ITEM_RETURNING_FUNCTIONS = (heapq.heappop, heapq.heapreplace, heapq.heappushpop)


def changed_by(function: Any, items: Any, *args: Any, **kwargs: Any) -> Any:
    """`function(items, *args, **kwargs)` (`heapq.heappush(h, v)`, `bisect.insort(xs, v)`),
    which changes the list `items` in place, as a new value: what it leaves in a copy of
    `items`. The normal form rebinds the name to it, as for `changed`; its rules are
    `rules/changed_values.py`'s."""
    if not isinstance(items, list):  # (Python's functions take other sequences: not srcad)
        raise TypeError(
            f"srcad differentiates {function.__name__} of a list, not of a {type(items).__name__}"
        )
    new = list(items)
    function(new, *args, **kwargs)
    return new


def returned_by(function: Any, items: Any, *args: Any, **kwargs: Any) -> Any:
    """What `function(items, *args, **kwargs)` returns (`heapq.heappop`'s item), `items`
    unchanged: the normal form writes `v = heapq.heappop(h)` as `v = returned_by(
    heapq.heappop, h)`, then `h = changed_by(heapq.heappop, h)`."""
    return function(list(items), *args, **kwargs)


# The keys a dict comprehension's key is refused as: numbers and arrays that may be
# differentiated (a dict's keys take no derivative: E215).
_DIFFERENTIABLE_KEYS = (float, complex, np.inexact, np.ndarray)


def dict_key(key: Any) -> Any:
    """The key of a dict comprehension's item, `key`, refused where it is a value that may
    be differentiated (a float, a complex, a NumPy float, an array), when the code runs: a
    dict's keys take no derivative, so what is computed from them (`max(d)`, `sorted(d)`)
    would lose theirs with no error. The normal form writes it around each computed key
    of a dict comprehension (`to_anf.py`), whose kind the compiler does not know, so that
    the keys of `{k: f(v) for k, v in params.items()}`, names, are taken."""
    if isinstance(key, _DIFFERENTIABLE_KEYS):
        raise UnsupportedCallError(
            f"srcad cannot differentiate a dict comprehension whose key {key!r} is a number "
            "that may be differentiated: a dict's keys take no derivative; key it by "
            "something not differentiated (a name, a position), or keep the pairs in a list"
        )
    return key


def set_of(items: list[Any]) -> set[Any]:
    """The primal of a set display `{a, b}` or comprehension, of the list of its items in
    Python's order. A set takes no derivative: one of values computed from differentiated
    ones is refused where the function is compiled (E215)."""
    return set(items)


def make_struct(kind: type, *values: Any) -> Any:
    """`kind(a, b, ...)` of a NamedTuple or dataclass whose initialiser only stores its
    fields (`struct_fields`): the normal form's call, keyword arguments put in field order."""
    return kind(*values)


def new_instance(kind: type) -> Any:
    """The instance a call of the class `kind` hands its `__init__`, made as Python makes
    it (`constructors.plain_class`): the first line of a class's compiled initialiser."""
    return object.__new__(kind)


def with_attribute(instance: Any, name: str, value: Any) -> Any:
    """`instance.name = value` in a class's initialiser, as a new instance with the
    attribute set (the normal form rebinds `self` to it: the mutation check proved nothing
    else holds the instance yet). An attribute a descriptor of the class would store
    (a property, a slot) is refused: its setter runs code srcad did not read."""
    kind = type(instance)
    found = attribute_descriptor(kind, name)
    if found is not None:
        raise TypeError(
            f"srcad differentiates attribute assignment in `{kind.__qualname__}.__init__` "
            f"into plain attributes, not into `.{name}`, which a "
            f"{type(found).__name__} of the class stores"
        )
    result = object.__new__(kind)
    result.__dict__.update(instance.__dict__)
    result.__dict__[name] = value
    return result


def replace_fields(value: Any, names: tuple[str, ...], *values: Any) -> Any:
    """`dataclasses.replace(value, name=v, ...)`, the new values passed by position."""
    return dataclasses.replace(value, **dict(zip(names, values, strict=True)))


def struct_fields(kind: Any) -> tuple[str, ...] | None:
    """The fields, in order, that `kind(...)` takes and stores as they are: a NamedTuple's,
    or a dataclass's whose `__init__` is the generated one (every field an `init` one, no
    `__post_init__`, no `InitVar`, none keyword-only); None for anything else."""
    if not isinstance(kind, type):
        return None
    generated = "<string>"  # the file name of the code dataclasses and namedtuple generate
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):
        code = getattr(kind.__new__, "__code__", None) if "__new__" in vars(kind) else None
        return tuple(kind._fields) if code is not None and code.co_filename == generated else None
    if not dataclasses.is_dataclass(kind) or hasattr(kind, "__post_init__"):
        return None
    code = getattr(vars(kind).get("__init__"), "__code__", None)
    if code is None or code.co_filename != generated:
        return None
    names = tuple(f.name for f in dataclasses.fields(kind))
    parameters = list(inspect.signature(kind).parameters.values())
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    if [p.name for p in parameters] != list(names) or any(p.kind != positional for p in parameters):
        return None
    return names


def iterate(value: Any) -> list[Any]:
    """The primal of iterating in a `for` loop: the items, in order."""
    return list(value)


def unpack(value: Any, count: int) -> tuple[Any, ...]:
    """The primal of `a, b = value`: what Python's unpacking does, as a function."""
    elements = tuple(value)
    if len(elements) != count:
        raise ValueError(
            f"{'too many' if len(elements) > count else 'not enough'} values to unpack"
            f" (expected {count}, got {len(elements)})"
        )
    return elements


def call(function: Any, *args: Any, **kwargs: Any) -> Any:
    """The primal of calling a value: a function passed in, or a callable object."""
    return function(*args, **kwargs)


def unpacked_call(function: Any, layout: str, *parts: Any, **kwargs: Any) -> Any:
    """The primal of a call that unpacks arguments, `f(a, *rest, b, **options)`:
    `unpacked_call(f, ".*.", a, rest, b, **options)`. `layout` says, part by part, whether
    it is one argument (`.`) or a sequence of them to unpack (`*`). NumPy's `out` among
    them, `np.multiply(*(a, b, a))`, is refused (`out_arguments`), as it is where written."""
    arguments = unpacked_arguments(layout, parts)
    if function is method:  # `obj.name(*args)`: `unpacked_call(method, "..*", obj, "name", args)`
        refuse_positional_out(getattr(arguments[0], arguments[1], None), arguments[2:])
    else:
        refuse_positional_out(function, arguments)
    return function(*arguments, **kwargs)


def unpacked_arguments(layout: str, parts: tuple[Any, ...]) -> tuple[Any, ...]:
    """The positional arguments a call receives from its `parts` (see `unpacked_call`)."""
    arguments: list[Any] = []
    for kind, part in zip(layout, parts, strict=True):
        if kind == "*":
            arguments.extend(part)
        else:
            arguments.append(part)
    return tuple(arguments)


def index_concatenate(builder: Any, *pieces: Any) -> Any:
    """The primal of `np.r_[a, b, 1:3]` and `np.c_[a, b]` (NumPy's concatenating index
    builders): `index_concatenate(np.r_, a, b, slice(1, 3))`, the pieces the index held
    passed as arguments, so that each array among them gets its own derivative."""
    return builder[pieces[0] if len(pieces) == 1 else pieces]


def method(receiver: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """The primal of a method call on a value: `receiver.name(*args, **kwargs)`."""
    return getattr(receiver, name)(*args, **kwargs)


def logabsdet(a: Any) -> Any:
    """The primal of `np.linalg.slogdet(a)[1]` (and `.logabsdet`): log |det a|, whose
    derivative needs no sign and no determinant, only the inverse."""
    return np.linalg.slogdet(a)[1]


# Elements of tuple results, by the function and the element's index and field name, as
# functions of their own: the normal form calls them (`passes/transforms/to_anf.py`), so that their
# rules, and their inlined derivatives, are those of the element alone, and what the rest
# of the tuple would cost is never spent.
PROJECTIONS: dict[tuple[Any, int | str], Any] = {
    (np.linalg.slogdet, 1): logabsdet,
    (np.linalg.slogdet, -1): logabsdet,
    (np.linalg.slogdet, "logabsdet"): logabsdet,
}


# The item lookups that select a stored item: what they give depends on the index only
# through which item it picks, so an index computed from the inputs (an int from
# `enumerate`, a key) carries no derivative into the result. NumPy's index builders
# (`np.s_`, `np.index_exp`) give the index back, to index with.
_SELECTING = frozenset(
    t.__getitem__ for t in (np.ndarray, list, tuple, dict, str, bytes, range, type(np.s_))
)


def selects(value: Any) -> bool:
    """Whether indexing `value` selects one of its items (see `_SELECTING`), so that the
    index carries no derivative: arrays, lists, tuples (NamedTuples too), dicts, strings,
    ranges, and subclasses that keep their `__getitem__`."""
    return getattr(type(value), "__getitem__", None) in _SELECTING

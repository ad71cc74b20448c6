"""Tangent types and their algebra: zeros, structural tangents, thunks, and marked gaps."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from srcad.errors import SrcadError, UnsupportedCallError


class AbstractZero:
    """A tangent known to be zero: adding it costs nothing, scaling it gives itself."""

    __slots__ = ()
    # NumPy must not try to turn a zero into an object array: defer to our operators.
    __array_ufunc__ = None

    def __add__(self, other: Any) -> Any:
        if isinstance(other, AbstractZero):
            # As in ChainRules: a zero plus "cannot be perturbed" cannot be perturbed.
            return other if isinstance(other, NoTangent) else self
        return other

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return -other

    def __rsub__(self, other: Any) -> Any:
        return other

    def __neg__(self) -> AbstractZero:
        return self

    def __pos__(self) -> AbstractZero:
        return self

    def __mul__(self, other: Any) -> AbstractZero:
        return self

    __rmul__ = __mul__
    __matmul__ = __mul__
    __rmatmul__ = __mul__
    __truediv__ = __mul__

    def conjugate(self) -> AbstractZero:
        return self

    def __bool__(self) -> bool:
        return False

    def __iter__(self) -> Iterator[Any]:
        raise TypeError(f"{self!r} has no elements; index it instead")

    def __getitem__(self, key: Any) -> AbstractZero:
        return self

    def pop(self) -> AbstractZero:
        """The last element's cotangent of a list whose cotangent is zero: a zero, which
        leaves the list's zero (`element_stack`)."""
        return self

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (type(self), ())


class ZeroTangent(AbstractZero):
    """The tangent of a value that can vary but has no effect on the result."""

    __slots__ = ()
    _instance: ZeroTangent | None = None

    def __new__(cls) -> ZeroTangent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance


class NoTangent(AbstractZero):
    """The tangent of something that cannot be perturbed: an int, a string, a function."""

    __slots__ = ()
    _instance: NoTangent | None = None

    def __new__(cls) -> NoTangent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance


class Tangent:
    """The structural tangent of a tuple, NamedTuple, dataclass, dict or object.

    Elements (for tuples) or fields (for everything else) that were not given read as
    `ZeroTangent()`.

    >>> t = Tangent(tuple, 1.0, ZeroTangent()) + Tangent(tuple, 2.0, 3.0)
    >>> t
    Tangent(tuple, 3.0, 3.0)
    """

    __slots__ = ("elements", "fields", "primal_type")

    def __init__(self, primal_type: type, *elements: Any, **fields: Any) -> None:
        if elements and fields:
            raise TypeError("a Tangent holds either elements or fields, not both")
        self.primal_type = primal_type
        self.elements = elements
        self.fields = fields

    @classmethod
    def of_mapping(cls, primal_type: type, fields: dict[Any, Any]) -> Tangent:
        """The tangent of a dict, whose keys need not be strings."""
        tangent = cls(primal_type)
        tangent.fields = dict(fields)
        return tangent

    def __getitem__(self, key: Any) -> Any:
        if self.elements:
            return self.elements[key]
        return self.fields.get(key, ZeroTangent())

    def __getattr__(self, name: str) -> Any:
        fields = self.__getattribute__("fields")
        if name in fields:
            return fields[name]
        primal_type = self.__getattribute__("primal_type")
        known = field_names(primal_type)
        # A field not given is zero: any field of a dataclass or NamedTuple, and any public
        # attribute of a plain object (whose fields are not declared anywhere).
        plain = not known and primal_type not in (tuple, list, dict) and not name.startswith("_")
        if name in known or plain:
            return ZeroTangent()
        raise AttributeError(f"a tangent of {primal_type.__name__} has no field {name!r}")

    def __iter__(self) -> Iterator[Any]:
        return _iterated(self)  # as its primal iterates: a dict's keys (`keys()`, `items()`)

    def __len__(self) -> int:
        return len(self.elements) if self.elements else len(self.fields)

    def _zip(self, other: Tangent | tuple[Any, ...]) -> tuple[list[Any], dict[str, Any]]:
        if isinstance(other, tuple):
            other = Tangent(self.primal_type, *other)
        if self.elements or other.elements:
            mine = self.elements or (ZeroTangent(),) * len(other.elements)
            theirs = other.elements or (ZeroTangent(),) * len(mine)
            if len(mine) != len(theirs):
                raise ValueError(f"cannot add tangents of {len(mine)} and {len(theirs)} elements")
            return [a + b for a, b in zip(mine, theirs, strict=True)], {}
        # A field only one side has is that side's (a field not given is a zero): the
        # tangents of a dict's items, each of one field, add up in one pass.
        fields = dict(self.fields)
        for name, value in other.fields.items():
            fields[name] = fields[name] + value if name in fields else value
        return [], fields

    def _with(self, elements: list[Any], fields: dict[Any, Any]) -> Tangent:
        result = Tangent(self.primal_type, *elements)
        result.fields = fields
        return result

    def __add__(self, other: Any) -> Any:
        if isinstance(other, AbstractZero):
            return self
        if not isinstance(other, (Tangent, tuple)):
            return NotImplemented
        elements, fields = self._zip(other)
        return self._with(elements, fields)

    __radd__ = __add__

    def __mul__(self, scale: Any) -> Tangent:
        return self._with(
            [e * scale for e in self.elements], {k: v * scale for k, v in self.fields.items()}
        )

    __rmul__ = __mul__

    def __neg__(self) -> Tangent:
        return self * -1

    def __sub__(self, other: Any) -> Any:
        """`self + -other`, to the last bit (negating rounds nothing)."""
        if isinstance(other, AbstractZero):
            return self
        if isinstance(other, tuple):
            other = Tangent(self.primal_type, *other)
        if not isinstance(other, Tangent):
            return NotImplemented
        return self + -other

    def __rsub__(self, other: Any) -> Any:
        return -self + other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tangent):
            return NotImplemented
        if self.primal_type is not other.primal_type:
            return False
        if self.elements or other.elements:
            return len(self.elements) == len(other.elements) and all(
                _tangent_equal(a, b) for a, b in zip(self.elements, other.elements, strict=True)
            )
        names = set(self.fields) | set(other.fields)
        return all(_tangent_equal(self[n], other[n]) for n in names)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = [getattr(self.primal_type, "__name__", repr(self.primal_type))]
        parts += [repr(e) for e in self.elements]
        parts += [f"{k}={v!r}" for k, v in self.fields.items()]
        return f"Tangent({', '.join(parts)})"


class Prefix(Tangent):
    """The cotangent of a list's first `length` elements, read off the element cotangents
    `source` of the longer list it grew into by appends. Each append's pullback passes the
    list before it one of these and takes the last element, in O(1), where a new tuple of
    the elements before it each time made the pullback of n appends cost O(n²). Elsewhere
    it is the `Tangent` of a list with those elements (built when first read).

    >>> Prefix((1.0, 2.0, 3.0), 2) + Tangent(list, 10.0, 20.0)
    Tangent(list, 11.0, 22.0)
    """

    __slots__ = ("length", "source")

    def __init__(self, source: Sequence[Any], length: int) -> None:
        self.primal_type = list
        self.fields = {}
        self.source = source
        self.length = length

    @property
    def elements(self) -> tuple[Any, ...]:  # type: ignore[override]
        return tuple(self.source[: self.length])

    def __len__(self) -> int:
        return self.length


class ElementStack(list):
    """The element cotangents of a list the function grew by appends in place
    (`passes/analyses/grown_lists.py`), which its pullback takes back from the end, one
    per append (`pop_element`). Only `pop_element` makes one, in the run of the pullback
    that pops it: popping changes no cotangent that anything else holds."""

    __slots__ = ()


def pop_element(items_bar: Any) -> tuple[Any, Any]:
    """The reverse of `items.append(value)` on a list grown in place: the cotangent of the
    list before the append and that of `value`, its last element's. O(1) per append: the
    first takes the cotangent's elements once, into an `ElementStack` the others pop.

    >>> pop_element(np.array([1.0, 2.0, 3.0]))
    ([1.0, 2.0], 3.0)
    >>> pop_element(ZeroTangent())
    (ZeroTangent(), ZeroTangent())
    """
    stack = element_stack(items_bar)
    return stack, stack.pop()


def list_cotangent(element_bars: list[Any]) -> Tangent:
    """The cotangent of a list from its elements', one each: the pullback of iterating a
    list in a `for` loop (`iterate_rrule`'s for a list), which a rule for known kinds
    writes in place of that rule's call where the iterable is a list the function made."""
    return Tangent(list, *element_bars)


def element_stack(items_bar: Any) -> Any:
    """The element cotangents of a list's cotangent as a new `ElementStack`, taken once
    before a loop's pullback pops them off one per append; an `ElementStack` as it is,
    and a symbolic zero too (popping a zero gives a zero, `AbstractZero.pop`)."""
    if type(items_bar) is ElementStack:
        return items_bar
    items_bar = unthunk(items_bar)
    if isinstance(items_bar, AbstractZero):
        return items_bar
    if isinstance(items_bar, np.ndarray) and items_bar.ndim == 1 and items_bar.dtype == float:
        return ElementStack(items_bar.tolist())  # Python floats, as the list held
    if isinstance(items_bar, Prefix):
        return ElementStack(items_bar.source[: items_bar.length])
    if type(items_bar) is Tangent and not items_bar.fields:
        return ElementStack(items_bar.elements)
    return ElementStack(elements_of(items_bar, len(items_bar)))


class Thunk:
    """A cotangent computed only if something uses it (ChainRules' `@thunk`).

    Arithmetic, indexing, iteration and conversion to an array compute it (once).

    >>> t = thunk(lambda: np.ones(2) * 3.0)
    >>> unthunk(t + 1.0)
    array([4., 4.])
    """

    __slots__ = ("_compute", "_value")

    def __init__(self, compute: Any) -> None:
        self._compute = compute
        self._value: Any = _PENDING

    def unthunk(self) -> Any:
        if self._value is _PENDING:
            self._value = unthunk(self._compute())
        return self._value

    def __add__(self, other: Any) -> Any:
        return self.unthunk() + unthunk(other)

    def __radd__(self, other: Any) -> Any:
        return unthunk(other) + self.unthunk()

    def __sub__(self, other: Any) -> Any:
        return self.unthunk() - unthunk(other)

    def __rsub__(self, other: Any) -> Any:
        return unthunk(other) - self.unthunk()

    def __mul__(self, other: Any) -> Any:
        return self.unthunk() * unthunk(other)

    def __rmul__(self, other: Any) -> Any:
        return unthunk(other) * self.unthunk()

    def __truediv__(self, other: Any) -> Any:
        return self.unthunk() / unthunk(other)

    def __matmul__(self, other: Any) -> Any:
        return self.unthunk() @ unthunk(other)

    def __rmatmul__(self, other: Any) -> Any:
        return unthunk(other) @ self.unthunk()

    def __neg__(self) -> Any:
        return -self.unthunk()

    def __getitem__(self, key: Any) -> Any:
        return self.unthunk()[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.unthunk())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.unthunk(), dtype=dtype)

    def __repr__(self) -> str:
        state = "pending" if self._value is _PENDING else repr(self._value)
        return f"{type(self).__name__}({state})"


class InplaceableThunk(Thunk):
    """A thunk that can also add its value into an existing buffer without allocating
    (ChainRules' `InplaceableThunk`): `add_into(buffer)` adds in place and returns the
    buffer; `compute()` gives the value on its own."""

    __slots__ = ("add_into",)

    def __init__(self, add_into: Any, compute: Any) -> None:
        super().__init__(compute)
        self.add_into = add_into


_PENDING = object()


def thunk(compute: Any) -> Thunk:
    """Delay computing a cotangent until it is used: `srcad.thunk(lambda: a.T @ y_bar)`."""
    if not callable(compute):
        raise SrcadError(
            f"srcad.thunk takes a function computing the tangent (a lambda), not "
            f"{type(compute).__name__} {compute!r:.60}"
        )
    return Thunk(compute)


def real_float(value: Any) -> Any:
    """A NumPy float64 as the Python float of the same number; anything else (a Python
    float, a symbolic zero, an array) as it is (`passes/transforms/float_tangents.py`)."""
    return float(value) if value.__class__ is np.float64 else value


_FLOAT64 = np.dtype(np.float64)


def float_items(tangent: Any) -> Any:
    """A float64 vector (a NumPy array of one dimension, native float64) as the list of
    its elements as Python floats, the same numbers (`tolist`); anything else (a symbolic
    zero, another dtype or shape, a tangent with a trailing axis of directions) as it is
    (`passes/transforms/float_items.py`)."""
    if tangent.__class__ is np.ndarray and tangent.dtype is _FLOAT64 and tangent.ndim == 1:
        return tangent.tolist()
    return tangent


def float64_number(value: Any) -> Any:
    """A Python float as the NumPy float64 of the same number; anything else as it is
    (`passes/transforms/float_items.py`)."""
    return np.float64(value) if value.__class__ is float else value


def real_numbers(dots: Any, count: int) -> bool:
    """Whether `dots` is a list of `count` > 0 tangents, each a Python float or a NumPy
    float64: none a zero, a thunk or a structure, so none needs unthunking, densifying or
    testing."""
    if type(dots) is not list or len(dots) != count or not count:
        return False
    return all(dot.__class__ is float or dot.__class__ is np.float64 for dot in dots)


def unthunk(tangent: Any) -> Any:
    """The value of a thunk; any other tangent as it is."""
    return tangent.unthunk() if isinstance(tangent, Thunk) else tangent


def accumulate_into(buffer: Any, tangent: Any) -> Any:
    """`buffer + tangent`, in place when `tangent` can add itself into an array buffer that
    the caller owns."""
    if isinstance(tangent, InplaceableThunk) and isinstance(buffer, np.ndarray):
        return tangent.add_into(buffer)
    return buffer + unthunk(tangent)


class NotImplementedTangent:
    """The cotangent a rule could not provide. Adding anything to it keeps it (a sum with
    an unknown term is unknown: the cotangent of a constant that other uses add to is
    dropped unread, as in ChainRules); any use of its value raises, naming the rule's file
    and line (it never becomes a zero or a number)."""

    __slots__ = ("message", "where")
    __array_ufunc__ = None

    def __init__(self, message: str, where: str) -> None:
        self.message = message
        self.where = where

    def _raise(self, *_: Any) -> Any:
        from srcad.errors import SrcadError

        raise SrcadError(f"{self.where}: this derivative is not implemented: {self.message}")

    __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = _raise
    __sub__ = __rsub__ = __neg__ = __getitem__ = __iter__ = __array__ = __float__ = _raise
    __bool__ = _raise

    def __add__(self, other: Any) -> Any:
        return self

    __radd__ = __add__

    def unthunk(self) -> Any:
        return self._raise()

    def __repr__(self) -> str:
        return f"NotImplementedTangent({self.message!r}, at {self.where})"


def not_implemented(message: str) -> NotImplementedTangent:
    """A cotangent that marks a gap in a rule, with the rule's location (the caller's)."""
    import sys

    frame = sys._getframe(1)
    return NotImplementedTangent(message, f"{frame.f_code.co_filename}:{frame.f_lineno}")


def elements_of(tangent: Any, count: int) -> tuple[Any, ...]:
    """The element cotangents of a tuple's or list's cotangent (a symbolic zero has `count`
    zero elements). A mapping's iterates its keys, which take no derivative (`grad` and
    `jvp` perturb a dict's values, the keys its structure): its elements are zeros, where
    `tuple` of a dict of tangents would give the keys themselves."""
    if isinstance(tangent, AbstractZero | dict):
        return (ZeroTangent(),) * count
    if isinstance(tangent, Tangent) and tangent.fields:  # a NamedTuple's, by field
        kind = tangent.primal_type
        if isinstance(kind, type) and issubclass(kind, Mapping):
            return (ZeroTangent(),) * count
        refuse_own_iteration(kind)  # (a dataclass's fields are not its items)
        return tuple(tangent[name] for name in field_names(kind))
    return tuple(tangent)


_PLAIN_ITEMS = frozenset([list, tuple, dict, np.ndarray, range, float, int, complex])


def refuse_own_iteration(kind: Any) -> None:
    """Raise where reading the items of a `kind` (iterating it, `np.array` of it) runs an
    `__iter__`, `__getitem__` or `__array__` of its own, written in Python (a dataclass's
    or a container class's): its items are what that computes, not its fields, which are
    all its tangent holds (a NamedTuple iterates its fields as a tuple does)."""
    if kind in _PLAIN_ITEMS:
        return
    for method in ("__iter__", "__getitem__", "__array__"):  # (NumPy reads the last two)
        if isinstance(getattr(kind, method, None), types.FunctionType):
            raise UnsupportedCallError(
                f"srcad cannot differentiate reading the items of a {kind.__name__}, whose "
                f"own {method} computes them: build the list of them (a method returning a "
                "list, or a list comprehension over its fields) and use that"
            )


def structural(bar: Any, primal: Any) -> Any:
    """A cotangent a caller gave as a plain list, tuple or dict (for a result that is a
    list, tuple or dict: `vjp_fn(([1.0, 2.0], 3.0))`), as the `Tangent` it stands for, to
    any depth; any other as it is. Cotangents add with `+`, which joins two lists or two
    tuples end to end (`[1.0] + [2.0]` is `[1.0, 2.0]`, not `[3.0]`): a list read twice
    had its two cotangents joined, and its appends popped the wrong ones.

    >>> structural(([1.0, 2.0], 3.0), ([0.5, 0.5], 1.0))
    Tangent(tuple, Tangent(list, 1.0, 2.0), 3.0)
    """
    kind, primal_kind = type(bar), type(primal)
    # (Of a plain list, tuple or dict alone: a NamedTuple's rules read its cotangent as given.)
    if (kind is list or kind is tuple) and primal_kind in (list, tuple):
        if len(primal) != len(bar):
            return bar
        return Tangent(primal_kind, *[structural(b, p) for b, p in zip(bar, primal, strict=True)])
    if kind is Tangent and bar.elements and primal_kind in (list, tuple):
        if len(primal) != len(bar.elements):
            return bar
        pairs = zip(bar.elements, primal, strict=True)
        return bar._with([structural(b, p) for b, p in pairs], {})
    if kind is dict and primal_kind is dict and bar.keys() <= primal.keys():
        return Tangent.of_mapping(dict, {k: structural(v, primal[k]) for k, v in bar.items()})
    return bar


def field_names(primal_type: type) -> tuple[str, ...]:
    """The fields of a dataclass or NamedTuple type; others have none known in advance."""
    if dataclasses.is_dataclass(primal_type):
        return tuple(f.name for f in dataclasses.fields(primal_type))
    return tuple(getattr(primal_type, "_fields", ()))


def _tangent_equal(a: Any, b: Any) -> bool:
    if isinstance(a, AbstractZero) or isinstance(b, AbstractZero):
        zero_a = isinstance(a, AbstractZero) or not np.any(a)
        zero_b = isinstance(b, AbstractZero) or not np.any(b)
        return zero_a and zero_b
    return bool(np.all(a == b))


def materialize(tangent: Any, primal: Any) -> Any:
    """Turn a symbolic zero into a real zero shaped like `primal`, and a thunk into its
    value; a marked gap raises here. Other tangents pass.

    Used only at the API boundary (`grad`), where users expect arrays, never inside rules.
    """
    if isinstance(tangent, NotImplementedTangent | Thunk):
        tangent = tangent.unthunk()
    if not isinstance(tangent, AbstractZero):
        return tangent
    if isinstance(primal, np.ndarray | np.generic):
        dtype = primal.dtype if np.issubdtype(primal.dtype, np.inexact) else np.float64
        zeros = np.zeros(np.shape(primal), dtype=dtype)
        return zeros if isinstance(primal, np.ndarray) else zeros[()]
    if isinstance(primal, complex):
        return 0j
    if isinstance(primal, int | float) and not isinstance(primal, bool):
        return 0.0
    if isinstance(primal, tuple):
        return tuple(materialize(tangent, p) for p in primal)
    return tangent


# -- a Tangent read as its primal is (defined last, so that the lines above, which emitted
# code names in its comments, keep their numbers) ------------------------------------------


def _iterated(tangent: Tangent) -> Iterator[Any]:
    """A `Tangent` iterates as its primal does: a tuple's or list's elements (a
    NamedTuple's in the order of its fields), a dict's keys; a dataclass's or object's,
    whose primal does not iterate, raises (it used to give nothing, silently)."""
    primal_type = tangent.primal_type
    if tangent.elements:
        return iter(tangent.elements)
    if isinstance(primal_type, type) and issubclass(primal_type, dict):
        return iter(tangent.fields)
    if isinstance(primal_type, type) and issubclass(primal_type, tuple | list):
        return iter([tangent[name] for name in field_names(primal_type)])  # by field
    raise TypeError(
        f"a tangent of {primal_type.__name__} does not iterate, as its primal does not: "
        "read its fields by name"
    )


class _DictView:
    """A dict method of a dict's `Tangent` (`keys`, `values`, `items`: those of the keys it
    has); for any other primal, the field of that name (a dataclass may have a field
    `values`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, tangent: Any, owner: type | None = None) -> Any:
        if tangent is None:
            return self
        primal_type = tangent.primal_type
        if isinstance(primal_type, type) and issubclass(primal_type, dict):
            return getattr(tangent.fields, self.name)
        return tangent.__getattr__(self.name)


Tangent.keys = _DictView("keys")  # type: ignore[attr-defined]
Tangent.values = _DictView("values")  # type: ignore[attr-defined]
Tangent.items = _DictView("items")  # type: ignore[attr-defined]

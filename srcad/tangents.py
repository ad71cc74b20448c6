"""Tangent types and their algebra: ZeroTangent, NoTangent and structural Tangent."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np


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
        if name in _field_names(self.__getattribute__("primal_type")):
            return ZeroTangent()
        raise AttributeError(f"a tangent of {self.primal_type.__name__} has no field {name!r}")

    def __iter__(self) -> Iterator[Any]:
        return iter(self.elements)

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
        names = dict.fromkeys([*self.fields, *other.fields])
        zero = ZeroTangent()
        return [], {n: self.fields.get(n, zero) + other.fields.get(n, zero) for n in names}

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
        parts = [self.primal_type.__name__]
        parts += [repr(e) for e in self.elements]
        parts += [f"{k}={v!r}" for k, v in self.fields.items()]
        return f"Tangent({', '.join(parts)})"


def elements_of(tangent: Any, count: int) -> tuple[Any, ...]:
    """The element cotangents of a tuple's or list's cotangent (a symbolic zero has `count`
    zero elements)."""
    if isinstance(tangent, AbstractZero):
        return (ZeroTangent(),) * count
    return tuple(tangent)


def _field_names(primal_type: type) -> tuple[str, ...]:
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
    """Turn a symbolic zero into a real zero shaped like `primal`; other tangents pass.

    Used only at the API boundary (`grad`), where users expect arrays, never inside rules.
    """
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

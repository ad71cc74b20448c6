"""ProjectTo: bring a cotangent back onto its primal's space (shape, dtype, real or complex)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcad.foreign import refuse_foreign
from srcad.tangents import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    elements_of,
    field_names,
    unthunk,
)


def conj(x: Any) -> Any:
    """The complex conjugate of a primal value; free for real arrays and Python floats."""
    if isinstance(x, np.ndarray | complex | np.complexfloating):
        return x.conjugate()
    return x


def real_part(x: Any) -> Any:
    """The real part of a cotangent (of a real operand of an operation with a complex result:
    `passes/inlining.py`): a Python float of a Python complex, an array's copied (not a
    strided view); a real value or a symbolic zero as it is."""
    if isinstance(x, np.ndarray):
        return x.real.copy() if x.dtype.kind == "c" else x
    if isinstance(x, complex | np.complexfloating):
        return x.real
    return x


def unbroadcast(dx: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum `dx` over the axes that broadcasting added or stretched to reach its shape.

    >>> unbroadcast(np.ones((2, 3)), (3,))
    array([2., 2., 2.])
    >>> unbroadcast(np.ones((2, 3)), (2, 1))
    array([[3.],
           [3.]])
    """
    if dx.shape == shape:
        return dx
    extra = dx.ndim - len(shape)
    if extra < 0:
        return np.broadcast_to(dx, shape).copy()
    if dx.dtype.kind == "f" and dx.size:
        summed = _summed_by_product(dx, shape, extra)
        if summed is not None:
            return summed
    if extra:
        # Summing every axis away gives a NumPy scalar; the caller asked for an array.
        dx = np.asarray(dx.sum(axis=tuple(range(extra))))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and dx.shape[i] != 1)
    if stretched:
        dx = dx.sum(axis=stretched, keepdims=True)
    if dx.shape != shape:  # a cotangent smaller than the primal stands for all of it
        dx = np.broadcast_to(dx, shape).copy()
    return dx


# A sum by a product with ones (below) adds at most this many elements into each result, and
# over leading axes keeps fewer columns than this (NumPy's own sum is as fast for wide rows).
_SUMMED_BY_PRODUCT = 1 << 16
_NARROW = 64


def _summed_by_product(dx: np.ndarray, shape: tuple[int, ...], extra: int) -> Any:
    """`unbroadcast` of a float array whose summed axes are its last ones, or its first ones
    over narrow rows, as a product with a vector of ones: NumPy's sums along short rows
    (`(64, 10)` to `(64, 1)`) or down a few columns (`(1000, 10)` to `(10,)`) cost up to
    ten times as much as BLAS's. None where the summed axes are not such a block.

    >>> _summed_by_product(np.ones((2, 3)), (2, 1), 0)
    array([[3.],
           [3.]])
    >>> _summed_by_product(np.ones((4, 2, 3)), (1, 3), 1)
    array([[8., 8., 8.]])
    """
    found = dx.shape
    if not extra:  # `shape` is the array's up to some axis, and ones after it
        k = len(shape)
        while k and shape[k - 1] == 1:
            k -= 1
        rows = math.prod(shape[:k])
        if found[:k] == shape[:k] and dx.size // rows <= _SUMMED_BY_PRODUCT:
            return (dx.reshape(rows, -1) @ _ones(dx.size // rows, dx.dtype)).reshape(shape)
    k = 0  # `shape` is ones up to some axis, and the array's after it
    while k < len(shape) and shape[k] == 1:
        k += 1
    columns = math.prod(shape[k:])
    if columns < _NARROW and found[extra + k :] == shape[k:]:
        rows = dx.size // columns
        if rows <= _SUMMED_BY_PRODUCT:
            return (_ones(rows, dx.dtype) @ dx.reshape(rows, columns)).reshape(shape)
    return None


def _ones(count: int, dtype: np.dtype) -> np.ndarray:
    """A vector of `count` ones (`np.ones`, without its Python wrapper, which costs as much
    as the product it serves)."""
    ones = np.empty(count, dtype)
    ones.fill(1.0)
    return ones


# What the helpers below take for an array whose shape alone they read: an array, or the
# `np.broadcast` of arrays (`passes/transforms/shapes.py`), which has the broadcast's shape
# and size.
SHAPED = (np.ndarray, np.broadcast)


def sum_to(dx: Any, x: Any, y: Any = None) -> Any:
    """`dx` summed back to the shape of `x`, which broadcasting stretched to `dx`'s: what
    inlined derivatives call (for real floats and float arrays only). For `x` and `y`, an
    `np.broadcast` of arrays stands for an array of its shape.

    >>> sum_to(np.ones((2, 3)), np.zeros(3))
    array([2., 2., 2.])
    >>> float(sum_to(np.ones(4), 1.0))
    4.0
    """
    if isinstance(dx, Thunk):
        dx = dx.unthunk()
    if type(dx) is not np.ndarray or (dx.ndim == 0 and type(y) in SHAPED):
        if type(y) in SHAPED and not isinstance(dx, AbstractZero):
            # A uniform float for the result `y`: `x` stood for this many of its elements.
            return dx * (y.size // x.size) if type(x) in SHAPED else dx * y.size
        return dx  # a float, or a symbolic zero
    if type(y) in SHAPED and dx.shape != y.shape:
        # `dx` stands for the cotangent of all of `y`: `f(a) * z`'s for `a`, with `z`
        # wider than `a`, is `f(a)` times a uniform float, a row for every row of `y`.
        dx = np.broadcast_to(dx, y.shape)
    if type(x) in SHAPED:
        return unbroadcast(dx, x.shape)
    total = np.add.reduce(dx, axis=None)  # `dx.sum()`, without its Python wrapper
    return float(total) if type(x) is float else total  # a float's cotangent is a float


def expand(dx: Any, x: Any) -> Any:
    """A cotangent of an array `x` that may be a float standing for `x` filled with it
    (a uniform cotangent, see passes/inlining.py), as an array of `x`'s shape."""
    if isinstance(dx, Thunk):
        dx = dx.unthunk()
    if type(x) not in SHAPED or isinstance(dx, AbstractZero):
        return dx
    if type(dx) is np.ndarray and dx.shape == x.shape:
        return dx
    return np.full(x.shape, dx)


# A NumPy function reads a list or tuple operand as the array of its elements.
SEQUENCES = (list, tuple)


def array_operand(x: Any) -> Any:
    """An operand of a NumPy function as NumPy reads it: a list or tuple (a display, nested,
    or holding arrays) as the array of its elements, any other value as it is. Rules of
    ufuncs call it on their operands, and `operand_tangent` on their tangents: a list's
    tangent is the list of its elements' tangents, which no arithmetic takes.

    >>> array_operand([1.0, (2.0, 3.0)[0]])
    array([1., 2.])
    """
    return np.asarray(x) if isinstance(x, SEQUENCES) else x


def numpy_operand(x: Any) -> Any:
    """`array_operand(x)`, and a Python number as the NumPy scalar NumPy computes with
    (`np.power`'s and `np.mod`'s rules call it on two Python numbers: `np.power(-2.0, 0.5)`
    is NaN, where Python's `(-2.0) ** 0.5` is complex)."""
    x = array_operand(x)
    return np.asarray(x)[()] if x.__class__ in (float, int, bool) else x


def python_numbers(a: Any, b: Any) -> bool:
    """Whether `a` and `b` are both Python numbers, which `np.power` and `np.mod` compute
    with as NumPy scalars (`numpy_operand`). Against an array or a NumPy scalar a Python
    number stays one: NumPy's promotion keeps the other's precision for it
    (`np.power(float32_array, 2.0)` is float32), and a NumPy scalar's would not."""
    return a.__class__ in (float, int, bool) and b.__class__ in (float, int, bool)


def operand_tangent(dot: Any, x: Any) -> Any:
    """The tangent of `array_operand(x)` given `x`'s: a list's or tuple's tangent (its
    elements' tangents, to any depth) as the array of them, an element's symbolic zero as
    zeros of its shape; a symbolic zero stays one, and so does every tangent of another `x`.

    >>> operand_tangent([ZeroTangent(), 2.0], [1.0, 0.5])
    array([0., 2.])
    """
    dot = unthunk(dot)
    if not isinstance(x, SEQUENCES) or isinstance(dot, AbstractZero):
        return dot
    return np.asarray(_dense_elements(dot, x))


def _dense_elements(dot: Any, x: Any) -> Any:
    """`operand_tangent`'s elements, nested as `x` nests them."""
    dot = unthunk(dot)
    if isinstance(x, SEQUENCES):
        dots = elements_of(dot, len(x))
        return [_dense_elements(d, element) for d, element in zip(dots, x, strict=True)]
    if isinstance(dot, AbstractZero):
        return np.zeros(np.shape(x), np.result_type(x, 1.0))
    return dot


def fill_like(x: np.ndarray, value: Any) -> Any:
    """An array shaped like `x` holding `value` everywhere: the cotangent of a sum."""
    if isinstance(value, AbstractZero):
        return value
    return np.full(x.shape, value)


def add_at(buffer: np.ndarray, index: Any, value: Any) -> None:
    """`buffer[index] += value`, for a slice of `buffer`, unless `value` is a symbolic
    zero (NumPy's in-place operators refuse those)."""
    if not isinstance(value, AbstractZero):
        buffer[index] += value


def add_at_repeated(buffer: np.ndarray, index: Any, value: Any) -> None:
    """`buffer[index] += value` for an index of integer arrays, adding once per repeat of an
    element (`np.add.at`), unless `value` is a symbolic zero."""
    if not isinstance(value, AbstractZero):
        np.add.at(buffer, index, value)


def scatter_add(x: np.ndarray, index: Any, value: Any) -> Any:
    """Zeros shaped like `x` with `value` added at `index`, an index of integer arrays that
    may repeat an element (`np.add.at`): the cotangent of `x[index]`."""
    if isinstance(value, AbstractZero):
        return value
    out = np.zeros(x.shape, _buffer_dtype(x, value))
    np.add.at(out, index, value)
    return out


def entries_tangent(container: Any, parts: dict[Any, Any]) -> Tangent:
    """The cotangent of a tuple, list or dict from those of the items read from it by
    constant keys or positions (`parts`), the items not read zero: what a pullback gives
    an argument whose items the code reads as `p["w"]`, `p[0]` (`InlinedDerivatives`).

    >>> entries_tangent({"w": 1.0, "b": 2.0}, {"b": 3.0})
    Tangent(dict, b=3.0)
    >>> entries_tangent((1.0, 2.0, 3.0), {1: 0.5})
    Tangent(tuple, ZeroTangent(), 0.5, ZeroTangent())
    """
    if type(container) is dict:
        return Tangent.of_mapping(dict, parts)
    bars: list[Any] = [ZeroTangent()] * len(container)
    for position, part in parts.items():
        bars[position] = part
    return Tangent(type(container), *bars)


def outer(a: Any, b: Any) -> Any:
    """`np.outer(a, b)` of two cotangents, where a symbolic zero stays one (NumPy would
    make an array of objects of it)."""
    if isinstance(a, AbstractZero):
        return a
    if isinstance(b, AbstractZero):
        return b
    return np.outer(a, b)


def scatter(x: np.ndarray, index: Any, value: Any) -> Any:
    """Zeros shaped like `x` with `value` at `index` (ints and slices): the cotangent of
    `x[index]` where it cannot go into a buffer."""
    if isinstance(value, AbstractZero):
        return value
    out = np.zeros(x.shape, _buffer_dtype(x, value))
    out[index] = value
    return out


def _buffer_dtype(x: Any, value: Any) -> Any:
    """The dtype of the cotangent of an array `x` (or of what stands for its shape, an
    `np.broadcast`: `passes/transforms/shapes.py`) a part of which has the cotangent
    `value`: a complex array's own, float64 otherwise (None); for a shape, complex where
    `value` is (a real array's parts have real cotangents)."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return np.complex128 if np.iscomplexobj(value) else None
    return dtype if dtype.kind == "c" else None


class ProjectTo:
    """Projects cotangents onto the space of the primal it was built from.

    Built outside a pullback (it records only the shape, dtype and kind of `x`), called
    inside it. Projection undoes broadcasting, keeps the primal's float precision, drops the
    imaginary part for real primals, and gives a Python float for a Python number, a 0-d
    array for a 0-d array, a NumPy scalar for a NumPy scalar. Integers and booleans (scalars
    and arrays) cannot be perturbed and get `NoTangent()`. Symbolic zeros pass through.

    A symbolic zero's cotangent is that zero, whatever is pulled back to it: such a primal
    is the tangent of a value no input moves (reverse mode over a forward rule, which is
    linear in its tangents), so its cotangent reaches only other symbolic zeros' cotangents
    and no input's. It has no shape to project onto either: `(y * ones).T`'s cotangent,
    pulled back to the zero tangent of a float `y`, would be an array of the product's
    shape, which the next use of `y`'s tangent could not be added to.

    >>> ProjectTo(np.zeros(3, dtype=np.float32))(np.ones((2, 3)))
    array([2., 2., 2.], dtype=float32)
    >>> ProjectTo(2.0)(np.array([1.0, 2.0]))
    3.0
    """

    __slots__ = ("dtype", "fields", "kind", "scalar_type", "shape")

    def __init__(self, x: Any) -> None:
        # Built for every argument of every rule call: the common cases come first, and
        # NumPy's dtype tests are done by kind letter (issubdtype costs a microsecond).
        self.shape: tuple[int, ...] = ()
        self.dtype: np.dtype[Any] | None = None
        self.scalar_type: type | None = None
        kind_of = type(x)
        if kind_of is float:
            self.kind = "float"
        elif isinstance(x, bool | int | np.bool_):
            self.kind = "none"
        # Before the Python numbers: np.float64 and np.complex128 subclass float and complex,
        # and must still project to NumPy scalars.
        elif isinstance(x, np.ndarray | np.generic):
            if x.dtype.kind not in "fc":
                self.kind = "none"
            else:
                if (
                    kind_of is not np.ndarray
                    and kind_of is not np.float64
                    and isinstance(x, np.ndarray)
                ):
                    refuse_foreign(x)  # a masked array, `np.matrix`: NumPy's rules do not hold
                self.kind = "array" if kind_of is np.ndarray else "scalar"
                self.shape = x.shape
                self.dtype = x.dtype
                self.scalar_type = None if kind_of is np.ndarray else kind_of
        elif isinstance(x, float):
            self.kind = "float"
        elif isinstance(x, complex):
            self.kind = "complex"
        elif field_names(kind_of) and not isinstance(x, type):
            self.kind = "struct"  # a dataclass or NamedTuple: each field projected
            self.scalar_type = kind_of
            self.fields = {name: ProjectTo(getattr(x, name)) for name in field_names(kind_of)}
        elif isinstance(x, SEQUENCES):
            if kind_of is not tuple and kind_of is not list:
                refuse_foreign(x)  # a list or tuple reading its items its own way
            # A NumPy function reads it as an array, and may give its cotangent as one: of
            # the array's shape, after broadcasting (summed back), and real where it is.
            self.kind = "tuple" if isinstance(x, tuple) else "list"
            facts = _sequence_facts(x)
            if facts is not None:
                self.shape, self.dtype = facts
        elif isinstance(x, AbstractZero):
            self.kind = "zero"
            self.scalar_type = kind_of  # ZeroTangent or NoTangent: its cotangent's kind
        else:
            if kind_of is not list and kind_of is not dict:
                refuse_foreign(x)  # a duck array, a list reading its items its own way
            self.kind = "any"

    def __call__(self, dx: Any) -> Any:
        if isinstance(dx, AbstractZero | NotImplementedTangent):
            return dx
        kind = self.kind
        if kind == "zero":
            assert self.scalar_type is not None
            return self.scalar_type()
        if isinstance(dx, Thunk):  # stays lazy: projected when (if) it is used
            return Thunk(lambda: self(dx.unthunk()))
        if kind == "float":
            if type(dx) is float:
                return dx
            if type(dx) is complex:  # (a Python complex's real part is a float: no NumPy)
                return dx.real
            dx = np.real(np.sum(dx)) if np.ndim(dx) else np.real(dx)
            return float(dx)
        if kind == "scalar" and type(dx) is self.scalar_type:
            return dx
        if kind == "array" or kind == "scalar":
            return self._project_array(dx)
        if kind == "complex":
            if type(dx) is complex or type(dx) is float:  # (no NumPy for Python numbers)
                return complex(dx)
            return complex(np.sum(dx)) if np.ndim(dx) else complex(dx)
        if kind == "none":
            return NoTangent()
        if kind == "tuple" and isinstance(dx, tuple | list):
            return Tangent(tuple, *dx)
        if type(dx) is np.ndarray and self.dtype is not None:  # a list's or tuple's, as an array
            if dx.shape != self.shape:
                dx = unbroadcast(dx, self.shape)
            return dx.real if dx.dtype.kind == "c" and self.dtype.kind != "c" else dx
        if kind == "struct" and isinstance(dx, Tangent) and dx.fields:
            assert self.scalar_type is not None
            projected = {
                k: self.fields[k](v) if k in self.fields else v for k, v in dx.fields.items()
            }
            return Tangent(self.scalar_type, **projected)
        return dx  # structural tangents of structs and objects pass as they are

    def _project_array(self, dx: Any) -> Any:
        dtype = self.dtype
        assert dtype is not None
        dx = np.asarray(dx)
        if dx.shape != self.shape:
            dx = unbroadcast(dx, self.shape)
        if dx.dtype != dtype:
            if np.iscomplexobj(dx) and not np.issubdtype(dtype, np.complexfloating):
                dx = dx.real
            dx = dx.astype(dtype, copy=False)
        if self.kind == "scalar":
            return dx[()]
        return dx

    def __repr__(self) -> str:
        if self.kind in ("array", "scalar"):
            return f"ProjectTo({self.kind}, shape={self.shape}, dtype={self.dtype})"
        return f"ProjectTo({self.kind})"


_FLOAT_TYPES = frozenset([float, int, bool, np.float64])


def _sequence_facts(x: Any) -> tuple[tuple[int, ...], np.dtype[Any]] | None:
    """The shape and dtype of the array NumPy makes of the list or tuple `x` (nested, or
    holding arrays), without making it; None where the elements are not all numbers and
    arrays of one shape, or are of no float or complex dtype.

    >>> _sequence_facts([[1.0, 2.0], (3.0, np.array(4.0))])
    ((2, 2), dtype('float64'))
    """
    if not x:
        return None
    if {*map(type, x)} <= _FLOAT_TYPES:  # (the common case, at C speed)
        return (len(x),), np.dtype(np.float64)
    inner = [_sequence_facts(e) if isinstance(e, SEQUENCES) else _array_facts(e) for e in x]
    first = inner[0]
    if first is None or any(facts is None or facts[0] != first[0] for facts in inner):
        return None
    dtype = np.result_type(*(facts[1] for facts in inner if facts is not None))
    return ((len(x), *first[0]), dtype) if dtype.kind in "fc" else None


def _array_facts(x: Any) -> tuple[tuple[int, ...], np.dtype[Any]] | None:
    if isinstance(x, np.ndarray | np.generic):
        if x.dtype.kind not in "fcbiu":
            return None
        return x.shape, x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    if isinstance(x, float | int):
        return (), np.dtype(np.float64)
    if isinstance(x, complex):
        return (), np.dtype(np.complex128)
    return None

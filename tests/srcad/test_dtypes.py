"""The result kinds of primitives against what NumPy (and Python) actually return, dtype
included: for every primitive with a result kind and every pair (or one) of operand kinds,
each value a kind may hold (a Python float and a NumPy float64 for `float`, every int
width for `int`, ...) is passed, and every result must be a value of the kind predicted
(`srcad.dtypes`: NumPy 2's promotion, NEP 50's weak Python numbers included)."""

from __future__ import annotations

import contextlib
import itertools
import math
import warnings
from typing import Any

import numpy as np
import pytest

from srcad import dtypes
from srcad.kinds import (
    EMPTY_TUPLE,
    FLOAT,
    INT,
    PYTHON_FLOAT,
    PYTHON_INT,
    ZERO_D,
    ZERO_D32,
    Kind,
    as_scalars,
    join,
    kind_of,
)
from srcad.registry import REGISTRY

# SciPy's primitives are installed once it is imported (`Registry.defer`), where it is.
with contextlib.suppress(ImportError):
    import scipy.special  # noqa: F401

F32: Kind = ("f4", 0)
F32_OR_PYTHON: Kind = ("f4w", 0)
COMPLEX_SCALARS: list[Kind] = [("c", 0), ("cw", 0), ("c8", 0)]
SCALARS: list[Kind] = [FLOAT, PYTHON_FLOAT, F32, F32_OR_PYTHON, INT, PYTHON_INT, ZERO_D, ZERO_D32]
SCALARS += COMPLEX_SCALARS
ARRAYS: list[Kind] = [(code, n) for n in (1, 2) for code in ("f", "f4", "i", "c", "c8")]
KINDS = SCALARS + ARRAYS
_INT_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


def members(kind: Kind) -> list[Any]:
    """Every sort of value of `kind`, positive and inside every primitive's domain (a
    matrix far from singular, numbers at most 1 for `arcsin`)."""
    code, ndim = kind
    if ndim == 0:
        return {
            "f": [0.5, np.float64(0.5)],
            "w": [0.5],
            "f4": [np.float32(0.5)],
            "f4w": [0.5, np.float32(0.5)],
            "i": [1, *(t(1) for t in _INT_TYPES)],
            "iw": [1],
            "f0": [0.5, np.float64(0.5), np.array(0.5)],
            "c": [0.5 + 0.25j, np.complex128(0.5 + 0.25j)],
            "cw": [0.5 + 0.25j],
            "c8": [np.complex64(0.5 + 0.25j)],
            "f40": [np.float32(0.5), np.array(0.5, dtype=np.float32)],
        }[code]
    dtypes_ = {"f": [np.float64], "f4": [np.float32], "i": list(_INT_TYPES)}.get(code)
    if dtypes_ is None:  # complex: a matrix far from singular too
        base = np.full((2,) * ndim, 0.25 + 0.125j) + (0.5 * np.eye(2) if ndim == 2 else 0.0)
        return [base.astype(np.complex128 if code == "c" else np.complex64)]
    base = np.full((2,) * ndim, 0.25) + (0.5 * np.eye(2) if ndim == 2 else 0.0)
    if code == "i":
        base = np.ones((2,) * ndim) + (np.eye(2) if ndim == 2 else 0.0)
    return [base.astype(t) for t in dtypes_]


def belongs(value: Any, kind: Kind) -> bool:
    """Whether `value` is one of the values of `kind`."""
    code, ndim = kind
    if ndim == 0:
        if code == "i":
            return type(value) is int or type(value) in _INT_TYPES
        if code == "iw":
            return type(value) is int
        if code in ("f0", "f40"):
            dtype = np.float64 if code == "f0" else np.float32
            scalars = (float, np.float64) if code == "f0" else (np.float32,)
            return type(value) in scalars or (
                type(value) is np.ndarray and value.shape == () and value.dtype == dtype
            )
        allowed = {
            "f": (float, np.float64),
            "w": (float,),
            "f4": (np.float32,),
            "f4w": (float, np.float32),
            "c": (complex, np.complex128),
            "cw": (complex,),
            "c8": (np.complex64,),
        }[code]
        return type(value) in allowed
    return kind_of(value) == kind


def _signed_with_unsigned(values: tuple[Any, ...]) -> bool:
    """Whether NumPy ints of both signs meet, which NumPy promotes to a float64 (where
    no int type holds both), though `int` arithmetic's kind says an int."""
    kinds = {np.asarray(v).dtype.kind for v in values if type(v) is not int}
    return kinds == {"i", "u"}


def primitives_with_result_kinds() -> list[Any]:
    return [p for p in REGISTRY.primitives() if p.result is not None]


def _calls(primitive: Any) -> list[tuple[Kind, ...]]:
    ones = [(k,) for k in KINDS]
    twos = list(itertools.product(KINDS, KINDS))
    return ones + twos + [(FLOAT, FLOAT, FLOAT), (F32, F32, F32), (INT, INT, INT)]


@pytest.mark.parametrize(
    "primitive",
    primitives_with_result_kinds(),
    ids=lambda p: getattr(p.function, "__name__", str(p.function)),
)
def test_result_kind_is_what_numpy_returns(primitive):
    if primitive.function in (range, len):
        return  # kinds of their own (`RANGE`, `INT`), not dtypes
    for kinds in _calls(primitive):
        predicted = primitive.result(as_scalars(primitive.function, list(kinds)))
        if predicted is None:
            continue  # unknown: nothing is claimed
        for values in itertools.product(*map(members, kinds)):
            if _signed_with_unsigned(values):
                continue  # a known gap, ints only (no derivative): int64 + uint64 is a float64
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    result = primitive.function(*values)
                except ValueError:  # outside `math.acosh`'s domain: raises, as the primal
                    continue
                except TypeError:  # of complex numbers, `math.sin`, `np.cbrt`: it raises
                    if any(np.iscomplexobj(v) for v in values):
                        continue
                    raise
            described = [f"{type(v).__name__} {getattr(v, 'dtype', '')}" for v in values]
            assert belongs(result, predicted), (
                f"{primitive.function} of {described} gives {type(result).__name__} "
                f"{getattr(result, 'dtype', '')}, not {predicted}"
            )


def test_a_kind_is_given_for_float32_code_as_people_write_it():
    """The table is not vacuous: float32 arithmetic with literals and float32 operands keeps
    its kind, and what NEP 50 makes float64 (a NumPy float64 scalar) is float64 or unknown."""
    add = REGISTRY.primitive(__import__("operator").add).result
    assert add([("f4", 1), PYTHON_FLOAT]) == ("f4", 1)
    assert add([("f4", 1), ("f", 1)]) == ("f", 1)
    assert add([("f4", 1), FLOAT]) is None  # a Python float or a NumPy float64: either
    assert add([F32_OR_PYTHON, F32]) == F32
    assert add([F32, INT]) is None  # float32 with an int32 is float64, with an int8 float32
    assert add([("f4", 1), PYTHON_INT]) == ("f4", 1)  # a loop's index, `len(x)`: weak
    assert add([PYTHON_INT, PYTHON_INT]) == PYTHON_INT
    assert add([PYTHON_INT, INT]) == INT
    assert REGISTRY.primitive(np.sin).result([F32]) == F32
    assert REGISTRY.primitive(math.sin).result([F32]) == PYTHON_FLOAT
    assert REGISTRY.primitive(np.sum).result([("f4", 2)]) == F32


@pytest.mark.parametrize(("first", "second"), list(itertools.product(SCALARS, SCALARS)))
def test_join_holds_both(first, second):
    joined = join(first, second)
    if joined is not None:
        for value in members(first) + members(second):
            assert belongs(value, joined)


def test_half_precision_has_no_class_and_complex_its_own():
    for value in (np.float16(1), np.zeros(2, "e"), np.zeros(2, np.longdouble)):
        assert kind_of(value) is None
    assert not dtypes.is_real("c") and dtypes.is_complex("c")
    scalars = [kind_of(v) for v in (1j, np.complex128(1), np.complex64(1))]
    assert scalars == [("c", 0), ("c", 0), ("c8", 0)]
    assert kind_of(np.zeros((2, 3), complex)) == ("c", 2)
    assert kind_of(np.zeros(2, np.complex64)) == ("c8", 1)


def test_complex_arithmetic_and_magnitudes_have_kinds():
    """Not vacuous for complex: arithmetic, `np.exp`, `np.sum` keep the complex class (a
    literal `1j` weak: a complex64 array stays one), `abs` gives the real one."""
    add = REGISTRY.primitive(__import__("operator").add).result
    assert add([("c", 1), ("cw", 0)]) == ("c", 1)
    assert add([("c8", 1), ("cw", 0)]) == ("c8", 1)
    assert add([("f", 1), ("cw", 0)]) == ("c", 1)
    assert add([("cw", 0), PYTHON_INT]) == ("cw", 0)
    assert add([("c", 0), FLOAT]) == ("c", 0)
    assert REGISTRY.primitive(np.exp).result([("c", 1)]) == ("c", 1)
    assert REGISTRY.primitive(np.sum).result([("c8", 2)]) == ("c8", 0)
    assert REGISTRY.primitive(abs).result([("c", 0)]) == FLOAT
    assert REGISTRY.primitive(np.abs).result([("c8", 1)]) == ("f4", 1)
    assert REGISTRY.primitive(math.sin).result([("c", 0)]) is None


def primitives_with_options() -> list[Any]:
    return [p for p in primitives_with_result_kinds() if p.result.with_options is not None]


OPTIONS: list[dict[str, Any]] = [
    {"axis": axis, "keepdims": keepdims}
    for axis in (None, 0, 1, -1, -2, 2, (0,), (0, 1), (1, 0), (0, -1), (0, 0))
    for keepdims in (False, True)
]
OPTIONS += [{"axis": 0}, {"keepdims": True}, {"axis": 0, "dtype": None}, {"axis": 1.0}]


@pytest.mark.parametrize(
    "primitive",
    primitives_with_options(),
    ids=lambda p: getattr(p.function, "__name__", str(p.function)),
)
def test_result_kind_with_options_is_what_numpy_returns(primitive):
    """Reductions over axes (`np.sum(x, axis=1, keepdims=True)`): the kind predicted for
    constant options, where one is, is that of what NumPy returns."""
    assert len(primitives_with_options()) >= 6  # np.sum, np.mean, np.max, np.min...
    for kind in KINDS:
        for options in OPTIONS:
            predicted = primitive.result.given([kind], options)
            if predicted is None:
                continue
            for value in members(kind):
                result = primitive.function(value, **options)
                assert belongs(result, predicted), (primitive.function, kind, options, result)


def test_a_zero_dimensional_array_is_what_numpy_makes_of_a_float_or_of_the_shape_of_none():
    """`ZERO_D` (a float64 that may be a 0-d array) where NumPy makes one: `np.array(x)` of
    a float64 number, `np.zeros(())`; and the arithmetic on it is a float64 scalar."""
    for function in (np.zeros, np.ones, np.empty):
        predicted = REGISTRY.primitive(function).result([EMPTY_TUPLE])
        assert predicted == ZERO_D and belongs(function(()), predicted)
    assert REGISTRY.primitive(np.zeros).result([PYTHON_INT]) is None
    for value in members(ZERO_D):
        assert belongs(np.array(value), REGISTRY.primitive(np.array).result([ZERO_D]))
    add = REGISTRY.primitive(__import__("operator").add)
    assert add.result(as_scalars(add.function, [ZERO_D, PYTHON_FLOAT])) == FLOAT
    assert add.result([ZERO_D, PYTHON_FLOAT]) is None  # (read as a float64 by `as_scalars` only)

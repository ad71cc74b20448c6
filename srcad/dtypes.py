"""The dtype class of a kind (`srcad.kinds`): the first of its two parts, and how NumPy's
type promotion carries it from the operands of an operation to its result.

A class names the set of types a value of the kind may have, as NumPy promotes them: a
Python number by its type (NumPy 2 promotes it *weakly*, NEP 50: `float32 array * 2.0` is a
float32 array), a NumPy scalar or array by its dtype (strongly: `float32 array *
np.float64(2.0)` is a float64 array). The classes:

- `"f"`: a float64 array; of no dimensions, a Python float or a NumPy float64 (what
  `float` arguments and the elements of float64 arrays are);
- `"f4"`: a float32 array, or a NumPy float32;
- `"w"`: a Python float, for sure (a literal `2.0`, `math.sin`'s result); no argument has
  it, and it joins `"f"` into `"f"` (`s = 0.0`, then `s += x[i]`);
- `"f4w"`: a NumPy float32 or a Python float (that `s`, over a float32 array);
- `"f0"`: a float64 that may be a 0-d float64 array (`np.array(0.0)`); only code gives it,
  and it is no real class: only the operations that take a 0-d array as a NumPy float64
  (`unwraps_0d`) read it, as `"f"` (`srcad.kinds.as_scalars`); an argument that is a 0-d
  float64 array has it too (`srcad.kinds.kind_of` an argument);
- `"f40"`: a NumPy float32 that may be a 0-d float32 array: an argument that is a 0-d
  float32 array (a NumPy float32 is `"f4"`); like `"f0"`, no real class, read as `"f4"`
  by the operations that unwrap a 0-d array;
- `"i"`: an int of any width (Python or NumPy, scalar or array), never a bool;
- `"iw"`: a Python int, for sure (a literal `2`, what `len` gives, an item of a `range`); no
  argument has it, and it joins `"i"` into `"i"`. Like a Python float, NumPy promotes it
  weakly: `float32 array * i` is a float32 array for a loop's `i`, but may be a float64 one
  for a NumPy int.

Each class's members are listed once (`_members`), and a result's class is worked out from
NumPy's own `result_type` over every pair of members (`promoted`), so the model is NumPy's
promotion, not a table kept beside it; where the members' results span two classes (a
float32 with an int of unknown width: float32 for int16, float64 for int32) the result has
no class, and its kind is unknown. `tests/srcad/test_dtypes.py` checks every primitive with
a result kind against what NumPy returns, for every pair of operand kinds.

Three classes of complex numbers, which NumPy promotes as it does the real ones:

- `"c"`: a complex128 array; of no dimensions, a Python complex or a NumPy complex128;
- `"c8"`: a complex64 array, or a NumPy complex64;
- `"cw"`: a Python complex, for sure (a literal `1j`), weak as a Python float is
  (`float32 array * 1j` is a complex64 array); it joins `"c"` into `"c"`.

Their kinds select only what an inline derivative states for complex operands (with
`conj` where the real one has none: `srcad.templates.Inline`'s `complex`).
Float16, longdouble and bools have no class: such values always take the general rules.
"""

from __future__ import annotations

import builtins
import functools
import itertools
import operator
from typing import Any

import numpy as np

FLOAT64, FLOAT32, PYTHON_FLOAT, FLOAT32_OR_PYTHON, INTEGER = "f", "f4", "w", "f4w", "i"
PYTHON_INT = "iw"
FLOAT64_OR_0D, FLOAT32_OR_0D = "f0", "f40"
COMPLEX128, COMPLEX64, PYTHON_COMPLEX = "c", "c8", "cw"
COMPLEX = frozenset({COMPLEX128, COMPLEX64, PYTHON_COMPLEX})
REAL = frozenset({FLOAT64, FLOAT32, PYTHON_FLOAT, FLOAT32_OR_PYTHON})  # the real floats
INTEGERS = frozenset({INTEGER, PYTHON_INT})

_F8, _F4 = np.dtype(np.float64), np.dtype(np.float32)
_C16, _C8 = np.dtype(np.complex128), np.dtype(np.complex64)
_INTS = tuple(np.dtype(c) for c in "bhilqBHILQ")  # every NumPy int width, signed or not


def is_real(code: str) -> bool:
    """Whether values of this class are real floats (of some precision)."""
    return code in REAL


# What takes a 0-d float64 array as it takes a NumPy float64 and gives the same (a NumPy
# scalar, never a 0-d array: NumPy's ufuncs unwrap one), beside NumPy's ufuncs and the
# `math` module's functions (which read a float from it). Not `min`, `max`, nor what
# returns an argument or a view of it (`np.asarray`, `np.real`, `x[...]`).
_UNWRAPPING = frozenset(
    [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
     operator.mod, operator.pow, operator.neg, operator.pos, builtins.abs, float]
)  # fmt: skip


def unwraps_0d(function: Any) -> bool:
    """Whether `function` gives for a 0-d float64 (float32) array what it gives for a
    NumPy float64 (float32)."""
    if isinstance(function, np.ufunc) or getattr(function, "__module__", None) == "math":
        return True
    try:
        return function in _UNWRAPPING
    except TypeError:  # (unhashable: none of them)
        return False


def is_complex(code: str) -> bool:
    """Whether values of this class are complex numbers (of some precision)."""
    return code in COMPLEX


def is_integer(code: str) -> bool:
    """Whether values of this class are ints (of some width)."""
    return code in INTEGERS


def _members(code: str, ndim: int) -> tuple[Any, ...] | None:
    """What a value of class `code` with `ndim` dimensions may be: `float` and `int` for
    Python's numbers, a dtype for NumPy's scalars and arrays; None: no such kind."""
    scalar = ndim == 0
    if code == FLOAT64:
        return (float, _F8) if scalar else (_F8,)
    if code == FLOAT32:
        return (_F4,)
    if code == PYTHON_FLOAT:
        return (float,) if scalar else None
    if code == FLOAT32_OR_PYTHON:
        return (float, _F4) if scalar else None
    if code == INTEGER:
        return (int, *_INTS) if scalar else _INTS
    if code == PYTHON_INT:
        return (int,) if scalar else None
    if code == COMPLEX128:
        return (complex, _C16) if scalar else (_C16,)
    if code == COMPLEX64:
        return (_C8,)
    if code == PYTHON_COMPLEX:
        return (complex,) if scalar else None
    return None


_PYTHON = (float, int, complex)  # Python's numbers, compared by identity (`_python_name`)


def _class_of(results: list[Any]) -> str | None:
    """The smallest class holding every one of `results` (types and dtypes), or None."""
    # By identity and dtype character, never `==` nor a set of both: `np.dtype(np.float64)
    # == float` holds, and the two hash alike.
    names = {_python_name(r) or r.char for r in results}
    if names <= {"float"}:
        return PYTHON_FLOAT
    if names <= {"float", "d"}:
        return FLOAT64
    if names <= {"f"}:
        return FLOAT32
    if names <= {"float", "f"}:
        return FLOAT32_OR_PYTHON
    if names <= {"int"}:
        return PYTHON_INT
    if names <= {"int", *(dtype.char for dtype in _INTS)}:
        return INTEGER
    if names <= {"complex"}:
        return PYTHON_COMPLEX
    if names <= {"complex", "D"}:
        return COMPLEX128
    if names <= {"F"}:
        return COMPLEX64
    return None


def _python_name(member: Any) -> str | None:
    """`"float"`, `"int"`, `"complex"` for Python's number types (by identity), else None."""
    return next((t.__name__ for t in _PYTHON if member is t), None)


def _weak(member: Any) -> Any:
    """What `np.result_type` reads a member as: a Python number stands for its own type."""
    name = _python_name(member)
    return member if name is None else {"float": 1.0, "int": 1, "complex": 1j}[name]


@functools.cache
def promoted(operands: tuple[tuple[str, int], ...], divides: bool = False) -> str | None:
    """The class of the result of an arithmetic operation (`+`, `*`, `**`, `@`, ...; `/`
    where `divides`, which makes ints floats) on operands of these `(class, ndim)`, by
    NumPy 2's promotion and Python's for two Python numbers; None where it depends on
    which member a value is.

    >>> promoted((("f4", 1), ("w", 0))), promoted((("f4", 1), ("f", 0)))
    ('f4', None)
    >>> promoted((("f4w", 0), ("f4", 0))), promoted((("f4", 1), ("i", 0)))
    ('f4', None)
    """
    choices = [_members(code, ndim) for code, ndim in operands]
    if any(members is None for members in choices):
        return None
    results: list[Any] = []
    for combination in itertools.product(*choices):  # type: ignore[arg-type]
        # (by identity: a dtype compares equal to the type it stands for, `_F8 == float`)
        if all(_python_name(member) for member in combination):  # Python's
            if any(member is complex for member in combination):
                results.append(complex)
            else:
                results.append(float if divides or float in combination else int)
            continue
        dtype = np.result_type(*map(_weak, combination))
        results.append(_F8 if divides and dtype.kind in "iu" else dtype)
    return _class_of(results)


def float_function(code: str) -> str | None:
    """The class of what a NumPy float function (`np.sin`, `np.sum`, `np.linalg.inv`)
    gives for a real argument of class `code`: float32 for float32 (for a float32 or a
    Python float, either: none), float64 for a Python float. Ints get none: NumPy picks
    the float by their width (float16 for int8)."""
    return _FLOAT_FUNCTION.get(code)


# (A complex argument gives a complex result of its precision: `np.exp`, `np.sum`.)
_FLOAT_FUNCTION = {FLOAT64: FLOAT64, PYTHON_FLOAT: FLOAT64, FLOAT32: FLOAT32}
_FLOAT_FUNCTION.update({COMPLEX128: COMPLEX128, PYTHON_COMPLEX: COMPLEX128, COMPLEX64: COMPLEX64})


def real_kind(kind: tuple[str, int]) -> tuple[str, int] | None:
    """The kind of `x.real`, `x.imag`, `np.real(x)`, `np.imag(x)` for `x` of `kind`: a
    complex one's real class (`real_part`), a real or integer one's own (a view, a Python
    number's own type); None for anything else (a 0-d array, a list)."""
    code, ndim = kind
    if code in COMPLEX:
        real = real_part(code)
        return None if real is None else (real, ndim)
    return kind if code in REAL or code in INTEGERS else None


def real_part(code: str) -> str | None:
    """The class of the real part or the magnitude of a complex number of class `code`
    (`abs(z)`, `z.real`): a Python float of a Python complex, a NumPy float of a NumPy
    complex (`abs(np.complex128(1j))` is a float64)."""
    return {COMPLEX128: FLOAT64, COMPLEX64: FLOAT32, PYTHON_COMPLEX: PYTHON_FLOAT}.get(code)


def joined(first: str, second: str) -> str | None:
    """The class holding both classes' members (of no dimensions: an array's class is its
    dtype, and two dtypes never join), or None.

    >>> joined("w", "f"), joined("w", "f4"), joined("f", "f4")
    ('f', 'f4w', None)
    """
    if first == second:
        return first
    members = [*(_members(first, 0) or (None,)), *(_members(second, 0) or (None,))]
    return None if any(m is None for m in members) else _class_of(members)

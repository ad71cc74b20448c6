"""Kinds: what srcad knows about a value before the code runs, so that it can specialise.

A kind is `(dtype, ndim)`: `("f", 0)` a real float (a Python `float` or a NumPy float64
scalar), `("i", 0)` an int (Python or NumPy, never a bool), `("f", n)` and `("i", n)` a
float64 or integer `ndarray` with `n >= 1` dimensions; `("f4", 0)` a NumPy float32 scalar
and `("f4", n)` a float32 array. Two kinds of floats only code gives (never an argument):
`("w", 0)`, a Python float for sure (a literal `2.0`, `math.sin`'s result), `("f4w",
0)`, a float32 scalar or a Python float (`s = 0.0` then `s += x[i]` over a float32 array),
and `("iw", 0)`, a Python int for sure (a literal, `len(x)`, a `range`'s item). They matter
because NumPy 2 promotes Python numbers weakly (NEP 50): `float32 array * 2.0` and
`float32 array * i` are float32 arrays, `float32 array * np.float64(2.0)` a float64 one, so
the kind of a result follows the dtype class of its operands (`srcad.dtypes.promoted`,
NumPy's own rules).
One more only code gives: `("f0", 0)` (`ZERO_D`), a float64 that may be a 0-d array
(`np.array(0.0)`, then `acc = acc + x[i]`): no immutable number, neither `is_real` nor
`is_numeric`; only the operations that take it as a float64 read it as one (`as_scalars`).
Complex numbers have kinds of their own classes: `("c", n)` a Python complex or NumPy
complex128 (an array of them), `("c8", n)` complex64, `("cw", 0)` a Python complex for sure
(`1j`); `is_real` and `is_numeric` hold for none of them, so only what states a complex case
(`is_complex`: an inline derivative's `complex` templates, written with `conj`) takes them.
An argument that is a 0-d float64 array has `ZERO_D` too, a 0-d float32 one `("f40", 0)`
(`ZERO_D32`, read as a float32 so: `kind_of` an argument). Everything else (float16, bools,
0-d arrays of other dtypes or inside containers, objects) has no kind, written `None`: code
touching it calls the general rules, which handle any type.
An argument that is a container of values with kinds (a tuple, list, dict, NamedTuple or
dataclass) has its structure as its kind (`Structure`, at the end of this module).

Compiled rules are specialised on the kinds of the arguments they are called with (their
*signature*): where every operand of an operation has a kind, the emitted code can do the
operation's derivative as plain arithmetic, without the rule's projections. The kinds of
the sizes, never the sizes themselves, are part of the signature, so a loop's trip count or
an array's length never causes a recompilation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from srcad import dtypes

Kind = tuple[str, int]
# What an argument's kind may be: a value kind, a container's (`Structure`, below), or none.
ArgumentKind: TypeAlias = "Kind | Structure | None"
Signature: TypeAlias = "tuple[ArgumentKind, ...]"

FLOAT: Kind = ("f", 0)
PYTHON_FLOAT: Kind = ("w", 0)  # a Python float for sure: a literal (`srcad.dtypes`)
INT: Kind = ("i", 0)
PYTHON_INT: Kind = ("iw", 0)  # a Python int for sure: a literal, `len`'s (`srcad.dtypes`)
RANGE: Kind = ("range", 0)  # what `range(...)` gives: iterating it gives ints
# A tuple of Python floats (a module's coefficients): iterating it, or indexing it with an
# int, gives a float. Only constants read from outside the function have it (`constant_kinds`).
FLOATS: Kind = ("floats", 1)
# `[]`; a list of numbers of kind `(code, 0)` is `("[code]", 1)` (`list_of`).
# A float64 that may be a 0-d array (module docstring; `as_scalars`); `()`, the shape of one.
ZERO_D, EMPTY_TUPLE = (dtypes.FLOAT64_OR_0D, 0), ("()", 0)
ZERO_D32: Kind = (dtypes.FLOAT32_OR_0D, 0)  # a float32 that may be a 0-d array (an argument's)
# The kinds of 0-d arrays (`kind_of` an argument), and what `as_scalars` reads each as.
ZERO_DS: dict[Kind, Kind] = {ZERO_D: FLOAT, ZERO_D32: (dtypes.FLOAT32, 0)}
# Kinds no callee is compiled for: a call's argument of one is passed as of no kind.
NO_CALLEE_KINDS = frozenset({*ZERO_DS, EMPTY_TUPLE})
EMPTY_LIST: Kind = ("[]", 1)

_SCALARS: dict[type, Kind] = {float: FLOAT, np.float64: FLOAT, int: INT, np.float32: ("f4", 0)}
_SCALARS.update({complex: ("c", 0), np.complex128: ("c", 0), np.complex64: ("c8", 0)})
_SCALARS.update({t: INT for t in (np.int8, np.int16, np.int32, np.int64, np.intp)})
_SCALARS.update({t: INT for t in (np.uint8, np.uint16, np.uint32, np.uint64)})


def kind_of(value: Any, argument: bool = False) -> Kind | None:
    """The kind of one value, or None; of an `argument` (what `signature` and the entries
    read), a 0-d float64 or float32 array's too: `ZERO_D`, `ZERO_D32`.

    >>> kind_of(1.5), kind_of(np.zeros((2, 3))), kind_of(True), kind_of(np.float32(1))
    (('f', 0), ('f', 2), None, ('f4', 0))
    >>> kind_of(np.array(0.5)), kind_of(np.array(0.5), argument=True)
    (None, ('f0', 0))
    """
    kind = _SCALARS.get(type(value))
    if kind is not None or type(value) is not np.ndarray:
        return kind
    ndim, code = value.ndim, value.dtype.char
    if ndim == 0:
        return {"d": ZERO_D, "f": ZERO_D32}.get(code) if argument else None
    if code == "d":
        return ("f", ndim)
    if code == "f":  # NumPy's character code of float32
        return ("f4", ndim)
    if code in "DF":  # complex128, complex64
        return ("c" if code == "D" else "c8", ndim)
    if value.dtype.kind in "iu":
        return ("i", ndim)
    return None


def signature(args: tuple[Any, ...]) -> Signature:
    """The kinds of a call's positional arguments: a value kind (`kind_of` an argument), or
    a container's (`structure_of`)."""
    if len(args) == 1:  # the common case, without building a list
        return (kind_of(args[0], True) or structure_of(args[0], MAX_DEPTH),)
    return tuple(kind_of(arg, True) or structure_of(arg, MAX_DEPTH) for arg in args)


def describe(kind: Kind | Structure | None) -> str:
    """A kind in the notation `srcad show --args` reads: `float`, `int[:, :]`, `?`; a
    container's as `tuple(float[:, :], float)`, `dict(w=float[:], b=float)`."""
    if kind is None:
        return "?"
    if isinstance(kind, Structure):
        return kind.describe()
    if is_list(kind):  # (a list the function made: `list_of`)
        return f"list[{describe(list_item(kind))}]"
    dtype, ndim = kind
    if kind in ZERO_DS:  # (a 0-d array's: `float[()]`, `float32[()]`)
        return f"{describe(ZERO_DS[kind])}[()]"
    base = _NAMES.get(dtype, "?")
    return base if ndim == 0 else f"{base}[{', '.join([':'] * ndim)}]"


_NAMES = {"f": "float", "w": "float", "f4": "float32", "i": "int", "iw": "int"}
_NAMES.update({"c": "complex", "cw": "complex", "c8": "complex64"})


# -- result kinds: how a primitive's result kind follows from its arguments' kinds ----------


@dataclass(frozen=True)
class ResultKind:
    """How the kind of a primitive's result follows from the kinds of its positional
    arguments (None where the kinds do not tell, and for calls with other numbers of
    arguments). Each primitive's entry in `rules/` names one of those below; the value
    kinds analysis (`passes/analyses/value_kinds.py`) asks the registry for it.

    `elementwise`: the primitive acts on each element alone, so its result has the shape
    of its (broadcast) arguments: what shape inference and uniform cotangents rely on.
    `with_options`: the result's kind where keyword options are passed too, as constants
    (`np.sum(x, axis=1, keepdims=True)`); without it, such a call's is unknown.
    """

    name: str
    of: Callable[[Sequence[Kind | None]], Kind | None]
    elementwise: bool = False
    with_options: Callable[[Sequence[Kind | None], Mapping[str, Any]], Kind | None] | None = None

    def __call__(self, args: Sequence[Kind | None]) -> Kind | None:
        return self.of(args)

    def given(self, args: Sequence[Kind | None], options: Mapping[str, Any]) -> Kind | None:
        """The kind for positional arguments of kinds `args` and constant keyword options."""
        if not options:
            return self.of(args)
        return None if self.with_options is None else self.with_options(args, options)


def is_real(kind: Kind | None) -> bool:
    """Whether values of this kind are real floats or float arrays, of any precision
    (`srcad.dtypes`): what an inline derivative, written without `conj`, may act on."""
    return kind is not None and dtypes.is_real(kind[0])


def is_real_scalar(kind: Kind | None) -> bool:
    """Whether values of this kind are real floats of no dimensions (immutable numbers)."""
    return is_real(kind) and kind is not None and kind[1] == 0


def is_numeric(kind: Kind | None) -> bool:
    """Whether values of this kind are real floats, ints, or arrays of them."""
    return kind is not None and (dtypes.is_integer(kind[0]) or dtypes.is_real(kind[0]))


def is_complex(kind: Any) -> bool:
    """Whether values of this kind are complex numbers or arrays (`srcad.dtypes`)."""
    return isinstance(kind, tuple) and dtypes.is_complex(kind[0])


def is_inexact(kind: Kind | None) -> bool:
    """Whether values of this kind have (co)tangents: floats (`is_float`) or complex."""
    return is_float(kind) or is_complex(kind)


def is_integer(kind: Any) -> bool:
    """Whether values of this kind are ints or int arrays (not a `Structure`)."""
    return isinstance(kind, tuple) and dtypes.is_integer(kind[0])


def is_int_scalar(kind: Any) -> bool:
    """Whether values of this kind are ints of no dimensions (an index, a count)."""
    return is_integer(kind) and kind[1] == 0


def list_of(item: Kind | None) -> Kind | None:
    """The kind of a list the function makes (by a display and appends), each element of
    the kind `item`, a number's; or None. Only `ValueKinds` gives one, to a list nothing
    but appends changes: iterating it, or indexing it with an int, gives an element's kind
    (`list_item`). No dtype class: arithmetic on it has no kind."""
    if item is None or item[1] != 0 or not is_numeric(item):
        return None
    return (f"[{item[0]}]", 1)


def list_item(kind: Any) -> Kind | None:
    """The kind of each element of a list of kind `kind` (`list_of`), or None."""
    return (kind[0][1:-1], 0) if is_list(kind) and kind != EMPTY_LIST else None


def is_list(kind: Any) -> bool:
    return isinstance(kind, tuple) and kind[0].startswith("[")  # `list_of`'s, `EMPTY_LIST`


def join(first: Kind | None, second: Kind | None) -> Kind | None:
    """A kind holding the values of both (a name assigned by two statements), or None."""
    if first == second or first is None or second is None:
        return first if first == second else None
    if ZERO_D in (first, second):  # with a float64 or a Python float: a float64 or 0-d array
        other = second if first == ZERO_D else first
        return ZERO_D if other in (FLOAT, PYTHON_FLOAT) else None
    if ZERO_D32 in (first, second):  # with a float32: a float32 or 0-d array
        return ZERO_D32 if {first, second} == {ZERO_D32, ZERO_DS[ZERO_D32]} else None
    if is_list(first) and is_list(second):  # an empty list holds what any list holds
        if EMPTY_LIST in (first, second):
            return second if first == EMPTY_LIST else first
        return list_of(join(list_item(first), list_item(second)))
    if first[1] != 0 or second[1] != 0:
        return None
    code = dtypes.joined(first[0], second[0])
    return None if code is None else (code, 0)


def is_float(kind: Kind | None) -> bool:
    """Whether values of this kind are real floats or arrays, or 0-d arrays (`ZERO_DS`)."""
    return kind in ZERO_DS or is_real(kind)


def as_scalars(function: Any, args: Sequence[Kind | None]) -> Sequence[Kind | None]:
    """The kinds of `function`'s arguments as its result kind and inline derivative read
    them: a `ZERO_D` (`ZERO_D32`) one as a float64 (float32) where `function` gives for a
    0-d array what it gives for a NumPy scalar (`dtypes.unwraps_0d`); else as they are
    (`tests/srcad/test_dtypes.py` checks it against what each primitive returns for them)."""
    if not any(arg in ZERO_DS for arg in args) or not dtypes.unwraps_0d(function):
        return args
    return [ZERO_DS.get(arg, arg) for arg in args]  # type: ignore[arg-type]


_numeric = is_numeric


def _number(kind: Kind | None) -> bool:
    """`is_numeric`, or complex: what arithmetic, `np.exp` and `np.sum` take alike."""
    return _numeric(kind) or is_complex(kind)


def _one(args: Sequence[Kind | None], complex_too: bool = False) -> Kind | None:
    """The one numeric argument (or complex one, where `complex_too`), or None."""
    if len(args) != 1:
        return None
    return args[0] if _numeric(args[0]) or (complex_too and is_complex(args[0])) else None


def _reduction(code_of: Callable[[str], str | None]) -> Any:
    """The kind of a reduction of an array (`np.sum`, `np.max`) over the `axis` option
    (an int, a tuple of them, None for all), with `keepdims`: its dtype class `code_of`
    the array's, its dimensions those left. None for other options, an axis out of range
    or named twice (NumPy raises), and a number (a 0-d array where `keepdims`)."""

    def with_options(args: Sequence[Kind | None], options: Mapping[str, Any]) -> Kind | None:
        arg = _one(args, complex_too=True)
        if arg is None or arg[1] == 0 or not set(options) <= {"axis", "keepdims"}:
            return None
        code = code_of(arg[0])
        axis, keepdims = options.get("axis"), options.get("keepdims", False)
        if code is None or type(keepdims) is not bool:
            return None
        ndim = arg[1]
        axes = (axis,) if type(axis) is int else axis
        if axes is None:
            removed = ndim
        elif type(axes) is tuple and all(type(a) is int and -ndim <= a < ndim for a in axes):
            if len({a % ndim for a in axes}) != len(axes):
                return None
            removed = len(axes)
        else:
            return None
        return (code, ndim if keepdims else ndim - removed)

    return with_options


def _own_class(code: str) -> str | None:
    """An extremum's dtype class: the array's own (`np.max` of ints is an int)."""
    return code if code in (FLOAT[0], INT[0], "f4") else None


_extremum_with_options = _reduction(_own_class)


def _extremum_of_array(args: Sequence[Kind | None]) -> Kind | None:
    """`np.max(x)`, `np.min(x)` of an array, without options: one of its elements."""
    return _extremum_with_options(args, {"axis": None})


def _float_function(arg: Kind | None, ndim: int) -> Kind | None:
    """A NumPy float function's result of `ndim` dimensions, for one argument of this
    kind (`srcad.dtypes.float_function`)."""
    code = None if arg is None else dtypes.float_function(arg[0])
    return None if code is None else (code, ndim)


def _float_elementwise(args: Sequence[Kind | None]) -> Kind | None:
    arg = _one(args, complex_too=True)
    return None if arg is None else _float_function(arg, arg[1])


def _same(args: Sequence[Kind | None]) -> Kind | None:
    """The argument's kind, but a Python float may come back a NumPy float64 (`np.abs`),
    a Python int a NumPy int, a Python complex a NumPy complex128, and a
    float32-or-Python-float either."""
    arg = _one(args, complex_too=True)
    if arg is None or arg[0] == "f4w":
        return None
    return {"w": FLOAT, "iw": INT, "cw": ("c", 0)}.get(arg[0], arg)


def _magnitude(args: Sequence[Kind | None]) -> Kind | None:
    """`abs(x)`, `np.abs(x)`: of a real `x`, its kind (`_same`); of a complex one, a real
    one of its precision (`abs(1j)` a float, `abs(np.complex128(1j))` a NumPy float64)."""
    arg = _one(args, complex_too=True)
    if arg is None or not is_complex(arg):
        return _same(args)
    code = dtypes.real_part(arg[0])
    return None if code is None else ({"w": "f"}.get(code, code), arg[1])


def _float_of_float(args: Sequence[Kind | None]) -> Kind | None:
    arg = _one(args)
    return PYTHON_FLOAT if arg is not None and arg[1] == 0 else None


def _float_of_two_numbers(args: Sequence[Kind | None]) -> Kind | None:
    numbers = len(args) == 2 and all(_numeric(arg) and arg[1] == 0 for arg in args)  # type: ignore[index]
    return PYTHON_FLOAT if numbers else None


def _cast(code: str) -> Callable[[Sequence[Kind | None]], Kind | None]:
    """`np.float64(x)`, `np.float32(x)`: a number or array of that dtype, as `x` is."""

    def of(args: Sequence[Kind | None]) -> Kind | None:
        arg = _one(args)
        return None if arg is None else (code, arg[1])

    return of


def _to_float(args: Sequence[Kind | None]) -> Kind | None:
    arg = _one(args, complex_too=True)
    return None if arg is None else _float_function(arg, 0)


def _of_matrix(ndim: int) -> Callable[[Sequence[Kind | None]], Kind | None]:
    """A float of `ndim` dimensions from a matrix: float64 from ints, else its own."""

    def of(args: Sequence[Kind | None]) -> Kind | None:
        arg = _one(args)
        if arg is None or arg[1] != 2:
            return None
        return ("f", ndim) if dtypes.is_integer(arg[0]) else _float_function(arg, ndim)

    return of


def _two(args: Sequence[Kind | None]) -> tuple[Kind, Kind, bool] | None:
    """Two numeric (or complex) arguments, and whether either is a float or complex."""
    if len(args) != 2:
        return None
    left, right = args
    if not (_number(left) and _number(right)):
        return None
    assert left is not None and right is not None
    return left, right, is_inexact(left) or is_inexact(right)


def _arithmetic(left: Kind, right: Kind, ndim: int, divides: bool = False) -> Kind | None:
    """The result of `ndim` dimensions of NumPy's arithmetic on `left` and `right`: ints
    stay ints (`/` aside), floats follow NumPy's promotion (`srcad.dtypes.promoted`)."""
    if is_integer(left) and is_integer(right) and not divides:
        both_python = left[0] == right[0] == dtypes.PYTHON_INT
        return (dtypes.PYTHON_INT if both_python else dtypes.INTEGER, ndim)
    code = dtypes.promoted((left, right), divides)
    return None if code is None or dtypes.is_integer(code) else (code, ndim)


def _promoted(args: Sequence[Kind | None]) -> Kind | None:
    both = _two(args)
    if both is None:
        return None
    left, right, _ = both
    return _arithmetic(left, right, max(left[1], right[1]))


def _divided(args: Sequence[Kind | None]) -> Kind | None:
    both = _two(args)
    if both is None:
        return None
    left, right, _ = both
    return _arithmetic(left, right, max(left[1], right[1]), divides=True)


def _float_ufunc_of_two(args: Sequence[Kind | None]) -> Kind | None:
    """`_divided`, but as SciPy's ufuncs give it: of two Python floats, a NumPy float64;
    with a float32, none (`xlogy(0.5, np.float32(1))` is a float64, unlike NumPy's own)."""
    kind = _divided(args)
    if kind is None or kind[0] not in ("w", "f"):
        return None
    return (FLOAT[0], kind[1])


def _as_ufunc(kind: Kind | None) -> Kind | None:
    """What a NumPy ufunc gives where Python's operator gives `kind`: a NumPy scalar for
    Python numbers (`np.add(1.0, 2.0)` is a float64); unknown for a float32-or-Python-float."""
    if kind is None or kind[0] == "f4w":
        return None
    strong = {PYTHON_FLOAT[0]: FLOAT[0], PYTHON_INT[0]: INT[0], dtypes.PYTHON_COMPLEX: "c"}
    return strong.get(kind[0], kind[0]), kind[1]


def _promoted_ufunc(args: Sequence[Kind | None]) -> Kind | None:
    return _as_ufunc(_promoted(args))


def _float_ufunc(args: Sequence[Kind | None]) -> Kind | None:
    """A float ufunc's: of ints, unknown (NumPy picks the smallest float holding them,
    `np.arctan2` of two int8 is a float16); of floats, as `/` promotes them."""
    if any(kind is None or is_integer(kind) for kind in args):
        return None
    return _as_ufunc(_divided(args))


def _powered(args: Sequence[Kind | None]) -> Kind | None:
    """`a ** p`. A non-integer power of a negative Python float or int is complex
    (`(-2.0) ** 0.5`), where NumPy's is NaN: of a number that may be a Python one (all but
    a float32), unknown, unless the power is an int (`ValueKinds` takes a literal `2.0` for
    one)."""
    both = _two(args)
    if both is None or not both[2]:  # an int to an int power may be a float (2 ** -1)
        return None
    left, right, _ = both
    python_base = left[1] == 0 and left[0] != dtypes.FLOAT32 and not is_complex(left)
    if python_base and right[1] == 0 and not is_integer(right) and not is_complex(right):
        return None
    return _arithmetic(left, right, max(left[1], right[1]))


_PRODUCT_NDIM = {(2, 2): 2, (2, 1): 1, (1, 2): 1, (1, 1): 0}


def _matrix_product(args: Sequence[Kind | None]) -> Kind | None:
    both = _two(args)
    if both is None:
        return None
    left, right, _ = both
    ndim = _PRODUCT_NDIM.get((left[1], right[1]))
    return None if ndim is None else _arithmetic(left, right, ndim)


def _extremum(args: Sequence[Kind | None]) -> Kind | None:
    """`min(a, b)` of numbers returns one of them: a kind holding each of theirs; `max(xs)`
    of a list the function made (`list_of`), one of its elements (of none, it raises)."""
    if len(args) < 2 or not all(_numeric(arg) and arg[1] == 0 for arg in args):  # type: ignore[index]
        return list_item(args[0]) if len(args) == 1 else None
    return functools.reduce(join, args)


def _count(args: Sequence[Kind | None]) -> Kind | None:
    return PYTHON_INT if len(args) == 1 else None


def _range(args: Sequence[Kind | None]) -> Kind | None:
    return RANGE if args and all(is_int_scalar(a) for a in args) else None


# NumPy's float ufuncs (`np.sin`): a float, or a float array of the argument's dimensions,
# of the argument's precision.
FLOAT_ELEMENTWISE = ResultKind("float elementwise", _float_elementwise, elementwise=True)
# `np.square`, `-x`: the argument's own kind (an int stays an int).
SAME_KIND = ResultKind("same kind", _same, elementwise=True)
# `abs`, `np.abs`: a real argument's own kind; a complex one's real kind.
MAGNITUDE = ResultKind("magnitude", _magnitude, elementwise=True)
# `math.sin`, `float`: a Python float, of a float or an int only.
FLOAT_OF_FLOAT = ResultKind("float of a float", _float_of_float, elementwise=True)
# `np.float64(x)`, `np.float32(x)`: a scalar or array of that dtype.
TO_FLOAT64 = ResultKind("cast to float64", _cast(dtypes.FLOAT64), elementwise=True)
TO_FLOAT32 = ResultKind("cast to float32", _cast(dtypes.FLOAT32), elementwise=True)
# `math.atan2(a, b)`, `math.pow(x, p)`: of two numbers, a Python float.
FLOAT_OF_TWO_NUMBERS = ResultKind("float of two numbers", _float_of_two_numbers, elementwise=True)
# `np.sum`, `np.mean`: a float of the array's precision; over axes, an array of the same.
REDUCED_TO_FLOAT = ResultKind(
    "reduced to a float", _to_float, with_options=_reduction(dtypes.float_function)
)
# `np.max`, `np.min` of an array: one of its elements, or over axes an array of them.
EXTREMUM_OF_ARRAY = ResultKind(
    "extremum of an array", _extremum_of_array, with_options=_extremum_with_options
)
# `np.linalg.inv`: a float matrix, of a matrix.
MATRIX_OF_MATRIX = ResultKind("matrix of a matrix", _of_matrix(2))
# `logabsdet`: a float, of a matrix.
FLOAT_OF_MATRIX = ResultKind("float of a matrix", _of_matrix(0))
# `+`, `-`, `*`, `%`, `//`: Python's and NumPy's promotion, broadcast.
PROMOTED = ResultKind("promoted", _promoted, elementwise=True)
# `/`: always a float.
DIVIDED = ResultKind("divided", _divided, elementwise=True)
# `np.add`, `np.maximum`: `PROMOTED`, but NumPy scalars for Python numbers.
PROMOTED_UFUNC = ResultKind("promoted, by a ufunc", _promoted_ufunc, elementwise=True)
# `np.divide`, `np.arctan2`, `np.logaddexp`: `DIVIDED`, but NumPy scalars for Python numbers.
FLOAT_UFUNC_OF_TWO_NUMBERS = ResultKind("float, by a ufunc", _float_ufunc, elementwise=True)
# `scipy.special.xlogy`: a float64, of two numbers (no float32: SciPy promotes its own way).
FLOAT_UFUNC_OF_TWO = ResultKind("float ufunc of two", _float_ufunc_of_two, elementwise=True)
# `**`: a float where either operand is one.
POWERED = ResultKind("powered", _powered, elementwise=True)
# `@`: by the numbers of dimensions of a matrix or vector product.
MATRIX_PRODUCT = ResultKind("matrix product", _matrix_product)
# `min`, `max` of several numbers (one of their items: a kind holding each of theirs).
EXTREMUM = ResultKind("one of its arguments", _extremum)
# `len`: an int.
COUNT = ResultKind("count", _count)
# `range` of ints.
RANGE_OF_INTS = ResultKind("range of ints", _range)


# -- container kinds: a tuple, list, dict, NamedTuple or dataclass argument's structure ------

# The containers that get a structure: at most this many items (a container of parameters,
# not of data: each length is a signature of its own), nested at most this deep.
MAX_ITEMS = 16
MAX_DEPTH = 4


@dataclass(frozen=True)
class Structure:
    """The kind of a container argument, its structure part of it: its type (`tuple`,
    `list`, `dict`, or a NamedTuple or dataclass class whose fields `struct_fields` gives),
    its keys (a dict's, in order; a NamedTuple's or dataclass's field names; none for a
    tuple or list, whose length is that of `items`), and the kind of each item, itself a
    value kind, a structure, or None.

    Only arguments have one (`argument_kind`): the entry of `grad` tests it inline, as it
    tests a float (`srcad.entry`), and `ValueKinds` gives what the code reads of it (an
    unpacked item, `p[0]`, `p["w"]`, `p.w`, an item of a `for` over items of one kind) the
    item's kind. The function cannot change the container (`Mutations` refuses a change of
    a parameter or of what it holds), so its structure on entry is its structure throughout.
    """

    container: type
    keys: tuple[Any, ...]
    items: tuple[ArgumentKind, ...]

    def item(self, key: Any) -> ArgumentKind:
        """The kind of the item `key` selects (an int for a tuple, list or NamedTuple,
        negative from the end; a key of a dict; a field name): None where there is none."""
        if type(key) is int and self.positional:
            return self.items[key] if -len(self.items) <= key < len(self.items) else None
        if self.container is tuple or self.container is list:
            return None
        try:
            return dict(zip(self.keys, self.items, strict=True)).get(key)
        except TypeError:  # an unhashable key
            return None

    @property
    def fields(self) -> bool:
        """Whether the items are read as attributes (a NamedTuple's or dataclass's)."""
        return self.container not in (tuple, list, dict)

    @property
    def positional(self) -> bool:
        """Whether an int index, unpacking and iteration read the items in order: a tuple,
        a list, a NamedTuple that keeps `tuple`'s own `__getitem__` and `__iter__`."""
        container = self.container
        if container is tuple or container is list:
            return True
        return (
            issubclass(container, tuple)
            and container.__getitem__ is tuple.__getitem__
            and container.__iter__ is tuple.__iter__
        )

    @property
    def uniform(self) -> ArgumentKind:
        """The one kind of every item of a tuple or list (what iterating it gives), or None."""
        if not self.positional:
            return None
        first = self.items[0]
        return first if all(item == first for item in self.items) else None

    def sliced(self, index: slice) -> Structure | None:
        """The structure of a slice of a tuple or list (None if empty, or not one)."""
        if not self.positional:
            return None
        try:
            items = self.items[index]
        except ValueError:  # a step of 0
            return None
        container = list if self.container is list else tuple  # (a NamedTuple's: a tuple)
        return Structure(container, (), items) if items else None

    def holds(self, value: Any) -> bool:
        """Whether `value` has this structure."""
        return argument_kind(value) == self

    def test(self, read: str, name_of: Callable[[Any, str], str], local: Callable[[], str]) -> str:
        """The text of a test that what the expression `read` gives has this structure:
        its type, its length (a dict's keys) and each item's kind, inline, as `grad`'s entry
        tests an argument (`srcad.entry`); `name_of(value, prefix)` names the objects the
        text reads (`srcad.guards`), and `local()` a new local name the text binds to
        what `read` gives (`:=`), to read it once. An exception counts as a failed test:
        a dict's missing key raises `KeyError` (with its length, it has no other key)."""
        value = local()
        tests = [f"type({value} := {read}) is {name_of(self.container, 'e')}"]
        if not self.fields:
            tests.append(f"len({value}) == {len(self.items)}")
        keys = self.keys or range(len(self.items))
        for key, item in zip(keys, self.items, strict=True):
            part = f"{value}.{key}" if self.fields else f"{value}[{key!r}]"
            if isinstance(item, Structure):
                tests.append(item.test(part, name_of, local))
            elif item == FLOAT:
                tests.append(f"type({part}) is float")
            else:
                kind = name_of(argument_kind, "e")
                tests.append(f"{kind}({part}) == {name_of(item, 'e')}")
        return " and ".join(tests)

    def describe(self) -> str:
        """`tuple(float[:, :], float)`, `dict(w=float[:])`, `Params(w=float[:])`."""
        if not self.keys:
            parts = [describe(item) for item in self.items]
        else:
            parts = [
                f"{key}={describe(item)}" for key, item in zip(self.keys, self.items, strict=True)
            ]
        return f"{self.container.__name__}({', '.join(parts)})"


def argument_kind(value: Any) -> ArgumentKind:
    """The kind of an argument: its value kind, or its container's structure, or None.

    >>> argument_kind((np.zeros((2, 3)), 1.5)).describe()
    'tuple(float[:, :], float)'
    """
    kind = kind_of(value)
    return kind if kind is not None else structure_of(value, MAX_DEPTH)


def structure_of(value: Any, depth: int) -> Structure | None:
    """The structure of a container (`Structure`), or None: not a container, empty, over
    `MAX_ITEMS` items or `depth` levels, a dict with a key other than a str or an int, or
    no item of a known kind (nothing to specialise on)."""
    cls = type(value)
    if cls is tuple or cls is list:
        keys: tuple[Any, ...] = ()
        values = value
    elif cls is dict:
        keys = tuple(value)
        if not all(type(key) is str or type(key) is int for key in keys):
            return None
        values = tuple(value.values())
    else:
        names = _fields(cls)
        if names is None:
            return None
        keys, values = names, tuple(getattr(value, name) for name in names)
    if not values or len(values) > MAX_ITEMS or depth <= 1:
        return None
    items = tuple(
        kind if (kind := kind_of(item)) is not None else structure_of(item, depth - 1)
        for item in values
    )
    return Structure(cls, keys, items) if any(item is not None for item in items) else None


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _fields(cls: type) -> tuple[str, ...] | None:
    """The fields of a NamedTuple or plain dataclass (`primitives.struct_fields`), once per
    class; None for any other type."""
    if cls not in _FIELDS:
        from srcad.primitives import struct_fields  # (imports numpy only; kept out of the way)

        _FIELDS[cls] = struct_fields(cls) if cls.__module__ != "builtins" else None
    return _FIELDS[cls]

"""Partial derivatives at the edges of their domains, and the chain rule's product.

A function can be finite where its derivative is not: `sqrt(x)` and `x ** 0.5` at 0,
`arcsin(x)` at 1. srcad follows NumPy's float semantics there: the partial is infinite (or
NaN), never an exception, even for Python floats, where `0.0 ** -0.5` and `0.5 / 0.0` raise.
And where a cotangent (in reverse mode) or a tangent (in forward mode) is exactly zero,
nothing depends on, or nothing moves, that value: the product with its partial is zero, not
`0 * inf = NaN`. So `np.maximum(x ** 0.5, 1.0)` has derivative 0 at 0, in both modes.

For the exponent of a power at base 0, srcad follows JAX (`pow_p`'s jvp, which takes the
logarithm of the base only where the base is not zero): `d/dp 0 ** p = 0`.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.errors import SrcadError
from srcad.foreign import refuse_foreign
from srcad.tangents import AbstractZero, Tangent

_REAL_NUMBERS = (float, int, bool)  # Python's; `x < 0` would raise for a complex
_PYTHON_NUMBERS = (*_REAL_NUMBERS, complex)
_SCALARS = (*_PYTHON_NUMBERS, np.generic)
_FLOAT64_OR_REAL = (*_REAL_NUMBERS, np.float64)


def strong_product(partial: Any, bar: Any) -> Any:
    """`partial * bar`, a partial derivative times a cotangent or tangent, but exactly zero
    wherever either factor is zero (an infinite partial times a zero cotangent, or a zero
    partial times an infinite tangent, is 0 here, where IEEE arithmetic gives NaN).

    Cheap where it can be: two Python numbers cost a comparison; a finite number times an
    array is a plain product (it cannot make a new NaN); two arrays pay for one sum over
    the product (its minimum), and a masked copy only where that finds a NaN.
    """
    if partial.__class__ in _PYTHON_NUMBERS and bar.__class__ in _PYTHON_NUMBERS:
        product = partial * bar
        if product == product:  # not NaN: the common case
            return product
        return 0.0 if partial == 0 or bar == 0 else product
    if partial.__class__ in _FLOAT64_OR_REAL and bar.__class__ in _FLOAT64_OR_REAL:
        # A NumPy float64 (an element of a float64 array) with a real number: tested
        # before multiplying, since NumPy warns where 0 * inf makes a NaN.
        return np.float64(0.0) if partial == 0 or bar == 0 else partial * bar
    if isinstance(bar, AbstractZero):
        return bar
    for number, other in ((partial, bar), (bar, partial)):
        if isinstance(number, _SCALARS) and isinstance(other, np.ndarray | np.generic):
            if number == 0:
                return np.zeros(np.shape(other), np.result_type(number, other))[()]
            if np.isfinite(number):
                return _plain(partial * bar)
    with np.errstate(invalid="ignore"):  # 0 * inf, replaced below
        try:
            product = partial * bar
        except TypeError:
            _refuse_conversion(partial, bar)
            raise
    if not isinstance(product, np.ndarray | np.generic) or product.dtype.kind not in "fc":
        return product  # a symbolic zero, a structural tangent, an integer
    _plain(product)
    # NaN propagates through `min`, the cheapest reduction (a sum for complex values).
    if product.size == 0:
        return product
    probe = product.min() if product.dtype.kind == "f" else np.sum(product)
    if probe == probe:
        return product
    zero = (np.asarray(partial) == 0) | (np.asarray(bar) == 0)
    return np.where(zero, np.zeros((), product.dtype), product)[()]


_SEQUENCES = (np.ndarray, list, tuple, dict)


def _refuse_conversion(partial: Any, bar: Any) -> None:
    """Refuse the (co)tangent of an object that a number's rule met: Python's or NumPy's
    conversion of it (`__float__`, `__array__`: `math.sin(obj)`) made a number of it, whose
    derivative says nothing of the object's parts (as `trees._check_fits` refuses it). A
    list's or tuple's tangent (a list display's) is not one: a gap of its own."""
    for value in (bar, partial):
        kind = value.primal_type if isinstance(value, Tangent) else type(value)
        if isinstance(kind, type) and not issubclass(kind, (*_SCALARS, *_SEQUENCES)):
            raise SrcadError(
                f"a derivative reached a {kind.__name__} as a number or array: a conversion "
                "(__array__, __float__) made one of it, which srcad does not differentiate "
                "through; pass the number or array itself"
            )


def _plain(product: Any) -> Any:
    """`product`, where it is no array of a class computing its own way (the product of a
    masked array, `srcad.foreign`, read where no entry looked for one); else a refusal."""
    if product.__class__ is not np.ndarray and isinstance(product, np.ndarray):
        refuse_foreign(product)
    return product


def sign(x: Any) -> Any:
    """`np.sign(x)`, the slope of `abs`: for a Python float, as a float (1.0, -1.0, 0.0 at
    either zero, NaN for NaN), and for a NumPy float64 (an element of a float64 array) as
    a float64, the same values, without NumPy's call, which costs as much as ten float
    operations; anything else through `np.sign`."""
    if x.__class__ is float:
        if x > 0.0:
            return 1.0
        if x < 0.0:
            return -1.0
        return 0.0 if x == 0.0 else x
    if x.__class__ is np.float64:
        if x > 0.0:
            return _PLUS_ONE
        if x < 0.0:
            return _MINUS_ONE
        return _ZERO if x == 0.0 else x
    return np.sign(x)


def direction(z: Any, r: Any) -> Any:
    """`z / |z|` for `r = abs(z)` of a complex `z`, 0 where `r` is: the slope of `abs` that
    its rule takes (`rules/builtins.py`), which inlined complex cotangents call
    (`y_bar * direction(a, y)`); of a Python complex, a Python complex, without NumPy."""
    if isinstance(z, np.ndarray):
        return np.divide(z, r, out=np.zeros_like(z), where=np.asarray(r) != 0)
    return z / r if r else z * 0.0


def reciprocal_or_zero(r: Any) -> Any:
    """`1 / r`, 0 where `r` is 0: the slope of `direction(z, r)` in `z`."""
    if isinstance(r, np.ndarray):
        return np.divide(1.0, r, out=np.zeros(r.shape, np.result_type(r, 1.0)), where=r != 0)
    return 1.0 / r if r else 0.0 * r


_PLUS_ONE, _MINUS_ONE, _ZERO = np.float64(1.0), np.float64(-1.0), np.float64(0.0)


def reciprocal(x: Any) -> Any:
    """`1 / x` in NumPy's float semantics: infinite (with the sign of a signed zero) at 0,
    where Python's float division would raise."""
    if x.__class__ is float or x.__class__ is int:
        return 1.0 / x if x else math.copysign(math.inf, x)
    with np.errstate(divide="ignore"):
        return np.divide(1.0, x)


def quotient(n: Any, d: Any) -> Any:
    """`n / d` in NumPy's float semantics: infinite or NaN at a zero `d` (as `reciprocal`,
    without a warning), where Python's division of numbers would raise; anything else
    divides as `/` does (a nonzero `d` costs two tests).

    >>> quotient(1.0, 4.0), float(quotient(1.0, -0.0)), float(quotient(0.0, 0))
    (0.25, -inf, nan)
    """
    if d.__class__ in _REAL_NUMBERS and not d:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.divide(n, np.float64(d))
    return n / d


def logistic(t: Any) -> Any:
    """`1 / (1 + exp(-t))`, the slope of `logaddexp(a, b)` in `a` at `t = a - b`, to full
    relative precision in both tails, without `logaddexp`'s result (which costs ten times
    as much to compute: a gradient that needs the slope only skips it). Where `exp(-t)`
    overflows the value is 0, with no warning; a Python float gets a Python float.

    >>> logistic(0.0), logistic(-800.0), float(logistic(np.array([40.0]))[0])
    (0.5, 0.0, 1.0)
    """
    if t.__class__ is float or t.__class__ is int:
        if t >= 0:
            return 1.0 / (1.0 + math.exp(-t))
        e = math.exp(t)  # no overflow for t < 0, and NaN stays NaN
        return e / (1.0 + e)
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-t))


def power(x: Any, q: Any) -> Any:
    """`x ** q` in NumPy's float semantics: infinite at 0 for q < 0, where Python's
    `0.0 ** -1.0` would raise."""
    if x.__class__ in _REAL_NUMBERS and q.__class__ in _REAL_NUMBERS and (x != 0 or q >= 0):
        return x**q
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.power(np.float64(x) if x.__class__ in _REAL_NUMBERS else x, q)


def power_slope(x: Any, p: Any) -> Any:
    """`d(x ** p)/dx = p x^(p-1)`, in NumPy's float semantics.

    `x ** 0` is constant, so its slope is 0 everywhere (at x == 0, `p x^-1` would be
    `0 * inf`). At x == 0 a power below 1 has an infinite slope, where Python's
    `0.0 ** -0.5` would raise `ZeroDivisionError`.
    """
    if x.__class__ in _REAL_NUMBERS and p.__class__ in _REAL_NUMBERS:
        if x == 0 and p < 1:
            return 0.0 if p == 0 else math.copysign(math.inf, p)
        return p * x ** (p - 1)
    if x.__class__ is np.float64 and p.__class__ in _REAL_NUMBERS and x > 0 and p != 0:
        return p * x ** (p - 1)  # an element of a float64 array: real, and no warning
    if np.ndim(p) == 0 and p == 0:
        return np.zeros(np.shape(x))[()]
    with np.errstate(divide="ignore", invalid="ignore"):
        # A Python number's `p - 1` stays one, which NumPy reads at `x`'s precision
        # (`np.subtract(2.0, 1)` is a float64 scalar, which would widen a float16 `x`).
        less = p - 1 if p.__class__ in _REAL_NUMBERS else np.subtract(p, 1)
        slope = np.multiply(p, np.power(x, less))
    if np.ndim(p) == 0:
        return slope
    return np.where(np.asarray(p) == 0, np.zeros((), slope.dtype), slope)[()]


def log_base(x: Any) -> Any:
    """The partial of `x ** p` in `p` over `x ** p`: `log(x)` where x > 0, 0 at x == 0
    (JAX's convention, and the limit for p > 0), NaN for x < 0, where `x ** p` is not
    real as p moves. A complex `x` gets its principal logarithm, 0 at 0."""
    if x.__class__ in _REAL_NUMBERS:
        if x > 0:
            return math.log(x)
        return 0.0 if x == 0 else math.nan
    x = np.asarray(x)
    if x.dtype.kind == "c":
        safe = np.where(x == 0, 1.0, x)
        return np.log(safe)[()]
    safe = np.where(x > 0, x, 1.0)  # no warning for the entries replaced below
    return np.where(x > 0, np.log(safe), np.where(x == 0, 0.0, np.nan))[()]


def taking_result(partials: tuple[Callable[..., Any], ...], name: str) -> tuple[Any, ...]:
    """The partials of a scalar rule for `name`, each taking the arguments and then the
    result, as the rules call them (ChainRules' `Ω`).

    A user may write a partial of the inputs alone (`scalar_rule(math.sinh, lambda x:
    math.cosh(x))`) or of the inputs and the result (`lambda x, y: ...`, which reads
    the result to save recomputing it); the two are told apart by how many arguments the
    partial takes: one per input, or one more. A partial that takes either is given the
    result."""
    count = len(partials)
    return tuple(_with_result(p, count, name) for p in partials)


def _with_result(partial: Callable[..., Any], count: int, name: str) -> Callable[..., Any]:
    if _accepts(partial, count + 1):
        return partial
    if not _accepts(partial, count):
        raise SrcadError(
            f"a partial derivative of {name} takes its {count} argument"
            f"{'s' if count != 1 else ''}, or those and the result ({count + 1}); "
            f"`{getattr(partial, '__qualname__', repr(partial)):.60}` takes neither"
        )

    # Plain code, which srcad differentiates in turn for second derivatives.
    def partial_of_inputs(*inputs_and_result: Any) -> Any:
        return partial(*inputs_and_result[:-1])

    partial_of_inputs.__qualname__ = getattr(partial, "__qualname__", "partial_of_inputs")
    return partial_of_inputs


def _accepts(function: Callable[..., Any], count: int) -> bool:
    """Whether `function` can be called with `count` positional arguments (assumed where
    its signature cannot be read, except for a ufunc, which says how many it takes)."""
    if isinstance(function, np.ufunc):
        return function.nin == count
    try:
        inspect.signature(function).bind(*range(count))
    except TypeError:
        return False
    except ValueError:
        return True
    return True

"""Check rules against finite differences, in the manner of ChainRulesTestUtils."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from srcad.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    elements_of,
    field_names,
    materialize,
    unthunk,
)

__all__ = [
    "check_frule",
    "check_rrule",
    "check_scalar",
    "finite_difference_jvp",
    "finite_difference_vjp",
    "inner",
]


def _is_differentiable_value(x: Any) -> bool:
    if isinstance(x, bool | np.bool_):
        return False
    if isinstance(x, float | complex):
        return True
    return isinstance(x, np.ndarray | np.generic) and np.issubdtype(x.dtype, np.inexact)


def inner(a: Any, b: Any) -> float:
    """The real inner product `Re <a, b>` of two tangents (zeros, tuples and arrays)."""
    if isinstance(a, AbstractZero) or isinstance(b, AbstractZero):
        return 0.0
    if isinstance(a, Tangent) and a.fields and not isinstance(b, Tangent):
        a, b = b, a
    if isinstance(b, Tangent) and b.fields:  # a struct's tangent, against its primal
        return sum((inner(getattr(a, k), v) for k, v in b.fields.items()), 0.0)
    if isinstance(a, tuple | list | Tangent) or isinstance(b, tuple | list | Tangent):
        return sum((inner(x, y) for x, y in zip(a, b, strict=True)), 0.0)
    return float(np.real(np.vdot(np.asarray(a), np.asarray(b))))


def _random_like(x: Any, rng: np.random.Generator) -> Any:
    if hasattr(type(x), "_fields"):  # a NamedTuple
        return type(x)(*(_random_like(e, rng) for e in x))
    if isinstance(x, tuple | list):
        return type(x)(_random_like(e, rng) for e in x)
    if isinstance(x, bool | np.bool_) or not np.issubdtype(np.asarray(x).dtype, np.number):
        return NoTangent()
    value = rng.standard_normal(np.shape(x))
    if np.iscomplexobj(x):
        value = value + 1j * rng.standard_normal(np.shape(x))
    if isinstance(x, float | int | complex):
        return type(x)(value) if not isinstance(x, int) else float(value)
    if isinstance(x, np.generic):
        return np.asarray(value, dtype=x.dtype)[()]
    return np.asarray(value, dtype=x.dtype if np.issubdtype(x.dtype, np.inexact) else float)


def _random_tangent(x: Any, rng: np.random.Generator) -> Any:
    """A random tangent of an argument: one per element of a tuple or list (a `Tangent` by
    field, for a NamedTuple), and `NoTangent()` for integers and other constants."""
    if hasattr(type(x), "_fields"):
        return Tangent(type(x), **{k: _random_tangent(v, rng) for k, v in x._asdict().items()})
    if isinstance(x, tuple | list):
        return type(x)(_random_tangent(e, rng) for e in x)
    return _random_like(x, rng) if _is_differentiable_value(x) else NoTangent()


def _widen(x: Any) -> Any:
    """Finite differences run in double precision whatever the primal's precision."""
    if isinstance(x, np.ndarray | np.generic) and x.dtype in (np.float16, np.float32):
        return np.asarray(x, dtype=np.float64)
    if isinstance(x, np.ndarray | np.generic) and x.dtype == np.complex64:
        return np.asarray(x, dtype=np.complex128)
    return x


def _with_element(x: Any, index: int, delta: complex) -> Any:
    if isinstance(x, float | complex):
        return x + delta
    array = np.array(x, dtype=np.result_type(x, type(delta)), copy=True)
    array[np.unravel_index(index, array.shape)] += delta  # any memory layout
    return array if isinstance(x, np.ndarray) else array[()]


def finite_difference_vjp(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    y_bar: Any,
    position: int,
    step: float = 1e-3,
    **kwargs: Any,
) -> Any:
    """The cotangent of `args[position]` for output cotangent `y_bar`, by finite differences.

    Central differences at steps `h` and `h/2`, combined by one Richardson step (error of
    order h^4), one element (and for complex values, one real and one imaginary direction)
    at a time.
    """
    x = _widen(args[position])
    wide = [_widen(a) for a in args]

    def phi(delta: complex, index: int) -> float:
        wide[position] = _with_element(x, index, delta)
        return inner(y_bar, f(*wide, **kwargs))

    def derivative(index: int, direction: complex) -> float:
        h = step * max(1.0, float(np.abs(np.asarray(x).reshape(-1)[index])))

        def central(h: float) -> float:
            return (phi(h * direction, index) - phi(-h * direction, index)) / (2 * h)

        return (4 * central(h / 2) - central(h)) / 3

    size = int(np.size(x))
    complex_x = np.iscomplexobj(x)
    result = np.zeros(size, dtype=complex if complex_x else float)
    for index in range(size):
        result[index] = derivative(index, 1.0)
        if complex_x:
            result[index] += 1j * derivative(index, 1j)
    if isinstance(args[position], float | complex):
        return type(args[position])(result[0])
    return result.reshape(np.shape(x))


def _compare(
    name: str,
    expected: Any,
    actual: Any,
    primal: Any,
    rtol: float,
    atol: float,
    check_dtype: bool = True,
) -> None:
    actual = unthunk(actual)
    if isinstance(primal, tuple | list):  # elements may differ in shape: one by one
        elements = elements_of(actual, len(primal))  # a zero, a `Tangent` or a sequence
        for index, parts in enumerate(zip(expected, elements, primal, strict=True)):
            _compare(f"{name}[{index}]", *parts, rtol, atol, check_dtype)
        return
    if isinstance(actual, AbstractZero):
        actual = materialize(actual, primal)
    if isinstance(primal, np.ndarray | np.generic):
        shape, got_shape = np.shape(primal), np.shape(actual)
        if shape != got_shape:
            raise AssertionError(f"{name}: cotangent has shape {got_shape}, primal {shape}")
        want_dtype = primal.dtype if np.issubdtype(primal.dtype, np.inexact) else np.float64
        if check_dtype and np.asarray(actual).dtype != want_dtype:
            raise AssertionError(
                f"{name}: cotangent has dtype {np.asarray(actual).dtype}, expected {want_dtype}"
            )
    elif isinstance(primal, float) and not isinstance(actual, float):
        raise AssertionError(f"{name}: cotangent of a float is {type(actual).__name__}")
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    error = np.abs(actual - expected)
    allowed = atol + rtol * np.abs(expected)
    if not np.all(error <= allowed):
        worst = int(np.argmax(error - allowed))
        raise AssertionError(
            f"{name}: cotangent differs from finite differences by up to "
            f"{float(error.reshape(-1)[worst]):.3g}"
            f" (allowed {float(allowed.reshape(-1)[worst]):.3g})"
            f"\n  rule:               {actual!r}\n  finite differences: {expected!r}"
        )


def check_rrule(
    f: Callable[..., Any],
    *args: Any,
    output_tangent: Any = None,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    seed: int = 2718,
    **kwargs: Any,
) -> None:
    """Check `srcad.rrule(f, *args, **kwargs)` against `f` and finite differences.

    Checks the primal value; one cotangent per positional argument (shape, dtype and value
    against central finite differences with a Richardson step; element by element for
    lists and tuples, field by field for dataclasses and NamedTuples); that the pullback
    gives the same cotangents when handed its output cotangent as a thunk; and that a
    `ZeroTangent` output cotangent gives zero cotangents. Thunks in the results are
    computed. Raises `AssertionError` naming the argument and by how much it is off.
    """
    from srcad.api import rrule

    y, pullback = rrule(f, *args, **kwargs)
    expected_y = f(*args, **kwargs)
    _compare("primal result", expected_y, y, expected_y, rtol, atol, check_dtype=False)
    rng = np.random.default_rng(seed)
    y_bar = _random_like(y, rng) if output_tangent is None else output_tangent
    cotangents = tuple(unthunk(c) for c in pullback(y_bar))
    if len(cotangents) != len(args) + 1:
        raise AssertionError(
            f"pullback returned {len(cotangents)} cotangents, expected {len(args) + 1}"
            " (one for the function, then one per positional argument)"
        )
    for position, (arg, cotangent) in enumerate(zip(args, cotangents[1:], strict=True)):
        name = f"argument {position} of {getattr(f, '__name__', f)!s}"
        if field_names(type(arg)):
            _check_fields(f, args, position, y_bar, cotangent, name, rtol, atol, kwargs)
            continue
        if isinstance(arg, list | tuple):
            _check_elements(f, args, position, y_bar, cotangent, name, rtol, atol, kwargs)
            continue
        if not _is_differentiable_value(arg):
            if not _is_zero(cotangent):
                raise AssertionError(f"{name}: non-differentiable but cotangent {cotangent!r}")
            continue
        expected = finite_difference_vjp(f, args, y_bar, position, **kwargs)
        _compare(name, expected, cotangent, arg, rtol, atol)
    from_thunk = pullback(Thunk(lambda: y_bar))
    for position, (cotangent, again) in enumerate(zip(cotangents[1:], from_thunk[1:], strict=True)):
        if not _same_tangent(cotangent, unthunk(again)):
            raise AssertionError(
                f"argument {position}: the pullback gave {again!r} for a "
                f"thunk of the output cotangent, but {cotangent!r} for it"
            )
    zero_cotangents = pullback(_zero_like(y_bar))
    for position, cotangent in enumerate(zero_cotangents[1:]):
        if not _is_zero(cotangent):
            raise AssertionError(f"argument {position}: a zero output cotangent gave {cotangent!r}")


def _same_tangent(a: Any, b: Any) -> bool:
    a, b = unthunk(a), unthunk(b)
    if isinstance(a, AbstractZero) or isinstance(b, AbstractZero):
        return _is_zero(a) and _is_zero(b)
    if isinstance(a, Tangent | tuple | list) or isinstance(b, Tangent | tuple | list):
        if isinstance(a, Tangent) and a.fields:
            return isinstance(b, Tangent) and all(
                _same_tangent(a[k], b[k]) for k in {*a.fields, *b.fields}
            )
        return all(_same_tangent(x, y) for x, y in zip(a, b, strict=True))
    return bool(np.allclose(a, b, rtol=1e-12, atol=0.0, equal_nan=True))


def _is_zero(tangent: Any) -> bool:
    tangent = unthunk(tangent)
    if isinstance(tangent, AbstractZero):
        return True
    if isinstance(tangent, Tangent) and tangent.fields:
        return all(_is_zero(t) for t in tangent.fields.values())
    if isinstance(tangent, Tangent | tuple | list):
        return all(_is_zero(t) for t in tangent)
    return not np.any(tangent)


def _check_elements(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    position: int,
    y_bar: Any,
    cotangent: Any,
    name: str,
    rtol: float,
    atol: float,
    kwargs: dict[str, Any],
) -> None:
    """A list or tuple argument: each element's cotangent against finite differences."""
    sequence = args[position]
    if isinstance(cotangent, AbstractZero):
        cotangent = [cotangent] * len(sequence)
    if len(cotangent) != len(sequence):
        raise AssertionError(f"{name}: {len(cotangent)} element cotangents for {len(sequence)}")
    for index, (element, element_bar) in enumerate(zip(sequence, cotangent, strict=True)):
        label = f"{name}, element {index}"
        if not _is_differentiable_value(element):
            if not _is_zero(element_bar):
                raise AssertionError(f"{label}: non-differentiable but cotangent {element_bar!r}")
            continue

        def with_element(value: Any, index: int = index) -> Any:
            changed = list(sequence)
            changed[index] = value
            rebuilt = type(sequence)(changed) if isinstance(sequence, tuple) else changed
            return f(*args[:position], rebuilt, *args[position + 1 :], **kwargs)

        expected = finite_difference_vjp(with_element, (element,), y_bar, 0)
        _compare(label, expected, element_bar, element, rtol, atol)


def _check_fields(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    position: int,
    y_bar: Any,
    cotangent: Any,
    name: str,
    rtol: float,
    atol: float,
    kwargs: dict[str, Any],
) -> None:
    """A dataclass or NamedTuple argument: each field's cotangent (a structural `Tangent`,
    fields not given being zero) against finite differences."""
    struct = args[position]
    cotangent = unthunk(cotangent)
    for field in field_names(type(struct)):
        value = getattr(struct, field)
        label = f"{name}, field {field}"
        field_bar = ZeroTangent() if isinstance(cotangent, AbstractZero) else cotangent[field]
        field_bar = unthunk(field_bar)
        if not _is_differentiable_value(value):
            if not _is_zero(field_bar):
                raise AssertionError(f"{label}: non-differentiable but cotangent {field_bar!r}")
            continue

        def with_field(new: Any, field: str = field) -> Any:
            if dataclasses.is_dataclass(struct):
                rebuilt = dataclasses.replace(struct, **{field: new})  # type: ignore[type-var]
            else:
                rebuilt = struct._replace(**{field: new})
            return f(*args[:position], rebuilt, *args[position + 1 :], **kwargs)

        expected = finite_difference_vjp(with_field, (value,), y_bar, 0)
        _compare(label, expected, field_bar, value, rtol, atol)


def _zero_like(y_bar: Any) -> Any:
    from srcad.tangents import ZeroTangent

    if hasattr(type(y_bar), "_fields"):  # a NamedTuple (`EigResult`) takes its fields apart
        return type(y_bar)(*(ZeroTangent() for _ in y_bar))
    if isinstance(y_bar, tuple | list):
        return type(y_bar)(ZeroTangent() for _ in y_bar)
    return ZeroTangent()


def finite_difference_jvp(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    tangents: tuple[Any, ...],
    step: float = 1e-3,
    **kwargs: Any,
) -> Any:
    """The directional derivative of `f` at `args` along `tangents`, by central differences
    at steps `h` and `h/2` combined by one Richardson step. A `NoTangent`/`ZeroTangent`
    entry leaves its argument fixed; a tuple or list argument moves each element along its
    own tangent (given as a sequence of element tangents, a `Tangent` or a symbolic zero).
    An iterator result (of `zip`, `enumerate`) is walked into a list."""

    def at(h: float) -> Any:
        moved = (_moved(a, t, h) for a, t in zip(args, tangents, strict=True))
        return _walked(f(*moved, **kwargs))

    def central(h: float) -> Any:
        return _combine(at(h), at(-h), lambda p, m: (np.asarray(p) - np.asarray(m)) / (2 * h))

    return _combine(central(step / 2), central(step), lambda a, b: (4 * a - b) / 3)


def _moved(x: Any, tangent: Any, h: float) -> Any:
    """`x`, in double precision, moved by `h` along `tangent`: a tuple or list (and a
    NamedTuple) element by element, each along its own tangent."""
    tangent = unthunk(tangent)
    if isinstance(x, tuple | list):
        dots = elements_of(tangent, len(x))
        items = [_moved(e, d, h) for e, d in zip(x, dots, strict=True)]
        return type(x)(*items) if hasattr(type(x), "_fields") else type(x)(items)
    wide = _widen(x)
    if isinstance(tangent, AbstractZero):
        return wide
    moved = wide + h * np.asarray(tangent)
    return type(x)(moved) if isinstance(x, float | complex) else moved


def _walked(y: Any) -> Any:
    """What a `for` loop walks, as the rules of `zip` and `enumerate` give it: a list."""
    return list(y) if isinstance(y, Iterator) else y


def _combine(a: Any, b: Any, how: Callable[[Any, Any], Any]) -> Any:
    if isinstance(a, tuple | list):
        parts = [_combine(x, y, how) for x, y in zip(a, b, strict=True)]
        return type(a)(*parts) if hasattr(type(a), "_fields") else type(a)(parts)
    return how(a, b)


def check_frule(
    f: Callable[..., Any],
    *args: Any,
    tangents: tuple[Any, ...] | None = None,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    seed: int = 2718,
    **kwargs: Any,
) -> None:
    """Check `srcad.frule((NoTangent(), *tangents), f, *args)` against `f` and finite
    differences: the primal value, and the output tangent along random (or the given)
    argument tangents. A `ZeroTangent` for every argument must give a symbolic zero.

    A tuple or list argument moves each element along its own tangent, given as a sequence
    of element tangents, a `Tangent` or a symbolic zero; by default, each differentiable
    element gets a random tangent and the others `NoTangent()`. A tuple or list result (and
    an iterator's, walked into a list) is compared element by element, in whatever form
    the rule gives its tangent.
    """
    from srcad.api import frule

    if tangents is None:
        rng = np.random.default_rng(seed)
        tangents = tuple(_random_tangent(a, rng) for a in args)
    y, y_dot = frule((NoTangent(), *tangents), f, *args, **kwargs)
    expected_y = _walked(f(*args, **kwargs))
    _compare("primal result", expected_y, y, expected_y, rtol, atol, check_dtype=False)
    expected = finite_difference_jvp(f, args, tangents, **kwargs)
    _compare(
        f"output tangent of {getattr(f, '__name__', f)!s}",
        expected,
        unthunk(y_dot),
        expected_y,
        rtol,
        atol,
    )
    _, zero_dot = frule((NoTangent(), *(ZeroTangent() for _ in args)), f, *args, **kwargs)
    if not isinstance(zero_dot, AbstractZero):
        raise AssertionError(f"zero argument tangents gave the output tangent {zero_dot!r}")


def check_scalar(f: Callable[..., Any], x: Any, rtol: float = 1e-6, atol: float = 1e-9) -> None:
    """Check both rules of a scalar function at `x` (and at `x` as a 0-d array and as a
    complex number, where `f` takes one), as ChainRulesTestUtils' `test_scalar` does."""
    check_rrule(f, x, rtol=rtol, atol=atol)
    check_frule(f, x, rtol=rtol, atol=atol)
    if isinstance(x, float):
        check_rrule(f, np.array(x), rtol=rtol, atol=atol)
        try:
            f(complex(x, 0.1))
        except (TypeError, ValueError):
            return
        check_rrule(f, complex(x, 0.1), rtol=rtol, atol=atol)
        check_frule(f, complex(x, 0.1), rtol=rtol, atol=atol)

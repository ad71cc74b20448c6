"""Rules for NumPy's one-dimensional convolution and differences: `np.convolve` and
`np.correlate` (bilinear, `Linearity.BILINEAR`, so their second derivatives come from these
rules), and `np.ediff1d` (through a plain definition, `rules/_support.by_definition`).

`np.convolve(a, v, mode)` is a window of the full convolution `y_k = sum_i a_i v_(k-i)`:
all of it (`"full"`), the `max(n, m)` numbers centred on it (`"same"`) or the `max(n, m) -
min(n, m) + 1` where the two overlap fully (`"valid"`). `np.correlate(a, v, mode)` is the
same window of the full convolution of `a` with `conj(v)` reversed, centred one place later
where `a` is the shorter (NumPy's layout). Each cotangent is a correlation of the full
result's cotangent (zeros outside the window) with the other argument."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.projection import operand_tangent
from srcad.registry import Linearity, RuleSet
from srcad.rules._support import as_result, by_definition
from srcad.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

rules = RuleSet("numpy_signals")

Pullback = Any

_CONVOLUTION_PARAMETERS = ("mode",)


def _window(n: int, m: int, options: tuple[Any, ...], keywords: dict[str, Any],
            correlating: bool, default: str) -> tuple[int, int]:  # fmt: skip
    """Where the result of `np.convolve` (or `np.correlate`) of lengths `n` and `m` with the
    call's `mode` sits in the full result: its first position and its length."""
    given = dict(zip(_CONVOLUTION_PARAMETERS, options, strict=False)) | keywords
    mode = given.get("mode", default)
    if isinstance(mode, int):  # NumPy's old numbers for the modes
        mode = {0: "valid", 1: "same", 2: "full"}.get(mode, mode)
    shorter, longer = min(n, m), max(n, m)
    if mode == "full":
        return 0, n + m - 1
    if mode == "same":
        return ((shorter - 1) // 2 if n >= m or not correlating else shorter // 2), longer
    if mode == "valid":
        return shorter - 1, longer - shorter + 1
    raise UnsupportedCallError(f"srcad has no rule for a convolution with mode={mode!r}")


def _full_cotangent(y_bar: Any, start: int, length: int) -> np.ndarray:
    """The cotangent of the full result: `y_bar` in the window, zeros around it."""
    y_bar = np.asarray(y_bar)
    full = np.zeros(length, np.result_type(y_bar, 1.0))
    full[start : start + y_bar.shape[0]] = y_bar
    return full


def _convolution_rrule(primal: Any, correlating: bool, default: str) -> Any:
    def rrule(a: Any, v: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
        y = primal(a, v, *options, **keywords)
        n, m = np.size(a), np.size(v)
        start, _ = _window(n, m, options, keywords, correlating, default)
        a_values, v_values = np.ravel(a), np.ravel(v)
        # The full result as a convolution of `a` with `w`: `v`, or `conj(v)` reversed.
        w = np.conj(v_values[::-1]) if correlating else v_values
        option_bars = (NoTangent(),) * len(options)

        def convolution_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), y_bar, y_bar, *option_bars)
            full = _full_cotangent(y_bar, start, n + m - 1)
            a_bar = np.correlate(full, w, "valid")
            w_bar = np.correlate(full, a_values, "valid")
            v_bar = np.conj(w_bar[::-1]) if correlating else w_bar
            return (
                NoTangent(),
                _as_argument(a_bar, a),
                _as_argument(v_bar, v),
                *option_bars,
            )

        return y, convolution_pullback

    rrule.__name__ = f"{primal.__name__}_rrule"
    rrule.__qualname__ = rrule.__name__
    return rrule


def _as_argument(bar: np.ndarray, argument: Any) -> Any:
    """A cotangent in its argument's shape and float type (a real argument's real part)."""
    if not np.iscomplexobj(argument):
        bar = np.real(bar)
    if isinstance(argument, np.ndarray | np.generic):
        if argument.dtype.kind in "iub":
            return NoTangent()
        return np.reshape(bar, np.shape(argument)).astype(
            np.result_type(argument.dtype, np.float16), copy=False
        )
    if isinstance(argument, float | complex):
        return type(argument)(np.reshape(bar, ())[()])
    return np.reshape(bar, np.shape(argument))


def _convolution_frule(primal: Any) -> Any:
    def frule(dargs: tuple[Any, ...], a: Any, v: Any, *options: Any, **keywords: Any) -> Any:
        y = primal(a, v, *options, **keywords)
        a_dot, v_dot = operand_tangent(dargs[1], a), operand_tangent(dargs[2], v)
        y_dot: Any = ZeroTangent()
        if not isinstance(a_dot, AbstractZero):
            y_dot = y_dot + primal(a_dot, v, *options, **keywords)
        if not isinstance(v_dot, AbstractZero):
            y_dot = y_dot + primal(a, v_dot, *options, **keywords)
        return y, y_dot if isinstance(y_dot, AbstractZero) else as_result(y_dot, y)

    frule.__name__ = f"{primal.__name__}_frule"
    frule.__qualname__ = frule.__name__
    return frule


for _primal, _correlating, _default in (
    (np.convolve, False, "full"),
    (np.correlate, True, "valid"),
):
    rules.keywords_by_position(_primal, "a", "v")
    rules.rrule(_primal)(_convolution_rrule(_primal, _correlating, _default))
    rules.frule(_primal)(_convolution_frule(_primal))
    rules.primitive(_primal, linearity=Linearity.BILINEAR)


# -- np.ediff1d: differences of the flattened array, with numbers before and after -------------


def ediff1d_definition(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """`np.ediff1d`: `np.diff` of the flattened array, `to_begin` and `to_end` (flattened)
    joined before and after it."""
    differences = np.diff(np.ravel(ary))
    if to_begin is not None:
        differences = np.concatenate((np.ravel(to_begin), differences))
    if to_end is not None:
        differences = np.concatenate((differences, np.ravel(to_end)))
    return differences


rules.keywords_by_position(np.ediff1d, "to_end", "to_begin")
by_definition(rules, np.ediff1d, ediff1d_definition)

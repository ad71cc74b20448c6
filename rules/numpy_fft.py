"""Rules for `np.fft`: the complex transforms (`fft`, `ifft`, `fft2`, `ifft2`, `fftn`,
`ifftn`), the real ones (`rfft`, `irfft`, `rfft2`, `irfft2`, `rfftn`, `irfftn`), the
Hermitian ones (`hfft`, `ihfft`), and `fftshift`/`ifftshift`.

Every transform is linear, so each forward rule transforms the tangent. The pullbacks
apply the adjoints, under srcad's convention for complex cotangents (`x_bar` with
`Re <x_bar, dx> = Re <y_bar, dy>`):

- a complex transform `F` (any `norm`) has a symmetric matrix, so `F^H y = conj(F conj(y))`;
  the sizes `n`/`s` crop or zero-pad the input first, whose adjoint zero-pads or crops back;
- `rfft` is the first half of `fft` on a real input: its adjoint is the real part of the
  adjoint of `fft` applied to the cotangent zero-padded to the full length;
- `irfft` reads the half spectrum of a Hermitian signal: its adjoint is the `rfft` of the
  cotangent, in the dual normalisation, with the bins that stand for two (all but the zero
  and, for an even length, the Nyquist bin) doubled;
- `hfft` and `ihfft` are `irfft` and `rfft` of conjugates (see `_HERMITIAN`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.projection import ProjectTo, conj
from srcad.registry import Linearity, RuleFn, RuleSet, named
from srcad.rules.numpy_shape import bind_options, linear_frule
from srcad.tangents import AbstractZero, NoTangent, unthunk

rules = RuleSet("numpy_fft")

Pullback = Any

_ONE_AXIS = ("n", "axis", "norm", "out")
_SEVERAL_AXES = ("s", "axes", "norm", "out")

# Each transform: its parameters after the array, its default axes (for fft2 and friends),
# and whether it is a real-input (`rfft`) or real-output (`irfft`) transform.
TRANSFORMS: dict[str, tuple[Any, tuple[str, ...], Any, str]] = {
    "fft": (np.fft.fft, _ONE_AXIS, None, "complex"),
    "ifft": (np.fft.ifft, _ONE_AXIS, None, "complex"),
    "fft2": (np.fft.fft2, _SEVERAL_AXES, (-2, -1), "complex"),
    "ifft2": (np.fft.ifft2, _SEVERAL_AXES, (-2, -1), "complex"),
    "fftn": (np.fft.fftn, _SEVERAL_AXES, None, "complex"),
    "ifftn": (np.fft.ifftn, _SEVERAL_AXES, None, "complex"),
    "rfft": (np.fft.rfft, _ONE_AXIS, None, "real input"),
    "rfft2": (np.fft.rfft2, _SEVERAL_AXES, (-2, -1), "real input"),
    "rfftn": (np.fft.rfftn, _SEVERAL_AXES, None, "real input"),
    "irfft": (np.fft.irfft, _ONE_AXIS, None, "real output"),
    "irfft2": (np.fft.irfft2, _SEVERAL_AXES, (-2, -1), "real output"),
    "irfftn": (np.fft.irfftn, _SEVERAL_AXES, None, "real output"),
}

# The normalisation whose forward transform is the adjoint's scaling of the inverse one.
_DUAL_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _transformed_axes(
    given: dict[str, Any], parameters: tuple[str, ...], default_axes: Any, ndim: int
) -> list[int]:
    """The axes a call transformed, non-negative, in the order NumPy lists them."""
    if parameters is _ONE_AXIS:
        return [int(given.get("axis", -1)) % ndim]
    axes = given.get("axes", default_axes)
    if axes is None:
        count = len(given["s"]) if given.get("s") is not None else ndim
        return list(range(ndim - count, ndim))
    return [int(a) % ndim for a in axes]


def _fitted(z: np.ndarray, shape: tuple[int, ...], axes: list[int]) -> np.ndarray:
    """`z` cropped or zero-padded at the end of each of `axes` to the length in `shape`."""
    for axis in axes:
        length = shape[axis]
        if z.shape[axis] > length:
            z = np.take(z, np.arange(length), axis=axis)
        elif z.shape[axis] < length:
            width = [(0, 0)] * z.ndim
            width[axis] = (0, length - z.shape[axis])
            z = np.pad(z, width)
    return z


def _complex_adjoint(
    primal: Any, y_bar: np.ndarray, axes: list[int], norm: Any, x_shape: tuple[int, ...]
) -> np.ndarray:
    """`F^H y_bar` for the complex transform `primal` over `axes` (at the output's lengths),
    fitted back to the input's lengths."""
    lengths = [y_bar.shape[a] for a in axes]
    back = conj(_transform(primal, conj(y_bar), lengths, axes, norm))
    return _fitted(back, x_shape, axes)


def _transform(primal: Any, z: np.ndarray, lengths: list[int], axes: list[int], norm: Any) -> Any:
    """`primal` (a one-axis or several-axis transform) applied over `axes` at `lengths`."""
    if primal in (np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft):
        return primal(z, lengths[0], axes[0], norm)
    return primal(z, lengths, axes, norm)


_COMPLEX_OF = {
    np.fft.rfft: np.fft.fft, np.fft.rfft2: np.fft.fft2, np.fft.rfftn: np.fft.fftn,
    np.fft.irfft: np.fft.rfft, np.fft.irfft2: np.fft.rfft2, np.fft.irfftn: np.fft.rfftn,
}  # fmt: skip


def _real_input_adjoint(
    primal: Any, y_bar: np.ndarray, axes: list[int], norm: Any, x_shape: tuple[int, ...],
    lengths: list[int],
) -> np.ndarray:  # fmt: skip
    """The adjoint of `rfft` (over `axes`, the last one halved): the real part of the full
    transform's adjoint of the cotangent zero-padded to the full length `lengths[-1]`."""
    full_shape = list(y_bar.shape)
    full_shape[axes[-1]] = lengths[-1]
    padded = _fitted(y_bar, tuple(full_shape), axes[-1:])
    return np.real(_complex_adjoint(_COMPLEX_OF[primal], padded, axes, norm, x_shape))


def _real_output_adjoint(
    primal: Any, y_bar: np.ndarray, axes: list[int], norm: Any, x_shape: tuple[int, ...]
) -> np.ndarray:
    """The adjoint of `irfft` (over `axes`, the last one the Hermitian half): the `rfft` of
    the cotangent in the dual normalisation, the bins that stand for a pair doubled, fitted
    back to the input's lengths."""
    lengths = [y_bar.shape[a] for a in axes]
    half = _transform(_COMPLEX_OF[primal], y_bar, lengths, axes, _DUAL_NORM[norm])
    last = axes[-1]
    weights = np.full(half.shape[last], 2.0)
    weights[0] = 1.0
    if lengths[-1] % 2 == 0:
        weights[-1] = 1.0
    weights = np.reshape(weights, [-1 if a == last else 1 for a in range(half.ndim)])
    # The other axes are complex transforms: their adjoints in the dual normalisation are
    # the conjugate transforms, so the conjugations cancel only on the last axis.
    return _fitted(half * weights, x_shape, axes)


def _fft_rrule(primal: Any, name: str, parameters: tuple[str, ...], default_axes: Any,
               kind: str) -> RuleFn:  # fmt: skip
    def rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
        given = bind_options(parameters, options, keywords)
        if given.get("out") is not None:
            raise UnsupportedCallError(
                f"srcad cannot differentiate np.fft.{name} writing into `out=`"
            )
        y = primal(x, *options, **keywords)
        axes = _transformed_axes(given, parameters, default_axes, y.ndim)
        norm = given.get("norm")
        x_shape = np.shape(x)
        lengths = [y.shape[a] for a in axes]
        if kind == "real input":
            lengths[-1] = (
                int(given["n"])
                if given.get("n") is not None
                else (int(given["s"][-1]) if given.get("s") is not None else x_shape[axes[-1]])
            )
        project_x = ProjectTo(x)
        option_bars = (NoTangent(),) * len(options)

        def transform_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), y_bar, *option_bars)
            y_bar = np.asarray(y_bar, dtype=np.result_type(y_bar, y))
            if kind == "complex":
                x_bar = _complex_adjoint(primal, y_bar, axes, norm, x_shape)
            elif kind == "real input":
                x_bar = _real_input_adjoint(primal, y_bar, axes, norm, x_shape, lengths)
            else:
                x_bar = _real_output_adjoint(primal, y_bar, axes, norm, x_shape)
            return (NoTangent(), project_x(x_bar), *option_bars)

        return y, transform_pullback

    return named(rrule, f"{name}_rrule", transform_pullback=f"{name}_pullback")


for _name, (_primal, _parameters, _default_axes, _kind) in TRANSFORMS.items():
    rules.rrule(_primal)(_fft_rrule(_primal, _name, _parameters, _default_axes, _kind))
    rules.frule(_primal)(linear_frule(_primal, _name))


# The Hermitian transforms: `hfft(a)` is `irfft(conj(a))` and `ihfft(a)` is
# `conj(rfft(a))`, each in the dual normalisation (NumPy computes them so). Conjugation is
# real-linear, and its adjoint under srcad's convention is itself, so their pullbacks are
# those of `irfft` and `rfft` with a conjugation on the way in (`ihfft`) or out (`hfft`).
_HERMITIAN = {np.fft.hfft: ("hfft", np.fft.irfft), np.fft.ihfft: ("ihfft", np.fft.rfft)}


def _hermitian_rrule(primal: Any) -> RuleFn:
    name, inner = _HERMITIAN[primal]
    inner_rrule = rules.rrules[inner].rrule

    def rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
        given = bind_options(_ONE_AXIS, options, keywords)
        if given.get("out") is not None:
            raise UnsupportedCallError(
                f"srcad cannot differentiate np.fft.{name} writing into `out=`"
            )
        y = primal(x, *options, **keywords)
        n, axis = given.get("n"), given.get("axis", -1)
        norm = _DUAL_NORM[given.get("norm")]
        x = np.asarray(x)
        _, inner_pullback = inner_rrule(conj(x) if primal is np.fft.hfft else x, n, axis, norm)
        project_x = ProjectTo(x)
        option_bars = (NoTangent(),) * len(options)

        def hermitian_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), y_bar, *option_bars)
            if primal is np.fft.hfft:
                x_bar = conj(unthunk(inner_pullback(y_bar)[1]))
            else:
                x_bar = unthunk(inner_pullback(conj(np.asarray(y_bar)))[1])
            return (NoTangent(), project_x(x_bar), *option_bars)

        return y, named(hermitian_pullback, f"{name}_pullback")

    return named(rrule, f"{name}_rrule")


# Real-linear in their array, so the transform of the tangent is the result's tangent.
for _hermitian, (_name, _) in _HERMITIAN.items():
    rules.rrule(_hermitian)(_hermitian_rrule(_hermitian))
    rules.frule(_hermitian)(linear_frule(_hermitian, _name))


def _shift_rrule(primal: Any, inverse: Any, name: str) -> RuleFn:
    def rrule(x: Any, *options: Any, **keywords: Any) -> tuple[Any, Pullback]:
        y = primal(x, *options, **keywords)
        axes = bind_options(("axes",), options, keywords).get("axes")
        project_x = ProjectTo(x)
        option_bars = (NoTangent(),) * len(options)

        def shift_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (NoTangent(), y_bar, *option_bars)
            return (NoTangent(), project_x(inverse(np.asarray(y_bar), axes)), *option_bars)

        return y, shift_pullback

    return named(rrule, f"{name}_rrule", shift_pullback=f"{name}_pullback")


# fftshift and ifftshift roll the axes by half their lengths, each the other's inverse.
rules.rrule(np.fft.fftshift)(_shift_rrule(np.fft.fftshift, np.fft.ifftshift, "fftshift"))
rules.rrule(np.fft.ifftshift)(_shift_rrule(np.fft.ifftshift, np.fft.fftshift, "ifftshift"))
rules.frule(np.fft.fftshift)(linear_frule(np.fft.fftshift, "fftshift"))
rules.frule(np.fft.ifftshift)(linear_frule(np.fft.ifftshift, "ifftshift"))

# Linear in their array (the other arguments are options): that fact gives their forward
# rules reverse rules, for second derivatives (`rules/second_order.py`).
for _linear in (
    np.fft.fft,
    np.fft.ifft,
    np.fft.fft2,
    np.fft.ifft2,
    np.fft.fftn,
    np.fft.ifftn,
    np.fft.rfft,
    np.fft.rfft2,
    np.fft.rfftn,
    np.fft.irfft,
    np.fft.irfft2,
    np.fft.irfftn,
    np.fft.hfft,
    np.fft.ihfft,
    np.fft.fftshift,
    np.fft.ifftshift,
):
    rules.primitive(_linear, linearity=Linearity.LINEAR)

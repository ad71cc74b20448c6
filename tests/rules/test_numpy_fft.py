"""Rules for `np.fft`, checked against finite differences: each rule alone (complex inputs
and outputs included), then through the public API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from srcad.testing import check_frule, check_rrule
from tests.rules.through_the_api import check_through_api

TANGENT_SEED = 7
RNG = np.random.default_rng(5)
V = RNG.standard_normal(6)
W = RNG.standard_normal(7)
M = RNG.standard_normal((4, 6))
X = RNG.standard_normal((3, 4, 5))
ZV = V + 1j * RNG.standard_normal(6)
ZM = M + 1j * RNG.standard_normal((4, 6))
ZX = X + 1j * RNG.standard_normal((3, 4, 5))

fft = np.fft
Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

CALLS: list[Call] = [
    ("fft", fft.fft, (V,), {}),
    ("fft-complex", fft.fft, (ZV,), {}),
    ("fft-n-longer", fft.fft, (ZV, 9), {}),
    ("fft-n-shorter", fft.fft, (ZM, 4, 0), {}),
    ("fft-ortho", fft.fft, (ZM,), {"norm": "ortho"}),
    ("fft-forward", fft.fft, (ZX,), {"axis": 1, "norm": "forward"}),
    ("ifft", fft.ifft, (ZV,), {}),
    ("ifft-n", fft.ifft, (ZM, 8), {"norm": "ortho"}),
    ("fft2", fft.fft2, (ZM,), {}),
    ("fft2-s", fft.fft2, (ZX, (3, 7)), {}),
    ("ifft2", fft.ifft2, (ZX,), {"axes": (0, 2), "norm": "forward"}),
    ("fftn", fft.fftn, (ZX,), {}),
    ("fftn-s-axes", fft.fftn, (ZX, (2, 6), (2, 0)), {}),
    ("ifftn", fft.ifftn, (X,), {"s": (5, 3), "axes": (1, 2)}),
    ("rfft", fft.rfft, (V,), {}),
    ("rfft-odd", fft.rfft, (W,), {}),
    ("rfft-n", fft.rfft, (M, 9, 0), {}),
    ("rfft-n-shorter", fft.rfft, (V,), {"n": 4, "norm": "ortho"}),
    ("rfft2", fft.rfft2, (M,), {}),
    ("rfftn", fft.rfftn, (X,), {"norm": "forward"}),
    ("rfftn-s", fft.rfftn, (X, (3, 6), (0, 2)), {}),
    ("irfft", fft.irfft, (ZV,), {}),
    ("irfft-odd-n", fft.irfft, (ZV, 7), {}),
    ("irfft-n-short", fft.irfft, (ZM, 4, 0), {"norm": "ortho"}),
    ("irfft-forward", fft.irfft, (ZV,), {"norm": "forward"}),
    ("irfft-real-input", fft.irfft, (V,), {}),
    ("irfft2", fft.irfft2, (ZM,), {}),
    ("irfftn", fft.irfftn, (ZX,), {}),
    ("irfftn-s", fft.irfftn, (ZX, (5, 6), (1, 2)), {"norm": "ortho"}),
    ("irfftn-axes", fft.irfftn, (ZX,), {"s": (2, 7), "axes": (2, 0)}),
    ("hfft", fft.hfft, (ZV,), {}),
    ("hfft-real-input", fft.hfft, (V,), {}),
    ("hfft-odd-n", fft.hfft, (ZV, 11), {}),
    ("hfft-n-short", fft.hfft, (ZM, 5, 0), {"norm": "ortho"}),
    ("hfft-n-long", fft.hfft, (ZV,), {"n": 16, "norm": "forward"}),
    ("hfft-axis", fft.hfft, (ZX,), {"axis": 1, "norm": "backward"}),
    ("ihfft", fft.ihfft, (V,), {}),
    ("ihfft-odd", fft.ihfft, (W,), {}),
    ("ihfft-n", fft.ihfft, (M, 9, 0), {"norm": "ortho"}),
    ("ihfft-n-short", fft.ihfft, (V,), {"n": 3, "norm": "forward"}),
    ("ihfft-axis", fft.ihfft, (X,), {"axis": 1}),
    ("fftshift", fft.fftshift, (M,), {}),
    ("fftshift-axes", fft.fftshift, (X, (0, 2)), {}),
    ("ifftshift", fft.ifftshift, (ZX,), {"axes": 1}),
]


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_reverse_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_rrule(f, *args, **kwargs)


@pytest.mark.parametrize(("f", "args", "kwargs"), [pytest.param(*c[1:], id=c[0]) for c in CALLS])
def test_forward_rule_matches_finite_differences(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    check_frule(f, *args, **kwargs, seed=TANGENT_SEED)


def test_out_is_refused() -> None:
    import srcad

    with pytest.raises(TypeError, match="out="):
        srcad.rrule(np.fft.fft, ZV, out=np.empty(6, complex))


def power_spectrum_loss(x: np.ndarray) -> Any:
    spectrum = np.fft.fft(x, axis=0)
    return np.sum(np.real(spectrum * np.conj(spectrum)) * np.arange(4.0)[:, None])


def real_round_trip_loss(x: np.ndarray) -> Any:
    spectrum = np.fft.rfft(np.sin(x))
    return np.sum(np.fft.irfft(spectrum * np.exp(-np.arange(4.0)), 6) ** 2)


def two_dimensional_loss(x: np.ndarray) -> Any:
    shifted = np.fft.fftshift(np.fft.fft2(x * x))
    return np.sum(np.real(np.fft.ifft2(shifted)) * x) + np.sum(np.imag(np.fft.fftn(x)) ** 2)


def hermitian_loss(x: np.ndarray) -> Any:
    """`hfft` of a complex input whose real and imaginary parts both vary, and `ihfft`."""
    spectrum = np.fft.hfft(np.sin(x) + 1j * x**2, axis=1, norm="ortho")
    half = np.fft.ihfft(x * x, 7, axis=0)
    return np.sum(spectrum**2 * np.arange(10.0)) + np.sum(
        np.abs(half) ** 2 * np.arange(4.0)[:, None]
    )


def hermitian_round_trip_loss(x: np.ndarray) -> Any:
    return np.sum(np.fft.hfft(np.fft.ihfft(np.cos(x), n=6), n=6) * x)


LOSSES = [
    power_spectrum_loss,
    real_round_trip_loss,
    two_dimensional_loss,
    hermitian_loss,
    hermitian_round_trip_loss,
]


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_first_order_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, M, second_order=False)


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_second_order_through_the_api(f: Callable[[np.ndarray], Any]) -> None:
    check_through_api(f, M)

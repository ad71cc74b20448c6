"""Rules for NumPy's functions of polynomial coefficients (highest power first): `np.polyadd`,
`np.polysub`, `np.polymul`, `np.polyder` and `np.polyint`, and the Vandermonde matrix
`np.vander` (`np.polyval` and `np.polyfit` have theirs in `rules/numpy_statistics.py` and
through their source).

Each is srcad's own rule of a plain-NumPy definition (`rules/_support.by_definition`),
computing the same values as NumPy's code, so that it differentiates to any order: the sum
and difference align the coefficients on the lowest power (zeros in front of the shorter),
the product is their convolution, the derivative and the integral scale each coefficient
by its power (the integral appending each constant of `k`, which are differentiated too),
and `np.vander`'s columns are the running products of `x`, so that its derivative is
finite at `x == 0` (where `x ** 0`'s is not). A `np.poly1d` in place of an array is refused
by name: its value is not an array of coefficients.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.registry import RuleSet
from srcad.rules._support import by_definition

rules = RuleSet("numpy_polynomials")


def coefficients_only(name: str, *values: Any) -> None:
    """Raise where a value is a `np.poly1d` (srcad takes arrays of coefficients)."""
    if any(isinstance(v, np.poly1d) for v in values):
        raise UnsupportedCallError(
            f"srcad differentiates {name} of arrays of coefficients, not of a np.poly1d: "
            f"pass its `.coeffs`"
        )


def order_of(name: str, m: Any) -> int:
    """The order of a derivative or integral, as NumPy takes it (an int, not negative)."""
    order = int(m)
    if order < 0:
        raise ValueError(f"Order of {name} must be positive")
    return order


rules.non_differentiable(coefficients_only, order_of)


def _aligned(a1: Any, a2: Any) -> tuple[Any, Any]:
    """The coefficients of both, the shorter given zeros in front (its highest powers)."""
    a1, a2 = np.atleast_1d(a1), np.atleast_1d(a2)
    diff = len(a2) - len(a1)
    if diff > 0:
        a1 = np.concatenate((np.zeros(diff, a1.dtype), a1))
    elif diff < 0:
        a2 = np.concatenate((np.zeros(-diff, a2.dtype), a2))
    return a1, a2


def numpy_polyadd(a1: Any, a2: Any) -> Any:
    """`np.polyadd`: the coefficients added, aligned on the lowest power."""
    coefficients_only("np.polyadd", a1, a2)
    first, second = _aligned(a1, a2)
    return first + second


def numpy_polysub(a1: Any, a2: Any) -> Any:
    """`np.polysub`: the coefficients subtracted, aligned on the lowest power."""
    coefficients_only("np.polysub", a1, a2)
    first, second = _aligned(a1, a2)
    return first - second


def numpy_polymul(a1: Any, a2: Any) -> Any:
    """`np.polymul`: the convolution of the coefficients."""
    coefficients_only("np.polymul", a1, a2)
    return np.convolve(np.atleast_1d(a1), np.atleast_1d(a2))


def numpy_polyder(p: Any, m: Any = 1) -> Any:
    """`np.polyder`: each coefficient times its power, the constant dropped, `m` times."""
    coefficients_only("np.polyder", p)
    order = order_of("derivative", m)
    p = np.asarray(p)
    for _ in range(order):
        p = p[:-1] * np.arange(len(p) - 1, 0, -1)
    return p


def numpy_polyint(p: Any, m: Any = 1, k: Any = None) -> Any:
    """`np.polyint`: each coefficient over its power plus one, then the constant `k[i]`
    appended, `m` times (`k` one constant for every time, or zeros)."""
    coefficients_only("np.polyint", p)
    order = order_of("integral", m)
    constants = np.zeros(order) if k is None else np.atleast_1d(k)
    if len(constants) == 1 and order > 1:
        constants = constants[0] * np.ones(order)
    if len(constants) < order:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = np.asarray(p)
    for i in range(order):
        p = np.concatenate((p / np.arange(len(p), 0, -1), constants[i : i + 1]))
    return p


def numpy_vander(x: Any, N: Any = None, increasing: Any = False) -> Any:  # noqa: N803
    """`np.vander`: the powers of `x` up to `N - 1`, each the one before times `x`, highest
    first unless `increasing`."""
    if np.ndim(x) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    count = len(x) if N is None else int(N)
    if count == 0:
        return np.zeros((len(x), 0))
    columns = [np.ones(np.shape(x))]
    for _ in range(1, count):
        columns.append(columns[-1] * x)
    table = np.stack(columns, axis=1)
    return table if increasing else table[:, ::-1]


by_definition(rules, np.polyadd, numpy_polyadd)
by_definition(rules, np.polysub, numpy_polysub)
by_definition(rules, np.polymul, numpy_polymul)
by_definition(rules, np.polyder, numpy_polyder)
for _two in (np.polyadd, np.polysub, np.polymul):
    rules.keywords_by_position(_two, "a1", "a2")
rules.keywords_by_position(np.polyder, "p")
by_definition(rules, np.polyint, numpy_polyint)
rules.keywords_by_position(np.polyint, "p", "k")
by_definition(rules, np.vander, numpy_vander)
rules.keywords_by_position(np.vander, "x")

"""The facts of the functions that take complex numbers apart (`np.real`, `np.imag`,
`np.conjugate`; their rules are `numpy_elementwise`'s): result kinds and inline derivatives,
for code specialised for complex kinds (`srcad.kinds`). None is holomorphic, so each states
its tangents beside its cotangents (`Inline.complex_tangents`), as `abs`'s of a complex
argument does (`MAGNITUDE_INLINE`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from srcad import dtypes
from srcad.kinds import SAME_KIND, Kind, ResultKind
from srcad.partials import direction
from srcad.registry import Inline, Linearity, RuleSet

rules = RuleSet("complex parts")


def _real_part(args: Sequence[Kind | None]) -> Kind | None:
    """`np.real(x)`, `np.imag(x)`: what `x.real` gives (`dtypes.real_kind`)."""
    return dtypes.real_kind(args[0]) if len(args) == 1 and args[0] is not None else None


REAL_PART = ResultKind("real part", _real_part, elementwise=True)

# `abs(z)`, `np.abs(z)` of a complex `z`: `z / |z|` its slope (0 at 0, as its rule takes it).
MAGNITUDE_INLINE = Inline(
    complex=("y_bar * direction(a, y)",),
    complex_tangents=("real_part(conj(direction(a, y)) * y_bar)",),
    direction=direction,
)

# Linear in their argument (their rules are `numpy_elementwise`'s): what gives their forward
# rules reverse rules, for second derivatives (`rules/second_order.py`). `np.imag` of a
# real argument is 0: no cotangent.
rules.primitive(
    np.real,
    result=REAL_PART,
    inline=Inline("y_bar", complex=("y_bar",), complex_tangents=("real_part(y_bar)",)),
    linearity=Linearity.LINEAR,
)
rules.primitive(
    np.imag,
    result=REAL_PART,
    inline=Inline(None, complex=("1j * y_bar",), complex_tangents=("real_part(-1j * y_bar)",)),
    linearity=Linearity.LINEAR,
)
rules.primitive(
    np.conjugate,
    result=SAME_KIND,
    inline=Inline("y_bar", complex=("conj(y_bar)",), complex_tangents=("conj(y_bar)",)),
    linearity=Linearity.LINEAR,
)

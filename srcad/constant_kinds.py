"""The kinds of values a function reads from outside (a module constant, a closure cell),
which compiled code may be specialised on (`srcad.source.FunctionSource.constant_kind`)."""

from __future__ import annotations

from typing import Any

import numpy as np  # noqa: F401 (the examples read it)

from srcad.kinds import FLOATS, Kind, kind_of


def constant_kind(value: Any) -> Kind | None:
    """The kind of a value a function reads from outside (a module constant, a closure
    cell) that compiled code may be specialised on, or None: a number (`kind_of`), a
    non-empty tuple of floats (`FLOATS`), or a float64, float32 or integer array of one
    dimension or more (`kind_of`). An array's dtype and number of dimensions change in place
    (`a.shape = ...`, `a.dtype = ...`): its guard checks them on every entry, with its
    identity (`FunctionSource.constant_kind`); its contents are read when the code runs.

    >>> constant_kind(1e-12), constant_kind((0.5, -1.0)), constant_kind((1, 2.0))
    (('f', 0), ('floats', 1), None)
    >>> constant_kind(np.ones((2, 3))), constant_kind(np.float32([1.0])), constant_kind(np.array(1))
    (('f', 2), ('f4', 1), None)
    """
    if type(value) is tuple:
        return FLOATS if value and all(type(item) is float for item in value) else None
    return kind_of(value)

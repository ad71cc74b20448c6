"""What the test modules share."""

from typing import Any

import numpy as np


def sample(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    """Random standard-normal values of `shape` (complex parts too for a complex `dtype`)."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.standard_normal(shape)
    return np.asarray(values, dtype=dtype)

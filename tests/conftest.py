"""What the test modules share."""

import importlib.util
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import numpy as np


def sample(shape: tuple[int, ...], seed: int, dtype: Any = np.float64) -> np.ndarray:
    """Random standard-normal values of `shape` (complex parts too for a complex `dtype`)."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.standard_normal(shape)
    return np.asarray(values, dtype=dtype)


def user_module(path: Path, name: str, text: str) -> types.ModuleType:
    """Write `text` to `path/name.py` and import it as a module of its own, as a user's
    module is (so that srcad reads its functions' source from a file)."""
    file = path / f"{name}.py"
    file.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def close(got: Any, want: Any) -> None:
    """Equal as floats, to the tolerance finite differences allow."""
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), 1e-6, 1e-8)


def check_two_argument_gradient(f: Any, args: tuple[Any, ...]) -> None:
    """`value_and_grad` of `f` with respect to its two arguments against the primal and
    central differences, and its rule against `srcad.testing.check_rrule`."""
    import srcad
    from srcad.testing import check_rrule, finite_difference_vjp

    value, gradient = srcad.value_and_grad(f, wrt=(0, 1))(*args)
    close(value, f(*args))
    for position, g in enumerate(gradient):
        close(g, finite_difference_vjp(f, args, 1.0, position))
    check_rrule(f, *args)


def difference(f: Any, args: tuple[Any, ...], position: int = 0) -> np.ndarray:
    """The derivative of `f` with respect to argument `position`, by central differences
    (`srcad.testing.finite_difference_jvp`, one direction per element): an array of shape
    `f(*args).shape + args[position].shape`."""
    import srcad
    from srcad.testing import finite_difference_jvp

    x = args[position]
    columns = []
    for index in range(int(np.size(x))):
        basis = np.zeros(np.shape(x))
        basis.reshape(-1)[index] = 1.0
        direction = basis if isinstance(x, np.ndarray) else float(basis)
        tangents = tuple(
            direction if i == position else srcad.ZeroTangent() for i in range(len(args))
        )
        columns.append(np.asarray(finite_difference_jvp(f, args, tangents)))
    stacked = np.stack(columns, axis=-1)
    return stacked.reshape(np.shape(columns[0]) + np.shape(x))

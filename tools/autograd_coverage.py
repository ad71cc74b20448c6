"""Write the NumPy functions autograd differentiates: the floor of srcad's NumPy coverage.

Autograd registers a vector-Jacobian product for each primitive it differentiates
(`autograd.core.primitive_vjps`). This script lists those that wrap a function of NumPy
(`numpy`, `numpy.linalg`, `numpy.fft`), one qualified name a line, sorted, into
`tests/rules/autograd_numpy_functions.txt`, which `tests/rules/test_numpy_coverage.py`
walks. The list is committed so that the test does not need autograd; rerun the script
(with autograd installed: `pip install autograd`) to refresh it against a newer autograd.

    python tools/autograd_coverage.py
"""

from __future__ import annotations

from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "tests/rules/autograd_numpy_functions.txt"
NUMPY_MODULES = ("numpy", "numpy.linalg", "numpy.fft")


def autograd_numpy_functions() -> list[str]:
    """The qualified names of the NumPy functions with a VJP in autograd."""
    import autograd.numpy  # noqa: F401  (importing it registers the VJPs)
    from autograd.core import primitive_vjps

    names = set()
    for primitive in primitive_vjps:
        wrapped = getattr(primitive, "fun", primitive)
        module = getattr(wrapped, "__module__", None)
        if module in NUMPY_MODULES:
            names.add(f"{module}.{wrapped.__name__}")
    return sorted(names)


def main() -> None:
    from importlib.metadata import version

    names = autograd_numpy_functions()
    header = f"# NumPy functions with a VJP in autograd {version('autograd')}"
    header += " (tools/autograd_coverage.py)\n"
    OUTPUT.write_text(header + "".join(f"{name}\n" for name in names))
    print(f"{len(names)} functions written to {OUTPUT}")


if __name__ == "__main__":
    main()

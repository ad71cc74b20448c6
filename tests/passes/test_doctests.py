"""Every example in the docstrings of the passes, the rules and the core modules holds."""

import doctest
import importlib
import pkgutil

import pytest

import srcad
import srcad.passes
import srcad.rules

MODULES = sorted(
    [m.name for m in pkgutil.walk_packages(srcad.passes.__path__, "srcad.passes.")]
    + [m.name for m in pkgutil.walk_packages(srcad.rules.__path__, "srcad.rules.")]
    + [
        f"srcad.{m.name}"
        for m in pkgutil.iter_modules(srcad.__path__)
        if m.name not in ("passes", "rules", "__main__")
    ]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name.startswith("srcad.rules.scipy_"):
        pytest.importorskip("scipy")  # SciPy's rules import it: an optional dependency
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0

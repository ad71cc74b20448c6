"""Every before/after example in the passes' and core modules' docstrings holds."""

import doctest
import importlib
import pkgutil

import pytest

import srcad
import srcad.passes

MODULES = sorted(
    [f"srcad.passes.{m.name}" for m in pkgutil.iter_modules(srcad.passes.__path__)]
    + [
        f"srcad.{m.name}"
        for m in pkgutil.iter_modules(srcad.__path__)
        if m.name not in ("passes", "rules", "__main__")
    ]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0

"""Imports inside the function and `del` statements that only free memory
(`passes/transforms/local_imports.py`, `deletions.py`): differentiated as the same code
without them would be, in both modes and at second order, against central differences;
the imports read as the modules' attributes on every call; the others refused, located."""

import sys
import types

import numpy as np
import pytest

import srcad
from tests.conftest import close, difference, user_module

SOURCE = """
import numpy as np

math = "a module-level name the function reads, not the module"


def aliased_module(x):
    import numpy as onp
    return onp.sum(onp.sin(x) * x)


def dotted_module(x):
    import numpy.linalg
    return numpy.linalg.norm(x) ** 2 + np.sum(x)


def from_names(x):
    from numpy import tanh, sum as total
    from math import exp
    return total(tanh(x)) * exp(x[0])


def submodule(x):
    from numpy import linalg
    return linalg.norm(x * 2.0)


def clashing_cell_name(x):
    from math import sin
    return sin(x[0]) * len(math)


def read_in_nested_and_comprehension(x):
    from math import cos
    import numpy as onp

    def inner(v):
        return onp.sin(v) * 2.0

    return onp.sum(inner(x)) + sum(cos(v) for v in x)


def in_a_loop_body(x):
    from math import sin
    s = 0.0
    for v in x:
        s = s + sin(v) * v
    return s


def scratch_freed(x):
    t = x * 2.0
    s = np.sum(t ** 2)
    del t
    return s


def freed_in_a_loop(x):
    s = 0.0
    for v in x:
        t = v * v
        u, w = t, t + 1.0
        s = s + u * w
        del t, u, w
    return s


def parameter_freed(x):
    s = np.sum(np.exp(x))
    del x
    return s * 2.0
"""

TAKEN = [
    "aliased_module",
    "dotted_module",
    "from_names",
    "submodule",
    "clashing_cell_name",
    "read_in_nested_and_comprehension",
    "in_a_loop_body",
    "scratch_freed",
    "freed_in_a_loop",
    "parameter_freed",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return user_module(tmp_path_factory.mktemp("imports"), "local_imports_cases", SOURCE)


@pytest.mark.parametrize("name", TAKEN)
def test_differentiated_as_without_them(module, name):
    f = getattr(module, name)
    x = np.array([0.3, -0.7, 1.1])
    want = difference(f, (x,))
    value, gradient = srcad.value_and_grad(f)(x)
    close(value, f(x))
    close(gradient, want)
    direction = np.array([1.0, -2.0, 0.5])
    y, y_dot = srcad.jvp(f, (x,), (direction,))
    close(y, f(x))
    close(y_dot, want @ direction)
    close(srcad.hessian(f)(x), difference(srcad.grad(f), (x,)))


def test_an_imported_name_is_read_from_its_module_on_every_call(tmp_path):
    """`from helpers import scale` reads `helpers.scale` on each call, as the statement
    does: a function put in its place after the first call is the one differentiated."""
    helpers = types.ModuleType("srcad_test_local_import_helpers")
    helpers.scale = lambda v: v * v
    sys.modules[helpers.__name__] = helpers
    try:
        module = user_module(
            tmp_path,
            "imports_read_again",
            f"def f(x):\n    from {helpers.__name__} import scale\n    return scale(x) + 1.0\n",
        )
        grad = srcad.grad(module.f)
        close(grad(2.0), 4.0)
        close(srcad.jvp(module.f, (2.0,), (1.0,))[1], 4.0)
        helpers.scale = lambda v: v * v * v
        close(grad(2.0), 12.0)
        close(srcad.jvp(module.f, (2.0,), (1.0,)), (9.0, 12.0))
    finally:
        del sys.modules[helpers.__name__]


REFUSED = {
    "import_in_a_branch": (
        "def f(x):\n    if x > 0:\n        import math\n    return math.sin(x)\n",
        3,
        "an `import` inside a block",
    ),
    "import_read_before": (
        "def f(x):\n    y = x * 2.0\n    from math import sin as y\n    return y(x)\n",
        3,
        "an `import` inside a block",
    ),
    "del_then_read": (
        "def f(x):\n    t = x * 2.0\n    del t\n    return t\n",
        3,
        "a `del` of a name read after it",
    ),
    "del_maybe_unbound": (
        "def f(x):\n    if x > 0:\n        t = x\n    del t\n    return x\n",
        4,
        "a `del` of a name read after it",
    ),
    "del_in_a_loop_of_a_name_read_on_the_next_pass": (
        "def f(x):\n    t = 1.0\n    for v in [x, x]:\n        t = t + v\n        del t\n"
        "    return x\n",
        5,
        "a `del` of a name read after it",
    ),
    "del_of_a_name_a_nested_function_reads": (
        "def f(x):\n    t = x\n    g = lambda: t\n    del t\n    return x\n",
        4,
        "a `del` of a name read after it",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_python_might_run_otherwise_is_refused_at_its_line(tmp_path, name):
    text, line, message = REFUSED[name]
    module = user_module(tmp_path, f"refused_{name}", text)
    with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
        srcad.grad(module.f)(1.5)
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.line, diagnostic.code) == (line, "E101")
    assert message in diagnostic.message


def test_a_module_that_cannot_be_imported_raises_as_the_call_would(tmp_path):
    module = user_module(
        tmp_path, "imports_missing", "def f(x):\n    from math import nothing_here\n    return x\n"
    )
    with pytest.raises(ImportError, match="nothing_here"):
        module.f(1.0)
    with pytest.raises(ImportError, match="nothing_here"):
        srcad.grad(module.f)(1.0)


def test_a_relative_import_reads_the_functions_package(tmp_path, monkeypatch):
    package = tmp_path / "srcad_relative_import_case"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text("def scale(v):\n    return v * v * v\n")
    (package / "model.py").write_text(
        "def f(x):\n    from .helpers import scale\n    from . import helpers\n"
        "    return scale(x) + helpers.scale(2.0 * x)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    model = importlib.import_module("srcad_relative_import_case.model")
    close(srcad.grad(model.f)(0.5), 3 * 0.25 + 3 * 8 * 0.25)
    loose = user_module(tmp_path, "relative_without_package", "def f(x):\n    from . import y\n"
                        "    return x\n")  # fmt: skip
    with pytest.raises(ImportError):
        loose.f(1.0)
    with pytest.raises(ImportError, match="no known parent package"):
        srcad.grad(loose.f)(1.0)

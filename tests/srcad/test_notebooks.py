"""Notebooks and IPython, through IPython itself: functions defined in cells (their source
is IPython's cell cache), cells and helpers defined again, `%autoreload` of a module whose
file changes (every mode this IPython has), and `srcad.source(...)` shown highlighted as
the last line of a cell. Every gradient is checked against central finite differences.
"""

from __future__ import annotations

import linecache
import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import srcad
from srcad.testing import finite_difference_vjp

interactiveshell = pytest.importorskip("IPython.core.interactiveshell")


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    os.environ.setdefault("IPYTHONDIR", str(tmp_path_factory.mktemp("ipython")))
    shell = interactiveshell.InteractiveShell.instance()
    try:
        yield shell
    finally:
        interactiveshell.InteractiveShell.clear_instance()


def run(shell: Any, cell: str) -> Any:
    """Run a cell as a notebook does; its last line's value, or its error raised."""
    result = shell.run_cell(textwrap.dedent(cell), store_history=True)
    if result.error_before_exec is not None:
        raise result.error_before_exec
    if result.error_in_exec is not None:
        raise result.error_in_exec
    return result.result


def numeric(shell: Any, name: str, *args: Any, position: int = 0) -> Any:
    return finite_difference_vjp(shell.user_ns[name], args, 1.0, position)


@pytest.mark.parametrize(
    "cell",
    [
        # Imports and the definition in one cell: IPython compiles each statement alone.
        "import numpy as np\nimport srcad\n\ndef f(x, y):\n    return np.sum(np.sin(x) * y)\n",
        "def f(x, y):\n    s = 0.0\n    for i in range(len(x)):\n        s = s + x[i] ** 2 * y\n"
        "    return s\n",
        "f = lambda x, y: np.sum(np.exp(x) * y)\n",
    ],
    ids=["with-imports", "loop", "lambda"],
)
def test_a_function_defined_in_a_cell(shell: Any, cell: str) -> None:
    run(shell, "import numpy as np\nimport srcad\n")
    run(shell, cell)
    x, y = np.array([0.3, -1.2, 2.0]), 0.7
    shell.user_ns.update(x=x, y=y)
    np.testing.assert_allclose(run(shell, "srcad.grad(f)(x, y)"), numeric(shell, "f", x, y))
    value, (x_bar, y_bar) = run(shell, "srcad.value_and_grad(f, wrt=(0, 1))(x, y)")
    np.testing.assert_allclose(value, shell.user_ns["f"](x, y))
    np.testing.assert_allclose(x_bar, numeric(shell, "f", x, y))
    np.testing.assert_allclose(y_bar, numeric(shell, "f", x, y, position=1))
    assert "ipython-input" in run(shell, "srcad.source(f)")


def test_a_helper_from_another_cell_and_cells_defined_again(shell: Any) -> None:
    run(shell, "import numpy as np\nimport srcad\n")
    run(shell, "def helper(t):\n    return t ** 3\n")
    run(shell, "def f(t):\n    return helper(t) * 2.0\n\ng = srcad.grad(f)\n")
    assert run(shell, "g(2.0)") == pytest.approx(numeric(shell, "f", 2.0))
    # The helper defined again: the gradient already made calls the new one.
    run(shell, "def helper(t):\n    return np.sin(t) * t\n")
    assert run(shell, "g(2.0)") == pytest.approx(numeric(shell, "f", 2.0))
    # The function defined again, on the same lines of another cell: a new function.
    run(shell, "def f(t):\n    return helper(t) / t + t ** 2\n")
    assert run(shell, "srcad.grad(f)(2.0)") == pytest.approx(numeric(shell, "f", 2.0))
    old = shell.user_ns["g"]
    assert run(shell, "g(2.0)") == old(2.0)  # the first `f` is unchanged: its gradient too


def test_a_cell_whose_cached_text_is_not_the_code_is_refused(shell: Any) -> None:
    run(shell, "def tampered(t):\n    return t * t\n")
    filename = shell.user_ns["tampered"].__code__.co_filename
    size, mtime, lines, name = linecache.cache[filename]
    linecache.cache[filename] = (size, mtime, ["def tampered(t):\n", "    return t + t\n"], name)
    try:
        with pytest.raises(srcad.SourceUnavailableError, match="not the text it was compiled"):
            run(shell, "srcad.grad(tampered)(2.0)")
    finally:
        linecache.cache[filename] = (size, mtime, lines, name)


def _autoreload_modes() -> list[str]:
    """`%autoreload 2`, and where it patches only the functions that changed (IPython 9's
    "deduperreload", compiling their text alone), also the whole-module reload it has."""
    try:
        import IPython.extensions.deduperreload  # noqa: F401
    except ImportError:
        return ["2"]
    return ["2", "2 --full"]


MODULE_V1 = """\
import numpy as np


def helper(t):
    return t ** 3


def f(t):
    return helper(t) * 2.0


class Model:
    def __init__(self, k):
        self.k = k

    def loss(self, t):
        return self.k * t ** 2
"""

MODULE_V2 = """\
import numpy as np

# a comment that moves every definition down a line

def helper(t):
    return np.sin(t) * t


def f(t):
    return helper(t) * 5.0  # changed


class Model:
    def __init__(self, k):
        self.k = k

    def loss(self, t):
        return self.k * np.cos(t) * t
"""


@pytest.fixture
def module_dir(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("notebook_model", None)


@pytest.mark.parametrize("mode", _autoreload_modes())
def test_autoreload_of_a_changed_module(shell: Any, module_dir: Path, mode: str) -> None:
    path = module_dir / "notebook_model.py"
    path.write_text(MODULE_V1)
    run(shell, "%load_ext autoreload")
    run(shell, f"%autoreload {mode}")
    try:
        run(shell, "import srcad, notebook_model\ng = srcad.grad(notebook_model.f)\n")
        run(shell, "m = notebook_model.Model(3.0)\ng_method = srcad.grad(m.loss)\n")
        assert run(shell, "g(2.0)") == pytest.approx(24.0)
        assert run(shell, "g_method(2.0)") == pytest.approx(12.0)
        path.write_text(MODULE_V2)
        mtime = path.stat().st_mtime + 10
        os.utime(path, (mtime, mtime))  # the reloader looks at the file's time
        module = sys.modules["notebook_model"]
        run(shell, "pass")  # a cell runs: autoreload reloads the module first
        f, loss = module.f, module.Model(3.0).loss
        assert run(shell, "g(2.0)") == pytest.approx(finite_difference_vjp(f, (2.0,), 1.0, 0))
        assert run(shell, "srcad.grad(notebook_model.f)(2.0)") == pytest.approx(
            finite_difference_vjp(f, (2.0,), 1.0, 0)
        )
        assert run(shell, "g_method(2.0)") == pytest.approx(
            finite_difference_vjp(loss, (2.0,), 1.0, 0)
        )
    finally:
        run(shell, "%autoreload 0")


def test_source_shows_highlighted_as_the_last_line_of_a_cell(shell: Any) -> None:
    shown: list[dict[str, Any]] = []
    hook = shell.displayhook
    original = hook.write_format_data
    hook.write_format_data = lambda data, metadata=None: shown.append(data)
    try:
        run(
            shell, "import numpy as np\nimport srcad\n\ndef shown_f(x):\n    return np.sin(x) * x\n"
        )
        run(shell, "srcad.source(shown_f)")
    finally:
        hook.write_format_data = original
    (data,) = shown
    text = srcad.source(shell.user_ns["shown_f"])
    assert data["text/plain"] == text  # the code itself, not a quoted string
    assert data["text/markdown"].startswith("```python\n# srcad: reverse rule of shown_f")
    pytest.importorskip("pygments")
    assert "<span" in data["text/html"] and "rrule_shown_f" in data["text/html"]
    assert "style=" in data["text/html"]  # the highlighting's styles are inline


def test_source_html_without_pygments_is_escaped_text(
    shell: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(shell, "import numpy as np\nimport srcad\n\ndef plain_f(x):\n    return x * x\n")
    monkeypatch.setitem(sys.modules, "pygments", None)  # `import pygments` fails
    text = srcad.source(shell.user_ns["plain_f"])
    html = shell.display_formatter.format(text)[0]["text/html"]
    assert html.startswith("<pre>") and "&lt;ipython-input-" in html and "<ipython" not in html

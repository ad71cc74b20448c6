"""When gradient code raises, the user sees the line of their own source it came from, and
frames in generated code show their text under `python script.py`."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import srcad

SCRIPT = textwrap.dedent(
    """\
    import numpy as np

    import srcad


    def scaled(a):
        return np.log(a) * a


    def forward_fails(x):
        y = x * 2.0
        z = scaled(y)
        return np.sum(z)


    def fragile(v):
        raise AssertionError("never called: its rule is used")


    @srcad.rrule.register(fragile)
    def fragile_rrule(v):
        def fragile_pullback(bar):
            raise ValueError("the pullback of fragile fails")

        return v * 1.0, fragile_pullback


    def backward_fails(x):
        u = x * 3.0
        w = fragile(u) + u
        return w * w


    if __name__ == "__main__":
        import sys

        if sys.argv[1] == "forward":
            srcad.grad(forward_fails)(np.array([1.0, "x"], dtype=object))
        else:
            srcad.grad(backward_fails)(1.5)
    """
)


def _line(text: str) -> int:
    return SCRIPT.splitlines().index(text) + 1


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tracebacks") / "script.py"
    path.write_text(SCRIPT)
    return path


@pytest.mark.parametrize(
    ("which", "user_line", "generated_text"),
    [
        ("forward", "    y = x * 2.0", "mul_rrule(x, 2.0)"),
        ("backward", "    w = fragile(u) + u", "fragile_u_pullback("),
    ],
)
def test_python_script_shows_generated_text_and_the_users_line(
    script: Path, which: str, user_line: str, generated_text: str
) -> None:
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    result = subprocess.run([sys.executable, str(script), which], capture_output=True,
                            text=True, env=env, timeout=60)  # fmt: skip
    assert result.returncode == 1
    stderr = result.stderr
    assert 'File "<srcad grad_' in stderr
    frame = stderr.split('File "<srcad grad_', 1)[1].splitlines()
    assert generated_text in frame[1]  # the frame shows the emitted line itself
    note = f"srcad: raised in the gradient code of {script}:{_line(user_line)}: "
    assert note + user_line.strip() in stderr


def _module(script: Path) -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("srcad_traceback_script", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are Python 3.11's")
def test_a_caught_error_carries_the_users_line_as_a_note(script: Path) -> None:
    module = _module(script)
    with pytest.raises(TypeError) as caught:
        srcad.grad(module.forward_fails)(np.array([1.0, "x"], dtype=object))
    line = _line("    y = x * 2.0")
    assert f"srcad: raised in the gradient code of {script}:{line}: y = x * 2.0" in (
        caught.value.__notes__
    )
    with pytest.raises(ValueError) as again:
        srcad.grad(module.backward_fails)(1.5)
    line = _line("    w = fragile(u) + u")
    assert any(f"{script}:{line}: w = fragile(u) + u" in n for n in again.value.__notes__)

"""Every script in examples/ runs to completion and prints an emitted rule."""

import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[1] / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path):
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    result = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "def rrule_" in result.stdout
    assert "_pullback(" in result.stdout

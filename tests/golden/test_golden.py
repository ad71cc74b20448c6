"""Emitted source of a few functions, compared with golden text (set SRCAD_UPDATE_GOLDEN=1 to
rewrite the files after an intended change)."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

import srcad

HERE = pathlib.Path(__file__).parent
NAMES = [
    "sin_times", "logistic", "sum3", "rebind_and_unpack", "inactive_parts",
    "mse", "sum_array", "branches", "calls_square",
]  # fmt: skip
WRT = {"inactive_parts": ("x",)}


def load_functions():
    spec = importlib.util.spec_from_file_location("golden_functions", HERE / "functions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


functions = load_functions()


@pytest.mark.parametrize("name", NAMES)
def test_emitted_source_matches_golden_text(name):
    text = srcad.source(getattr(functions, name), wrt=WRT.get(name))
    golden = HERE / f"{name}.reverse.txt"
    if os.environ.get("SRCAD_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_same_text_in_another_process():
    path = str(HERE / "functions.py")
    script = (
        "import importlib.util, sys, srcad\n"
        f"spec = importlib.util.spec_from_file_location('golden_functions', {path!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "sys.stdout.write(srcad.source(m.logistic))\n"
    )
    env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONHASHSEED": "random"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd="/",
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] == srcad.source(functions.logistic)

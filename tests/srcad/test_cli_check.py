"""`srcad check FILE[:FUNC]`: every diagnostic of a file at once, as text or JSON."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

MODEL = textwrap.dedent(
    """
    import numpy as np


    def first(x):
        y = np.asarray(x)
        y[0] = x
        try:
            z = x * 2
        except ValueError:
            z = 0.0
        return y + z


    def second(x, d):
        d.update(a=x)
        return np.add(x, 1.0, out=x)


    def third(x):
        with open("f") as handle:
            pass
        return x


    def clean(x):
        return x * 2.0
    """
)

EXPECTED = [(7, 5, "E301"), (8, 5, "E101"), (16, 5, "E303"), (17, 31, "E304"), (21, 5, "E101")]


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return path


def run_check(*args):
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    return subprocess.run(
        [sys.executable, "-m", "srcad", "check", *args],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip


def test_five_problems_in_three_functions_in_one_run(model):
    result = run_check(str(model))
    assert result.returncode == 1
    headlines = [line for line in result.stdout.splitlines() if ": error[" in line]
    assert headlines == [
        f"{model}:{line}:{column}: error[{code}]: " + headline.split("]: ", 1)[1]
        for (line, column, code), headline in zip(EXPECTED, headlines, strict=True)
    ]
    assert "5 problems" in result.stderr


def test_json_format(model):
    result = run_check(str(model), "--format", "json")
    assert result.returncode == 1
    found = json.loads(result.stdout)
    assert [(d["line"], d["column"], d["code"]) for d in found] == EXPECTED
    assert all(d["file"] == str(model) and d["message"] and d["hint"] for d in found)


def test_one_clean_function_exits_zero(model):
    result = run_check(f"{model}:clean")
    assert result.returncode == 0
    assert result.stdout == ""


def test_one_function_of_the_file(model):
    result = run_check(f"{model}:second", "--format", "json")
    assert [d["code"] for d in json.loads(result.stdout)] == ["E303", "E304"]


def test_bad_path_exits_two(tmp_path):
    result = run_check(str(tmp_path / "missing.py"))
    assert result.returncode == 2
    assert result.stderr.startswith("srcad: error: no such file")


def test_function_with_a_rule_is_not_inspected(tmp_path):
    path = tmp_path / "ruled.py"
    path.write_text(textwrap.dedent(
        """
        import srcad


        def guarded(x):
            try:
                return x * 2.0
            except TypeError:
                raise


        @srcad.rrule.register(guarded)
        def guarded_rrule(x):
            def guarded_pullback(y_bar):
                return srcad.NoTangent(), 2.0 * y_bar

            return guarded(x), guarded_pullback
        """
    ))  # fmt: skip
    result = run_check(f"{path}:guarded")
    assert result.returncode == 0, result.stdout


def test_show_forward_mode(model):
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "srcad", "show", f"{model}:clean", "--mode", "forward"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "def frule_clean(dargs, x):" in result.stdout
    assert "x_dot" in result.stdout


def test_rules_table_command():
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    result = subprocess.run([sys.executable, "-m", "srcad", "rules"], capture_output=True,
                            text=True, env=env, check=True)  # fmt: skip
    assert result.stdout.startswith("# Functions srcad differentiates")
    assert "| numpy.sin | `sin_rrule` | yes |" in result.stdout

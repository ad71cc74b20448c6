"""Tests for srcad/cli.py: `python -m srcad show FILE:FUNC`, run as a user would run it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

MODEL = textwrap.dedent(
    """\
    import math

    import numpy as np


    def loss(w, b, x):
        z = x * w + b
        return np.sum(z * z)


    def guarded(x):
        try:
            y = x * 2.0
        except ValueError:
            y = x
        return y


    def two_problems(x):
        for _ in range(2):
            x = x * 2.0
        with open(x):
            x = x / 2.0
        if x:
            import os
        return x


    def calls_gamma(x):
        y = math.gamma(x)
        return y * 2.0


    not_a_function = 3
    """
)


def _line_number(text: str) -> int:
    """The 1-based line of MODEL holding `text`."""
    return MODEL.splitlines().index(text) + 1


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "model.py"
    path.write_text(MODEL)
    return path


def srcad_cli(
    *args: str, cwd: Path | None = None, seed: str = "0"
) -> subprocess.CompletedProcess[str]:
    """Run `python -m srcad ARGS` without the repository root on sys.path."""
    env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONHASHSEED": seed}
    return subprocess.run(
        [sys.executable, "-m", "srcad", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def test_show_prints_the_rrule_and_its_pullback(model: Path) -> None:
    result = srcad_cli("show", f"{model}:loss")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "\ndef rrule_loss(w, b, x):\n" in result.stdout
    assert "\n    def loss_pullback(" in result.stdout
    assert "# differentiated with respect to: w, b, x\n" in result.stdout
    assert result.stdout.endswith("\n")


def test_show_output_is_valid_python(model: Path) -> None:
    compile(srcad_cli("show", f"{model}:loss").stdout, "<show>", "exec")


def test_show_accepts_a_relative_path_and_mode(model: Path) -> None:
    result = srcad_cli("show", "model.py:loss", "--mode", "reverse", cwd=model.parent)
    assert result.returncode == 0, result.stderr
    assert "def rrule_loss(w, b, x):" in result.stdout


@pytest.mark.parametrize(
    ("wrt", "header", "present", "absent"),
    [
        pytest.param("b", "b", "b_bar", "w_bar", id="one-name"),
        pytest.param("w,x", "w, x", "x_bar", "b_bar", id="two-names"),
        pytest.param(" x , w ", "x, w", "w_bar", "b_bar", id="spaces"),
    ],
)
def test_show_wrt(model: Path, wrt: str, header: str, present: str, absent: str) -> None:
    result = srcad_cli("show", f"{model}:loss", "--wrt", wrt)
    assert result.returncode == 0, result.stderr
    assert f"# differentiated with respect to: {header}\n" in result.stdout
    assert present in result.stdout
    assert absent not in result.stdout


def test_show_is_deterministic_across_processes_and_directories(
    model: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "model.py"
    copy.write_text(MODEL)
    first = srcad_cli("show", f"{model}:loss", seed="1")
    second = srcad_cli("show", f"{copy}:loss", seed="2")
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout


# (arguments after `show`, expected stderr lines, each given as its start): every failure
# exits with status 2, prints one line per problem on stderr and nothing on stdout.
FAILURES = [
    pytest.param(
        lambda model: [f"{model.parent / 'missing.py'}:loss"],
        lambda model: [f"srcad: error: no such file: {model.parent / 'missing.py'}"],
        id="bad-path",
    ),
    pytest.param(
        lambda model: [f"{model}:nowhere"],
        lambda model: [f"srcad: error: {model} defines no function 'nowhere'"],
        id="missing-function",
    ),
    pytest.param(
        lambda model: [f"{model}:not_a_function"],
        lambda model: [f"srcad: error: {model}:not_a_function is not a function"],
        id="not-a-function",
    ),
    pytest.param(
        lambda model: [str(model)],
        lambda model: [f"srcad: error: expected FILE:FUNC, got '{model}'"],
        id="no-function-given",
    ),
    pytest.param(
        lambda model: [f"{model}:loss", "--wrt", "q"],
        lambda model: ["srcad: error: wrt='q' names no positional parameter of loss"],
        id="bad-wrt",
    ),
    pytest.param(
        lambda model: [f"{model}:guarded"],
        lambda model: [
            f"{model}:{_line_number('    try:')}:5: error[E101]: "
            "a `try` statement is not supported here (hint: register a rule with "
            "@srcad.rrule.register(guarded))"
        ],
        id="compile-error",
    ),
    pytest.param(
        lambda model: [f"{model}:two_problems"],
        lambda model: [
            f"{model}:{_line_number('    with open(x):')}:5: error[E101]: a `with` statement "
            "is supported only for `np.errstate`, `warnings.catch_warnings` and "
            "`contextlib.nullcontext`: another manager's `__enter__` and `__exit__` run code "
            "srcad does not differentiate, and an `__exit__` that returns a true value "
            "swallows an exception raised in the body (hint: ",
            f"{model}:{_line_number('        import os')}:9: error[E101]: an `import` inside "
            "a block, or of a name the function binds otherwise or reads before it, is not "
            "supported here (hint: import it at the module's level, or at the top of the "
            "function's body)",
        ],
        id="two-compile-errors",
    ),
    pytest.param(
        lambda model: [f"{model}:calls_gamma"],
        lambda model: [
            f"{model}:{_line_number('    y = math.gamma(x)')}:9: error[E210]: no reverse rule "
            "for `math.gamma`"
        ],
        id="missing-rule",
    ),
]


@pytest.mark.parametrize(("arguments", "expected"), FAILURES)
def test_show_failure_exits_2_with_one_line_per_problem(
    model: Path,
    arguments: Callable[[Path], list[str]],
    expected: Callable[[Path], list[str]],
) -> None:
    result = srcad_cli("show", *arguments(model))
    lines = result.stderr.splitlines()
    starts = expected(model)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(lines) == len(starts), result.stderr
    assert [line[: len(start)] for line, start in zip(lines, starts, strict=True)] == starts


def test_show_reports_a_file_that_fails_to_import(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('no import for you')\n")
    result = srcad_cli("show", f"{path}:f")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"srcad: error: importing {path} failed: RuntimeError: no import for you"
    ]


def test_console_script_matches_python_m(model: Path) -> None:
    script = Path(sys.executable).parent / "srcad"
    if not script.exists():
        pytest.skip("the `srcad` console script is not installed next to this interpreter")
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    installed = subprocess.run(
        [str(script), "show", f"{model}:loss"], capture_output=True, text=True, env=env, timeout=60
    )
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout == srcad_cli("show", f"{model}:loss").stdout


def test_show_args_specialises_for_argument_kinds() -> None:
    mse = Path(__file__).parents[1] / "golden" / "functions.py"
    result = srcad_cli("show", f"{mse}:mse", "--args", "float[:], float[:]")
    assert result.returncode == 0, result.stderr
    golden = (Path(__file__).parents[1] / "golden" / "mse.optimised.txt").read_text()
    assert result.stdout == golden + "\n" or result.stdout == golden


def test_show_args_refuses_an_unreadable_kind(model: Path) -> None:
    result = srcad_cli("show", f"{model}:loss", "--args", "double")
    assert result.returncode == 2
    assert "cannot read the argument kind 'double'" in result.stderr

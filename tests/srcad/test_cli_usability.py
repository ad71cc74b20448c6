"""The command line as a user meets it: --version, -o, colour, `check DIR`, "did you mean",
--args counts, scripts loaded without their top-level work, `rules` without internals."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TRAIN = textwrap.dedent(
    """\
    import numpy as np

    STEPS = 3
    RATE = 0.1 * STEPS
    WEIGHTS = np.ones(3)


    def loss(w, x):
        return np.sum((w * x) ** 2) * RATE


    def uses_weights(x):
        return np.sum(WEIGHTS * x)


    open("trained.txt", "w").write("trained")
    for step in range(STEPS):
        open("looped.txt", "w").write("looped")

    if __name__ == "__main__":
        open("main.txt", "w").write("main")
    """
)


def srcad_cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONSAFEPATH": "1", **env}
    full.pop("NO_COLOR", None) if "NO_COLOR" not in env else None
    return subprocess.run([sys.executable, "-m", "srcad", *args], capture_output=True,
                          text=True, env=full, cwd=cwd, timeout=60)  # fmt: skip


@pytest.fixture
def train(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(TRAIN)
    return tmp_path


def test_version(tmp_path: Path) -> None:
    from importlib.metadata import version

    result = srcad_cli("--version", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"srcad {version('srcad')}"


@pytest.mark.parametrize("command", ["show", "check"])
def test_show_and_check_skip_top_level_work(train: Path, command: str) -> None:
    result = srcad_cli(command, "train.py:loss", cwd=train)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in train.iterdir()) == ["train.py"]  # nothing was run


def test_a_function_needing_a_skipped_name_is_told_so(train: Path) -> None:
    result = srcad_cli("show", "train.py:uses_weights", cwd=train)
    assert "uses_weights reads 'WEIGHTS', which train.py:5 binds in an assignment that " in (
        result.stderr
    )
    (train / "late.py").write_text("import numpy as np\nf = np.vectorize(np.sin)\n")
    missing = srcad_cli("show", "late.py:f", cwd=train)
    assert missing.returncode == 2
    assert "late.py:2 binds 'f' in an assignment that calls a function" in missing.stderr


def test_show_writes_to_a_file_with_o(train: Path) -> None:
    result = srcad_cli("show", "train.py:loss", "-o", "rule.py", cwd=train)
    assert result.returncode == 0 and result.stdout == ""
    assert (train / "rule.py").read_text() == srcad_cli("show", "train.py:loss", cwd=train).stdout


@pytest.mark.parametrize(
    ("name", "suggestion"), [("los", "'loss'"), ("uses_weight", "'uses_weights'")]
)
def test_did_you_mean(train: Path, name: str, suggestion: str) -> None:
    for command in ("show", "check"):
        result = srcad_cli(command, f"train.py:{name}", cwd=train)
        assert result.returncode == 2
        assert f"defines no function '{name}'; did you mean {suggestion}?" in result.stderr


@pytest.mark.parametrize(
    ("kinds", "ok"),
    [("float[:], float[:]", True), ("float[:]", False), ("float, float, float", False)],
)
def test_args_must_give_one_kind_per_parameter(train: Path, kinds: str, ok: bool) -> None:
    result = srcad_cli("show", "train.py:loss", "--args", kinds, cwd=train)
    assert result.returncode == (0 if ok else 2), result.stderr
    if not ok:
        assert "takes 2 positional arguments" in result.stderr


def test_check_recurses_into_a_directory(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / ".hidden").mkdir()
    bad = "def f(x):\n    try:\n        return x\n    except ValueError:\n        return x\n"
    (tmp_path / "pkg" / "a.py").write_text(bad)
    (tmp_path / "pkg" / "sub" / "a.py").write_text(bad)  # the same module name, elsewhere
    (tmp_path / "pkg" / "sub" / "fine.py").write_text("def g(x):\n    return x * 2.0\n")
    (tmp_path / ".hidden" / "c.py").write_text(bad)
    result = srcad_cli("check", "pkg", cwd=tmp_path)
    assert result.returncode == 1
    files = [line.split(":")[0] for line in result.stdout.splitlines() if "error[" in line]
    expected = [tmp_path / "pkg" / "a.py", tmp_path / "pkg" / "sub" / "a.py"]
    assert [Path(f).resolve() for f in files] == [p.resolve() for p in expected]
    assert srcad_cli("check", "pkg/sub/fine.py", cwd=tmp_path).returncode == 0


def _in_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """What the command prints to a pseudo-terminal."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "srcad", *args], cwd=cwd, env=env,
                               stdout=terminal, stderr=terminal)  # fmt: skip
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(controller)
    return b"".join(chunks).decode()


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_colour_on_a_terminal_none_when_piped_or_no_color(train: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(PYTHONSAFEPATH="1", TERM="xterm")
    args = ["show", "train.py:loss"]
    assert "\x1b[" in _in_a_terminal(args, train, env)
    assert "\x1b[" not in _in_a_terminal(args, train, {**env, "NO_COLOR": "1"})
    assert "\x1b[" not in srcad_cli(*args, cwd=train).stdout  # piped
    assert "\x1b[" in srcad_cli("--color", "always", *args, cwd=train).stdout
    bad = "def f(x):\n    try:\n        return x\n    except ValueError:\n        return x\n"
    (train / "bad.py").write_text(bad)
    assert "\x1b[" in _in_a_terminal(["check", "bad.py"], train, env)


def test_rules_leaves_out_the_internal_second_order_table(tmp_path: Path) -> None:
    result = srcad_cli("rules", cwd=tmp_path)
    assert result.returncode == 0
    assert "## operators" in result.stdout
    assert "second_order" not in result.stdout

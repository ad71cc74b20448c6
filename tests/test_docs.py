"""The documentation is true: the API reference builds from the docstrings (Sphinx, as
`docs/api/conf.py` says) and documents every public name; every Python block of the README
and of the guides runs as written; a listing of emitted code is what srcad emits; and
what the rule-writing guide tells rule authors holds.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad

ROOT = Path(__file__).resolve().parents[1]
# The pages whose Python blocks run, each page's blocks in order in one script, as a reader
# who pastes them one after the other into one session would.
PAGES = ["README.md", "docs/coming-from-jax.md", "docs/writing-rules.md"]
# A block that starts so is a listing of what srcad emits, compared, not run.
LISTING = "# srcad: "


def python_blocks(page: str) -> list[tuple[int, str]]:
    """The ```python blocks of a page, each with the line it starts on."""
    text = (ROOT / page).read_text()
    return [
        (text[: match.start()].count("\n") + 2, match.group(1))
        for match in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)
    ]


@pytest.mark.parametrize("page", PAGES)
def test_every_python_block_runs_as_written(page: str, tmp_path: Path) -> None:
    blocks = [(line, code) for line, code in python_blocks(page) if not code.startswith(LISTING)]
    assert blocks, f"{page} has no Python block"
    # Each block starts on its own line of the page in the script, so that an error names
    # the page's line (the gaps are blank lines).
    lines: list[str] = []
    for line, code in blocks:
        lines += [""] * (line - 1 - len(lines))
        lines += code.splitlines()
    script = tmp_path / Path(page).name.replace(".md", "_blocks.py")
    script.write_text("\n".join(lines) + "\n")
    env = {**os.environ, "PYTHONSAFEPATH": "1", "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert result.returncode == 0, f"{page} (lines as in the page):\n{result.stderr[-3000:]}"


def test_the_readme_listing_is_what_srcad_emits() -> None:
    (listing,) = [code for _, code in python_blocks("README.md") if code.startswith(LISTING)]
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import mse_loop
    finally:
        sys.path.remove(str(ROOT / "examples"))
    emitted = srcad.source(mse_loop.mse, args=(np.zeros(3), np.zeros(3)))
    # The page's blocks are formatted by `ruff format`: the same code and comments.
    assert ast.dump(ast.parse(listing)) == ast.dump(ast.parse(emitted))
    assert _comments(listing) == _comments(emitted)


def _comments(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("#")]


def test_the_api_reference_builds_and_documents_every_public_name(tmp_path: Path) -> None:
    pytest.importorskip("sphinx")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "docs/api", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "index.html").read_text()
    documented = set(re.findall(r'id="(?:module-)?srcad\.([A-Za-z_]+)"', html))
    missing = sorted(set(srcad.__all__) - documented)
    assert not missing, f"add these to docs/api/index.rst: {missing}"


@pytest.mark.parametrize("name", srcad.__all__)
def test_every_public_name_has_a_docstring(name: str) -> None:
    obj = getattr(srcad, name)
    doc = obj.__doc__ if not isinstance(obj, srcad.RuleConfig) else type(obj).__doc__
    assert doc and doc.strip(), f"srcad.{name} has no docstring"


# --- what the rule-writing guide says -----------------------------------------------------

seen: list[object] = []


def doubled(x: float) -> float:
    return x * 2.0


def both(x: float) -> tuple[float, float]:
    return x * 2.0, x * 3.0


def unused_in_a_branch(x: float, flag: bool) -> float:
    a = doubled(x)
    if flag:
        return a
    return x


def second_unused(x: float) -> float:
    a, _unused = both(x)
    return a


@pytest.fixture
def recorded_rules() -> object:
    """Rules for `doubled` and `both` whose pullbacks record the cotangent they get."""

    def doubled_rrule(x: float) -> object:
        def doubled_pullback(y_bar: object) -> object:
            seen.append(y_bar)
            return srcad.NoTangent(), 2.0 * y_bar  # type: ignore[operator]

        return doubled(x), doubled_pullback

    def both_rrule(x: float) -> object:
        def both_pullback(y_bar: object) -> object:
            seen.append(y_bar)
            a_bar, b_bar = y_bar  # type: ignore[misc]
            return srcad.NoTangent(), 2.0 * a_bar + 3.0 * b_bar

        return both(x), both_pullback

    # Rules for this module's own functions: registering them again replaces them.
    srcad.rrule.register(doubled)(doubled_rrule)
    srcad.rrule.register(both)(both_rrule)
    seen.clear()
    return seen


@pytest.mark.parametrize("x", [0.5, -1.5, 3.0])
def test_a_pullback_is_given_a_zero_tangent(recorded_rules: list[object], x: float) -> None:
    # A branch that does not use the rule's result: its cotangent is ZeroTangent().
    assert srcad.grad(unused_in_a_branch)(x, False) == 1.0
    assert seen[-1] == srcad.ZeroTangent()
    assert srcad.grad(unused_in_a_branch)(x, True) == 2.0
    # A seed of ZeroTangent() for the result.
    _, pullback = srcad.rrule(unused_in_a_branch, x, True)
    assert pullback(srcad.ZeroTangent())[1] == srcad.ZeroTangent()
    assert seen[-1] == srcad.ZeroTangent()
    # An element of a tuple result that is not used: a zero in its place.
    assert srcad.grad(second_unused)(x) == 2.0
    assert tuple(seen[-1]) == (1.0, srcad.ZeroTangent())  # type: ignore[call-overload]

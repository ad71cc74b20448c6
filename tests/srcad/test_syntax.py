"""The emitter's own round trip: srcad's sources parse, print and recompile unchanged."""

import pathlib

import pytest

from srcad import syntax

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = sorted(p for folder in ("srcad", "rules", "passes") for p in (ROOT / folder).glob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=[f"{p.parent.name}/{p.name}" for p in SOURCES])
def test_self_hosting_round_trip(path):
    tree = syntax.parse(path.read_text())
    text = syntax.unparse(tree)
    assert syntax.same_tree(text, tree)
    compile(text, str(path), "exec")


def test_comment_markers_become_comments():
    tree = syntax.parse("x = 1\n")
    tree.body.insert(0, syntax.comment("file.py:3  x = 1"))
    assert syntax.unparse(tree) == "# file.py:3  x = 1\nx = 1\n"


@pytest.mark.parametrize(
    ("built", "text"),
    [
        ("def f(x, y):\n    return x\n", "def f(x, z):\n    return x\n"),
        ("def f(x: int):\n    return x\n", "def f(x):\n    return x\n"),
        ("try:\n    a()\nexcept E as e:\n    pass\n", "try:\n    a()\nexcept E as f:\n    pass\n"),
        ("y = -(a * b)\n", "y = -a * b\n"),
        ("x = 1\ny = 2\n", "x = 1\n"),
        ("f(a, k=1)\n", "f(a, k=2)\n"),
    ],
)
def test_same_tree_tells_a_different_text(built, text):
    tree = syntax.parse(built)
    assert syntax.same_tree(built, tree)
    assert not syntax.same_tree(text, tree)

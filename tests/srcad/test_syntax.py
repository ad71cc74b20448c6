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

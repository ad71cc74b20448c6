"""`docs/refusals.md` lists every diagnostic code the compiler reports, each with what it
refuses and why (issue 20: the refusals that remain are documented with their reason)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def codes_in_source() -> set[str]:
    """Every code a `Diagnostic` is made with, in srcad's own modules."""
    found: set[str] = set()
    for folder in ("srcad", "passes", "rules"):
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(re.findall(r'"(E[0-9]{3})"', path.read_text()))
    return found


def test_the_source_makes_codes() -> None:
    assert {"E101", "E210", "E301"} <= codes_in_source()


def test_every_diagnostic_code_is_listed_with_its_reason() -> None:
    text = (ROOT / "docs" / "refusals.md").read_text()
    rows = re.findall(r"^\| (E[0-9]{3}) \| ([^|]+) \| ([^|]+) \|$", text, re.MULTILINE)
    listed = {code for code, _, _ in rows}
    assert codes_in_source() - listed == set(), "add these codes to docs/refusals.md"
    assert listed - codes_in_source() == set(), "docs/refusals.md lists codes no longer made"
    for code, what, why in rows:
        assert what.strip() and why.strip(), code

"""The audit tools (`tools/rule_audit.py` with its SciPy cases, `tools/api_audit.py`) run,
on a few of their cases each, and find nothing wrong there: cases of the bugs they found
(a multivariate normal in dimension 1, polygamma of a list of orders, a density at its
support's end, the Jacobian of a structured result)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("scipy.stats")

TOOLS = Path(__file__).resolve().parent.parent / "tools"


@pytest.fixture(scope="module", autouse=True)
def tools_on_path() -> None:
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))


@pytest.mark.parametrize(
    ("group", "only"),
    [
        ("STATS", "multivariate_normal.logpdf(x, None, 1.7)"),
        ("STATS", "multivariate_normal(y[1], y[0] * y[0] + 0.5)"),
        ("SPECIAL", "polygamma([0, 1, 2, 3], x)"),
        ("STATS", "gamma.logpdf(x, 1.0)"),
    ],
)
def test_the_rule_audit_passes_its_cases_of_fixed_bugs(group: str, only: str) -> None:
    import rule_audit

    assert rule_audit.main(["--group", group, "--only", only, "--seeds", "1", "--quiet"]) == 0


def test_the_api_audit_passes_structured_results() -> None:
    import api_audit

    assert api_audit.main(["--only", "result", "--quiet"]) == 0


@pytest.mark.parametrize("only", ["dict merged by |", "lists joined by sum"])
def test_the_api_audit_passes_session_36_cases(only: str) -> None:
    import api_audit

    assert api_audit.main(["--only", only, "--quiet"]) == 0


@pytest.mark.parametrize("only", ["softmax left to its default axis"])
def test_the_api_audit_passes_session_37_cases(only: str) -> None:
    import api_audit

    assert api_audit.main(["--only", only, "--quiet"]) == 0

"""Errors srcad raises, each carrying located, compiler-style diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# The code of a call-site diagnostic that introduces a callee's own problems, which follow it.
CALLEE_FAILED = "E220"


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place in the user's source.

    `line` is 1-based and `column` 0-based, as Python's own AST reports them; `format`
    prints the column 1-based, as compilers do.
    """

    file: str
    line: int
    column: int
    code: str
    message: str
    hint: str = ""
    source_line: str = ""

    def headline(self) -> str:
        """The one-line form: `file:line:col: error[CODE]: message`."""
        return f"{self.file}:{self.line}:{self.column + 1}: error[{self.code}]: {self.message}"

    def format(self) -> str:
        """The headline, the offending source line with a caret, and the hint."""
        parts = [self.headline()]
        if self.source_line:
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            caret_at = max(self.column - (len(text) - len(stripped)), 0)
            parts.append(f"    {stripped}")
            parts.append(f"    {' ' * caret_at}^")
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)

    def to_dict(self) -> dict[str, object]:
        """A plain dict, for JSON output."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column + 1,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }


class SrcadError(Exception):
    """Base of every error srcad raises on purpose."""

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        self.message = message
        self.diagnostics = list(diagnostics)
        super().__init__(self._render())

    def _render(self) -> str:
        if not self.diagnostics:
            return self.message
        body = "\n".join(d.format() for d in self.diagnostics)
        return f"{self.message}\n{body}"


class ExportError(SrcadError):
    """The gradient cannot be written as a module without srcad: what, and why."""


class SourceUnavailableError(SrcadError):
    """The Python source of a function to differentiate cannot be found."""


class UnsupportedSyntaxError(SrcadError):
    """The function uses a construct srcad cannot differentiate."""


class MissingRuleError(SrcadError):
    """A differentiated call has neither a rule nor Python source to compile."""


class UnsupportedCallError(MissingRuleError, TypeError):
    """A library rule met a call it has no derivative for: an option (`where=`, `out=`,
    `mode=`, `period=`) or a kind of argument its rule does not take. A `SrcadError`, noted
    with the user's line when it reaches them, and a `TypeError`, as the call is one
    srcad's rule cannot take."""


class MutationError(SrcadError):
    """The function mutates a value in a way that would make its gradient wrong."""


class TangentShapeError(SrcadError):
    """A rule returned, or a caller passed, a tangent or cotangent that does not fit the
    value it belongs to (its shape, or the number of them)."""

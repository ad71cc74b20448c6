"""How emitted source shows in IPython and Jupyter: highlighted, as the last line of a cell."""

from __future__ import annotations

import html
from typing import Any


class SourceText(str):
    """Emitted source text, as `srcad.source` returns it: a `str`, which IPython and
    Jupyter show as highlighted Python (HTML, Markdown) or as plain text in a terminal,
    not as the quoted string with escaped line breaks a plain `str` shows as."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        """Highlighted by Pygments where it is installed (IPython installs it), with its
        styles inline so that no style sheet is needed; else the text, escaped, in `<pre>`."""
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer
        except ImportError:
            return f"<pre>{html.escape(str(self))}</pre>"
        formatter = HtmlFormatter(noclasses=True)
        rendered: str = highlight(str(self), PythonLexer(), formatter)
        return rendered

    def _repr_markdown_(self) -> str:
        fence = "```"
        while fence in self:
            fence += "`"
        return f"{fence}python\n{self.rstrip()}\n{fence}\n"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """The text itself in IPython's terminal (its `text/plain`)."""
        printer.text(str(self))

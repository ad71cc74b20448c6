"""Tracebacks through generated code point at the user's own line.

Each emitted text is registered in `linecache` (`emit.register_text`), so Python's
`traceback` module shows its lines; and with it, where each of its lines came from in the
user's source (`record_origins`): the statement's own position where the compiler kept
it, else the `# file:line  text` comment the pullback's block starts with, else the next
statement that has one. When generated code raises, `annotate` adds a note to the
exception naming that line of the user's source (`add_note`, from Python 3.11).

Python's default `sys.excepthook` before 3.13 prints tracebacks in C, which reads files
from disk and never `linecache`: with `python script.py`, a frame in generated code would
show no text. srcad installs `excepthook` in its place (only where the default one is in
place), which prints through the `traceback` module when a traceback passes through
generated code, and leaves every other traceback to the hook it replaced.
"""

from __future__ import annotations

import ast
import linecache
import re
import sys
import traceback
import types
from typing import Any

__all__ = [
    "annotate",
    "excepthook",
    "install",
    "origin",
    "record_origins",
    "record_positions",
    "user_call_site",
]

# An emitted file name: the user's file, and for each emitted line the user's line.
_ORIGINS: dict[str, tuple[str, dict[int, int]]] = {}
_MARKER = re.compile(r"\s*# (?P<file>[^\s:]+):(?P<line>\d+)  ")
_NOTE = "srcad: raised in the gradient code of {file}:{line}: {text}"


def record_origins(filename: str, text: str, parsed: list[ast.stmt], built: list[Any],
                   source_file: str) -> None:  # fmt: skip
    """Remember, for each line of the emitted `text` (registered as `filename`), the line
    of `source_file` it came from. `parsed` is the text's statements, `built` the tree's
    (comments included) they were printed from, with positions where the compiler kept
    the user's."""
    known: dict[int, int] = {}
    _pair(parsed, built, known)
    lines = text.splitlines()
    origins: dict[int, int] = {}
    marker = None
    for number, line in enumerate(lines, 1):
        found = _MARKER.match(line)
        if found is not None:
            marker = int(found["line"])
        elif line.lstrip().startswith("def "):
            marker = None
        if number in known:
            origins[number] = known[number]
        elif marker is not None:
            origins[number] = marker
    following = None
    for number in range(len(lines), 0, -1):  # the rest: the next statement with a line
        if number in origins:
            following = origins[number]
        elif following is not None:
            origins[number] = following
    _ORIGINS[filename] = (source_file, origins)


def record_positions(filename: str, text: str, built: list[Any]) -> None:
    """Remember, for the lines of the emitted `text` (registered as `filename`) printed from
    statements of `built` that carry a `srcad_origin` (the user's file and line: the
    forward rules a `jvp` entry runs inline, `srcad/forward_inline.py`), that line, and no
    other: the entry's own lines came from no line of the user's."""
    known: dict[int, tuple[str, int]] = {}
    _pair_origins(ast.parse(text).body, built, known)
    files = {file for file, _ in known.values()}
    if len(files) == 1:
        _ORIGINS[filename] = (files.pop(), {line: at for line, (_, at) in known.items()})
    else:  # (none, or rules from several files: a file of a name holds one)
        _ORIGINS.pop(filename, None)


def _pair_origins(parsed: list[Any], built: list[Any], known: dict[int, tuple[str, int]]) -> None:
    for ours, theirs in zip(parsed, [s for s in built if not _is_comment(s)], strict=False):
        where = getattr(theirs, "srcad_origin", None)
        if where is not None:
            known[ours.lineno] = where
        for field in ("body", "orelse", "finalbody"):
            inner, outer = getattr(ours, field, None), getattr(theirs, field, None)
            if isinstance(inner, list) and isinstance(outer, list):
                _pair_origins(inner, outer, known)


def _position(node: Any) -> int | None:
    line = getattr(node, "lineno", None)
    return line if isinstance(line, int) and line > 0 else None


def _pair(parsed: list[ast.stmt], built: list[Any], known: dict[int, int]) -> None:
    """Walk the parsed statements beside the tree's, recording the positions it kept."""
    built = [s for s in built if not _is_comment(s)]
    for ours, theirs in zip(parsed, built, strict=False):
        line = _position(theirs)
        if line is not None:
            known[ours.lineno] = line
        for field in ("body", "orelse", "finalbody"):
            inner, outer = getattr(ours, field, None), getattr(theirs, field, None)
            if isinstance(inner, list) and isinstance(outer, list):
                _pair(inner, outer, known)


def _is_comment(node: Any) -> bool:
    from srcad import syntax

    return bool(syntax.is_comment(node))


def origin(filename: str, line: int) -> tuple[str, int] | None:
    """The user's file and line that line `line` of the emitted `filename` came from."""
    found = _ORIGINS.get(filename)
    if found is None or line not in found[1]:
        return None
    return found[0], found[1][line]


def user_call_site() -> str | None:
    """`file:line  text` of the user's source line that the innermost frame of generated
    code on the stack came from (the call that reached a rule running now), or None."""
    frame = sys._getframe(1)
    while frame is not None:
        found = origin(frame.f_code.co_filename, frame.f_lineno)
        if found is not None:
            file, line = found
            # Generated from generated code (a forward rule's reverse rule): to the user's.
            while (further := origin(file, line)) is not None:
                file, line = further
            return f"{file}:{line}  {linecache.getline(file, line).strip()}"
        frame = frame.f_back  # type: ignore[assignment]
    return None


def notes_for(error: BaseException) -> list[str]:
    """One line per frame of generated code the error passed through, innermost last."""
    notes = []
    tb = error.__traceback__
    while tb is not None:
        origin = _ORIGINS.get(tb.tb_frame.f_code.co_filename)
        if origin is not None:
            file, lines = origin
            line = lines.get(tb.tb_lineno)
            if line is not None:
                text = linecache.getline(file, line).strip()
                notes.append(_NOTE.format(file=file, line=line, text=text))
        tb = tb.tb_next
    return notes


def annotate(error: BaseException) -> None:
    """Note on `error` the user's lines its generated frames came from (once each)."""
    present = set(getattr(error, "__notes__", ()))
    for note in notes_for(error):
        if note not in present:
            if sys.version_info >= (3, 11):
                error.add_note(note)
            else:  # printed by `excepthook`, and by `traceback` from Python 3.11 on
                error.__notes__ = [*getattr(error, "__notes__", []), note]  # type: ignore[attr-defined]
            present.add(note)


def _through_generated(tb: types.TracebackType | None) -> bool:
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in _ORIGINS:
            return True
        tb = tb.tb_next
    return False


_previous = sys.excepthook


def excepthook(kind: type[BaseException], error: BaseException, tb: Any) -> None:
    """Print a traceback through generated code with its lines and the user's."""
    if not _through_generated(tb):
        _previous(kind, error, tb)
        return
    annotate(error)
    traceback.print_exception(kind, error, tb)
    if sys.version_info < (3, 11):
        for note in getattr(error, "__notes__", []):
            print(note, file=sys.stderr)


def install() -> None:
    """Put `excepthook` in place, unless someone else's hook is there (IPython's)."""
    global _previous
    if sys.excepthook is sys.__excepthook__:
        _previous = sys.excepthook
        sys.excepthook = excepthook

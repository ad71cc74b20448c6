"""Find a function's source tree and environment: parse its whole file, locate it by line."""

from __future__ import annotations

import builtins
import inspect
import linecache
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gast

from srcad import syntax
from srcad.errors import Diagnostic, SourceUnavailableError


@dataclass
class FunctionSource:
    """A function's gast node (from its whole file, lines intact) and its environment."""

    func: types.FunctionType
    node: gast.FunctionDef
    filename: str
    lines: list[str]
    globals: dict[str, Any]
    closure: dict[str, types.CellType] = field(default_factory=dict)
    # For a function defined inside the one being compiled: the enclosing function's own
    # names, which exist only while it runs.
    enclosing: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return self.func.__name__

    def nested(self, node: gast.FunctionDef, enclosing: set[str]) -> FunctionSource:
        """The source of a function defined inside this one."""
        return FunctionSource(
            self.func,
            node,
            self.filename,
            self.lines,
            self.globals,
            self.closure,
            frozenset(enclosing) | self.enclosing,
        )

    def line(self, lineno: int) -> str:
        return self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""

    def diagnostic(self, node: gast.AST, code: str, message: str, hint: str = "") -> Diagnostic:
        """A diagnostic at `node`, in the user's file."""
        lineno = getattr(node, "lineno", None) or self.node.lineno
        offset = getattr(node, "col_offset", None) or 0
        text = self.line(lineno)
        # The AST counts columns in UTF-8 bytes; diagnostics (and their carets) in characters.
        column = len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))
        return Diagnostic(self.filename, lineno, column, code, message, hint, text)

    def lookup(self, name: str) -> tuple[str, Any]:
        """Where a free name of the function lives, and its value now.

        Returns ("enclosing" | "closure" | "global" | "builtin" | "undefined", value).
        """
        if name in self.enclosing:
            return "enclosing", None
        if name in self.closure:
            try:
                return "closure", self.closure[name].cell_contents
            except ValueError:
                return "undefined", None
        if name in self.globals:
            return "global", self.globals[name]
        builtins_ns = self.globals.get("__builtins__", builtins)
        if isinstance(builtins_ns, types.ModuleType):
            builtins_ns = vars(builtins_ns)
        if name in builtins_ns:
            return "builtin", builtins_ns[name]
        return "undefined", None


# A file's function and lambda nodes, by line (see `_definitions`).
Definitions = dict[int, list[gast.AST]]

# Per file: the lines it was parsed from, and its definitions by line.
_parsed: dict[str, tuple[list[str], Definitions]] = {}


def _definitions(filename: str, lines: list[str]) -> Definitions:
    """The function and lambda nodes of the file, by each line a function's code object
    may name as its first: a `def`'s own line and its first decorator's, a lambda's line.
    Parsed and indexed once per file (again if its lines change)."""
    cached = _parsed.get(filename)
    if cached is not None and cached[0] == lines:
        return cached[1]
    found: Definitions = {}
    for node in syntax.walk(syntax.parse("".join(lines))):
        if isinstance(node, gast.FunctionDef | gast.AsyncFunctionDef):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            for line in {first, node.lineno}:
                found.setdefault(line, []).append(node)
        elif isinstance(node, gast.Lambda):
            found.setdefault(node.lineno, []).append(node)
    _parsed[filename] = (list(lines), found)
    return found


def _unavailable(func: Any, why: str) -> SourceUnavailableError:
    name = getattr(func, "__qualname__", repr(func))
    return SourceUnavailableError(
        f"cannot differentiate {name}: {why}; srcad reads a function's Python source, so "
        f"define it in a file, or register a rule with @srcad.rrule.register({name})"
    )


def _as_function_def(node: gast.Lambda) -> gast.FunctionDef:
    """A lambda seen as the one-line function it is: `def <lambda>(args): return body`."""
    body = [gast.Return(value=node.body)]
    syntax.located(body[0], node)
    function = gast.FunctionDef(
        name="lambda",
        args=node.args,
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        type_params=[],
    )
    return syntax.located(function, node)


def function_source(func: Callable[..., Any]) -> FunctionSource:
    """Locate `func`'s definition in its file's syntax tree, with its globals and closure."""
    func = inspect.unwrap(func)
    if not isinstance(func, types.FunctionType):
        raise _unavailable(func, f"it is a {type(func).__name__}, not a Python function")
    code = func.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, func.__globals__)
    if not lines:
        raise _unavailable(func, f"its source file {filename!r} cannot be read")
    try:
        candidates = _definitions(filename, lines).get(code.co_firstlineno, [])
    except SyntaxError as error:
        raise _unavailable(func, f"its file {filename!r} does not parse ({error})") from None
    matches: list[gast.AST] = []
    at_line: list[gast.AST] = []  # a generated function may have been renamed
    for node in candidates:
        if isinstance(node, gast.FunctionDef | gast.AsyncFunctionDef):
            at_line.append(node)
            if node.name == func.__name__:
                matches.append(node)
        elif func.__name__ == "<lambda>":
            matches.append(node)
    if not matches and len(at_line) == 1:
        matches = at_line
    if not matches:
        raise _unavailable(func, f"no definition of it at {filename}:{code.co_firstlineno}")
    if len(matches) > 1:
        raise _unavailable(
            func, f"{filename}:{code.co_firstlineno} defines {len(matches)} such functions"
        )
    node = matches[0]
    if isinstance(node, gast.Lambda):
        node = _as_function_def(node)
    closure = dict(zip(code.co_freevars, func.__closure__ or (), strict=True))
    return FunctionSource(func, node, filename, lines, func.__globals__, closure)

"""Find a function's source tree and environment: parse its whole file, locate it by line."""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import gast

from srcad import syntax
from srcad.errors import Diagnostic, SourceUnavailableError


@dataclass
class FunctionSource:
    """A function's definition (from its whole file, lines intact) and its environment."""

    func: types.FunctionType
    # Its definition: a gast `def` (a nested function's, a doctest's), or Python's own tree
    # of a `def` or a lambda in `file`, converted to gast when asked for (see `node`).
    definition: ast.AST
    filename: str
    lines: list[str]
    globals: dict[str, Any]
    closure: dict[str, types.CellType] = field(default_factory=dict)
    # For a function defined inside the one being compiled: the enclosing function's own
    # names, which exist only while it runs.
    enclosing: frozenset[str] = frozenset()
    file: _File | None = None  # the parsed file `definition` is from, if any

    @property
    def name(self) -> str:
        return self.func.__name__

    @property
    def node(self) -> gast.FunctionDef:
        """The function's gast tree (a lambda's as a `def`), shared by every compilation of
        the function: read it, never change it (`tree` gives a copy to change)."""
        if self.file is None:
            assert isinstance(self.definition, gast.FunctionDef)
            return self.definition
        return self.file.converted(self.definition)

    def tree(self) -> gast.FunctionDef:
        """A gast tree of the function that the caller owns, to change as it likes."""
        if self.file is None or self.file.has_converted(self.definition):
            return syntax.copy_tree(self.node)
        # Converting Python's tree again costs less than converting it and copying that.
        return _function_def(syntax.as_gast(self.definition))

    @property
    def lineno(self) -> int:
        """The line the definition starts on (a decorated `def`'s, after its decorators)."""
        lineno: int = self.definition.lineno  # type: ignore[attr-defined]
        return lineno

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
        lineno = getattr(node, "lineno", None) or self.lineno
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


# A file's function and lambda nodes (`ast`'s), by line (see `_File`).
Definitions = dict[int, list[ast.AST]]


class _File:
    """A parsed file: its `def`s by each line a function's code object may name as its
    first (a `def`'s own line and its first decorator's), its lambdas by line (indexed
    when a lambda is first looked for), and the gast trees of the definitions asked for
    (each converted once: most of a file is never differentiated)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = list(lines)
        self.tree = syntax.parse_ast("".join(lines))
        self.functions: Definitions = {}
        for node in _statements(self.tree.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                for line in {first, node.lineno}:
                    self.functions.setdefault(line, []).append(node)
        self._lambdas: Definitions | None = None
        self._converted: dict[ast.AST, gast.AST] = {}

    def lambdas(self) -> Definitions:
        if self._lambdas is None:
            self._lambdas = {}
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Lambda):
                    self._lambdas.setdefault(node.lineno, []).append(node)
        return self._lambdas

    def converted(self, node: ast.AST) -> gast.FunctionDef:
        """The gast tree of the definition `node`, converted once: shared, never changed."""
        found = self._converted.get(node)
        if found is None:
            found = self._converted[node] = _function_def(syntax.as_gast(node))
        return found

    def has_converted(self, node: ast.AST) -> bool:
        return node in self._converted


# The classes of statement that hold statements.
_COMPOUND = frozenset(
    cls
    for cls in vars(ast).values()
    if isinstance(cls, type)
    and issubclass(cls, ast.stmt)
    and {"body", "orelse", "finalbody", "handlers", "cases"} & set(cls._fields)
)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a block, those of nested blocks included (a class's, a function's,
    an `except` clause's, a `case`'s...)."""
    todo: list[Any] = body[::-1]
    while todo:
        node = todo.pop()
        yield node
        if node.__class__ not in _COMPOUND:
            continue  # most statements hold none
        for holders in ("handlers", "cases"):
            for holder in getattr(node, holders, ()):
                todo.extend(holder.body[::-1])
        for block in ("finalbody", "orelse", "body"):
            todo.extend(getattr(node, block, ())[::-1])


# Per file name: the file as last parsed (again if its lines change).
_parsed: dict[str, _File] = {}


def _file(filename: str, lines: list[str]) -> _File:
    cached = _parsed.get(filename)
    if cached is None or cached.lines != lines:
        cached = _parsed[filename] = _File(lines)
    return cached


def _unavailable(func: Any, why: str) -> SourceUnavailableError:
    name = getattr(func, "__qualname__", repr(func))
    return SourceUnavailableError(
        f"cannot differentiate {name}: {why}; srcad reads a function's Python source, so "
        f"define it in a file, or register a rule with @srcad.rrule.register({name})"
    )


def _function_def(node: gast.AST) -> gast.FunctionDef:
    """A converted definition as a `def`: a lambda seen as the one-line function it is,
    `def lambda(args): return body`."""
    if not isinstance(node, gast.Lambda):
        return node  # a `def` (or an `async def`, which the compiler rejects)
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
        file = _file(filename, lines)
    except SyntaxError as error:
        raise _unavailable(func, f"its file {filename!r} does not parse ({error})") from None
    line = code.co_firstlineno
    at_line = file.functions.get(line, [])  # a generated function may have been renamed
    matches = [node for node in at_line if getattr(node, "name", None) == func.__name__]
    if func.__name__ == "<lambda>":
        matches += file.lambdas().get(line, [])
    if not matches and len(at_line) == 1:
        matches = at_line
    if not matches:
        raise _unavailable(func, f"no definition of it at {filename}:{code.co_firstlineno}")
    if len(matches) > 1:
        raise _unavailable(
            func, f"{filename}:{code.co_firstlineno} defines {len(matches)} such functions"
        )
    closure = dict(zip(code.co_freevars, func.__closure__ or (), strict=True))
    return FunctionSource(func, matches[0], filename, lines, func.__globals__, closure, file=file)

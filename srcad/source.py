"""Find a function's source tree and environment: parse its whole file, locate it by line."""

from __future__ import annotations
import __future__

import ast
import builtins
import functools
import linecache
import sys
import textwrap
import types
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import gast
import numpy as np

from srcad import syntax
from srcad.constant_kinds import constant_kind
from srcad.constructors import initialiser
from srcad.errors import Diagnostic, SourceUnavailableError, SrcadError
from srcad.foreign import foreign_class
from srcad.guards import Fact, name_facts
from srcad.kinds import FLOATS, Kind, Structure, argument_kind


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
    # What the names this compilation resolved (`resolve`) named: the guards of its rule.
    facts: list[Fact] = field(default_factory=list)
    # The names of the cells srcad made in `closure` (a class or a module the function's
    # own statement makes once: `statements_run_once`), which nothing else rebinds.
    made: frozenset[str] = frozenset()

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
            facts=self.facts,
            made=self.made,
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

    def resolve(self, path: list[str]) -> tuple[str, Any]:
        """Where the dotted name `path` (`np.linalg.norm`, not bound in the function)
        lives and the object it names now (None where it names none): what the compiled
        rule relies on, so the guards of the rule (`srcad.guards`) check it is still so.
        A name of the enclosing function (which exists only while it runs) gives
        ("enclosing", None)."""
        if path[0] in self.enclosing:
            return "enclosing", None
        facts, where, value = name_facts(path, self.closure, self.globals, self.made)
        if where == "undefined":
            return where, None  # a name that names nothing is refused where called
        self.facts += facts
        return where, value

    def constant_kind(self, path: list[str]) -> Kind | None:
        """The kind (`srcad.constant_kinds.constant_kind`) of what the global or closure cell
        `path[0]` (not bound in the function) holds now, or None; or, for a dotted name
        (`math.pi`, `np.e`, `config.SCALE`), of the attribute it names, where every object
        on the way is a module (an attribute of anything else, `a.T`, may be a new object
        at each read). Code specialised on it relies on it, so the rule's guards check it:
        the modules on the way by identity, then the type of a number, the identity of a
        tuple, the identity of an array with its dtype and number of dimensions (which
        change in place: `a.shape = ...`)."""
        if path[0] in self.enclosing:
            return None
        facts, where, value = name_facts(path, self.closure, self.globals, self.made)
        if where not in ("global", "closure"):
            return None
        if not all(isinstance(f.holder, types.ModuleType) for f in facts[1:]):
            return None
        kind = constant_kind(value)
        if kind is None:
            if isinstance(value, np.ndarray | list | tuple | dict) or foreign_class(value):
                self._check_class(path, facts, value)  # read as it is, live
            return None
        if type(value) is np.ndarray:
            # (`ndim` by identity: CPython keeps one object per small int, and NumPy's
            # numbers of dimensions are all small.)
            facts += [Fact("attribute", value, "dtype", value.dtype),
                      Fact("attribute", value, "ndim", value.ndim)]  # fmt: skip
        elif kind != FLOATS:
            facts[-1] = facts[-1].by_type()
        self.facts += facts
        return kind

    def _check_class(self, path: list[str], facts: list[Fact], value: Any) -> None:
        """Refuse an array, list, tuple or dict of no kind read from outside whose class
        computes its own way (`srcad.foreign`: a masked array, whose `np.sum` leaves out
        its masked elements, while srcad's rules are an array's); else guard its type, so
        that rebinding the name to one compiles again (and is refused there)."""
        foreign = foreign_class(value)
        if foreign is not None:
            raise SrcadError(
                f"cannot differentiate {self.func.__qualname__}: {'.'.join(path)} holds a "
                f"{foreign}, which may compute otherwise than srcad's rules take it to "
                "(NumPy's, for arrays; Python's, for lists, tuples and dicts); read the "
                "plain value (np.asarray, list, dict; for a masked array, x.filled(0.0))"
            )
        self.facts += [*facts[:-1], facts[-1].by_type()]

    def constant_structure(self, path: list[str]) -> Structure | None:
        """The structure (`srcad.kinds.Structure`) of the container (a tuple, list or dict
        of parameters, a NamedTuple) that the global or closure cell `path[0]`,
        or the module attribute `path` names, as `constant_kind` finds it; or None. A list
        or dict may change in place between calls, so its guard reads its structure on
        every entry (`Fact.by_structure`); within a call, the function cannot change it
        (`Mutations` refuses a change of a global or of what it holds)."""
        if path[0] in self.enclosing:
            return None
        facts, where, value = name_facts(path, self.closure, self.globals, self.made)
        if where not in ("global", "closure") or constant_kind(value) is not None:
            return None
        if not isinstance(value, tuple | list | dict):  # an object's methods are called
            return None  # on it as it is, never on a local the code would read instead
        if not all(isinstance(f.holder, types.ModuleType) for f in facts[1:]):
            return None
        structure = argument_kind(value)
        if not isinstance(structure, Structure):
            return None
        facts[-1] = facts[-1].by_structure(structure)
        self.facts += facts
        return structure


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
        # The definition each code object was found to be compiled from (`definition_of`).
        self._definitions: weakref.WeakKeyDictionary[types.CodeType, ast.AST] = (
            weakref.WeakKeyDictionary()
        )
        self._classes: dict[ast.AST, str] | None = None
        self._imports: set[str] | None = None

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

    def definitions_of(
        self, code: types.CodeType, transformed: bool = False, reloaded: bool = False
    ) -> list[ast.AST]:
        """The definitions of the file that `code` was compiled from: those starting on its
        first line that compile to the same code (one, unless several identical ones share
        a line). Empty where the file has changed since.

        `transformed`: the module was imported through a loader that may change the tree
        before compiling it (pytest rewrites `assert`s, typeguard adds checks), so `code`
        is compared with what the text compiles to more loosely (`_like_code`).
        `reloaded`: IPython's `%autoreload` may have compiled `code` from a definition of
        the file alone (`_reloaded`), which is then looked for by name."""
        found = self._definitions.get(code)
        if found is not None:
            return [found]
        candidates = self.candidates(code)
        if transformed:
            matches = [
                node
                for node in candidates
                if any(_like_code(ours, code) for ours in self._compilations(node, code))
                and _within(code, node)
            ]
        else:
            matches = [
                node
                for node in candidates
                if any(_same_code(ours, code) for ours in self._compilations(node, code))
            ]
        if not matches and reloaded:
            matches = [
                node
                for node in self._named(code.co_name)
                if _same_code(_reloaded(node, node in self._enclosing_classes(), code), code)
            ]
        if len(matches) == 1:
            self._definitions[code] = matches[0]
        return matches

    def _named(self, name: str) -> list[ast.AST]:
        """The file's `def`s of that name, wherever they are."""
        found = {id(n): n for nodes in self.functions.values() for n in nodes}
        return [n for n in found.values() if getattr(n, "name", None) == name]

    def candidates(self, code: types.CodeType) -> list[ast.AST]:
        """The definitions starting on `code`'s first line (a `def` by any name: code may
        be renamed, as `registry.named` does; a lambda, for a lambda's code)."""
        line = code.co_firstlineno
        found = list(self.functions.get(line, []))
        if code.co_name == "<lambda>":
            found += self.lambdas().get(line, [])
        return found

    def _compilations(self, node: ast.AST, code: types.CodeType) -> Iterator[types.CodeType | None]:
        """The code the definition `node` compiles to, as its file is compiled (with the
        module's imports), then as IPython compiles a cell (each top-level statement on its
        own, seeing no import: Python 3.11 compiles `np.sum(x)` differently where the unit
        compiled imports `np`). Either way, the text compared is the definition's own."""
        yield self._compiled(node, code)
        if self._imported_names():
            yield self._compiled(node, code, imports=False)

    def _compiled(
        self, node: ast.AST, code: types.CodeType, imports: bool = True
    ) -> types.CodeType | None:
        """The code the definition `node` compiles to in a scope like the one `code` was
        compiled in: in a module importing what the file imports (if `imports`); inside a
        function defining `code`'s free variables, if any (so they are free variables again); for a
        definition in a class, in a class of that name (private names are mangled with it)."""
        statement: ast.stmt = node if isinstance(node, ast.stmt) else ast.Expr(node)  # type: ignore[arg-type]
        body: list[ast.stmt] = [statement]
        owner = self._enclosing_classes().get(node)
        if owner is not None:
            body = [ast.ClassDef(owner, [], [], body, [])]
        free = [name for name in code.co_freevars if name != "__class__"]
        if free:  # else at the module's level: a name of its own is a global there
            names: list[ast.expr] = [ast.Name(name, ast.Store()) for name in free]
            body.insert(0, ast.Assign(names, ast.Constant(None)))
            arguments = ast.arguments([], [], None, [], [], None, [])
            body = [ast.FunctionDef("__srcad_outer__", arguments, body, [], None)]
        # Python 3.11 compiles `np.sum(x)` differently where the module imports `np`.
        imported = sorted(self._imported_names()) if imports else []
        module = ast.Module([*(ast.Import([ast.alias(name)]) for name in imported), *body], [])
        if statement is not node:
            ast.copy_location(statement, node)
        # The wrapper's nodes are put on line 1; the definition's own have their positions.
        # (`ast.fix_missing_locations(module)` walks the whole definition: 10% of compiling
        # robust_fit_loss, by benchmarks/profile_compile.py.)
        _at_line_one(module, statement)
        flags = code.co_flags & _FUTURE_FLAGS
        try:
            module_code = compile(module, code.co_filename, "exec", flags, dont_inherit=True)
        except (SyntaxError, ValueError):
            return None
        return _find_code(module_code, getattr(node, "name", "<lambda>"), code.co_firstlineno)

    def _imported_names(self) -> set[str]:
        """The names the module's own scope binds by `import`."""
        if self._imports is None:
            self._imports = set()
            todo: list[ast.AST] = list(self.tree.body)
            while todo:
                node = todo.pop()
                if isinstance(node, ast.Import | ast.ImportFrom):
                    for alias in node.names:
                        if alias.name != "*":
                            self._imports.add((alias.asname or alias.name).split(".")[0])
                elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    todo.extend(
                        child
                        for child in ast.iter_child_nodes(node)
                        if isinstance(child, _HOLDING_STATEMENTS)
                    )
        return self._imports

    def _enclosing_classes(self) -> dict[ast.AST, str]:
        """The innermost class each definition of the file is written in, if any."""
        if self._classes is None:
            self._classes = {}
            todo: list[tuple[ast.AST, str | None]] = [(self.tree, None)]
            while todo:
                node, owner = todo.pop()
                for child in ast.iter_child_nodes(node):
                    if owner is not None:  # any definition, a lambda in an expression too
                        if isinstance(child, _DEFINITIONS):
                            self._classes[child] = owner
                    elif not isinstance(child, _HOLDING_STATEMENTS):
                        continue  # a class statement is in no expression
                    todo.append((child, child.name if isinstance(child, ast.ClassDef) else owner))
        return self._classes


def _reloaded(node: ast.AST, method: bool, code: types.CodeType) -> types.CodeType | None:
    """The code of the definition `node` as IPython's `%autoreload` (its "deduperreload",
    IPython 9) compiles a function whose text changed: the text `ast.unparse` gives of its
    tree alone, dedented, from line 1 (a method's in a class `__autoreload_class__`), in the
    module's file. The code it patches into the function is then found at no line of the
    file, but compiles from the same tree as the `def` there: that `def` is its source."""
    text = textwrap.dedent(ast.unparse(node))
    if method:
        text = "class __autoreload_class__:\n" + textwrap.indent(text, "    ")
    try:
        module = compile(text, code.co_filename, "exec", code.co_flags & _FUTURE_FLAGS, True)
    except (SyntaxError, ValueError):
        return None
    return _find_code(module, code.co_name, code.co_firstlineno)


def _at_line_one(node: ast.AST, definition: ast.AST) -> None:
    """Put the nodes of `node` made around `definition` (the imports, a class, an outer
    function) on line 1, as `ast.fix_missing_locations` would, without walking
    `definition`, which has its positions."""
    todo = [node]
    while todo:
        node = todo.pop()
        if node is definition:
            continue
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            for name in ("lineno", "end_lineno"):
                setattr(node, name, 1)
            for name in ("col_offset", "end_col_offset"):
                setattr(node, name, 0)
        todo.extend(ast.iter_child_nodes(node))


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# The nodes that hold statements, where a class statement can be (outside a class, the walk
# for classes reads no expression: most of a file).
_HOLDING_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)
# The `from __future__` flags a code object records, which change what its text compiles to.
_FUTURE_FLAGS = functools.reduce(
    lambda flags, name: flags | getattr(__future__, name).compiler_flag,
    __future__.all_feature_names,
    0,
)
# Flags that say where a code object was defined, not what it does.
_PLACE_FLAGS = 0x10  # CO_NESTED


def _like_code(ours: types.CodeType | None, theirs: types.CodeType) -> bool:
    """Whether `theirs` may be `ours` with code added by an import hook: the same
    parameters and first line, its own names, variables and constants among those of
    `theirs`, and its lines those of the text."""
    if ours is None:
        return False
    count = ours.co_argcount + ours.co_kwonlyargcount
    if ours.co_varnames[:count] != theirs.co_varnames[:count] or (
        ours.co_firstlineno,
        ours.co_argcount,
        ours.co_posonlyargcount,
        ours.co_kwonlyargcount,
    ) != (
        theirs.co_firstlineno,
        theirs.co_argcount,
        theirs.co_posonlyargcount,
        theirs.co_kwonlyargcount,
    ):
        return False
    names = {*theirs.co_names, *theirs.co_freevars, *theirs.co_varnames, *theirs.co_cellvars}
    if not {*ours.co_names, *ours.co_freevars, *ours.co_varnames, *ours.co_cellvars} <= names:
        return False
    constants = [c for c in theirs.co_consts if not isinstance(c, types.CodeType)]
    for constant in ours.co_consts:
        if isinstance(constant, types.CodeType) or constant in constants:
            continue
        if not any(_same_qualname(constant, c) for c in constants):
            return False
    return {line for *_, line in ours.co_lines()} <= {line for *_, line in theirs.co_lines()} | {
        None
    }


def _within(code: types.CodeType, node: ast.AST) -> bool:
    """Whether the source positions of `code`'s instructions (Python 3.11+) lie in the
    text of `node` (the prologue's, at column 0 of the first line, aside)."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return True
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
    return all(
        start <= (line, column) and (end_line, end_column) <= end
        for line, end_line, column, end_column in positions()
        if line is not None and column is not None and end_column
    )


def _find_code(code: types.CodeType, name: str, line: int) -> types.CodeType | None:
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            if constant.co_name == name and constant.co_firstlineno == line:
                return constant
            found = _find_code(constant, name, line)
            if found is not None:
                return found
    return None


def _same_code(ours: types.CodeType | None, theirs: types.CodeType) -> bool:
    """Whether two code objects were compiled from the same text: the same instructions,
    names, constants (nested code compared in turn) and source positions."""
    if ours is None:
        return False
    fields = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount",
              "co_posonlyargcount", "co_kwonlyargcount", "co_firstlineno")  # fmt: skip
    if any(getattr(ours, f) != getattr(theirs, f) for f in fields):
        return False
    if (ours.co_flags | _PLACE_FLAGS) != (theirs.co_flags | _PLACE_FLAGS):
        return False
    # Python 3.11+: columns tell apart the identical lambdas of one line.
    positions = getattr(theirs, "co_positions", None)
    if positions is not None and list(ours.co_positions()) != list(positions()):  # type: ignore[attr-defined]
        return False
    if len(ours.co_consts) != len(theirs.co_consts):
        return False
    previous: object = None  # (the constant before: a nested function's code)
    for a, b in zip(ours.co_consts, theirs.co_consts, strict=True):
        if isinstance(a, types.CodeType) and isinstance(b, types.CodeType):
            if not _same_code(a, b):
                return False
        elif not (type(a) is type(b) and (a == b or (a != a and b != b))):
            # Before 3.11 a nested function's qualified name: as the file gives it, or
            # the name `scalar_rules.named` gave it with its code.
            code_before = previous if isinstance(previous, types.CodeType) else None
            renamed = isinstance(a, str) and code_before is not None and b == code_before.co_name
            if not (_same_qualname(a, b) or renamed):
                return False
        previous = b
    return True


def _same_qualname(ours: object, theirs: object) -> bool:
    """Before Python 3.11, a nested function's qualified name is a constant of the code
    that makes it, and it names the scopes around the definition: `outer.<locals>.f` in
    the file, `f` where srcad compiled the definition alone."""
    if sys.version_info >= (3, 11) or not (isinstance(ours, str) and isinstance(theirs, str)):
        return False
    ours = ours.removeprefix("__srcad_outer__.<locals>.")  # `_compiled`'s own scope
    return "<locals>" in theirs and theirs.endswith("." + ours)


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
        if type(node) not in _COMPOUND:
            continue  # most statements hold none
        for holders in ("handlers", "cases"):
            for holder in getattr(node, holders, ()):
                todo.extend(holder.body[::-1])
        for block in ("finalbody", "orelse", "body"):
            todo.extend(getattr(node, block, ())[::-1])


# Per file name: the file as last parsed (again if its lines change).
_parsed: dict[str, _File] = {}


def forget_sources() -> None:
    """Parse every file again when next read (`srcad.clear_cache`)."""
    _parsed.clear()


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
    function = gast.FunctionDef(name="lambda", args=node.args, body=body, decorator_list=[],
                                returns=None, type_comment=None, type_params=[])  # fmt: skip
    return syntax.located(function, node)


# Wrappers whose call is the call of their `__wrapped__` function with the same arguments,
# giving the same value (see `differentiated_function`); `srcad.api` adds `Differentiable`.
TRANSPARENT_WRAPPERS: set[type] = {functools._lru_cache_wrapper, type(np.sum)}


def differentiated_function(callee: Any) -> Any:
    """What srcad differentiates for `callee`: `callee` itself, or the function behind a
    wrapper known to be transparent, whose call is the call of its `__wrapped__` function
    with the same arguments, giving the same value (`TRANSPARENT_WRAPPERS`): srcad's own
    `Differentiable`; a `functools.lru_cache` or `functools.cache` (which returns what the
    function returned for equal arguments: the gradient calls the function itself, and
    neither reads nor fills the cache; one whose function reads what may change between
    calls, so whose cache may keep results of before, is refused where it is called:
    `cached_functions.stale_cache`); a NumPy function's dispatcher (which calls its
    implementation for arrays and floats, the arguments srcad's rules pass).

    Any other wrapper, above all a `functools.wraps` decorator, is a function (or callable
    object) of its own, differentiated through its own source: what it does to the value
    (`return 10 * fn(*args)`) is part of the derivative.

    A class whose instances its own Python `__init__` builds is differentiated through
    that `__init__`, as the function that returns the instance
    (`constructors.initialiser`)."""
    while isinstance(callee, tuple(TRANSPARENT_WRAPPERS)):
        wrapped = getattr(callee, "__wrapped__", None)
        if wrapped is None:
            break
        callee = wrapped
    if isinstance(callee, type):  # a class built by its own `__init__`: its initialiser
        return initialiser(callee) or callee
    return callee


def _transformed(func: types.FunctionType) -> bool:
    """Whether `func`'s module was imported through a loader other than Python's own, which
    may have changed its tree before compiling it (pytest's assertion rewriting)."""
    module = sys.modules.get(func.__module__)
    loader = getattr(getattr(module, "__spec__", None), "loader", None)
    return loader is not None and type(loader).__module__ not in _PYTHON_LOADERS


def _autoreloaded(func: types.FunctionType) -> bool:
    """Whether IPython's `%autoreload` watches `func`'s module in the IPython running
    here, with its "deduperreload" (IPython 9), which compiles a changed function from its
    definition alone (`_reloaded`): only then is a definition looked for away from the
    line `func`'s code names (a definition moved in a file edited since is not)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    magics = getattr(getattr(shell, "magics_manager", None), "registry", {}).get("AutoreloadMagics")
    deduper = getattr(getattr(magics, "_reloader", None), "deduper_reloader", None)
    watched = getattr(deduper, "source_by_modname", {})
    return bool(getattr(deduper, "enabled", False) and watched.get(func.__module__))


_PYTHON_LOADERS = frozenset({"_frozen_importlib_external", "_frozen_importlib", "zipimport"})


def function_source(func: Callable[..., Any]) -> FunctionSource:
    """Locate `func`'s definition in its file's syntax tree, with its globals and closure.

    The file is read again where it changed on disk since it was last read (`linecache`),
    and the definition found is the one `func`'s code was compiled from: a definition
    that compiles to other code (the file was edited, and its module not reloaded) is
    refused, never differentiated in its place."""
    func = differentiated_function(func)
    if not isinstance(func, types.FunctionType):
        raise _unavailable(func, f"it is a {type(func).__name__}, not a Python function")
    code = func.__code__
    filename = code.co_filename
    linecache.checkcache(filename)  # a stat: compiling is rare, and this is once per compile
    lines = linecache.getlines(filename, func.__globals__)
    if not lines:
        raise _unavailable(func, f"its source file {filename!r} cannot be read")
    try:
        file = _file(filename, lines)
    except SyntaxError as error:
        raise _unavailable(func, f"its file {filename!r} does not parse ({error})") from None
    matches = file.definitions_of(code, _transformed(func), _autoreloaded(func))
    if not matches:
        where = f"{filename}:{code.co_firstlineno}"
        problem = (
            f"the definition at {where} is not the text it was compiled from"
            if file.candidates(code)
            else f"no definition of it at {where}"
        )
        raise SourceUnavailableError(
            f"cannot differentiate {func.__qualname__}: {problem}: the file changed since its "
            "module was imported; reload the module (importlib.reload) or define the "
            "function again"
        )
    if len(matches) > 1 and len({ast.dump(node) for node in matches}) > 1:
        # Only where a loader changed the code (its comparison is loose) and no column
        # tells the definitions apart (before Python 3.11).
        raise _unavailable(
            func,
            f"{filename}:{code.co_firstlineno} defines {len(matches)} functions its code may "
            "be compiled from; put them on lines of their own",
        )
    closure = dict(zip(code.co_freevars, func.__closure__ or (), strict=True))
    return FunctionSource(func, matches[0], filename, lines, func.__globals__, closure, file=file)

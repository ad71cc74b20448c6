"""`srcad export`: a function's gradient as a standalone module, needing NumPy and the
user's own modules but not srcad.

The module holds the emitted rules as `srcad show` prints them (the function's rrule and
the rules of the functions it calls through generated code), `grad_<name>`, and a copy of
what those texts reach by name (`CompiledRule.runtime`: rule functions, tangent types,
projections): every such object is imported from where it lives outside srcad (NumPy,
`operator`), or copied from srcad's own source (a function through
`source.function_source`, which proves the text is the function's; a class through
`inspect`), or rebuilt the way `pickle` would rebuild it (`__reduce_ex__`). What cannot be
written that way (a lock, the compiler a higher-order rule calls back into, one name
needed for two objects) is refused with `ExportError`, naming the chain of references
that reached it; a module that would fail later is never written.

The header records a fingerprint of every definition the rules were compiled from, so
that `srcad export --check` tells whether the export still matches its source.
The module reads the user's globals when it is called, and checks the facts its rules
were compiled on (`srcad.exported_checks`), as srcad's compiled code does.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import copyreg
import dis
import hashlib
import importlib
import inspect
import math
import os
import re
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from typing import Any

import gast
import numpy as np

from srcad import tracebacks
from srcad.compiler import CompiledCall, CompiledRule, Compiler
from srcad.errors import ExportError, SrcadError
from srcad.exported_checks import source_checks
from srcad.registry import Registry, RuleConfig
from srcad.requests import Request
from srcad.source import function_source
from srcad.tangents import materialize

__all__ = ["ExportError", "check_export", "export_module", "fingerprint"]

FINGERPRINT_MARK = "# srcad fingerprint:"
_LITERALS = (type(None), bool, int, str, bytes, type(Ellipsis))


def _is_srcad(module: str | None) -> bool:
    return module is not None and (module == "srcad" or module.startswith("srcad."))


# -- fingerprints ------------------------------------------------------------------------


def _definition(tree: ast.Module, qualname: str) -> ast.AST | None:
    """The top-level `def` (or method, `Class.method`) named `qualname` in `tree`."""
    body: list[ast.stmt] = tree.body
    found: ast.AST | None = None
    for part in qualname.split("."):
        found = next(
            (
                node
                for node in body
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.name == part
            ),
            None,
        )
        if found is None:
            return None
        body = found.body
    return found


def fingerprint(path: str, qualname: str) -> str | None:
    """SHA-256 of the text of `qualname`'s definition in the file at `path` (decorators
    included; the whole file for a function without a name of its own, a lambda), or None
    where the file or the definition is gone."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return None
    if not all(part.isidentifier() for part in qualname.split(".")):
        # A lambda, a nested function: the whole file stands for it.
        return hashlib.sha256(text.encode()).hexdigest()
    node = _definition(tree, qualname)
    if node is None:
        return None
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])  # type: ignore[attr-defined]
    lines = text.splitlines(True)[first - 1 : node.end_lineno]  # type: ignore[attr-defined]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def check_export(path: str) -> list[str]:
    """What has drifted since the module at `path` was exported: one line per definition
    whose text changed or disappeared (none: the export is current)."""
    with open(path, encoding="utf-8") as file:
        lines = [line for line in file if line.startswith(FINGERPRINT_MARK)]
    if not lines:
        raise ExportError(f"{path} has no srcad fingerprint: it was not written by srcad export")
    drifted = []
    for line in lines:
        source, qualname, digest = line[len(FINGERPRINT_MARK) :].strip().rsplit(" ", 2)
        where = os.path.join(os.path.dirname(os.path.abspath(path)), source)
        now = fingerprint(where, qualname)
        if now != digest:
            state = "is gone" if now is None else "has changed"
            drifted.append(f"{source}:{qualname} {state} since the export")
    return drifted


# -- the module ----------------------------------------------------------------------------


def export_module(
    func: types.FunctionType,
    module_names: dict[str, str],
    out_dir: str,
    wrt: tuple[str, ...] | None = None,
    grad_wrt: tuple[str, ...] | None = None,
) -> str:
    """The text of the standalone module for `func`'s gradient. `module_names` maps a
    module's `__name__` to the name the exported module imports it by (a file the command
    line loaded); `out_dir`: where the module is written (its fingerprints name the source
    files relative to it); `wrt`: what `rrule_<name>` differentiates (None: every
    parameter); `grad_wrt`: what `grad_<name>` returns (None: the first parameter)."""
    from srcad.defaults import COMPILER

    rules = _rules(COMPILER, func, wrt)
    copy = _Runtime(module_names)
    for rule, source in rules:
        copy.rule_names(rule, source)
    parameters = func.__code__.co_varnames[: func.__code__.co_argcount]
    grad_wrt = grad_wrt or parameters[:1]
    positions = [parameters.index(name) for name in grad_wrt if name in parameters]
    if len(positions) != len(grad_wrt) or (wrt is not None and not set(grad_wrt) <= set(wrt)):
        raise ExportError(
            f"cannot export grad_{func.__name__} with respect to {', '.join(grad_wrt)}: name "
            f"positional parameters of {func.__name__} (among those of --wrt)"
        )
    copy.claim(f"grad_{func.__name__}", export_module, "grad")
    copy.bind_late("materialize", materialize, "grad")
    checks = source_checks(copy, rules)
    numpy = copy.expression(np, "numpy", "grad")
    copy.resolve()
    prints = [
        f"{FINGERPRINT_MARK} {os.path.relpath(s.__code__.co_filename, out_dir)} "
        f"{s.__qualname__} {fingerprint(s.__code__.co_filename, s.__qualname__)}"
        for _, s in rules
    ]
    header = [
        f'"""The gradient of {func.__qualname__}, exported by srcad: needs NumPy and the',
        "modules it imports from (on sys.path), not srcad. Check it still matches its source",
        "with `srcad export --check` (exit status 1 where the source has drifted).",
        '"""',
        *prints,
        "",
        "from __future__ import annotations",
        "",
        *copy.imports(),
    ]
    texts = [rule.source.rstrip("\n") for rule, _ in rules]
    name = func.__name__
    entry = rules[0][0].function.__name__
    if checks:  # the entry reads the user's globals and checks the facts first
        copy.claim(f"_unchecked_{entry}", copy, "checks")
        texts.append(
            f"_unchecked_{entry} = {entry}\n\n\ndef {entry}(*args, **kwargs):\n"
            f"    _sources_read()\n    return _unchecked_{entry}(*args, **kwargs)"
        )
    gradients = ", ".join(f"materialize(cotangents[{p + 1}], args[{p}])" for p in positions)
    grad = [
        f"def grad_{name}(*args):",
        f'    """The gradient of {name} wrt {", ".join(grad_wrt)}, as srcad.grad gives it."""',
        f"    y, pullback = {rules[0][0].function.__name__}(*args)",
        f"    real = isinstance(y, float | {numpy}.floating | {numpy}.integer) or type(y) is int",
        f"    if not real and not (isinstance(y, {numpy}.ndarray) and y.dtype.kind in 'fiu'",
        "                         and y.ndim == 0):",
        f"        raise TypeError(f'grad_{name} needs {name} to return a real scalar, "
        "not {y!r:.60}')",
        "    cotangents = pullback(1.0)",
        f"    return {gradients}" if len(positions) == 1 else f"    return ({gradients})",
    ]
    support = ["# What the rules above reach by name, copied from srcad.", *copy.definitions]
    blocks = ["\n".join(header), *texts, "\n".join(grad), "\n".join(support)]
    if checks:
        blocks.append("\n".join(["# What the rules read from the user's modules.", *checks]))
    return "\n\n\n".join(blocks) + "\n"


def _rules(
    compiler: Any, func: types.FunctionType, wrt: tuple[str, ...] | None
) -> list[tuple[CompiledRule, types.FunctionType]]:
    """`func`'s generic rrule (sound for arguments of every kind, as no guard in the
    exported module could tell the kinds apart) and those of its generated callees."""
    found: list[tuple[CompiledRule, types.FunctionType]] = compiler.rules_called(
        func, wrt, Request.rrule()
    )
    for rule, source in found:
        free = set(rule.function.__code__.co_freevars) - set(rule.runtime)
        if free:
            raise ExportError(
                f"cannot export {source.__qualname__}: it reads variables of an enclosing "
                f"function ({', '.join(sorted(free))}); export a module-level function"
            )
    return found


class _SrcadImports(ast.NodeTransformer):
    """Takes out the imports of srcad's modules inside a copied function (`from
    srcad.errors import SrcadError` where it is needed), keeping what they bind: the names
    become the exported module's globals, bound to the same objects."""

    def __init__(self) -> None:
        self.bound: dict[str, Any] = {}

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.stmt:
        if node.level or not _is_srcad(node.module):
            return node
        module = importlib.import_module(node.module or "")
        for alias in node.names:
            self.bound[alias.asname or alias.name] = getattr(module, alias.name)
        return ast.Pass()


def _without_srcad_imports(text: str) -> tuple[str, dict[str, Any]]:
    """`text` without imports of srcad's modules, and what they bound."""
    imports = _SrcadImports()
    tree = imports.visit(ast.parse(text))
    return (ast.unparse(tree) if imports.bound else text), imports.bound


def _compile(text: str, filename: str) -> types.CodeType:
    """Compiled as in the exported module, whose annotations are never evaluated."""
    flags = __future__.annotations.compiler_flag
    return compile(text, filename, "exec", flags=flags, dont_inherit=True)


_GLOBAL_READS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"})


def _global_names(code: types.CodeType, early: bool = True) -> Iterator[tuple[str, bool]]:
    """The global names `code` and the code nested in it read, each with whether it is
    read when `code` runs (True) or only later, when a function it defines is called."""
    for instruction in dis.get_instructions(code):
        if instruction.opname in _GLOBAL_READS:
            yield instruction.argval, early
        elif instruction.opname == "IMPORT_NAME" and _is_srcad(instruction.argval):
            yield f"import {instruction.argval}", early
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            # A class body runs where it is defined; a function body when called.
            nested_early = early and not (constant.co_flags & inspect.CO_NEWLOCALS)
            yield from _global_names(constant, nested_early)


def _where_used(rule: CompiledRule, source: types.FunctionType, name: str) -> str:
    """Where in the user's source the emitted `rule` first uses `name`: `file:line
    (function)`, for an error's chain of references."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    for number, line in enumerate(rule.source.splitlines(), 1):
        if word.search(line) and not line.lstrip().startswith("#"):
            found = tracebacks.origin(rule.filename, number)
            if found is not None:
                return f"{found[0]}:{found[1]} ({source.__qualname__})"
    return f"{source.__qualname__}'s rule"


def _refuse_machinery(value: Any, chain: str) -> None:
    """srcad's rule registry and compiler cannot be copied: a rule that looks rules up at
    run time (a method call, a higher-order function such as `map`) cannot be exported."""
    if isinstance(value, Registry | RuleConfig | Compiler):
        raise ExportError(
            f"cannot export {chain}: this rule looks up srcad's rules when it runs, which a "
            "module without srcad cannot do (a method call such as `x.sum()`: call the "
            "function, `np.sum(x)`; a higher-order function such as `map`: write the loop)"
        )


class _Runtime:
    """The copy of srcad's runtime objects an exported module defines: one top-level name
    per name the rules (and what they copy) read, checked to mean one object."""

    def __init__(self, module_names: dict[str, str]) -> None:
        self.module_names = module_names
        self.definitions: list[str] = []
        self.names: dict[str, Any] = {}  # top-level name: the object it must hold
        self.expressions: dict[int, str] = {}  # by id (the object is kept in `keep`)
        self.keep: list[Any] = []
        self.modules: set[str] = set()
        self.live: dict[str, str] = {}  # a user's global the rules read: its module's name
        self.late: list[tuple[str, Any, str]] = []
        self.building: set[int] = set()
        self.count = 0

    # -- names -----------------------------------------------------------------------------

    def claim(self, name: str, value: Any, chain: str) -> bool:
        """Reserve the top-level `name` for `value`; False where it already holds it."""
        if name in self.names:
            if self.names[name] is not value:
                raise ExportError(
                    f"cannot export: the name {name!r} is needed for two objects "
                    f"({self.names[name]!r:.60} and {value!r:.60}, reached by {chain})"
                )
            return False
        self.names[name] = value
        return True

    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"_{hint.strip('_<>') or 'value'}_{self.count}"

    def rule_names(self, rule: CompiledRule, source: types.FunctionType) -> None:
        """Bind every name `rule`'s text reads: its runtime objects, the user's globals."""
        code = compile(rule.source, rule.filename, "exec")
        self.claim(rule.function.__name__, rule, source.__qualname__)
        module = self.module_names.get(source.__module__, source.__module__)
        for name, _ in _global_names(code):
            chain = _where_used(rule, source, name)
            if name in rule.runtime:
                self.bind_late(name, rule.runtime[name], chain)
            elif isinstance(source.__globals__.get(name), types.ModuleType):
                self.bind_late(name, source.__globals__[name], chain)  # `np = numpy`
            elif name in source.__globals__ or not hasattr(builtins, name):
                # (read when the module runs: a name `srcad export` did not run is one too)
                if module in ("__main__", "") or module.startswith("srcad_cli_"):
                    raise ExportError(f"cannot export {chain}: {module!r} is not importable")
                self.claim(name, source.__globals__.get(name, module), chain)
                top = module.split(".")[0]
                self.claim(top, sys.modules.get(top, module), chain)
                self.modules.add(module)
                self.live[name] = module
            elif hasattr(builtins, name):
                self.claim(name, getattr(builtins, name), chain)

    def bind_late(self, name: str, value: Any, chain: str) -> None:
        """Make the top-level `name` hold `value` by the time the module is imported."""
        self.late.append((name, value, chain))

    def resolve(self) -> None:
        while self.late:
            name, value, chain = self.late.pop(0)
            if isinstance(value, CompiledCall) or self._exported(value):
                target = self._compiled_call(value, chain)
                if target != name:
                    self.claim(name, value, chain)
                    self.definitions.append(f"{name} = {target}")
                continue
            expression = self.expression(value, name, chain)
            if expression == name:
                continue
            if self.claim(name, value, chain):
                self.definitions.append(f"{name} = {expression}")

    def imports(self) -> list[str]:
        return [f"import {module}" for module in sorted(self.modules)]

    def _exported(self, value: Any) -> bool:
        """Whether `value` is the function of a rule exported (a callee's rule, which the
        caller's code calls directly: `RuleCalls._bind_rule`)."""
        return any(
            isinstance(held, CompiledRule) and held.function is value
            for held in self.names.values()
        )

    def _compiled_call(self, value: Any, chain: str) -> str:
        """The name of the emitted rule a `CompiledCall` runs, or a callee's rule called
        directly: one of the rules exported."""
        for name, held in self.names.items():
            if not isinstance(held, CompiledRule):
                continue
            if held.function is value or (
                isinstance(value, CompiledCall) and held.function.__name__ == value.__name__
            ):
                return name
        raise ExportError(f"cannot export {chain}: it calls {value.__name__}, not exported")

    # -- values ----------------------------------------------------------------------------

    def expression(self, value: Any, hint: str, chain: str) -> str:
        """An expression of the exported module giving `value` (defined first if needed)."""
        if isinstance(value, _LITERALS):
            return repr(value)
        if isinstance(value, float | complex):
            if math.isfinite(abs(value)):
                return repr(value)
            return f"{type(value).__name__}({str(value)!r})"  # float('nan'), complex('inf')
        if type(value) is tuple:
            items = [self.expression(v, hint, chain) for v in value]
            return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
        found = self.expressions.get(id(value))
        if found is not None:
            return found
        if id(value) in self.building:
            raise ExportError(f"cannot export {chain}: it refers to itself while being built")
        self.building.add(id(value))
        try:
            found = self._define(value, hint, f"{chain} → {hint}")
        finally:
            self.building.discard(id(value))
        self.expressions[id(value)] = found
        self.keep.append(value)
        return found

    def _define(self, value: Any, hint: str, chain: str) -> str:
        _refuse_machinery(value, chain)
        if isinstance(value, types.ModuleType):
            if _is_srcad(value.__name__):
                raise ExportError(f"cannot export {chain}: it uses srcad's {value.__name__}")
            top = value.__name__.split(".")[0]
            self.modules.add(value.__name__)
            self.claim(top, sys.modules[top], chain)
            return value.__name__
        imported = self._importable(value)
        if imported is not None:
            return imported
        if type(value) in (list, dict, set):
            return self._container(value, hint, chain)
        if isinstance(value, types.FunctionType) and _is_srcad(value.__module__):
            return self._function(value, chain)
        if isinstance(value, type) and _is_srcad(value.__module__):
            return self._class(value, chain)
        if isinstance(value, CompiledCall | CompiledRule):
            raise ExportError(f"cannot export {chain}: generated code reached indirectly")
        if isinstance(value, type | types.FunctionType | types.BuiltinFunctionType):
            raise ExportError(
                f"cannot export {chain}: {getattr(value, '__qualname__', value)!r} is "
                "defined where the exported module cannot import it"
            )
        return self._rebuilt(value, hint, chain)

    def _importable(self, value: Any) -> str | None:
        """`module.name` for an object outside srcad that its module's attribute names."""
        module = getattr(value, "__module__", None)
        qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or _is_srcad(module):
            return None
        name = self.module_names.get(module, module)  # a script the command line loaded
        if name.startswith("srcad_cli_") or name == "__main__":
            return None
        try:
            found: Any = sys.modules.get(module) or importlib.import_module(module)
            for part in qualname.split("."):
                found = getattr(found, part)
        except (ImportError, AttributeError):
            return None
        if found is not value:
            return None
        self.modules.add(name)
        self.claim(name.split(".")[0], sys.modules.get(name.split(".")[0], name), qualname)
        return f"{name}.{qualname}"

    def _container(self, value: Any, hint: str, chain: str) -> str:
        name = self.fresh(hint)
        self.claim(name, value, chain)
        if isinstance(value, dict):
            items = [
                f"{self.expression(k, hint, chain)}: {self.expression(v, hint, chain)}"
                for k, v in value.items()
            ]
            text = "{" + ", ".join(items) + "}"
        else:
            items = [self.expression(v, hint, chain) for v in value]
            text = f"{type(value).__name__}([{', '.join(items)}])"
        self.definitions.append(f"{name} = {text}")
        return name

    def _globals_of(self, code: types.CodeType, namespace: dict[str, Any], chain: str,
                    skip: set[str]) -> None:  # fmt: skip
        """Bind the globals `code` reads: what it reads as it runs first, the rest late."""
        for name, early in _global_names(code):
            if name.startswith("import "):
                raise ExportError(f"cannot export {chain}: it imports {name[7:]} when called")
            if name in skip or (name.startswith("__") and name.endswith("__")):
                continue  # a class body's `__module__ = __name__`: the exported module's
            if name in namespace:
                _refuse_machinery(namespace[name], f"{chain} → {name}")
                if early:
                    expression = self.expression(namespace[name], name, chain)
                    if expression != name and self.claim(name, namespace[name], chain):
                        self.definitions.append(f"{name} = {expression}")
                else:
                    self.bind_late(name, namespace[name], chain)
            elif hasattr(builtins, name):
                self.claim(name, getattr(builtins, name), chain)

    def _function(self, func: types.FunctionType, chain: str) -> str:
        """A copy of one of srcad's functions, from the source `function_source` proves is
        its own; its closure cells become the arguments of a function that makes it."""
        try:
            node = function_source(func).tree()
        except SrcadError as error:
            raise ExportError(f"cannot export {chain}: {error.message}") from None
        code = func.__code__
        inner = code.co_name if code.co_name.isidentifier() else self.fresh("function")
        node.name, node.decorator_list, node.returns = inner, [], None
        args = node.args
        args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                arg.annotation = None
        text = ast.unparse(gast.gast_to_ast(gast.Module(body=[node], type_ignores=[])))
        text, imported = _without_srcad_imports(text)
        # A closure cell holding the function itself (a recursive nested function) is the
        # name its copy binds inside the function that makes it.
        free = [v for v in code.co_freevars if v != inner]
        cells = dict(zip(code.co_freevars, func.__closure__ or (), strict=True))
        name = inner if not free else self.fresh(inner)
        self.claim(name, func, chain)
        compiled = _compile(text, code.co_filename)
        namespace = {**func.__globals__, **imported}
        self._globals_of(compiled, namespace, chain, {*code.co_freevars, inner})
        if free:
            values = []
            for variable in free:
                try:
                    content = cells[variable].cell_contents
                except ValueError:
                    raise ExportError(f"cannot export {chain}: {variable} is unbound") from None
                values.append(self.expression(content, variable, chain))
            maker = self.fresh("make_" + inner)
            text = (
                f"def {maker}({', '.join(free)}):\n"
                + textwrap.indent(text, "    ")
                + f"\n    return {inner}\n"
                + f"{name} = {maker}({', '.join(values)})"
            )
        self.definitions.append(text)
        self._attributes(name, func, inner, chain)
        return name

    def _attributes(self, name: str, func: types.FunctionType, inner: str, chain: str) -> None:
        """The defaults, names and attributes srcad gave the function after defining it."""
        lines = []
        if func.__defaults__:
            lines.append(f"{name}.__defaults__ = {self.expression(func.__defaults__, name, chain)}")
        if func.__kwdefaults__:
            kw = self.expression(dict(func.__kwdefaults__), name, chain)
            lines.append(f"{name}.__kwdefaults__ = {kw}")
        if func.__name__ != inner:
            lines.append(f"{name}.__name__ = {func.__name__!r}")
        lines.append(f"{name}.__qualname__ = {func.__qualname__.split('.<locals>.')[-1]!r}")
        for attribute, value in vars(func).items():
            if not attribute.startswith("__srcad"):
                lines.append(f"{name}.{attribute} = {self.expression(value, attribute, chain)}")
        self.definitions += lines

    def _class(self, cls: type, chain: str) -> str:
        """A copy of one of srcad's classes, from its source (`inspect`)."""
        if "<locals>" in cls.__qualname__:
            raise ExportError(f"cannot export {chain}: {cls.__qualname__} is a local class")
        text, imported = _without_srcad_imports(textwrap.dedent(inspect.getsource(cls)))
        self.claim(cls.__name__, cls, chain)
        namespace = {**vars(sys.modules[cls.__module__]), **imported}
        self._globals_of(_compile(text, "<class>"), namespace, chain, {cls.__name__})
        self.definitions.append(text.rstrip("\n"))
        return cls.__name__

    def _rebuilt(self, value: Any, hint: str, chain: str) -> str:
        """An object rebuilt from what `pickle` would record of it (`__reduce_ex__`)."""
        try:
            reduced = value.__reduce_ex__(4)
        except Exception as error:
            raise ExportError(
                f"cannot export {chain}: a {type(value).__qualname__} has no standalone form "
                f"({error})"
            ) from None
        if isinstance(reduced, str):
            module = sys.modules[type(value).__module__]
            return self.expression(getattr(module, reduced), reduced, chain)
        make, args, state, items, pairs = (*reduced, None, None, None)[:5]
        if make is vars(copyreg)["__newobj__"]:  # `cls.__new__(cls, *args)`
            cls = self.expression(args[0], "type", chain)
            rest = [self.expression(a, hint, chain) for a in args[1:]]
            call = f"{cls}.__new__({', '.join([cls, *rest])})"
        else:
            arguments = [self.expression(a, hint, chain) for a in args]
            call = f"{self.expression(make, 'make', chain)}({', '.join(arguments)})"
        name = self.fresh(hint)
        self.claim(name, value, chain)
        lines = [f"{name} = {call}"]
        if state is not None:
            if hasattr(type(value), "__setstate__"):  # its own: NumPy's arrays and dtypes
                lines.append(f"{name}.__setstate__({self.expression(state, hint, chain)})")
            else:
                slots: dict[str, Any] = {}
                if isinstance(state, tuple):
                    state, slots = state[0] or {}, state[1] or {}
                for key, item in [*(state or {}).items(), *slots.items()]:
                    item_text = self.expression(item, key, chain)
                    lines.append(f"object.__setattr__({name}, {key!r}, {item_text})")
        for item in items or ():
            lines.append(f"{name}.append({self.expression(item, hint, chain)})")
        for key, item in pairs or ():
            key_text = self.expression(key, hint, chain)
            lines.append(f"{name}[{key_text}] = {self.expression(item, hint, chain)}")
        self.definitions += lines
        return name


def refuse_unexportable(func: Callable[..., Any]) -> types.FunctionType:
    """`func` as a module-level Python function, or a located refusal."""
    if not isinstance(func, types.FunctionType) or "<locals>" in func.__qualname__:
        raise ExportError(f"cannot export {getattr(func, '__qualname__', func)!r}: "
                          "only a module-level function can be exported")  # fmt: skip
    return func

"""The `srcad` command line: `show` prints the code srcad emits, `check` every diagnostic."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

from srcad.errors import Diagnostic, SrcadError
from srcad.kinds import parse_signature


class UsageError(Exception):
    """A problem with what the command line was asked to do: one line, exit status 2."""


def load_file(path: str) -> types.ModuleType:
    """Import the Python file at `path` as a module (its `__main__` block does not run)."""
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    name = "srcad_cli_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(path))
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise UsageError(f"importing {path} failed: {type(error).__name__}: {error}") from None
    return module


def _target(spec: str) -> tuple[str, str]:
    path, sep, function = spec.rpartition(":")
    if not sep or not path or not function:
        raise UsageError(f"expected FILE:FUNC, got {spec!r}")
    return path, function


def show(spec: str, mode: str, wrt: str | None, kinds: str | None = None) -> str:
    """The emitted source for `FILE:FUNC`; with `kinds` (`float, float[:], ?`), the reverse
    rule specialised for arguments of those kinds."""
    from srcad.api import Differentiable, resolve_wrt, source
    from srcad.defaults import COMPILER
    from srcad.requests import Request

    path, name = _target(spec)
    module = load_file(path)
    func = getattr(module, name, None)
    if func is None:
        raise UsageError(f"{path} defines no function {name!r}")
    if isinstance(func, Differentiable):
        func = func.func
    if not callable(func):
        raise UsageError(f"{path}:{name} is not a function but a {type(func).__name__} value")
    names: str | tuple[str, ...] | None = None
    if wrt:
        names = tuple(n.strip() for n in wrt.split(",") if n.strip())
    if kinds is None or mode == "forward":
        return source(func, mode=mode, wrt=names)
    try:
        signature = parse_signature(kinds)
    except ValueError as error:
        raise UsageError(str(error)) from None
    resolved = None if names is None else resolve_wrt(func, names)[0]
    return COMPILER.sources(func, resolved, Request.rrule(signature))


def _functions_of(module: types.ModuleType, path: str) -> list[Callable[..., Any]]:
    """The functions a file defines at module level (decorated ones included), in order."""
    from srcad.api import Differentiable

    found = []
    for value in vars(module).values():
        func = value.func if isinstance(value, Differentiable) else value
        code = getattr(func, "__code__", None)
        if (
            isinstance(func, types.FunctionType)
            and code is not None
            and os.path.samefile(code.co_filename, path)
        ):
            found.append(func)
    return sorted(found, key=lambda f: f.__code__.co_firstlineno)


def check(spec: str) -> list[Diagnostic]:
    """Every diagnostic of every function in `FILE` (or of `FILE:FUNC`), deduplicated and in
    source order. Functions with a registered rule are not inspected."""
    from srcad.defaults import COMPILER
    from srcad.requests import Request

    path, sep, name = spec.rpartition(":") if ":" in spec else (spec, "", "")
    module = load_file(path)
    if sep:
        func = getattr(module, name, None)
        if func is None:
            raise UsageError(f"{path} defines no function {name!r}")
        functions = [getattr(func, "func", func)]
    else:
        functions = _functions_of(module, path)
    found: dict[tuple[str, int, int, str, str], Diagnostic] = {}
    for func in functions:
        if COMPILER.registry.rrule_for(func) is not None:
            continue
        try:
            COMPILER.compiled(func, None, Request.rrule())
        except SrcadError as error:
            diagnostics = error.diagnostics or [Diagnostic(path, 0, 0, "E000", error.message)]
            for d in diagnostics:
                found.setdefault((d.file, d.line, d.column, d.code, d.message), d)
    return sorted(found.values(), key=lambda d: (d.file, d.line, d.column))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="srcad", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    show_parser = commands.add_parser("show", help="print the rule srcad emits for a function")
    show_parser.add_argument("target", metavar="FILE:FUNC")
    show_parser.add_argument("--mode", choices=["reverse", "forward"], default="reverse")
    show_parser.add_argument("--wrt", metavar="NAMES", help="comma-separated parameter names")
    show_parser.add_argument(
        "--args",
        metavar="KINDS",
        help="the kinds of the arguments to specialise for, e.g. 'float[:], float, ?'",
    )
    check_parser = commands.add_parser(
        "check", help="print every diagnostic of a file's functions; exit 1 if there are any"
    )
    check_parser.add_argument("target", metavar="FILE[:FUNC]")
    check_parser.add_argument("--format", choices=["text", "json"], default="text")
    commands.add_parser("rules", help="print the table of functions srcad has rules for")
    args = parser.parse_args(argv)
    if args.command == "rules":
        from srcad.docs import supported_markdown

        sys.stdout.write(supported_markdown())
        return 0
    if args.command == "check":
        return _run_check(args.target, args.format)
    try:
        sys.stdout.write(show(args.target, args.mode, args.wrt, args.args))
    except UsageError as error:
        print(f"srcad: error: {error}", file=sys.stderr)
        return 2
    except SrcadError as error:
        for line in [
            d.headline() + (f" (hint: {d.hint})" if d.hint else "") for d in error.diagnostics
        ] or [error.message]:
            print(line if error.diagnostics else f"srcad: error: {line}", file=sys.stderr)
        return 2
    return 0


def _run_check(target: str, output: str) -> int:
    try:
        diagnostics = check(target)
    except UsageError as error:
        print(f"srcad: error: {error}", file=sys.stderr)
        return 2
    if output == "json":
        print(json.dumps([d.to_dict() for d in diagnostics], indent=2))
    else:
        for diagnostic in diagnostics:
            print(diagnostic.format())
        count = len(diagnostics)
        print(
            f"{count} problem{'s' if count != 1 else ''}" if count else "no problems",
            file=sys.stderr,
        )
    return 1 if diagnostics else 0

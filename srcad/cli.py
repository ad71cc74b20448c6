"""The `srcad` command line: `show` prints the code srcad emits, `check` every diagnostic."""

from __future__ import annotations

import argparse
import difflib
import inspect
import json
import os
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

from srcad.errors import Diagnostic, SrcadError
from srcad.scripts import LoadError, Script, load_script
from srcad.signatures import parse_signature


class UsageError(Exception):
    """A problem with what the command line was asked to do: one line, exit status 2."""


def load_file(path: str) -> Script:
    """The Python file at `path` as a module, with only its definitions run
    (`srcad.scripts`)."""
    try:
        return load_script(path)
    except LoadError as error:
        raise UsageError(str(error)) from None


def function_in(script: Script, name: str) -> Any:
    """The function `name` of the script, or a usage error that says why it is missing:
    bound by a statement srcad did not run, or misspelt (with the names it may mean)."""
    from srcad.api import Differentiable

    func = getattr(script.module, name, None)
    if func is None:
        skipped = script.skipped_for(name)
        if skipped is not None:
            raise UsageError(
                f"{script.path}:{skipped.line} binds {name!r} in {skipped.what}, which srcad "
                "does not run (it runs only imports, definitions and simple assignments)"
            )
        known = [n for n, v in vars(script.module).items() if callable(v) and n[:1] != "_"]
        close = difflib.get_close_matches(name, known, n=3)
        maybe = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise UsageError(f"{script.path} defines no function {name!r}{maybe}")
    if isinstance(func, Differentiable):
        func = func.func
    if not callable(func):
        raise UsageError(
            f"{script.path}:{name} is not a function but a {type(func).__name__} value"
        )
    return func


def _target(spec: str) -> tuple[str, str]:
    path, sep, function = spec.rpartition(":")
    if not sep or not path or not function:
        raise UsageError(f"expected FILE:FUNC, got {spec!r}")
    return path, function


def show(spec: str, mode: str, wrt: str | None, kinds: str | None = None) -> str:
    """The emitted source for `FILE:FUNC`; with `kinds` (`float, float[:], ?`), the reverse
    rule specialised for arguments of those kinds."""
    from srcad.api import resolve_wrt, source
    from srcad.defaults import COMPILER
    from srcad.requests import Request

    path, name = _target(spec)
    script = load_file(path)
    func = function_in(script, name)
    for note in script.notes_for(func):
        print(note, file=sys.stderr)
    names: str | tuple[str, ...] | None = None
    if wrt:
        names = tuple(n.strip() for n in wrt.split(",") if n.strip())
    if kinds is None or mode == "forward":
        return source(func, mode=mode, wrt=names)
    try:
        signature = parse_signature(kinds)
    except ValueError as error:
        raise UsageError(str(error)) from None
    _check_kind_count(func, signature)
    resolved = None if names is None else resolve_wrt(func, names)[0]
    return COMPILER.sources(func, resolved, Request.rrule(signature))


def _check_kind_count(func: Any, signature: tuple[Any, ...]) -> None:
    """One kind per positional parameter (those with a default may be left out)."""
    code = getattr(func, "__code__", None)
    if code is None:
        return
    total = code.co_argcount
    required = total - len(func.__defaults__ or ())
    more = bool(code.co_flags & inspect.CO_VARARGS)  # `*args` takes any number more
    if required <= len(signature) and (len(signature) <= total or more):
        return
    expected = str(total) if required == total else f"{required} to {total}"
    raise UsageError(
        f"--args gives {len(signature)} kind{'s' if len(signature) != 1 else ''} but "
        f"{func.__name__} takes {expected} positional argument{'s' if total != 1 else ''}"
    )


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


def _python_files(directory: str) -> list[str]:
    """The `.py` files under `directory`, recursively, in order; hidden directories,
    virtual environments and caches left out."""
    found = []
    for root, folders, files in os.walk(directory):
        folders[:] = sorted(
            f
            for f in folders
            if not f.startswith(".") and f != "__pycache__"
            and not os.path.isfile(os.path.join(root, f, "pyvenv.cfg"))
        )  # fmt: skip
        found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
    return found


def _key(d: Diagnostic) -> tuple[str, int, int, str, str]:
    return (d.file, d.line, d.column, d.code, d.message)


def check(spec: str) -> list[Diagnostic]:
    """Every diagnostic of every function in `FILE` (or of `FILE:FUNC`, or of every file
    under `DIR`), deduplicated and in source order. Functions with a registered rule are
    not inspected."""
    path, sep, name = spec.rpartition(":") if ":" in spec else (spec, "", "")
    if not sep and os.path.isdir(path):
        return sorted(
            {_key(d): d for p in _python_files(path) for d in check(p)}.values(),
            key=lambda d: (d.file, d.line, d.column),
        )
    script = load_file(path)
    functions = [function_in(script, name)] if sep else _functions_of(script.module, path)
    return _diagnostics(script, functions, path)


def _diagnostics(script: Script, functions: list[Any], path: str) -> list[Diagnostic]:
    from srcad.defaults import COMPILER
    from srcad.requests import Request

    found: dict[tuple[str, int, int, str, str], Diagnostic] = {}
    for func in functions:
        if COMPILER.registry.rrule_for(func) is not None:
            continue
        try:
            COMPILER.compiled(func, None, Request.rrule())
        except SrcadError as error:
            diagnostics = error.diagnostics or [Diagnostic(path, 0, 0, "E000", error.message)]
            for note in script.notes_for(func):
                print(note, file=sys.stderr)
            for d in diagnostics:
                found.setdefault(_key(d), d)
    return sorted(found.values(), key=lambda d: (d.file, d.line, d.column))


def export(spec: str, out: str | None, wrt: str | None) -> str:
    """The standalone module of `FILE:FUNC`'s gradient (`srcad.export`)."""
    from srcad.export import export_module

    path, name = _target(spec)
    script = load_file(path)
    func = function_in(script, name)
    for note in script.notes_for(func):
        print(note, file=sys.stderr)
    stem = os.path.splitext(os.path.basename(path))[0]
    if not stem.isidentifier():
        raise UsageError(f"{path}: the exported module imports it, so its name must be one "
                         "Python can import")  # fmt: skip
    names = None if not wrt else tuple(n.strip() for n in wrt.split(",") if n.strip())
    out_dir = os.path.dirname(os.path.abspath(out)) if out else os.getcwd()
    return export_module(func, {script.module.__name__: stem}, out_dir, names, names)


# -- colour ----------------------------------------------------------------------------

_GREY, _BOLD, _RED, _RESET = "\x1b[90m", "\x1b[1m", "\x1b[1;31m", "\x1b[0m"


def _colour_wanted(choice: str, stream: Any) -> bool:
    """`--color auto`: on a terminal, unless NO_COLOR is set (no-color.org) or the
    terminal is dumb."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def _painted_code(text: str) -> str:
    """Emitted code with its comments grey and its `def` lines bold."""
    lines = []
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            line = f"{_GREY}{line}{_RESET}"
        elif stripped.startswith("def "):
            line = f"{_BOLD}{line}{_RESET}"
        lines.append(line)
    return "\n".join(lines)


def _painted_diagnostic(text: str) -> str:
    """A diagnostic with its location bold and its `error[CODE]` red."""
    head, sep, rest = text.partition(": error[")
    if not sep:
        return text
    return f"{_BOLD}{head}{_RESET}: {_RED}error[{_RESET}{rest}".replace(
        "]:", f"{_RED}]{_RESET}:", 1
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("srcad")
    except PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="srcad", description=__doc__)
    parser.add_argument("--version", action="version", version=f"srcad {_version()}")
    parser.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour the output: on a terminal without NO_COLOR set (auto), always, never",
    )
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
    show_parser.add_argument("-o", "--output", metavar="OUT", help="write to OUT, not stdout")
    check_parser = commands.add_parser(
        "check",
        help="print every diagnostic of a file's functions (of every file under a "
        "directory); exit 1 if there are any",
    )
    check_parser.add_argument("target", metavar="FILE[:FUNC]|DIR")
    check_parser.add_argument("--format", choices=["text", "json"], default="text")
    export_parser = commands.add_parser(
        "export",
        help="write a function's gradient as a module that needs NumPy but not srcad; "
        "with --check, exit 1 if such a module's source has changed since",
    )
    export_parser.add_argument("target", metavar="FILE:FUNC|OUT.py")
    export_parser.add_argument("-o", "--output", metavar="OUT.py", help="write to OUT.py")
    export_parser.add_argument(
        "--wrt", metavar="NAMES", help="the parameters of the gradient (default: the first)"
    )
    export_parser.add_argument(
        "--check", action="store_true", help="tell whether OUT.py still matches its source"
    )
    commands.add_parser("rules", help="print the table of functions srcad has rules for")
    args = parser.parse_args(argv)
    colour = _colour_wanted(args.color, sys.stdout)
    if args.command == "rules":
        from srcad.docs import supported_markdown

        sys.stdout.write(supported_markdown())
        return 0
    if args.command == "check":
        return _run_check(args.target, args.format, colour)
    if args.command == "export" and args.check:
        return _run_export_check(args.target)
    try:
        if args.command == "export":
            text = export(args.target, args.output, args.wrt)
        else:
            text = show(args.target, args.mode, args.wrt, args.args)
    except UsageError as error:
        print(f"srcad: error: {error}", file=sys.stderr)
        return 2
    except SrcadError as error:
        for line in [
            d.headline() + (f" (hint: {d.hint})" if d.hint else "") for d in error.diagnostics
        ] or [error.message]:
            print(line if error.diagnostics else f"srcad: error: {line}", file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w", encoding="utf-8") as file:
            file.write(text)
    else:
        sys.stdout.write(_painted_code(text) if colour else text)
    return 0


def _run_export_check(path: str) -> int:
    from srcad.export import check_export

    try:
        drifted = check_export(path)
    except (OSError, SrcadError) as error:
        print(f"srcad: error: {error}", file=sys.stderr)
        return 2
    for line in drifted:
        print(f"{path}: {line}: export it again")
    return 1 if drifted else 0


def _run_check(target: str, output: str, colour: bool = False) -> int:
    try:
        diagnostics = check(target)
    except UsageError as error:
        print(f"srcad: error: {error}", file=sys.stderr)
        return 2
    if output == "json":
        print(json.dumps([d.to_dict() for d in diagnostics], indent=2))
    else:
        for diagnostic in diagnostics:
            text = diagnostic.format()
            print(_painted_diagnostic(text) if colour else text)
        count = len(diagnostics)
        print(
            f"{count} problem{'s' if count != 1 else ''}" if count else "no problems",
            file=sys.stderr,
        )
    return 1 if diagnostics else 0

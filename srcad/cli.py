"""The `srcad` command line: `srcad show FILE:FUNC` prints the code srcad emits."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import types
from collections.abc import Sequence

from srcad.errors import SrcadError


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


def show(spec: str, mode: str, wrt: str | None) -> str:
    """The emitted source for `FILE:FUNC`."""
    from srcad.api import Differentiable, source

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
    return source(func, mode=mode, wrt=names)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="srcad", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    show_parser = commands.add_parser("show", help="print the rule srcad emits for a function")
    show_parser.add_argument("target", metavar="FILE:FUNC")
    show_parser.add_argument("--mode", choices=["reverse"], default="reverse")
    show_parser.add_argument("--wrt", metavar="NAMES", help="comma-separated parameter names")
    args = parser.parse_args(argv)
    try:
        sys.stdout.write(show(args.target, args.mode, args.wrt))
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

"""Time each statement of the code srcad emits for a benchmark case, one by one.

A whole-function profile (`cProfile`) charges NumPy's arithmetic on arrays to the emitted
function itself, since operators are no Python calls; this tool runs the emitted function
once, then re-runs each of its top-level statements on its own, many times, in a namespace
holding what the statements before it bound, and prints the time of each:

    python tools/line_profile.py "softmax cross-entropy"
    python tools/line_profile.py "jvp: Newton sqrt (while)" --number 20000

A compound statement (a loop, an `if`) is timed as one line, by one run (run again, it
could read what its first run changed). The sum of the lines is
usually below the time of a whole call (the arrays stay in the cache), but where the time
goes, the lines show.
"""

from __future__ import annotations

import argparse
import functools
import gc
import linecache
import sys
import textwrap
import time
import timeit
import types
from pathlib import Path
from typing import Any

import gast
import numpy as np

# Statements timed by one run: a loop's body may change what the loop reads.
COMPOUND = (gast.For, gast.While, gast.If)
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))


def emitted_functions(call: Any) -> list[Any]:
    """The functions srcad emits (or compiles again) while `call()` runs, oldest first."""
    before = {k for k in linecache.cache if k.startswith("<srcad ")}
    call()
    names = [k for k in linecache.cache if k.startswith("<srcad ") and k not in before]
    found = {}
    for o in gc.get_objects():
        code = getattr(o, "__code__", None) if callable(o) else None
        if isinstance(code, types.CodeType) and code.co_filename in names:
            found.setdefault(code.co_filename, o)
    return [found[n] for n in names if n in found]


def profile(function: Any, args: tuple[Any, ...], number: int) -> None:
    """Print the time of each top-level statement of `function` called with `args`."""
    filename = function.__code__.co_filename
    source = "".join(linecache.getlines(filename))
    tree = gast.parse(source)
    definition = next(n for n in tree.body if isinstance(n, gast.FunctionDef))
    namespace = dict(function.__globals__)
    if function.__closure__:
        cells = zip(function.__code__.co_freevars, function.__closure__, strict=True)
        namespace.update((name, cell.cell_contents) for name, cell in cells)
    parameters = function.__code__.co_varnames[: function.__code__.co_argcount]
    namespace.update(zip(parameters, args, strict=True))
    lines = source.splitlines()
    print(f"# {lines[0].removeprefix('# ')}: {filename}")
    total = 0.0
    for statement in definition.body:
        text = textwrap.dedent(
            "\n".join(lines[statement.lineno - 1 : statement.end_lineno])  # type: ignore[attr-defined]
        )
        if isinstance(statement, gast.Delete):
            continue
        if isinstance(statement, gast.Return):
            text = "_result = " + text.removeprefix("return ")
        code = compile(text, filename, "exec")
        start = time.perf_counter()
        exec(code, namespace)
        if isinstance(statement, COMPOUND):  # it may change what it reads: run it once
            per_call = (time.perf_counter() - start) * 1e6
        else:
            run = functools.partial(exec, code, namespace)
            seconds = min(timeit.repeat(run, number=number, repeat=3))
            per_call = seconds / number * 1e6
        total += per_call
        first = text.splitlines()[0]
        print(f"{per_call:9.2f} µs  {first[:100]}")
    print(f"{total:9.2f} µs  in all")


def main() -> None:
    from cases import CASES, GRAD, JVP

    import srcad

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", help="text in the case's name (the first match is taken)")
    parser.add_argument("--number", type=int, default=3000, help="calls per timing")
    options = parser.parse_args()
    case = next(c for c in CASES if options.case in c.name)
    args = case.make_args(np.random.default_rng(0))
    if case.mode == GRAD:
        derivative = srcad.grad(case.func, wrt=case.wrt)
        for function in emitted_functions(lambda: derivative(*args)):
            if function.__name__.startswith("grad_"):
                profile(function, args, options.number)
    elif case.mode == JVP:
        tangents = tuple(np.ones_like(np.asarray(args[i])) for i in case.wrt)
        full = tuple(
            tangents[case.wrt.index(i)] if i in case.wrt else None for i in range(len(args))
        )
        derivative = lambda: srcad.jvp(case.func, args, tuple(t for t in full if t is not None))  # noqa: E731
        for function in emitted_functions(derivative):
            if function.__name__.startswith("frule_"):  # frule_f((NO_TANGENT, *tangents), *args)
                dargs = (
                    srcad.NoTangent(),
                    *(srcad.ZeroTangent() if t is None else t for t in full),
                )
                profile(function, (dargs, *args), options.number)
    else:
        sys.exit(f"{case.name}: only gradient and jvp cases are profiled")


if __name__ == "__main__":
    main()

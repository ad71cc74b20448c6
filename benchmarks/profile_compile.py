"""Where compiling goes: cProfile of compiling `grad`'s gradient function for fresh copies
of a benchmark case (`cases.robust_fit_loss` unless named), as `run.py --fixed-costs`
times it, with the median compile time and `fib(20)` for scale.

    PYTHONSAFEPATH=1 python benchmarks/profile_compile.py [CASE] [--copies N] [--top N]
        [--sort tottime|cumulative] [--phases]

`--phases` prints instead the thread CPU time of each check, analysis and transform and of
emitting's steps, each without the phases it runs inside it (a callee's compilation is
counted in its own phases): the minimum over the copies, robust on a busy machine.

A fast path kept in the compiler names the profile that justifies it ("cProfile of
compiling robust_fit_loss: ..."): this is the tool that measures it.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import cProfile
import pstats
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases
from run import compile_seconds, python_reference_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", nargs="?", default="robust_fit_loss")
    parser.add_argument("--copies", type=int, default=11, help="fresh copies compiled")
    parser.add_argument("--top", type=int, default=30, help="functions listed")
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    parser.add_argument("--phases", action="store_true", help="thread time of each phase")
    options = parser.parse_args()
    rng = np.random.default_rng(0)
    func = getattr(cases, options.case)
    args = (
        rng.standard_normal(3),
        rng.standard_normal(50),
        rng.standard_normal(50),
        1.0,
        3.0,
    )
    if options.case != "robust_fit_loss":
        case = next(c for c in cases.CASES if c.func is func)
        args = case.make_args(rng)
    compile_seconds(func, args, copies=2)  # imports and caches made once, out of the profile
    if options.phases:
        print_phases(func, args, options.copies)
        return
    seconds = compile_seconds(func, args, options.copies)
    reference = python_reference_seconds()
    print(
        f"compiling {options.case}: {seconds * 1e3:.1f} ms (median of {options.copies}); "
        f"fib(20): {reference * 1e3:.2f} ms; ratio {seconds / reference:.1f}"
    )
    profile = cProfile.Profile()
    profile.runcall(compile_seconds, func, args, options.copies)
    stats = pstats.Stats(profile)
    stats.strip_dirs().sort_stats(options.sort).print_stats(options.top)


class PhaseTimer:
    """Thread CPU time per phase, each phase's own: time spent in a phase entered inside
    it (a required analysis, a callee's compilation) is counted to that inner phase."""

    def __init__(self) -> None:
        self.totals: collections.Counter[str] = collections.Counter()
        self._stack: list[list[float]] = []  # [start, time of inner phases]
        self._names: list[str] = []

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        if self._names and self._names[-1] == name:  # a phase calling itself: one phase
            yield
            return
        self._stack.append([time.thread_time(), 0.0])
        self._names.append(name)
        try:
            yield
        finally:
            self._names.pop()
            start, inner = self._stack.pop()
            spent = time.thread_time() - start
            self.totals[name] += spent - inner
            if self._stack:
                self._stack[-1][1] += spent

    def wrap(self, owner: Any, attribute: str, name: Callable[..., str]) -> None:
        """Time every call of `owner.attribute`, as the phase `name(*args)` names."""
        original = owner.__dict__[attribute]
        function = original.__func__ if isinstance(original, classmethod) else original

        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.phase(name(*args)):
                return function(*args, **kwargs)

        if isinstance(original, classmethod):
            setattr(owner, attribute, classmethod(timed))
        else:
            setattr(owner, attribute, timed)


MODULES = ("emit", "source", "syntax")  # whose functions `print_phases` times as phases


def print_phases(func: Callable[..., Any], args: tuple[Any, ...], copies: int) -> None:
    """The minimum over `copies` compilations of each phase's own thread time."""
    import importlib

    from srcad.passes import base

    emit, source, syntax = (
        importlib.import_module(f"srcad.{m}") for m in ("emit", "source", "syntax")
    )

    timer = PhaseTimer()
    timer.wrap(base.Context, "analysis", lambda ctx, cls, tree: cls.__name__)
    for transform in [base.Transform, *_subclasses(base.Transform)]:
        if "apply" in transform.__dict__:  # a transform that runs itself its own way
            timer.wrap(transform, "apply", lambda cls, tree, ctx: cls.__name__)
    for module, attribute in [
        (emit, "emit"),
        (emit, "register_text"),
        (emit, "_in_closure"),
        (syntax, "unparse"),
        (syntax, "parse_ast"),
        (syntax, "same_as_parsed"),
        (source, "function_source"),
    ]:
        _replace_everywhere(  # in every module that imported it by name, its own included
            getattr(module, attribute),
            _timed_builtin(timer, getattr(module, attribute), f"{module.__name__}.{attribute}"),
        )
    emit_module: Any = emit
    emit_module.compile = _timed_builtin(timer, compile, "compile (builtin)")
    samples: dict[str, list[float]] = collections.defaultdict(list)
    totals = []
    for _ in range(copies):
        timer.totals.clear()
        start = time.thread_time()
        compile_seconds(func, args, copies=1)
        totals.append(time.thread_time() - start)
        for name, spent in timer.totals.items():
            samples[name].append(spent)
    rows = sorted(((min(times), name) for name, times in samples.items()), reverse=True)
    print(f"thread time of one compilation: {min(totals) * 1e3:.2f} ms (min of {copies})")
    for spent, name in rows:
        print(f"  {spent * 1e3:7.3f} ms  {name}")
    print(f"  {sum(s for s, _ in rows) * 1e3:7.3f} ms  (sum of the minima)")


def _timed_builtin(timer: PhaseTimer, function: Callable[..., Any], name: str) -> Any:
    def timed(*args: Any, **kwargs: Any) -> Any:
        with timer.phase(name):
            return function(*args, **kwargs)

    return timed


def _replace_everywhere(function: Any, replacement: Any) -> None:
    """Replace `function` in every module of srcad that holds it by name."""
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] != "srcad" or module is None:
            continue
        for attribute, value in list(vars(module).items()):
            if value is function:
                setattr(module, attribute, replacement)


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


if __name__ == "__main__":
    main()

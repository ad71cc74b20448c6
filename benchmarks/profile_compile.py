"""Where compiling goes: cProfile of compiling `grad`'s gradient function for fresh copies
of a benchmark case (`cases.robust_fit_loss` unless named), as `run.py --fixed-costs`
times it, with the median compile time and `fib(20)` for scale.

    PYTHONSAFEPATH=1 python benchmarks/profile_compile.py [CASE] [--copies N] [--top N]
        [--sort tottime|cumulative]

A fast path kept in the compiler names the profile that justifies it ("cProfile of
compiling robust_fit_loss: ..."): this is the tool that measures it.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

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


if __name__ == "__main__":
    main()

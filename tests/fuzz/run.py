"""Fuzz srcad with random programs; print the count of each outcome and a short reproducer of
each distinct failure.

    python tests/fuzz/run.py --count 20000 --seed 0 --jobs 2

Fuzz seed `s` (from `--seed` to `--seed + --count - 1`) gives one program (the first of its
attempts whose primal is finite and moderate at its test point); the same seed gives the same
program, point and outcome on every run. `--only 17` checks one seed and prints its program.
Failures are grouped by signature (outcome, check, exception type and message); the shortest
program of each group is reduced (`fuzz_reduce`) unless `--no-reduce`. One group may hold more
than one bug (a wrong value is a wrong value): `--only` each of its seeds to tell them apart.
"""

from __future__ import annotations

import argparse
import collections
import functools
import multiprocessing
import pathlib
import signal
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import fuzz_oracle
import fuzz_programs
import fuzz_reduce

OUTCOMES = ("pass", "refused", "skipped", "invalid", "WRONG", "CRASH")


class CheckTimeoutError(Exception):
    """A program took longer than the limit to check."""


def _alarm(signum: int, frame: Any) -> None:
    raise CheckTimeoutError("the program took too long to check")


def fuzz_one(
    seed: int,
    limit: int = 60,
    writes: bool = False,
    second_order: bool = False,
    shadowing: bool = False,
    constructs: bool = False,
) -> tuple[int, fuzz_programs.Program, fuzz_oracle.Outcome]:
    """The program of fuzz seed `seed` and its outcome (`writes`, `shadowing`, `constructs`: see
    `fuzz_programs.generate`; `second_order`: its second derivatives are checked too)."""
    # The limit is on the process's CPU time, not the clock's: a program that loops forever
    # is caught all the same, and a busy machine (a run beside others, at a low priority)
    # does not make a slow check a crash.
    signal.signal(signal.SIGPROF, _alarm)
    program = None
    outcome = fuzz_oracle.Outcome("invalid")
    for attempt in fuzz_programs.attempts(seed):
        program = fuzz_programs.generate(attempt, writes, shadowing, constructs)
        signal.setitimer(signal.ITIMER_PROF, limit)
        try:
            outcome = fuzz_oracle.check_program(program, second_order)
        except CheckTimeoutError as e:
            outcome = fuzz_oracle.Outcome("CRASH", "timeout", str(e))
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        if outcome.kind != "invalid":
            break
    assert program is not None
    return seed, program, outcome


def reproducer(
    program: fuzz_programs.Program,
    outcome: fuzz_oracle.Outcome,
    budget: int,
    second_order: bool = False,
) -> str:
    """The program reduced while it fails with `outcome`'s signature at the same point."""

    def fails(source: str) -> bool:
        with tempfile.TemporaryDirectory(prefix="srcad-reduce-") as directory:
            try:
                found = fuzz_oracle.check_source(
                    source, program.parameters, program.seed, pathlib.Path(directory),
                    second_order,
                )  # fmt: skip
            except Exception:
                return False
        return found.signature == outcome.signature

    return fuzz_reduce.reduce(program.source, fails, budget)


def _with_progress(outcomes: Any, count: int, every: int = 500) -> list[Any]:
    """The outcomes, with a line on standard error every `every` programs (a long run's
    progress, and its counts so far, survive the run being stopped)."""
    results: list[Any] = []
    counts: collections.Counter[str] = collections.Counter()
    for result in outcomes:
        results.append(result)
        counts[result[2].kind] += 1
        if len(results) % every == 0:
            done = "  ".join(f"{kind}: {counts.get(kind, 0)}" for kind in OUTCOMES)
            print(f"{len(results)}/{count} programs: {done}", file=sys.stderr, flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200, help="how many programs")
    parser.add_argument("--seed", type=int, default=0, help="the first fuzz seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--only", type=int, help="check this one seed and print its program")
    parser.add_argument("--no-reduce", action="store_true", help="print failures unreduced")
    parser.add_argument("--budget", type=int, default=400, help="checks spent reducing each")
    parser.add_argument("--show", type=int, default=3, help="seeds listed per failure group")
    parser.add_argument(
        "--writes", action="store_true", help="programs also write items of arrays they made"
    )
    parser.add_argument("--second-order", action="store_true", help="check second derivatives too")
    parser.add_argument(
        "--shadowing",
        action="store_true",
        help="programs also have globals, and nested scopes whose variables hide names in scope",
    )
    parser.add_argument(
        "--constructs",
        action="store_true",
        help="programs also change lists, dicts and arrays they made in place, use :=, with, "
        "a global counter, closures passed to map and reduce, .flat, float-splitting functions, "
        "static methods and annotated assignments",
    )
    options = parser.parse_args(argv)
    variant = {
        "writes": options.writes,
        "second_order": options.second_order,
        "shadowing": options.shadowing,
        "constructs": options.constructs,
    }

    if options.only is not None:
        _, program, outcome = fuzz_one(options.only, **variant)
        print(program.source)
        print(f"# parameters {program.parameters}, generator seed {program.seed}")
        print(f"# {outcome.kind} {outcome.check} {outcome.detail}")
        for check, kind, detail in outcome.every:
            print(f"#   {check}: {kind} {detail}")
        if outcome.kind in ("WRONG", "CRASH") and not options.no_reduce:
            reduced = reproducer(program, outcome, options.budget, options.second_order)
            print("# reduced:")
            print(reduced)
            with tempfile.TemporaryDirectory(prefix="srcad-reduced-") as directory:
                again = fuzz_oracle.check_source(
                    reduced, program.parameters, program.seed, pathlib.Path(directory),
                    options.second_order,
                )  # fmt: skip
            for check, kind, detail in again.every:
                print(f"#   {check}: {kind} {detail}")
        return 0 if outcome.kind not in ("WRONG", "CRASH") else 1

    seeds = range(options.seed, options.seed + options.count)
    start = time.perf_counter()
    if options.jobs > 1:
        with multiprocessing.get_context("fork").Pool(options.jobs) as pool:
            one = functools.partial(fuzz_one, **variant)
            results = _with_progress(pool.imap_unordered(one, seeds, chunksize=8), len(seeds))
    else:
        results = [fuzz_one(s, **variant) for s in seeds]
    elapsed = time.perf_counter() - start

    counts = collections.Counter(outcome.kind for _, _, outcome in results)
    groups: dict[tuple[str, str, str], list[Any]] = collections.defaultdict(list)
    refusals = collections.Counter()
    for seed, program, outcome in sorted(results, key=lambda r: r[0]):
        if outcome.kind in ("WRONG", "CRASH"):
            groups[outcome.signature].append((seed, program, outcome))
        if outcome.kind == "refused":
            refusals[
                outcome.detail.split(":", 1)[0] + ": " + outcome.detail.split(": ", 1)[-1][:70]
            ] += 1
    print(f"{len(results)} programs (seeds {seeds.start}..{seeds.stop - 1}) in {elapsed:.1f} s")
    print("  " + "  ".join(f"{kind}: {counts.get(kind, 0)}" for kind in OUTCOMES))
    if refusals:
        print("most common refusals:")
        for text, n in refusals.most_common(8):
            print(f"  {n:5d}  {text}")
    for signature, members in sorted(groups.items(), key=lambda g: -len(g[1])):
        seed, program, outcome = min(members, key=lambda m: len(m[1].source))
        print()
        print(f"== {signature[0]} in {signature[1]} {signature[2]}: {len(members)} programs")
        print(f"   seeds: {', '.join(str(m[0]) for m in members[: options.show])}")
        print(f"   e.g. seed {seed}: {outcome.detail}")
        if options.no_reduce:
            print(program.source)
        else:
            print(reproducer(program, outcome, options.budget, options.second_order))
    return 1 if groups else 0


if __name__ == "__main__":
    sys.exit(main())

"""Time srcad's derivatives against the primal, hand-written derivatives and peer AD systems.

    python benchmarks/run.py            # full run; rewrites the table in benchmarks/README.md
    python benchmarks/run.py --quick    # short timings, prints the table, writes nothing
    python benchmarks/run.py --only jvp # the cases whose name has "jvp"; writes nothing

Every figure is a ratio of two times taken in the same run: a derivative's time over the
NumPy primal's time, and srcad's time over the hand-written derivative's. A peer that is not
installed, cannot be imported, fails on a case or gives a wrong derivative gets a cell saying
so. Next to the times, the peak memory of one call (`peak_bytes`); before the tables, each
group's geometric mean against issue 19's targets (`targets`).
"""

from __future__ import annotations

import os

# One thread per library, before any of them is imported.
for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_variable] = "1"
os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import argparse  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import importlib.metadata  # noqa: E402
import inspect  # noqa: E402
import linecache  # noqa: E402
import platform  # noqa: E402
import signal  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402
import tracemalloc  # noqa: E402
import types  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402
import checks  # noqa: E402

import srcad  # noqa: E402
import tools  # noqa: E402
from srcad.defaults import COMPILER  # noqa: E402
from srcad.kinds import signature  # noqa: E402
from srcad.requests import Request  # noqa: E402
from tools import Call  # noqa: E402

README = HERE / "README.md"
BEGIN = "<!-- BEGIN GENERATED RESULTS: python benchmarks/run.py -->"
END = "<!-- END GENERATED RESULTS -->"


# --------------------------------------------------------------------------------------
# Timing


@dataclass
class Timing:
    """How long one measurement runs: each sample lasts at least `target` seconds, up to
    `repeats` samples, and no more samples than fit in `cap` seconds (at least one). A
    derivative whose first call runs past `first_call_limit` is not timed."""

    target: float = 0.2
    repeats: int = 5
    cap: float = 2.0
    first_call_limit: float = 60.0  # seconds a derivative's first call may take

    def number(self, timer: timeit.Timer) -> tuple[int, float]:
        """How many calls make one sample last at least `target` seconds, and how long
        that many took."""
        number = 1
        while True:
            elapsed = timer.timeit(number)
            if elapsed >= self.target:
                return number, elapsed
            # Aim a little past the target; grow at most 100-fold at a time.
            estimate = number * 1.2 * self.target / max(elapsed, 1e-9)
            number = max(number + 1, min(int(estimate), 100 * number))

    def paired(self, tool: Call, primal: Call) -> tuple[float, float, float]:
        """Seconds per call of `tool` and of `primal`, each timed as the statement
        `f(*args)`, in turns (a sample of one, then of the other, up to `repeats` rounds):
        their medians, and the median of the rounds' ratios, which a change in the
        machine's load between rounds does not skew."""
        timers = [timeit.Timer("f(*args)", globals={"f": f, "args": a}) for f, a in (tool, primal)]
        numbers, elapsed = zip(*(self.number(timer) for timer in timers), strict=True)
        rounds = max(1, min(self.repeats, int(self.cap / sum(elapsed))))
        samples = [
            [timer.timeit(number) / number for timer, number in zip(timers, numbers, strict=True)]
            for _ in range(rounds)
        ]
        tool_time = statistics.median(t for t, _ in samples)
        primal_time = statistics.median(p for _, p in samples)
        return tool_time, primal_time, statistics.median(t / p for t, p in samples)


# --------------------------------------------------------------------------------------
# One case

# The tools whose peak memory the table shows: NumPy's allocations are what tracemalloc
# sees, and these allocate through NumPy and Python only (torch's and XLA's allocators
# are their own, invisible to it).
MEMORY_TOOLS = ("hand", "srcad")
# The tools that run a 10^6-step loop: a peer's tape or trace of 10^6 Python steps takes
# minutes to hours (its n=1000 row shows its cost per step), and a jax.jit trace of it
# compiles for longer than that.
BIG_LOOP_TOOLS = ("hand", "srcad")
# The tools a first call is never interrupted in: a jax trace stopped half way leaves jax
# slow for the cases after it (its jit calls ran 50 times slower).
UNINTERRUPTIBLE = ("jax", "jax.jit")
# Of those, the ones whose first call is tried first in a process of its own, stopped at
# the limit: XLA compiling the Lorenz system's forward Jacobian (200 steps) ran for over
# 40 minutes, in C, which no alarm interrupts, and the whole run never ended.
TRIED_APART = ("jax.jit",)


@dataclass
class Result:
    seconds: float | None = None  # steady-state time of one derivative
    primal: float | None = None  # the primal's time, measured right before `seconds`
    first_call: float | None = None  # seconds of the first call (jax.jit: tracing + compile)
    problem: str | None = None  # "n/a (...)", "fails: ...", "wrong gradient ...", "too slow"
    ratio: float | None = None  # the derivative's time over the primal's, timed in turns
    call: Call | None = None  # the derivative's function and its arguments, once checked
    peak: int | None = None  # bytes: the peak of NumPy and Python allocations in one call


@dataclass
class Row:
    case: cases.Case
    results: dict[str, Result] = field(default_factory=dict)
    versus_hand: float | None = None  # srcad's time over the hand-written one's, in turns
    primal_peak: int | None = None  # bytes, as `Result.peak`, of one call of the function
    versus_float64: float | None = None  # srcad's time over srcad's on the float64 twin

    @property
    def primal(self) -> float | None:
        """The median of the primal's times measured beside each derivative."""
        times = [r.primal for r in self.results.values() if r.primal]
        return statistics.median(times) if times else None


def same_gradient(got: list[Any], expected: list[Any]) -> str | None:
    """None when `got` matches `expected`, leaf by leaf (to 1e-7 of the derivative's scale;
    1e-4 where the expected values are float32), else why not."""
    if len(got) != len(expected):
        return f"{len(got)} leaves, expected {len(expected)}"
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        tolerance = 1e-4 if np.asarray(e).dtype == np.float32 else 1e-7
        g, e = np.asarray(g, dtype=float), np.asarray(e, dtype=float)
        if g.shape != e.shape:
            return f"value {index} has shape {g.shape}, expected {e.shape}"
        scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
        error = float(np.max(np.abs(g - e), initial=0.0)) / scale
        if not error <= tolerance:
            return f"value {index} is off by {error:.1e} (relative)"
    return None


class _TooSlowError(Exception):
    pass


def _time_limited(call: Call, seconds: float | None) -> Any:
    """The call's result, or `_TooSlowError` once it has run for `seconds` (an alarm, which
    interrupts Python code: a loop, a tape, a trace; not a long call into C)."""
    if seconds is None:
        return call[0](*call[1])

    def alarm(signum: int, frame: Any) -> None:
        raise _TooSlowError

    previous = signal.signal(signal.SIGALRM, alarm)
    # Again every 0.1 s after the first: an exception raised where Python ignores it (in a
    # garbage collector's callback) does not stop the call, the next one does.
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.1)
    try:
        return call[0](*call[1])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _first_call_ends(case: cases.Case, name: str, seed: int, seconds: float) -> bool:
    """Whether tool `name`'s first call on `case` ends within `seconds`, tried in a process
    of its own (`--first-call`), killed at the limit. One that fails ends too: the call
    in this process says how."""
    command = [sys.executable, __file__, "--first-call", case.name, name, str(seed)]
    try:
        subprocess.run(command, timeout=seconds, capture_output=True, check=False)
    except subprocess.TimeoutExpired:
        return False
    return True


def _first_call(case_name: str, name: str, seed: int) -> int:
    """`--first-call`: build tool `name`'s derivative for the case and call it once."""
    case = next(c for c in cases.CASES if c.name == case_name)
    rng = np.random.default_rng(seed)
    args = case.make_args(rng)
    call, _ = tools.TOOLS[name](case, args, checks.seeds(case, args, rng))
    call[0](*call[1])
    return 0


def peak_bytes(call: Call) -> int:
    """The peak of the memory one call allocates (and has not freed) at any moment, as
    tracemalloc sees it: Python objects and NumPy's array buffers, which is all the primal,
    the hand-written derivative and srcad allocate. tracemalloc, not the process's
    resident size (`resource`), because its peak can be reset for each call and counts
    nothing allocated before it (the arguments, the imported libraries)."""
    gc.collect()
    tracemalloc.start()
    try:
        call[0](*call[1])
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run_tool(
    name: str,
    case: cases.Case,
    args: tuple[Any, ...],
    seeded: tuple[Any, ...],
    expected: list[Any],
    timing: Timing,
    seed: int,
) -> Result:
    """Build, check and time one tool's derivative, in turns with the primal (so that a
    change in the machine's load does not skew the ratio)."""
    if case.big_loop and name not in BIG_LOOP_TOOLS:
        return Result(problem="not run (10⁶ Python steps: see the n=1000 row)")
    too_slow = Result(problem=f"too slow: first call over {timing.first_call_limit:.0f} s")
    if name in TRIED_APART and not _first_call_ends(case, name, seed, timing.first_call_limit):
        return too_slow
    try:
        (call, as_numpy) = tools.TOOLS[name](case, args, seeded)
        start = time.perf_counter()
        limit = None if name in UNINTERRUPTIBLE else timing.first_call_limit
        out = _time_limited(call, limit)
        first_call = time.perf_counter() - start
    except tools.NotAvailableError as reason:
        return Result(problem=f"n/a ({reason})")
    except _TooSlowError:
        return too_slow
    except Exception as error:
        return Result(problem=f"fails: {tools.short(error)}")
    try:
        mismatch = same_gradient(as_numpy(out), expected)
    except Exception as error:  # a result of a structure other than the hand-written one's
        mismatch = tools.short(error)
    if mismatch is not None:
        return Result(problem=f"wrong gradient: {mismatch}")
    seconds, primal, ratio = timing.paired(call, (case.func, args))
    peak = peak_bytes(call) if name in MEMORY_TOOLS else None
    return Result(seconds, primal, first_call, ratio=ratio, call=call, peak=peak)


def run_case(case: cases.Case, tool_names: list[str], timing: Timing, seed: int) -> Row:
    rng = np.random.default_rng(seed)
    args = case.make_args(rng)
    checks.check_hand_written(case, args, rng)
    seeded = checks.seeds(case, args, rng)
    row = Row(case, primal_peak=peak_bytes((case.func, args)))
    expected = tools.as_leaves(case, args, case.hand_grad(*args, *seeded))
    for name in tool_names:
        row.results[name] = run_tool(name, case, args, seeded, expected, timing, seed)
        result = row.results[name]
        shown = result.problem or f"{result.ratio:.3g}x"
        print(f"  {name:9} {shown}", flush=True)
    hand, ours = row.results.get("hand"), row.results.get("srcad")
    if hand and ours and hand.call and ours.call:  # srcad against hand-written, in turns too
        row.versus_hand = timing.paired(ours.call, hand.call)[2]
        print(f"  srcad over hand-written {row.versus_hand:.3g}x", flush=True)
    return row


def compare_float32(rows: list[Row], timing: Timing) -> None:
    """For each float32 case, srcad's time over its time on the float64 twin, in turns."""
    by_name = {row.case.name: row for row in rows}
    for row in rows:
        twin = by_name.get(row.case.float64_twin or "")
        ours, theirs = row.results.get("srcad"), twin and twin.results.get("srcad")
        if ours and theirs and ours.call and theirs.call:
            row.versus_float64 = timing.paired(ours.call, theirs.call)[2]


# --------------------------------------------------------------------------------------
# srcad's fixed costs


def call_overhead(func: Callable[..., Any], wrt: Any, args: tuple[Any, ...], timing: Timing):
    """Seconds per call of `f.grad(...)` and of the generated gradient function it calls
    (`grad_f`, specialised for the kinds of `args`) called directly, and the median of
    their differences: samples taken in turns, 9 of each."""
    differentiable = srcad.differentiate(func, wrt=wrt)
    kinds = signature(args)
    gradient = COMPILER.compiled(func, differentiable.wrt, Request.grad(kinds, value=False))

    def direct() -> Any:
        return gradient.function(*args)

    through_api = timeit.Timer(lambda: differentiable.grad(*args))
    by_hand = timeit.Timer(direct)
    number, _ = timing.number(by_hand)
    pairs = [(through_api.timeit(number), by_hand.timeit(number)) for _ in range(9)]
    return (
        statistics.median(a for a, _ in pairs) / number,
        statistics.median(b for _, b in pairs) / number,
        statistics.median(a - b for a, b in pairs) / number,
    )


def compile_seconds(func: Callable[..., Any], args: tuple[Any, ...], copies: int = 11) -> float:
    """Median seconds to compile the gradient function `grad` calls (`grad_f`) for a fresh
    copy of `func` and arguments like `args`, the copy made by executing its source again
    under a new file name (so the file parse is timed too)."""
    source = textwrap.dedent(inspect.getsource(func))
    samples = []
    for copy in range(copies):
        filename = f"<benchmark copy {copy} of {func.__name__}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = {"np": np}
        exec(compile(source, filename, "exec"), namespace)
        fresh = namespace[func.__name__]
        wrt = srcad.differentiate(fresh).wrt
        start = time.perf_counter()
        COMPILER.compiled(fresh, wrt, Request.grad(signature(args), value=False))
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _fib(n: int) -> int:
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


def python_reference_seconds(repeats: int = 21) -> float:
    """Median seconds of `fib(20)` by plain recursion: how fast this machine runs Python."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        _fib(20)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def case_compile_seconds(case: cases.Case) -> float:
    """Seconds to compile the case's gradient function (`grad_f`, for `grad`) for a fresh
    function object with the same code (the file's parse is cached: this is the
    transformation and the emission)."""
    func = case.func
    fresh = types.FunctionType(func.__code__, func.__globals__, func.__name__)
    wrt = srcad.differentiate(fresh, wrt=case.wrt).wrt
    kinds = signature(case.make_args(np.random.default_rng(0)))
    start = time.perf_counter()
    COMPILER.compiled(fresh, wrt, Request.grad(kinds, value=False))
    return time.perf_counter() - start


def fixed_costs(timing: Timing, selected: list[cases.Case]) -> list[str]:
    lines = ["### srcad's fixed costs", ""]
    rng = np.random.default_rng(0)
    for label, func, wrt, args in [
        ("`polynomial(1.3)`", cases.polynomial, 0, (1.3,)),
        ("`sum3(rand(30))`", cases.sum3, 0, (rng.random(30),)),
    ]:
        through_api, direct, difference = call_overhead(func, wrt, args, timing)
        lines.append(
            f"- Calling `f.grad(...)` on a `@srcad.differentiate` function, {label}: "
            f"{through_api * 1e6:.2f} µs; the generated gradient function (`grad_"
            f"{func.__name__}`) called directly: {direct * 1e6:.2f} µs; the difference, "
            f"`grad`'s own cost: **{difference * 1e6:.2f} µs** per call (median of 9 paired "
            "samples)."
        )
    length = len(inspect.getsource(cases.robust_fit_loss).splitlines())
    robust_args = (
        rng.standard_normal(3),
        rng.standard_normal(50),
        rng.standard_normal(50),
        1.0,
        3.0,
    )
    compiling = compile_seconds(cases.robust_fit_loss, robust_args)
    lines.append(
        f"- Compiling the gradient function `grad` calls (`grad_f`) of a {length}-line "
        "function with two loops and four "
        f"branches (`cases.robust_fit_loss`, from a freshly executed copy of its source): "
        f"**{compiling * 1e3:.0f} ms** (median of 11)."
    )
    reference = python_reference_seconds()
    lines.append(
        "- For scale (compiling is pure Python, so it goes with the machine's Python speed): "
        f"a pure-Python reference, `fib(20)` (21,891 calls), takes {reference * 1e3:.2f} ms "
        f"here; compiling `robust_fit_loss` takes as long as {compiling / reference:.0f} "
        "of it."
    )
    per_case = ", ".join(
        f"{case.func.__name__} {case_compile_seconds(case) * 1e3:.0f}"
        for case in _distinct_functions(selected)
    )
    lines.append(f"- Compiling each case's `grad_f` (ms, file parse cached): {per_case}.")
    return lines


def _distinct_functions(selected: list[cases.Case]) -> list[cases.Case]:
    seen: dict[Any, cases.Case] = {}
    for case in selected:
        if case.mode == cases.GRAD:
            seen.setdefault(case.func, case)
    return list(seen.values())


# --------------------------------------------------------------------------------------
# The table


TIMES = "\N{MULTIPLICATION SIGN}"
COLUMNS = [
    ("srcad", f"srcad {TIMES}primal"),
    ("autograd", f"autograd {TIMES}primal"),
    ("jax", f"jax eager {TIMES}primal"),
    ("jax.jit", f"jax.jit {TIMES}primal (+ first call)"),
    ("torch", f"torch {TIMES}primal"),
    ("tangent", f"tangent-ad {TIMES}primal"),
]


def duration(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def ratio(value: float) -> str:
    return (f"{value:,.0f}" if value >= 100 else f"{value:.3g}") + TIMES


def cell(result: Result, name: str) -> str:
    if result.problem is not None:
        return result.problem
    assert result.ratio is not None and result.first_call is not None
    text = ratio(result.ratio)
    if name == "jax.jit":
        text += f" (+{duration(result.first_call)})"
    return text


def size(peak: int | None) -> str:
    if peak is None:
        return "-"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if peak >= scale:
            return f"{peak / scale:.3g} {unit}"
    return f"{peak} B"


GROUPS = [cases.LOOPS, cases.SMALL, cases.LARGE, cases.FORWARD, cases.SECOND]


def table(rows: list[Row]) -> list[str]:
    """One table per group of cases, in `GROUPS`' order."""
    header = ["case", "primal", f"hand-written {TIMES}primal", COLUMNS[0][1]]
    header += [f"srcad {TIMES}hand-written", *(title for _, title in COLUMNS[1:])]
    header.append("peak memory: primal / hand / srcad")
    lines: list[str] = []
    for group in GROUPS:
        members = [row for row in rows if row.case.group == group]
        if not members:
            continue
        lines += [f"#### {group[0].upper()}{group[1:]}", ""]
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for row in members:
            hand, ours = row.results["hand"], row.results["srcad"]
            primal = duration(row.primal) if row.primal else "-"
            cells = [row.case.name, primal, cell(hand, "hand"), cell(ours, "srcad")]
            cells.append(ratio(row.versus_hand) if row.versus_hand else "-")
            cells += [cell(row.results[name], name) for name, _ in COLUMNS[1:]]
            cells.append(" / ".join(size(p) for p in (row.primal_peak, hand.peak, ours.peak)))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return lines[:-1]


def _geometric_mean(rows: list[Row], of: Callable[[Row], float | None]) -> str:
    """The geometric mean of `of` over the rows where it was measured, and which were not."""
    values = [value for value in map(of, rows) if value]
    missing = [row.case.name for row in rows if not of(row)]
    text = ratio(statistics.geometric_mean(values)) if values else "-"
    if missing:
        text += f" (without {len(missing)} case{'s' if len(missing) > 1 else ''} srcad "
        text += f"failed or was not timed on: {', '.join(missing)})"
    return text


def _over_primal(row: Row) -> float | None:
    return row.results["srcad"].ratio


def _over_hand(row: Row) -> float | None:
    return row.versus_hand


def targets(rows: list[Row]) -> list[str]:
    """The figures issue 19's targets are stated in, each next to its target."""
    group = {g: [row for row in rows if row.case.group == g] for g in GROUPS}
    lines = ["### Against the targets", ""]
    loops = group[cases.LOOPS]
    if loops:
        measured = [row for row in loops if _over_primal(row)]
        worst = max(measured, key=lambda row: _over_primal(row) or 0.0, default=None)
        worst_text = f"{ratio(_over_primal(worst) or 0.0)} ({worst.case.name})" if worst else "-"
        over = [row.case.name for row in measured if (_over_primal(row) or 0.0) >= 5.0]
        lines.append(
            f"- Scalar and loop code, srcad {TIMES}primal: geometric mean "
            f"{_geometric_mean(loops, _over_primal)} (target at most 2.5{TIMES}); worst "
            f"{worst_text}; at or over 5{TIMES} (target: none): {', '.join(over) or 'none'}."
        )
    for name, target in ((cases.SMALL, "1.3"), (cases.LARGE, "1.15")):
        if group[name]:
            lines.append(
                f"- {name[0].upper()}{name[1:]}, srcad {TIMES}hand-written: geometric mean "
                f"{_geometric_mean(group[name], _over_hand)} (target at most {target}{TIMES})."
            )
    if group[cases.FORWARD]:
        lines.append(
            f"- Forward mode on loop code, srcad {TIMES}primal: geometric mean "
            f"{_geometric_mean(group[cases.FORWARD], _over_primal)} (target at most 2{TIMES})."
        )
    if group[cases.SECOND]:
        lines.append(
            f"- Hessian-vector products, srcad {TIMES}primal: geometric mean "
            f"{_geometric_mean(group[cases.SECOND], _over_primal)} (no target)."
        )
    lines += _float32_lines(rows) + _peer_lines(rows)
    return lines


def _float32_lines(rows: list[Row]) -> list[str]:
    by_name = {row.case.name: row for row in rows}
    lines = []
    for row in rows:
        twin = by_name.get(row.case.float64_twin or "")
        if twin is None:
            continue
        ours, theirs = row.results["srcad"], twin.results["srcad"]
        time_text = ratio(row.versus_float64) if row.versus_float64 else "not measured"
        memory = ratio(ours.peak / theirs.peak) if ours.peak and theirs.peak else "not measured"
        lines.append(
            f"- float32 against float64, srcad on `{row.case.name}` over `{twin.case.name}` "
            f"(target: both within 1.5{TIMES}): time {time_text} (in turns), peak memory "
            f"{memory} ({size(ours.peak)} against {size(theirs.peak)})."
        )
    return lines


def _peer_lines(rows: list[Row]) -> list[str]:
    """The cases where a peer is faster than srcad (target: none; jax.jit on loop code
    with its first call, tracing and compiling included, as the time of one call)."""
    lines = []
    for name, label in (("torch", "torch eager"), ("autograd", "autograd"), ("jax.jit", "")):
        faster = []
        for row in rows:
            ours, theirs = row.results["srcad"], row.results.get(name)
            if theirs is None or theirs.seconds is None:
                continue
            if name == "jax.jit":
                if row.case.group not in (cases.LOOPS, cases.FORWARD):
                    continue
                assert theirs.first_call is not None
                theirs_time = theirs.first_call
            else:
                theirs_time = theirs.seconds
            if ours.seconds is None or theirs_time < ours.seconds:
                faster.append(row.case.name)
        label = label or "jax.jit on loop code, its first call counted"
        lines.append(
            f"- Cases where {label} is faster than srcad (or srcad failed; target: none): "
            f"{', '.join(faster) or 'none'}."
        )
    return lines


def version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def environment() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    try:
        commit = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=HERE,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    peers = ", ".join(
        f"{name} {version(name)}" for name in ("autograd", "jax", "jaxlib", "torch", "tangent-ad")
    )
    return (
        f"Run on {datetime.date.today().isoformat()}, {cpu}, {os.cpu_count()} cores "
        f"(one thread per library), Python {platform.python_version()}, "
        f"NumPy {np.__version__}, srcad {commit}; {peers}."
    )


def write_readme(block: list[str]) -> None:
    text = README.read_text() if README.exists() else ""
    generated = "\n".join([BEGIN, "", *block, "", END])
    if BEGIN in text and END in text:
        before = text.split(BEGIN, 1)[0]
        after = text.split(END, 1)[1]
        text = before + generated + after
    else:
        text = text.rstrip("\n") + "\n\n" + generated + "\n"
    README.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="short timings; write nothing")
    parser.add_argument("--only", metavar="TEXT", help="only the cases whose name has TEXT")
    parser.add_argument("--no-write", action="store_true", help="leave README.md as it is")
    parser.add_argument(
        "--fixed-costs", action="store_true", help="only srcad's fixed costs; write nothing"
    )
    parser.add_argument(
        "--first-call",
        nargs=3,
        metavar=("CASE", "TOOL", "SEED"),
        help="call one tool's derivative of one case once, and exit (how a run tries a "
        "first call that no alarm can stop, in a process of its own)",
    )
    options = parser.parse_args(argv)
    if options.first_call:
        case_name, name, seed = options.first_call
        return _first_call(case_name, name, int(seed))

    timing = Timing(0.02, 3, 0.5, 20.0) if options.quick else Timing()
    selected = [c for c in cases.CASES if not options.only or options.only in c.name]
    if options.fixed_costs:
        print("\n".join(fixed_costs(timing, selected)))
        return 0
    started = time.perf_counter()
    rows = []
    for seed, case in enumerate(selected):
        print(f"{case.name}", flush=True)
        rows.append(run_case(case, list(tools.TOOLS), timing, seed))
    compare_float32(rows, timing)
    block = [environment(), "", *targets(rows), "", *table(rows)]
    block += ["", *fixed_costs(timing, selected)]
    minutes = (time.perf_counter() - started) / 60
    block += ["", f"The whole run took {minutes:.1f} minutes."]
    print("\n" + "\n".join(block))
    if not (options.quick or options.no_write or options.only):
        write_readme(block)
        print(f"\nwrote {README}")
    broken = [row.case.name for row in rows if row.results["srcad"].seconds is None]
    if broken:
        print(f"srcad failed or was wrong on: {', '.join(broken)}", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())

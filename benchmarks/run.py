"""Time srcad's gradients against the primal, hand-written gradients and peer AD systems.

    python benchmarks/run.py            # full run; rewrites the table in benchmarks/README.md
    python benchmarks/run.py --quick    # short timings, prints the table, writes nothing

Every figure is a ratio of two times taken in the same run: a gradient's time over the
NumPy primal's time, and srcad's time over the hand-written gradient's. A peer that is not
installed, cannot be imported, fails on a case or gives a wrong gradient gets a cell saying so.
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
import importlib.metadata  # noqa: E402
import inspect  # noqa: E402
import linecache  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402
import types  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402

import srcad  # noqa: E402
from srcad.defaults import COMPILER  # noqa: E402
from srcad.kinds import signature  # noqa: E402
from srcad.requests import Request  # noqa: E402

README = HERE / "README.md"
BEGIN = "<!-- BEGIN GENERATED RESULTS: python benchmarks/run.py -->"
END = "<!-- END GENERATED RESULTS -->"


# --------------------------------------------------------------------------------------
# Timing


@dataclass
class Timing:
    """How long one measurement runs: each sample lasts at least `target` seconds, up to
    `repeats` samples, and no more samples than fit in `cap` seconds (at least one)."""

    target: float = 0.2
    repeats: int = 5
    cap: float = 2.0

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
# Gradient tools: each builds, for a case and its arguments, a zero-argument function that
# computes the gradient, and a function turning its result into a tuple of NumPy values.

Call = tuple[Callable[..., Any], tuple[Any, ...]]  # a function and its arguments
# How to call a tool's gradient, and how to turn its result into a tuple of NumPy values.
Built = tuple[Call, Callable[[Any], tuple[Any, ...]]]


class NotAvailableError(Exception):
    """A tool that cannot run at all in this environment (not installed, not importable)."""


def _as_tuple(result: Any, case: cases.Case) -> tuple[Any, ...]:
    return tuple(result) if len(case.wrt) > 1 else (result,)


def hand_written(case: cases.Case, args: tuple[Any, ...]) -> Built:
    return (case.hand_grad, args), tuple


def with_srcad(case: cases.Case, args: tuple[Any, ...]) -> Built:
    return (srcad.grad(case.func, wrt=case.wrt), args), tuple


def _argnums(case: cases.Case) -> int | tuple[int, ...]:
    return case.wrt if len(case.wrt) > 1 else case.wrt[0]


def with_autograd(case: cases.Case, args: tuple[Any, ...]) -> Built:
    autograd, anp = peer("autograd")
    gradient = autograd.grad(cases.written_with(case.func, anp), argnum=_argnums(case))
    return (gradient, args), lambda out: _as_tuple(out, case)


def _jax_args(jnp: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)


def _jax_tuple(case: cases.Case) -> Callable[[Any], tuple[Any, ...]]:
    return lambda out: tuple(np.asarray(g) for g in _as_tuple(out, case))


def with_jax(case: cases.Case, args: tuple[Any, ...]) -> Built:
    jax, jnp = peer("jax")
    gradient = jax.grad(cases.written_with(case.func, jnp), argnums=_argnums(case))
    return (_blocking(jax, gradient), _jax_args(jnp, args)), _jax_tuple(case)


def with_jax_jit(case: cases.Case, args: tuple[Any, ...]) -> Built:
    jax, jnp = peer("jax")
    gradient = jax.jit(jax.grad(cases.written_with(case.func, jnp), argnums=_argnums(case)))
    return (_blocking(jax, gradient), _jax_args(jnp, args)), _jax_tuple(case)


def _blocking(jax: Any, gradient: Callable[..., Any]) -> Callable[..., Any]:
    """The gradient, returning once its (asynchronously computed) result is ready."""
    return lambda *args: jax.block_until_ready(gradient(*args))


def with_torch(case: cases.Case, args: tuple[Any, ...]) -> Built:
    torch, _ = peer("torch")
    func = cases.written_with(case.func, torch)
    targs = tuple(
        torch.tensor(a, dtype=torch.float64, requires_grad=i in case.wrt)
        for i, a in enumerate(args)
    )
    inputs = [targs[i] for i in case.wrt]

    def gradient() -> Any:
        return torch.autograd.grad(func(*targs), inputs)

    return (gradient, ()), lambda out: tuple(g.numpy() for g in out)


def with_tangent(case: cases.Case, args: tuple[Any, ...]) -> Built:
    tangent, _ = peer("tangent")
    gradient = tangent.grad(case.func, wrt=case.wrt, verbose=0)
    return (gradient, args), lambda out: _as_tuple(out, case)


# --------------------------------------------------------------------------------------
# Peers: imported once; a failure is remembered as the reason for "n/a".

_peers: dict[str, tuple[Any, Any] | str] = {}


def _import_peer(name: str) -> tuple[Any, Any]:
    if name == "autograd":
        import autograd
        import autograd.numpy

        return autograd, autograd.numpy
    if name == "jax":
        import jax
        import jax.numpy

        jax.config.update("jax_enable_x64", True)
        return jax, jax.numpy
    if name == "torch":
        import torch

        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
        return torch, None
    if name == "tangent":
        import tangent

        return tangent, None
    raise ValueError(name)


def peer(name: str) -> tuple[Any, Any]:
    """The peer's module (and its NumPy-like module); raises `NotAvailableError` with a reason."""
    if name not in _peers:
        try:
            _peers[name] = _import_peer(name)
        except ModuleNotFoundError as error:
            _peers[name] = f"{error.name} is not installed"
        except Exception as error:  # anything else a broken install raises on import
            _peers[name] = short(error)
    found = _peers[name]
    if isinstance(found, str):
        raise NotAvailableError(found)
    return found


def version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


# --------------------------------------------------------------------------------------
# One case


TOOLS: dict[str, Callable[[cases.Case, tuple[Any, ...]], Built]] = {
    "hand": hand_written,
    "srcad": with_srcad,
    "autograd": with_autograd,
    "jax": with_jax,
    "jax.jit": with_jax_jit,
    "torch": with_torch,
    "tangent": with_tangent,
}


@dataclass
class Result:
    seconds: float | None = None  # steady-state time of one gradient
    primal: float | None = None  # the primal's time, measured right before `seconds`
    first_call: float | None = None  # seconds of the first call (jax.jit: tracing + compile)
    problem: str | None = None  # "n/a (...)", "fails: ...", "wrong gradient ..."
    ratio: float | None = None  # the gradient's time over the primal's, timed in turns
    call: Call | None = None  # the gradient function and its arguments, once checked


@dataclass
class Row:
    case: cases.Case
    results: dict[str, Result] = field(default_factory=dict)
    versus_hand: float | None = None  # srcad's time over the hand-written one's, in turns

    @property
    def primal(self) -> float:
        """The median of the primal's times measured beside each gradient."""
        return statistics.median(r.primal for r in self.results.values() if r.primal)


def short(error: BaseException, limit: int = 70) -> str:
    """An exception's type and the first line of its message, shortened for a table cell."""
    lines = str(error).strip().splitlines()
    text = type(error).__name__ + (f": {lines[0]}" if lines else "")
    text = text.replace("|", "/").replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def same_gradient(got: tuple[Any, ...], expected: tuple[Any, ...]) -> str | None:
    """None when `got` matches `expected` (to 1e-7 of the gradient's scale), else why not."""
    if len(got) != len(expected):
        return f"{len(got)} gradients, expected {len(expected)}"
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        g, e = np.asarray(g, dtype=float), np.asarray(e, dtype=float)
        if g.shape != e.shape:
            return f"gradient {index} has shape {g.shape}, expected {e.shape}"
        scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
        error = float(np.max(np.abs(g - e), initial=0.0)) / scale
        if not error <= 1e-7:
            return f"gradient {index} is off by {error:.1e} (relative)"
    return None


def finite_differences_check(case: cases.Case, args: tuple[Any, ...], rng: Any) -> None:
    """Assert that the hand-written gradient matches central differences: every entry of
    small arguments, twelve random entries of large ones."""
    expected = case.hand_grad(*args)
    for position, gradient in zip(case.wrt, expected, strict=True):
        arg = args[position]
        gradient = np.asarray(gradient, dtype=float)
        scale = max(1.0, float(np.max(np.abs(gradient))))
        size = np.size(arg)
        entries = range(size) if size <= 64 else rng.choice(size, 12, replace=False)
        for entry in entries:
            value = arg if isinstance(arg, float) else arg.flat[entry]
            h = 1e-5 * max(1.0, abs(value))
            forward = _moved(case, args, position, entry, h)
            backward = _moved(case, args, position, entry, -h)
            estimate = (forward - backward) / (2.0 * h)
            assert abs(estimate - gradient.flat[entry]) <= 1e-5 * scale, (
                f"{case.name}: hand-written gradient of argument {position}, entry {entry}: "
                f"{gradient.flat[entry]!r}, finite differences {estimate!r}"
            )


def _moved(case: cases.Case, args: tuple[Any, ...], position: int, entry: int, step: float):
    """The case's function with one entry of one argument moved by `step`."""
    arg = args[position]
    if isinstance(arg, float):
        moved = arg + step
    else:
        moved = arg.copy()
        moved.flat[entry] += step
    return case.func(*args[:position], moved, *args[position + 1 :])


def run_tool(
    name: str, case: cases.Case, args: tuple[Any, ...], expected: Any, timing: Timing
) -> Result:
    """Build, check and time one tool's gradient, in turns with the primal (so that a
    change in the machine's load does not skew the ratio)."""
    try:
        build = TOOLS[name]
        (gradient, gradient_args), as_numpy = build(case, args)
        start = time.perf_counter()
        out = gradient(*gradient_args)
        first_call = time.perf_counter() - start
    except NotAvailableError as reason:
        return Result(problem=f"n/a ({reason})")
    except Exception as error:
        return Result(problem=f"fails: {short(error)}")
    mismatch = same_gradient(as_numpy(out), expected)
    if mismatch is not None:
        return Result(problem=f"wrong gradient: {mismatch}")
    seconds, primal, ratio = timing.paired((gradient, gradient_args), (case.func, args))
    return Result(seconds, primal, first_call, ratio=ratio, call=(gradient, gradient_args))


def run_case(case: cases.Case, tools: list[str], timing: Timing, seed: int) -> Row:
    rng = np.random.default_rng(seed)
    args = case.make_args(rng)
    finite_differences_check(case, args, rng)
    row = Row(case)
    expected = case.hand_grad(*args)
    for name in tools:
        row.results[name] = run_tool(name, case, args, expected, timing)
        result = row.results[name]
        shown = result.problem or f"{result.ratio:.3g}x"
        print(f"  {name:9} {shown}", flush=True)
    hand, ours = row.results.get("hand"), row.results.get("srcad")
    if hand and ours and hand.call and ours.call:  # srcad against hand-written, in turns too
        row.versus_hand = timing.paired(ours.call, hand.call)[2]
        print(f"  srcad over hand-written {row.versus_hand:.3g}x", flush=True)
    return row


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


def table(rows: list[Row]) -> list[str]:
    header = ["case", "primal", f"hand-written {TIMES}primal", COLUMNS[0][1]]
    header += [f"srcad {TIMES}hand-written", *(title for _, title in COLUMNS[1:])]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        hand, ours = row.results["hand"], row.results["srcad"]
        cells = [row.case.name, duration(row.primal), cell(hand, "hand"), cell(ours, "srcad")]
        cells.append(ratio(row.versus_hand) if row.versus_hand else "-")
        cells += [cell(row.results[name], name) for name, _ in COLUMNS[1:]]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


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
    options = parser.parse_args(argv)

    timing = Timing(0.02, 3, 0.5) if options.quick else Timing()
    selected = [c for c in cases.CASES if not options.only or options.only in c.name]
    if options.fixed_costs:
        print("\n".join(fixed_costs(timing, selected)))
        return 0
    started = time.perf_counter()
    rows = []
    for seed, case in enumerate(selected):
        print(f"{case.name}", flush=True)
        rows.append(run_case(case, list(TOOLS), timing, seed))
    block = [environment(), "", *table(rows), "", *fixed_costs(timing, selected)]
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

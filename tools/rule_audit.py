"""Check srcad's rules one call at a time, under the variations a rule's author may not have
thought of, against NumPy's values and central differences.

    PYTHONSAFEPATH=1 .venv/bin/python tools/rule_audit.py [--only TEXT] [--seeds N] [--list]

Each case is a one-line expression of the parameters `x`, `y`, `z` and the arguments it is
called with (`tools/rule_audit_cases.py`; SciPy's in `tools/rule_audit_scipy_cases.py`,
`--group SCIPY`). For each case and each random point (`--seeds`)
the function is written to a module of its own (srcad reads its source) and checked:

- the primal value `srcad.vjp` gives: equal to the function's, with its type, dtype and shape;
- `srcad.vjp` along a random output cotangent: each float argument's cotangent against
  central differences (`srcad.testing.finite_difference_vjp`), with the argument's shape and
  float type (a float32 argument takes a float32 cotangent);
- `srcad.jvp` along random tangents of every float argument, against central differences,
  with the primal's shape and float type;
- with `second=True` in the case, `srcad.hessian_vector_product` of `sum(w * f)` with
  respect to the first argument, against central differences of its `srcad.grad`.

A `SrcadError` is an outcome (`refused`), any other exception a `CRASH`, a number off a
`WRONG`. The point of the tool is to find what is wrong with no error: it prints each
failure with the case, the check and the numbers.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rule_audit_cases
import rule_audit_scipy_cases

import srcad
from srcad.tangents import AbstractZero
from srcad.testing import finite_difference_jvp, finite_difference_vjp

NAMES = ("x", "y", "z")
GROUPS = {
    **rule_audit_cases.GROUPS,
    "SCIPY": rule_audit_scipy_cases.SCIPY,
    "SPECIAL": rule_audit_scipy_cases.SPECIAL,
    "STATS": rule_audit_scipy_cases.STATS,
    "SCIPY_LINALG": rule_audit_scipy_cases.LINALG,
    "INTEGRATE": rule_audit_scipy_cases.INTEGRATE,
}


def _module(directory: Path, name: str, expr: str, count: int) -> Any:
    """A module with `f(<params>) = expr` and `g(<params>, w) = sum(w * expr)`."""
    params = ", ".join(NAMES[:count])
    text = (
        "import functools\nimport itertools\nimport operator\nimport statistics\n"
        "import math\nimport numpy as np\nimport scipy\nimport scipy.special\n"
        "import scipy.integrate\nimport scipy.linalg\nimport scipy.stats\n\n\n"
        f"def f({params}):\n    return {expr}\n\n\n"
        f"def g({params}, w):\n    return np.sum(w * ({expr}))\n"
    )
    file = directory / f"{name}.py"
    file.write_text(text)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _is_float(a: Any) -> bool:
    if isinstance(a, bool | int):
        return False
    if isinstance(a, float | complex):
        return True
    return isinstance(a, np.ndarray | np.generic) and np.issubdtype(a.dtype, np.inexact)


def _random_like(a: Any, rng: np.random.Generator) -> Any:
    values = rng.standard_normal(np.shape(a))
    if np.iscomplexobj(a):
        values = values + 1j * rng.standard_normal(np.shape(a))
    if isinstance(a, float | complex):
        return type(a)(values)
    return np.asarray(values, dtype=np.asarray(a).dtype)


def _tolerance(args: tuple[Any, ...]) -> tuple[float, float]:
    low = any(
        isinstance(a, np.ndarray | np.generic) and a.dtype in (np.float32, np.complex64, np.float16)
        for a in args
    )
    return (2e-3, 2e-3) if low else (1e-5, 1e-7)


def _close(got: Any, want: Any, rtol: float, atol: float) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    return bool(np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray | np.generic):
        return f"{type(value).__name__}[{value.dtype}{list(np.shape(value))}]"
    return type(value).__name__


def _same_kind(got: Any, want: Any) -> str | None:
    """Why `got` is not a value of `want`'s type, dtype and shape, or None."""
    if isinstance(want, np.ndarray | np.generic):
        got_dtype = getattr(got, "dtype", None)
        if got_dtype != want.dtype or np.shape(got) != np.shape(want):
            return f"{_describe(got)}, NumPy gives {_describe(want)}"
        if isinstance(want, np.ndarray) != isinstance(got, np.ndarray):
            return f"{_describe(got)}, NumPy gives {_describe(want)}"
    elif (
        isinstance(want, float | complex | int)
        and type(got) is not type(want)
        and not (isinstance(want, float) and isinstance(got, np.float64))
    ):
        return f"{_describe(got)}, the function gives {_describe(want)}"
    return None


def _tangent_kind(tangent: Any, primal: Any) -> str | None:
    """Why `tangent` is not a tangent of `primal`'s shape and float type, or None."""
    if isinstance(tangent, AbstractZero):
        return None
    if isinstance(primal, np.ndarray | np.generic) and np.issubdtype(primal.dtype, np.inexact):
        dtype = np.asarray(tangent).dtype
        if dtype != primal.dtype or np.shape(tangent) != np.shape(primal):
            return f"{_describe(tangent)} for a primal {_describe(primal)}"
    return None


def _finite_failure(name: str, got: Any, want: Any) -> list[tuple[str, str]]:
    """At a kink: a derivative that is not finite where the primal is (a NaN for a finite
    value is wrong unless documented)."""
    if isinstance(got, AbstractZero) or not np.all(np.isfinite(np.asarray(want))):
        return []
    if np.all(np.isfinite(np.asarray(got))):
        return []
    return [("WRONG", f"{name}: not finite at a finite primal: {got!r}")]


def _consistency(
    bars: Any, positions: list[int], tangents: tuple[Any, ...], y_bar: Any, y_dot: Any
) -> list[tuple[str, str]]:
    """At a kink: reverse and forward mode pick the same derivative, `<x_bar, x_dot> ==
    <y_bar, y_dot>` (both finite), as one subgradient chosen consistently gives."""
    if isinstance(y_dot, AbstractZero):
        y_dot = np.zeros(np.shape(y_bar))
    forward = np.sum(np.real(np.conj(np.asarray(y_bar)) * np.asarray(y_dot)))
    reverse = 0.0
    for position in positions:
        bar = bars[position]
        if not isinstance(bar, AbstractZero):
            reverse += np.sum(np.real(np.conj(np.asarray(bar)) * np.asarray(tangents[position])))
    if not (np.isfinite(forward) and np.isfinite(reverse)):
        return []
    if abs(forward - reverse) <= 1e-6 * (1 + abs(forward)):
        return []
    return [
        (
            "WRONG",
            f"reverse and forward disagree: <x_bar, x_dot> {reverse}, <y_bar, y_dot> {forward}",
        )
    ]


def check_case(
    directory: Path, index: int, case: rule_audit_cases.Case, seed: int
) -> list[tuple[str, str]]:
    """The failures of one case at one point: (outcome, message) pairs."""
    rng = np.random.default_rng(seed)
    args = tuple(make(rng) for make in case.args)
    module = _module(directory, f"audit_case_{index}_{seed}", case.expr, len(args))
    f, g = module.f, module.g
    positions = [i for i, a in enumerate(args) if _is_float(a)]
    failures: list[tuple[str, str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(*args)
    rtol, atol = _tolerance((*args, want))
    if not positions or np.asarray(want).dtype.kind in "biu":
        return failures  # nothing differentiated, or a result of integers (times `x` instead)
    try:
        y, pullback = srcad.vjp(f, *args)
    except srcad.SrcadError as error:
        return [("refused", " | ".join(str(error).splitlines()[:4]))]
    except Exception:
        return [("CRASH", "vjp: " + traceback.format_exc(limit=-3))]
    why = _same_kind(y, want)
    if why is not None:
        failures.append(("WRONG", f"primal (vjp): {why}"))
    if not _close(y, want, 1e-12, 1e-14):
        failures.append(("WRONG", f"primal (vjp): {y!r}, NumPy gives {want!r}"))
    y_bar = _random_like(want, rng)
    try:
        bars = pullback(y_bar)
    except srcad.SrcadError as error:
        return [*failures, ("refused", "pullback: " + " | ".join(str(error).splitlines()[:4]))]
    except Exception:
        return [*failures, ("CRASH", "pullback: " + traceback.format_exc(limit=-3))]
    for position in positions:
        got = bars[position]
        why = _tangent_kind(got, args[position])
        if why is not None:
            failures.append(("WRONG", f"cotangent of {NAMES[position]}: {why}"))
        expected = finite_difference_vjp(f, args, y_bar, position)
        if isinstance(got, AbstractZero):
            got = np.zeros(np.shape(args[position]))
        if case.kink:
            failures += _finite_failure(f"cotangent of {NAMES[position]}", got, want)
        if not _close(got, expected, rtol, atol):
            failures.append(
                (
                    "DIFFERS" if case.kink else "WRONG",
                    f"cotangent of {NAMES[position]}: {got!r}, differences {expected!r}",
                )
            )
    tangents = tuple(
        _random_like(a, rng) if i in positions else srcad.NoTangent() for i, a in enumerate(args)
    )
    try:
        y2, y_dot = srcad.jvp(f, args, tangents)
    except srcad.SrcadError as error:
        return [*failures, ("refused", "jvp: " + " | ".join(str(error).splitlines()[:4]))]
    except Exception:
        return [*failures, ("CRASH", "jvp: " + traceback.format_exc(limit=-3))]
    why = _same_kind(y2, want)
    if why is not None:
        failures.append(("WRONG", f"primal (jvp): {why}"))
    if not _close(y2, want, 1e-12, 1e-14):
        failures.append(("WRONG", f"primal (jvp): {y2!r}, NumPy gives {want!r}"))
    why = _tangent_kind(y_dot, want)
    if why is not None:
        failures.append(("WRONG", f"tangent: {why}"))
    fd_tangents = tuple(
        t if i in positions else srcad.ZeroTangent() for i, t in enumerate(tangents)
    )
    expected = finite_difference_jvp(f, args, fd_tangents)
    if isinstance(y_dot, AbstractZero):
        y_dot = np.zeros(np.shape(want))
    if case.kink:
        failures += _finite_failure("tangent", y_dot, want)
        failures += _consistency(bars, positions, tangents, y_bar, y_dot)
    if not _close(y_dot, expected, rtol, atol):
        kind = "DIFFERS" if case.kink else "WRONG"
        failures.append((kind, f"tangent: {y_dot!r}, differences {expected!r}"))
    if case.second and not case.kink and positions and positions[0] == 0:
        failures += _second(g, args, want, rng, rtol, atol)
    return failures


def _second(
    g: Callable[..., Any],
    args: tuple[Any, ...],
    want: Any,
    rng: np.random.Generator,
    rtol: float,
    atol: float,
) -> list[tuple[str, str]]:
    w = np.asarray(rng.standard_normal(np.shape(want)))
    v = _random_like(args[0], rng)
    try:
        got = srcad.hessian_vector_product(g, wrt=0)(*args, w, v)
        gradient = srcad.grad(g, wrt=0)
        expected = finite_difference_jvp(lambda x: gradient(x, *args[1:], w), (args[0],), (v,))
    except srcad.SrcadError as error:
        return [("refused", "hvp: " + " | ".join(str(error).splitlines()[:4]))]
    except Exception:
        return [("CRASH", "hvp: " + traceback.format_exc(limit=-3))]
    if not _close(got, expected, rtol * 10, atol * 10):
        return [("WRONG", f"hvp: {got!r}, differences of grad {expected!r}")]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="only cases whose text contains this")
    parser.add_argument("--seeds", type=int, default=2, help="random points per case")
    parser.add_argument(
        "--group",
        default="CASES",
        help="a list of cases: CASES (all but SciPy's sublists), " + ", ".join(GROUPS),
    )
    parser.add_argument("--list", action="store_true", help="list the cases")
    parser.add_argument("--quiet", action="store_true", help="print failures only")
    options = parser.parse_args(argv)
    group = (
        [*rule_audit_cases.CASES, *rule_audit_scipy_cases.SCIPY]
        if options.group == "CASES"
        else GROUPS[options.group]
    )
    cases = [c for c in group if options.only in c.expr]
    if options.list:
        for case in cases:
            print(case.expr)
        return 0
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        for index, case in enumerate(cases):
            outcome = "pass"
            for seed in range(options.seeds):
                try:
                    with warnings.catch_warnings():  # (NumPy's, at the kinks and bounds)
                        warnings.simplefilter("ignore", RuntimeWarning)
                        failures = check_case(directory, index, case, seed)
                except Exception:
                    failures = [("CRASH", "harness: " + traceback.format_exc(limit=-2))]
                for kind, message in failures:
                    print(f"{kind:8} {case.expr}  [seed {seed}]\n         {message}")
                    worse = outcome in ("refused", "DIFFERS") and kind != "refused"
                    if outcome == "pass" or worse:
                        outcome = kind
                if failures:
                    break
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome == "pass" and not options.quiet:
                print(f"pass     {case.expr}")
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("WRONG") or counts.get("CRASH") else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Check one generated program every way srcad can be asked for its derivative.

The outcome of a program is one of:
- `pass`: every check agreed;
- `refused`: srcad raised an `SrcadError` (a clean refusal: allowed);
- `skipped`: no point was found where finite differences are trustworthy (a kink or a branch
  switch within a step of every point tried);
- `WRONG`: a value disagreed (with the primal, with finite differences, or between modes);
- `CRASH`: any other exception from srcad.

Checks, in order (the first failing one names the outcome):
- `grad`: `srcad.grad(f, wrt=every parameter)` dotted with a direction `u` against the central
  difference of `f` along `u`; called twice (the second call takes the entry's fast path);
- `grad_first`: `srcad.grad(f)` (the first parameter only) against the central difference
  along the first parameter, and against `grad`'s first gradient;
- `value_and_grad`: its value against the primal, its gradient against `grad`'s;
- `jvp`: `srcad.jvp`'s value against the primal, its tangent against the central difference;
- `vjp`: `srcad.vjp`'s value against the primal; `<vjp(v), u>` against `<v, J u>` by finite
  differences, and against `<v, jvp(u)>` (the dot-product test, both modes);
- `source`: the emitted text (`reverse`, `forward`, `reverse` for the arguments' kinds) is the
  same for two copies of the module, each compiled from scratch;
- `second_order` (asked for with `second_order=True`: `run.py --second-order`): with respect
  to the first parameter, `srcad.hessian_vector_product(f)` along `u[0]`, `srcad.hessian(f)`
  contracted with `u[0]`, and `jacobian(grad(f), mode="forward")` likewise, each against the
  central difference of `srcad.grad(f)` along `u[0]` (itself checked by `grad_first`).
`grad`, `value_and_grad` and `second_order` are asked only of programs with a scalar result.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import itertools
import pathlib
import re
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

import srcad

_modules = itertools.count()


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What checking a program gave; `check` names the check that failed, `detail` says how."""

    kind: str  # pass, refused, skipped, invalid, WRONG, CRASH
    check: str = ""
    detail: str = ""
    #: every check's own outcome, `(check, kind, detail)`, in the order they ran
    every: tuple[tuple[str, str, str], ...] = dataclasses.field(default=(), compare=False)

    @property
    def signature(self) -> tuple[str, str, str]:
        """What two failures must share to be taken for the same bug: the outcome, the
        check, and for a crash the exception's type and message."""
        if self.kind != "CRASH":
            return (self.kind, self.check, "")
        # The exception's type and the start of its message, numbers left out: "ValueError:
        # too many values to unpack" and "ValueError: cannot add tangents" are two bugs.
        message = re.sub(r"[0-9]+", "N", self.detail.split(" (", 1)[0])
        return (self.kind, self.check, message[:60])


class MismatchError(Exception):
    """A check found two values that should agree and do not."""


class UnusablePointError(Exception):
    """The program cannot be checked at this point (not finite, a kink): not srcad's fault."""


def load(source: str, directory: pathlib.Path) -> Any:
    """Write `source` to `directory/fuzz_case.py`, import it under a new name, and return the
    module (srcad reads the source from the file)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "fuzz_case.py"
    path.write_text(source)
    name = f"srcad_fuzz_case_{next(_modules)}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def unload(module: Any) -> None:
    sys.modules.pop(module.__name__, None)


# ---- points and finite differences
def point(parameters: tuple[tuple[str, tuple[int, ...]], ...], rng: np.random.Generator) -> list:
    """Arguments of the parameters' shapes: Python floats and float64 arrays."""
    args: list[Any] = []
    for _, shape in parameters:
        value = rng.uniform(-1.5, 1.5, size=shape)
        args.append(float(value) if shape == () else value)
    return args


def call(f: Callable[..., Any], args: list) -> Any:
    """`f` on copies of `args` (a program may update an array argument in place)."""
    with np.errstate(all="ignore"):
        return f(*copy.deepcopy(args))


def along(args: list, u: list, t: float) -> list:
    return [a + t * d for a, d in zip(args, u, strict=True)]


def as_array(y: Any) -> np.ndarray:
    return np.asarray(y, dtype=float)


def central(f: Callable[..., Any], args: list, u: list, h: float) -> np.ndarray:
    """The central difference of `f` along `u`, with Richardson's step (error O(h^4))."""

    def d(step: float) -> np.ndarray:
        return (
            as_array(call(f, along(args, u, step))) - as_array(call(f, along(args, u, -step)))
        ) / (2 * step)

    return (4 * d(h / 2) - d(h)) / 3


def jumps_near(f: Callable[..., Any], args: list, u: list, scale: float) -> bool:
    """Whether `f` jumps within a few steps of `1e-4` along `u`. The third differences of the
    samples at `x + k h u` (k = -6..6) are of the order of `h**3` times the third derivative for
    a smooth `f`, and of the size of the jump where a branch switches between two samples. A
    comparison that rounding decides (`x > np.mean(x * np.ones(n))`) switches at every scale,
    and may do so between the points the central differences use without changing them."""
    h = 1e-4
    samples = np.stack([as_array(call(f, along(args, u, k * h))) for k in range(-6, 7)])
    if not np.all(np.isfinite(samples)):
        return True
    return float(np.max(np.abs(np.diff(samples, n=3, axis=0)), initial=0.0)) > 1e-6 * scale


def directional_derivative(f: Callable[..., Any], args: list, u: list, y: np.ndarray) -> np.ndarray:
    """`J u` by finite differences, or `UnusablePointError` where they cannot be trusted: the
    estimates at two step sizes disagree (a branch switches within a step), the primal jumps
    between samples a step apart, or the one-sided slopes differ by as much at a small step as
    at a ten times larger one (a kink on the point)."""
    scale = 1.0 + float(np.max(np.abs(y), initial=0.0))
    first, second = central(f, args, u, 1e-3), central(f, args, u, 1e-4)
    if not (np.all(np.isfinite(first)) and np.all(np.isfinite(second))):
        raise UnusablePointError("finite differences are not finite")
    if np.max(np.abs(first - second), initial=0.0) > 1e-6 * scale * (1 + np.max(np.abs(first))):
        raise UnusablePointError("finite differences disagree at two step sizes")
    if jumps_near(f, args, u, scale):
        raise UnusablePointError("the function jumps near the point")
    y0 = as_array(call(f, args))
    for h in (1e-4, 1e-6):
        forward = (as_array(call(f, along(args, u, h))) - y0) / h
        backward = (y0 - as_array(call(f, along(args, u, -h)))) / h
        gap = float(np.max(np.abs(forward - backward), initial=0.0))
        if h == 1e-4:
            large = gap
        elif gap > 1e-4 * scale and gap > 0.3 * large:
            raise UnusablePointError("a kink at the point")
    return second


# ---- comparisons
def dense(value: Any, primal: Any) -> Any:
    """A cotangent with a symbolic zero (`ZeroTangent`, which `vjp` may give for an argument
    the result does not depend on) made an array of the primal's shape."""
    if isinstance(value, srcad.ZeroTangent):
        return np.zeros(np.shape(primal))
    return value


def flat(value: Any) -> np.ndarray:
    """A tangent or cotangent (a float, an array, a tuple of them) as one vector."""
    if isinstance(value, tuple | list):
        return np.concatenate([flat(v) for v in value]) if value else np.zeros(0)
    if isinstance(value, srcad.NoTangent | srcad.ZeroTangent):
        raise MismatchError(f"a {type(value).__name__}() where a float or an array is due")
    return np.asarray(value, dtype=float).reshape(-1)


def agree(name: str, got: Any, want: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    got_a, want_a = as_array(got), as_array(want)
    if got_a.shape != want_a.shape:
        raise MismatchError(f"{name}: shape {got_a.shape}, want {want_a.shape}")
    scale = atol + rtol * max(1.0, float(np.max(np.abs(want_a), initial=0.0)))
    error = float(np.max(np.abs(got_a - want_a), initial=0.0)) if got_a.size else 0.0
    if not error <= scale:
        raise MismatchError(
            f"{name}: got {np.round(got_a, 6).tolist()}, want {np.round(want_a, 6).tolist()}"
        )


def same_shapes(name: str, gradient: Any, args: list) -> None:
    for i, (g, a) in enumerate(zip(gradient, args, strict=True)):
        if np.shape(g) != np.shape(a):
            raise MismatchError(
                f"{name}: gradient {i} has shape {np.shape(g)}, argument {np.shape(a)}"
            )


# ---- the checks
def checks(
    f: Callable[..., Any],
    copy_f: Callable[..., Any],
    args: list,
    rng: np.random.Generator,
    second_order: bool = False,
):
    """The checks of one program at one point, as (name, thunk) pairs."""
    y = as_array(call(f, args))
    u = [
        float(rng.standard_normal()) if np.ndim(a) == 0 else rng.standard_normal(np.shape(a))
        for a in args
    ]
    v = rng.standard_normal(y.shape) if y.ndim else float(rng.standard_normal())
    fd = directional_derivative(f, args, u, y)
    wrt = tuple(range(len(args)))
    scalar = y.shape == () and np.isrealobj(call(f, args))
    found: dict[str, Any] = {}

    def gradient() -> None:
        g = srcad.grad(f, wrt=wrt)
        first = g(*copy.deepcopy(args))
        same_shapes("grad", first, args)
        agree("grad . u vs finite differences", flat(first) @ flat(u), fd)
        again = g(*copy.deepcopy(args))
        agree("grad, second call vs first", flat(again), flat(first), 1e-12, 1e-12)
        found["grad"] = first

    def gradient_first() -> None:
        g = srcad.grad(f)(*copy.deepcopy(args))
        same_shapes("grad", (g,), args[:1])
        first_only = [u[0]] + [0.0 * d for d in u[1:]]
        fd_first = directional_derivative(f, args, first_only, y)
        agree("grad(f) . u[0] vs finite differences", flat(g) @ flat(u[0]), fd_first)
        if "grad" in found:
            agree("grad(f) vs grad(f, wrt=all)[0]", flat(g), flat(found["grad"][0]), 1e-9, 1e-12)

    def value_and_gradient() -> None:
        value, g = srcad.value_and_grad(f, wrt=wrt)(*copy.deepcopy(args))
        agree("value_and_grad value vs primal", value, y, 1e-9, 1e-12)
        same_shapes("value_and_grad", g, args)
        agree("value_and_grad . u vs finite differences", flat(g) @ flat(u), fd)
        if "grad" in found:
            agree("value_and_grad vs grad", flat(g), flat(found["grad"]), 1e-9, 1e-12)

    def forward() -> None:
        value, tangent = srcad.jvp(f, tuple(copy.deepcopy(args)), tuple(u))
        agree("jvp value vs primal", value, y, 1e-9, 1e-12)
        agree("jvp tangent vs finite differences", tangent, fd)
        found["jvp"] = as_array(tangent)

    def reverse() -> None:
        value, vjp_fn = srcad.vjp(f, *copy.deepcopy(args))
        agree("vjp value vs primal", value, y, 1e-9, 1e-12)
        cotangents = tuple(dense(c, a) for c, a in zip(vjp_fn(copy.deepcopy(v)), args, strict=True))
        same_shapes("vjp", cotangents, args)
        left = flat(cotangents) @ flat(u)
        agree("<vjp(v), u> vs <v, J u> by finite differences", left, flat(v) @ flat(fd))
        if "jvp" in found:
            agree("<vjp(v), u> vs <v, jvp(u)>", left, flat(v) @ flat(found["jvp"]), 1e-8, 1e-9)

    def emitted() -> None:
        for mode, example in (("reverse", ()), ("forward", ()), ("reverse", tuple(args))):
            text = srcad.source(f, mode=mode, args=example)
            again = srcad.source(copy_f, mode=mode, args=example)
            if text != again:
                raise MismatchError(
                    f"source(mode={mode!r}, args={bool(example)}) differs between two compiles"
                )

    def second() -> None:
        gradient_f = srcad.grad(f)
        first_only = [u[0]] + [0.0 * d for d in u[1:]]
        g0 = as_array(call(gradient_f, args))
        want = directional_derivative(lambda *a: as_array(gradient_f(*a)), args, first_only, g0)
        direction = copy.deepcopy(u[0])
        product = srcad.hessian_vector_product(f)(*copy.deepcopy(args), direction)
        agree("hessian_vector_product vs finite differences of grad", product, want)
        rank = np.ndim(args[0])
        hessian = srcad.hessian(f)(*copy.deepcopy(args))
        agree("hessian . u[0] vs finite differences of grad",
              np.tensordot(hessian, direction, rank), want)  # fmt: skip
        jacobian = srcad.jacobian(srcad.grad(f), mode="forward")(*copy.deepcopy(args))
        agree("jacobian(grad, forward) . u[0] vs finite differences of grad",
              np.tensordot(jacobian, direction, rank), want)  # fmt: skip

    listed: list[tuple[str, Callable[[], None]]] = []
    if scalar:
        listed += [
            ("grad", gradient),
            ("grad_first", gradient_first),
            ("value_and_grad", value_and_gradient),
        ]
    listed += [("jvp", forward), ("vjp", reverse), ("source", emitted)]
    if scalar and second_order:
        listed.append(("second_order", second))
    return listed


def run_checks(
    f: Callable[..., Any],
    copy_f: Callable[..., Any],
    args: list,
    rng: np.random.Generator,
    second_order: bool = False,
) -> Outcome:
    outcomes = []
    for name, check in checks(f, copy_f, args, rng, second_order):
        try:
            with np.errstate(all="ignore"):
                check()
            outcomes.append(Outcome("pass", name))
        except MismatchError as e:
            outcomes.append(Outcome("WRONG", name, str(e)))
        except UnusablePointError as e:  # a kink along this check's own direction
            outcomes.append(Outcome("skipped", name, str(e)))
        except srcad.SrcadError as e:
            outcomes.append(Outcome("refused", name, f"{type(e).__name__}: {_first_diagnostic(e)}"))
        except Exception as e:
            where = traceback.extract_tb(e.__traceback__)[-1]
            outcomes.append(
                Outcome(
                    "CRASH",
                    name,
                    f"{type(e).__name__}: {e} ({pathlib.Path(where.filename).name}:{where.lineno})",
                )
            )
    every = tuple((o.check, o.kind, o.detail) for o in outcomes)
    for kind in ("WRONG", "CRASH", "refused"):
        for outcome in outcomes:
            if outcome.kind == kind:
                return dataclasses.replace(outcome, every=every)
    return Outcome("pass", every=every)


def _first_diagnostic(error: srcad.SrcadError) -> str:
    diagnostics = getattr(error, "diagnostics", None)
    if diagnostics:
        return str(getattr(diagnostics[0], "message", diagnostics[0]))
    return str(error).splitlines()[0]


def usable(value: Any) -> bool:
    y = np.asarray(value)
    return (
        y.dtype.kind == "f"
        and bool(np.all(np.isfinite(y)))
        and float(np.max(np.abs(y), initial=0.0)) < 1e4
    )


def check_source(
    source: str, parameters, seed: int, workdir: pathlib.Path, second_order: bool = False
) -> Outcome:
    """Check one program's source: import two copies, find a usable point, run the checks
    (`second_order`: its second derivatives too)."""
    try:
        first, second = load(source, workdir / "a"), load(source, workdir / "b")
    except Exception as e:
        return Outcome("invalid", "import", f"{type(e).__name__}: {e}")
    try:
        rng = np.random.default_rng(seed)
        for _ in range(3):
            args = point(parameters, rng)
            try:
                if not usable(call(first.f, args)):
                    return Outcome("invalid", "primal", "not a finite, moderate float")
                return run_checks(first.f, second.f, args, rng, second_order)
            except UnusablePointError as e:
                reason = str(e)
            except Exception as e:
                return Outcome("invalid", "primal", f"{type(e).__name__}: {e}")
        return Outcome("skipped", "finite differences", reason)
    finally:
        unload(first)
        unload(second)


def check_program(program: Any, second_order: bool = False) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="srcad-fuzz-") as directory:
        return check_source(
            program.source,
            program.parameters,
            program.seed,
            pathlib.Path(directory),
            second_order,
        )

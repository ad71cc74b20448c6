"""Check srcad's public API under varied calls, against central differences.

    PYTHONSAFEPATH=1 .venv/bin/python tools/api_audit.py [--only TEXT] [--quiet]

Each case is a user function (`tools/api_audit_cases.py`, written to a module of its own so
that srcad reads its source) with its arguments: arrays, floats, and dicts, tuples, lists,
NamedTuples and dataclasses of them beside ints, bools and None; results of the same kinds.
For each `wrt` the case names it checks, flattening every structure to its float leaves:

- `grad`, `value_and_grad` (and with `has_aux=True` where the case returns `(loss, aux)`),
  for a real-scalar loss: against differences of the loss;
- `jacobian` in both modes: against the differences of every float leaf of the result;
- `hessian` (scalar loss): against differences of `grad`; `hessian_vector_product` against
  the Hessian times a random vector;
- `vjp` along a random cotangent of the result's structure (zeros for its ints, bools and
  None) and `jvp` along random tangents of every argument: against differences.

A `SrcadError` is an outcome (`refused`), any other exception a `CRASH`, a number off a
`WRONG`. Values are compared with `rtol=1e-5` (differences at step `1e-6`, Richardson).
"""

from __future__ import annotations

import argparse
import dataclasses
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

import api_audit_cases

import srcad
from srcad.tangents import AbstractZero

RTOL, ATOL = 1e-5, 1e-7


# --- structures, flattened to their float leaves ----------------------------------------


def _parts(value: Any) -> list[tuple[Any, Any]] | None:
    """The (key, part) pairs of a structure, or None for a leaf."""
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, tuple | list):
        return list(enumerate(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
    return None


def _rebuild(value: Any, parts: list[Any]) -> Any:
    if isinstance(value, dict):
        return dict(zip(value, parts, strict=True))
    if hasattr(type(value), "_fields"):
        return type(value)(*parts)
    if isinstance(value, tuple | list):
        return type(value)(parts)
    names = [f.name for f in dataclasses.fields(value)]
    return dataclasses.replace(value, **dict(zip(names, parts, strict=True)))


def _is_float_leaf(value: Any) -> bool:
    if isinstance(value, bool | int):
        return False
    if isinstance(value, float):
        return True
    return isinstance(value, np.ndarray | np.generic) and np.issubdtype(value.dtype, np.floating)


def flat(value: Any) -> np.ndarray:
    """The float leaves of `value`, raveled and concatenated."""
    found = _parts(value)
    if found is None:
        return np.ravel(np.asarray(value, float)) if _is_float_leaf(value) else np.zeros(0)
    return np.concatenate([np.zeros(0), *(flat(p) for _, p in found)])


def flat_like(tangent: Any, primal: Any) -> np.ndarray:
    """`tangent`, a (co)tangent of `primal` (a structure like it, a `srcad.Tangent`, or a
    symbolic zero anywhere), flattened as `flat(primal)`."""
    if isinstance(tangent, AbstractZero) or tangent is None:
        return np.zeros(np.size(flat(primal)))
    found = _parts(primal)
    if found is None:
        if not _is_float_leaf(primal):
            return np.zeros(0)
        return np.ravel(np.broadcast_to(np.asarray(tangent, float), np.shape(primal)))
    pieces = [np.zeros(0)]
    for key, part in found:
        if isinstance(tangent, srcad.Tangent):
            sub = getattr(tangent, key) if isinstance(key, str) else tangent[key]
        elif isinstance(tangent, dict | tuple | list):
            sub = tangent[key]
        else:
            sub = getattr(tangent, key)
        pieces.append(flat_like(sub, part))
    return np.concatenate(pieces)


def unflat(value: Any, vector: np.ndarray, zero: Any = None, widen: bool = False) -> Any:
    """`value` with its float leaves read from `vector` (each in its own shape and float
    type, or float64 where `widen`: differences of float32 arguments are taken in float64);
    its other leaves are kept, or replaced by `zero` where given."""
    position = [0]

    def build(v: Any) -> Any:
        found = _parts(v)
        if found is None:
            if not _is_float_leaf(v):
                return v if zero is None else zero
            size = int(np.size(v))
            piece = vector[position[0] : position[0] + size]
            position[0] += size
            if isinstance(v, float):
                return float(piece[0])
            dtype = np.float64 if widen else np.asarray(v).dtype
            return np.asarray(piece.reshape(np.shape(v)), dtype=dtype)
        return _rebuild(v, [build(p) for _, p in found])

    return build(value)


# --- differences -----------------------------------------------------------------------


def differences(f: Callable[..., Any], args: tuple[Any, ...], positions: list[int],
                out: Callable[[Any], np.ndarray]) -> np.ndarray:  # fmt: skip
    """The Jacobian of `out(f(*args))` in the float leaves of the arguments at `positions`,
    by central differences with one Richardson step: (outputs, inputs)."""
    columns = []
    for p in positions:
        base = flat(args[p]).astype(float)
        for i in range(base.size):
            h = 1e-4 * max(1.0, abs(base[i]))

            def at(step: float, p: int = p, i: int = i, base: np.ndarray = base) -> np.ndarray:
                moved = base.copy()
                moved[i] += step
                changed = list(args)
                changed[p] = unflat(args[p], moved, widen=True)
                return out(f(*changed))

            d1 = (at(h) - at(-h)) / (2 * h)
            d2 = (at(h / 2) - at(-h / 2)) / h
            columns.append((4 * d2 - d1) / 3)
    return np.stack(columns, axis=-1) if columns else np.zeros((0, 0))


# --- the checks ------------------------------------------------------------------------


def _module(directory: Path, name: str, text: str) -> Any:
    file = directory / f"{name}.py"
    file.write_text(api_audit_cases.PRELUDE + text)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _close(what: str, got: np.ndarray, want: np.ndarray) -> list[tuple[str, str]]:
    got, want = np.asarray(got, float), np.asarray(want, float)
    if got.shape != want.shape:
        return [("WRONG", f"{what}: shape {got.shape}, differences {want.shape}")]
    if np.allclose(got, want, rtol=RTOL, atol=ATOL):
        return []
    return [("WRONG", f"{what}: {np.round(got, 6)!r}, differences {np.round(want, 6)!r}")]


def _attempt(what: str, call: Callable[[], Any]) -> tuple[Any, list[tuple[str, str]]]:
    try:
        return call(), []
    except srcad.SrcadError as error:
        return None, [("refused", f"{what}: " + " | ".join(str(error).splitlines()[:3]))]
    except Exception:
        return None, [("CRASH", f"{what}: " + traceback.format_exc(limit=-3))]


def _positions(case: api_audit_cases.Case, wrt: Any, f: Callable[..., Any]) -> list[int]:
    names = list(f.__code__.co_varnames[: f.__code__.co_argcount])
    chosen = wrt if isinstance(wrt, tuple | list) else (wrt,)
    return [names.index(w) if isinstance(w, str) else w for w in chosen]


def _gradient_checks(f: Callable[..., Any], args: tuple[Any, ...], wrt: Any,
                     positions: list[int], aux: bool) -> list[tuple[str, str]]:  # fmt: skip
    """grad, value_and_grad, hessian and the Hessian-vector product of a scalar loss."""
    failures: list[tuple[str, str]] = []
    loss = (lambda *a: f(*a)[0]) if aux else f
    want = differences(loss, args, positions, lambda y: np.atleast_1d(np.asarray(y, float)))[0]
    name = f"wrt={wrt!r}"

    def as_flat(gradient: Any) -> np.ndarray:
        parts = gradient if isinstance(wrt, tuple | list) else (gradient,)
        return np.concatenate(
            [flat_like(g, args[p]) for g, p in zip(parts, positions, strict=True)]
        )

    if aux:
        found, problems = _attempt("grad(has_aux)", lambda: srcad.grad(f, wrt, has_aux=True)(*args))
        failures += problems
        if found is not None:
            gradient, extra = found
            failures += _close(f"grad(has_aux) {name}", as_flat(gradient), want)
            failures += _same("aux", extra, f(*args)[1])
        found, problems = _attempt(
            "value_and_grad(has_aux)", lambda: srcad.value_and_grad(f, wrt, has_aux=True)(*args)
        )
        failures += problems
        if found is not None:
            (value, extra), gradient = found
            failures += _close(f"value_and_grad(has_aux) {name}", as_flat(gradient), want)
            failures += _same("value", value, f(*args)[0]) + _same("aux", extra, f(*args)[1])
        return failures
    found, problems = _attempt("grad", lambda: srcad.grad(f, wrt)(*args))
    failures += problems
    if found is not None:
        failures += _close(f"grad {name}", as_flat(found), want)
    found, problems = _attempt("value_and_grad", lambda: srcad.value_and_grad(f, wrt)(*args))
    failures += problems
    if found is not None:
        failures += _same("value", found[0], f(*args))
        failures += _close(f"value_and_grad {name}", as_flat(found[1]), want)
    if len(positions) == 1:
        p = positions[0]
        gradient = srcad.grad(f, wrt)
        hessian_want = differences(
            lambda *a: gradient(*a), args, positions, lambda g: flat_like(g, args[p])
        )
        found, problems = _attempt("hessian", lambda: srcad.hessian(f, wrt)(*args))
        failures += problems
        if found is not None:
            size = flat(args[p]).size
            if _parts(args[p]) is None:
                got = np.reshape(np.asarray(found, float), (size, size))
            else:  # the argument's structure holding its structure of blocks
                got = _structured_block(found, args[p], args[p], size, size)
            failures += _close(f"hessian {name}", got, hessian_want)
        v = unflat(args[p], np.random.default_rng(5).standard_normal(flat(args[p]).size))
        found, problems = _attempt(
            "hessian_vector_product", lambda: srcad.hessian_vector_product(f, wrt)(*args, v)
        )
        failures += problems
        if found is not None:
            failures += _close(f"hvp {name}", flat_like(found, args[p]), hessian_want @ flat(v))
    return failures


def _same(what: str, got: Any, want: Any) -> list[tuple[str, str]]:
    if type(got) is not type(want) and not (isinstance(want, float) and isinstance(got, float)):
        kinds = f"{type(got).__name__}, the function gives {type(want).__name__}"
        return [("WRONG", f"{what}: {kinds}")]
    if not np.allclose(flat(got), flat(want), rtol=1e-12, atol=1e-14):
        return [("WRONG", f"{what}: {got!r}, the function gives {want!r}")]
    return []


def check_case(directory: Path, index: int, case: api_audit_cases.Case) -> list[tuple[str, str]]:
    module = _module(directory, f"api_audit_case_{index}", case.source)
    f = module.f
    args = case.args(module)
    failures: list[tuple[str, str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = f(*args)
        for wrt in case.wrt:
            positions = _positions(case, wrt, f)
            if case.scalar or case.aux:
                failures += _gradient_checks(f, args, wrt, positions, case.aux)
            if case.aux:
                continue
            want = differences(f, args, positions, flat)
            for mode in ("reverse", "forward"):
                jacobian = srcad.jacobian(f, wrt, mode=mode)
                found, problems = _attempt(f"jacobian {mode}", lambda: jacobian(*args))  # noqa: B023
                failures += problems
                if found is not None:
                    got = _jacobian_matrix(found, y, args, positions, wrt)
                    failures += _close(f"jacobian {mode} wrt={wrt!r}", got, want)
        if case.aux:
            return failures
        positions = [i for i, a in enumerate(args) if flat(a).size]
        rng = np.random.default_rng(3)
        y_bar = unflat(y, rng.standard_normal(flat(y).size), zero=srcad.ZeroTangent())
        found, problems = _attempt("vjp", lambda: srcad.vjp(f, *args))
        failures += problems
        if found is not None:
            value, pullback = found
            failures += _same("vjp value", value, y)
            bars, problems = _attempt("pullback", lambda: pullback(y_bar))
            failures += problems
            if bars is not None:
                got = np.concatenate([flat_like(bars[p], args[p]) for p in positions])
                want = differences(f, args, positions, flat).T @ flat(y_bar)
                failures += _close("vjp", got, want)
        tangents = tuple(
            unflat(a, rng.standard_normal(flat(a).size), zero=srcad.NoTangent())
            if flat(a).size
            else srcad.NoTangent()
            for a in args
        )
        found, problems = _attempt("jvp", lambda: srcad.jvp(f, args, tangents))
        failures += problems
        if found is not None:
            value, y_dot = found
            failures += _same("jvp value", value, y)
            want = differences(f, args, positions, flat) @ np.concatenate(
                [flat(tangents[p]) for p in positions]
            )
            failures += _close("jvp", flat_like(y_dot, y), want)
    return failures


def _jacobian_matrix(found: Any, y: Any, args: tuple[Any, ...], positions: list[int],
                     wrt: Any) -> np.ndarray:  # fmt: skip
    """A Jacobian as srcad gives it (per argument, an array of the result's shape times the
    argument's; for a structure, its leaves' blocks in its structure) as (outputs, inputs)."""
    blocks = found if isinstance(wrt, tuple | list) else (found,)
    rows = flat(y).size
    columns = []
    for block, p in zip(blocks, positions, strict=True):
        size = flat(args[p]).size
        if _parts(args[p]) is None and (_parts(y) is None or isinstance(block, np.ndarray)):
            # (a list of arrays of one shape: the array NumPy reads it as, its layout)
            columns.append(np.reshape(np.asarray(block, float), (rows, size)))
        else:
            columns.append(_structured_block(block, y, args[p], rows, size))
    return np.concatenate(columns, axis=1)


def _structured_block(block: Any, y: Any, arg: Any, rows: int, size: int) -> np.ndarray:
    """A Jacobian block with a structured result or argument: the result's structure (or
    array) holding, per float leaf, the argument's structure of blocks (JAX's layout)."""
    matrix = np.zeros((rows, size))
    row = 0
    for y_leaf, y_block in _leaf_pairs(y, block):
        y_size = int(np.size(y_leaf))
        column = 0
        for a_leaf, a_block in _leaf_pairs(arg, y_block):
            a_size = int(np.size(a_leaf))
            if not isinstance(a_block, AbstractZero):
                matrix[row : row + y_size, column : column + a_size] = np.reshape(
                    np.asarray(a_block, float), (y_size, a_size)
                )
            column += a_size
        row += y_size
    return matrix


def _leaf_pairs(primal: Any, value: Any) -> list[tuple[Any, Any]]:
    found = _parts(primal)
    if found is None:
        return [(primal, value)] if _is_float_leaf(primal) else []
    pairs = []
    for key, part in found:
        if isinstance(value, AbstractZero):
            sub = value
        elif isinstance(value, dict | tuple | list):
            sub = value[key]
        else:
            sub = getattr(value, key)
        pairs += _leaf_pairs(part, sub)
    return pairs


_RANK = {"pass": 0, "refused": 1, "WRONG": 2, "CRASH": 2}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", default="", help="only cases whose name contains this")
    parser.add_argument("--quiet", action="store_true", help="print failures only")
    options = parser.parse_args(argv)
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as name:
        for index, case in enumerate(api_audit_cases.CASES):
            if options.only not in case.name:
                continue
            try:
                failures = check_case(Path(name), index, case)
            except Exception:
                failures = [("CRASH", "harness: " + traceback.format_exc(limit=-2))]
            outcome = "pass"
            for kind, message in failures:
                print(f"{kind:8} {case.name}\n         {message}")
                if _RANK[kind] > _RANK[outcome]:
                    outcome = kind
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome == "pass" and not options.quiet:
                print(f"pass     {case.name}")
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("WRONG") or counts.get("CRASH") else 0


if __name__ == "__main__":
    raise SystemExit(main())

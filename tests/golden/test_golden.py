"""Emitted source of a few functions, compared with golden text (set SRCAD_UPDATE_GOLDEN=1 to
rewrite the files after an intended change)."""

import importlib.util
import inspect
import os
import pathlib
import subprocess
import sys

import pytest

import srcad
from srcad.defaults import COMPILER
from srcad.signatures import parse_signature
from srcad.requests import Request
from srcad.passes.testing import show_reverse

HERE = pathlib.Path(__file__).parent
NAMES = [
    "sin_times", "logistic", "sum3", "rebind_and_unpack", "inactive_parts",
    "mse", "sum_array", "branches", "calls_square", "newton_sqrt", "guarded_log",
]  # fmt: skip
WRT = {"inactive_parts": ("x",)}
# Functions whose rules specialised for these argument kinds are golden too: before the
# optimising passes (`NAME.unoptimised.txt`: rule calls) and after (`NAME.optimised.txt`:
# inlined derivatives, copies folded, in-place accumulation into one buffer).
KINDS = {
    "mse": "float[:], float[:]",
    "sum3": "float[:]",
    "logistic": "float[:], float[:, :], float[:]",
    "sin_times": "float, float",
    "rebind_and_unpack": "float, float",
    "branches": "float",
    "sum_array": "float[:]",
    "dead_adjoints": "float, float, float",
    "rosenbrock": "float[:]",
    "newton_sqrt": "float",
    "guarded_log": "float[:]",
}
# Rules for these parameters only (default: all of them).
OPTIMISED_WRT = {"dead_adjoints": ("x",)}


def load_functions():
    spec = importlib.util.spec_from_file_location("golden_functions", HERE / "functions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


functions = load_functions()


@pytest.mark.parametrize("name", NAMES)
def test_emitted_source_matches_golden_text(name):
    text = srcad.source(getattr(functions, name), wrt=WRT.get(name))
    golden = HERE / f"{name}.reverse.txt"
    if os.environ.get("SRCAD_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def _golden(name, text):
    golden = HERE / name
    if os.environ.get("SRCAD_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


@pytest.mark.parametrize("name", sorted(KINDS))
def test_optimised_source_matches_golden_text(name):
    wrt = OPTIMISED_WRT.get(name)
    kinds = parse_signature(KINDS[name])
    text = COMPILER.sources(getattr(functions, name), wrt, Request.rrule(kinds))
    _golden(f"{name}.optimised.txt", text)


@pytest.mark.parametrize("name", sorted(KINDS))
def test_unoptimised_source_matches_golden_text(name):
    source = inspect.getsource(getattr(functions, name))
    wrt = OPTIMISED_WRT.get(name)
    text = show_reverse(source, wrt, kinds=KINDS[name], optimise=False)
    _golden(f"{name}.unoptimised.txt", text)


@pytest.mark.parametrize("name", ["mse", "branches", "sin_times"])
def test_gradient_function_matches_golden_text(name):
    """`grad_f`, what `grad` calls: the rule and its pullback fused, the seed folded in."""
    function = getattr(functions, name)
    kinds = parse_signature(KINDS[name])
    text = COMPILER.compiled(function, None, Request.grad(kinds)).source
    _golden(f"{name}.gradient.txt", text)


@pytest.mark.parametrize("name", ["mse", "logistic", "sum3", "rosenbrock", "newton_sqrt"])
def test_gradient_only_function_matches_golden_text(name):
    """`grad_f` for `grad` alone: the value left out where it is proven a float, with the
    work done only for it, and the `sum_to` calls that shapes prove no-ops (compare
    `NAME.gradient.txt`, which computes the value)."""
    function = getattr(functions, name)
    kinds = parse_signature(KINDS[name])
    fused = COMPILER.compiled(function, None, Request.grad(kinds))
    _golden(f"{name}.gradient.txt", fused.source)
    alone = COMPILER.compiled(function, None, Request.grad(kinds, value=False))
    _golden(f"{name}.gradient_only.txt", alone.source)


def test_same_text_in_another_process():
    path = str(HERE / "functions.py")
    script = (
        "import importlib.util, sys, srcad\n"
        f"spec = importlib.util.spec_from_file_location('golden_functions', {path!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "sys.stdout.write(srcad.source(m.logistic))\n"
    )
    env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONHASHSEED": "random"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd="/",
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] == srcad.source(functions.logistic)


def test_constants_callees_and_zip_match_golden_text():
    """Issue 19: a module constant read once on entry (its type guarded), `zip` over arrays
    as a loop over indices, and the helper compiled for the floats it is called with and
    with respect to `r` alone, since the call passes a constant `delta`
    (`robust_fit.optimised.txt` holds the helper's specialised rule after the caller's)."""
    kinds = parse_signature("float[:], float[:], float[:]")
    text = COMPILER.sources(functions.robust_fit, None, Request.rrule(kinds))
    _golden("robust_fit.optimised.txt", text)
    alone = COMPILER.compiled(functions.robust_fit, None, Request.grad(kinds, value=False))
    _golden("robust_fit.gradient_only.txt", alone.source)

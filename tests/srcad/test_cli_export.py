"""`srcad export FILE:FUNC -o OUT.py`: the gradient as a module that runs without srcad,
checked against `srcad.grad` in a fresh interpreter that cannot import srcad."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import srcad

MODEL = textwrap.dedent(
    """\
    import contextlib
    import logging
    import math
    import time

    import numpy as np

    SCALE = 0.5


    def inner(a):
        return np.sin(a) * a + math.exp(-a * a)


    def middle(a, b):
        return inner(a) * b + inner(b)


    def loops(x, y):
        total = 0.0
        for i in range(x.shape[0]):
            if x[i] > 0.0:
                total = total + middle(x[i], y) * SCALE
            else:
                total = total - x[i] ** 3
        return total


    def branches(a, b):
        if a > b:
            return a * a * b
        while b < 3.0:
            b = b * 1.5 + a
        return math.sqrt(a * a + 1.0) * b


    def logistic(w, X, y):
        z = X @ w
        p = 1.0 / (1.0 + np.exp(-z))
        loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
        return loss + 0.1 * np.linalg.norm(w) ** 2 + np.sum(np.tanh(np.outer(w, w)) ** 2)


    def unused(a, b):
        return b * 3.0


    class Stopwatch:
        def __enter__(self):
            self.start = time.perf_counter()
            return self

        def __exit__(self, *exc):
            self.seconds = time.perf_counter() - self.start
            logging.debug("%.3f s", self.seconds)


    @contextlib.contextmanager
    def stage(name):
        logging.debug("enter %s", name)
        try:
            yield
        finally:
            logging.debug("leave %s", name)


    def managed(x):
        with Stopwatch() as watch, stage("one"):
            y = np.sin(x) * x
        return np.sum(y * y) + 0.0 * watch.seconds


    def imports_inside(x):
        from numpy.linalg import norm
        import math as m

        t = x * 2.0
        s = norm(t) + m.sin(x[0])
        del t
        return s
    """
)

# (function, wrt, argument maker): each exported and compared at several random points.
CASES = {
    "loops": (None, lambda r: (r.normal(size=5), float(r.normal()))),
    "branches": ("a,b", lambda r: (float(r.uniform(0.1, 2)), float(r.uniform(0.1, 2)))),
    "logistic": (None, lambda r: (r.normal(size=3), r.normal(size=(6, 3)), r.random(6))),
    "middle": ("a,b", lambda r: (float(r.normal()), float(r.normal()))),
    "unused": (None, lambda r: (float(r.normal()), float(r.normal()))),
    # (the modules it imports are made once, `local_imports`: the module's own)
    "imports_inside": (None, lambda r: (r.normal(size=4),)),
    # (the user's own managers, read from the module: `own_managers`)
    "managed": (None, lambda r: (r.normal(size=3),)),
}


def srcad_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    return subprocess.run([sys.executable, "-m", "srcad", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)  # fmt: skip


def numpy_alone(directory: Path) -> Path:
    """A folder holding NumPy alone (links to it), for a `sys.path` without srcad."""
    site = Path(np.__file__).parents[1]
    directory.mkdir(exist_ok=True)
    for name in ("numpy", "numpy.libs"):
        if (site / name).exists() and not (directory / name).exists():
            (directory / name).symlink_to(site / name)
    return directory


RUNNER = """
import json, sys
sys.path[:0] = {paths}
try:
    import srcad
except ImportError:
    pass
else:
    raise SystemExit("srcad is importable here")
import numpy as np
import {module} as exported
points = json.loads(sys.stdin.read())
results = []
for args in points:
    args = [np.array(a) if isinstance(a, list) else a for a in args]
    g = exported.grad_{name}(*args)
    g = g if isinstance(g, tuple) else (g,)
    value, pullback = exported.rrule_{name}(*args)
    results.append([[np.asarray(x, dtype=float).tolist() for x in g], float(value)])
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("export")
    (folder / "model.py").write_text(MODEL)
    (folder / "out").mkdir()
    for name, (wrt, _) in CASES.items():
        extra = ["--wrt", wrt] if wrt else []
        result = srcad_cli("export", f"model.py:{name}", "-o", f"out/grad_{name}.py", *extra,
                           cwd=folder)  # fmt: skip
        assert result.returncode == 0, result.stderr
    return folder


def _model(folder: Path) -> object:
    spec = importlib.util.spec_from_file_location("srcad_export_model", folder / "model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", list(CASES))
def test_exported_gradient_matches_grad_without_srcad(exported: Path, name: str) -> None:
    wrt, make = CASES[name]
    rng = np.random.default_rng(len(name))
    points = [make(rng) for _ in range(4)]
    paths = [str(numpy_alone(exported / "numpy_only")), str(exported), str(exported / "out")]
    runner = RUNNER.format(paths=paths, module=f"grad_{name}", name=name)
    payload = json.dumps([[np.asarray(a).tolist() for a in p] for p in points])
    run = subprocess.run([sys.executable, "-I", "-S", "-c", runner], input=payload,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    function = getattr(_model(exported), name)
    names = tuple(wrt.split(",")) if wrt else None
    expected_grad = srcad.grad(function, wrt=names) if names else srcad.grad(function)
    for point, (gradients, value) in zip(points, json.loads(run.stdout), strict=True):
        expected = expected_grad(*point)
        expected = expected if isinstance(expected, tuple) else (expected,)
        assert value == pytest.approx(float(function(*point)), rel=1e-12)
        for got, want in zip(gradients, expected, strict=True):
            np.testing.assert_allclose(got, np.asarray(want, dtype=float), rtol=1e-10, atol=1e-12)


def test_exported_module_has_the_named_rules_and_a_fingerprint(exported: Path) -> None:
    text = (exported / "out" / "grad_loops.py").read_text()
    shown = srcad_cli("show", "model.py:loops", cwd=exported).stdout
    assert shown.split("\n\n\n")[0] in text  # the rrule as `srcad show` prints it
    assert "\ndef grad_loops(*args):" in text
    assert "# srcad fingerprint: ../model.py loops " in text
    statements = [line.strip() for line in text.splitlines()]
    assert not [s for s in statements if s.startswith(("import srcad", "from srcad"))]


def test_export_check_tells_whether_the_source_drifted(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    assert srcad_cli("export", "model.py:middle", "-o", "out.py", cwd=tmp_path).returncode == 0
    assert srcad_cli("export", "--check", "out.py", cwd=tmp_path).returncode == 0
    # An unrelated function changes: still current.
    (tmp_path / "model.py").write_text(MODEL.replace("return b * 3.0", "return b * 4.0"))
    assert srcad_cli("export", "--check", "out.py", cwd=tmp_path).returncode == 0
    # A helper the gradient was compiled from changes: drifted.
    (tmp_path / "model.py").write_text(MODEL.replace("math.exp(-a * a)", "math.exp(-a)"))
    drifted = srcad_cli("export", "--check", "out.py", cwd=tmp_path)
    assert drifted.returncode == 1
    assert "model.py:inner has changed since the export" in drifted.stdout
    (tmp_path / "plain.py").write_text("x = 1\n")
    assert srcad_cli("export", "--check", "plain.py", cwd=tmp_path).returncode == 2


@pytest.mark.parametrize(
    ("body", "through"),
    [
        pytest.param("sum(map(np.sin, [x, x]))", "map_rrule", id="higher-order"),
        pytest.param("x.sum() * 2.0", "method_rrule", id="method-call"),
    ],
)
def test_export_refuses_what_it_cannot_copy_with_a_located_error(
    tmp_path: Path, body: str, through: str
) -> None:
    (tmp_path / "hof.py").write_text(f"import numpy as np\n\n\ndef f(x):\n    return {body}\n")
    result = srcad_cli("export", "hof.py:f", "-o", "out.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"srcad: error: cannot export {tmp_path / 'hof.py'}:5 (f)")
    assert through in result.stderr and "looks up srcad's rules when it runs" in result.stderr
    assert not (tmp_path / "out.py").exists()

"""The shape of the code: srcad's modules import each other without a cycle, and none is
over 700 lines.

A static scan (no module is imported): every `import` statement anywhere in a module counts,
one inside a function included, since an import deferred to a function is a cycle that
merely waits until the function runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where each package's modules are (as pyproject.toml's package-dir maps them).
PACKAGES = {"srcad": ROOT / "srcad", "srcad.rules": ROOT / "rules", "srcad.passes": ROOT / "passes"}
MAX_LINES = 700


def _modules() -> dict[str, Path]:
    """Every module of srcad by its dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _imported(name: str, path: Path) -> set[str]:
    """The srcad modules `name` imports, anywhere in its text. `from P import x` imports
    module `P.x` where that is a module, else `P` itself."""
    is_package = path.name == "__init__.py"
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names]
            targets = [t if t in MODULES else base for t in targets]
        else:
            continue
        imported |= {t for t in targets if t in MODULES and t != name}
    return imported


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph`, as the list of modules around it; None if there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_scan_sees_the_modules_and_their_imports() -> None:
    assert {"srcad.api", "srcad.compiler", "srcad.passes.base", "srcad.rules"} <= set(MODULES)
    assert "srcad.registry" in _imported("srcad.api", MODULES["srcad.api"])
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle() -> None:
    graph = {name: _imported(name, path) for name, path in MODULES.items()}
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_module_over_700_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): count
        for path in MODULES.values()
        if (count := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"

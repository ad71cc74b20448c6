"""Packaging: rules/ and passes/ install as srcad.rules and srcad.passes, and only so.

Imports run in a fresh interpreter started in /tmp with PYTHONSAFEPATH=1, so the repository
root is not on sys.path and only the installed mapping can satisfy them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
# Source directory at the repository root -> the package it installs as.
MAPPED_ROOTS = {"srcad": "srcad", "rules": "srcad.rules", "passes": "srcad.passes"}


def _run_isolated(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd="/tmp",
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize("module", ["rules", "passes"])
def test_top_level_rules_and_passes_are_not_importable(module: str) -> None:
    result = _run_isolated(
        "import sys\n"
        f"assert {str(ROOT)!r} not in sys.path, sys.path\n"
        "try:\n"
        f"    import {module}\n"
        "except ModuleNotFoundError as error:\n"
        "    print(type(error).__name__, error.name)\n"
        "else:\n"
        f"    print('imported', {module}.__file__)\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"ModuleNotFoundError {module}"


@pytest.mark.parametrize(
    ("module", "directory"),
    [
        pytest.param("srcad", "srcad", id="srcad"),
        pytest.param("srcad.rules", "rules", id="srcad.rules"),
        pytest.param("srcad.passes", "passes", id="srcad.passes"),
    ],
)
def test_mapped_packages_import_from_their_directories(module: str, directory: str) -> None:
    result = _run_isolated(
        f"import os, {module} as m\nprint(os.path.dirname(os.path.realpath(m.__file__)))"
    )
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == (ROOT / directory).resolve()


# --- pyproject lists every package --------------------------------------------------------


def _setuptools_table() -> tuple[list[str], dict[str, str]]:
    """`[tool.setuptools] packages` and `[tool.setuptools.package-dir]` from pyproject."""
    text = PYPROJECT.read_text()
    if sys.version_info < (3, 11):
        return _setuptools_table_by_regex(text)
    import tomllib

    table = tomllib.loads(text)["tool"]["setuptools"]
    return list(table["packages"]), dict(table.get("package-dir", {}))


def _setuptools_table_by_regex(text: str) -> tuple[list[str], dict[str, str]]:
    """Python 3.10 has no tomllib: read just these two simple tables."""
    packages = re.search(r"^\[tool\.setuptools\]$.*?^packages\s*=\s*\[(.*?)\]", text, re.M | re.S)
    assert packages, "no [tool.setuptools] packages in pyproject.toml"
    mapping = re.search(r"^\[tool\.setuptools\.package-dir\]$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    pairs = re.findall(r'^"([^"]*)"\s*=\s*"([^"]*)"', mapping.group(1), re.M) if mapping else []
    return re.findall(r'"([^"]+)"', packages.group(1)), dict(pairs)


PACKAGES, PACKAGE_DIR = _setuptools_table()


def _python_directories() -> list[tuple[str, Path]]:
    """Every directory under srcad/, rules/, passes/ holding .py files, with its package name."""
    found = []
    for root, package in MAPPED_ROOTS.items():
        for directory, subdirectories, files in os.walk(ROOT / root):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            if any(f.endswith(".py") for f in files):
                relative = Path(directory).relative_to(ROOT / root)
                found.append((".".join([package, *relative.parts]), Path(directory)))
    return found


def _directory_of(package: str) -> Path:
    """Where setuptools looks for `package`: the longest mapped prefix, then the rest."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in PACKAGE_DIR:
            return ROOT / PACKAGE_DIR[prefix] / Path(*parts[cut:])
    return ROOT / PACKAGE_DIR.get("", "") / Path(*parts)


DIRECTORIES = _python_directories()


@pytest.mark.parametrize(
    ("package", "directory"), DIRECTORIES, ids=[package for package, _ in DIRECTORIES]
)
def test_every_python_directory_is_a_listed_package(package: str, directory: Path) -> None:
    assert package in PACKAGES, f"{directory} holds Python files but {package} is not packaged"
    assert _directory_of(package).resolve() == directory.resolve()
    assert (directory / "__init__.py").is_file()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_listed_package_exists(package: str) -> None:
    assert (_directory_of(package) / "__init__.py").is_file()


def test_the_three_roots_are_mapped() -> None:
    assert {PACKAGE_DIR[package] for package in MAPPED_ROOTS.values()} == set(MAPPED_ROOTS)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="compares against tomllib")
def test_regex_fallback_reads_what_tomllib_reads() -> None:
    assert _setuptools_table_by_regex(PYPROJECT.read_text()) == _setuptools_table()


# --- newer Pythons ------------------------------------------------------------------------


def test_requires_python_has_no_upper_bound() -> None:
    """A cap (`<3.14`) refuses to install on every newer Python, tested or not."""
    (line,) = [x for x in PYPROJECT.read_text().splitlines() if x.startswith("requires-python")]
    specifiers = line.split("=", 1)[1].strip().strip('"').split(",")
    assert [s.strip() for s in specifiers if s.strip().startswith(("<", "~=", "=="))] == []


# The `ast` classes deprecated since Python 3.8 (`Constant` replaced them) and removed in
# 3.14, those removed earlier, and the `Constant` attributes removed with them.
REMOVED_AST_NAMES = {"Num", "Str", "Bytes", "NameConstant", "Ellipsis", "Index", "ExtSlice",
                     "Suite", "Param", "AugLoad", "AugStore"}  # fmt: skip


def _python_files() -> list[Path]:
    roots = ["srcad", "rules", "passes", "tools", "tests", "examples", "benchmarks"]
    return sorted(
        p for root in roots for p in (ROOT / root).rglob("*.py") if "golden" not in p.parts
    )


def test_no_removed_ast_class_is_used() -> None:
    """`ast.Num` and the like are gone from Python 3.14: the code reads `ast.Constant`."""
    used = [found for path in _python_files() for found in _removed_ast_names(path)]
    assert not used, used


def _removed_ast_names(path: Path) -> list[str]:
    import ast

    tree = ast.parse(path.read_text(), str(path))
    used = [
        f"{path.name}:{node.lineno}: ast.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ast"
        and node.attr in REMOVED_AST_NAMES
    ]
    used += [
        f"{path.name}:{node.lineno}: from ast import {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "ast"
        for alias in node.names
        if alias.name in REMOVED_AST_NAMES
    ]
    return used


def test_the_scan_sees_a_removed_ast_class(tmp_path: Path) -> None:
    sample = tmp_path / "old.py"
    sample.write_text("import ast\nfrom ast import Str\nnode = ast.Num(1)\n")
    assert _removed_ast_names(sample) == ["old.py:3: ast.Num", "old.py:2: from ast import Str"]

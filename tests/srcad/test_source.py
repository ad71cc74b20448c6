"""Tests for srcad/source.py: finding a function's tree in its file, and its environment."""

from __future__ import annotations

import functools
import importlib.util
import inspect
import linecache
import math
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gast
import numpy as np
import pytest

import srcad
from srcad.errors import SourceUnavailableError
from srcad.source import function_source

OFFSET = 10.0


def _logged(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        return func(*args)

    return wrapper


def _registered(*tags: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        return func

    return register


def plain(x):
    return x + OFFSET


@_logged
def wrapped(x):
    return x * 2.0


@_registered(
    "a",
    "b",
)
def multi_line_decorator(x):
    return x * 3.0


@srcad.differentiate
def differentiable(x):
    return x * 4.0


def with_docstring(x):
    """A docstring whose text
    starts at column zero, which breaks getsource + dedent."""
    y = x * 5.0
    return y


square = lambda x: x * x  # noqa: E731


def _make_closure(scale: float) -> Callable[[float], float]:
    def scaled(x):
        return x * scale + OFFSET + abs(x)

    return scaled


def _line_of(func: Callable[..., Any], text: str) -> int:
    """The line number, in this file, of the first line of `func`'s source containing `text`."""
    lines, start = inspect.getsourcelines(inspect.unwrap(func))
    return start + next(i for i, line in enumerate(lines) if text in line)


FOUND = [
    pytest.param(plain, "plain", "return x + OFFSET", id="plain"),
    # A `functools.wraps` decorator is not transparent: its wrapper is what is called (and
    # differentiated); the decorated function is found behind `__wrapped__`.
    pytest.param(wrapped, "wrapper", "return func(*args)", id="functools-wraps-decorator"),
    pytest.param(wrapped.__wrapped__, "wrapped", "return x * 2.0", id="functools-wraps-wrapped"),
    pytest.param(
        multi_line_decorator, "multi_line_decorator", "return x * 3.0", id="multi-line-decorator"
    ),
    pytest.param(differentiable, "differentiable", "return x * 4.0", id="srcad-differentiate"),
    pytest.param(with_docstring, "with_docstring", "return y", id="unindented-docstring"),
    pytest.param(square, "lambda", "lambda x: x * x", id="lambda"),
    pytest.param(_make_closure(2.0), "scaled", "return x * scale + OFFSET + abs(x)", id="closure"),
]


@pytest.mark.parametrize(("func", "name", "line_text"), FOUND)
def test_function_is_found_in_its_file(func: Any, name: str, line_text: str) -> None:
    found = function_source(func)
    assert found.filename == __file__
    assert found.node.name == name
    assert line_text in found.line(found.node.body[-1].lineno)


@pytest.mark.parametrize(
    ("func", "def_text"),
    [
        pytest.param(plain, "def plain(x):", id="plain"),
        pytest.param(wrapped.__wrapped__, "def wrapped(x):", id="decorated"),
        pytest.param(multi_line_decorator, "def multi_line_decorator(x):", id="multi-line"),
        pytest.param(square, "square = lambda x: x * x", id="lambda"),
    ],
)
def test_node_keeps_the_file_line_numbers(func: Any, def_text: str) -> None:
    found = function_source(func)
    first_line = _line_of(func, def_text)
    assert found.node.lineno == first_line
    assert def_text in found.line(first_line)


def test_lambda_becomes_a_function_returning_its_body() -> None:
    node = function_source(square).node
    assert isinstance(node, gast.FunctionDef)
    assert [type(s) for s in node.body] == [gast.Return]
    assert [a.id for a in node.args.args] == ["x"]


LOOKUPS = [
    pytest.param("scale", ("closure", 2.0), id="closure"),
    pytest.param("OFFSET", ("global", OFFSET), id="global"),
    pytest.param("abs", ("builtin", abs), id="builtin"),
    pytest.param("no_such_name", ("undefined", None), id="undefined"),
]


@pytest.mark.parametrize(("name", "expected"), LOOKUPS)
def test_lookup_of_free_names(name: str, expected: tuple[str, Any]) -> None:
    assert function_source(_make_closure(2.0)).lookup(name) == expected


def test_source_line_out_of_range_is_empty() -> None:
    found = function_source(plain)
    assert found.line(0) == ""
    assert found.line(len(found.lines) + 1) == ""


def test_diagnostic_points_into_the_file() -> None:
    found = function_source(plain)
    statement = found.node.body[0]
    diagnostic = found.diagnostic(statement, "E999", "a message", "a hint")
    assert (diagnostic.file, diagnostic.line, diagnostic.column) == (
        __file__,
        statement.lineno,
        4,
    )
    assert diagnostic.source_line.strip() == "return x + OFFSET"


# --- no source ---------------------------------------------------------------------------


def _exec_defined() -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec(compile("def made_up(x):\n    return x * 2.0\n", "<generated>", "exec"), namespace)
    return namespace["made_up"]


class CallableObject:
    def __call__(self, x: float) -> float:
        return x


UNAVAILABLE = [
    pytest.param(
        _exec_defined(), r"made_up: its source file '<generated>' cannot be read", id="exec"
    ),
    pytest.param(len, r"len: it is a builtin_function_or_method, not a Python function", id="len"),
    pytest.param(math.sin, r"sin: it is a builtin_function_or_method", id="math.sin"),
    pytest.param(np.sin, r"it is a ufunc, not a Python function", id="ufunc"),
    pytest.param(CallableObject(), r"it is a CallableObject, not a Python function", id="object"),
]


@pytest.mark.parametrize(("func", "message"), UNAVAILABLE)
def test_no_source_raises_naming_the_function(func: Any, message: str) -> None:
    with pytest.raises(SourceUnavailableError, match=message):
        function_source(func)


def test_no_source_error_says_how_to_register() -> None:
    with pytest.raises(SourceUnavailableError) as raised:
        function_source(_exec_defined())
    assert "register a rule with @srcad.rrule.register(made_up)" in str(raised.value)


@pytest.mark.parametrize(
    "run",
    [
        pytest.param(lambda f: srcad.grad(f)(1.0), id="grad"),
        pytest.param(lambda f: srcad.rrule(f, 1.0), id="rrule"),
        pytest.param(lambda f: srcad.source(f), id="source"),
    ],
)
def test_api_reports_missing_source(run: Callable[[Any], Any]) -> None:
    with pytest.raises(SourceUnavailableError, match="made_up"):
        run(_exec_defined())


two_lambdas = (lambda x: x + 1.0, lambda x: x + 2.0)


@pytest.mark.parametrize(("index", "body"), [(0, "x + 1.0"), (1, "x + 2.0")])
def test_two_lambdas_on_one_line_are_told_apart(index: int, body: str) -> None:
    """Each lambda's code is compared with what each lambda of the line compiles to (issue
    17: this was refused as ambiguous)."""
    found = function_source(two_lambdas[index])
    node = found.definition
    assert found.line(node.lineno)[node.col_offset : node.end_col_offset].endswith(body)


def _import_file(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_deleted_file_raises(tmp_path: Path) -> None:
    path = tmp_path / "gone_module.py"
    path.write_text("def vanishing(x):\n    return x * 2.0\n")
    vanishing = _import_file(path).vanishing
    path.unlink()
    linecache.checkcache(str(path))
    with pytest.raises(
        SourceUnavailableError, match=r"vanishing: its source file .* cannot be read"
    ):
        function_source(vanishing)


def test_file_that_no_longer_parses_raises(tmp_path: Path) -> None:
    path = tmp_path / "broken_module.py"
    path.write_text("def breaking(x):\n    return x * 2.0\n")
    breaking = _import_file(path).breaking
    path.write_text("def breaking(x:\n")
    linecache.checkcache(str(path))
    with pytest.raises(SourceUnavailableError, match=r"breaking: its file .* does not parse"):
        function_source(breaking)


def test_file_edited_after_import_raises_when_definition_moved(tmp_path: Path) -> None:
    path = tmp_path / "edited_module.py"
    path.write_text("def moving(x):\n    return x * 2.0\n")
    moving = _import_file(path).moving
    path.write_text("\n\n\ndef moving(x):\n    return x * 2.0\n")
    linecache.checkcache(str(path))
    with pytest.raises(
        SourceUnavailableError, match=r"no definition of it at .*edited_module.py:1"
    ):
        function_source(moving)

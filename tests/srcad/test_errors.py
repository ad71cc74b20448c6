"""Tests for srcad/errors.py, and for the located diagnostics the compiler raises with them.

Expected line numbers are computed from this file's own source (`inspect.getsourcelines`),
so editing the file above a function does not break its test.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import srcad
from srcad.errors import (
    Diagnostic,
    MissingRuleError,
    MutationError,
    SourceUnavailableError,
    SrcadError,
    UnsupportedSyntaxError,
)


def _line_of(func: Callable[..., Any], text: str) -> int:
    """The line number, in this file, of the first line of `func`'s source containing `text`."""
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _column_of(func: Callable[..., Any], text: str) -> int:
    """The 0-based column where `text` starts on its line of `func`'s source."""
    lines, _ = inspect.getsourcelines(func)
    return next(line.index(text) for line in lines if text in line)


# --- Diagnostic --------------------------------------------------------------------------

FULL = Diagnostic(
    file="pkg/model.py",
    line=12,
    column=8,
    code="E101",
    message="a `for` loop is not supported here",
    hint="rewrite it as straight-line code",
    source_line="        for i in range(n):\n",
)


def test_headline_is_compiler_style_with_1_based_column() -> None:
    assert FULL.headline() == "pkg/model.py:12:9: error[E101]: a `for` loop is not supported here"


def test_format_shows_source_line_caret_and_hint() -> None:
    assert FULL.format().splitlines() == [
        "pkg/model.py:12:9: error[E101]: a `for` loop is not supported here",
        "    for i in range(n):",
        "    ^",
        "  hint: rewrite it as straight-line code",
    ]


FORMATS = [
    pytest.param(
        Diagnostic("f.py", 3, 11, "E102", "bad operator", "", "    return x // 2.0\n"),
        ["f.py:3:12: error[E102]: bad operator", "    return x // 2.0", "           ^"],
        id="caret-mid-line",
    ),
    pytest.param(
        Diagnostic("f.py", 1, 0, "E201", "unknown name", "define it", "y = z\n"),
        ["f.py:1:1: error[E201]: unknown name", "    y = z", "    ^", "  hint: define it"],
        id="column-zero",
    ),
    pytest.param(
        Diagnostic("f.py", 2, 4, "E101", "no source line", "a hint"),
        ["f.py:2:5: error[E101]: no source line", "  hint: a hint"],
        id="no-source-line",
    ),
    pytest.param(
        Diagnostic("f.py", 2, 4, "E101", "headline only"),
        ["f.py:2:5: error[E101]: headline only"],
        id="headline-only",
    ),
    pytest.param(
        Diagnostic("f.py", 5, 1, "E101", "tab", "", "\treturn x\n"),
        ["f.py:5:2: error[E101]: tab", "    return x", "    ^"],
        id="tab-indent",
    ),
]


@pytest.mark.parametrize(("diagnostic", "lines"), FORMATS)
def test_format(diagnostic: Diagnostic, lines: list[str]) -> None:
    assert diagnostic.format().splitlines() == lines


def test_to_dict_uses_1_based_column() -> None:
    assert FULL.to_dict() == {
        "file": "pkg/model.py",
        "line": 12,
        "column": 9,
        "code": "E101",
        "message": "a `for` loop is not supported here",
        "hint": "rewrite it as straight-line code",
    }


# --- SrcadError --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error_type",
    [SourceUnavailableError, UnsupportedSyntaxError, MissingRuleError, MutationError],
    ids=lambda t: t.__name__,
)
def test_every_error_is_a_srcad_error(error_type: type) -> None:
    assert issubclass(error_type, SrcadError)
    assert getattr(srcad, error_type.__name__) is error_type


def test_error_without_diagnostics_is_its_message() -> None:
    error = SrcadError("something went wrong")
    assert str(error) == "something went wrong"
    assert error.diagnostics == []


def test_error_renders_message_then_every_diagnostic() -> None:
    second = Diagnostic("g.py", 1, 0, "E201", "second problem")
    error = UnsupportedSyntaxError("cannot differentiate f: 2 problems", [FULL, second])
    assert str(error) == "\n".join(
        ["cannot differentiate f: 2 problems", FULL.format(), second.format()]
    )
    assert error.diagnostics == [FULL, second]


# --- located diagnostics from the compiler ------------------------------------------------


def with_for(x):
    s = 0.0
    for _ in range(3):
        s = s + x
    return s


def with_while(x):
    while x < 1.0:
        x = x * 2.0
    return x


def with_nested_loop(x):
    y = x * 2.0
    for _ in range(2):
        for _ in range(2):
            y = y * x
    return y


def with_three_problems(x):
    for _ in range(2):
        x = x * 2.0
    while x > 10.0:
        x = x / 2.0
    try:
        y = x + 1.0
    except ValueError:
        y = x
    return y


def with_floor_division(x):
    y = x * 2.0
    return y // 3.0


def with_non_ascii(x):
    y = x * 2.0
    return ("π≈3.14", y // 3.0)


def with_item_assignment(x):
    y = x * 2.0
    y[0] = 1.0
    return y


def with_loop_and_mutation(x):
    y = x * 2.0
    y[0] = 1.0
    for _ in range(2):
        y = y * x
    return y


# (function, error type, [(code, text on the offending line, start of the node), ...])
LOCATED = [
    pytest.param(
        with_for, UnsupportedSyntaxError, [("E101", "for _ in range(3):", "for")], id="for"
    ),
    pytest.param(
        with_while, UnsupportedSyntaxError, [("E101", "while x < 1.0:", "while")], id="while"
    ),
    pytest.param(
        with_nested_loop,
        UnsupportedSyntaxError,
        [("E101", "for _ in range(2):", "for")],
        id="nested-for-reported-once",
    ),
    pytest.param(
        with_three_problems,
        UnsupportedSyntaxError,
        [
            ("E101", "for _ in range(2):", "for"),
            ("E101", "while x > 10.0:", "while"),
            ("E101", "try:", "try"),
        ],
        id="all-problems-at-once",
    ),
    pytest.param(
        with_floor_division,
        UnsupportedSyntaxError,
        [("E102", "return y // 3.0", "y // 3.0")],
        id="expression-column",
    ),
    pytest.param(
        with_non_ascii,
        UnsupportedSyntaxError,
        [("E102", 'return ("π≈3.14", y // 3.0)', "y // 3.0")],
        id="column-in-characters-not-bytes",
    ),
    pytest.param(
        with_item_assignment, MutationError, [("E301", "y[0] = 1.0", "y[0]")], id="mutation"
    ),
    pytest.param(
        with_loop_and_mutation,
        UnsupportedSyntaxError,
        [("E301", "y[0] = 1.0", "y[0]"), ("E101", "for _ in range(2):", "for")],
        id="mutation-and-loop",
    ),
]


def _raised(func: Callable[..., Any]) -> SrcadError:
    with pytest.raises(SrcadError) as raised:
        srcad.grad(func)(1.0)
    return raised.value


def _expected(func: Callable[..., Any], code: str, line_text: str, start: str) -> Diagnostic:
    line = _line_of(func, line_text)
    lines, first = inspect.getsourcelines(func)
    return Diagnostic(
        file=__file__,
        line=line,
        column=_column_of(func, line_text) + line_text.index(start),
        code=code,
        message="",
        source_line=lines[line - first],
    )


@pytest.mark.parametrize(("func", "error_type", "problems"), LOCATED)
def test_diagnostics_carry_file_line_and_column(
    func: Callable[..., Any], error_type: type, problems: list[tuple[str, str, str]]
) -> None:
    error = _raised(func)
    expected = [_expected(func, *problem) for problem in problems]
    assert type(error) is error_type
    assert [(d.file, d.line, d.column, d.code, d.source_line) for d in error.diagnostics] == [
        (d.file, d.line, d.column, d.code, d.source_line) for d in expected
    ]


@pytest.mark.parametrize(("func", "error_type", "problems"), LOCATED)
def test_error_message_names_the_function_and_counts(
    func: Callable[..., Any], error_type: type, problems: list[Any]
) -> None:
    count = len(problems)
    plural = "s" if count > 1 else ""
    assert (
        _raised(func).message
        == f"cannot differentiate {func.__qualname__}: {count} problem{plural}"
    )


def test_loop_diagnostic_reads_like_a_compiler_error() -> None:
    (diagnostic,) = _raised(with_for).diagnostics
    line = _line_of(with_for, "for _ in range(3):")
    assert diagnostic.format().splitlines() == [
        f"{__file__}:{line}:5: error[E101]: a `for` loop is not supported here",
        "    for _ in range(3):",
        "    ^",
        "  hint: rewrite it as straight-line code, or register a rule for this function with "
        "@srcad.rrule.register",
    ]


def test_rule_lifts_the_restriction() -> None:
    def looping(x):
        s = 0.0
        for _ in range(3):
            s = s + x
        return s

    def looping_caller(x):
        y = looping(x)
        return y * 2.0

    with pytest.raises(UnsupportedSyntaxError):
        srcad.grad(looping)(1.0)

    @srcad.rrule.register(looping)
    def looping_rrule(x):
        def looping_pullback(y_bar):
            return srcad.NoTangent(), 3.0 * y_bar

        return looping(x), looping_pullback

    assert srcad.grad(looping_caller)(1.0) == 6.0

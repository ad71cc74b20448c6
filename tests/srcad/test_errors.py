"""Tests for srcad/errors.py, and for the located diagnostics the compiler raises with them.

Expected line numbers are computed from this file's own source (`inspect.getsourcelines`),
so editing the file above a function does not break its test.
"""

from __future__ import annotations

import contextlib
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
    message="a `with` statement is not supported here",
    hint="register a rule with @srcad.rrule.register(model)",
    source_line="        with open(path) as f:\n",
)


def test_headline_is_compiler_style_with_1_based_column() -> None:
    assert FULL.headline() == (
        "pkg/model.py:12:9: error[E101]: a `with` statement is not supported here"
    )


def test_format_shows_source_line_caret_and_hint() -> None:
    assert FULL.format().splitlines() == [
        "pkg/model.py:12:9: error[E101]: a `with` statement is not supported here",
        "    with open(path) as f:",
        "    ^",
        "  hint: register a rule with @srcad.rrule.register(model)",
    ]


FORMATS = [
    pytest.param(
        Diagnostic("f.py", 3, 11, "E102", "bad operator", "", "    return x ^ 2.0\n"),
        ["f.py:3:12: error[E102]: bad operator", "    return x ^ 2.0", "           ^"],
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
        "message": "a `with` statement is not supported here",
        "hint": "register a rule with @srcad.rrule.register(model)",
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


def with_try(x):
    try:
        y = x * 2.0
    except ValueError:
        y = x
    return y


def with_with(x):
    y = x * 2.0
    with contextlib.suppress(ValueError):
        y = y * x
    return y


def with_loop_else(x):
    for _ in range(3):
        x = x * 2.0
    else:
        x = x + 1.0
    return x


def with_try_in_with(x):
    with contextlib.suppress(ValueError):
        try:
            x = x * 2.0
        except ArithmeticError:
            x = x + 1.0
    return x


def with_try_in_loop(x):
    s = 0.0
    for _ in range(3):
        try:
            s += x
        except ValueError:
            s = s - x
    return s


def with_every_statement(x):
    global _counter
    y = x * 3.0
    _counter = y  # a differentiated value: its derivative would be lost
    assert y > 0.0
    if y > 1.0:
        import math

        raise ValueError(f"too big: more than {math.pi}")

    def double(z):
        return z * 2.0

    class Box:
        value = y  # not a constant: the class would differ from call to call

    if y > 2.0:
        z = y
    del z  # bound only where `y > 2.0`
    return y


def with_caret_for_power(x):
    y = x * 2.0
    return sum((z := y) for _ in range(3))  # noqa: F841 (refused: the point)


def with_non_ascii(x):
    y = x * 2.0
    return ("π≈3.14", sum((z := y) for _ in range(3)))  # noqa: F841


def with_item_assignment(x):
    y = x * 2.0
    x[0] = 1.0
    return y


def with_mutation_and_try(x):
    y = x * 2.0
    x[0] = 1.0
    try:
        y = y * x
    except ValueError:
        y = x
    return y


def _unsupported(what: str) -> str:
    return f"{what} is not supported here"


SUPPRESS = (
    "a `with contextlib.suppress(...)` is not supported: it swallows an exception, so which "
    "statements ran depends on where one was raised"
)


ITEM_ASSIGNMENT = (
    "item assignment mutates a value, which srcad cannot differentiate, as it may be shared: "
    "`x` is a parameter, and may be the caller's array"
)
CARET = "an assignment expression (`:=`) is not supported here"

# (function, error type, [(code, text on the offending line, start of the node, message), ...])
LOCATED = [
    pytest.param(
        with_try,
        UnsupportedSyntaxError,
        [("E101", "try:", "try", _unsupported("a `try` statement"))],
        id="try",
    ),
    pytest.param(
        with_with,
        UnsupportedSyntaxError,
        [("E101", "with contextlib", "with", SUPPRESS)],
        id="with",
    ),
    pytest.param(
        with_try_in_with,
        UnsupportedSyntaxError,
        [("E101", "with contextlib", "with", SUPPRESS)],
        id="nested-try-reported-once",
    ),
    pytest.param(
        with_try_in_loop,
        UnsupportedSyntaxError,
        [("E101", "try:", "try", _unsupported("a `try` statement"))],
        id="try-in-loop-body",
    ),
    pytest.param(
        with_every_statement,
        UnsupportedSyntaxError,
        [
            (
                "E101",
                "global _counter",
                "global",
                "a `global` name is supported assigned only `NAME = value` or `NAME += value`, "
                "of constants, such names and operators (no differentiated value: its "
                "derivative would be lost)",
            ),
            (
                "E101",
                "import math",
                "import",
                _unsupported(
                    "an `import` inside a block, or of a name the function binds otherwise or "
                    "reads before it,"
                ),
            ),
            (
                "E101",
                "class Box:",
                "class",
                "a class defined inside the function is not supported here: a class attribute "
                "that is not a constant",
            ),
            (
                "E101",
                "del z",
                "del",
                _unsupported("a `del` of a name read after it, or not surely bound where it runs,"),
            ),
        ],
        id="all-problems-at-once",
    ),
    pytest.param(
        with_caret_for_power,
        UnsupportedSyntaxError,
        [("E102", "return sum((z := y) for _ in range(3))", "z := y", CARET)],
        id="expression-column",
    ),
    pytest.param(
        with_non_ascii,
        UnsupportedSyntaxError,
        [("E102", 'return ("π≈3.14", sum((z := y) for _ in range(3)))', "z := y", CARET)],
        id="column-in-characters-not-bytes",
    ),
    pytest.param(
        with_item_assignment,
        MutationError,
        [("E301", "x[0] = 1.0", "x[0]", ITEM_ASSIGNMENT)],
        id="mutation",
    ),
    pytest.param(
        with_mutation_and_try,
        UnsupportedSyntaxError,
        [
            ("E301", "x[0] = 1.0", "x[0]", ITEM_ASSIGNMENT),
            ("E101", "try:", "try", _unsupported("a `try` statement")),
        ],
        id="mutation-and-try",
    ),
]


def _raised(func: Callable[..., Any]) -> SrcadError:
    with pytest.raises(SrcadError) as raised:
        srcad.grad(func)(1.0)
    return raised.value


def _expected(
    func: Callable[..., Any], code: str, line_text: str, start: str, message: str
) -> Diagnostic:
    line = _line_of(func, line_text)
    lines, first = inspect.getsourcelines(func)
    return Diagnostic(
        file=__file__,
        line=line,
        column=_column_of(func, line_text) + line_text.index(start),
        code=code,
        message=message,
        source_line=lines[line - first],
    )


@pytest.mark.parametrize(("func", "error_type", "problems"), LOCATED)
def test_diagnostics_carry_file_line_and_column(
    func: Callable[..., Any], error_type: type, problems: list[tuple[str, str, str, str]]
) -> None:
    error = _raised(func)
    expected = [_expected(func, *problem) for problem in problems]
    assert type(error) is error_type
    assert [
        (d.file, d.line, d.column, d.code, d.message, d.source_line) for d in error.diagnostics
    ] == [(d.file, d.line, d.column, d.code, d.message, d.source_line) for d in expected]


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


# (function, text on the offending line, 1-based column, message, hint)
READABLE = [
    pytest.param(
        with_try,
        "try:",
        5,
        "a `try` statement is not supported here",
        "register a rule with @srcad.rrule.register(with_try)",
        id="try",
    ),
    pytest.param(
        with_with,
        "with contextlib.suppress(ValueError):",
        5,
        SUPPRESS,
        "register a rule with @srcad.rrule.register(with_with)",
        id="with",
    ),
]


def test_a_loop_else_clause_is_no_longer_refused() -> None:
    """`for ... else` runs its `else` where no `break` left the loop (issue 20)."""
    assert srcad.grad(with_loop_else)(1.5) == pytest.approx(8.0)


@pytest.mark.parametrize(("func", "line_text", "column", "message", "hint"), READABLE)
def test_statement_diagnostic_reads_like_a_compiler_error(
    func: Callable[..., Any], line_text: str, column: int, message: str, hint: str
) -> None:
    (diagnostic,) = _raised(func).diagnostics
    line = _line_of(func, line_text)
    assert diagnostic.format().splitlines() == [
        f"{__file__}:{line}:{column}: error[E101]: {message}",
        f"    {line_text}",
        "    ^",
        f"  hint: {hint}",
    ]


def test_rule_lifts_the_restriction() -> None:
    def guarded(x):
        try:
            y = x * 3.0
        except ValueError:
            y = x
        return y

    def guarded_caller(x):
        y = guarded(x)
        return y * 2.0

    with pytest.raises(UnsupportedSyntaxError):
        srcad.grad(guarded)(1.0)

    @srcad.rrule.register(guarded)
    def guarded_rrule(x):
        def guarded_pullback(y_bar):
            return srcad.NoTangent(), 3.0 * y_bar

        return guarded(x), guarded_pullback

    assert srcad.grad(guarded_caller)(1.0) == 6.0


# --- the emitter's self-check ------------------------------------------------------------


def _emitted_then_checked(x):
    return x * 2.0 + 1.0


def test_text_that_does_not_parse_back_to_the_tree_is_an_internal_error(monkeypatch):
    """Were the printer to write something other than the tree (here: a constant it
    misprints), the emitter refuses the text instead of compiling a wrong gradient."""
    from srcad import syntax

    printed = syntax.unparse

    def misprinted(tree):
        return printed(tree).replace("2.0", "3.0")

    monkeypatch.setattr(syntax, "unparse", misprinted)
    with pytest.raises(SrcadError, match="does not parse back to the tree"):
        srcad.defaults.COMPILER.compiled(_emitted_then_checked, None, srcad.defaults.Request())

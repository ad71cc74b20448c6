"""Python text for the gast trees the compiler emits: the same text as `gast.unparse`, for
the constructs emitted code is made of.

A fast path, kept for its profile: cProfile of compiling robust_fit_loss
(`benchmarks/profile_compile.py`) has printing its 150-line gradient function take 0.5 ms
here against 4.1 ms through `gast.unparse` (which converts the tree back to Python's
`ast` first, then prints it with `ast.unparse`): without it, compiling would take 15% more.

`syntax.unparse` is the entry point; it falls back to `gast.unparse` for a tree holding
anything this printer leaves alone (`UnprintableError`): comprehensions, f-strings, imports,
`with`, `try`, docstrings, type comments. A test compares the two printers on whole
modules.

Each expression is printed for the precedence of where it stands (`TUPLE` for an
assignment target, `ATOM` for the value of an attribute...), and put in parentheses where
its own precedence is lower; the levels are the grammar's, as in `ast.unparse`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import gast

# Precedence levels, loosest first.
TUPLE, YIELD, TEST, OR, AND, NOT, CMP = 2, 3, 4, 5, 6, 7, 8
EXPR = BOR = 9
BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, AWAIT, ATOM = range(10, 19)

BINARY: dict[type, tuple[str, int]] = {
    gast.Add: ("+", ARITH), gast.Sub: ("-", ARITH), gast.Mult: ("*", TERM),
    gast.MatMult: ("@", TERM), gast.Div: ("/", TERM), gast.Mod: ("%", TERM),
    gast.FloorDiv: ("//", TERM), gast.LShift: ("<<", SHIFT), gast.RShift: (">>", SHIFT),
    gast.BitOr: ("|", BOR), gast.BitXor: ("^", BXOR), gast.BitAnd: ("&", BAND),
    gast.Pow: ("**", POWER),
}  # fmt: skip
UNARY: dict[type, tuple[str, int]] = {
    gast.Not: ("not ", NOT), gast.Invert: ("~", FACTOR), gast.UAdd: ("+", FACTOR),
    gast.USub: ("-", FACTOR),
}  # fmt: skip
COMPARISONS: dict[type, str] = {
    gast.Eq: " == ", gast.NotEq: " != ", gast.Lt: " < ", gast.LtE: " <= ", gast.Gt: " > ",
    gast.GtE: " >= ", gast.Is: " is ", gast.IsNot: " is not ", gast.In: " in ",
    gast.NotIn: " not in ",
}  # fmt: skip

# A float literal too large to be a float: how infinities are written.
_INFINITY = "1e" + repr(sys.float_info.max_10_exp + 1)


class UnprintableError(Exception):
    """A node this printer leaves to `gast.unparse`."""


def lines(tree: gast.AST, comment_mark: str) -> list[str]:
    """The lines of `tree` (a module or a statement), without line ends; an expression
    statement holding a one-line string that starts with `comment_mark` is the comment
    `# <rest of the string>`."""
    printer = _Printer(comment_mark)
    if isinstance(tree, gast.Module):
        if tree.type_ignores:
            raise UnprintableError("type: ignore comments")
        printer.block(tree.body, "")
    else:
        printer.statement(tree, "")
    return printer.lines


def expression(node: gast.AST, precedence: int = TEST) -> str:
    """The text of an expression standing where `precedence` is expected."""
    printer = _EXPRESSIONS.get(type(node))
    if printer is None:
        raise UnprintableError(type(node).__name__)
    return printer(node, precedence)


def _parenthesised(text: str, own: int, expected: int) -> str:
    return f"({text})" if expected > own else text


def _binary(node: gast.BinOp, precedence: int) -> str:
    operator, own = BINARY[type(node.op)]
    left, right = (own + 1, own) if operator == "**" else (own, own + 1)
    text = f"{expression(node.left, left)} {operator} {expression(node.right, right)}"
    return _parenthesised(text, own, precedence)


def _unary(node: gast.UnaryOp, precedence: int) -> str:
    operator, own = UNARY[type(node.op)]
    return _parenthesised(operator + expression(node.operand, own), own, precedence)


def _compare(node: gast.Compare, precedence: int) -> str:
    parts = [expression(node.left, CMP + 1)]
    for operator, operand in zip(node.ops, node.comparators, strict=True):
        parts += (COMPARISONS[type(operator)], expression(operand, CMP + 1))
    return _parenthesised("".join(parts), CMP, precedence)


def _boolean(node: gast.BoolOp, precedence: int) -> str:
    # Each operand is printed for a level one tighter than the one before it (as
    # `ast.unparse` does): `a and (b and c)` keeps its parentheses.
    operator, own = (" and ", AND) if isinstance(node.op, gast.And) else (" or ", OR)
    text = operator.join(
        expression(value, own + index) for index, value in enumerate(node.values, 1)
    )
    return _parenthesised(text, own, precedence)


def _conditional(node: gast.IfExp, precedence: int) -> str:
    text = (
        f"{expression(node.body, TEST + 1)} if {expression(node.test, TEST + 1)} "
        f"else {expression(node.orelse, TEST)}"
    )
    return _parenthesised(text, TEST, precedence)


def _lambda(node: gast.Lambda, precedence: int) -> str:
    parameters = _arguments(node.args)
    head = f"lambda {parameters}" if parameters else "lambda"
    return _parenthesised(f"{head}: {expression(node.body, TEST)}", TEST, precedence)


def _items(elements: list[gast.AST]) -> str:
    """Comma-separated elements, a lone one with its trailing comma."""
    if len(elements) == 1:
        return expression(elements[0]) + ","
    return ", ".join([expression(element) for element in elements])


def _tuple(node: gast.Tuple, precedence: int) -> str:
    if not node.elts or precedence > TUPLE:
        return f"({_items(node.elts)})"
    return _items(node.elts)


def _list(node: gast.List, precedence: int) -> str:
    return "[" + ", ".join([expression(element) for element in node.elts]) + "]"


def _set(node: gast.Set, precedence: int) -> str:
    if not node.elts:
        return "{*()}"  # `{}` is a dict
    return "{" + ", ".join([expression(element) for element in node.elts]) + "}"


def _dict(node: gast.Dict, precedence: int) -> str:
    items = [
        f"**{expression(value, EXPR)}" if key is None else
        f"{expression(key)}: {expression(value)}"
        for key, value in zip(node.keys, node.values, strict=True)
    ]  # fmt: skip
    return "{" + ", ".join(items) + "}"


def _call(node: gast.Call, precedence: int) -> str:
    arguments = [expression(argument) for argument in node.args]
    arguments += [_keyword(keyword) for keyword in node.keywords]
    return f"{expression(node.func, ATOM)}({', '.join(arguments)})"


def _keyword(node: gast.keyword) -> str:
    prefix = "**" if node.arg is None else node.arg + "="
    return prefix + expression(node.value)


def _starred(node: gast.Starred, precedence: int) -> str:
    return "*" + expression(node.value, EXPR)


def _attribute(node: gast.Attribute, precedence: int) -> str:
    value = node.value
    # `1.real` does not parse: an integer literal is followed by a space.
    space = " " if isinstance(value, gast.Constant) and isinstance(value.value, int) else ""
    return f"{expression(value, ATOM)}{space}.{node.attr}"


def _subscript(node: gast.Subscript, precedence: int) -> str:
    index = node.slice
    if isinstance(index, gast.Tuple) and index.elts:
        inside = _items(index.elts)  # `a[i, j]`, without parentheses
    else:
        inside = expression(index)
    return f"{expression(node.value, ATOM)}[{inside}]"


def _slice(node: gast.Slice, precedence: int) -> str:
    text = "" if node.lower is None else expression(node.lower)
    text += ":" if node.upper is None else ":" + expression(node.upper)
    if node.step is not None:
        text += ":" + expression(node.step)
    return text


def _name(node: gast.Name, precedence: int) -> str:
    if node.annotation is None:
        return node.id
    return f"{node.id}: {expression(node.annotation)}"


def _constant(node: gast.Constant, precedence: int) -> str:
    value = node.value
    if node.kind is not None:
        raise UnprintableError("a u'' string")
    if isinstance(value, float | complex):
        text = repr(value)
        if "n" in text:  # inf, nan
            text = text.replace("inf", _INFINITY).replace("nan", f"({_INFINITY}-{_INFINITY})")
        return text
    if value is Ellipsis:
        return "..."
    if isinstance(value, tuple):
        raise UnprintableError("a folded tuple constant")
    return repr(value)  # strings too: `repr` picks the quotes and writes the escapes


def _arguments(node: gast.arguments) -> str:
    """A parameter list (as in a `def` or a `lambda`), without its parentheses."""
    parts = []
    positional = [*node.posonlyargs, *node.args]
    defaults = [None] * (len(positional) - len(node.defaults)) + node.defaults
    for index, (parameter, default) in enumerate(zip(positional, defaults, strict=True), 1):
        text = expression(parameter)
        parts.append(text if default is None else f"{text}={expression(default)}")
        if index == len(node.posonlyargs):
            parts[-1] += ", /"
    if node.vararg is not None:
        parts.append("*" + expression(node.vararg))
    elif node.kwonlyargs:
        parts.append("*")
    for parameter, default in zip(node.kwonlyargs, node.kw_defaults, strict=True):
        text = expression(parameter)
        parts.append(text if default is None else f"{text}={expression(default)}")
    if node.kwarg is not None:
        parts.append("**" + expression(node.kwarg))
    return ", ".join(parts)


_EXPRESSIONS: dict[type, Callable[[Any, int], str]] = {
    gast.Name: _name, gast.Constant: _constant, gast.Attribute: _attribute,
    gast.Subscript: _subscript, gast.Slice: _slice, gast.Call: _call, gast.BinOp: _binary,
    gast.UnaryOp: _unary, gast.Compare: _compare, gast.BoolOp: _boolean,
    gast.IfExp: _conditional, gast.Lambda: _lambda, gast.Tuple: _tuple, gast.List: _list,
    gast.Set: _set, gast.Dict: _dict, gast.Starred: _starred,
}  # fmt: skip


class _Printer:
    """Statements, as lines, each indented four spaces a level."""

    def __init__(self, comment_mark: str) -> None:
        self.lines: list[str] = []
        self.comment_mark = comment_mark

    def block(self, body: list[gast.stmt], indent: str) -> None:
        for node in body:
            self.statement(node, indent)

    def statement(self, node: gast.stmt, indent: str) -> None:
        if getattr(node, "type_comment", None) is not None:
            raise UnprintableError("a type comment")
        if isinstance(node, gast.Assign):
            targets = "".join([f"{expression(target, TUPLE)} = " for target in node.targets])
            self.lines.append(indent + targets + expression(node.value))
        elif isinstance(node, gast.Expr):
            self.lines.append(indent + self._expression_statement(node.value))
        elif isinstance(node, gast.If):
            self._if(node, indent)
        elif isinstance(node, gast.For):
            self._for(node, indent)
        elif isinstance(node, gast.While):
            self._suite(f"{indent}while {expression(node.test)}:", node.body, indent)
            self._orelse(node.orelse, indent)
        elif isinstance(node, gast.AugAssign):
            operator = BINARY[type(node.op)][0]
            target = expression(node.target)
            self.lines.append(f"{indent}{target} {operator}= {expression(node.value)}")
        elif isinstance(node, gast.Return):
            value = "" if node.value is None else " " + expression(node.value)
            self.lines.append(f"{indent}return{value}")
        elif isinstance(node, gast.FunctionDef):
            self._function(node, indent)
        elif isinstance(node, gast.Try):  # in `grad`'s entry functions (`srcad/entry.py`)
            self._try(node, indent)
        else:
            self.lines.append(indent + _simple_statement(node))

    def _expression_statement(self, value: gast.expr) -> str:
        if isinstance(value, gast.Constant) and isinstance(value.value, str):
            text = value.value
            if text.startswith(self.comment_mark) and len(text.splitlines()) <= 1:
                return "# " + text[len(self.comment_mark) :]
            raise UnprintableError("a string statement (a docstring)")
        return expression(value, YIELD)

    def _suite(self, header: str, body: list[gast.stmt], indent: str) -> None:
        self.lines.append(header)
        self.block(body, indent + "    ")

    def _orelse(self, orelse: list[gast.stmt], indent: str) -> None:
        if orelse:
            self._suite(indent + "else:", orelse, indent)

    def _if(self, node: gast.If, indent: str) -> None:
        self._suite(f"{indent}if {expression(node.test)}:", node.body, indent)
        while len(node.orelse) == 1 and isinstance(node.orelse[0], gast.If):
            node = node.orelse[0]  # an `else` holding only an `if` is an `elif`
            self._suite(f"{indent}elif {expression(node.test)}:", node.body, indent)
        self._orelse(node.orelse, indent)

    def _for(self, node: gast.For, indent: str) -> None:
        header = f"{indent}for {expression(node.target, TUPLE)} in {expression(node.iter)}:"
        self._suite(header, node.body, indent)
        self._orelse(node.orelse, indent)

    def _try(self, node: gast.Try, indent: str) -> None:
        self._suite(f"{indent}try:", node.body, indent)
        for handler in node.handlers:
            caught = "" if handler.type is None else " " + expression(handler.type)
            named = "" if handler.name is None else f" as {handler.name.id}"
            self._suite(f"{indent}except{caught}{named}:", handler.body, indent)
        self._orelse(node.orelse, indent)
        if node.finalbody:
            self._suite(f"{indent}finally:", node.finalbody, indent)

    def _function(self, node: gast.FunctionDef, indent: str) -> None:
        if getattr(node, "type_params", None):
            raise UnprintableError("type parameters")
        if self.lines:
            self.lines.append("")  # a blank line before a definition
        for decorator in node.decorator_list:
            self.lines.append(f"{indent}@{expression(decorator)}")
        returns = "" if node.returns is None else " -> " + expression(node.returns)
        header = f"{indent}def {node.name}({_arguments(node.args)}){returns}:"
        self._suite(header, node.body, indent)


def _simple_statement(node: gast.stmt) -> str:
    """A statement without a body."""
    if isinstance(node, gast.Pass):
        return "pass"
    if isinstance(node, gast.Break):
        return "break"
    if isinstance(node, gast.Continue):
        return "continue"
    if isinstance(node, gast.Raise):
        if node.exc is None:
            if node.cause is not None:
                raise UnprintableError("a cause without an exception")
            return "raise"
        cause = "" if node.cause is None else " from " + expression(node.cause)
        return f"raise {expression(node.exc)}{cause}"
    if isinstance(node, gast.Assert):
        message = "" if node.msg is None else ", " + expression(node.msg)
        return f"assert {expression(node.test)}{message}"
    if isinstance(node, gast.Delete):
        return "del " + ", ".join([expression(target) for target in node.targets])
    if isinstance(node, gast.Global | gast.Nonlocal):
        keyword = "global " if isinstance(node, gast.Global) else "nonlocal "
        return keyword + ", ".join(node.names)
    raise UnprintableError(type(node).__name__)
